"""Tests of the private mean (pdp_lib.mechanisms.private_mean) against independent truths.

The calibration against every point's bound in rationals; the exact release's pair loss from the closed-form law of a
rounded Laplace, for the worst neighbour of the smallest level; the moments of many exact draws against the
Laplace and Gaussian mechanisms; the floating-point path against NumPy's draw; reproducibility; refusals.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import pdp_lib
from pdp_lib.curves import tolerated_gaussian_mus
from pdp_lib.mechanisms import private_mean as P


def _problem(n=50, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, n), rng.choice([0.05, 0.3, 1.0, 2.0], n)


def _exact_mean(y, w):
    return sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(w, y)) / sum(Fraction(float(a)) for a in w)


@pytest.mark.parametrize("seed", range(3))
def test_every_point_gets_its_level_on_the_grid(seed):
    y, eps = _problem(seed=seed)
    cal = P.mean_calibration(eps)
    gamma, S = Fraction(1, 2**cal.step_exponent), sum(Fraction(float(e)) for e in eps)
    eta = cal.rate / gamma                                   # eta' = rate per step / step
    for e in eps:                                            # the centre moves by at most 2 w_i + gamma
        assert eta * (2 * Fraction(float(e)) / S + gamma) <= Fraction(float(e))
    assert 1 / eta <= (2 / S) * (1 + Fraction(1, 2**19))     # at most a relative 2**-20 more noise, about
    mus = tolerated_gaussian_mus(eps, 1e-5)
    cal = P.mean_calibration(mus)
    gamma, M = Fraction(1, 2**cal.step_exponent), sum(Fraction(float(m)) for m in mus)
    sigma = gamma / cal.rate
    for m in mus:                                            # Gaussian: the centres' distance in sigma'
        assert (2 * Fraction(float(m)) / M + gamma) / sigma <= Fraction(float(m))


def _rounded_laplace_log_pmf(j, t):
    j = abs(j)
    if j == 0:
        return math.log(-math.expm1(-t / 2))
    return -t * (j - 0.5) + math.log(-math.expm1(-t)) - math.log(2)


def test_the_worst_neighbour_of_the_smallest_level_stays_within_its_level():
    y, eps = _problem(n=20, seed=4)
    i = int(np.argmin(eps))
    y1, y2 = y.copy(), y.copy()
    y1[i], y2[i] = -1.0, 1.0                                 # the largest move of the mean
    cal = P.mean_calibration(eps)
    gamma = Fraction(1, 2**cal.step_exponent)
    c1, c2 = (round(_exact_mean(v, eps) / gamma) for v in (y1, y2))
    t = float(cal.rate)
    worst = max(abs(_rounded_laplace_log_pmf(j - c1, t) - _rounded_laplace_log_pmf(j - c2, t))
                for j in range(min(c1, c2) - 2000, max(c1, c2) + 2000, 7))
    assert worst <= eps[i] * (1 + 1e-9)
    assert worst >= 0.95 * eps[i]                            # and the neighbour nearly reaches it


@pytest.mark.parametrize("delta", [None, 1e-5])
def test_exact_draws_have_the_mechanisms_moments(delta):
    y, eps = _problem(n=200, seed=1)
    w = eps if delta is None else tolerated_gaussian_mus(eps, delta)
    m, S = float(w @ y / w.sum()), float(w.sum())
    draws = np.array([P.private_mean(y, eps, rng=k, delta=delta) for k in range(3000)])
    var = (8 if delta is None else 4) / S**2
    assert abs(draws.mean() - m) < 5 * math.sqrt(var / draws.size)
    assert draws.var() == pytest.approx(var, rel=0.12)


def test_the_release_is_on_the_grid_reproducible_and_the_float_path_is_numpy():
    y, eps = _problem()
    cal = P.mean_calibration(eps)
    value = pdp_lib.private_mean(y, eps, rng=7)
    assert value == pdp_lib.private_mean(y, eps, rng=7)
    assert (Fraction(value) * 2**cal.step_exponent).denominator == 1
    gen = np.random.default_rng(3)
    expected = float(eps @ y / eps.sum() + gen.laplace(scale=2 / eps.sum()))
    assert pdp_lib.private_mean(y, eps, rng=3, sampler="float") == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("kwargs, match", [
    ({"y": [0.5, 1.5]}, "y"),
    ({"epsilons": [1.0]}, "epsilons"),
    ({"delta": 1.0}, "delta"),
    ({"sampler": "fast"}, "sampler"),
])
def test_bad_input_is_refused_by_name(kwargs, match):
    args = {"y": [0.5, -0.5], "epsilons": [1.0, 2.0], **kwargs}
    with pytest.raises(ValueError, match=match):
        pdp_lib.private_mean(args.pop("y"), args.pop("epsilons"), rng=0, **args)
