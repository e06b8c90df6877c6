"""Tests of pdp_lib.mechanisms.threshold (uniform DP at a threshold) and of the sharp calibration option."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdp_lib
from pdp_lib import PersonalizedRidge, best_public_threshold, calibrate, oracle_threshold, pdp_op, threshold_dp
from pdp_lib.bounds import noise_scale, norm_bound, sharp_norm_bound
from pdp_lib.moments import loss_moments
from pdp_lib.mechanisms.threshold import kept_mask, personalization_ratio, threshold_calibration, threshold_candidates


def _data(seed, n=40, d=4):
    gen = np.random.default_rng(seed)
    X = gen.random((n, d))
    y = np.clip(X @ gen.normal(size=d) / d, -1, 1)
    return X, y


# ---------------------------------------------------------------- the public threshold


def _brute_force_best(eps):
    """Try every positive threshold on a fine grid and every level: the largest tau * k(tau)."""
    eps = np.asarray(eps, float)
    grid = np.unique(np.r_[eps, np.linspace(1e-6, eps.max(), 2001)])
    scores = np.array([t * np.sum(eps >= t) for t in grid])
    best = scores.max()
    return best, grid[np.isclose(scores, best, rtol=1e-12, atol=0)].min()


@pytest.mark.parametrize("eps, tau, k", [
    ([1.0], 1.0, 1),
    ([0.1, 0.5, 0.5, 1.0], 0.5, 3),            # 0.1*4 = 0.4, 0.5*3 = 1.5, 1*1 = 1
    ([0.01, 0.01, 0.01, 1.0], 1.0, 1),         # 0.03 against 1
    ([0.3, 0.3, 0.3, 1.0], 0.3, 4),            # 1.2 against 1
    ([0.25, 1.0], 1.0, 1),                     # 0.25 * 2 = 0.5 < 1 * 1
    ([0.5, 1.0], 0.5, 2),                      # a tie (1 = 1): the smaller threshold keeps more points
    ([1.0, 1 / 2, 1 / 3, 1 / 4], 1 / 4, 4),    # harmonic profile: every k * eps_(k) = 1, all tie
])
def test_best_public_threshold_by_hand(eps, tau, k):
    assert best_public_threshold(eps) == pytest.approx(tau)
    assert int(kept_mask(eps, best_public_threshold(eps)).sum()) == k


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 2.0]), min_size=1, max_size=12))
def test_best_public_threshold_against_brute_force(eps):
    best, smallest = _brute_force_best(eps)
    tau = best_public_threshold(eps)
    assert tau * np.sum(np.asarray(eps) >= tau) == pytest.approx(best, rel=1e-12)
    assert tau == pytest.approx(smallest, rel=1e-12)
    assert tau in set(eps)


def test_candidates_are_the_distinct_levels():
    assert list(threshold_candidates([0.5, 0.1, 0.5, 1.0])) == [0.1, 0.5, 1.0]


# ---------------------------------------------------------------- the mechanism


def test_kept_set_and_eta_by_hand():
    eps = np.array([0.1, 0.5, 0.5, 1.0])
    lam, d = 2.0, 4
    keep, cal = threshold_calibration(eps, lam, d)
    assert list(keep) == [False, True, True, True]
    # eta = lam * tau * k / (2 sqrt(d) (1 + sqrt(d) B)), B = B(2) = min(1/sqrt 2, 2/2) = 0.7071
    B = 1 / math.sqrt(2)
    assert cal.eta == pytest.approx(2.0 * 0.5 * 3 / (2 * 2 * (1 + 2 * B)), rel=1e-14)
    assert np.allclose(cal.weights, 1 / 3)
    keep, cal = threshold_calibration(eps, lam, d, threshold=0.1)
    assert keep.all() and cal.eta == pytest.approx(2.0 * 0.1 * 4 / (2 * 2 * (1 + 2 * B)), rel=1e-14)


def test_threshold_dp_is_algorithm_1_on_the_kept_points():
    X, y = _data(1)
    eps = np.where(np.arange(40) < 25, 0.05, 1.0)
    tau = best_public_threshold(eps)                  # 0.05 * 40 = 2 < 1.0 * 15 = 15
    assert tau == 1.0
    got = threshold_dp(X, y, eps, 1.0, rng=7)
    keep = eps >= tau
    want = pdp_op(X[keep], y[keep], np.full(keep.sum(), tau), 1.0, rng=7)
    assert np.array_equal(got, want)
    # dropped points never touch the output: change them arbitrarily, same output
    X2, y2 = X.copy(), y.copy()
    X2[~keep], y2[~keep] = 1.0 - X2[~keep], -y2[~keep]
    assert np.array_equal(threshold_dp(X2, y2, eps, 1.0, rng=7), got)


def test_threshold_dp_eta_never_exceeds_pdp_op():
    gen = np.random.default_rng(3)
    for _ in range(50):
        eps = gen.uniform(0.01, 1.0, size=gen.integers(1, 30))
        lam, d = float(gen.uniform(0.1, 10)), int(gen.integers(1, 20))
        _, cal = threshold_calibration(eps, lam, d)
        pdp = calibrate(eps, lam, d)
        assert cal.eta <= pdp.eta * (1 + 1e-12)
        # ... and by at most the harmonic number H_n (the chapter's proposition)
        n = eps.size
        assert pdp.eta <= cal.eta * sum(1 / k for k in range(1, n + 1)) * (1 + 1e-12)


def test_threshold_dp_refuses_bad_input():
    X, y = _data(2, n=5)
    eps = [0.1, 0.2, 0.3, 0.4, 0.5]
    with pytest.raises(ValueError, match=r"threshold = 0\.6 keeps no point.*max\(epsilons\) = 0\.5"):
        threshold_dp(X, y, eps, 1.0, threshold=0.6)
    with pytest.raises(ValueError, match="threshold"):
        threshold_dp(X, y, eps, 1.0, threshold=0.0)
    with pytest.raises(ValueError, match="threshold"):
        threshold_dp(X, y, eps, 1.0, threshold=float("nan"))
    with pytest.raises(ValueError, match="epsilons"):
        threshold_dp(X, y, [0.1, 0.2, -0.3, 0.4, 0.5], 1.0)
    with pytest.raises(ValueError, match="X"):
        threshold_dp(X + 1.0, y, eps, 1.0)
    with pytest.raises(ValueError, match="lam"):
        threshold_dp(X, y, eps, 0.0)
    with pytest.raises(TypeError, match="B must be"):
        threshold_dp(X, y, eps, 1.0, B="loose")
    eps_in = np.array(eps)
    threshold_dp(X, y, eps_in, 1.0, rng=0)
    assert list(eps_in) == eps                      # nothing the user gave is mutated


def test_oracle_threshold_against_brute_force():
    X, y = _data(4, n=30, d=3)
    Xt, yt = _data(5, n=20, d=3)
    eps = np.r_[np.full(10, 0.05), np.full(12, 0.3), np.full(8, 1.0)]
    for penalty in (0.0, 0.5):
        tau, mean = oracle_threshold(X, y, Xt, yt, eps, 0.5, penalty=penalty)
        brute = {}
        for t in (0.05, 0.3, 1.0):
            keep = eps >= t
            k = int(keep.sum())
            eta = 0.5 * t * k / (2 * math.sqrt(3) * (1 + math.sqrt(3) * norm_bound(0.5, 3)))
            bar = pdp_lib.weighted_ridge(X[keep], y[keep], np.full(k, 1 / k), 0.5)
            brute[t] = float(loss_moments(bar, eta, Xt, yt, penalty=penalty).mean)
        assert tau == min(brute, key=brute.get)
        assert mean == pytest.approx(brute[tau], rel=1e-12)


# ---------------------------------------------------------------- the sharp calibration


def test_sharp_option_is_the_exact_supremum():
    eps = [0.2, 0.5, 1.0]
    for lam, d in ((0.01, 12), (1.0, 12), (12.0, 12), (100.0, 12), (5.0, 1)):
        sharp = calibrate(eps, lam, d, B="sharp")
        explicit = calibrate(eps, lam, d, B=sharp_norm_bound(lam, d))
        assert sharp.eta == explicit.eta and sharp.B == sharp_norm_bound(lam, d)
        assert sharp.theorem == "3.2 with B*"
        assert sharp.eta > calibrate(eps, lam, d).eta             # less noise, same guarantee
        assert noise_scale(lam, d, "sharp") == pytest.approx(sum(eps) / sharp.eta, rel=1e-14)


def test_sharp_gain_on_medical_cost_dimensions():
    # d = 12: B(1) = 1, B*(1) = 1/2, so eta grows by (1 + sqrt 12)/(1 + sqrt 12 / 2)
    ratio = calibrate([1.0], 1.0, 12, B="sharp").eta / calibrate([1.0], 1.0, 12).eta
    assert ratio == pytest.approx((1 + math.sqrt(12)) / (1 + math.sqrt(12) / 2), rel=1e-14)


def test_sharp_option_in_pdp_op_the_estimator_and_the_baselines():
    X, y = _data(6)
    eps = np.linspace(0.1, 1.0, 40)
    sharp = pdp_op(X, y, eps, 1.0, B="sharp", rng=3)
    assert np.array_equal(sharp, pdp_op(X, y, eps, 1.0, B=sharp_norm_bound(1.0, 4), rng=3))
    model = PersonalizedRidge(lam=1.0, B="sharp", random_state=3).fit(X, y, eps)
    assert np.array_equal(model.coef_, sharp)
    assert PersonalizedRidge(lam=1.0, B="sharp", random_state=3, sampler="float").fit(X, y, eps).eta_ == \
        calibrate(eps, 1.0, 4, B="sharp").eta
    assert np.array_equal(pdp_lib.non_personalized(X, y, eps, 1.0, B="sharp", rng=3),
                          pdp_op(X, y, np.full(40, 0.1), 1.0, B="sharp", rng=3))
    with pytest.raises(TypeError, match="B must be a real number or 'sharp', got str 'Sharp'"):
        pdp_op(X, y, eps, 1.0, B="Sharp")


@pytest.mark.parametrize("level, n", [(0.7, 20), (0.1, 3), (0.3, 10), (1e-3, 999), (7.1, 77)])
def test_the_ratio_of_a_constant_profile_is_exactly_one(level, n):
    # a float sum of n equal levels can round below n * level (20 x 0.7 gives 13.999999999999998)
    assert personalization_ratio(np.full(n, level)) == 1.0


def test_the_ratio_is_never_below_one_on_random_profiles():
    gen = np.random.default_rng(11)
    for _ in range(2000):
        n = int(gen.integers(1, 60))
        eps = gen.choice([0.1, 0.2, 0.3, 0.7, 1.1, 3.3], n) * gen.choice([1.0, 0.1, 1e-3])
        assert personalization_ratio(eps) >= 1.0
