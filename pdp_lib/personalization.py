r"""When does personalization lose?  PDP-OP against uniform DP at a threshold, part by part.

Both PDP-OP (Algorithm 1) and uniform DP at a threshold (:mod:`pdp_lib.mechanisms.threshold`) are output
perturbation :math:`\bar\theta + Z` with :math:`Z \propto \exp(-\eta\|z\|)`.  For a quadratic test
loss :math:`L(\theta) = \theta^\top A\theta - 2 b^\top\theta + c` the exact expected loss splits
(Theorem *thm-exact-loss-moments*) into a bias part and a noise part,

.. math::

    \mathbb E\,L(\bar\theta + Z) = L(\bar\theta) + \frac{(d+1)\operatorname{tr}A}{\eta^2} .

With :math:`r = \eta_{\text{PDP-OP}}/\eta_\tau \ge 1` (the personalization ratio), the threshold
rule's noise part is :math:`r^2` times PDP-OP's, so (Proposition *prop-threshold-wins* of the
book's chapter *Does personalization pay?*)

.. math::

    \mathbb E L_\tau < \mathbb E L_{\text{PDP-OP}} \iff
    L(\bar\theta_{\text{PDP-OP}}) - L(\bar\theta_\tau) > (r^2 - 1)\,\nu_{\text{PDP-OP}},

and, as :math:`\lambda \to \infty`,
:math:`\lambda\,(\mathbb E L_\tau - \mathbb E L_{\text{PDP-OP}}) \to 2\,b^\top(m_{\text{PDP-OP}} - m_\tau)`
with :math:`m = \sum_i w_i x_i y_i` each mechanism's weighted moment (:func:`large_lambda_limit`).

:func:`bias_noise_parts` evaluates both parts for both mechanisms along a grid of
:math:`\lambda`; :func:`correlated_privacy_data` is the synthetic family of the chapter in which a
point's privacy level is correlated with the noise of its label.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .mechanisms.output_perturbation import weighted_ridge_unchecked, calibrate
from .moments import QuadraticLoss
from .mechanisms.threshold import best_public_threshold, kept_mask, threshold_calibration
from .validation import (check_problem, check_count, check_features, check_fraction, check_labels,
                         check_positive, check_rng)

__all__ = ["BiasNoiseParts", "bias_noise_parts", "large_lambda_limit", "CorrelatedData",
           "correlated_privacy_data"]

METHODS = ("pdp_op", "threshold_public")


@dataclass(frozen=True)
class BiasNoiseParts:
    r"""Bias and noise parts of the exact expected test loss of PDP-OP and of the public threshold rule.

    Attributes
    ----------
    lams : numpy.ndarray of shape (L,)
    bias, noise : dict of str -> numpy.ndarray of shape (L,)
        ``L(theta_bar)`` and ``(d + 1) tr A / eta**2`` for ``"pdp_op"`` and ``"threshold_public"``.
    mean : dict of str -> numpy.ndarray of shape (L,)
        The expected loss from :meth:`pdp_lib.moments.QuadraticLoss.moments` (computed apart from
        the parts, so that their sum can be checked against it).
    ratio : float
        :math:`r = \eta_{\text{PDP-OP}} / \eta_\tau`, the same at every ``lambda``.
    threshold : float
        The best public threshold :math:`\tau`.
    """

    lams: np.ndarray
    bias: dict
    noise: dict
    mean: dict
    ratio: float
    threshold: float

    def condition(self) -> np.ndarray:
        r"""Where the threshold rule wins by Proposition *prop-threshold-wins*: a boolean array of shape (L,).

        ``bias_pdp_op - bias_threshold > (r**2 - 1) * noise_pdp_op``, read off the parts.
        """
        gain = self.bias["pdp_op"] - self.bias["threshold_public"]
        return gain > (self.ratio ** 2 - 1) * self.noise["pdp_op"]

    def loss_ratio(self) -> np.ndarray:
        """Expected loss of the threshold rule over PDP-OP's, at every ``lambda`` (shape (L,))."""
        return self.mean["threshold_public"] / self.mean["pdp_op"]


def _checked(X, y, epsilons, X_test, y_test):
    X, y, eps, _ = check_problem(X, y, epsilons)
    X_test = check_features(X_test, "X_test")
    if X_test.shape[1] != X.shape[1]:
        raise ValueError(f"X_test has {X_test.shape[1]} columns; X has {X.shape[1]}: they must match")
    y_test = check_labels(y_test, X_test.shape[0], "y_test")
    return X, y, eps, X_test, y_test


def bias_noise_parts(X, y, epsilons, X_test, y_test, lams, B=None, penalty=False) -> BiasNoiseParts:
    r"""Both parts of the exact expected test loss of PDP-OP and of the best public threshold rule.

    Parameters
    ----------
    X, y : array-like
        Training data in the domain (``[0, 1]`` features, ``[-1, 1]`` labels).
    epsilons : array-like of shape (n,)
        The public privacy profile.
    X_test, y_test : array-like
        The test set, in the domain.
    lams : array-like of shape (L,)
        Values of ``lambda > 0``.
    B : None, "sharp" or float, optional
        The norm bound of *both* mechanisms, as in :func:`pdp_lib.calibrate`.
    penalty : bool, default False
        The regularized test loss (plus ``lambda ||theta||^2``) instead of the test MSE.

    Returns
    -------
    BiasNoiseParts
    """
    X, y, eps, X_test, y_test = _checked(X, y, epsilons, X_test, y_test)
    lams = np.array([check_positive(v, "lams") for v in np.atleast_1d(lams)], dtype=float)
    d = X.shape[1]
    loss = QuadraticLoss(X_test, y_test)
    keep = kept_mask(eps, best_public_threshold(eps))
    parts = {key: {m: np.empty(lams.size) for m in METHODS} for key in ("bias", "noise", "mean")}
    etas = {m: np.empty(lams.size) for m in METHODS}
    for j, lam in enumerate(lams):
        L = loss.with_penalty(lam) if penalty else loss
        trace = float(np.trace(L.matrix))
        cal = calibrate(eps, lam, d, B)
        cal_t = threshold_calibration(eps, lam, d, B=B)[1]
        fits = {"pdp_op": (X, y, cal), "threshold_public": (X[keep], y[keep], cal_t)}
        for m, (Xm, ym, c) in fits.items():
            theta_bar = weighted_ridge_unchecked(Xm, ym, np.asarray(c.weights), lam)
            parts["bias"][m][j] = float(L.value(theta_bar))
            parts["noise"][m][j] = (d + 1) * trace / c.eta ** 2
            parts["mean"][m][j] = float(L.moments(theta_bar, c.eta).mean)
            etas[m][j] = c.eta
    ratio = etas["pdp_op"] / etas["threshold_public"]
    return BiasNoiseParts(lams=lams, bias=parts["bias"], noise=parts["noise"], mean=parts["mean"],
                          ratio=float(ratio[0]), threshold=best_public_threshold(eps))


def large_lambda_limit(X, y, epsilons, X_test, y_test) -> float:
    r"""The limit of :math:`\lambda\,(\mathbb E L_\tau - \mathbb E L_{\text{PDP-OP}})` as :math:`\lambda \to \infty`.

    Equal to :math:`2\,b^\top(m_{\text{PDP-OP}} - m_\tau)`, with :math:`b = X_{\text{test}}^\top
    y_{\text{test}}/N` and :math:`m = \sum_i w_i x_i y_i` under each mechanism's weights
    (Proposition *prop-threshold-wins*, part 2; the same for the test MSE and for either norm
    bound).  Negative: the threshold rule wins at every large enough ``lambda``; positive: PDP-OP does.

    Parameters
    ----------
    X, y, epsilons, X_test, y_test
        As in :func:`bias_noise_parts`.

    Returns
    -------
    float
    """
    X, y, eps, X_test, y_test = _checked(X, y, epsilons, X_test, y_test)
    b = X_test.T @ y_test / X_test.shape[0]
    keep = kept_mask(eps, best_public_threshold(eps))
    m_pdp = X.T @ (eps / eps.sum() * y)
    m_tau = X[keep].T @ y[keep] / keep.sum()
    return float(2 * b @ (m_pdp - m_tau))


@dataclass(frozen=True)
class CorrelatedData:
    """A draw of :func:`correlated_privacy_data`: training data, profile, clean test set.

    ``flipped`` marks the training points whose label was flipped; ``strong`` those at the
    strong privacy level.
    """

    X: np.ndarray
    y: np.ndarray
    epsilons: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    flipped: np.ndarray
    strong: np.ndarray


def correlated_privacy_data(n, rho, *, share=0.1, eps_strong=0.5, eps_weak=1.0, noise=0.1,
                            n_test=4000, rng=None) -> CorrelatedData:
    r"""Synthetic data in which the points asking for strong privacy are those with noisy labels.

    Features :math:`x = (1, u)`, :math:`u \sim U[0, 1]`; clean labels :math:`y = u - 1/2 + e`,
    :math:`e \sim U[-\text{noise}, \text{noise}]`.  A share ``share`` of the training points has its
    label flipped (:math:`y \to -y`), and the same share asks for the strong level ``eps_strong``;
    the others have ``eps_weak``.  Of the flipped points, ``round(n_f (share + rho (1 - share)))``
    are strong, the rest of the strong points are clean, so ``rho`` is the correlation coefficient
    between "strong privacy" and "flipped label" (exactly, up to the rounding of the counts):
    ``rho = 0`` is the paper's setting (levels independent of the data), ``rho = 1`` makes the
    strong points exactly the flipped ones.  The data do not depend on ``rho``: only the levels
    move.  The test set (``n_test`` points) is clean.

    Parameters
    ----------
    n : int
        Training points, at least 2 and such that ``round(share * n) >= 1``.
    rho : float
        In ``[-share / (1 - share), 1]``.
    share : float, default 0.1
        In ``(0, 1/2]``.
    eps_strong, eps_weak : float
        ``0 < eps_strong < eps_weak``.
    noise : float, default 0.1
        In ``[0, 1/2]`` (labels stay in ``[-1, 1]``).
    n_test : int, default 4000
    rng : None, int or numpy.random.Generator

    Returns
    -------
    CorrelatedData
    """
    n, n_test = check_count(n, "n", minimum=2), check_count(n_test, "n_test")
    share = check_fraction(share, "share", closed_low=False)
    if share > 0.5:
        raise ValueError(f"share = {share!r} is outside the allowed range (0, 0.5]")
    low = -share / (1 - share)
    if isinstance(rho, (bool, np.bool_)) or not isinstance(rho, numbers.Real):
        raise TypeError(f"rho must be a real number, got {type(rho).__name__}")
    rho = float(rho)
    if not low <= rho <= 1:
        raise ValueError(f"rho = {rho!r} is outside the allowed range [{low:.6g}, 1] (share = {share})")
    eps_strong, eps_weak = check_positive(eps_strong, "eps_strong"), check_positive(eps_weak, "eps_weak")
    if not eps_strong < eps_weak:
        raise ValueError(f"eps_strong = {eps_strong} is outside the allowed range (0, eps_weak = {eps_weak})")
    noise = check_fraction(noise, "noise")
    if noise > 0.5:
        raise ValueError(f"noise = {noise!r} is outside the allowed range [0, 0.5]")
    n_flip = int(round(share * n))
    if n_flip < 1:
        raise ValueError(f"n = {n} is outside the allowed range: round(share * n) must be at least 1")
    gen = check_rng(rng)
    u, e = gen.uniform(0, 1, n), gen.uniform(-noise, noise, n)
    u_test, e_test = gen.uniform(0, 1, n_test), gen.uniform(-noise, noise, n_test)
    y = u - 0.5 + e
    flipped = np.arange(n) < n_flip                   # i.i.d. points: the first n_flip are flipped
    y[flipped] *= -1
    both = int(round(n_flip * (share + rho * (1 - share))))
    strong = np.zeros(n, dtype=bool)
    strong[:both] = True                              # flipped and strong
    strong[n_flip:n_flip + n_flip - both] = True      # clean and strong: n_flip strong in all
    eps = np.where(strong, eps_strong, eps_weak)
    return CorrelatedData(X=np.c_[np.ones(n), u], y=y, epsilons=eps,
                          X_test=np.c_[np.ones(n_test), u_test], y_test=u_test - 0.5 + e_test,
                          flipped=flipped, strong=strong)
