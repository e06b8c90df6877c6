r"""Exact draws of continuous noise, rounded to the integer lattice: the ℓ2-Laplace noise in any dimension.

The lattice sampler (:func:`pdp_lib.mechanisms.exact_sampling.sample_lattice_l2`) rejects from a product of
discrete Laplaces and slows like ``exp(0.27 d)``; the release uses it up to ``d = 12``
(:func:`pdp_lib.mechanisms.lattice.noise_law`) and this module above.  This module draws instead the *continuous* vector

.. math::

    U = \frac{E_1 + \dots + E_d}{t}\,\frac{G}{\|G\|_2}, \qquad E_j \sim \mathrm{Exp}(1),\ G_j \sim N(0, 1),

whose density is proportional to :math:`\exp(-t\|u\|_2)` on :math:`\mathbb{R}^d` (a Gamma(d) radius times a
uniform direction), and returns :math:`K = \mathrm{round}(U) \in \mathbb{Z}^d` exactly: each :math:`E_j` and
:math:`G_j` is a *lazy real*, an integer part and the first ``p`` bits of a fraction whose further bits are
uniform and independent of everything drawn so far (Karney, ACM TOMS 2016, "Sampling exactly from the
normal distribution": u-rands).  Every decision, each comparison and the rounding, is made with exact
integer arithmetic on the bits drawn; more bits are drawn until the decision is certain.  So ``K`` has
exactly the law

.. math::

    P(K = k) = \int_{k + [-\frac12, \frac12)^d} c_{t,d}\, e^{-t\|u\|_2}\, du,

the law of the rounded continuous draw, on every machine.  ``m + K = round(m + U)`` for an integer ``m``: a
deterministic function of the continuous mechanism's output, so the release keeps that mechanism's
guarantee, with the centre rounded to the lattice (post-processing).

* :math:`E \sim \mathrm{Exp}(1)`: von Neumann's algorithm (1951): the integer part counts rejected rounds;
  the fraction ``x``, uniform, is kept when the run ``x > u_1 > u_2 > \dots`` of uniforms has even length,
  with probability :math:`e^{-x}`.
* :math:`|G| \sim |N(0, 1)|`: an :math:`\mathrm{Exp}(1)` proposal ``Y`` kept when an independent
  :math:`E > (Y - 1)^2/2`, with probability :math:`e^{-(Y-1)^2/2}`; a fair sign.
* The rounding: interval bounds on every :math:`U_j` from the bits drawn, refined until no bound interval
  holds a half-integer.

Derived and tested in the book's chapter *What the guarantee does not cover* (``book/limits.ipynb``), section
*A release that keeps its promise in floating point*.  Its running time depends on ``d``, ``t`` and the random
bits only: it is never given a centre or data.  It is *not* independent of the draw: larger draws need more bits
(the integer parts of the exponentials, the refinements of the rounding), so the time is correlated with
:math:`\|K\|_2`, and time and release together say more about the centre than the release alone.  Measured by
``benchmarks/bench_rounded_time.py`` (1,500 draws at rate 1/1000): Spearman's correlation of the random bits used
with :math:`\|K\|_2` is 0.34 at ``d = 12`` and at ``d = 30``; the guarantee covers the output, not the time.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..validation import check_dimension
from .exact_sampling import RandomBits, check_rate

__all__ = ["LazyReal", "exponential", "normal", "sample_rounded_l2", "sample_rounded_gaussian", "initial_precision",
           "CHUNK_BITS"]

CHUNK_BITS = 32
"""Bits added to a lazy real's fraction at each refinement."""


class LazyReal:
    """A real number known by its sign, integer part and first ``p`` bits of its fraction.

    The value lies in ``sign * [whole + frac / 2**p, whole + (frac + 1) / 2**p]``; its further bits are
    uniform and independent of every decision made so far (they have not been drawn).

    Attributes
    ----------
    sign : int
        ``+1`` or ``-1``.
    whole : int
        The integer part, ``>= 0``.
    frac, p : int
        The fraction's bits drawn so far, as an integer, and their number.
    """

    __slots__ = ("sign", "whole", "frac", "p")

    def __init__(self, whole: int = 0, sign: int = 1):
        self.sign, self.whole, self.frac, self.p = sign, whole, 0, 0

    def extend(self, p: int, bits: RandomBits) -> None:
        """Draw the fraction's bits up to position ``p`` (nothing if ``p`` are drawn already)."""
        if p > self.p:
            self.frac = (self.frac << (p - self.p)) | bits.bits(p - self.p)
            self.p = p

    def scaled(self, p: int) -> int:
        """``floor(|value| * 2**p)`` from the bits drawn, which must number ``p`` at least: the low end."""
        return (self.whole << p) | (self.frac >> (self.p - p))

    def interval(self) -> tuple:
        """``(lo, hi)``: exact bounds on the magnitude ``|value|``, as Fractions."""
        lo = Fraction((self.whole << self.p) | self.frac, 1 << self.p)
        return lo, lo + Fraction(1, 1 << self.p)


def _less(a: LazyReal, b: LazyReal, bits: RandomBits) -> bool:
    """Whether the fraction of ``a`` is below that of ``b`` (two independent uniforms): bits until they differ."""
    p = max(a.p, b.p)
    while True:
        a.extend(p, bits)
        b.extend(p, bits)
        if a.frac != b.frac:
            return a.frac < b.frac
        p += CHUNK_BITS


def exponential(bits: RandomBits) -> LazyReal:
    """An exact draw from Exp(1), as a lazy real (von Neumann's algorithm).

    Each round draws a uniform ``x`` and uniforms ``u_1, u_2, ...`` while they decrease, ``x > u_1 > u_2 >
    ...``; the run's length ``n`` has :math:`P(n \\ge j \\mid x) = x^j/j!`, so it is even with probability
    :math:`e^{-x}`, and then ``k + x`` is returned, ``k`` the number of rounds rejected before.  Comparisons
    draw bits only until the two numbers differ.
    """
    k = 0
    while True:
        x = LazyReal(k)
        prev, n = x, 0
        while True:
            u = LazyReal()
            if not _less(u, prev, bits):
                break
            prev, n = u, n + 1
        if n % 2 == 0:
            return x
        k += 1


def _exceeds_half_square(e: LazyReal, y: LazyReal, bits: RandomBits) -> bool:
    """Whether ``e > (y - 1)**2 / 2``, for two independent lazy reals ``e, y >= 0``: bits until certain."""
    while True:
        e_lo, e_hi = e.interval()
        y_lo, y_hi = y.interval()
        ends = ((y_lo - 1) ** 2 / 2, (y_hi - 1) ** 2 / 2)
        q_lo = Fraction(0) if y_lo <= 1 <= y_hi else min(ends)
        q_hi = max(ends)
        if e_lo > q_hi:
            return True
        if e_hi < q_lo:
            return False
        e.extend(e.p + CHUNK_BITS, bits)
        y.extend(y.p + CHUNK_BITS, bits)


def normal(bits: RandomBits) -> LazyReal:
    """An exact draw from N(0, 1), as a lazy real.

    ``|G|``: an Exp(1) proposal ``Y`` (density :math:`e^{-y}`) kept when an independent Exp(1) exceeds
    :math:`(Y - 1)^2/2`, with probability :math:`e^{-(Y-1)^2/2}`: the kept ``Y`` has density proportional to
    :math:`e^{-y}e^{-(y-1)^2/2} = e^{-1/2} e^{-y^2/2}`, the half-normal's.  A fair sign.  Kept with
    probability :math:`\\sqrt{\\pi/(2e)} \\approx 0.76`.
    """
    while True:
        y = exponential(bits)
        if _exceeds_half_square(exponential(bits), y, bits):
            y.sign = -1 if bits.bits(1) else 1
            return y


def initial_precision(t: Fraction, d: int) -> int:
    """The fraction bits drawn before the first rounding attempt: ``32`` beyond those of ``ceil(4 d / t)``.

    ``|U|`` is a Gamma(d, t) radius, of mean ``d/t``; a function of ``t`` and ``d`` only, so public.
    """
    return CHUNK_BITS + math.ceil(4 * d / t).bit_length()


def _round_interval(num_lo: int, den_lo: int, num_hi: int, den_hi: int):
    """``round(v)`` for every ``v`` in ``[num_lo/den_lo, num_hi/den_hi]`` (``v >= 0``), or ``None`` if they differ.

    Decided when ``[lo + 1/2, hi + 1/2]`` lies in one open interval ``(k, k + 1)``: no half-integer is a
    candidate, so no tie rule is ever used.
    """
    k, r = divmod(2 * num_lo + den_lo, 2 * den_lo)        # floor(lo + 1/2) and whether lo + 1/2 is whole
    k_hi, r_hi = divmod(2 * num_hi + den_hi, 2 * den_hi)
    return k if r and k == k_hi and r_hi else None


def sample_rounded_l2(t, d: int, bits: RandomBits) -> tuple:
    r"""One exact draw ``K = round(U)``, with ``U`` of density :math:`\propto \exp(-t\|u\|_2)` on :math:`\mathbb{R}^d`.

    Parameters
    ----------
    t : fractions.Fraction or int
        The rate per lattice step, rational and ``> 0``.
    d : int
        The dimension, ``>= 1``.
    bits : RandomBits
        The source of uniform bits.

    Returns
    -------
    tuple of int
        ``K``, as Python integers.

    Notes
    -----
    With every lazy real's fraction drawn to ``p`` bits, ``S = sum_j E_j`` lies in ``[A, A + d] / 2**p``
    and ``||G||`` in ``[floor(sqrt(Q_lo)), ceil(sqrt(Q_hi))] / 2**p`` with integer square roots, so
    :math:`|U_j| = S |G_j| / (t \|G\|)` lies in an interval with rational ends.  Where an interval holds a
    half-integer, every lazy real draws :data:`CHUNK_BITS` more bits, for all coordinates alike.
    """
    t = check_rate(t)
    d = check_dimension(d)
    radius = [exponential(bits) for _ in range(d)]
    direction = [normal(bits) for _ in range(d)]
    return _rounded(radius, direction, t, bits)


def _rounded(radius: list, direction: list, t: Fraction, bits: RandomBits) -> tuple:
    """``round(U)`` for the lazy reals drawn: more bits for all of them until every coordinate is certain."""
    p = initial_precision(t, len(radius))
    while True:
        for v in radius + direction:
            v.extend(p, bits)
        rounded = _round_all(radius, direction, t, p)
        if rounded is not None:
            return rounded
        p += CHUNK_BITS


def _round_all(radius: list, direction: list, t: Fraction, p: int):
    """Every ``round(U_j)``, with all fractions drawn to ``p`` bits; ``None`` where one is not yet certain."""
    d = len(radius)
    A = sum(v.scaled(p) for v in radius)                      # S in [A, A + d] / 2**p
    g = [v.scaled(p) for v in direction]                       # |G_j| in [g_j, g_j + 1] / 2**p
    q_lo = sum(x * x for x in g)
    q_hi = sum((x + 1) * (x + 1) for x in g)
    n_lo, n_hi = math.isqrt(q_lo), math.isqrt(q_hi - 1) + 1   # ||G|| in [n_lo, n_hi] / 2**p
    if n_lo == 0:
        return None
    tp, tq = t.numerator, t.denominator
    out = []
    for gj, v in zip(g, direction):
        # |U_j| = S |G_j| / (t ||G||): low end A g_j tq / (tp 2**p n_hi), high end (A + d)(g_j + 1) tq / (tp 2**p n_lo)
        k = _round_interval(A * gj * tq, tp * n_hi << p, (A + d) * (gj + 1) * tq, tp * n_lo << p)
        if k is None:
            return None
        out.append(v.sign * k)
    return tuple(out)


def sample_rounded_gaussian(t, d: int, bits: RandomBits) -> tuple:
    r"""One exact draw ``K = round(G / t)``, ``G ~ N(0, I_d)``: Gaussian noise of standard deviation ``1/t``, rounded.

    The Gaussian counterpart of :func:`sample_rounded_l2`, for the release of the personalized Gaussian
    mechanism on the lattice (:func:`pdp_lib.mechanisms.gaussian.gaussian_mechanism`): ``m + K =
    round(m + G/t)`` is a function of the Gaussian mechanism's output at the centre ``m``.  Each ``G_j`` is a
    lazy real (:func:`normal`); ``|G_j| / t`` lies in ``[g, g + 1] tq / (tp 2**p)`` for ``t = tp/tq``, refined
    until it is inside one open interval ``(k - 1/2, k + 1/2)``.

    Parameters
    ----------
    t : fractions.Fraction or int
        The inverse standard deviation per lattice step, rational and ``> 0``.
    d : int
        The dimension, ``>= 1``.
    bits : RandomBits
        The source of uniform bits.

    Returns
    -------
    tuple of int
    """
    t = check_rate(t)
    d = check_dimension(d)
    return _rounded_gaussian([normal(bits) for _ in range(d)], t, bits)


def _rounded_gaussian(direction: list, t: Fraction, bits: RandomBits) -> tuple:
    """``round(G_j / t)`` for the lazy normals drawn: more bits for all of them until every coordinate is certain."""
    p = CHUNK_BITS + math.ceil(4 / t).bit_length()
    tp, tq = t.numerator, t.denominator
    while True:
        for v in direction:
            v.extend(p, bits)
        out = []
        for v in direction:
            g = v.scaled(p)
            k = _round_interval(g * tq, tp << p, (g + 1) * tq, tp << p)
            if k is None:
                break
            out.append(v.sign * k)
        else:
            return tuple(out)
        p += CHUNK_BITS
