"""Tests of the PDP-OP mechanism (Algorithm 1, eq. (2), Remark 3.1, Theorems 3.1/3.2).

Truths used: hand-computed calibrations, closed-form ridge solutions, a generic
optimizer on the objective of eq. (2), scikit-learn's Ridge, and the
distributions of Remark 3.1 (Gamma radius, uniform direction, Laplace in 1-D)
via scipy.stats.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats
from sklearn.linear_model import Ridge

from conftest import make_domain_data, ridge_normal_equations
from pdp_lib import calibrate, pdp_op, sample_l2_laplace, weighted_ridge


# ---------------------------------------------------------------------------
# calibrate: Theorem 3.1 (B = B(lambda)) and Theorem 3.2 (explicit B)
# ---------------------------------------------------------------------------

# (epsilons, lam, d, weights, B(lambda), eta) worked out by hand from
# B(lam) = min(1/sqrt(lam), sqrt(d)/lam), eta = lam * S / (2 sqrt(d) (1 + sqrt(d) B)).
THEOREM_31_CASES = [
    # d=1, lam=1: B = min(1, 1) = 1; eta = 1*4 / (2*1*(1+1)) = 1
    ([1.0, 2.0, 1.0], 1.0, 1, [0.25, 0.5, 0.25], 1.0, 1.0),
    # d=1, lam=4: B = min(1/2, 1/4) = 1/4; eta = 4*1 / (2*(1 + 1/4)) = 1.6
    ([0.5, 0.5], 4.0, 1, [0.5, 0.5], 0.25, 1.6),
    # d=4, lam=1: B = min(1, 2) = 1; eta = 12 / (2*2*(1+2)) = 1
    ([3.0, 9.0], 1.0, 4, [0.25, 0.75], 1.0, 1.0),
    # d=4, lam=16: B = min(1/4, 1/8) = 1/8; eta = 16*5 / (4*(1 + 1/4)) = 16
    ([1.0, 4.0], 16.0, 4, [0.2, 0.8], 0.125, 16.0),
    # d=9, lam=1/4: B = min(2, 12) = 2; eta = (1/4)*42 / (2*3*(1+6)) = 1/4
    ([42.0], 0.25, 9, [1.0], 2.0, 0.25),
    # d=4, lam=4 = d (the two bounds cross): B = min(1/2, 1/2); eta = 4*1/(4*(1+1)) = 1/2
    ([0.25, 0.25, 0.25, 0.25], 4.0, 4, [0.25] * 4, 0.5, 0.5),
]


@pytest.mark.parametrize("eps, lam, d, weights, B, eta", THEOREM_31_CASES)
def test_calibrate_theorem_31_hand_computed(eps, lam, d, weights, B, eta):
    cal = calibrate(eps, lam, d)
    np.testing.assert_allclose(cal.weights, weights, rtol=1e-15)
    assert cal.B == pytest.approx(B, rel=1e-15)
    assert cal.eta == pytest.approx(eta, rel=1e-14)
    assert cal.theorem == "3.1"


def test_calibrate_theorem_32_hand_computed():
    # lam = 2, d = 4, B = 1/2: eta = 2*S / (2*2*(B*2 + 1)) = S/4; S = 4 -> 1
    cal = calibrate([1.0, 3.0], 2.0, 4, B=0.5)
    assert cal.eta == pytest.approx(1.0, rel=1e-15)
    assert cal.B == 0.5
    assert cal.theorem == "3.2"
    np.testing.assert_allclose(cal.weights, [0.25, 0.75], rtol=1e-15)
    # lam = 1, d = 1, B = 3: eta = 1*S / (2*(3+1)) = S/8; S = 2 -> 1/4
    assert calibrate([2.0], 1.0, 1, B=3.0).eta == pytest.approx(0.25, rel=1e-15)


def test_calibrate_theorem_32_with_b_lambda_equals_theorem_31():
    # Theorem 3.2 with B = B(lambda) is Theorem 3.1 (B(1/9) for d = 4 is min(3, 36) = 3).
    a = calibrate([0.3, 0.7, 1.1], 1 / 9, 4)
    b = calibrate([0.3, 0.7, 1.1], 1 / 9, 4, B=3.0)
    assert a.B == pytest.approx(3.0, rel=1e-14)
    assert a.eta == pytest.approx(b.eta, rel=1e-14)


def test_calibrate_smaller_b_means_less_noise():
    # Remark after Theorem 3.2: B <= B(lambda) gives a larger eta (less noise).
    eps = [0.1, 0.5, 1.0]
    base = calibrate(eps, 2.0, 3)
    assert calibrate(eps, 2.0, 3, B=0.5 * base.B).eta > base.eta
    assert calibrate(eps, 2.0, 3, B=2.0 * base.B).eta < base.eta


@pytest.mark.parametrize("scale", [1e-3, 0.5, 2.0, 7.0, 1e4])
def test_calibrate_eta_linear_in_sum_of_epsilons(scale):
    eps = np.array([0.01, 0.2, 0.35, 1.0])
    a = calibrate(eps, 3.0, 5)
    b = calibrate(eps * scale, 3.0, 5)
    assert b.eta == pytest.approx(scale * a.eta, rel=1e-13)
    np.testing.assert_allclose(b.weights, a.weights, rtol=1e-14)


def test_calibrate_eta_depends_on_epsilons_only_through_their_sum():
    a = calibrate([0.1, 0.9], 1.0, 2)
    b = calibrate([0.5, 0.25, 0.25], 1.0, 2)
    assert a.eta == pytest.approx(b.eta, rel=1e-15)


def test_calibrate_does_not_mutate_or_alias_input():
    eps = np.array([0.2, 0.3, 0.5])
    before = eps.copy()
    cal = calibrate(eps, 1.0, 2)
    np.testing.assert_array_equal(eps, before)
    assert not np.shares_memory(cal.weights, eps)
    with pytest.raises(ValueError):
        cal.weights[0] = 1.0  # read-only: the calibration cannot drift after the fact


# ---------------------------------------------------------------------------
# weighted_ridge: eq. (2)
# ---------------------------------------------------------------------------

def test_weighted_ridge_one_dimensional_by_hand():
    # theta = sum w x y / (sum w x^2 + lam)
    #       = (0.5*1*1 + 0.5*0.5*(-0.5)) / (0.5*1 + 0.5*0.25 + 0.25) = 0.375 / 0.875 = 3/7
    theta = weighted_ridge([[1.0], [0.5]], [1.0, -0.5], [0.5, 0.5], 0.25)
    assert theta.shape == (1,)
    assert theta[0] == pytest.approx(3 / 7, rel=1e-14)


def test_weighted_ridge_orthogonal_design_by_hand():
    # X = I: A = diag(w + lam), b = w * y -> theta = [0.25/0.75, -0.75/1.25]
    theta = weighted_ridge(np.eye(2), [1.0, -1.0], [0.25, 0.75], 0.5)
    np.testing.assert_allclose(theta, [1 / 3, -0.6], rtol=1e-14)


def test_weighted_ridge_single_point_by_hand():
    # n = 1: theta = (x x^T + lam I)^{-1} x y = x y / (||x||^2 + lam) (Sherman-Morrison)
    x = np.array([1.0, 0.5, 0.0])
    theta = weighted_ridge(x[None, :], [0.8], [1.0], 2.0)
    np.testing.assert_allclose(theta, x * 0.8 / (1.25 + 2.0), rtol=1e-14)


def _objective(theta, X, y, w, lam):
    r = y - X @ theta
    return float(np.sum(w * r**2) + lam * theta @ theta)


@pytest.mark.parametrize("n, d, lam, seed", [(10, 3, 0.1, 1), (25, 5, 2.0, 2), (4, 6, 0.01, 3)])
def test_weighted_ridge_minimizes_objective_of_eq_2(n, d, lam, seed):
    X, y, eps = make_domain_data(n, d, seed)
    w = eps / eps.sum()
    theta = weighted_ridge(X, y, w, lam)

    def grad(t, *_):
        return -2 * X.T @ (w * (y - X @ t)) + 2 * lam * t

    res = optimize.minimize(_objective, np.zeros(d), args=(X, y, w, lam), jac=grad,
                            method="BFGS", options={"gtol": 1e-12, "maxiter": 10_000})
    np.testing.assert_allclose(theta, res.x, atol=1e-7)
    assert _objective(theta, X, y, w, lam) <= res.fun + 1e-14
    # no nearby point does better
    gen = np.random.default_rng(seed)
    for _ in range(50):
        assert _objective(theta, X, y, w, lam) <= _objective(theta + 1e-4 * gen.standard_normal(d), X, y, w, lam)


@pytest.mark.parametrize("n, d, lam, seed", [(30, 4, 0.05, 11), (7, 2, 10.0, 12), (3, 5, 1e-3, 13)])
def test_weighted_ridge_first_order_condition(n, d, lam, seed):
    # Appendix A.1: -2 sum_i w_i x_i (y_i - x_i^T theta) + 2 lam theta = 0
    X, y, eps = make_domain_data(n, d, seed)
    w = eps / eps.sum()
    theta = weighted_ridge(X, y, w, lam)
    residual = -2 * X.T @ (w * (y - X @ theta)) + 2 * lam * theta
    scale = 2 * np.abs(X.T @ (w * y)).max()
    assert np.linalg.norm(residual) <= 1e-12 * max(scale, 1.0)
    np.testing.assert_allclose(theta, ridge_normal_equations(X, y, w, lam), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("lam", [1e-3, 0.3, 5.0])
def test_weighted_ridge_uniform_weights_is_ordinary_ridge(lam):
    # (1/n) sum (y - x^T t)^2 + lam ||t||^2  <=>  ||y - X t||^2 + (n lam) ||t||^2
    X, y, _ = make_domain_data(40, 4, seed=5)
    n = len(y)
    theta = weighted_ridge(X, y, np.full(n, 1 / n), lam)
    ref = Ridge(alpha=n * lam, fit_intercept=False, solver="svd").fit(X, y).coef_
    np.testing.assert_allclose(theta, ref, rtol=1e-9, atol=1e-12)


def test_weighted_ridge_zero_weight_point_is_ignored():
    X, y, _ = make_domain_data(6, 2, seed=9)
    w = np.array([0.2, 0.0, 0.3, 0.1, 0.4, 0.0])
    keep = w > 0
    a = weighted_ridge(X, y, w, 0.7)
    b = weighted_ridge(X[keep], y[keep], w[keep], 0.7)
    np.testing.assert_allclose(a, b, rtol=1e-13)


def test_weighted_ridge_integer_weights_equal_duplicated_points():
    # weight 2/4 on a point = that point twice with weight 1/4 each
    X, y, _ = make_domain_data(3, 2, seed=4)
    a = weighted_ridge(X, y, [0.5, 0.25, 0.25], 0.2)
    Xd = np.vstack([X[0], X[0], X[1], X[2]])
    yd = np.array([y[0], y[0], y[1], y[2]])
    b = weighted_ridge(Xd, yd, [0.25] * 4, 0.2)
    np.testing.assert_allclose(a, b, rtol=1e-13)


# ---------------------------------------------------------------------------
# sample_l2_laplace: Remark 3.1
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("d", [1, 2, 7])
def test_sample_shapes(d):
    assert sample_l2_laplace(1.0, d, rng=0).shape == (d,)
    assert sample_l2_laplace(1.0, d, size=5, rng=0).shape == (5, d)
    assert sample_l2_laplace(1.0, d, size=0, rng=0).shape == (0, d)
    assert sample_l2_laplace(1.0, d, size=np.int64(3), rng=0).shape == (3, d)


@pytest.mark.parametrize("d, eta, seed", [(1, 0.5, 101), (3, 2.5, 102), (10, 40.0, 103)])
def test_sample_radius_is_gamma(d, eta, seed):
    # Remark 3.1: ||Z|| ~ Gamma(shape d, rate eta). Fixed seed, significance 0.001.
    z = sample_l2_laplace(eta, d, size=20_000, rng=seed)
    r = np.linalg.norm(z, axis=1)
    assert stats.kstest(r, stats.gamma(d, scale=1 / eta).cdf).pvalue > 1e-3
    # the same test has power: a 5% error in eta is rejected
    assert stats.kstest(r, stats.gamma(d, scale=1 / (1.05 * eta)).cdf).pvalue < 1e-6
    assert stats.kstest(r, stats.gamma(d + 1, scale=1 / eta).cdf).pvalue < 1e-6


def test_sample_one_dimensional_is_laplace():
    # d = 1: density prop. to exp(-eta |z|) is the Laplace law with scale 1/eta.
    eta = 3.0
    z = sample_l2_laplace(eta, 1, size=20_000, rng=7)[:, 0]
    assert stats.kstest(z, stats.laplace(scale=1 / eta).cdf).pvalue > 1e-3


@pytest.mark.parametrize("d", [2, 4])
def test_sample_direction_is_uniform_on_sphere(d):
    # U = Z/||Z|| uniform on S^{d-1}: E[U] = 0, E[U U^T] = I/d,
    # Var(U_j) = 1/d, Var(U_j^2) = 3/(d(d+2)) - 1/d^2, Var(U_j U_k) = 1/(d(d+2)).
    N = 40_000
    z = sample_l2_laplace(1.7, d, size=N, rng=2024 + d)
    u = z / np.linalg.norm(z, axis=1, keepdims=True)
    se_mean = math.sqrt(1 / d / N)
    assert np.all(np.abs(u.mean(axis=0)) < 5 * se_mean)
    cov = u.T @ u / N
    se_diag = math.sqrt((3 / (d * (d + 2)) - 1 / d**2) / N)
    se_off = math.sqrt(1 / (d * (d + 2)) / N)
    for j in range(d):
        for k in range(d):
            if j == k:
                assert abs(cov[j, j] - 1 / d) < 5 * se_diag
            else:
                assert abs(cov[j, k]) < 5 * se_off


def test_sample_moments_of_z():
    # E||Z|| = d/eta; Cov(Z) = E[R^2]/d I = (d+1)/eta^2 I.  SE of the mean radius: sqrt(d)/eta/sqrt(N).
    d, eta, N = 3, 2.0, 40_000
    z = sample_l2_laplace(eta, d, size=N, rng=99)
    r = np.linalg.norm(z, axis=1)
    assert abs(r.mean() - d / eta) < 5 * math.sqrt(d) / eta / math.sqrt(N)
    # Var(Z_j^2) = E[Z_j^4] - E[Z_j^2]^2 with E[Z_j^4] = E[R^4] * 3/(d(d+2))
    ER4 = math.gamma(d + 4) / math.gamma(d) / eta**4
    var_sq = ER4 * 3 / (d * (d + 2)) - ((d + 1) / eta**2) ** 2
    np.testing.assert_allclose(np.mean(z**2, axis=0), (d + 1) / eta**2, atol=5 * math.sqrt(var_sq / N))


def test_sample_reproducible_and_seed_sensitive():
    a = sample_l2_laplace(1.0, 4, size=3, rng=12345)
    b = sample_l2_laplace(1.0, 4, size=3, rng=12345)
    c = sample_l2_laplace(1.0, 4, size=3, rng=12346)
    np.testing.assert_array_equal(a, b)
    assert not np.any(a == c)
    g1 = np.random.default_rng(12345)
    np.testing.assert_array_equal(sample_l2_laplace(1.0, 4, size=3, rng=g1), a)
    # a Generator advances: the next draw differs
    assert not np.any(sample_l2_laplace(1.0, 4, size=3, rng=g1) == a)


def test_sample_does_not_touch_global_state():
    before = np.random.get_state(legacy=False)  # read only; the global state is never seeded
    sample_l2_laplace(1.0, 3, size=10, rng=None)
    sample_l2_laplace(1.0, 3, size=10, rng=5)
    after = np.random.get_state(legacy=False)
    np.testing.assert_array_equal(before["state"]["key"], after["state"]["key"])
    assert before["state"]["pos"] == after["state"]["pos"]


# ---------------------------------------------------------------------------
# pdp_op: Algorithm 1
# ---------------------------------------------------------------------------

def test_pdp_op_shape_and_reproducibility(small_data):
    X, y, eps = small_data
    a = pdp_op(X, y, eps, 1.0, rng=3)
    assert a.shape == (3,)
    np.testing.assert_array_equal(a, pdp_op(X, y, eps, 1.0, rng=3))
    np.testing.assert_array_equal(a, pdp_op(X, y, eps, 1.0, rng=np.random.default_rng(3)))
    assert not np.any(a == pdp_op(X, y, eps, 1.0, rng=4))


def test_pdp_op_noise_free_limit(small_data):
    # eta grows linearly with sum(eps): with eps ~ 1e12 the noise is ~ d/eta ~ 1e-11
    X, y, eps = small_data
    lam = 0.5
    w = eps / eps.sum()
    theta_bar = ridge_normal_equations(X, y, w, lam)
    theta_hat = pdp_op(X, y, eps * 1e12, lam, rng=0)
    np.testing.assert_allclose(theta_hat, theta_bar, atol=1e-9)


@pytest.mark.parametrize("B", [None, 0.3])
def test_pdp_op_noise_is_l2_laplace_with_calibrated_eta(B):
    # theta_hat - theta_bar over many seeds: radius ~ Gamma(d, 1/eta) with eta of Theorem 3.1 / 3.2.
    X, y, eps = make_domain_data(5, 2, seed=31)
    lam, d = 2.0, 2
    w = eps / eps.sum()
    theta_bar = ridge_normal_equations(X, y, w, lam)
    Bv = min(1 / math.sqrt(lam), math.sqrt(d) / lam) if B is None else B
    eta = lam * eps.sum() / (2 * math.sqrt(d) * (1 + math.sqrt(d) * Bv))
    seeds = np.random.SeedSequence(77).spawn(3000)
    r = np.array([np.linalg.norm(pdp_op(X, y, eps, lam, B=B, rng=np.random.default_rng(s)) - theta_bar)
                  for s in seeds])
    assert stats.kstest(r, stats.gamma(d, scale=1 / eta).cdf).pvalue > 1e-3


def test_pdp_op_accepts_lists_and_does_not_mutate(small_data):
    X, y, eps = small_data
    copies = X.copy(), y.copy(), eps.copy()
    a = pdp_op(X, y, eps, 0.5, rng=1)
    for before, after in zip(copies, (X, y, eps)):
        np.testing.assert_array_equal(before, after)
    b = pdp_op(X.tolist(), y.tolist(), eps.tolist(), 0.5, rng=1)
    np.testing.assert_array_equal(a, b)
