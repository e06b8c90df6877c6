"""Privacy profiles (pdp_lib.curves): the ℓ2 profile by independent quadrature and Monte Carlo in d = 12 and 50,
the Gaussian profile and its inverse against their definition and the classical bound; the ℓ2 profile and its
inverse at large levels and small delta against forty-digit quadrature, exact arithmetic (odd d) and the closed
form of d = 3, and the calibration on a grid of levels, dimensions and deltas."""

from decimal import Decimal, localcontext
from fractions import Fraction
from math import comb, factorial

import numpy as np
import pytest
from scipy import integrate, special, stats

import pdp_lib
import pdp_lib.approximate
from pdp_lib import curves
from pdp_lib.curves import SAFETY, gaussian_privacy_profile, l2_privacy_profile, largest_gaussian_mu
from pdp_lib.validation import MAX_LEVEL


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


# ---------------------------------------------------------------------------------------------------------------
# Large levels and small delta: the ℓ2 profile and its inverse for every finite epsilon > 0 and delta in (0, 1).
# The quadrature used to compute e^eps P_v(L > eps) as P_v times e^eps, whose error grew by e^eps (an
# ArithmeticError from epsilon of about 12 on), to drop P_v beyond the Gamma law's 1e-17 quantile, and to lose the
# digits of a^2 - eps^2 for a just above eps (d = 2 with delta = 1e-12).  The truths below are independent of it:
# exact rational arithmetic for odd d, forty-digit quadrature for even d, and the closed form of d = 3.

GRID_D = (1, 2, 3, 12, 50)
GRID_DELTA = (1e-3, 1e-5, 1e-8, 1e-12)
GRID_EPS = (1e-4, 0.01, 0.1, 1.0, 12.0, 15.0, 20.0, 50.0, MAX_LEVEL)


@pytest.mark.parametrize("delta", GRID_DELTA)
@pytest.mark.parametrize("d", GRID_D)
def test_every_level_of_the_grid_is_calibrated_and_needs_no_more_noise_than_pure(d, delta):
    # every (epsilon_i, d, delta) of the grid is calibrated (none is refused: no corner of (0, inf) x (0, 1)
    # is), on the safe side of its own certificate, and with at least the pure eta: a*(epsilon) >= epsilon
    # (largest_loss_range), hence eta >= eta_pure with either weighting (ApproximateCalibration.gain >= 1)
    from pdp_lib.curves import _l2_profile_and_error, largest_loss_range
    for eps in GRID_EPS:
        a = largest_loss_range(eps, delta, d)
        assert np.isfinite(a) and a >= eps
        if d > 1 and a > eps:
            value, error = _l2_profile_and_error(eps, d, a)
            assert value + error <= delta * (1 - SAFETY)
        pure = pdp_lib.calibrate([eps], 1.0, d).eta
        for weighting in ("optimal", "epsilon"):
            cal = pdp_lib.calibrate([eps], 1.0, d, delta=delta, weighting=weighting)
            assert np.isfinite(cal.eta) and cal.eta >= pure
    levels = np.repeat(GRID_EPS, 3)
    pure = pdp_lib.calibrate(levels, 1.0, d)
    for weighting in ("optimal", "epsilon"):
        assert pdp_lib.calibrate(levels, 1.0, d, delta=delta, weighting=weighting).eta >= pure.eta
    assert pdp_lib.approximate.approximate_calibration(levels, 1.0, d, delta).gain >= 1


def test_the_reported_failure_is_calibrated():
    # calibrate(levels, lam, 12, delta=1e-5) with a level of 20 raised ArithmeticError (the quadrature's error
    # estimate, 6e-10, above the 1e-10 accepted at a = 40, while the bracket grew); the profile there is
    # 0.96152585123534639852 to forty digits (see below)
    from pdp_lib.curves import _l2_profile_and_error
    levels = np.array([0.5, 1.0, 20.0])
    cal = pdp_lib.calibrate(levels, 0.1, 12, delta=1e-5)
    assert cal.eta >= pdp_lib.calibrate(levels, 0.1, 12).eta
    value, error = _l2_profile_and_error(20.0, 12, 40.0)
    assert abs(value - 0.96152585123534639852) <= error <= 1e-12


# The two integrals of the book's proposition prop-l2-profile, thresholds as printed there (t_0, t_1), evaluated by
# mpmath 1.4.1 at 40 significant digits (mp.quad, mp.betainc; the Gamma density times e^eps in logarithms, split
# at s/2, m, 1, d, 2d + 10, 4d + 40, 8d + 120), at the floats given: (eps', d, a) -> delta(eps'; d, a).
FORTY_DIGITS = [
    (20.0, 2, 20.0011, 1.0052998163207769938e-5),
    (100.0, 2, 100.001, 8.4705779612971590372e-6),
    (12.0, 2, 24.0, 0.99351013034964618679),
    (50.0, 2, 50.05, 0.0029722717251707531067),
    (1.0, 2, 1.0000000181, 9.9789528313781366802e-13),
    (0.1, 2, 0.1000000024, 1.1677223855162751059e-13),
    (20.0, 12, 40.0, 0.96152585123534639852),
    (20.0, 12, 20.9, 9.115284659194888117e-6),
    (100.0, 12, 101.1, 9.4422428713843834337e-6),
    (15.0, 12, 15.8, 6.93308878470776581e-6),
    (50.0, 12, 51.0, 7.2734298625548605266e-6),
    (1e-4, 12, 1.06e-4, 6.1802868822964675542e-13),
    (20.0, 50, 28.8, 9.6252796930614994244e-6),
    (100.0, 50, 115.0, 8.7396038099436735037e-6),
    (50.0, 50, 62.0, 3.776116234015854952e-6),
    (15.0, 50, 22.5, 8.6105243400690523062e-6),
]


@pytest.mark.parametrize("e, d, a, truth", FORTY_DIGITS)
def test_the_profile_at_large_levels_is_the_forty_digit_value_within_its_bound(e, d, a, truth):
    from pdp_lib.curves import _l2_profile_and_error
    value, error = _l2_profile_and_error(e, d, a)
    assert abs(value - truth) <= error
    assert error <= 1e-12 and value == l2_privacy_profile(e, d, a)


def _exact_odd_profile(c, d, a, digits=50):
    r"""delta(c; d, a) for odd d >= 3 in exact rational arithmetic, but for e^{-s/2} and P(d, s/2) (Decimal).

    For odd d, h = (d - 1)/2 is an integer and I_x(h, h) = sum_{j=h}^{n} C(n, j) x^j (1 - x)^{n-j}, n = d - 2.
    With s = a - c, m = (a + c)/2 and the thresholds x_0 = s(m + r)/(2ar), 1 - x_0 = m(2r - s)/(2ar) (r > s/2)
    and x_1 = s u/(2a(m + u)), 1 - x_1 = m(a + u)/(a(m + u)) (r = m + u) of pdp_lib.curves._profile_terms, both
    integrands are e^{-r} times polynomials, so with t = r - s/2:
    delta = P(d, s/2) + e^{-s/2} / ((2a)^n (d-1)!) sum_j C(n, j) s^j (2m)^{n-j} (A_j - B_j),
    A_j = int t^{n-j} (s/2 + t) (m + s/2 + t)^j e^{-t} dt,  B_j = int u^j (a + u)^{n-j} (m + u) e^{-u} du.
    """
    c, a = Fraction(c), Fraction(a)
    s, m = a - c, (a + c) / 2
    n, h, b = d - 2, (d - 1) // 2, m + s / 2
    total = Fraction(0)
    for j in range(h, n + 1):
        A = sum(comb(j, k) * b ** (j - k) * (s / 2 * factorial(n - j + k) + factorial(n - j + k + 1))
                for k in range(j + 1))
        B = sum(comb(n - j, k) * a ** (n - j - k) * (m * factorial(j + k) + factorial(j + k + 1))
                for k in range(n - j + 1))
        total += comb(n, j) * s ** j * (2 * m) ** (n - j) * (A - B)
    rest = total / ((2 * a) ** n * factorial(d - 1))
    with localcontext() as ctx:
        ctx.prec = digits + 20
        x = Decimal(s.numerator) / Decimal(s.denominator) / 2
        term = Decimal(1)
        for k in range(1, d + 1):
            term = term * x / k
        series, k = Decimal(0), d                  # P(d, x) = e^{-x} sum_{k >= d} x^k / k!, no cancellation
        while term >= series * Decimal(10) ** -(digits + 5):
            series += term
            k += 1
            term = term * x / k
        return float((-x).exp() * (series + Decimal(rest.numerator) / Decimal(rest.denominator)))


ODD_POINTS = [(0.5, 3, 1.0), (12.0, 3, 12.01), (20.0, 3, 40.0), (100.0, 3, 100.5), (1e6, 3, 1e6 + 0.25),
              (1.0, 5, 1.3), (50.0, 5, 50.4), (1e6, 5, 1e6 + 0.2), (0.0, 13, 0.7), (20.0, 13, 40.0),
              (20.0, 13, 20.9), (100.0, 13, 101.1), (1e-4, 13, 1.06e-4), (1000.0, 13, 1001.0),
              (15.0, 49, 22.5), (20.0, 51, 28.8), (100.0, 51, 115.0)]


@pytest.mark.parametrize("e, d, a", ODD_POINTS)
def test_odd_dimensions_against_exact_arithmetic(e, d, a):
    from pdp_lib.curves import _l2_profile_and_error, _profile_terms
    truth = _exact_odd_profile(e, d, a)
    value, error = _l2_profile_and_error(e, d, a)
    assert abs(value - truth) <= error + 1e-16 * truth         # d = 3: the closed form, to rounding
    p0, q, error = _profile_terms(e, d, a)                    # the quadrature, also where d = 3 does not use it
    assert abs(p0 - q - truth) <= error <= 1e-10


def test_the_closed_form_of_d3_is_the_quadrature():
    from pdp_lib.curves import _profile_d3, _profile_terms
    for c in (0.0, 1e-4, 0.3, 1.0, 12.0, 20.0, 100.0, 1e4):
        for s in (1e-9, 1e-4, 0.01, 0.5, 3.0, 40.0):
            p0, q, error = _profile_terms(c, 3, c + s)
            assert abs(_profile_d3(c, c + s) - (p0 - q)) <= error


@pytest.mark.parametrize("d", [3, 13, 51])
def test_the_loss_range_at_large_levels_is_tight_by_exact_arithmetic(d):
    # below delta, and close to it: the search's tolerance (1e-12 of a) and the profile's error bound are all
    # it gives away; for delta = 1e-12 the former is a visible part of a - epsilon (a few 1e-4 of delta)
    from pdp_lib.curves import largest_loss_range
    for eps in (12.0, 20.0, 50.0, 100.0):
        for delta, slack in ((1e-5, 1e-6), (1e-8, 1e-5), (1e-12, 1e-2)):
            truth = _exact_odd_profile(eps, d, largest_loss_range(eps, delta, d))
            assert delta * (1 - slack) <= truth <= delta


@pytest.mark.parametrize("d", [2, 12, 50, 400])
def test_extreme_levels_and_deltas_are_calibrated_on_the_safe_side(d):
    from pdp_lib.curves import _l2_profile_and_error, largest_loss_range
    for eps in (1e3, 1e6, 1e300, float(np.finfo(float).max)):
        for delta in (1e-15, 1e-5, 0.5, 1 - 1e-12):
            a = largest_loss_range(eps, delta, d)
            assert np.isfinite(a) and a >= eps
            if a > eps:
                value, error = _l2_profile_and_error(eps, d, a)
                assert value + error <= delta * (1 - SAFETY)
    for delta in (1e-12, 1e-5, 0.9):
        a = largest_loss_range(0.01, delta, d)
        value, error = _l2_profile_and_error(0.01, d, a)
        assert a > 0.01 and value + error <= delta * (1 - SAFETY)
    if d == 12:        # a subnormal level: a* is then the range the total variation distance allows (1e-5 here)
        assert largest_loss_range(5e-324, 1e-5, 12) == pytest.approx(8.5044e-5, rel=1e-4)


def test_tiny_levels_in_two_dimensions_against_thirty_digits():
    # mpmath at 30 digits (the profile as E_P0[(1 - e^(eps - L))_+], nested quadrature over the
    # radius and the angle): at eps = 1e-12, d = 2, a = 3.1416028901354514e-5 the profile is
    # 1.000003208e-5 to ten digits; the geometric cuts of the quadrature near r ~ a resolve it
    value, error = curves._l2_profile_and_error(1e-12, 2, 3.1416028901354514e-05)
    assert abs(value - 1.000003208e-5) <= error + 1e-14
    a = curves.largest_loss_range(1e-12, 1e-5, 2)
    assert curves.l2_privacy_profile(1e-12, 2, a) <= 1e-5 * (1 - curves.SAFETY)


def _phi_decimal(x, digits=80):
    """Phi(x) to ``digits`` digits: 1/2 + phi(x) sum_k x^(2k+1) / (2k+1)!! (Decimal; |x| moderate)."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = digits
        x = Decimal(x)
        term, total, k = x, x, 0
        while abs(term) > Decimal(10) ** (-digits):
            k += 1
            term = term * x * x / (2 * k + 1)
            total += term
        pi = Decimal("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899")
        return Decimal("0.5") + (-(x * x) / 2).exp() / (2 * pi).sqrt() * total


@pytest.mark.parametrize("delta", [1e-5, 1e-8, 1e-10, 1e-12])
def test_mu_star_keeps_delta_in_high_precision_or_is_refused(delta):
    # the book's analytic Gaussian bound: accepted levels give delta(eps; mu*) <= delta at 80 digits; levels whose
    # profile double precision cannot resolve are refused (they once returned mu* with 3e19 times delta)
    from decimal import Decimal, localcontext

    accepted = 0
    for eps in (1e-6, 1e-4, 1e-3, 0.01, 0.1, 1.0, 5.0):
        try:
            mu = float(curves.tolerated_gaussian_mus([eps], delta)[0])
        except ValueError as exc:
            assert "computed safely in double precision" in str(exc)
            continue
        accepted += 1
        with localcontext() as ctx:
            ctx.prec = 80
            e, m = Decimal(eps), Decimal(mu)
            true = _phi_decimal(m / 2 - e / m) - e.exp() * _phi_decimal(-m / 2 - e / m)
            assert true <= Decimal(delta)
    assert accepted >= 4
    for eps, small in [(1e-12, 1e-50), (1e-12, 1e-20), (3e-11, 1e-14)]:
        with pytest.raises(ValueError, match="computed safely"):
            curves.tolerated_gaussian_mus([eps], small)
