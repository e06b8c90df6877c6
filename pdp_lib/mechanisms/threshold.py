r"""Uniform DP at a threshold: the least-noise uniform baseline that spends only what is public.

For a threshold :math:`\tau > 0` keep the :math:`k(\tau) = \#\{i : \varepsilon_i \ge \tau\}`
points whose privacy level is at least :math:`\tau`, fit ridge with uniform weights
:math:`1/k` on them, and add L2-Laplace noise with

.. math::

    \eta(\tau) = \frac{\lambda\,\tau\,k(\tau)}{2\sqrt d\,(1 + \sqrt d\,B)},

that is Algorithm 1 run on the kept points with every level equal to :math:`\tau`.

*Privacy.*  Which points are kept depends only on the public privacy profile, never on the
data, so a dropped point never touches the output (its loss is 0), and a kept point gets
:math:`\tau`-DP (Theorem 3.1 on the kept points), at most its :math:`\varepsilon_i`.

*The public rule.*  :math:`\eta(\tau)` is proportional to :math:`\tau\,k(\tau)`, so the
threshold that maximizes :math:`\tau\,k(\tau)` gives the least noise of any threshold rule;
it depends only on the profile (:func:`best_public_threshold`).  Only the distinct levels
need be tried: between two of them :math:`k` is constant and :math:`\tau k` grows with
:math:`\tau`.  The *oracle* threshold (:func:`oracle_threshold`) minimizes the exact
expected test loss instead; it reads the data and the test set, so it is **not private**:
it is an upper bound on what any threshold rule can achieve.

PDP-OP's :math:`\eta` is :math:`\sum_i\varepsilon_i / c`, never below :math:`\tau k(\tau)/c`
because :math:`\sum_i \varepsilon_i \ge \sum_{i:\varepsilon_i\ge\tau}\varepsilon_i \ge \tau k(\tau)`.
Derived in the book's chapter *Does personalization pay?*.
"""

from __future__ import annotations

import math

import numpy as np

from .output_perturbation import run_pdp_op, weighted_ridge_unchecked, calibrate
from ..validation import check_problem, check_epsilons, check_positive

__all__ = [
    "threshold_candidates",
    "kept_mask",
    "best_public_threshold",
    "threshold_calibration",
    "threshold_dp",
    "oracle_threshold",
    "personalization_ratio",
    "harmonic_number",
]


def threshold_candidates(epsilons) -> np.ndarray:
    """The thresholds worth trying: the distinct privacy levels, in increasing order."""
    return np.unique(check_epsilons(epsilons))


def kept_mask(epsilons, threshold) -> np.ndarray:
    r"""The points a threshold keeps: ``epsilons >= threshold``.

    Raises
    ------
    ValueError
        If ``threshold`` is not positive and finite, or keeps no point (it is above
        ``max(epsilons)``).
    """
    eps = check_epsilons(epsilons)
    tau = check_positive(threshold, "threshold")
    keep = eps >= tau
    if not keep.any():
        raise ValueError(f"threshold = {tau!r} keeps no point: it is above max(epsilons) = "
                         f"{float(eps.max())!r}; the allowed range is (0, max(epsilons)]")
    return keep


def best_public_threshold(epsilons) -> float:
    r"""The threshold maximizing :math:`\tau\cdot\#\{i : \varepsilon_i \ge \tau\}` (the largest :math:`\eta`).

    It depends only on the public privacy profile.  Ties (equal :math:`\tau k`, hence equal
    noise) go to the smallest threshold, which keeps the most points.

    Parameters
    ----------
    epsilons : array-like of shape (n,)
        Privacy levels, finite and ``> 0``.

    Returns
    -------
    float
        One of the privacy levels.
    """
    eps = np.sort(check_epsilons(epsilons))
    n = eps.size
    # after sorting, eps[j] as threshold keeps at least n - j points; with ties, the first
    # occurrence of a value keeps exactly n - j (all equal values are kept)
    first = np.r_[True, eps[1:] != eps[:-1]]
    tau = eps[first]
    kept = n - np.flatnonzero(first)
    score = tau * kept
    return float(tau[int(np.argmax(score))])          # argmax: first (smallest tau) of the ties


def personalization_ratio(epsilons) -> float:
    r"""PDP-OP's :math:`\eta` over that of the best threshold rule: :math:`\sum_i\varepsilon_i / \max_\tau \tau k(\tau)`.

    Both noise parameters carry the same factor :math:`1/c(\lambda, B)`, so the ratio depends only
    on the profile.  It lies in :math:`[1, H_n]` (:func:`harmonic_number`): 1 exactly for a
    constant profile, :math:`H_n` exactly for a harmonic one (:math:`\varepsilon_{(k)} \propto 1/k`
    in decreasing order).  The expected noise term of the loss, proportional to
    :math:`1/\eta^2`, shrinks by its square.  Proposition *prop-personalization-gain* of the book's
    chapter *Does personalization pay?*.
    """
    eps = check_epsilons(epsilons)
    tau = best_public_threshold(eps)
    # fsum rounds the exact sum once, and tau * k is rounded once: as the exact sum is at least
    # tau * k and rounding is monotone, the computed ratio is at least 1, as the exact one is
    return float(math.fsum(eps) / (tau * np.count_nonzero(eps >= tau)))


def harmonic_number(n) -> float:
    r""":math:`H_n = \sum_{k=1}^n 1/k`, summed from the smallest term for accuracy."""
    n = int(n)
    if n < 1:
        raise ValueError(f"n = {n} is outside the allowed range [1, inf)")
    return float(np.sum(1.0 / np.arange(n, 0, -1, dtype=float)))


def threshold_calibration(epsilons, lam, d, threshold=None, B=None):
    """Kept points and calibration of uniform DP at ``threshold``: ``(keep, Calibration)``.

    The calibration is :func:`pdp_lib.calibrate` of the kept points at level ``threshold``:
    uniform weights ``1/k`` and ``eta = lam * threshold * k / (2 sqrt(d) (1 + sqrt(d) B))``.
    ``threshold=None`` uses :func:`best_public_threshold`.
    """
    eps = check_epsilons(epsilons)
    tau = best_public_threshold(eps) if threshold is None else threshold
    keep = kept_mask(eps, tau)
    k = int(keep.sum())
    return keep, calibrate(np.full(k, float(tau)), lam, d, B)


def threshold_dp(X, y, epsilons, lam, threshold=None, B=None, rng=None, *, sampler="exact") -> np.ndarray:
    r"""Uniform :math:`\tau`-DP output perturbation on the points with :math:`\varepsilon_i \ge \tau`.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Features in ``[0, 1]``.
    y : array-like of shape (n,)
        Labels in ``[-1, 1]``.
    epsilons : array-like of shape (n,)
        Privacy levels, finite and ``> 0`` (public).
    lam : float
        ``lambda > 0``.
    threshold : float, optional
        :math:`\tau`, in ``(0, max(epsilons)]``; ``None`` uses :func:`best_public_threshold`.
        It must not depend on the data (features, labels or a test set): the guarantee
        rests on the kept set being a function of the public profile alone.  In particular the
        output of :func:`oracle_threshold`, which reads the data, must never be passed here.
    B : None, "sharp" or float, optional
        The norm bound, as in :func:`pdp_lib.calibrate`.
    rng : None, int or numpy.random.Generator
        Source of the privacy noise.
    sampler : {"exact", "float"}, default "exact"
        As in :func:`pdp_lib.pdp_op`: ``"exact"``, the lattice release; ``"float"``, the paper's
        double-precision sampler, exact over the reals only.

    Returns
    -------
    numpy.ndarray of shape (d,)
        :math:`\hat\theta`; point ``i`` gets :math:`\tau`-DP if kept (``tau <= epsilons[i]``)
        and does not influence the output otherwise.

    Raises
    ------
    ValueError
        On data outside the domain, or a threshold that keeps no point.
    """
    X, y, eps, lam = check_problem(X, y, epsilons, lam)
    tau = best_public_threshold(eps) if threshold is None else threshold
    keep = kept_mask(eps, tau)
    return run_pdp_op(X[keep], y[keep], np.full(int(keep.sum()), float(tau)), lam, B, rng, sampler=sampler)[0]


def oracle_threshold(X, y, X_test, y_test, epsilons, lam, B=None, penalty=0.0):
    r"""The threshold minimizing the exact expected test loss -- **not private**.

    Its output depends on the data and the test set: passing it to :func:`threshold_dp`
    voids that function's guarantee.

    Tries every distinct privacy level and returns the one whose exact expected loss over
    the noise (:func:`pdp_lib.moments.loss_moments`) on ``(X_test, y_test)`` is smallest.
    It reads the training data and the test set, so it is an upper bound on what any
    threshold rule can achieve, never a mechanism.

    Parameters
    ----------
    X, y, epsilons, lam, B
        As in :func:`threshold_dp`.
    X_test, y_test : array-like
        The test set, in the domain.
    penalty : float, default 0
        ``0`` for the unregularized test loss, ``lam`` for the regularized one (Section 4).

    Returns
    -------
    (float, float)
        The oracle threshold and its expected test loss.
    """
    from ..moments import loss_moments  # noqa: PLC0415 - the exact moments, only for the oracle

    X, y, eps, lam = check_problem(X, y, epsilons, lam)
    d = X.shape[1]
    best_tau, best_mean = None, np.inf
    for tau in threshold_candidates(eps):
        keep, cal = threshold_calibration(eps, lam, d, tau, B)
        theta_bar = weighted_ridge_unchecked(X[keep], y[keep], np.asarray(cal.weights), lam)
        mean = float(loss_moments(theta_bar, cal.eta, X_test, y_test, penalty=penalty).mean)
        if mean < best_mean:
            best_tau, best_mean = float(tau), mean
    return best_tau, best_mean
