"""The personalized Gaussian mechanism (pdp_lib.mechanisms.gaussian) and PDP-OP calibrated for (eps_i, delta).

Independent truths: the analytic Gaussian's condition checked point by point, a search over random weight
vectors for a smaller noise than the optimal weights', the worst neighbouring pair found by search, Monte
Carlo for the loss moments."""

import numpy as np
import pytest

import pdp_lib
from pdp_lib import audit
from pdp_lib.approximate import approximate_calibration, mechanism_losses, privacy_curve
from pdp_lib.bounds import noise_scale
from pdp_lib.curves import (gaussian_privacy_profile, l2_privacy_profile, largest_gaussian_mu,
                            largest_loss_range)
from pdp_lib.mechanisms.gaussian import gaussian_calibration, gaussian_mechanism
from pdp_lib.mechanisms.output_perturbation import calibrate, noise_optimal_weights
from pdp_lib.moments import QuadraticLoss

LEVELS = np.array([0.01, 0.2, 1.0])


def _levels(n, seed=0):
    return np.random.default_rng(seed).choice(LEVELS, n, p=[0.34, 0.43, 0.23])


def _data(n, d, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, d))
    return X, np.clip(X @ rng.normal(0, 0.3, d), -1, 1)


@pytest.mark.parametrize("weighting", ["optimal", "epsilon"])
def test_every_point_meets_its_pair_and_the_tightest_holds_with_equality(weighting):
    eps, d, lam, delta = _levels(300), 6, 2.0, 1e-5
    cal = gaussian_calibration(eps, lam, d, delta, weighting=weighting)
    mu_star = np.array([largest_gaussian_mu(e, delta) for e in eps])
    mu = cal.weights * noise_scale(lam, d) / cal.sigma
    np.testing.assert_allclose(mu, cal.mu, rtol=1e-14)
    assert np.all(mu <= mu_star * (1 + 1e-12))
    assert np.max(mu / mu_star) == pytest.approx(1.0, rel=1e-12)
    for e, m in zip(eps[:20], mu[:20]):
        assert gaussian_privacy_profile(e, m) <= delta * (1 + 1e-9)
    if weighting == "optimal":     # every point is tight, and sigma = c / sum(mu*)
        np.testing.assert_allclose(mu, mu_star, rtol=1e-12)
        assert cal.sigma == pytest.approx(noise_scale(lam, d) / mu_star.sum(), rel=1e-13)


def test_no_weight_vector_allows_less_noise_than_the_optimal_one():
    eps, d, lam, delta = _levels(40, seed=4), 3, 1.0, 1e-6
    mu_star = np.array([largest_gaussian_mu(e, delta) for e in eps])
    best = gaussian_calibration(eps, lam, d, delta).sigma
    rng = np.random.default_rng(7)
    for w in rng.dirichlet(np.full(eps.size, 0.5), size=3000):
        assert noise_scale(lam, d) * np.max(w / mu_star) >= best * (1 - 1e-12)
    assert gaussian_calibration(eps, lam, d, delta, weighting="epsilon").sigma > best
    # the weights are not the paper's: mu* grows more slowly than eps
    w = gaussian_calibration(eps, lam, d, delta).weights
    assert w[eps == 0.01][0] / w[eps == 1.0][0] > 0.01 / 1.0


def test_noise_optimal_weights_are_the_normalised_reach():
    reach = np.array([0.5, 2.0, 1.5])
    w = noise_optimal_weights(reach)
    np.testing.assert_allclose(w, reach / 4.0, rtol=1e-15)
    assert not w.flags.writeable


def test_the_grey_box_check_same_seed_on_a_worst_pair():
    X, y = _data(40, 3)
    eps, lam, delta, i = _levels(40, seed=2), 0.5, 1e-5, 5
    cal = gaussian_calibration(eps, lam, 3, delta)
    found = audit.worst_neighbour(X, y, cal.weights, lam, i, pair=True, rng=0)
    X_a, y_a, X_b, y_b = audit.worst_pair_datasets(X, y, found, i)
    out_a = gaussian_mechanism(X_a, y_a, eps, lam, delta, rng=11, sampler="float")
    out_b = gaussian_mechanism(X_b, y_b, eps, lam, delta, rng=11, sampler="float")
    gap = pdp_lib.weighted_ridge(X_a, y_a, cal.weights, lam) - pdp_lib.weighted_ridge(X_b, y_b, cal.weights, lam)
    np.testing.assert_allclose(out_a - out_b, gap, rtol=0, atol=1e-14)
    assert np.linalg.norm(gap) / cal.sigma <= largest_gaussian_mu(eps[i], delta)
    rng = np.random.default_rng(1)          # the search beats random replacements of slot i
    for _ in range(50):
        X_r, y_r = X.copy(), y.copy()
        X_r[i], y_r[i] = rng.uniform(0, 1, 3), rng.uniform(-1, 1)
        other = pdp_lib.weighted_ridge(X_r, y_r, cal.weights, lam)
        assert np.linalg.norm(gap) >= np.linalg.norm(pdp_lib.weighted_ridge(X, y, cal.weights, lam) - other)


def test_calibrate_with_delta():
    eps, d, lam, delta = _levels(200, seed=5), 12, 1.0, 1e-5
    pure = calibrate(eps, lam, d)
    assert pure.delta is None and pure.eta == float(eps.sum()) / noise_scale(lam, d)
    same = calibrate(eps, lam, d, delta=delta, weighting="epsilon")
    np.testing.assert_array_equal(same.weights, pure.weights)
    # the same root searches, to the root finder's tolerance (remembered searches may start elsewhere)
    assert same.eta == pytest.approx(approximate_calibration(eps, lam, d, delta).eta, rel=1e-11)
    best = calibrate(eps, lam, d, delta=delta)
    reach = {e: largest_loss_range(e, delta, d) for e in LEVELS}
    ranges = best.eta * best.weights * noise_scale(lam, d)
    np.testing.assert_allclose(ranges, [reach[e] for e in eps], rtol=1e-11)   # every point is tight
    assert best.eta > same.eta > pure.eta and best.delta == delta


def test_pdp_op_with_delta_is_theta_bar_plus_the_calibrated_noise():
    X, y = _data(50, 4)
    eps, lam, delta = _levels(50, seed=6), 1.0, 1e-5
    cal = calibrate(eps, lam, 4, delta=delta)
    out = pdp_lib.pdp_op(X, y, eps, lam, rng=3, delta=delta, sampler="float")
    expected = pdp_lib.weighted_ridge(X, y, cal.weights, lam) + pdp_lib.sample_l2_laplace(cal.eta, 4, rng=3)
    np.testing.assert_array_equal(out, expected)


def test_privacy_curve_of_each_mechanism():
    eps, d, lam, delta = _levels(100, seed=8), 12, 1.0, 1e-5
    grid = np.array([0.0, 0.005, 0.01, 0.1, 0.2, 1.0])
    for i in (0, 1, 2):
        pure = privacy_curve(grid, eps, lam, d, i)
        np.testing.assert_allclose(pure, [l2_privacy_profile(e, d, eps[i]) for e in grid], rtol=1e-12)
        assert privacy_curve(eps[i], eps, lam, d, i) == 0.0
        for noise in ("l2", "gaussian"):
            at_level = privacy_curve(eps[i], eps, lam, d, i, noise=noise, delta=delta)
            assert at_level <= delta * (1 + 1e-6)
    g = privacy_curve(grid, eps, lam, d, 4, noise="gaussian", delta=delta)
    mu = gaussian_calibration(eps, lam, d, delta).mu[4]
    np.testing.assert_allclose(g, [gaussian_privacy_profile(e, mu) for e in grid], rtol=1e-14)


def test_gaussian_loss_moments_agree_with_monte_carlo():
    X, y = _data(60, 5, seed=9)
    loss = QuadraticLoss(X, y, penalty=0.3)
    theta, sigma = np.full(5, 0.1), 0.4
    Z = np.random.default_rng(10).standard_normal((400_000, 5)) * sigma
    values = loss.value(theta + Z)
    m = loss.gaussian_moments(theta, sigma)
    assert abs(values.mean() - m.mean) <= 5 * values.std() / np.sqrt(values.size)
    assert values.var() == pytest.approx(float(m.var), rel=0.02)
    assert loss.gaussian_moments(theta, 0.0).mean == pytest.approx(loss.value(theta), rel=1e-15)


def test_mechanism_losses_are_each_mechanisms_own_formula():
    X, y = _data(120, 4, seed=12)
    eps, lam, delta = _levels(100, seed=13), 1.0, 1e-5
    res = mechanism_losses(X[:100], y[:100], X[100:], y[100:], eps, lam, delta)
    loss = QuadraticLoss(X[100:], y[100:])
    cal = gaussian_calibration(eps, lam, 4, delta)
    theta = pdp_lib.weighted_ridge(X[:100], y[:100], cal.weights, lam)
    assert res.mean[3] == pytest.approx(loss.value(theta) + cal.sigma**2 * np.trace(X[100:].T @ X[100:]) / 20,
                                        rel=1e-12)
    assert res.ratio("pdp-op") == 1.0
    assert res.noise[2] < res.noise[1] < res.noise[0]      # (eps, delta) and its weights both cut the noise
    with pytest.raises(ValueError, match="mechanism 'laplace' is not one of"):
        res.ratio("laplace")


def test_the_estimator_runs_either_noise():
    X, y = _data(50, 3)
    eps = _levels(50, seed=14)
    est = pdp_lib.PersonalizedRidge(lam=1.0, noise="gaussian", delta=1e-5, random_state=4, sampler="float").fit(X, y, eps)
    np.testing.assert_array_equal(est.coef_, gaussian_mechanism(X, y, eps, 1.0, 1e-5, rng=4, sampler="float"))
    assert np.isnan(est.eta_) and est.sigma_ > 0
    exact = pdp_lib.PersonalizedRidge(lam=1.0, noise="gaussian", delta=1e-5, random_state=4).fit(X, y, eps)
    np.testing.assert_array_equal(exact.coef_, gaussian_mechanism(X, y, eps, 1.0, 1e-5, rng=4))
    assert est.sigma_ < exact.sigma_ < est.sigma_ * (1 + 2.0**-15)      # the lattice's sigma' = 1/eta', from above
    l2 = pdp_lib.PersonalizedRidge(lam=1.0, delta=1e-5, random_state=4, sampler="float").fit(X, y, eps)
    np.testing.assert_array_equal(l2.coef_, pdp_lib.pdp_op(X, y, eps, 1.0, rng=4, delta=1e-5, sampler="float"))
    assert np.isnan(l2.sigma_)


@pytest.mark.parametrize("call, match", [
    (lambda: gaussian_calibration([0.5], 1.0, 2, 0.0), r"delta = 0.0 is outside the allowed range \(0, 1\)"),
    (lambda: gaussian_calibration([0.5], 1.0, 2, 1e-5, weighting="uniform"), r"weighting = 'uniform'"),
    (lambda: calibrate([0.5], 1.0, 2, delta=1.5), r"delta = 1.5 is outside the allowed range \(0, 1\)"),
    (lambda: privacy_curve(0.1, [0.5, 1.0], 1.0, 2, 0, noise="gaussian"), r"delta is required"),
    (lambda: privacy_curve(0.1, [0.5, 1.0], 1.0, 2, 2), r"point = 2 is outside the allowed range \[0, 1\]"),
    (lambda: privacy_curve(0.1, [0.5, 1.0], 1.0, 2, 0, noise="laplace"), r"noise = 'laplace'"),
    (lambda: pdp_lib.PersonalizedRidge(noise="gaussian").fit([[0.5]], [0.1], [1.0]), r"delta is required"),
    (lambda: pdp_lib.PersonalizedRidge(lam="auto", delta=1e-5, sampler="float").fit([[0.5]], [0.1], [1.0]),
     r"delta = 1e-05 is not allowed with lam='auto'"),
    (lambda: pdp_lib.PersonalizedRidge(noise="normal", delta=1e-5).fit([[0.5]], [0.1], [1.0]),
     r"noise = 'normal'"),
])
def test_bad_input_is_refused_by_name(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_a_continuum_of_levels_is_calibrated_on_the_safe_side():
    from pdp_lib.curves import least_stretch
    eps = np.random.default_rng(17).uniform(0.05, 1.0, 150)       # 150 distinct levels: the lattice
    d, lam, delta = 6, 1.0, 1e-5
    for weighting in ("epsilon", "optimal"):
        cal = calibrate(eps, lam, d, delta=delta, weighting=weighting)
        ranges = cal.eta * cal.weights * noise_scale(lam, d)
        for i in np.random.default_rng(3).choice(eps.size, 8, replace=False):
            assert l2_privacy_profile(eps[i], d, ranges[i]) <= delta     # every point keeps its pair
    paper = calibrate(eps, lam, d, delta=delta, weighting="epsilon").eta
    exact = calibrate(eps, lam, d).eta * least_stretch(eps, delta, d)
    assert exact / 1.012 <= paper <= exact                            # measured: within 1.2% of exact


@pytest.mark.parametrize("lam, delta", [(1.0, 1e-5), (0.3, 1e-3)])
def test_the_lattice_gaussian_keeps_every_corner_pair_within_its_distance_and_profile(lam, delta):
    # the exact release: sums weighted by mu*_i, sigma' = 1/eta', noise round(Z / gamma); the centres of every
    # corner neighbour are within mu*_i in units of the noise's standard deviation, exactly
    import itertools
    from fractions import Fraction

    from pdp_lib.curves import tolerated_gaussian_mus
    from pdp_lib.mechanisms import lattice

    X, y = _data(8, 2)
    eps = _levels(8, seed=6)
    reach = tolerated_gaussian_mus(eps, delta)
    pair = None
    for i, corner in itertools.product(range(8), itertools.product([0.0, 1.0], [0.0, 1.0], [-1.0, 1.0])):
        X2, y2 = X.copy(), y.copy()
        X2[i], y2[i] = corner[:2], corner[2]
        pair = audit.lattice_pair(X, y, X2, y2, reach, lam)
        assert audit.pair_loss_within(pair, reach[i])                    # t ||m - m'|| <= mu*_i, exactly
        assert gaussian_privacy_profile(eps[i], pair.loss) <= delta
    theta = gaussian_mechanism(X, y, eps, lam, delta, rng=3)
    units = np.ldexp(theta, pair.calibration.step_exponent)
    assert np.array_equal(units, np.round(units))                        # on the grid
    G, m, rounds = lattice.weighted_sums(X, y, reach)
    again, _, _ = lattice.release_from_sums(G, m, float(np.sum(reach)), float(reach.min()), 8, rounds, lam, None, 3,
                                            law="gaussian")
    assert np.array_equal(theta, again)
    float_sigma = gaussian_calibration(eps, lam, 2, delta).sigma
    assert Fraction(float_sigma) < 1 / Fraction(pair.calibration.eta) < Fraction(float_sigma) * (1 + Fraction(1, 2**15))


def test_the_lattice_gaussian_refuses_what_it_is_not_proved_for():
    X, y = _data(8, 2)
    eps = _levels(8, seed=6)
    with pytest.raises(ValueError, match=r"weighting = 'epsilon' is not allowed with sampler='exact'"):
        gaussian_mechanism(X, y, eps, 1.0, 1e-5, weighting="epsilon")
    with pytest.raises(ValueError, match=r"delta = 0.0 is outside the allowed range \(0, 1\)"):
        gaussian_mechanism(X, y, eps, 1.0, 0.0)
    gaussian_mechanism(X, y, eps, 1.0, 1e-5, weighting="epsilon", sampler="float")     # the float one allows it
