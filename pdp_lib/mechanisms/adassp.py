r"""AdaSSP, personalized by re-weighting: Gaussian sufficient statistics and a private ridge, point ``i`` ``(eps_i, delta)``-DP.

Wang's AdaSSP (UAI 2018, Algorithm 2) releases three things with Gaussian noise, the Gram matrix, the moment and
the Gram matrix's smallest eigenvalue, and chooses the ridge from the released eigenvalue, so that the noisy Gram
matrix plus the ridge is well conditioned with high probability.  Here the three statistics are re-weighted as in
PDP-OP and SSP (:mod:`pdp_lib.mechanisms.ssp`):

.. math::

    A = \sum_i w_i x_i x_i^\top, \qquad b = \sum_i w_i y_i x_i, \qquad e = \lambda_\min(A).

**Sensitivities** per unit of weight, on the domain (:math:`x \in [0, 1]^d`, :math:`y \in [-1, 1]`), when point
``i`` is replaced: :math:`\sqrt p` for the upper triangle of ``A`` (``p = d(d+1)/2``) and :math:`2\sqrt d` for
``b`` (:func:`pdp_lib.mechanisms.ssp.ssp_sensitivities`), and ``d`` for ``e``: :math:`A - A' = w_i(x x^\top -
x' x'^\top)` lies between :math:`-w_i x' x'^\top` and :math:`w_i x x^\top` in the positive semi-definite order, so
its spectral norm is at most :math:`w_i \max(\|x\|^2, \|x'\|^2) \le w_i d`, and Weyl's inequality moves every
eigenvalue by at most that.  The first two are tight; the third is attained at ``d = 1`` and is an upper bound
for ``d >= 2`` (the spectral norm's bound is attained at ``x = 1``, ``x' = 0``, but the smallest eigenvalue moves
that much only along the direction of ``x``; the tests' searches at ``d = 2`` reach less).

**Privacy by Gaussian differential privacy.**  Gaussian noise of standard deviation :math:`\sigma_k` on
statistic ``k`` makes the three releases together, for one pair of ``i``-neighbours, a Gaussian shift of
:math:`\mu = (\sum_k \|\Delta_k\|^2/\sigma_k^2)^{1/2}` standard deviations, where :math:`\Delta_k` is the
statistic's change (Dong, Roth & Su 2022: the composition of Gaussian shifts is the Gaussian shift of the
combined length).  So point ``i`` is :math:`\mu_i`-GDP with :math:`\mu_i \le w_i(\sum_k s_k^2/\sigma_k^2)^{1/2}`
(``s_k`` the sensitivities), and :math:`(\varepsilon_i, \delta)`-DP when :math:`\mu_i \le \mu^*(\varepsilon_i,
\delta)`, the analytic Gaussian bound (:func:`pdp_lib.curves.tolerated_gaussian_mus`).  With the weights
:math:`w_i = \mu^*_i / M`, :math:`M = \sum_j \mu^*_j` (those of the personalized Gaussian mechanism,
:mod:`pdp_lib.mechanisms.gaussian`) and :math:`\sigma_k = s_k / (M\sqrt{\rho_k})`, :math:`\sum_k \rho_k = 1`, every
point gets exactly :math:`\mu_i \le \mu^*_i`: ``rho_k`` is the share of each point's budget spent on statistic
``k``.  Everything after the release (the ridge, the solve) is post-processing.

**The ridge** (Wang's lines 3-4, in the weighted scale):
:math:`\tilde e = \max(0, \hat e - \sigma_e\sqrt{\log(6/\delta)})`, a lower confidence bound on ``e``, and
:math:`\lambda = \max(0, \sigma_A\sqrt{d\log(2d^2/\varrho)} - \tilde e)`, with :math:`\varrho` = ``failure``
(0.05 in the published code): :math:`\sigma_A\sqrt{d\log(2d^2/\varrho)}` bounds the noise matrix's spectral norm
with probability at least about :math:`1 - \varrho`.  Then :math:`\hat\theta = (\hat A_+ + \lambda I)^{-1}\hat b`,
as SSP solves (``solve="pinv"``: the pseudo-inverse of :math:`\hat A + \lambda I`, as published).
:func:`gaussian_ssp` is the same release without the eigenvalue, at a ``lam`` the caller fixes, solved the same way
(:func:`pdp_lib.mechanisms.ssp.solve_statistics`).

**At equal levels**, with ``solve="pinv"``, the weights are ``1/n`` and this is Wang's algorithm with two changes in
the noise only: the
sensitivities are those of replacing a point of this domain (Wang's are of adding or removing a point with
:math:`\|x\| \le \mathcal X`, :math:`|y| \le \mathcal Y`: :math:`\mathcal X^2`, :math:`\mathcal X\mathcal Y`,
:math:`\mathcal X^2`), and the three shares are composed exactly in GDP rather than as three
:math:`(\varepsilon/3, \delta/3)` Gaussian mechanisms with :math:`\sigma = \sqrt{\log(6/\delta)}\,s_k/(\varepsilon/3)`.
The tests check the reduction draw for draw against a transcription of the published algorithm given the same
noise (``tests/test_adassp.py``).

**Exact in floating point** (``sampler="exact"``, the default): the statistics are the sums of
:func:`pdp_lib.mechanisms.lattice.weighted_sums` with the levels :math:`\mu^*_i`; the centres of ``A`` and ``b``
are rounded to the grid of step ``gamma`` as in SSP; the centre of ``e`` is :math:`\gamma k` with ``k`` the
largest integer for which :math:`\tilde G/\tilde S - k\gamma I` is positive definite, decided exactly by the signs
of its leading principal minors (Bareiss's fraction-free elimination, :func:`_certified_eigenvalue_floor`), so it
lies in :math:`[\lambda_\min(\tilde A) - \gamma, \lambda_\min(\tilde A))`.  Each noise is
``gamma round(Z / gamma)``, drawn exactly (:func:`pdp_lib.mechanisms.exact_rounding.sample_rounded_gaussian`): a
function of the Gaussian mechanism's output at the rounded centre.  Point ``i``'s centres move by at most
:math:`w_i s_k + c_k` with :math:`c_k = 2\alpha_k + \gamma\sqrt{\dim_k}` (``alpha_k`` the sums' proved rounding
bound, :func:`pdp_lib.mechanisms.lattice.sums_rounding_bound`), and :math:`w_i s_k + c_k \le \mu^*_i a_k` with
:math:`a_k = s_k/M + c_k/\mu^*_\min`; so :math:`\sigma'_k \ge a_k/\sqrt{\rho_k}` keeps :math:`\mu_i \le \mu^*_i`.
Every quantity of the calibration is rational and on the safe side.

Derived, and compared with PDP-OP and with the published AdaSSP on the Medical Cost data, in the book's chapter
*Beyond output perturbation* (``book/beyond.ipynb``: lemma *lem-eigen-sensitivity*, proposition
*prop-adassp-privacy*).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..gaussian_curves import tolerated_gaussian_mus
from ..validation import check_choice, check_fraction, check_problem, check_rng
from .exact_rounding import sample_rounded_gaussian
from .exact_sampling import RandomBits
from .lattice import (STEP_SLACK, check_release_levels, check_sampler, check_sums_rounds, double_above, double_below,
                      grid_step_exponent, power_of_two_at_most, sqrt_up, sums_rounding_bound, weighted_sums)
from .ssp import solve_clipped, symmetric_from_upper, lattice_statistics, ssp_sensitivities

__all__ = ["AdaSSPCalibration", "AdaSSPRelease", "adassp_sensitivities", "adassp_calibration", "adassp_release",
           "release_from_sums",
           "adassp_ridge", "adassp", "gaussian_ssp", "check_shares", "adassp_draws", "ridge_rule", "SHARES", "FAILURE", "solve_release"]

SHARES = (1 / 3, 1 / 3, 1 / 3)
"""The default shares ``(rho_A, rho_b, rho_e)`` of each point's budget: Wang's equal split."""

FAILURE = 0.05
"""``varrho``, the probability the ridge rule allows for the noise's spectral norm to exceed its bound (Wang's)."""


def adassp_sensitivities(d: int) -> tuple:
    r"""``(sqrt(p), 2 sqrt(d), d)``: the sensitivities of ``A``'s upper triangle, ``b`` and ``lambda_min(A)``.

    Per unit of weight, on the domain, for a replaced point; the first two are tight, the third at ``d = 1``
    (module docstring).
    """
    return (*ssp_sensitivities(d), float(d))


@dataclass(frozen=True)
class AdaSSPCalibration:
    """The public parameters of one release.

    Attributes
    ----------
    delta : float
        Every point gets ``(epsilon_i, delta)``-DP.
    shares : tuple of float
        ``(rho_A, rho_b, rho_e)``; ``rho_e = 0`` when the eigenvalue is not released (:func:`gaussian_ssp`).
    sigma_gram, sigma_moment, sigma_eigen : float
        The noises' standard deviations (``sigma'``, from above, on the lattice; ``sigma_eigen`` is ``inf`` when the
        eigenvalue is not released).
    step_exponent : int or None
        ``g``, the grid's step ``2**-g`` (``None`` for the floating-point sampler).
    """

    delta: float
    shares: tuple
    sigma_gram: float
    sigma_moment: float
    sigma_eigen: float
    step_exponent: int | None = None


@dataclass(frozen=True)
class AdaSSPRelease:
    """What the data release: the noisy statistics (``eigen`` is ``None`` when the eigenvalue is not released)."""

    gram: np.ndarray
    moment: np.ndarray
    eigen: float | None
    calibration: AdaSSPCalibration


def check_shares(shares) -> tuple:
    """``(rho_A, rho_b, rho_e)``: ``rho_A, rho_b > 0``, ``rho_e >= 0``, summing to one within ``1e-12``.

    The privacy proof needs the shares' exact (rational) sum at most one, which doubles such as
    ``(0.4, 0.4, 0.2)`` miss by a rounding: the last positive share is then rounded down to the largest double that
    keeps the sum at most one (a change below ``1e-12``).
    """
    try:
        values = tuple(float(v) for v in shares)
    except (TypeError, ValueError):
        raise ValueError(f"shares = {shares!r} must be three numbers (rho_A, rho_b, rho_e)") from None
    ok = (len(values) == 3 and all(math.isfinite(v) for v in values) and values[0] > 0 and values[1] > 0
          and values[2] >= 0 and abs(math.fsum(values) - 1) <= 1e-12)
    if not ok:
        raise ValueError(f"shares = {shares!r} is outside the allowed range: rho_A > 0, rho_b > 0, rho_e >= 0, "
                         f"summing to 1 (within 1e-12)")
    last = 2 if values[2] > 0 else 1
    rest = 1 - sum(Fraction(v) for k, v in enumerate(values) if k != last)
    if Fraction(values[last]) > rest:
        values = tuple(double_below(rest) if k == last else x for k, x in enumerate(values))
    return values


def adassp_calibration(total: float, mu_min: float, d: int, delta: float, shares=SHARES, *,
                       rounds=None) -> AdaSSPCalibration:
    r"""The noises for levels ``mu*_i`` summing to ``total`` with smallest ``mu_min``, in dimension ``d``.

    ``rounds=None``: over the reals, :math:`\sigma_k = s_k/(M\sqrt{\rho_k})`.  With ``rounds`` (the sums'
    roundings, :func:`pdp_lib.mechanisms.lattice.rounds_bound`): the lattice calibration of the module
    docstring, ``M`` from below and every square root from above.
    """
    rho = check_shares(shares)
    sens = adassp_sensitivities(d)
    if rounds is None:
        sig = [s / (total * math.sqrt(r)) if r > 0 else math.inf for s, r in zip(sens, rho)]
        return AdaSSPCalibration(delta=delta, shares=rho, sigma_gram=sig[0], sigma_moment=sig[1], sigma_eigen=sig[2])
    check_release_levels(total, mu_min)
    p = d * (d + 1) // 2
    sqrt_p, sqrt_d = sqrt_up(Fraction(p)), sqrt_up(Fraction(d))
    M_lo = Fraction(float(total)) * (1 - Fraction(1, 1 << 52))
    mu_min_q = Fraction(float(mu_min))
    alpha = sums_rounding_bound(rounds, d, mu_min_q)
    beta = alpha / d * sqrt_d
    smallest = mu_min_q * min(sqrt_p, 2 * sqrt_d) / M_lo
    g = grid_step_exponent(smallest * STEP_SLACK / (sqrt_p * max(1, mu_min_q)))
    gamma = power_of_two_at_most(-g)
    a = [sqrt_p / M_lo + (2 * alpha + gamma * sqrt_p) / mu_min_q,
         2 * sqrt_d / M_lo + (2 * beta + gamma * sqrt_d) / mu_min_q,
         Fraction(d) / M_lo + (2 * alpha + gamma) / mu_min_q]
    sig = [double_above(sqrt_up(ak * ak / Fraction(r))) if r > 0 else math.inf for ak, r in zip(a, rho)]
    return AdaSSPCalibration(delta=delta, shares=rho, sigma_gram=sig[0], sigma_moment=sig[1], sigma_eigen=sig[2],
                             step_exponent=g)


def _positive_definite(M: list) -> bool:
    """Whether the symmetric integer matrix ``M`` is positive definite: every leading principal minor ``> 0``.

    Bareiss's fraction-free elimination: the pivot of step ``k`` is the leading principal minor of order ``k + 1``,
    an integer; the first one that is not positive decides.
    """
    M = [list(row) for row in M]
    d, prev = len(M), 1
    for k in range(d):
        pivot = M[k][k]
        if pivot <= 0:
            return False
        Mk = M[k]
        for i in range(k + 1, d):
            Mi, f = M[i], M[i][k]
            for j in range(k + 1, d):
                Mi[j] = (Mi[j] * pivot - f * Mk[j]) // prev
        prev = pivot
    return True


def _certified_eigenvalue_floor(gram, total: float, g: int) -> int:
    r"""The largest integer ``k`` with :math:`\tilde G/\tilde S - k 2^{-g} I` positive definite, decided exactly.

    ``gram``'s upper triangle is mirrored; its entries and ``S~`` are doubles, so ``S~ 2**g (G~/S~ - k 2**-g I)``
    times their common denominator is an integer matrix.  The floating-point smallest eigenvalue proposes ``k``;
    exact tests of positive definiteness bracket it (doubling the step until a bracket is found, then bisecting).
    """
    d = np.asarray(gram).shape[0]
    entries = [[Fraction(float(gram[min(j, c), max(j, c)])) for c in range(d)] for j in range(d)]
    S = Fraction(float(total))
    den = max([v.denominator for row in entries for v in row] + [S.denominator])
    base = [[int(v * den) for v in row] for row in entries]          # den G~, integers
    shift_unit = S * den / power_of_two_at_most(g)                          # den S~ 2**-g per unit of k
    lcm = shift_unit.denominator
    base = [[v * lcm for v in row] for row in base]
    unit = int(shift_unit * lcm)

    def pd(k: int) -> bool:
        return _positive_definite([[v - (k * unit if j == c else 0) for c, v in enumerate(row)]
                                   for j, row in enumerate(base)])

    upper = np.triu(np.asarray(gram, dtype=float))
    guess = float(np.linalg.eigvalsh(upper + np.triu(upper, 1).T)[0]) / float(total)
    k = math.floor(Fraction(guess) * power_of_two_at_most(g)) if math.isfinite(guess) else 0
    step = 1
    if pd(k):
        lo, hi = k, k + step
        while pd(hi):
            lo, step = hi, step * 2
            hi = lo + step
    else:
        hi, lo = k, k - step
        while not pd(lo):
            hi, step = lo, step * 2
            lo = hi - step
    while hi - lo > 1:                                               # pd(lo) and not pd(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if pd(mid) else (lo, mid)
    return lo


def release_arrays(X, y, eps, delta, rng, shares, sampler) -> AdaSSPRelease:
    """The release of the statistics for validated inputs (the eigenvalue only when ``shares[2] > 0``)."""
    n = X.shape[0]
    reach = tolerated_gaussian_mus(eps, delta)
    if sampler == "float":
        w = reach / reach.sum()
        return release_from_sums((X * w[:, None]).T @ X, (X * w[:, None]).T @ y, 1.0, float(reach.min()), n, 0,
                                 rng, delta, shares, sampler="float", total_levels=float(reach.sum()))
    gram, moment, rounds = weighted_sums(X, y, reach)
    return release_from_sums(gram, moment, math.fsum(reach), float(reach.min()), n, rounds, rng, delta, shares)


def release_from_sums(gram, moment, total: float, mu_min: float, n: int, rounds: int, rng, delta: float,
                      shares=SHARES, *, sampler: str = "exact", total_levels=None) -> AdaSSPRelease:
    """The release from the sums of ``n`` rows weighted by ``mu*_i``: the in-memory and the streamed paths' one step.

    ``sampler="exact"``: ``gram`` and ``moment`` are :func:`pdp_lib.mechanisms.lattice.weighted_sums` (or their
    streamed merges, :class:`pdp_lib.io.streaming.Sums`) with the levels ``mu*_i``, ``total`` their sum correctly
    rounded, ``mu_min`` the smallest; the lattice release of the module docstring, calibrated with
    :func:`pdp_lib.mechanisms.lattice.rounds_bound` of ``n``.  ``sampler="float"``: ``gram / total`` and
    ``moment / total`` are the weighted statistics, the calibration uses ``total_levels`` (the sum of the
    ``mu*_i``, default ``total``), and the noise is NumPy's, from the generator ``rng``.
    """
    moment = np.asarray(moment, dtype=float)
    d = moment.size
    p = d * (d + 1) // 2
    rows, cols = np.triu_indices(d)
    eigen = shares[2] > 0
    if sampler == "float":
        gen = check_rng(rng)
        cal = adassp_calibration(float(total if total_levels is None else total_levels), mu_min, d, delta, shares)
        A, b = np.asarray(gram, dtype=float) / total, moment / total
        upper = A[rows, cols] + cal.sigma_gram * gen.standard_normal(p)
        b_hat = b + cal.sigma_moment * gen.standard_normal(d)
        e_hat = float(np.linalg.eigvalsh(symmetric_from_upper(A[rows, cols], d))[0] + cal.sigma_eigen * gen.standard_normal()) \
            if eigen else None
        return AdaSSPRelease(symmetric_from_upper(upper, d), b_hat, e_hat, cal)
    if rng is not None and not isinstance(rng, RandomBits):
        check_rng(rng)
    bits = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    cal = adassp_calibration(total, mu_min, d, delta, shares, rounds=check_sums_rounds(rounds, n))
    g = cal.step_exponent
    gamma = power_of_two_at_most(-g)
    m_a, m_b = lattice_statistics(gram, moment, total, g)
    k_a = sample_rounded_gaussian(gamma / Fraction(cal.sigma_gram), p, bits)
    k_b = sample_rounded_gaussian(gamma / Fraction(cal.sigma_moment), d, bits)
    upper = np.array([float((m + k) * gamma) for m, k in zip(m_a, k_a)])        # correctly rounded
    b_hat = np.array([float((m + k) * gamma) for m, k in zip(m_b, k_b)])
    e_hat = None
    if eigen:
        m_e = _certified_eigenvalue_floor(gram, total, g)
        k_e = sample_rounded_gaussian(gamma / Fraction(cal.sigma_eigen), 1, bits)[0]
        e_hat = float((m_e + k_e) * gamma)
    return AdaSSPRelease(symmetric_from_upper(upper, d), b_hat, e_hat, cal)


def adassp_release(X, y, epsilons, delta, rng=None, *, shares=SHARES, sampler="exact") -> AdaSSPRelease:
    r"""The released statistics of personalized AdaSSP: the only step that reads the data.

    Parameters
    ----------
    X, y, epsilons : array-like
        The problem, in the domain (:func:`pdp_lib.pdp_op`).
    delta : float
        In ``(0, 1)``: every point gets ``(epsilon_i, delta)``-DP.
    rng : None, int, numpy.random.Generator or RandomBits
        The noise's source (``None`` with ``sampler="exact"``: the operating system's cryptographic source).
    shares : tuple of three floats, default (1/3, 1/3, 1/3)
        ``(rho_A, rho_b, rho_e)``, positive, summing to one; ``rho_e = 0`` releases no eigenvalue.
    sampler : {"exact", "float"}, default "exact"
        ``"exact"``: the lattice release of the module docstring.  ``"float"``: the statistics and the smallest
        eigenvalue in floating point plus NumPy's Gaussian noise, exact only over the reals (for the experiments).

    Returns
    -------
    AdaSSPRelease
    """
    X, y, eps, _ = check_problem(X, y, epsilons)
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    return release_arrays(X, y, eps, delta, rng, check_shares(shares), check_sampler(sampler))


def ridge_rule(eigen, sigma_gram: float, sigma_eigen: float, d: int, delta: float, failure: float = FAILURE):
    r"""Wang's ridge from a released eigenvalue (post-processing), elementwise over ``eigen``.

    :math:`\lambda = \max(0, \sigma_A\sqrt{d\log(2d^2/\varrho)} - \tilde e)` with
    :math:`\tilde e = \max(0, \hat e - \sigma_e\sqrt{\log(6/\delta)})`; homogeneous of degree one in
    ``(eigen, sigma_gram, sigma_eigen)``, so it holds in the weighted scale and in Wang's unweighted one.
    """
    floor = np.maximum(0.0, np.asarray(eigen, dtype=float) - sigma_eigen * math.sqrt(math.log(6 / delta)))
    return np.maximum(0.0, sigma_gram * math.sqrt(d * math.log(2 * d * d / failure)) - floor)


def adassp_ridge(release: AdaSSPRelease, failure: float = FAILURE) -> float:
    r"""Wang's private ridge from a release (post-processing, :func:`ridge_rule`)."""
    failure = check_fraction(failure, "failure", closed_low=False, closed_high=False)
    if release.eigen is None:
        raise ValueError("the release has no eigenvalue (shares[2] = 0): fix lam, or release with rho_e > 0")
    cal = release.calibration
    return float(ridge_rule(release.eigen, cal.sigma_gram, cal.sigma_eigen, release.moment.size, cal.delta, failure))


def adassp_draws(A, b, eigen: float, sigmas, delta: float, gen, draws: int, failure: float = FAILURE,
                 solve: str = "clip") -> tuple:
    r"""``draws`` independent AdaSSP solutions from exact statistics, in floating point, vectorized: ``(thetas, lams)``.

    For the experiments: ``A``, ``b`` and ``eigen = lambda_min(A)`` are the statistics in any scale (the weighted one of
    this module, or Wang's :math:`X^\top X`), ``sigmas = (sigma_A, sigma_b, sigma_e)`` the noises in the same scale.
    Each draw adds a symmetric noise (upper triangle, row by row, then the moment, then the eigenvalue, from
    ``gen``), takes :func:`ridge_rule` and solves as ``solve`` says (:func:`adassp`).  The release of one draw is
    :func:`adassp` with ``sampler="float"``.
    """
    A, b = np.asarray(A, dtype=float), np.asarray(b, dtype=float)
    d = b.size
    rows, cols = np.triu_indices(d)
    noise = np.zeros((draws, d, d))
    noise[:, rows, cols] = sigmas[0] * gen.standard_normal((draws, rows.size))
    noise = noise + np.triu(noise, 1).transpose(0, 2, 1)
    b_hat = b + sigmas[1] * gen.standard_normal((draws, d))
    e_hat = eigen + sigmas[2] * gen.standard_normal(draws)
    lams = ridge_rule(e_hat, sigmas[0], sigmas[2], d, delta, failure)
    if check_solve(solve) == "pinv":
        systems = A + noise + lams[:, None, None] * np.eye(d)
        return np.einsum("kij,kj->ki", np.linalg.pinv(systems, hermitian=True), b_hat), lams
    values, vectors = np.linalg.eigh(A + noise)
    proj = np.einsum("kji,kj->ki", vectors, b_hat) / (np.maximum(values, 0.0) + lams[:, None])
    return np.einsum("kij,kj->ki", vectors, proj), lams


def adassp(X, y, epsilons, delta, rng=None, *, shares=SHARES, failure: float = FAILURE, sampler="exact",
           solve: str = "clip") -> np.ndarray:
    r"""Personalized AdaSSP: point ``i`` gets ``(epsilon_i, delta)``-DP, the ridge chosen privately.

    ``lambda`` = :func:`adassp_ridge` of the release (:func:`adassp_release`, whose arguments these are);
    ``failure`` is Wang's ``rho`` (0.05).  ``solve="clip"`` (the default): :math:`(\hat A_+ + \lambda I)^{-1}\hat
    b`, the negative eigenvalues of the noisy Gram matrix set to 0, as SSP solves; ``solve="pinv"``:
    :math:`(\hat A + \lambda I)^{+}\hat b`, the pseudo-inverse, as published.  Both are post-processing; the first
    did better on every dataset of the book's chapter *Beyond output perturbation*.

    Returns
    -------
    numpy.ndarray of shape (d,)
    """
    if check_shares(shares)[2] == 0:
        raise ValueError(f"shares = {shares!r} has rho_e = 0: AdaSSP needs the eigenvalue (rho_e > 0); for a fixed "
                         f"lam use gaussian_ssp")
    failure = check_fraction(failure, "failure", closed_low=False, closed_high=False)
    solve = check_solve(solve)
    release = adassp_release(X, y, epsilons, delta, rng, shares=shares, sampler=sampler)
    return solve_release(release.gram, release.moment, adassp_ridge(release, failure), solve)


SOLVES = ("clip", "pinv")


def check_solve(solve) -> str:
    """``"clip"`` or ``"pinv"``, refused otherwise by name."""
    return check_choice(solve, "solve", SOLVES, "'clip' (the noisy Gram matrix's negative eigenvalues set to 0) or "
                                                "'pinv' (the pseudo-inverse, as published)")


def solve_release(gram, moment, lam: float, solve: str) -> np.ndarray:
    """The ridge solved from released statistics at ``lam`` (post-processing): ``solve="clip"`` with the released Gram
    matrix's negative eigenvalues set to 0, else by the pseudo-inverse of ``gram + lam I``."""
    if solve == "clip":
        return solve_clipped(gram, moment, lam)
    return np.linalg.pinv(gram + lam * np.eye(moment.size), hermitian=True) @ moment


def gaussian_ssp(X, y, epsilons, lam, delta, rng=None, *, share: float = 0.5, sampler="exact") -> np.ndarray:
    r"""SSP with Gaussian noise at a fixed ``lam``: point ``i`` ``(epsilon_i, delta)``-DP.

    The release of :func:`adassp_release` with shares ``(share, 1 - share, 0)`` (no eigenvalue), solved as SSP:
    :math:`(\hat A_+ + \lambda I)^{-1}\hat b` (:func:`pdp_lib.mechanisms.ssp.solve_statistics`).

    Returns
    -------
    numpy.ndarray of shape (d,)
    """
    X, y, eps, lam = check_problem(X, y, epsilons, lam)
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    rho = check_fraction(share, "share", closed_low=False, closed_high=False)
    shares = check_shares((rho, 1 - rho, 0.0))               # the complement rounded down, exactly
    release = release_arrays(X, y, eps, delta, rng, shares, check_sampler(sampler))
    return solve_clipped(release.gram, release.moment, lam)
