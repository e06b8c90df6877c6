r"""PDP-OP on a lattice: a release whose guarantee survives floating point.

The release is :math:`\gamma\,(m + K)` with

* :math:`\gamma = 2^{-g}` a lattice step chosen from public quantities (:func:`lattice_calibration`);
* :math:`m = \mathrm{round}(\tilde\theta/\gamma)`, where :math:`\tilde\theta` solves *exactly*, in rational
  arithmetic, the ridge system built from the floating-point sums
  :math:`\tilde G = \mathrm{fl}(\sum_i \varepsilon_i x_i x_i^\top)`, :math:`\tilde b =
  \mathrm{fl}(\sum_i \varepsilon_i y_i x_i)` and a correctly rounded :math:`\tilde S` of
  :math:`\sum_i \varepsilon_i` (:func:`lattice_centre`);
* :math:`K \sim P(k) \propto \exp(-t\|k\|_2)` on :math:`\mathbb{Z}^d`, drawn exactly
  (:func:`pdp_lib.mechanisms.exact_sampling.sample_lattice_l2`), with the rational rate
  :math:`t = \eta'\gamma`, up to ``d = 12`` (:func:`noise_law`); in more dimensions, where that sampler
  slows like ``exp(0.27 d)``, :math:`K = \mathrm{round}(U)` with ``U`` of density :math:`\propto \exp(-t\|u\|_2)` on
  :math:`\mathbb{R}^d`, drawn and rounded exactly
  (:func:`pdp_lib.mechanisms.exact_rounding.sample_rounded_l2`): ``m + K = round(m + U)`` is a function of
  the continuous mechanism's output at the centre ``m``.

Point ``i`` gets ``epsilon_i``-DP when :math:`\eta' (\Delta_i + 2 e + \gamma\sqrt d) \le \varepsilon_i`, with
:math:`\Delta_i = w_i c_\lambda` the sensitivity of Theorem A.4 and ``e`` a bound, valid for every summation
order, on the distance between the exact weighted ridge solution and :math:`\tilde\theta`
(:func:`accumulation_error`).  The proof is in the book's chapter *What the guarantee does not cover*
(``book/limits.ipynb``), section *A release that keeps its promise in floating point*.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..bounds import noise_scale, resolve_bound
from ..validation import check_choice, check_dimension, check_positive
from .exact_rounding import sample_rounded_gaussian, sample_rounded_l2
from .exact_sampling import RandomBits, sample_lattice_l2

__all__ = ["LatticeCalibration", "check_sampler", "noise_law", "NOISE_LAWS", "weighted_sums", "merged_rounds",
           "LATTICE_LAW_DIMENSION", "rounds_bound", "unit_roundoff_gamma", "accumulation_error",
           "lattice_calibration", "lattice_centre", "integer_system", "sums_rounding_bound", "check_release_levels", "release_from_sums",
           "check_sums_rounds", "STEP_SLACK", "SAMPLERS", "BLOCK_ROWS"]

SAMPLERS = ("exact", "float")
"""``"exact"``: the lattice release of this module.  ``"float"``: the floating-point ℓ2-Laplace sampler of
:func:`pdp_lib.mechanisms.output_perturbation.sample_l2_laplace`, exact only over the reals."""



def check_sampler(sampler) -> str:
    """Validate the choice of sampler: ``"exact"`` (the lattice release) or ``"float"``."""
    return check_choice(sampler, "sampler", SAMPLERS, "'exact' (the lattice release, safe in floating point) or "
                                                      "'float' (exact only over the reals)")


NOISE_LAWS = {
    "lattice": "P(k) proportional to exp(-t ||k||), drawn by rejection from discrete Laplaces (Canonne, Kamath & "
               "Steinke, NeurIPS 2020, for the coins)",
    "rounded": "k = round(u), u of density proportional to exp(-t ||u||) on R^d, a sum of d Exp(1) draws over t "
               "times a direction of N(0, 1) draws, each a lazily refined exact real, rounded exactly",
    "gaussian": "k = round(g / t), g of N(0, I_d), each coordinate a lazily refined exact real, rounded exactly",
}
"""The two laws of the lattice release's noise ``K``, by name: what the model file says of each."""


LATTICE_LAW_DIMENSION = 12
"""The largest ``d`` whose release draws the lattice law: the paper's data (``d = 12``), whose exact pair losses
the book computes, and a draw under a millisecond.  Above it the rounded law is drawn: the lattice law's
rejection sampler slows like ``exp(0.27 d)`` and the rounded law's like ``d``, so the rounded law is faster
there by a factor that grows with ``d`` (``benchmarks/bench_exact_sampler.py``: 330 at ``d = 30``)."""


def noise_law(d: int) -> str:
    """The law of ``K`` in dimension ``d``: ``"lattice"`` up to :data:`LATTICE_LAW_DIMENSION`, ``"rounded"`` above.

    Both are exact and give every point its level with the same calibration.  A function of the public ``d``
    only.
    """
    return "lattice" if check_dimension(d) <= LATTICE_LAW_DIMENSION else "rounded"


BLOCK_ROWS = 1024
"""Rows per block of :func:`weighted_sums`: a product of blocks in any order, then a pairwise tree."""


def weighted_sums(X: np.ndarray, y: np.ndarray, eps: np.ndarray) -> tuple:
    r"""``(G, b, rounds)``: :math:`\sum_i \varepsilon_i x_i x_i^\top`, :math:`\sum_i \varepsilon_i y_i x_i` in floating point.

    The rows are cut into blocks of :data:`BLOCK_ROWS`; each block's sums are matrix products (each entry a
    dot product of at most ``BLOCK_ROWS`` terms, in whatever order the BLAS uses), and the blocks' sums are
    added along a pairwise tree.  ``rounds`` bounds the number of roundings any term meets on its way to
    the total: two products, ``BLOCK_ROWS - 1`` additions in its block, one per level of the tree.  It
    depends on the number of rows only, so it is public.  With :func:`accumulation_error`, it bounds the
    sums' error; for ``n = 10**7`` rows it is 1039, where a sum in one sequence could meet ``n + 1``.
    """
    n, d = X.shape
    if n == 0:
        return np.zeros((d, d)), np.zeros(d), 0
    width = min(n, BLOCK_ROWS)
    blocks = -(-n // width)
    pad = blocks * width - n                        # rows of zeros: adding an exact zero rounds nothing
    Xw = np.concatenate([X * eps[:, None], np.zeros((pad, d))]).reshape(blocks, width, d)
    Xb = np.concatenate([X, np.zeros((pad, d))]).reshape(blocks, width, d)
    yb = np.concatenate([y, np.zeros(pad)]).reshape(blocks, width, 1)
    G = np.matmul(Xw.transpose(0, 2, 1), Xb)
    m = np.matmul(Xw.transpose(0, 2, 1), yb)[..., 0]
    levels = 0
    while G.shape[0] > 1:
        if G.shape[0] % 2:
            G, m = np.concatenate([G, np.zeros((1, d, d))]), np.concatenate([m, np.zeros((1, d))])
        G, m = G[0::2] + G[1::2], m[0::2] + m[1::2]
        levels += 1
    return G[0], m[0], width + 1 + levels


def rounds_bound(n: int) -> int:
    """The roundings a term may meet in the sums of ``n`` rows, for every layout the library reads.

    One block and its tree (:func:`weighted_sums`), at most ``BLOCK_ROWS + 1 + ceil(log2 n)``; the chunks'
    binary counter and its final fold (:meth:`pdp_lib.io.streaming.Sums.add`), two more ``ceil(log2 n)``;
    the partitions' pairwise tree (:func:`pdp_lib.io.dask_fit.combine_sums`), one more.  A function of ``n``
    alone, so the noise does not depend on how the rows are stored.
    """
    return BLOCK_ROWS + 1 + 4 * max(1, int(n)).bit_length()


def merged_rounds(a: int, b: int) -> int:
    """The ``rounds`` of the sum of two partial sums with ``a`` and ``b`` rounds (one addition more)."""
    return max(a, b) + 1 if a and b else max(a, b)


_U = Fraction(1, 1 << 53)             # unit roundoff of IEEE 754 binary64, round to nearest
_SQRT_BITS = 64
_LARGEST_TOTAL = 2.0**1000     # the levels' sum: the sums stay finite, whatever their rounding
_SMALLEST_LEVEL = 2.0**-1000   # the smallest level: the underflow term mu stays below 2**-72
STEP_SLACK = Fraction(1, 1 << 20)
"""How fine the grid of every exact release is: its step ``gamma`` has ``gamma sqrt(d)`` at most this fraction of the
smallest sensitivity (and of ``1/eta``)."""


def unit_roundoff_gamma(k: int) -> Fraction:
    r""":math:`\gamma_k = k u / (1 - k u)` (Higham, *Accuracy and Stability of Numerical Algorithms*, Lemma 3.1)."""
    return k * _U / (1 - k * _U)


def sqrt_up(v: Fraction) -> Fraction:
    """A rational upper bound on ``sqrt(v)``, within ``2**-64`` of it (relative to the scale of ``v``)."""
    v = Fraction(v)
    scale = 1 << _SQRT_BITS
    root = math.isqrt(v.numerator * scale * scale // v.denominator) + 1
    return Fraction(root, scale)


def sums_rounding_bound(rounds: int, d: int, eps_min) -> Fraction:
    r"""``alpha = (gamma_{r+1} + mu) d``: a bound on :math:`\|\tilde G/\tilde S - \sum_i w_i x_i x_i^\top\|_2`.

    Derived in :func:`accumulation_error`, which uses it; ``mu = 2**-1072 / eps_min`` covers underflow.
    """
    return (unit_roundoff_gamma(rounds + 1) + Fraction(1, 1 << 1072) / Fraction(eps_min)) * d


def accumulation_error(rounds: int, d: int, lam: Fraction, eps_min: Fraction, norm_bound=None) -> Fraction:
    r"""An upper bound ``e`` on :math:`\|\tilde\theta - \bar\theta\|_2`, valid for any summation order.

    With :math:`A = \sum_i w_i x_i x_i^\top`, :math:`b = \sum_i w_i y_i x_i` and their computed versions
    :math:`\tilde A = \tilde G/\tilde S`, :math:`\tilde b = \tilde b_\mathrm{sum}/\tilde S` (the division
    exact): each term meets at most ``rounds`` roundings on its way into the sums (:func:`weighted_sums`,
    :func:`merged_rounds`), and the division by a correctly rounded :math:`\tilde S` one more, so
    :math:`|\tilde A_{jk} - A_{jk}| \le \gamma_{r+1} A_{jk} + \mu` with ``r = rounds`` and
    :math:`\mu = 2^{-1072}/\varepsilon_\min` covering gradual underflow (Higham, eq. (3.4) and
    Lemma 3.3; any order within a block, fused multiply-add or not).  Hence :math:`\|\tilde A - A\|_2 \le
    \alpha = (\gamma_{r+1} + \mu) d` and :math:`\|\tilde b - b\|_2 \le \beta = (\gamma_{r+1} + \mu)\sqrt d`, and with
    :math:`\|\bar\theta\|_2 \le \min(\sqrt d/\lambda, B)` (:math:`\|b\|_2/\lambda`, or the calibration's bound
    ``B``, which the guarantee assumes anyway),

    .. math::

        \|\tilde\theta - \bar\theta\|_2 \le \frac{\beta + \alpha \min(\sqrt d/\lambda, B)}{\lambda - \alpha}.

    Parameters
    ----------
    rounds : int
        The roundings a term meets in the sums, at least 1.
    d : int
        The number of features.
    lam, eps_min : fractions.Fraction
        The ridge parameter and the smallest level (exact).
    norm_bound : fractions.Fraction, optional
        A bound ``B`` on ``||theta_bar||``, valid on every dataset of the domain, from above; ``None``:
        ``sqrt(d)/lam`` alone.

    Returns
    -------
    fractions.Fraction
    """
    alpha = sums_rounding_bound(rounds, d, eps_min)
    sqrt_d = sqrt_up(Fraction(d))
    beta = alpha / d * sqrt_d
    if not alpha < lam / 2:
        raise ValueError(f"lam = {float(lam)!r} is outside the allowed range of the exact release: the sums' "
                         f"rounding bound {float(alpha):.3g} (for {rounds} roundings in dimension {d}) must stay "
                         f"below lam / 2")
    norm = sqrt_d / lam if norm_bound is None else min(sqrt_d / lam, Fraction(norm_bound))
    return (beta + alpha * norm) / (lam - alpha)


@dataclass(frozen=True)
class LatticeCalibration:
    """The public parameters of one lattice release.

    Attributes
    ----------
    step_exponent : int
        ``g``: the lattice step is ``gamma = 2**-g``.
    eta : float
        ``eta'``, the noise parameter actually used, at most the bound of the guarantee.
    rate : fractions.Fraction
        ``t = eta' * gamma``, the noise rate per lattice step.
    eta_real : float
        ``eta`` of Theorem 3.1/3.2 over the reals, for comparison: ``eta' / eta_real`` is the cost.
    sensitivity_min : float
        ``Delta_min = eps_min c_lambda / S``.
    error_bound : fractions.Fraction
        ``e`` of :func:`accumulation_error`.
    """

    step_exponent: int
    eta: float
    rate: Fraction
    eta_real: float
    sensitivity_min: float
    error_bound: Fraction

    @property
    def step(self) -> float:
        """``gamma = 2**-g`` as a float (exact)."""
        return math.ldexp(1.0, -self.step_exponent)


def lattice_calibration(total: float, eps_min: float, rounds: int, lam, d: int, B=None,
                        step_exponent=None) -> LatticeCalibration:
    r"""Choose ``gamma`` and ``eta'`` so that every point gets its ``epsilon_i`` on the lattice.

    Point ``i``'s lattice centres move by at most :math:`\Delta_i + 2e + \gamma\sqrt d` when its row is
    replaced, and :math:`\Delta_i / \varepsilon_i = c_\lambda/S` is the same for every point, so the
    binding point is the smallest level:

    .. math::

        \eta' \le \Big(\frac{c_\lambda}{S} + \frac{2e + \gamma\sqrt d}{\varepsilon_\min}\Big)^{-1}.

    Every quantity enters as an exact rational bound in the safe direction: :math:`c_\lambda` from above
    (a float ``B(lambda)`` raised by ``2**-50``), ``S`` from below (a correctly rounded ``total`` lowered by
    ``2**-52``); ``eta'`` is the largest double below the bound.  ``gamma = 2**-g`` is a power of two with
    :math:`\gamma\sqrt d \le 2^{-20}\Delta_\min/\max(1, \varepsilon_\min)`: the grid's share of the
    sensitivity is at most ``2**-20``, and its rounding at most ``2**-20 / d`` of the noise's mean norm
    ``d/eta`` (as :math:`\eta\Delta_\min = \varepsilon_\min`).

    Parameters
    ----------
    total : float
        ``sum_i epsilon_i``, correctly rounded.
    eps_min : float
        The smallest level.
    rounds : int
        The roundings a term meets in the sums (:func:`weighted_sums`).
    lam : float
        ``lambda > 0``.
    d : int
        The dimension.
    B : None, "sharp" or float
        As in :func:`pdp_lib.calibrate`.
    step_exponent : int, optional
        A ``g`` fixed in advance from public inputs, at least the one chosen here (a finer lattice): a mechanism
        that runs the release on a random subset of the rows (:func:`pdp_lib.mechanisms.baselines.jorgensen`)
        fixes one lattice for every subset, so that the lattice does not reveal the subset.  A coarser one is
        refused.

    Returns
    -------
    LatticeCalibration
    """
    lam = check_positive(lam, "lam")
    d = check_dimension(d)
    check_release_levels(total, eps_min)
    B_used = resolve_bound(lam, d, B)
    B_up = Fraction(B_used) * (1 + Fraction(1, 1 << 50))     # B(lambda) or B*(lambda), computed in floating point
    if isinstance(B, numbers.Real) and not isinstance(B, bool):
        B_up = max(Fraction(B), Fraction(B_used))               # the user's bound, exactly (an int may exceed 2**53)
    lam_q, eps_min_q = Fraction(lam), Fraction(eps_min)
    sqrt_d = sqrt_up(Fraction(d))
    c_up = 2 * sqrt_d * (1 + sqrt_d * B_up) / lam_q
    S_lo = Fraction(total) * (1 - Fraction(1, 1 << 52))
    e = accumulation_error(rounds, d, lam_q, eps_min_q, B_up)
    delta_min = eps_min_q * c_up / S_lo
    g = grid_step_exponent(delta_min * STEP_SLACK / (sqrt_d * max(1, eps_min_q)))
    if step_exponent is not None:
        if isinstance(step_exponent, bool) or not isinstance(step_exponent, numbers.Integral) or step_exponent < g:
            raise ValueError(f"step_exponent = {step_exponent!r} is outside the allowed range [{g}, inf) of integers: "
                             f"a coarser lattice would take more than 2**-20 of the sensitivity")
        g = int(step_exponent)
    gamma = power_of_two_at_most(-g)
    bound = 1 / (c_up / S_lo + (2 * e + gamma * sqrt_d) / eps_min_q)
    eta = float(bound)
    if Fraction(eta) > bound:
        eta = math.nextafter(eta, 0.0)
    if not eta > 0:
        raise ValueError(f"eta = {eta!r} is outside the allowed range (0, inf): the levels sum to {total!r}")
    delta_min = float(delta_min)
    eta_real = float(total) / noise_scale(lam, d, B_used)
    return LatticeCalibration(step_exponent=g, eta=eta, rate=Fraction(eta) * gamma, eta_real=eta_real,
                              sensitivity_min=delta_min, error_bound=e)


def check_release_levels(total: float, eps_min: float) -> None:
    """Refuse, by their public values alone, levels whose sums could overflow or underflow in any exact release."""
    if not (0 < total <= _LARGEST_TOTAL):
        raise ValueError(f"sum(epsilons) = {total!r} is outside the allowed range (0, 2**1000] of the exact release: "
                         f"larger levels could overflow its sums")
    if not eps_min >= _SMALLEST_LEVEL:
        raise ValueError(f"min(epsilons) = {eps_min!r} is outside the allowed range [2**-1000, inf) of the exact "
                         f"release: smaller levels could underflow its sums")


def double_below(q: Fraction) -> float:
    """The largest double at most the rational ``q``."""
    v = float(q)
    return math.nextafter(v, -math.inf) if Fraction(v) > q else v


def double_above(q: Fraction) -> float:
    """The smallest double at least the rational ``q``."""
    v = float(q)
    return math.nextafter(v, math.inf) if Fraction(v) < q else v


def grid_step_exponent(target: Fraction) -> int:
    """The least ``g`` with ``2**-g <= target`` (``target > 0``), exactly."""
    g = target.denominator.bit_length() - target.numerator.bit_length()
    while power_of_two_at_most(-g) > target:
        g += 1
    while power_of_two_at_most(-(g - 1)) <= target:
        g -= 1
    return g


def power_of_two_at_most(k: int) -> Fraction:
    return Fraction(1 << k) if k >= 0 else Fraction(1, 1 << -k)


def _solve_exact(A: list, b: list) -> list:
    """Solve ``A x = b`` exactly for a positive definite integer ``A``: Bareiss's fraction-free elimination.

    Every intermediate of Bareiss's elimination is an integer (a minor of ``[A | b]``); the back substitution
    is over the rationals.
    """
    d = len(b)
    M = [list(row) + [b[j]] for j, row in enumerate(A)]
    prev = 1
    for k in range(d - 1):
        Mk, pivot = M[k], M[k][k]
        for i in range(k + 1, d):
            Mi, f = M[i], M[i][k]
            for j in range(k + 1, d + 1):
                Mi[j] = (Mi[j] * pivot - f * Mk[j]) // prev
            Mi[k] = 0
        prev = pivot
    x = [Fraction(0)] * d
    for j in range(d - 1, -1, -1):
        s = M[j][d] - sum(M[j][c] * x[c] for c in range(j + 1, d))
        x[j] = Fraction(s) / M[j][j]
    return x


def lattice_centre(gram: np.ndarray, moment: np.ndarray, total: float, lam, step_exponent: int,
                   alpha=None) -> tuple:
    r"""The lattice centre ``m``: ``round(theta~ / gamma)``, with ``theta~`` the exact solution of the sums' system.

    ``theta~`` solves :math:`(\tilde G/\tilde S + \lambda I)\,\theta = \tilde b/\tilde S` over the rationals
    (the upper triangle of ``gram`` mirrored, so the system is symmetric); each coordinate is rounded to
    the nearest multiple of ``gamma = 2**-step_exponent``, ties to even, exactly.  Multiplied by ``S~`` and by
    a common power of two, the system has integer entries (:func:`integer_system`).

    With ``alpha``, a bound on :math:`\|\tilde G/\tilde S - \sum_i w_i x_i x_i^\top\|_2` below ``lam``
    (:func:`accumulation_error`), a floating-point solution refined against the exact residual is tried
    first (:func:`_certified_round`); it is used only where its proved error interval decides every
    coordinate's rounding, and otherwise (or without ``alpha``) the system is solved exactly by Bareiss's
    elimination (:func:`_solve_exact`).  Both give the same ``m`` when ``gram`` and ``moment`` are the sums of
    rows of the domain (features in ``[0, 1]``), which ``alpha``'s bound assumes; on other matrices (one not
    within ``alpha`` of a positive semi-definite one) the first path can be wrong, so give ``alpha`` only for
    such sums.  Which path runs depends on the data (a near-tie goes to elimination): the time is not covered.

    Parameters
    ----------
    gram : numpy.ndarray of shape (d, d)
        ``fl(sum_i eps_i x_i x_i^T)`` (:func:`weighted_sums`).
    moment : numpy.ndarray of shape (d,)
        ``fl(sum_i eps_i y_i x_i)``.
    total : float
        ``sum_i eps_i``, correctly rounded.
    lam : float
        ``lambda``.
    step_exponent : int
        ``g``.
    alpha : fractions.Fraction, optional
        The sums' rounding bound, as above.

    Returns
    -------
    tuple of int
    """
    A, b, scale = _scaled_system(gram, moment, total, lam)
    if alpha is not None:
        floor = scale * Fraction(float(total)) * (Fraction(float(lam)) - Fraction(alpha))   # <= lambda_min(A)
        m = _certified_round(A, b, gram, moment, total, lam, step_exponent, scale, floor)
        if m is not None:
            return m
    theta = _solve_exact(A, b)
    return tuple(round(v * power_of_two_at_most(step_exponent)) for v in theta)


def _certified_round(A, b, gram, moment, total, lam, g: int, scale: int, floor: Fraction, steps: int = 3):
    r"""``round(theta~ * 2**g)`` from a refined floating-point solution, or ``None`` where it is not proved.

    ``x`` is a vector of dyadic rationals; the residual ``r = b - A x`` is computed exactly in integers, and
    :math:`\|\tilde\theta - x\|_2 \le \|r\|_2 / \lambda_\min(A)`, with :math:`\lambda_\min(A) \ge`
    ``floor`` :math:`= \mathrm{scale}\cdot\tilde S(\lambda - \alpha)` as ``A / (scale S~)`` is within ``alpha``
    of a positive semi-definite matrix plus ``lam I``.  Each step adds the floating-point solution of
    ``A dx = r``: floating point only proposes ``x``; the exact residual decides.
    """
    d = len(b)
    upper = np.triu(np.asarray(gram, dtype=float))
    M = upper + np.triu(upper, 1).T + float(total) * float(lam) * np.eye(d)
    if not floor > 0 or not np.all(np.isfinite(M)):
        return None
    try:
        factor = np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        return None
    x = [Fraction(0)] * d
    residual = np.asarray(moment, dtype=float)
    for _ in range(steps):
        dx = _cholesky_solve(factor, residual)
        if not np.all(np.isfinite(dx)):
            return None
        x = [xj + Fraction(float(v)) for xj, v in zip(x, dx)]
        den = max(v.denominator for v in x)
        X = [int(v * den) for v in x]
        r = [bj * den - sum(a * xk for a, xk in zip(row, X)) for row, bj in zip(A, b)]   # den (b - A x), exact
        # |theta~_j - x_j| <= ||r|| / (den lambda_min(A)) <= rho
        rho = sqrt_up(Fraction(sum(v * v for v in r))) / (den * floor)
        m = [_round_certain(xj * power_of_two_at_most(g), rho * power_of_two_at_most(g)) for xj in x]
        if all(v is not None for v in m):
            return tuple(m)
        residual = np.array([float(Fraction(v, den) / scale) for v in r])
    return None


def _cholesky_solve(L: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The floating-point solution of ``L L^T x = r`` (an approximation; its error is bounded exactly after)."""
    from scipy.linalg import solve_triangular

    return solve_triangular(L.T, solve_triangular(L, r, lower=True), lower=False)


def _round_certain(v: Fraction, radius: Fraction):
    """``round(u)`` for every ``u`` within ``radius`` of ``v``, if they agree and none is a tie; else ``None``."""
    k = math.floor(v + Fraction(1, 2))
    if k - Fraction(1, 2) < v - radius and v + radius < k + Fraction(1, 2):
        return k
    return None


def integer_system(gram, moment, total: float, lam) -> tuple:
    """``(A, b)``: the system ``(G~/S~ + lam I) theta = b~/S~`` times ``S~`` and a common power of two, in integers.

    The upper triangle of ``gram`` is mirrored, so ``A`` is symmetric; every entry is a double or the product
    of two, so its denominator is a power of two and the largest one clears them all.
    """
    return _scaled_system(gram, moment, total, lam)[:2]


def _scaled_system(gram, moment, total: float, lam) -> tuple:
    """``(A, b, scale)``: :func:`integer_system` and the power of two it multiplied by, beside ``S~``."""
    d = np.asarray(moment).size
    ridge = Fraction(float(total)) * Fraction(float(lam))
    entries = [Fraction(float(gram[min(j, k), max(j, k)])) for j in range(d) for k in range(d)]
    rhs = [Fraction(float(v)) for v in moment]
    scale = max(v.denominator for v in entries + rhs + [ridge])
    A = [[int(entries[j * d + k] * scale) + (int(ridge * scale) if j == k else 0) for k in range(d)]
         for j in range(d)]
    return A, [int(v * scale) for v in rhs], scale


def check_floating_point() -> None:
    """Refuse to release where the proof's model of the arithmetic fails: subnormals flushed to zero."""
    tiny = np.array([2.0**-1022, 1.0])
    if not (tiny[0] * 0.5 == 2.0**-1023 and float(tiny @ np.array([0.5, 0.0])) == 2.0**-1023):
        raise RuntimeError("the floating-point environment flushes subnormal numbers to zero; the exact release's "
                           "proof assumes IEEE 754 gradual underflow: restore it (a module may have set FTZ/DAZ)")


def check_sums_rounds(rounds: int, n: int) -> int:
    """Refuse to release from sums of ``n`` rows where the arithmetic is not the proof's (:func:`check_floating_point`)
    or the sums met more roundings than :func:`rounds_bound` of ``n``; returns that bound, which the calibration uses
    (so the noise does not depend on the layout of the rows)."""
    check_floating_point()
    if rounds > rounds_bound(n):
        raise RuntimeError(f"the sums met {rounds} roundings, more than the {rounds_bound(n)} the proof allows for "
                           f"{n} rows: they were not accumulated by weighted_sums and Sums")
    return rounds_bound(n)


def release_from_sums(gram, moment, total: float, eps_min: float, n: int, rounds: int, lam, B, rng,
                      law=None, step_exponent=None) -> tuple:
    """The lattice release from the sums of ``n`` rows: ``(theta_hat, calibration, (m, k))``.

    ``gram`` and ``moment`` must be :func:`weighted_sums` (or their streamed merges) of rows of the domain,
    validated by the caller (:func:`pdp_lib.validation.check_problem`, :class:`pdp_lib.io.streaming.Sums`): the
    guarantee and the certified centre (:func:`lattice_centre`) assume it.

    The calibration uses :func:`rounds_bound` of ``n``, so the noise does not depend on the layout of the rows;
    the sums' own ``rounds`` must not exceed it (a function of the layout only, checked).

    ``k`` is drawn from ``law`` (a key of :data:`NOISE_LAWS`), by default the one :func:`noise_law` names for
    ``d``; ``"rounded"`` is needed for ``(epsilon_i, delta)``, whose levels here are loss ranges, and
    ``"gaussian"`` releases the Gaussian mechanism, whose levels are the tolerated distances ``mu*_i`` and whose
    standard deviation is ``1 / eta'``.  ``step_exponent`` fixes the lattice in advance (:func:`lattice_calibration`).
    ``theta_hat = gamma (m + k)`` as doubles,
    correctly rounded (a deterministic function of the lattice point,
    so a post-processing); ``rng`` is a seed, a Generator (its raw bit stream) or ``None`` (the operating
    system's cryptographic source).
    """
    d = check_dimension(np.asarray(moment).size)
    bound = check_sums_rounds(rounds, n)
    cal = lattice_calibration(total, eps_min, bound, lam, d, B, step_exponent=step_exponent)
    alpha = sums_rounding_bound(bound, d, eps_min)
    m = lattice_centre(np.asarray(gram, dtype=float), np.asarray(moment, dtype=float), total, lam,
                       cal.step_exponent, alpha=alpha)
    bits = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    law = noise_law(d) if law is None else law
    if law not in NOISE_LAWS:
        raise ValueError(f"law = {law!r} is not allowed; use one of {sorted(NOISE_LAWS)}")
    sample = {"lattice": sample_lattice_l2, "rounded": sample_rounded_l2, "gaussian": sample_rounded_gaussian}[law]
    k = sample(cal.rate, d, bits)
    theta = np.array([float(Fraction(a + b) / (1 << cal.step_exponent)) if cal.step_exponent >= 0
                      else float((a + b) << -cal.step_exponent) for a, b in zip(m, k)])
    return theta, cal, (m, k)
