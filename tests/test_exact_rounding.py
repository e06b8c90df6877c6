"""Tests of the exactly rounded l2-Laplace noise (pdp_lib.mechanisms.exact_rounding) against independent truths.

Exp(1) and N(0, 1): Kolmogorov-Smirnov tests of the lazy reals, drawn on to 64 bits, each with a negative
control (a scale 10% off is rejected).  The rounded law ``P(K = k) = integral over the cell of k of
c exp(-t ||u||)``: a chi-square test against the closed form in d = 1 and against numerical quadrature of each
cell in d = 2, each with a negative control; in d = 3, 40 and 100, with a rate so small that rounding moves
``t ||K||`` by less than ``1e-6``, the radius against Gamma(d, 1) and the direction against the Beta law of a
uniform direction's squared coordinate.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, stats

from pdp_lib.mechanisms import exact_rounding as er
from laws import chi_square_pvalue
from pdp_lib.mechanisms.exact_sampling import RandomBits


def _value(v, bits):
    v.extend(max(v.p, 64), bits)
    return v.sign * float(v.interval()[0])


@pytest.mark.parametrize("draw, law", [(er.exponential, stats.expon), (er.normal, stats.norm)])
def test_the_lazy_reals_have_their_laws(draw, law):
    bits = RandomBits(7)
    values = np.array([_value(draw(bits), bits) for _ in range(20_000)])
    assert stats.kstest(values, law.cdf).pvalue > 1e-3
    assert stats.kstest(values * 1.1, law.cdf).pvalue < 1e-6      # the test sees a scale 10% off


def _cell_probabilities_1d(t, radius):
    """``P(K = k)`` for ``|k| <= radius`` in d = 1: the Laplace law ``t/2 exp(-t|u|)`` over ``[k - 1/2, k + 1/2]``."""
    k = np.arange(-radius, radius + 1)
    p = 0.5 * np.exp(-t * (np.abs(k) - 0.5)) * (1 - np.exp(-t))
    p[k == 0] = 1 - np.exp(-t / 2)
    return [(int(v),) for v in k], p


def _cell_probabilities_2d(t, radius):
    """``P(K = k)`` for ``|k|_inf <= radius`` in d = 2, each cell integrated numerically.

    The density is ``t^2 / (2 pi) exp(-t r)``.
    """
    cells, p = [], []
    for a in range(-radius, radius + 1):
        for b in range(-radius, radius + 1):
            value, _ = integrate.dblquad(lambda v, u: t * t / (2 * math.pi) * math.exp(-t * math.hypot(u, v)),
                                         a - 0.5, a + 0.5, b - 0.5, b + 0.5, epsabs=1e-12)
            cells.append((a, b))
            p.append(value)
    return cells, np.array(p)


@pytest.mark.parametrize("d, t, radius", [(1, Fraction(1, 2), 14), (2, Fraction(1), 6)])
def test_the_rounded_sampler_has_the_cell_law(d, t, radius):
    cells, p = (_cell_probabilities_1d if d == 1 else _cell_probabilities_2d)(float(t), radius)
    bits = RandomBits(200 + d)
    draws = [er.sample_rounded_l2(t, d, bits) for _ in range(20_000)]
    assert chi_square_pvalue(draws, cells, p) > 1e-3
    wrong = [er.sample_rounded_l2(t * Fraction(11, 10), d, bits) for _ in range(20_000)]
    assert chi_square_pvalue(wrong, cells, p) < 1e-6          # the test sees a rate 10% off


@pytest.mark.parametrize("d, draws", [(3, 4000), (40, 1000), (100, 400)])
def test_the_rounded_sampler_has_a_gamma_radius_and_a_uniform_direction(d, draws):
    t = Fraction(1, 10**12)                 # rounding moves t ||K|| by at most t sqrt(d) / 2 < 1e-11
    bits = RandomBits(300 + d)
    K = np.array([er.sample_rounded_l2(t, d, bits) for _ in range(draws)], dtype=float)
    radius = float(t) * np.linalg.norm(K, axis=1)
    assert stats.kstest(radius, stats.gamma(d).cdf).pvalue > 1e-3
    assert stats.kstest(radius * 1.1, stats.gamma(d).cdf).pvalue < 1e-6
    first = (K[:, 0] / np.linalg.norm(K, axis=1)) ** 2
    assert stats.kstest(first, stats.beta(0.5, (d - 1) / 2).cdf).pvalue > 1e-3
    assert np.mean(K[:, 0] > 0) == pytest.approx(0.5, abs=4 * 0.5 / math.sqrt(draws))


@pytest.mark.parametrize("t", [Fraction(50), Fraction(10**12), Fraction(1, 10**9), Fraction(1, 2**60),
                               Fraction(1, 3), Fraction(7, 5)])
def test_the_rounding_is_that_of_the_reals_drawn_to_a_thousand_bits(t):
    # an independent recomputation: every lazy real drawn on to 1000 bits, U_j from their low ends in rational
    # arithmetic (a square root to 1000 bits), rounded; the interval at 1000 bits is far below any cell's width
    bits = RandomBits(int(t.denominator % 997) + 11)
    for d in (1, 2, 3, 5, 40):
        radius = [er.exponential(bits) for _ in range(d)]
        direction = [er.normal(bits) for _ in range(d)]
        k = er._rounded(radius, direction, t, bits)
        for v in radius + direction:
            v.extend(1000, bits)
        S = sum(v.interval()[0] for v in radius)
        g = [v.sign * v.interval()[0] for v in direction]
        q = sum(x * x for x in g)
        norm = Fraction(math.isqrt(int(q * 4**1000)), 2**1000)
        assert k == tuple(round(S * x / (t * norm)) for x in g)


def test_the_rounded_gaussian_has_the_cell_law():
    # P(K = k) = Phi((k + 1/2) t) - Phi((k - 1/2) t) for K = round(G / t)
    t = Fraction(2, 5)
    k = np.arange(-12, 13)
    p = stats.norm.cdf((k + 0.5) * float(t)) - stats.norm.cdf((k - 0.5) * float(t))
    cells = [(int(v),) for v in k]
    bits = RandomBits(404)
    draws = [er.sample_rounded_gaussian(t, 1, bits) for _ in range(20_000)]
    assert chi_square_pvalue(draws, cells, p) > 1e-3
    wrong = [er.sample_rounded_gaussian(t * Fraction(11, 10), 1, bits) for _ in range(20_000)]
    assert chi_square_pvalue(wrong, cells, p) < 1e-6          # the test sees a scale 10% off
    many = [er.sample_rounded_gaussian(Fraction(1, 10**12), 30, bits) for _ in range(400)]
    z = np.array(many, dtype=float).ravel() * 1e-12     # rounding moves each by at most 5e-13
    assert stats.kstest(z, stats.norm.cdf).pvalue > 1e-3


def test_the_gaussian_rounding_is_that_of_the_reals_drawn_to_a_thousand_bits():
    bits = RandomBits(55)
    for t in (Fraction(50), Fraction(1, 3), Fraction(1, 2**60)):
        normals = [er.normal(bits) for _ in range(20)]
        k = er._rounded_gaussian(normals, t, bits)
        for v in normals:
            v.extend(1000, bits)
        assert k == tuple(round(v.sign * v.interval()[0] / t) for v in normals)


def test_the_same_seed_gives_the_same_draws_on_every_machine():
    # integer arithmetic on the raw 64-bit words of PCG64(2026): no rounding anywhere
    bits = RandomBits(2026)
    draws = [er.sample_rounded_l2(Fraction(1, 1000), 3, bits) for _ in range(2)]
    wide = er.sample_rounded_l2(Fraction(1, 1000), 40, bits)
    assert er.sample_rounded_gaussian(Fraction(1, 1000), 3, bits) == STORED_GAUSSIAN
    assert draws == STORED_DRAWS
    assert (sum(wide), max(wide), min(wide)) == STORED_WIDE
    assert bits.used == STORED_BITS


def test_the_bits_drawn_before_rounding_are_a_function_of_t_and_d():
    assert er.initial_precision(Fraction(1, 1000), 3) == 32 + (12_000).bit_length()
    assert er.initial_precision(Fraction(3), 100) == 32 + 134 .bit_length()


def test_bad_input_is_refused_by_name():
    bits = RandomBits(0)
    with pytest.raises(ValueError, match=r"t = 0 is outside the allowed range \(0, inf\)"):
        er.sample_rounded_l2(0, 2, bits)
    with pytest.raises(ValueError, match=r"d = 0 is outside the allowed range"):
        er.sample_rounded_l2(Fraction(1), 0, bits)
    with pytest.raises(ValueError, match=r"t = inf is outside the allowed range \(0, inf\)"):
        er.sample_rounded_l2(float("inf"), 2, bits)
    for bad in (True, "1/2", None):
        with pytest.raises(TypeError, match=r"t must be a rational or a real number, got"):
            er.sample_rounded_l2(bad, 2, bits)


STORED_DRAWS = [(1417, -284, 1237), (-1668, 2609, -847)]
STORED_WIDE = (52233, 11628, -16409)
STORED_BITS = 23037
STORED_GAUSSIAN = (-1520, 324, 1078)
