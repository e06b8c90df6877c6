"""Privacy profiles (pdp_lib.curves): the ℓ2 profile by independent quadrature and Monte Carlo in d = 12 and 50,
the Gaussian profile and its inverse against their definition and the classical bound."""

import numpy as np
import pytest
from scipy import integrate, special, stats

import pdp_lib
from pdp_lib.curves import SAFETY, gaussian_privacy_profile, l2_privacy_profile, largest_gaussian_mu


def _polar_definition(eps_prime, d, a):
    r"""E_0[(1 - e^{eps' - L})_+] in polar coordinates about the axis of v, without the Beta law of T.

    The density of o = (r, theta) under P_0 (eta = 1) is r^{d-1} e^{-r} sin^{d-2}(theta) / (Gamma(d) S),
    S = int_0^pi sin^{d-2} = sqrt(pi) Gamma((d-1)/2) / Gamma(d/2); the loss is ||o - v|| - r.
    """
    log_norm = special.gammaln(d) + 0.5 * np.log(np.pi) + special.gammaln((d - 1) / 2) - special.gammaln(d / 2)

    def f(theta, r):
        loss = np.sqrt(r * r - 2 * r * a * np.cos(theta) + a * a) - r
        gain = max(0.0, 1 - np.exp(eps_prime - loss))   # 0 only at the lower end, up to rounding
        return gain * np.exp((d - 1) * np.log(r) - r + (d - 2) * np.log(np.sin(theta)) - log_norm)

    def start(r):
        # the loss grows with theta and exceeds eps' iff cos(theta) < (a^2 - 2 r eps' - eps'^2) / (2 r a):
        # integrating from there keeps the kink of (.)_+ out of the integrand
        c = (a * a - 2 * r * eps_prime - eps_prime**2) / (2 * r * a) if r > 0 else 1.0
        return float(np.arccos(np.clip(c, -1.0, 1.0)))

    top = stats.gamma(d).isf(1e-16)
    value, error = integrate.dblquad(f, 0, top, start, np.pi, epsabs=1e-11, epsrel=1e-8)
    assert error < 1e-9
    return value


@pytest.mark.parametrize("d, a, e", [(12, 1.0, 0.0), (12, 1.0, 0.4), (50, 2.0, 0.0), (50, 2.0, 1.0)])
def test_l2_profile_is_its_definition_by_independent_quadrature(d, a, e):
    assert l2_privacy_profile(e, d, a) == pytest.approx(_polar_definition(e, d, a), abs=1e-8)


@pytest.mark.parametrize("d, a, e", [(50, 1.0, 0.2), (50, 3.0, 1.0)])
def test_l2_profile_agrees_with_monte_carlo_in_d50(d, a, e):
    Z = pdp_lib.sample_l2_laplace(1.0, d, size=300_000, rng=np.random.default_rng(50 + int(10 * a)))
    v = np.zeros(d)
    v[0] = a
    loss = np.linalg.norm(Z - v, axis=1) - np.linalg.norm(Z, axis=1)
    x = np.maximum(0.0, 1 - np.exp(e - loss))
    assert abs(x.mean() - l2_privacy_profile(e, d, a)) <= 5 * x.std() / np.sqrt(x.size)


def _gaussian_definition(eps_prime, mu):
    """E_0[(1 - e^{eps' - L})_+] with L ~ N(mu^2 / 2, mu^2) under P_0 (the Gaussian loss), by quadrature."""
    f = lambda l: (1 - np.exp(eps_prime - l)) * stats.norm.pdf(l, mu * mu / 2, mu)    # noqa: E731
    return integrate.quad(f, eps_prime, mu * mu / 2 + 40 * mu, epsabs=1e-14, epsrel=1e-11, limit=200)[0]


@pytest.mark.parametrize("mu", [0.05, 0.3, 1.0, 4.0])
def test_gaussian_profile_is_its_definition(mu):
    for e in (0.0, 0.1, 0.5 * mu * mu + 0.3 * mu, 2.0):
        assert gaussian_privacy_profile(e, mu) == pytest.approx(_gaussian_definition(e, mu), abs=1e-12, rel=1e-8)
    # at eps' = 0 it is the total variation distance of N(0, 1) and N(mu, 1)
    assert gaussian_privacy_profile(0.0, mu) == pytest.approx(2 * stats.norm.cdf(mu / 2) - 1, rel=1e-12)


@pytest.mark.parametrize("eps, delta", [(0.01, 1e-5), (0.2, 1e-5), (1.0, 1e-5), (1.0, 1e-8), (3.0, 1e-3)])
def test_largest_gaussian_mu_meets_delta_and_beats_the_classical_calibration(eps, delta):
    mu = largest_gaussian_mu(eps, delta)                  # aims at delta (1 - SAFETY), from below
    assert gaussian_privacy_profile(eps, mu) <= delta
    assert gaussian_privacy_profile(eps, mu) == pytest.approx(delta, rel=2 * SAFETY)
    assert gaussian_privacy_profile(eps, mu * (1 + 1e-6)) > delta
    if eps < 1:   # Dwork & Roth's sigma = sqrt(2 log(1.25 / delta)) / eps is (eps, delta)-DP: a smaller mu
        assert mu >= eps / np.sqrt(2 * np.log(1.25 / delta))


def test_a_known_value_of_the_analytic_gaussian():
    # sigma(eps = 1, delta = 1e-5) of Balle & Wang's analytic Gaussian mechanism, to the digits they tabulate
    assert 1 / largest_gaussian_mu(1.0, 1e-5) == pytest.approx(3.73, abs=0.005)


@pytest.mark.parametrize("call, match", [
    (lambda: gaussian_privacy_profile(-1.0, 1.0), r"eps_prime = -1.0 is outside the allowed range \[0, inf\)"),
    (lambda: gaussian_privacy_profile(0.1, 0.0), r"mu = 0.0 is outside the allowed range \(0, inf\)"),
    (lambda: largest_gaussian_mu(1.0, 1.0), r"delta = 1.0 is outside the allowed range \(0, 1\)"),
    (lambda: largest_gaussian_mu(0.0, 1e-5), r"epsilon = 0.0 is outside the allowed range \(0, inf\)"),
])
def test_bad_input_is_refused_by_name(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_a_hard_case_against_forty_digit_arithmetic():
    # d = 2, eps' = 1, a just above 1: the profile (1e-8) is the difference of two probabilities near 1e-3.
    # The reference is the same two integrals evaluated with mpmath at 40 significant digits
    # (betainc and quad at mp.dps = 40): 9.99999102658005e-9.
    assert l2_privacy_profile(1.0, 2, 1.00000841310872) == pytest.approx(9.99999102658005e-9, rel=1e-5)
    a = pdp_lib.curves.largest_loss_range(1.0, 1e-8, 2)
    assert l2_privacy_profile(1.0, 2, a) <= 1e-8          # the calibration errs on the safe side
    assert l2_privacy_profile(1.0, 2, a * (1 + 1e-5)) > 1e-8


def test_tolerated_loss_ranges_keep_every_point_within_its_pair():
    from pdp_lib.curves import largest_loss_range, tolerated_loss_ranges
    rng = np.random.default_rng(21)
    eps = np.concatenate([rng.uniform(0.01, 0.2, 60), rng.uniform(0.2, 1.0, 60), np.full(20, 1.0)])
    delta, d = 1e-5, 12
    ranges = tolerated_loss_ranges(eps, delta, d)                 # 121 distinct levels: the lattice
    assert np.all(ranges >= eps)
    for i in rng.choice(eps.size, 12, replace=False):
        exact = largest_loss_range(eps[i], delta, d)
        assert l2_privacy_profile(eps[i], d, ranges[i]) <= delta
        assert exact / 1.03 <= ranges[i] <= exact                 # measured: within 3% of the exact range here
    few = tolerated_loss_ranges(np.repeat([0.01, 0.2, 1.0], 5), delta, d)   # 3 levels: exact
    # exact per level: the same root as a direct search, to the root finder's tolerance (a remembered
    # search may have started from another bracket)
    assert few[0] == pytest.approx(largest_loss_range(0.01, delta, d), rel=1e-11)
    assert few[-1] == pytest.approx(largest_loss_range(1.0, delta, d), rel=1e-11)


def test_the_vectorized_gaussian_inverse_is_the_scalar_root():
    from scipy import optimize
    from pdp_lib.curves import tolerated_gaussian_mus
    eps = np.array([1e-3, 0.01, 0.2, 1.0, 5.0])
    mus = tolerated_gaussian_mus(eps, 1e-6)
    for e, m in zip(eps, mus):
        target = 1e-6 * (1 - SAFETY)
        root = optimize.brentq(lambda x: gaussian_privacy_profile(e, x) - target, 1e-6, 50, xtol=1e-15, rtol=1e-14)
        assert m == pytest.approx(root, rel=1e-12) and gaussian_privacy_profile(e, m) <= 1e-6


def test_least_stretch_is_the_brute_force_minimum():
    from pdp_lib.curves import largest_loss_range, least_stretch
    eps = np.random.default_rng(5).uniform(0.05, 2.0, 70)          # 70 distinct levels: the lattice path
    brute = min(largest_loss_range(e, 1e-6, 5) / e for e in eps)
    # the same root, found from another bracket: equal to the root finder's tolerance (1e-12 relative)
    assert least_stretch(eps, 1e-6, 5) == pytest.approx(brute, rel=2e-12)


@pytest.mark.parametrize("d", [2, 3, 12])
def test_the_loss_range_errs_on_the_safe_side(d):
    from pdp_lib.curves import _l2_profile_and_error, largest_loss_range
    for eps in (0.0674, 0.2, 1.0):
        for delta in (1e-5, 1e-8):
            a = largest_loss_range(eps, delta, d)
            value, error = _l2_profile_and_error(eps, d, a)
            assert value + error <= delta
