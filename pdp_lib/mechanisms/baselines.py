r"""The baselines of Section 4: non-personalized DP, Jorgensen et al.'s sampling, non-private ridge.

These are the single-run reference implementations (one draw per call, like
:func:`pdp_lib.pdp_op`); the experiment engine (:mod:`pdp_lib.experiments`) computes the
same estimators vectorized over runs and is tested against them.

* **Non-personalized** (Section 4.1): Algorithm 1 run with every privacy level equal to
  :math:`\varepsilon^* = \min_i \varepsilon_i`, i.e. uniform weights ``1/n`` and
  ``eta = n eps* / c(lam)`` -- the output perturbation of Chaudhuri et al.
* **Jorgensen et al.** (Section 4.2, "Experimental setup"): for a threshold ``t`` keep point
  ``i`` with probability :math:`(e^{\varepsilon_i} - 1)/(e^t - 1)` if :math:`\varepsilon_i < t`
  and 1 otherwise, then run the ``t``-DP non-personalized output perturbation on the kept
  points (uniform weights ``1/k``, ``eta = k t / c(lam)`` for ``k`` kept points).  The paper
  uses ``t = max_i eps_i`` ("Jorgensen max") and ``t = mean_i eps_i`` ("Jorgensen mean").
  Jorgensen et al.'s amplification argument claims ``eps_i`` for point ``i``; it assumes a
  base mechanism that is ``t``-DP when one point is added or removed, whereas here ``eta``
  depends on ``k`` and the paper's neighbours replace a point, so this library treats
  ``eps_i`` as the baseline's *claimed* level (book chapter *What the guarantee does not
  cover*, ``book/limits.ipynb``).
* **Non-private**: ordinary least squares (the authors' "type1": ``lam = 0``, minimum-norm
  least-squares solution) and ridge with uniform weights (their "type2").

Here ``c(lam) = 2 sqrt(d) (1 + sqrt(d) B(lam)) / lam`` (:func:`pdp_lib.bounds.noise_scale`).
Derived in the book's chapter *Exact loss moments* (``book/moments.ipynb``).

**When Jorgensen keeps no point.**  The sample is then empty and the ridge objective reduces
to :math:`\lambda\|\theta\|^2`, whose minimizer is :math:`\bar\theta = 0`; the mechanism
returns :math:`\hat\theta = 0` without noise.  This is what the authors' code does (their
``eta`` is ``t`` times the number of kept points, hence 0, which their code reads as "no
noise").  The empty sample alone reveals nothing (the mask depends on the public levels only), but
it breaks the sampling argument: a one-point sample's law is then compared with a point mass at 0,
and the loss of that point can exceed its level (at ``n = 2``, levels ``0.1`` and threshold 2, the
exact loss is 0.283).  So :func:`jorgensen` refuses an explicit threshold above the largest level;
with ``t <= max(eps)`` the most liberal point is always kept and no sample is empty.  The thresholds
of the paper, ``max`` and ``mean``, are never above it.
"""

from __future__ import annotations

import math

import numpy as np

from ..bounds import noise_scale
from .output_perturbation import weighted_ridge_unchecked, pdp_op
from ..validation import (
    check_data,
    check_problem,
    check_epsilons,
    check_positive,
    check_rng,
)

__all__ = [
    "non_personalized",
    "jorgensen_threshold",
    "jorgensen_keep_probabilities",
    "jorgensen_mask",
    "jorgensen_mask_exact",
    "jorgensen_step_exponent",
    "jorgensen_eta",
    "jorgensen",
    "least_squares",
    "non_private_ridge",
]


def non_personalized(X, y, epsilons, lam, B=None, rng=None, *, sampler="exact") -> np.ndarray:
    r"""Non-personalized output perturbation at level :math:`\varepsilon^* = \min_i \varepsilon_i` (Section 4.1).

    Algorithm 1 with the profile :math:`(\varepsilon^*, \dots, \varepsilon^*)`: uniform
    weights ``1/n`` and ``eta = lam n eps* / (2 sqrt(d) (1 + sqrt(d) B(lam)))`` (Theorem 3.1;
    Theorem 3.2 when ``B`` is given).  Every point gets ``eps*``-DP.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Features in ``[0, 1]``.
    y : array-like of shape (n,)
        Labels in ``[-1, 1]``.
    epsilons : array-like of shape (n,)
        Privacy levels, finite and ``> 0``; only their minimum is used.
    lam : float
        ``lambda > 0``.
    B : float, optional
        Public bound of Assumption 3.1.
    rng : None, int or numpy.random.Generator
        Source of the privacy noise.
    sampler : {"exact", "float"}, default "exact"
        As in :func:`pdp_lib.pdp_op`: ``"exact"``, the lattice release; ``"float"``, the paper's
        double-precision sampler, exact over the reals only.

    Returns
    -------
    numpy.ndarray of shape (d,)
    """
    X, y, eps, _ = check_problem(X, y, epsilons)
    return pdp_op(X, y, np.full(X.shape[0], eps.min()), lam, B=B, rng=rng, sampler=sampler)


def jorgensen_threshold(epsilons, kind="max") -> float:
    """The threshold ``t`` of Jorgensen et al.: ``max`` or ``mean`` of the privacy levels (Section 4.2)."""
    eps = check_epsilons(epsilons)
    if kind == "max":
        return float(eps.max())
    if kind == "mean":
        return float(eps.mean())
    raise ValueError(f"kind = {kind!r} is not allowed; use 'max' or 'mean'")


def jorgensen_keep_probabilities(epsilons, t) -> np.ndarray:
    r"""Sampling probabilities :math:`\pi_i = (e^{\varepsilon_i} - 1)/(e^t - 1)` if :math:`\varepsilon_i < t`, else 1.

    Section 4.2 ("Experimental setup"), after Jorgensen et al. (2015), Definition 9.
    Computed with ``expm1`` so that small levels keep their relative precision.

    Parameters
    ----------
    epsilons : array-like of shape (n,)
        Privacy levels, finite and ``> 0``.
    t : float
        Threshold, finite and ``> 0``.

    Returns
    -------
    numpy.ndarray of shape (n,)
        Values in ``(0, 1]``.
    """
    eps = check_epsilons(epsilons)
    t = check_positive(t, "t")
    return np.where(eps < t, np.expm1(np.minimum(eps, t)) / np.expm1(t), 1.0)


def jorgensen_mask(epsilons, t, rng=None) -> np.ndarray:
    """One draw of Jorgensen's sample: a boolean mask, ``True`` for kept points.

    Points with ``pi_i = 1`` (``eps_i >= t``) are always kept; each other point ``i`` is kept
    when ``U_i < pi_i`` for independent uniforms ``U_i`` drawn from ``rng`` in index order,
    one per such point (:func:`jorgensen_keep_probabilities`).
    """
    p = jorgensen_keep_probabilities(epsilons, t)
    gen = check_rng(rng)
    rand = p < 1.0
    mask = np.ones(p.shape[0], dtype=bool)
    mask[rand] = draw_masks(gen, p[rand], 1, 1)[0]
    return mask


def jorgensen_mask_exact(epsilons, t, bits) -> np.ndarray:
    r"""One draw of Jorgensen's sample with exact coins: a boolean mask, ``True`` for kept points.

    Points with :math:`\varepsilon_i \ge t` are always kept; each other point ``i``, in index order, is kept with
    probability exactly :math:`\pi_i = (e^{\varepsilon_i} - 1)/(e^t - 1)`
    (:func:`pdp_lib.mechanisms.exact_sampling.bernoulli_expm1_ratio`: uniform bits against certified bounds on
    :math:`\pi_i`; no double stands for it, so a :math:`\pi_i` below ``2**-53`` keeps its value).  The mask of the
    exact release :func:`jorgensen`.

    Parameters
    ----------
    epsilons : array-like of shape (n,)
        Privacy levels, finite and ``> 0``.
    t : float
        The threshold, finite and ``> 0``.
    bits : pdp_lib.mechanisms.exact_sampling.RandomBits
        The source of uniform bits.
    """
    from .exact_sampling import bernoulli_expm1_ratio

    eps = check_epsilons(epsilons)
    t = check_positive(t, "t")
    return np.array([True if e >= t else bernoulli_expm1_ratio(float(e), t, bits) for e in eps], dtype=bool)


def jorgensen_step_exponent(n: int, t: float, lam, d: int, B=None) -> int:
    r"""The lattice of Jorgensen's exact release, fixed from public inputs: step ``2**-g`` for every sample.

    ``g`` is the step exponent that the lattice release (:func:`pdp_lib.mechanisms.lattice.lattice_calibration`)
    would choose for all ``n`` points at level ``t``: its target step :math:`2^{-20}\Delta_\min/(\sqrt d
    \max(1, t))` with :math:`\Delta_\min = c_\lambda t / (k t)` shrinks as the sample size ``k`` grows, so the
    lattice of ``k = n`` is the finest any sample needs, and every sample's release uses it.  A function of ``n``,
    ``t``, ``lambda``, ``d`` and ``B`` only: the output's lattice says nothing about which points were kept
    (book chapter *What the guarantee does not cover*, proposition *prop-jorgensen-lattice*).
    """
    from fractions import Fraction

    from .lattice import lattice_calibration, rounds_bound

    # n t correctly rounded: the value math.fsum gives for n copies of t, without a list of n doubles
    return lattice_calibration(float(Fraction(float(t)) * int(n)), float(t), rounds_bound(int(n)), lam, d,
                               B).step_exponent


def draw_masks(gen, p_random: np.ndarray, rows: int, draw_rows: int) -> np.ndarray:
    """The next ``rows`` masks of the random points, ``(rows, n_random)`` booleans.

    The one sampler of Jorgensen's sample, behind :func:`jorgensen_mask` and
    :mod:`pdp_lib.experiments`: one uniform per random point (``pi_i < 1``), row by row,
    ``draw_rows`` rows of uniforms at a time; point ``i`` is kept when ``U_i < pi_i``.
    Successive calls consume the generator exactly as one call with all the rows would.
    """
    masks = np.empty((rows, p_random.shape[0]), dtype=bool)
    for s in range(0, rows, draw_rows):
        e = min(s + draw_rows, rows)
        np.less(gen.random((e - s, p_random.shape[0])), p_random, out=masks[s:e])
    return masks


def jorgensen_eta(lam: float, d: int, k, t: float, B=None):
    """Jorgensen's noise parameter ``eta = k t / c(lam)`` for ``k`` kept points (Section 4.2).

    ``c(lam)`` is :func:`pdp_lib.bounds.noise_scale` (with ``B`` as there); ``k`` may be an
    array of counts.  ``inf`` -- no noise -- where ``k = 0``: the empty sample returns ``0``
    (see the module docstring).  Used by the experiment engine and the audit's exact density
    (:func:`pdp_lib.audit.jorgensen_log_density`).
    """
    k = np.asarray(k, dtype=float)
    return np.where(k > 0, k * t / noise_scale(lam, d, B), np.inf)


def jorgensen(X, y, epsilons, lam, threshold="max", B=None, rng=None, return_mask=False, *, sampler="exact"):
    r"""Jorgensen et al.'s sample-then-perturb mechanism with output perturbation (Section 4.2).

    Draws the sample with :func:`jorgensen_mask` (threshold ``t``), then runs
    :func:`pdp_lib.pdp_op` on the ``k`` kept points with every level equal to ``t``: uniform
    weights ``1/k`` and ``eta = lam k t / (2 sqrt(d) (1 + sqrt(d) B(lam)))``.  A threshold of at most
    the largest level keeps the most liberal point always, so the sample is never empty (the module
    docstring says why an empty sample would break the guarantee).
    The mask's coins are drawn from ``rng`` first, then the noise.

    With ``sampler="exact"`` (the default) the coins are exact (:func:`jorgensen_mask_exact`) and every sample's
    release lies on one lattice fixed from public inputs (:func:`jorgensen_step_exponent`), so that neither the
    coins' rounding nor the output's lattice reveals whether a point was kept; no floating-point number is drawn.
    With ``sampler="float"`` the coins are ``U < pi_i`` for double-precision uniforms (which realise every
    :math:`\pi_i > 0` as at least ``2**-53``) and the noise is the paper's sampler: the book's experiments, exact over
    the reals only.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Features in ``[0, 1]``.
    y : array-like of shape (n,)
        Labels in ``[-1, 1]``.
    epsilons : array-like of shape (n,)
        Privacy levels, finite and ``> 0``.
    lam : float
        ``lambda > 0``.
    threshold : {'max', 'mean'} or float, default 'max'
        ``t = max(eps)``, ``t = mean(eps)`` or an explicit ``t`` in ``(0, max(eps)]``.
    B : float, optional
        Public bound of Assumption 3.1 (Theorem 3.2) for the base mechanism.
    rng : None, int or numpy.random.Generator
        Source of both the sampling and the noise.
    return_mask : bool, default False
        Also return the boolean mask of kept points.
    sampler : {"exact", "float"}, default "exact"
        ``"exact"``: exact coins and the lattice release on a public lattice; ``"float"``, the paper's
        double-precision coins and sampler, exact over the reals only.

    Returns
    -------
    theta_hat : numpy.ndarray of shape (d,)
    mask : numpy.ndarray of shape (n,), only when ``return_mask``
    """
    X, y, eps, lam = check_problem(X, y, epsilons, lam)
    n, d = X.shape
    if isinstance(threshold, str):
        t = jorgensen_threshold(eps, threshold)
    else:
        t = check_positive(threshold, "threshold")
        if t > eps.max():
            raise ValueError(f"threshold = {t!r} is outside the allowed range (0, max(epsilons)] = "
                             f"(0, {float(eps.max())!r}]: "
                             f"above the largest level every point may be dropped, and the empty sample's fixed output "
                             f"breaks the sampling argument (book chapter 'What the guarantee does not cover', "
                             f"proposition prop-jorgensen-lattice)")
    from .lattice import check_sampler

    if check_sampler(sampler) == "exact":
        theta_hat, mask = _jorgensen_exact(X, y, eps, lam, t, B, rng)
        return (theta_hat, mask) if return_mask else theta_hat
    gen = check_rng(rng)
    mask = jorgensen_mask(eps, t, gen)
    k = int(mask.sum())
    if k == 0:
        theta_hat = np.zeros(d)
    else:
        theta_hat = pdp_op(X[mask], y[mask], np.full(k, t), lam, B=B, rng=gen, sampler="float")
    return (theta_hat, mask) if return_mask else theta_hat


def _jorgensen_exact(X, y, eps, lam, t, B, rng) -> tuple:
    """The exact release for validated inputs: exact coins, then the lattice release on one public lattice."""
    from .exact_sampling import RandomBits
    from .lattice import release_from_sums, weighted_sums

    n, d = X.shape
    if rng is not None and not isinstance(rng, RandomBits):
        check_rng(rng)                                # a bad seed is refused with the argument's name
    bits = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    g = jorgensen_step_exponent(n, t, lam, d, B)      # before any draw: a refusal spends nothing
    mask = jorgensen_mask_exact(eps, t, bits)
    k = int(mask.sum())
    if k == 0:
        return np.zeros(d), mask
    levels = np.full(k, t)
    gram, moment, rounds = weighted_sums(X[mask], y[mask], levels)
    theta, _, _ = release_from_sums(gram, moment, math.fsum(levels), t, k, rounds, lam, B, bits, step_exponent=g)
    return theta, mask


def least_squares(X, y) -> np.ndarray:
    """Minimum-norm ordinary least squares (``lam = 0``; the authors' non-private "type1" column).

    ``numpy.linalg.lstsq``: for rank-deficient ``X`` (the one-hot blocks plus intercept of the
    Medical Cost data) every least-squares solution gives the same predictions on points
    satisfying the same linear constraints, and the minimum-norm one is returned.
    """
    X, y, _, _ = check_data(X, y)
    return np.linalg.lstsq(X, y, rcond=None)[0]


def non_private_ridge(X, y, lam) -> np.ndarray:
    r"""Ridge with uniform weights: :math:`\arg\min \frac1n\sum_i (y_i - \theta^\top x_i)^2 + \lambda\|\theta\|^2`.

    Eq. (2) with ``w_i = 1/n`` and no noise (the authors' non-private "type2" column).
    """
    X, y, _, lam = check_data(X, y, lam=lam)
    return weighted_ridge_unchecked(X, y, np.full(X.shape[0], 1.0 / X.shape[0]), lam)
