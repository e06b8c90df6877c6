r"""Sufficient-statistics perturbation (SSP), personalized by re-weighting, pure DP, exact in floating point.

The weighted ridge solution of eq. (2) is a function of two statistics,

.. math::

    A = \sum_i w_i x_i x_i^\top, \qquad b = \sum_i w_i y_i x_i, \qquad w_i = \varepsilon_i / S,\ S = \sum_j \varepsilon_j,

so SSP releases noisy statistics and solves afterwards: :math:`\hat\theta = (\hat A_+ + \lambda I)^{-1}\hat b`,
where :math:`\hat A_+` is :math:`\hat A` with its negative eigenvalues set to 0 (post-processing: a noisy Gram
matrix can be indefinite).

**Sensitivity.**  On the domain (:math:`x \in [0, 1]^d`, :math:`y \in [-1, 1]`), replacing point ``i`` moves the
upper triangle of ``A`` (its ``p = d(d+1)/2`` entries as a vector) by
:math:`w_i \|\mathrm{upper}(x x^\top - x' x'^\top)\|_2 \le w_i\sqrt p` (each entry of the difference lies in
``[-1, 1]``; equality at ``x = 1``, ``x' = 0``) and ``b`` by :math:`w_i\|y x - y' x'\|_2 \le 2 w_i \sqrt d`
(each coordinate in ``[-2, 2]``; equality at ``x = x' = 1``, ``y = -y' = 1``).  Each is tight on its own; no
single pair attains both, so their weighted sum below bounds a pair's loss from above (at ``d = 12`` and
``rho = 1/2`` nested pairs reach 0.824 of it, and a random search finds nothing higher: if nested pairs are the
worst, the calibration is conservative by a factor 1.21 at most).

**Noise.**  ℓ2-Laplace noise on each statistic, :math:`\propto e^{-\eta_A\|E\|_2}` on the upper triangle's vector
and :math:`\propto e^{-\eta_b\|e\|_2}` on ``b``: point ``i``'s loss is at most
:math:`w_i(\eta_A\sqrt p + 2\eta_b\sqrt d)`, so :math:`\eta_A = \rho S/\sqrt p` and
:math:`\eta_b = (1-\rho) S/(2\sqrt d)` give every point its :math:`\varepsilon_i`, with the share :math:`\rho`
of each budget spent on ``A``.  At equal levels this is non-personalized SSP with ℓ2 noise; the published forms use
Laplace noise per entry with ℓ1 sensitivities (Vu & Slavković, 2009) or Gaussian noise (Wang, UAI 2018).  The noise
on the upper triangle's entries (each off-diagonal entry counted
once) rather than on the Frobenius norm: the sensitivity :math:`\sqrt p \approx d/\sqrt 2` is smaller than the
Frobenius one, ``d``, and the noise per entry is the same for the diagonal and the rest.

**Exact in floating point** (``sampler="exact"``, the default): the statistics are the library's
floating-point sums (:func:`pdp_lib.mechanisms.lattice.weighted_sums`, whose rounding is bounded for every
order), divided exactly by the correctly rounded ``S``, rounded exactly to the grid of step ``gamma``, and the
noise is the rounded ℓ2-Laplace law drawn exactly (:func:`pdp_lib.mechanisms.exact_rounding.sample_rounded_l2`):
each released statistic is a function of the continuous mechanism's output at the rounded centre.  Point
``i``'s centre moves by at most :math:`w_i\Delta + 2e + \gamma\sqrt{\dim}` for each statistic, with ``e`` the
sums' proved error bound, so

.. math::

    \eta'_A = \rho\,\Big(\frac{\sqrt p}{S} + \frac{2\alpha + \gamma\sqrt p}{\varepsilon_\min}\Big)^{-1},\qquad
    \eta'_b = (1-\rho)\,\Big(\frac{2\sqrt d}{S} + \frac{2\beta + \gamma\sqrt d}{\varepsilon_\min}\Big)^{-1}

keep :math:`\eta'_A(w_i\sqrt p + 2\alpha + \gamma\sqrt p) + \eta'_b(2 w_i\sqrt d + 2\beta + \gamma\sqrt d) \le
\varepsilon_i` for every point (the spread weighs most on the smallest level).  Everything after the release of
the statistics (the eigenvalue clip, the solve) is post-processing and may use floating point.

Derived, and compared with PDP-OP on the Medical Cost data, in the book's chapter *Beyond output perturbation*
(``book/beyond.ipynb``: lemma *lem-ssp-sensitivity*, proposition *prop-ssp-privacy*).  The tests (``tests/test_ssp.py``) check the sensitivities by brute
force over the domain's corners, every corner neighbour's loss on the lattice against its level, and the reduction
to the published (non-personalized) form at equal levels.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..validation import check_fraction, check_positive, check_problem, check_rng
from .exact_rounding import sample_rounded_l2
from .exact_sampling import RandomBits
from .lattice import (STEP_SLACK, check_release_levels, check_sampler, check_sums_rounds, double_below,
                      grid_step_exponent, power_of_two_at_most, sqrt_up, sums_rounding_bound, weighted_sums)
from .output_perturbation import sample_l2_laplace_unchecked

__all__ = ["SSPCalibration", "ssp_sensitivities", "ssp_calibration", "ssp_statistics", "float_statistics", "statistics_from_sums",
           "lattice_statistics", "solve_statistics", "symmetric_stack", "noisy_solutions", "ssp", "public_ridge", "SHARE", "FAILURE"]

SHARE = 0.5
"""The default share ``rho`` of each budget spent on the Gram matrix (the rest on the moment)."""


def ssp_sensitivities(d: int) -> tuple:
    r"""``(sqrt(p), 2 sqrt(d))``: the statistics' sensitivities per unit of weight, ``p = d (d + 1) / 2``, as floats.

    Tight on the domain (module docstring); :func:`ssp_calibration` uses rational bounds from above.
    """
    return math.sqrt(d * (d + 1) / 2), 2.0 * math.sqrt(d)


@dataclass(frozen=True)
class SSPCalibration:
    """The public parameters of one SSP release.

    Attributes
    ----------
    share : float
        ``rho``, the share of each budget spent on the Gram matrix.
    eta_gram, eta_moment : float
        The noise parameters of the two statistics (``eta'`` on the lattice).
    step_exponent : int or None
        ``g``, the grid's step ``2**-g`` (``None`` for the floating-point sampler).
    rate_gram, rate_moment : fractions.Fraction or None
        ``eta' * gamma`` per lattice step (``None`` for the floating-point sampler).
    """

    share: float
    eta_gram: float
    eta_moment: float
    step_exponent: int | None = None
    rate_gram: Fraction | None = None
    rate_moment: Fraction | None = None


def ssp_calibration(total: float, eps_min: float, d: int, share: float = SHARE, *, rounds=None) -> SSPCalibration:
    r"""The noise of SSP for levels summing to ``total`` with smallest ``eps_min``, in dimension ``d``.

    ``rounds=None``: over the reals, :math:`\eta_A = \rho S/\sqrt p`, :math:`\eta_b = (1-\rho)S/(2\sqrt d)`.
    With ``rounds`` (the sums' roundings, :func:`pdp_lib.mechanisms.lattice.rounds_bound`): the lattice
    calibration of the module docstring, every quantity rational and on the safe side (``S`` from below, the
    square roots from above), each ``eta'`` the largest double below its bound.
    """
    rho = check_fraction(share, "share", closed_low=False, closed_high=False)
    if rounds is None:
        sens_a, sens_b = ssp_sensitivities(d)
        return SSPCalibration(share=rho, eta_gram=rho * total / sens_a, eta_moment=(1 - rho) * total / sens_b)
    check_release_levels(total, eps_min)
    p = d * (d + 1) // 2
    sqrt_p, sqrt_d = sqrt_up(Fraction(p)), sqrt_up(Fraction(d))
    S_lo = Fraction(float(total)) * (1 - Fraction(1, 1 << 52))
    eps_min_q, rho_q = Fraction(float(eps_min)), Fraction(rho)
    alpha = sums_rounding_bound(rounds, d, eps_min_q)
    beta = alpha / d * sqrt_d
    smallest = eps_min_q * min(sqrt_p, 2 * sqrt_d) / S_lo            # the smallest per-point sensitivity
    g = grid_step_exponent(smallest * STEP_SLACK / (sqrt_p * max(1, eps_min_q)))
    gamma = power_of_two_at_most(-g)
    eta_a = double_below(rho_q / (sqrt_p / S_lo + (2 * alpha + gamma * sqrt_p) / eps_min_q))
    eta_b = double_below((1 - rho_q) / (2 * sqrt_d / S_lo + (2 * beta + gamma * sqrt_d) / eps_min_q))
    return SSPCalibration(share=rho, eta_gram=eta_a, eta_moment=eta_b, step_exponent=g,
                          rate_gram=Fraction(eta_a) * gamma, rate_moment=Fraction(eta_b) * gamma)


FAILURE = 0.05
"""The probability with which :func:`public_ridge` may fall short of the Gram noise's spectral norm."""


def public_ridge(eta_gram: float, d: int, failure: float = FAILURE) -> float:
    r"""A ridge for SSP that reads no data: at least the Gram noise's spectral norm with probability ``1 - failure``.

    The noise on the upper triangle is a vector of ``p = d(d+1)/2`` entries with density
    :math:`\propto e^{-\eta_A\|e\|}`, so its norm is Gamma with shape ``p`` and scale :math:`1/\eta_A`
    (Remark 3.1); the symmetric noise matrix ``E`` has :math:`\|E\|_2 \le \|E\|_F \le \sqrt 2\|e\|` (each
    off-diagonal entry appears twice).  So :math:`\lambda = \sqrt 2\,F^{-1}_{\Gamma(p, 1/\eta_A)}(1 - \text{failure})`
    makes :math:`\hat A + \lambda I \succeq A \succeq 0` with probability at least ``1 - failure``: the analogue,
    for pure SSP, of AdaSSP's rule with the eigenvalue's bound at 0 (:func:`pdp_lib.mechanisms.adassp.ridge_rule`).
    A function of public parameters only, so it spends nothing.  The bound is loose (the Frobenius norm for the
    spectral one): its coverage is higher than ``1 - failure``, and the ridge larger than the noise's quantile (about
    1.9 times it on the book's data).  Compared in the book's chapter *Beyond output perturbation*.
    """
    from scipy.stats import gamma as gamma_law

    eta_gram = check_positive(eta_gram, "eta_gram")
    failure = check_fraction(failure, "failure", closed_low=False, closed_high=False)
    p = d * (d + 1) // 2
    return float(math.sqrt(2.0) * gamma_law.ppf(1.0 - failure, p, scale=1.0 / eta_gram))


def symmetric_from_upper(upper: np.ndarray, d: int) -> np.ndarray:
    """The symmetric matrices whose upper triangles (row by row) are the last axis of ``upper``: shape ``(d, d)`` for
    one, ``(..., d, d)`` for a stack (each entry read from its place in the triangle, one gather for the stack)."""
    upper = np.asarray(upper, dtype=float)
    return np.take(upper, _triangle_places(d), axis=-1).reshape(upper.shape[:-1] + (d, d))


@functools.lru_cache(maxsize=64)
def _triangle_places(d: int) -> np.ndarray:
    """Entry ``(i, j)`` of a ``d x d`` matrix, row by row: its place in the upper triangle, read row by row."""
    rows, cols = np.triu_indices(d)
    places = np.empty((d, d), dtype=np.intp)
    places[rows, cols] = places[cols, rows] = np.arange(rows.size)
    places.flags.writeable = False
    return places.ravel()


def float_statistics(upper, b, cal, gen) -> tuple:
    """The floating-point release of the statistics: ``(A_hat, b_hat)`` from the weighted Gram matrix's upper
    triangle ``upper`` (row by row) and the weighted moment ``b``, each plus the double-precision l2-Laplace noise
    of ``cal`` drawn from ``gen`` (the Gram matrix's first): exact only over the reals."""
    noisy_upper = upper + sample_l2_laplace_unchecked(cal.eta_gram, upper.size, 1, gen)[0]
    return symmetric_from_upper(noisy_upper, b.size), b + sample_l2_laplace_unchecked(cal.eta_moment, b.size, 1, gen)[0]


def ssp_statistics(X, y, epsilons, rng=None, *, share: float = SHARE, sampler="exact") -> tuple:
    r"""The released statistics ``(A_hat, b_hat, calibration)``: the only step that reads the data.

    Parameters
    ----------
    X, y, epsilons : array-like
        The problem, in the domain (:func:`pdp_lib.pdp_op`).
    rng : None, int, numpy.random.Generator or RandomBits
        The noise's source (``None`` with ``sampler="exact"``: the operating system's cryptographic source).
    share : float, default 0.5
        ``rho`` in ``(0, 1)``.
    sampler : {"exact", "float"}, default "exact"
        ``"exact"``: the lattice release of the module docstring.  ``"float"``: the statistics in floating point
        plus the floating-point ℓ2-Laplace sampler, exact only over the reals (for the experiments).

    Returns
    -------
    (numpy.ndarray of shape (d, d), numpy.ndarray of shape (d,), SSPCalibration)
    """
    X, y, eps, _ = check_problem(X, y, epsilons)
    sampler = check_sampler(sampler)
    n, d = X.shape
    rows, cols = np.triu_indices(d)
    if sampler == "float":
        gen = check_rng(rng)
        cal = ssp_calibration(float(eps.sum()), float(eps.min()), d, share)
        w = eps / eps.sum()
        A = (X * w[:, None]).T @ X
        b = (X * w[:, None]).T @ y
        return (*float_statistics(A[rows, cols], b, cal, gen), cal)
    if rng is not None and not isinstance(rng, RandomBits):
        check_rng(rng)
    gram, moment, rounds = weighted_sums(X, y, eps)
    return statistics_from_sums(gram, moment, math.fsum(eps), float(eps.min()), n, rounds, rng, share=share)


def statistics_from_sums(gram, moment, total: float, eps_min: float, n: int, rounds: int, rng=None, *,
                         share: float = SHARE) -> tuple:
    """The lattice release of the statistics from the sums of ``n`` rows: ``(A_hat, b_hat, calibration)``.

    ``gram`` and ``moment`` are :func:`pdp_lib.mechanisms.lattice.weighted_sums` of rows of the domain (or their
    streamed merges, :class:`pdp_lib.io.streaming.Sums`), ``total`` the levels' sum correctly rounded.  The
    calibration uses :func:`pdp_lib.mechanisms.lattice.rounds_bound` of ``n``, so the noise does not depend on
    the layout of the rows; the sums' own ``rounds`` must not exceed it.
    """
    d = np.asarray(moment).size
    p = d * (d + 1) // 2
    bits = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    cal = ssp_calibration(total, eps_min, d, share, rounds=check_sums_rounds(rounds, n))
    m_a, m_b = lattice_statistics(gram, moment, total, cal.step_exponent)
    k_a = sample_rounded_l2(cal.rate_gram, p, bits)
    k_b = sample_rounded_l2(cal.rate_moment, d, bits)
    g = cal.step_exponent
    upper = np.array([float(Fraction(m + k) / power_of_two_at_most(g)) for m, k in zip(m_a, k_a)])   # correctly rounded
    b_hat = np.array([float(Fraction(m + k) / power_of_two_at_most(g)) for m, k in zip(m_b, k_b)])
    return symmetric_from_upper(upper, d), b_hat, cal


def lattice_statistics(gram, moment, total: float, g: int) -> tuple:
    """The lattice centres ``(m_A, m_b)``: the upper triangle of ``gram`` (row by row) and ``moment``, each divided by
    ``total`` and rounded to the nearest multiple of ``2**-g`` (ties to even), exactly, in units of the step."""
    gram, moment = np.asarray(gram, dtype=float), np.asarray(moment, dtype=float)
    rows, cols = np.triu_indices(moment.size)
    scale = power_of_two_at_most(g) / Fraction(total)                       # 1 / (S~ gamma), exactly
    return ([round(Fraction(float(gram[j, k])) * scale) for j, k in zip(rows, cols)],
            [round(Fraction(float(v)) * scale) for v in moment])


def solve_statistics(A_hat, b_hat, lam) -> np.ndarray:
    """``(A_+ + lam I)^{-1} b``: the negative eigenvalues of the symmetric ``A_hat`` set to 0 (post-processing)."""
    return solve_clipped(np.asarray(A_hat, dtype=float), np.asarray(b_hat, dtype=float), float(lam))


def solve_clipped(A_hat: np.ndarray, b_hat: np.ndarray, lam: float) -> np.ndarray:
    """``(A_+ + lam I)^{-1} b``: the negative eigenvalues of the symmetric ``A_hat`` set to 0 (post-processing)."""
    values, vectors = np.linalg.eigh(A_hat)
    return vectors @ ((vectors.T @ b_hat) / (np.maximum(values, 0.0) + lam))


def symmetric_stack(A, gram_noise) -> np.ndarray:
    """The noisy Gram matrices: ``gram_noise`` of shape ``(k, p)`` added to the upper triangle of ``A`` (row by row)
    and mirrored; shape ``(k, d, d)``."""
    A = np.asarray(A, dtype=float)
    d = A.shape[0]
    rows, cols = np.triu_indices(d)
    return symmetric_from_upper(A[rows, cols] + gram_noise, d)


def noisy_solutions(A, b, gram_noise, moment_noise, lams) -> list:
    """:func:`solve_statistics` for many releases at once: one ``(k, d)`` array per value of ``lams``.

    ``gram_noise`` of shape ``(k, p)`` is added to the upper triangle of ``A`` (row by row, mirrored), and
    ``moment_noise`` of shape ``(k, d)`` to ``b``; each noisy Gram matrix is diagonalized once for every ``lam``.
    For the experiments and for ``python -m pdp_lib compare``, in floating point.
    """
    A, b = np.asarray(A, dtype=float), np.asarray(b, dtype=float)
    values, vectors = np.linalg.eigh(symmetric_stack(A, gram_noise))
    proj = np.einsum("rji,rj->ri", vectors, b + moment_noise)
    return [np.einsum("rij,rj->ri", vectors, proj / (np.maximum(values, 0.0) + lam)) for lam in lams]


def ssp(X, y, epsilons, lam, rng=None, *, share: float = SHARE, sampler="exact") -> np.ndarray:
    r"""Personalized SSP: point ``i`` gets ``epsilon_i``-DP; :math:`\hat\theta = (\hat A_+ + \lambda I)^{-1}\hat b`.

    The same interface as :func:`pdp_lib.pdp_op` (``share`` and ``sampler`` as in :func:`ssp_statistics`).
    ``lam`` is used only after the release, so a reader may solve at several values of ``lam`` from one
    release of :func:`ssp_statistics` at no further privacy cost.

    Returns
    -------
    numpy.ndarray of shape (d,)
    """
    X, y, eps, lam = check_problem(X, y, epsilons, lam)
    A_hat, b_hat, _ = ssp_statistics(X, y, eps, rng, share=share, sampler=sampler)
    return solve_clipped(A_hat, b_hat, lam)
