r"""The columns beyond the paper: the sharp calibration and the strongest uniform baselines.

For one dataset draw, one privacy profile and a grid of ``lambda`` values, these functions
return the mean and the standard deviation over the privacy noise of the unregularized and
regularized test losses of

``pdp_op_sharp``      PDP-OP calibrated with the exact supremum ``B*(lambda)`` of the norm
                      (:func:`pdp_lib.bounds.sharp_norm_bound`), the same guarantee with less noise;
``threshold_public``  uniform DP at the best public threshold (:func:`pdp_lib.best_public_threshold`);
``threshold_oracle``  uniform DP at the threshold minimizing the exact expected loss -- **not
                      private** (it reads the data and the test set): an upper bound on what any
                      threshold rule achieves, chosen separately for each ``lambda`` and loss;
``jorgensen_oracle``  Jorgensen et al.'s sampling at the threshold ``t`` of a grid minimizing the
                      estimated expected loss -- **not private** either, the strongest version of the
                      paper's sampling baseline (:func:`jorgensen_oracle`).

All but the last are exact (:mod:`pdp_lib.moments`): output perturbation of a fixed ``theta_bar``.
Every mechanism other than ``pdp_op_sharp`` uses the norm bound ``B`` the caller passes (the paper's
``B(lambda)`` by default; ``"sharp"`` for all of them makes the comparison fair under the sharp
calibration).  Derived in the book's chapter *Does personalization pay?*
(``book/personalization.ipynb``).
"""

from __future__ import annotations

import numpy as np

from ..bounds import noise_scale
from ..mechanism import _weighted_ridge, calibrate
from ..threshold import best_public_threshold, kept_mask, threshold_candidates

__all__ = ["BEYOND_METHODS", "exact_columns", "ORACLE_LABEL"]

BEYOND_METHODS = ("pdp_op_sharp", "threshold_public", "threshold_oracle", "jorgensen_oracle")
ORACLE_LABEL = "oracle (not private)"


def _moments(loss, theta_bar, eta):
    mom = loss._moments(theta_bar, np.asarray(eta))
    return float(mom.mean), float(np.sqrt(mom.var))


def _threshold_fit(X, y, eps, tau, lam, B):
    keep = kept_mask(eps, tau)
    k = int(keep.sum())
    cal = calibrate(np.full(k, float(tau)), lam, X.shape[1], B)
    return _weighted_ridge(X[keep], y[keep], np.asarray(cal.weights), lam), cal.eta


def _all_thresholds(X, y, eps, lams, B):
    """Every candidate threshold at once: ``(taus, thetas[j] of shape (K, d), etas[j] of shape (K,))``.

    The kept sets are nested (a larger threshold keeps a subset), so the Gram matrices and
    moment vectors of all of them are cumulative sums over the points sorted by decreasing
    level: one ``(K, d, d)`` stack and one batched solve per ``lambda``.
    """
    n, d = X.shape
    taus = threshold_candidates(eps)                          # increasing
    order = np.argsort(-eps, kind="stable")                   # decreasing level
    Xs, ys = X[order], y[order]
    gram = np.cumsum(Xs[:, :, None] * Xs[:, None, :], axis=0)  # (n, d, d): top-k sums
    moment = np.cumsum(Xs * ys[:, None], axis=0)                # (n, d)
    k = np.array([np.count_nonzero(eps >= t) for t in taus])
    G = gram[k - 1] / k[:, None, None]
    b = moment[k - 1] / k[:, None]
    thetas, etas = [], []
    eye = np.eye(d)
    for lam in lams:
        thetas.append(np.linalg.solve(G + lam * eye, b[..., None])[..., 0])
        etas.append(taus * k / noise_scale(lam, d, B))     # eq. (eq-threshold-eta)
    return taus, thetas, etas


def exact_columns(X, y, eps, loss_u, losses_r, lams, methods, B=None) -> dict:
    """Exact mean and standard deviation of the exact beyond-the-paper columns.

    Parameters
    ----------
    X, y : numpy.ndarray
        Training data, validated.
    eps : numpy.ndarray
        The privacy profile, validated.
    loss_u : pdp_lib.moments.QuadraticLoss
        The unregularized test loss.
    losses_r : list of QuadraticLoss
        The regularized test loss for each ``lambda``.
    lams : numpy.ndarray of shape (L,)
    methods : sequence of str
        Any of ``pdp_op_sharp``, ``threshold_public``, ``threshold_oracle``.
    B : None, "sharp" or float
        The norm bound of the threshold rules.

    Returns
    -------
    dict
        ``{column: (mean, std, chosen)}`` with arrays of shape ``(L,)``; ``chosen`` is the
        threshold used at each ``lambda`` (NaN for ``pdp_op_sharp``).
    """
    d = X.shape[1]
    L = len(lams)
    out = {}
    if "pdp_op_sharp" in methods:
        res = {kind: np.empty((3, L)) for kind in ("unreg", "reg")}
        for j, lam in enumerate(lams):
            cal = calibrate(eps, lam, d, "sharp")
            theta_bar = _weighted_ridge(X, y, np.asarray(cal.weights), lam)
            res["unreg"][:, j] = (*_moments(loss_u, theta_bar, cal.eta), np.nan)
            res["reg"][:, j] = (*_moments(losses_r[j], theta_bar, cal.eta), np.nan)
        for kind in res:
            out[f"{kind}_pdp_op_sharp"] = tuple(res[kind])
    if "threshold_public" in methods:
        tau = best_public_threshold(eps)
        res = {kind: np.empty((3, L)) for kind in ("unreg", "reg")}
        for j, lam in enumerate(lams):
            theta_bar, eta = _threshold_fit(X, y, eps, tau, lam, B)
            res["unreg"][:, j] = (*_moments(loss_u, theta_bar, eta), tau)
            res["reg"][:, j] = (*_moments(losses_r[j], theta_bar, eta), tau)
        for kind in res:
            out[f"{kind}_threshold_public"] = tuple(res[kind])
    if "threshold_oracle" in methods:
        taus, thetas, etas = _all_thresholds(X, y, eps, lams, B)
        for kind in ("unreg", "reg"):
            res = np.empty((3, L))
            for j in range(L):
                loss = loss_u if kind == "unreg" else losses_r[j]
                mom = loss._moments(thetas[j], etas[j])
                best = int(np.argmin(mom.mean))      # ties: the first, i.e. the smallest threshold
                res[:, j] = mom.mean[best], np.sqrt(mom.var[best]), taus[best]
            out[f"{kind}_threshold_oracle"] = tuple(res)
    return out
