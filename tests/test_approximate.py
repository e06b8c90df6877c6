"""PDP-OP under approximate DP (pdp_lib.approximate): the ℓ2 mechanism's privacy profile against independent truths."""

import numpy as np
import pytest
from scipy import integrate

import pdp_lib
from pdp_lib.approximate import (approximate_calibration, l2_privacy_profile, laplace_privacy_profile,
                                 largest_loss_range, point_profile)
from pdp_lib.bounds import noise_scale


def _definition_d1(eps_prime, a):
    """E_0[(1 - exp(eps' - L))_+] for Laplace noise of scale 1, L = |o - a| - |o|, on the real line."""
    f = lambda o: max(0.0, 1 - np.exp(eps_prime - (abs(o - a) - abs(o)))) * 0.5 * np.exp(-abs(o))  # noqa: E731
    return sum(integrate.quad(f, lo, hi, epsabs=1e-13, limit=200)[0]
               for lo, hi in ((-np.inf, 0.0), (0.0, a), (a, np.inf)))


def _definition_d2(eps_prime, a):
    """The same in the plane, in polar coordinates: density exp(-r) / (2 pi)."""
    def f(phi, r):
        o = np.array([r * np.cos(phi), r * np.sin(phi)])
        loss = np.hypot(o[0] - a, o[1]) - r
        return max(0.0, 1 - np.exp(eps_prime - loss)) * np.exp(-r) / (2 * np.pi) * r
    return integrate.dblquad(f, 0, 60, 0, 2 * np.pi, epsabs=1e-10, epsrel=1e-9)[0]


def _definition_d3(eps_prime, a):
    """The same in space, symmetric about the axis of v: density exp(-r) / (8 pi)."""
    def f(theta, r):
        loss = np.sqrt(r * r - 2 * r * a * np.cos(theta) + a * a) - r
        return max(0.0, 1 - np.exp(eps_prime - loss)) * np.exp(-r) / (8 * np.pi) * r * r * 2 * np.pi * np.sin(theta)
    return integrate.dblquad(f, 0, 60, 0, np.pi, epsabs=1e-10, epsrel=1e-9)[0]


@pytest.mark.parametrize("a", [0.1, 1.0, 3.0])
def test_laplace_profile_is_its_definition(a):
    for e in (0.0, 0.25 * a, 0.9 * a):
        assert laplace_privacy_profile(e, a) == pytest.approx(_definition_d1(e, a), abs=1e-10)
        assert l2_privacy_profile(e, 1, a) == laplace_privacy_profile(e, a)


@pytest.mark.parametrize("d, definition", [(2, _definition_d2), (3, _definition_d3)])
@pytest.mark.parametrize("a", [0.3, 2.5])
def test_the_profile_is_its_definition_by_independent_quadrature(d, definition, a):
    for e in (0.0, 0.6 * a):
        assert l2_privacy_profile(e, d, a) == pytest.approx(definition(e, a), abs=2e-8)


@pytest.mark.parametrize("d, a, e", [(2, 1.0, 0.3), (5, 0.5, 0.1), (12, 1.0, 0.3), (30, 2.0, 0.5)])
def test_the_profile_agrees_with_monte_carlo_on_the_librarys_sampler(d, a, e):
    Z = pdp_lib.sample_l2_laplace(1.0, d, size=300_000, rng=np.random.default_rng(d))
    v = np.zeros(d)
    v[0] = a
    loss = np.linalg.norm(Z - v, axis=1) - np.linalg.norm(Z, axis=1)
    x = np.maximum(0.0, 1 - np.exp(e - loss))
    assert abs(x.mean() - l2_privacy_profile(e, d, a)) <= 5 * x.std() / np.sqrt(x.size)


def test_the_profile_is_zero_at_the_pure_level_and_monotone():
    for d in (1, 2, 7, 30):
        for a in (0.2, 1.0, 4.0):
            assert l2_privacy_profile(a, d, a) == 0.0 and l2_privacy_profile(2 * a, d, a) == 0.0
            grid = np.linspace(0, a, 9)
            values = [l2_privacy_profile(e, d, a) for e in grid]
            assert all(x >= y - 1e-12 for x, y in zip(values, values[1:]))      # falls with eps'
            assert l2_privacy_profile(0.5 * a, d, 1.5 * a) >= l2_privacy_profile(0.5 * a, d, a)
    # a point of PDP-OP: its loss range is its own level, whatever lambda, the data or the other levels
    assert point_profile(0.05, 12, 0.2) == l2_privacy_profile(0.05, 12, 0.2)


@pytest.mark.parametrize("eps, delta", [(0.1, 1e-5), (1.0, 1e-3), (0.5, 0.05)])
def test_largest_loss_range_in_d1_is_the_closed_form(eps, delta):
    # 1 - exp((eps - a) / 2) = delta  <=>  a = eps - 2 log(1 - delta); the search aims at delta (1 - SAFETY)
    from pdp_lib.curves import SAFETY
    a = largest_loss_range(eps, delta, 1)
    assert a == pytest.approx(eps - 2 * np.log1p(-delta * (1 - SAFETY)), rel=1e-10)
    assert a <= eps - 2 * np.log1p(-delta)


@pytest.mark.parametrize("d", [2, 12])
def test_largest_loss_range_meets_delta(d):
    for eps, delta in ((0.2, 1e-5), (1.0, 1e-3)):
        a = largest_loss_range(eps, delta, d)
        assert a > eps
        assert l2_privacy_profile(eps, d, a) == pytest.approx(delta, rel=1e-6)
        assert l2_privacy_profile(eps, d, a * (1 + 1e-6)) > delta


def test_approximate_calibration_gives_every_point_its_pair():
    eps = np.random.default_rng(3).permutation(np.repeat([0.01, 0.2, 1.0], [100, 120, 80]))
    d, lam, delta = 5, 2.0, 1e-5
    cal = approximate_calibration(eps, lam, d, delta)
    C = noise_scale(lam, d)
    ranges = cal.eta * cal.weights * C
    levels, first = np.unique(eps, return_index=True)        # a point's range depends on its level
    assert np.allclose(ranges, ranges[first][np.searchsorted(levels, eps)], rtol=1e-13)
    profiles = {e: l2_privacy_profile(e, d, ranges[i]) for e, i in zip(levels, first)}
    assert all(p <= delta * (1 + 1e-6) for p in profiles.values())
    assert profiles[eps[cal.binding]] == pytest.approx(delta, rel=1e-6)
    assert cal.gain > 1 and cal.pure_eta == pytest.approx(pdp_lib.calibrate(eps, lam, d).eta, rel=1e-15)
    # in d = 1 the gain is min_i (1 - 2 log(1 - delta) / eps_i): at the largest level
    one = approximate_calibration(eps, lam, 1, delta)
    assert one.gain == pytest.approx(1 - 2 * np.log1p(-delta) / eps.max(), rel=1e-9)


@pytest.mark.parametrize("call, match", [
    (lambda: l2_privacy_profile(-0.1, 2, 1.0), r"eps_prime = -0.1 is outside the allowed range \[0, inf\)"),
    (lambda: l2_privacy_profile(0.1, 2, 0.0), r"a = 0.0 is outside the allowed range \(0, inf\)"),
    (lambda: l2_privacy_profile(0.1, 0, 1.0), r"d = 0"),
    (lambda: largest_loss_range(1.0, 0.0, 2), r"delta = 0.0 is outside the allowed range \(0, 1\)"),
    (lambda: largest_loss_range(1.0, 1.0, 2), r"delta = 1.0"),
    (lambda: approximate_calibration([0.5, -1.0], 1.0, 2, 1e-5), r"epsilons\[1\]"),
])
def test_bad_input_is_refused_by_name(call, match):
    with pytest.raises(ValueError, match=match):
        call()
