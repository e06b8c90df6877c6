r"""The columns beyond the paper: the sharp calibration and the least-noise uniform baseline and the oracles.

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
``pdp_op_sharp`` is PDP-OP's own exact column with ``B="sharp"``
(:func:`pdp_lib.experiments.evaluate_sweep`); this module holds the threshold rules and the
Jorgensen oracle.  Every mechanism other than ``pdp_op_sharp`` uses the norm bound ``B`` the caller passes (the paper's
``B(lambda)`` by default; ``"sharp"`` for all of them makes the comparison fair under the sharp
calibration).  Derived in the book's chapter *Does personalization pay?*
(``book/personalization.ipynb``).
"""

from __future__ import annotations

import numpy as np

from ..bounds import noise_scale
from ..mechanisms.output_perturbation import weighted_ridge_unchecked
from ..mechanisms.threshold import best_public_threshold, threshold_calibration, threshold_candidates

__all__ = ["exact_columns", "jorgensen_grid", "jorgensen_oracle", "GRID_SIZE", "SELECT_RUNS"]

GRID_SIZE = 8          # geometric grid points of t between min and max of the profile (plus its mean)
SELECT_RUNS = 500      # runs per grid point to choose the oracle t (its value is then re-estimated)


def _moments(loss, theta_bar, eta):
    mom = loss.moments_unchecked(theta_bar, np.asarray(eta))
    return float(mom.mean), float(np.sqrt(mom.var))


def _threshold_fit(X, y, eps, tau, lam, B):
    """``theta_bar`` and ``eta`` of uniform DP at ``tau`` (:func:`pdp_lib.mechanisms.threshold.threshold_calibration`)."""
    keep, cal = threshold_calibration(eps, lam, X.shape[1], tau, B)
    return weighted_ridge_unchecked(X[keep], y[keep], np.asarray(cal.weights), lam), cal.eta


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
    k = n - np.searchsorted(np.sort(eps), taus, side="left")  # points with eps_i >= tau
    G = gram[k - 1] / k[:, None, None]
    b = moment[k - 1] / k[:, None]
    thetas, etas = [], []
    eye = np.eye(d)
    for lam in lams:
        thetas.append(np.linalg.solve(G + lam * eye, b[..., None])[..., 0])
        etas.append(taus * k / noise_scale(lam, d, B))     # eq. (eq-threshold-eta)
    return taus, thetas, etas


def exact_columns(X, y, eps, loss_u, losses_r, lams, methods, B=None) -> dict:
    """Exact mean and standard deviation of the threshold rules' columns.

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
        Any of ``threshold_public``, ``threshold_oracle``.
    B : None, "sharp" or float
        The norm bound of the threshold rules.

    Returns
    -------
    dict
        ``{column: (mean, std, chosen)}`` with arrays of shape ``(L,)``; ``chosen`` is the
        threshold used at each ``lambda``.
    """
    L = len(lams)
    out = {}
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
                mom = loss.moments_unchecked(thetas[j], etas[j])
                best = int(np.argmin(mom.mean))      # ties: the first, i.e. the smallest threshold
                res[:, j] = mom.mean[best], np.sqrt(mom.var[best]), taus[best]
            out[f"{kind}_threshold_oracle"] = tuple(res)
    return out


def jorgensen_grid(eps: np.ndarray, size: int = GRID_SIZE) -> np.ndarray:
    """The thresholds ``t`` the Jorgensen oracle tries: a geometric grid from ``min`` to ``max`` of
    the profile, with the paper's ``max`` and ``mean``; below ``min`` every point is kept at a
    level under every ``epsilon_i``, above ``max`` every keep probability only shrinks."""
    lo, hi = float(eps.min()), float(eps.max())
    grid = np.geomspace(lo, hi, size) if hi > lo else np.array([lo])
    return np.unique(np.r_[grid, float(eps.mean()), hi])


def jorgensen_oracle(statistics, eps, runs, gen_select, gen_eval, *, select_runs=SELECT_RUNS, known=None):
    r"""Jorgensen et al.'s sampling at the ``t`` of :func:`jorgensen_grid` with the lowest expected loss.

    **Not private**: the choice reads the data and the test set.  The choice is made on
    ``select_runs`` masks per grid point (stream ``gen_select``) and the chosen ``t`` is then
    re-estimated on ``runs`` fresh masks (stream ``gen_eval``), so the reported value is not
    biased low by the minimum over noisy estimates (the winner's curse).  Chosen separately
    for every ``lambda`` and both losses.

    Parameters
    ----------
    statistics : callable
        ``statistics(t, runs, generator)`` -> ``(mean, std, mean_se, std_se)``, each of shape
        ``(2, L)`` (unregularized and regularized loss, one column per ``lambda``): the engine's
        Rao-Blackwellized Monte Carlo of Jorgensen's mechanism at threshold ``t``.
    eps : numpy.ndarray
        The privacy profile.
    runs : int
        Masks for the reported estimate.
    gen_select, gen_eval : numpy.random.Generator
        Independent streams for the choice and for the estimate.
    select_runs : int, default 500
        Masks per grid point for the choice (at most ``runs``).
    known : dict of float -> array, optional
        Statistics already estimated on ``runs`` masks from streams independent of
        ``gen_select`` (the paper's ``t = max`` and ``t = mean``): reused when the oracle
        chooses that ``t``, instead of drawing ``runs`` masks again.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The statistics, shape ``(4, 2, L)``, and the chosen ``t``, shape ``(2, L)``.
    """
    grid = jorgensen_grid(eps)
    select = np.stack([statistics(t, min(select_runs, runs), g)[0]
                       for t, g in zip(grid, gen_select.spawn(grid.size))])      # (G, 2, L)
    best = np.argmin(select, axis=0)                                            # (2, L)
    out = np.empty((4,) + best.shape)
    evaluators = gen_eval.spawn(grid.size)
    known = known or {}
    for g in np.unique(best):
        chosen = best == g
        t = float(grid[g])
        stats = np.asarray(known[t] if t in known else statistics(t, runs, evaluators[g]))
        out[:, chosen] = stats[:, chosen]
    return out, grid[best]
