"""Tests of the exact samplers (pdp_lib.mechanisms.exact_sampling) against independent truths.

Bernoulli(exp(-x)): its law computed exactly by enumerating every path of random choices (each
``below(m)`` a branch of probability ``1/m``) above ``1e-8``, exact up to the mass of the paths left out.
The discrete Laplace: a chi-square test against ``tanh(1/2N) exp(-|x|/N)``.  The lattice l2-Laplace:
chi-square tests against ``exp(-t ||k||)`` on a truncated support in d = 1, 2, 3, with the same test
rejecting a sampler whose rate is 10% off.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from laws import chi_square_pvalue
from pdp_lib.mechanisms import exact_sampling as es


class _Branch(Exception):
    def __init__(self, m):
        self.m = m


class _Scripted:
    """A bit source that replays a fixed list of choices and stops where the list ends."""

    def __init__(self, choices):
        self.choices, self.pos, self.prob = choices, 0, Fraction(1)

    def below(self, m):
        if self.pos == len(self.choices):
            raise _Branch(m)
        v = self.choices[self.pos]
        self.pos += 1
        self.prob /= m
        return v

    def bits(self, k):
        return self.below(1 << k)


def _exact_law(run, cutoff=Fraction(1, 10**13)):
    """The law of ``run(bits)`` over every path of probability above ``cutoff``; and the mass left out."""
    law, left, stack = {}, Fraction(0), [[]]
    while stack:
        prefix = stack.pop()
        source = _Scripted(prefix)
        try:
            value = run(source)
        except _Branch as branch:
            if source.prob / branch.m < cutoff:
                left += source.prob
                continue
            stack.extend(prefix + [v] for v in range(branch.m))
            continue
        law[value] = law.get(value, 0) + source.prob
    return law, left


@pytest.mark.parametrize("x", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2), Fraction(7, 4)])
def test_bernoulli_exp_has_the_law_exp_minus_x(x):
    law, left = _exact_law(lambda bits: es.bernoulli_exp(x, bits), cutoff=Fraction(1, 10**8))
    assert left < 1e-3                       # the paths not followed: the law is exact up to their mass
    assert abs(float(law.get(True, 0)) - math.exp(-float(x))) <= float(left) + 1e-15


@pytest.mark.parametrize("N", [1, 2, 5])
def test_discrete_laplace_has_the_law_tanh_exp(N):
    bits = es.RandomBits(30 + N)
    draws = np.array([es.discrete_laplace(N, bits) for _ in range(60_000)])
    support = np.arange(-6 * N, 6 * N + 1)
    p = np.tanh(1 / (2 * N)) * np.exp(-np.abs(support) / N)
    observed = np.append([np.sum(draws == k) for k in support], np.sum(np.abs(draws) > 6 * N))
    expected = np.append(p, 1 - p.sum()) * draws.size
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def _lattice_probabilities(t, d, radius):
    """``P(k)`` for every ``k`` in the box of half-width ``radius``, and the box's total (the rest is the tail)."""
    axis = np.arange(-radius, radius + 1)
    grid = np.stack(np.meshgrid(*[axis] * d, indexing="ij"), -1).reshape(-1, d)
    weight = np.exp(-t * np.linalg.norm(grid, axis=1))
    big = np.arange(-8 * radius, 8 * radius + 1)     # the normalizer over a box 8 times wider
    wide = np.stack(np.meshgrid(*[big] * d, indexing="ij"), -1).reshape(-1, d)
    return grid, weight / np.exp(-t * np.linalg.norm(wide, axis=1)).sum()


def _chi_square(draws, t, d, radius):
    grid, p = _lattice_probabilities(t, d, radius)
    return chi_square_pvalue([tuple(k) for k in draws], [tuple(k) for k in grid], p)


@pytest.mark.parametrize("d, t, radius", [(1, Fraction(1, 2), 12), (2, Fraction(3, 4), 8), (3, Fraction(1), 5)])
def test_lattice_sampler_matches_exp_minus_t_norm(d, t, radius):
    bits = es.RandomBits(100 + d)
    draws = [es.sample_lattice_l2(t, d, bits) for _ in range(20_000)]
    assert _chi_square(draws, float(t), d, radius) > 1e-3
    wrong = [es.sample_lattice_l2(t * Fraction(11, 10), d, bits) for _ in range(20_000)]
    assert _chi_square(wrong, float(t), d, radius) < 1e-6    # the test sees a rate 10% off


def test_the_same_seed_gives_the_same_draws_on_every_machine():
    # integer arithmetic on the raw 64-bit words of PCG64(2026): no rounding anywhere, so these values are
    # those of any machine and any Python version
    bits = es.RandomBits(2026)
    draws = [es.sample_lattice_l2(Fraction(1, 1000), 4, bits) for _ in range(3)]
    assert draws == [(-426, -77, 732, 244), (868, -2026, 694, 849), (-1942, 849, -725, -3649)]
    assert bits.used == 854


def test_the_proposal_scale_is_the_least_with_ratio_at_most_one():
    for t, d in itertools.product([Fraction(1, 3), Fraction(2, 7), Fraction(10**-6).limit_denominator(10**9)],
                                  [1, 2, 12, 30]):
        N = es.proposal_scale(t, d)
        assert N * N * t * t >= d and (N - 1) ** 2 * t * t < d or N == 1


def test_bad_input_is_refused_by_name():
    bits = es.RandomBits(0)
    with pytest.raises(ValueError, match=r"t = 0 is outside the allowed range \(0, inf\)"):
        es.sample_lattice_l2(0, 2, bits)
    with pytest.raises(ValueError, match=r"d = 33 is outside the allowed range \[1, 32\] of the exact sampler"):
        es.sample_lattice_l2(Fraction(1), 33, bits)
    with pytest.raises(ValueError, match=r"x = -1 is outside the allowed range \[0, inf\)"):
        es.bernoulli_exp(-1, bits)


def test_the_operating_system_source_gives_uniform_integers():
    bits = es.RandomBits(None)
    values = [bits.below(6) for _ in range(6000)]
    assert set(values) == set(range(6)) and stats.chisquare(np.bincount(values)).pvalue > 1e-6


def test_every_bit_generator_gives_full_64_bit_words():
    # MT19937's raw words have 32 bits: the source must not read them as 64
    for bit_generator in (np.random.PCG64(3), np.random.MT19937(3), np.random.Philox(3)):
        bits = es.RandomBits(np.random.Generator(bit_generator))
        words = [bits.bits(64) for _ in range(2000)]
        high = np.array([w >> 63 for w in words])
        assert 0.45 < high.mean() < 0.55
