"""Jorgensen's exact release and the exact default paths: one public lattice, exact coins, no floating-point draw.

* the exact privacy loss of Jorgensen's release (``pdp_lib.audit.jorgensen_lattice_loss``: every lattice output
  between the centres, certified tails) on small datasets, at most each point's level, and the same computation on
  lattices chosen per sample (the release as it was) above it: the negative control;
* the keep/drop coin's decision against a rational threshold computed independently (``decimal``, 120 digits),
  for probabilities above and far below ``2**-53``, and its frequency;
* a tripwire: every exact entry point of ``pdp_lib``, with a seed, a Generator and ``rng=None``, runs with every
  floating-point draw of NumPy's Generator made to raise.
"""

from __future__ import annotations

import itertools
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest

import pdp_lib
from pdp_lib.audit import jorgensen_lattice_loss
from pdp_lib.mechanisms import baselines
from pdp_lib.mechanisms.exact_sampling import RandomBits, bernoulli_expm1_ratio, expm1_bounds


# the examples of the privacy bug's report (n = 2, d = 1; the other point at the threshold, so always kept), and
# three-point datasets with two random points: point 0's label flipped, or its row replaced by the far corner
CASES_2 = [(0.1, 1.0, 1.0), (0.05, 2.0, 1.0), (0.5, 5.0, 0.5)]


@pytest.mark.parametrize("eps_i, t, lam", CASES_2)
@pytest.mark.parametrize("x, y", [((1.0, 1.0), (1.0, 1.0)), ((1.0, 0.5), (1.0, -0.5)), ((0.25, 1.0), (1.0, -1.0))])
def test_the_exact_jorgensen_release_spends_at_most_each_level_n2(eps_i, t, lam, x, y):
    X, y = np.array(x)[:, None], np.array(y)
    y2 = y.copy()
    y2[0] = -y2[0]
    eps = [eps_i, t]
    loss = jorgensen_lattice_loss(X, y, X, y2, eps, lam, t)
    assert loss <= eps_i
    # negative control: the lattice chosen from each sample's size leaks more, and on the first two datasets (the
    # report's) by more than the level
    old = jorgensen_lattice_loss(X, y, X, y2, eps, lam, t, public_lattice=False)
    assert old > loss
    if x[0] == 1.0:
        assert old > eps_i


@pytest.mark.parametrize("seed", range(3))
def test_the_exact_jorgensen_release_spends_at_most_each_level_n3(seed):
    rng = np.random.default_rng(seed)
    X = np.concatenate([[[1.0]], rng.random((2, 1))])
    y = np.concatenate([[1.0], rng.uniform(-1, 1, 2)])
    eps = np.array([0.2, float(rng.uniform(0.3, 1.0)), 1.5])
    t = 1.5
    for X2, y2 in ((X, np.concatenate([[-1.0], y[1:]])), (np.concatenate([[[0.25]], X[1:]]), np.concatenate([[-1.0], y[1:]]))):
        # point 0's row changed: its level bounds the loss; the lattices chosen per sample leak more
        loss = jorgensen_lattice_loss(X, y, X2, y2, eps, 1.0, t)
        assert loss <= eps[0]
        assert jorgensen_lattice_loss(X, y, X2, y2, eps, 1.0, t, public_lattice=False) > loss


def test_the_public_lattice_is_the_finest_any_sample_needs():
    from pdp_lib.mechanisms.lattice import lattice_calibration, rounds_bound

    for n, t, lam, d in [(2, 1.0, 1.0, 1), (50, 0.3, 0.1, 3), (1000, 2.0, 10.0, 12)]:
        g = baselines.jorgensen_step_exponent(n, t, lam, d)
        own = [lattice_calibration(float(k * t), t, rounds_bound(k), lam, d).step_exponent for k in range(1, n + 1)]
        assert g == max(own) == own[-1]
        with pytest.raises(ValueError, match="step_exponent"):
            lattice_calibration(float(n * t), t, rounds_bound(n), lam, d, step_exponent=g - 1)


def test_every_release_is_on_the_public_lattice_whatever_was_kept():
    rng = np.random.default_rng(2)
    X, y = rng.random((6, 2)), rng.uniform(-1, 1, 6)
    eps = np.array([0.05, 0.1, 0.2, 0.4, 0.8, 1.6])
    g = baselines.jorgensen_step_exponent(6, 1.6, 1.0, 2)
    sizes = set()
    for seed in range(40):
        theta, mask = baselines.jorgensen(X, y, eps, 1.0, rng=seed, return_mask=True)
        sizes.add(int(mask.sum()))
        assert all((Fraction(v) * (1 << g)).denominator == 1 for v in theta)
    assert len(sizes) >= 2


class _Bits(RandomBits):
    """Uniform bits from a given integer, most significant 64-bit word first."""

    def __init__(self, value: int, words: int):
        super().__init__(0)
        self._words = [(value >> (64 * (words - 1 - j))) & ((1 << 64) - 1) for j in range(words)]

    def bits(self, k: int) -> int:
        assert k == 64
        return self._words.pop(0)


def _p(eps, t) -> Decimal:
    getcontext().prec = 1000
    return (Decimal(eps).exp() - 1) / (Decimal(t).exp() - 1)


@pytest.mark.parametrize("eps, t", [(0.5, 1.0), (0.1, 40.0), (0.01, 50.0), (1e-3, 700.0), (0.3, 0.30000000000000004)])
def test_the_coin_decides_against_the_exact_probability(eps, t):
    p = _p(eps, t)
    words = 2 + int(-p.log10() * Decimal(np.log2(10))) // 64       # at least 64 bits of p past its leading zeros
    scaled = p * (Decimal(2) ** (64 * words))
    v = int(scaled)                              # floor(p 2**(64 words)): U's prefix against p
    assert Decimal(v) < scaled < Decimal(v + 1)
    assert bernoulli_expm1_ratio(eps, t, _Bits(v - 1, words)) is True     # U < v / 2**(64 words) < p
    assert bernoulli_expm1_ratio(eps, t, _Bits(v + 1, words)) is False    # U >= (v + 1) / 2**(64 words) > p
    if eps < 1 and t > 30:
        assert float(_p(eps, t)) < 2.0 ** -53                           # a double-precision uniform could not do it


def test_expm1_bounds_bracket_the_value():
    getcontext().prec = 1000
    for x in [1e-300, 1e-9, 0.1, 0.5, 0.75, 3.0, 40.0, 700.0]:
        lo, hi = expm1_bounds(x, 100)
        ref = Decimal(x).exp() - 1
        assert Decimal(lo.numerator) / lo.denominator <= ref <= Decimal(hi.numerator) / hi.denominator
        assert (hi - lo) <= lo * Fraction(1, 1 << 100)


def test_the_coin_frequency():
    bits = RandomBits(11)
    p = float(_p(0.4, 1.0))
    hits = sum(bernoulli_expm1_ratio(0.4, 1.0, bits) for _ in range(20000))
    assert abs(hits - 20000 * p) <= 4 * np.sqrt(20000 * p * (1 - p))


# --- the tripwire ---------------------------------------------------------------------------------------------

_ALLOWED = {"integers", "bit_generator", "spawn"}     # integer draws only: what RandomBits and seeding use


def _refuse(name):
    def draw(*args, **kwargs):
        raise AssertionError(f"a default release drew a floating-point number: {name}")
    return draw


class _NoFloats(np.random.Generator):
    """A Generator whose every public method but integer draws raises."""

    def __getattribute__(self, name):
        if not name.startswith("_") and name not in _ALLOWED:
            raise AssertionError(f"a default release drew a floating-point number: Generator.{name}")
        return super().__getattribute__(name)


class _NoRandomState(np.random.RandomState):
    """NumPy's legacy generator, refused at construction (a class still, for the type hints that name it)."""

    def __init__(self, *args, **kwargs):
        raise AssertionError("a default release drew a floating-point number: numpy.random.RandomState")


def _arm(monkeypatch):
    """Every floating-point source a release could reach raises: Generators (made by default_rng or by the class),
    NumPy's legacy functions and RandomState, and the standard library's random module."""
    import random

    monkeypatch.setattr(np.random, "default_rng", lambda seed=None: _NoFloats(np.random.PCG64(seed)))
    monkeypatch.setattr(np.random, "Generator", _NoFloats)
    monkeypatch.setattr(np.random, "RandomState", _NoRandomState)
    for name in ("random", "rand", "randn", "uniform", "normal", "standard_normal", "exponential", "laplace",
                 "gamma", "beta", "random_sample", "ranf", "sample", "choice", "permutation", "shuffle"):
        monkeypatch.setattr(np.random, name, _refuse(f"numpy.random.{name}"))
    for name in ("random", "uniform", "gauss", "normalvariate", "expovariate", "betavariate", "gammavariate",
                 "triangular", "lognormvariate", "vonmisesvariate", "paretovariate", "weibullvariate", "choices",
                 "sample", "shuffle"):
        monkeypatch.setattr(random, name, _refuse(f"random.{name}"))


def _entry_points():
    rng = np.random.default_rng(0)
    X, y = rng.random((40, 3)), rng.uniform(-1, 1, 40)
    eps = rng.choice([0.1, 0.5, 2.0], 40)
    from pdp_lib.mechanisms import adassp, gaussian, noisy_gd, private_mean, private_selection, ssp, threshold

    return {
        "pdp_op": lambda r: pdp_lib.pdp_op(X, y, eps, 1.0, rng=r),
        "pdp_op delta": lambda r: pdp_lib.pdp_op(X, y, eps, 1.0, rng=r, delta=1e-5),
        "non_personalized": lambda r: baselines.non_personalized(X, y, eps, 1.0, rng=r),
        "jorgensen max": lambda r: baselines.jorgensen(X, y, eps, 1.0, rng=r),
        "jorgensen mean": lambda r: baselines.jorgensen(X, y, eps, 1.0, "mean", rng=r),
        "threshold_dp": lambda r: threshold.threshold_dp(X, y, eps, 1.0, rng=r),
        "gaussian_mechanism": lambda r: gaussian.gaussian_mechanism(X, y, eps, 1.0, 1e-5, rng=r),
        "ssp": lambda r: ssp.ssp(X, y, eps, 1.0, rng=r),
        "private_mean": lambda r: private_mean.private_mean(y, eps, rng=r),
        "private_mean delta": lambda r: private_mean.private_mean(y, eps, rng=r, delta=1e-5),
        "gaussian_ssp": lambda r: adassp.gaussian_ssp(X, y, eps, 1.0, 1e-5, rng=r),
        "adassp": lambda r: adassp.adassp(X, y, eps, 1e-5, rng=r),
        "noisy_gd": lambda r: noisy_gd.noisy_gd(X, y, eps, 1.0, 1e-5, rng=r, steps=5),
        "private_selection": lambda r: private_selection.private_selection(X, y, eps, [0.1, 1.0, 10.0], rng=r),
        "PersonalizedRidge": lambda r: pdp_lib.PersonalizedRidge(lam=1.0, random_state=r).fit(X, y, epsilons=eps),
    }


@pytest.mark.parametrize("name", list(_entry_points()))
def test_no_default_release_draws_a_floating_point_number(name, monkeypatch):
    release = _entry_points()[name]
    _arm(monkeypatch)
    for r in (3, None, _NoFloats(np.random.PCG64(5))):
        release(r)


def test_the_tripwire_fires_on_the_floating_point_paths_and_on_every_float_source(monkeypatch):
    import random

    rng = np.random.default_rng(0)
    X, y, eps = rng.random((10, 2)), rng.uniform(-1, 1, 10), np.full(10, 0.5)
    _arm(monkeypatch)
    with pytest.raises(AssertionError, match="floating-point"):
        pdp_lib.pdp_op(X, y, eps, 1.0, rng=1, sampler="float")
    with pytest.raises(AssertionError, match="floating-point"):
        baselines.jorgensen(X, y, np.linspace(0.1, 1, 10), 1.0, rng=1, sampler="float")
    g = np.random.default_rng(2)
    for draw in (lambda: g.random(), lambda: g.standard_t(3), lambda: g.logistic(), lambda: g.gumbel(),
                 lambda: g.binomial(3, 0.5), lambda: g.standard_cauchy(),
                 lambda: np.random.Generator(g.bit_generator).random(), np.random.random, np.random.rand,
                 lambda: np.random.RandomState(1), random.random, lambda: random.uniform(0, 1)):
        with pytest.raises(AssertionError, match="floating-point"):
            draw()
    assert 0 <= g.integers(0, 10) < 10                       # integer draws still work


def test_a_coin_with_a_huge_threshold_is_decided_from_its_first_bits():
    from pdp_lib.mechanisms.exact_sampling import _small_probability_exponent

    getcontext().prec = 1000
    for eps, t in [(0.1, 1.0), (0.1, 40.0), (0.01, 50.0), (3.0, 700.0)]:
        cap = _small_probability_exponent(Fraction(eps), Fraction(t))
        assert _p(eps, t) < Decimal(2) ** -cap                       # the cheap bound holds
    bits = RandomBits(7)
    assert not any(bernoulli_expm1_ratio(0.5, 1e9, bits) for _ in range(100))   # e**(1e9) never computed
    assert bits.used <= 100 * 128
