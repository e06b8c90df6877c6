r"""Exact sampling from uniform bits: Bernoulli(exp(-x)), the discrete Laplace, and exp(-t ||k||_2) on Z^d.

Every draw here is made with integer arithmetic on uniform random bits, so its law is the stated one
exactly, on every machine, with no floating-point rounding anywhere (Canonne, Kamath & Steinke, NeurIPS
2020, Algorithms 1 and 2, for the first two).  The third, the lattice :math:`\ell_2`-Laplace law

.. math::

    P(k) \propto \exp(-t \|k\|_2), \qquad k \in \mathbb{Z}^d,\ t > 0 \text{ rational},

is drawn by rejection from a product of discrete Laplaces of scale ``N`` with ``1/N <= t / sqrt(d)``,
accepted with probability :math:`\exp(-(t\|k\|_2 - \|k\|_1/N)) \le 1`; the exponent is irrational, and
the acceptance compares a uniform number with it by comparing squares of integers, refining the uniform
number lazily until the comparison is decided.
Derived and tested in the book's chapter *What the guarantee does not cover*
(``book/limits.ipynb``), section *A release that keeps its promise in floating point*.

The running time of :func:`sample_lattice_l2` depends on ``d``, ``t`` and the random bits only: it is
never given a centre or data.  It does depend on the draw ``K`` (larger draws take more bits), so the time
and the release ``gamma (m + K)`` together can reveal the centre ``m``: the guarantee covers the output, not
the running time.
"""

from __future__ import annotations

import functools
import math
import numbers
import secrets
from fractions import Fraction

import numpy as np

from ..validation import check_dimension, check_rng

__all__ = ["RandomBits", "random_bits", "check_rate", "check_exact_dimension", "bernoulli_exp", "discrete_laplace", "proposal_scale", "sample_lattice_l2",
           "MAX_EXACT_DIMENSION", "expm1_bounds", "bernoulli_expm1_ratio"]

MAX_EXACT_DIMENSION = 32
"""The largest ``d`` the rejection sampler accepts: its acceptance rate falls exponentially with ``d``, about
like ``exp(-0.27 d)`` (Stirling's formula: ``d (1/2 log(2 pi e) - 1 - log 2)``), as measured by
``benchmarks/bench_exact_sampler.py``: 5% at ``d = 12``, 4 in 10,000 at ``d = 30``, 1e-12 at ``d = 100``."""


_WORD_MAX = np.iinfo(np.uint64).max


def check_exact_dimension(d) -> int:
    """Validate ``d`` for the exact sampler: ``1 <= d <= MAX_EXACT_DIMENSION``, refused in one line otherwise."""
    d = check_dimension(d)
    if d > MAX_EXACT_DIMENSION:
        raise ValueError(f"d = {d} is outside the allowed range [1, {MAX_EXACT_DIMENSION}] of the exact sampler: "
                         f"its expected number of proposals grows like exp(0.27 d); the lattice release draws the "
                         f"rounded law instead (pdp_lib.mechanisms.exact_rounding.sample_rounded_l2), exact in any "
                         f"dimension")
    return d


def check_rate(t) -> Fraction:
    """Validate a sampler's rate: a rational or a finite real ``> 0`` (not a bool), as an exact Fraction."""
    if isinstance(t, (bool, np.bool_)) or not isinstance(t, numbers.Real):
        raise TypeError(f"t must be a rational or a real number, got {type(t).__name__} {t!r}")
    if not isinstance(t, numbers.Rational) and not math.isfinite(t):
        raise ValueError(f"t = {t!r} is outside the allowed range (0, inf)")
    t = Fraction(t)
    if not t > 0:
        raise ValueError(f"t = {t} is outside the allowed range (0, inf)")
    return t


class RandomBits:
    """Uniform random bits and integers, from a seeded NumPy bit stream or from the operating system.

    Parameters
    ----------
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        A seed or Generator: its uniform 64-bit words (``integers`` over the full range of ``uint64``, whatever
        the bit generator), so the same seed gives the same draws on every machine.  ``None``: the operating system's cryptographic source
        (:mod:`secrets`), not reproducible.

    Attributes
    ----------
    used : int
        The number of random bits consumed so far (a count of the work done).
    """

    def __init__(self, rng=None):
        self._gen = None if rng is None else check_rng(rng)
        self._pool = 0
        self._avail = 0
        self.used = 0

    def _refill(self) -> None:
        if self._gen is None:
            word, width = secrets.randbits(4096), 4096
        else:
            # full-range 64-bit words: the raw words of PCG64 (the default), two 32-bit words of MT19937
            raw = self._gen.integers(0, _WORD_MAX, endpoint=True, dtype=np.uint64, size=64)
            word, width = int.from_bytes(np.asarray(raw, dtype="<u8").tobytes(), "little"), 4096
        self._pool |= word << self._avail
        self._avail += width

    def bits(self, k: int) -> int:
        """``k`` uniform bits as an integer in ``[0, 2**k)``."""
        while self._avail < k:
            self._refill()
        value = self._pool & ((1 << k) - 1)
        self._pool >>= k
        self._avail -= k
        self.used += k
        return value

    def below(self, m: int) -> int:
        """A uniform integer in ``[0, m)``, ``m >= 1``, by rejection on ``bit_length(m - 1)`` bits."""
        k = (m - 1).bit_length()
        while True:
            v = self.bits(k)
            if v < m:
                return v



def random_bits(rng) -> "RandomBits":
    """The exact samplers' source from ``rng``: ``rng`` itself when it is :class:`RandomBits`, else
    ``RandomBits(rng)`` for ``None`` (the operating system's cryptographic source), an int seed or a Generator,
    checked as :func:`pdp_lib.validation.check_rng` checks them."""
    if isinstance(rng, RandomBits):
        return rng
    if rng is not None:
        check_rng(rng)
    return RandomBits(rng)

def _bernoulli_exp_unit(num: int, den: int, bits: RandomBits) -> bool:
    """Bernoulli(exp(-num/den)) for ``0 <= num <= den`` (Canonne, Kamath & Steinke, Algorithm 1)."""
    k = 1
    while bits.below(den * k) < num:      # Bernoulli(gamma / k)
        k += 1
    return k % 2 == 1


def bernoulli_exp(x, bits: RandomBits) -> bool:
    """Exactly Bernoulli(exp(-x)) for a rational ``x >= 0`` (a :class:`fractions.Fraction` or an int).

    ``exp(-x) = exp(-1)**floor(x) * exp(-(x - floor(x)))``: one exact coin for each factor.
    """
    x = Fraction(x)
    if x < 0:
        raise ValueError(f"x = {x} is outside the allowed range [0, inf)")
    num, den = x.numerator, x.denominator
    while num > den:
        if not _bernoulli_exp_unit(1, 1, bits):
            return False
        num -= den
    return _bernoulli_exp_unit(num, den, bits)


def discrete_laplace(N: int, bits: RandomBits) -> int:
    """An integer with ``P(x) = tanh(1/(2N)) exp(-|x|/N)`` (Canonne, Kamath & Steinke, Algorithm 2, scale ``N``).

    ``|x| = U + N V`` with ``U`` uniform on ``[0, N)`` accepted with probability ``exp(-U/N)`` and ``V``
    geometric, ``P(V = v) ∝ exp(-v)``; a fair sign, with ``-0`` rejected.
    """
    while True:
        u = bits.below(N)
        if not _bernoulli_exp_unit(u, N, bits):
            continue
        v = 0
        while _bernoulli_exp_unit(1, 1, bits):
            v += 1
        x = u + N * v
        negative = bits.bits(1)
        if negative and x == 0:
            continue
        return -x if negative else x


def proposal_scale(t: Fraction, d: int) -> int:
    """The least integer ``N`` with ``1/N <= t/sqrt(d)``: ``N**2 t**2 >= d``, decided exactly."""
    p, q = t.numerator, t.denominator
    N = max(1, math.isqrt(d * q * q // (p * p)))
    while N * N * p * p < d * q * q:
        N += 1
    return N


def _exceeds(t: Fraction, Q: int, L: int, N: int, c: Fraction, strict: bool) -> bool:
    """Whether ``t sqrt(Q) - L/N`` is ``> c`` (``strict``) or ``>= c``, for ``c >= 0``: exact, by squaring."""
    p, q = t.numerator, t.denominator
    lhs = p * p * Q * N * N * c.denominator ** 2          # (p sqrt(Q) N c_den)^2
    rhs = (q * (L * c.denominator + N * c.numerator)) ** 2   # (q (L c_den + N c_num))^2, both sides >= 0
    return lhs > rhs if strict else lhs >= rhs


def _accept(t: Fraction, Q: int, L: int, N: int, bits: RandomBits) -> bool:
    """Bernoulli(exp(-x)) for the irrational ``x = t sqrt(Q) - L/N >= 0``, exactly.

    ``m = floor(x)`` is found by exact comparisons; ``m`` coins of ``exp(-1)``; then Algorithm 1 of
    Canonne, Kamath & Steinke for ``f = x - m`` in ``[0, 1)``, whose coins Bernoulli(f/K) compare a uniform
    number, drawn 32 bits at a time, with ``f/K`` until the comparison is decided.
    """
    m = max(0, (t.numerator * math.isqrt(Q)) // t.denominator - (L + N - 1) // N)   # within t + 1 below x
    while m > 0 and not _exceeds(t, Q, L, N, Fraction(m), strict=False):
        m -= 1
    while _exceeds(t, Q, L, N, Fraction(m + 1), strict=False):
        m += 1
    for _ in range(m):
        if not _bernoulli_exp_unit(1, 1, bits):
            return False
    K = 1
    while True:
        u, scale = bits.bits(32), 32
        while True:      # U in [u, u + 1) / 2**scale against f/K: x >= m + K (u+1)/2**s means U < f/K
            if _exceeds(t, Q, L, N, m + Fraction(K * (u + 1), 1 << scale), strict=False):
                coin = True
                break
            if not _exceeds(t, Q, L, N, m + Fraction(K * u, 1 << scale), strict=True):
                coin = False
                break
            u, scale = (u << 32) | bits.bits(32), scale + 32
        if not coin:
            return K % 2 == 1
        K += 1


def sample_lattice_l2(t, d: int, bits: RandomBits) -> tuple:
    r"""One exact draw ``k`` from :math:`P(k) \propto \exp(-t \|k\|_2)` on :math:`\mathbb{Z}^d`.

    Parameters
    ----------
    t : fractions.Fraction or int
        The rate per lattice step, rational and ``> 0``.
    d : int
        The dimension, ``1 <= d <= MAX_EXACT_DIMENSION``.
    bits : RandomBits
        The source of uniform bits.

    Returns
    -------
    tuple of int
        ``k``, as Python integers (exact at any size).

    Notes
    -----
    Proposal: ``d`` independent discrete Laplaces of scale ``N = proposal_scale(t, d)``, of law
    :math:`\propto \exp(-\|k\|_1/N)`.  Since :math:`\|k\|_1 \le \sqrt{d}\,\|k\|_2` and :math:`1/N \le
    t/\sqrt d`, the ratio of the target to the proposal, :math:`\exp(-(t\|k\|_2 - \|k\|_1/N))`, is at most
    1 and is the acceptance probability: the accepted ``k`` has the target law exactly.
    """
    t = check_rate(t)
    d = check_exact_dimension(d)
    N = proposal_scale(t, d)
    while True:
        k = tuple(discrete_laplace(N, bits) for _ in range(d))
        Q = sum(v * v for v in k)
        L = sum(abs(v) for v in k)
        if _accept(t, Q, L, N, bits):
            return k


@functools.lru_cache(maxsize=1024)
def _expm1_bounds_cached(x: Fraction, prec: int) -> tuple:
    return expm1_bounds(x, prec)


def expm1_bounds(x, prec: int) -> tuple:
    r"""Rational bounds ``(lo, hi)`` with :math:`lo \le e^x - 1 \le hi` and ``hi - lo <= 2**-prec (e^x - 1)``.

    ``x`` is a rational ``> 0`` (a double is one).  Fixed point with ``F`` fractional bits: for
    :math:`y = x/2^s \le 1/2` the Taylor terms :math:`y^j/j!` are rounded down and up (so every partial sum is
    bracketed), the tail after a term ``T`` at most ``T`` (each ratio :math:`y/j \le 1/2`); then
    :math:`e^{x} = (e^{y})^{2^s}` by ``s`` squarings, rounded down and up.  ``F`` covers the relative growth of the
    error (``2**s`` from the squarings, the number of terms, and :math:`1/(e^x - 1)` for small ``x``), so the width
    is at most ``2**-prec`` of the value; no floating-point number is used.
    """
    x = Fraction(x)
    if not x > 0:
        raise ValueError(f"x = {x} is outside the allowed range (0, inf)")
    s = max(0, (2 * x).numerator.bit_length() - (2 * x).denominator.bit_length() + 1)   # 2**s >= 2x
    y = x / (1 << s)
    small = max(0, x.denominator.bit_length() - x.numerator.bit_length() + 1)            # 2**-small <~ x
    F = prec + 2 * s + small + 16
    one = 1 << F
    p, q = y.numerator, y.denominator
    lo_term, hi_term = (one * p) // q, -((-one * p) // q)          # the first term, y, below and above
    lo, hi, j = lo_term, hi_term, 1
    while hi_term > 1:                                              # stop at a term of at most 2**-F
        j += 1
        lo_term, hi_term = (lo_term * p) // (q * j), -((-hi_term * p) // (q * j))
        lo, hi = lo + lo_term, hi + hi_term
    hi += 1                                                         # the tail after the last term T: at most T <= 1
    lo, hi = lo + one, hi + one                                     # e^y
    for _ in range(s):
        lo, hi = (lo * lo) >> F, -((-hi * hi) >> F)
    return Fraction(lo - one, one), Fraction(hi - one, one)


def bernoulli_expm1_ratio(eps, t, bits: RandomBits) -> bool:
    r"""Exactly Bernoulli(:math:`p`), :math:`p = (e^{\varepsilon} - 1)/(e^t - 1)`, for rationals ``0 < eps < t``.

    A uniform number :math:`U \in [0, 1)` is drawn 64 bits at a time and compared with certified rational bounds on
    :math:`p` (:func:`expm1_bounds`), refined together until the comparison is decided: ``True`` when
    :math:`U < p`.  ``p`` is irrational (Lindemann), so the comparison is decided with probability one, after
    ``64 + O(1)`` bits on average; no double ever stands for ``p``, so a ``p`` below ``2**-53`` keeps its value.
    This is the keep/drop coin of Jorgensen et al.'s sampling (:func:`pdp_lib.mechanisms.baselines.jorgensen`).
    """
    eps, t = Fraction(eps), Fraction(t)
    if not 0 < eps < t:
        raise ValueError(f"eps = {eps} and t = {t} are outside the allowed range 0 < eps < t")
    cap = _small_probability_exponent(eps, t)             # p < 2**-cap, read off without any exponential
    u, k = bits.bits(64), 64
    while k < cap:                                        # U's leading bits: a 1 among the first cap decides it
        if u > 0:                                         # u 2**cap >= 2**k, as k < cap: U >= 2**-cap > p
            return False
        u, k = (u << 64) | bits.bits(64), k + 64
    if cap and u.bit_length() > k - cap:                  # u >= 2**(k - cap): U >= 2**-cap > p
        return False
    while True:
        a_lo, a_hi = _expm1_bounds_cached(eps, k + 8)      # the levels and the threshold repeat across coins
        b_lo, b_hi = _expm1_bounds_cached(t, k + 8)
        p_lo, p_hi = a_lo / b_hi, a_hi / b_lo
        if Fraction(u + 1, 1 << k) <= p_lo:
            return True
        if Fraction(u, 1 << k) >= p_hi:
            return False
        u, k = (u << 64) | bits.bits(64), k + 64


_LOG2_E_BELOW = Fraction(1.4426950408889634)     # a double below log2(e) = 1.44269504088896340736...


def _small_probability_exponent(eps: Fraction, t: Fraction) -> int:
    r"""An integer ``c >= 0`` with :math:`p = (e^\varepsilon - 1)/(e^t - 1) < 2^{-c}`, from rationals only.

    For :math:`t \ge 1`, :math:`p \le e^{\varepsilon - t}/(1 - e^{-t}) < 2 e^{-(t - \varepsilon)}
    \le 2^{1 - (t - \varepsilon)\log_2 e}`, and ``(t - eps)`` times a rational below :math:`\log_2 e` bounds the
    exponent from below.  It lets a coin with a threshold of, say, ``10**9`` be decided from its first random bits,
    without computing :math:`e^t` (whose fixed-point digits grow like ``t``); ``0`` when ``t < 1``.
    """
    if t < 1:
        return 0
    return max(0, math.floor((t - eps) * _LOG2_E_BELOW) - 1)
