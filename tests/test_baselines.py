"""Tests of pdp_lib.mechanisms.baselines against hand computations, scikit-learn and the authors' outputs."""

import math

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from pdp_lib import load_medical_cost, sample_l2_laplace, train_test_split
from pdp_lib.mechanisms.baselines import (
    jorgensen,
    jorgensen_eta,
    jorgensen_keep_probabilities,
    jorgensen_mask,
    jorgensen_threshold,
    least_squares,
    non_personalized,
    non_private_ridge,
)


def _data(seed=0, n=12, d=3):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = rng.uniform(-1, 1, n)
    eps = rng.uniform(0.05, 1.0, n)
    return X, y, eps


def _c(lam, d):
    # 2 sqrt(d) (1 + sqrt(d) B(lam)) / lam with B(lam) = min(1/sqrt(lam), sqrt(d)/lam) (Thm 3.1)
    B = min(1 / math.sqrt(lam), math.sqrt(d) / lam)
    return 2 * math.sqrt(d) * (1 + math.sqrt(d) * B) / lam


def _ridge(X, y, lam):
    n, d = X.shape
    return np.linalg.solve(X.T @ X / n + lam * np.eye(d), X.T @ y / n)


def test_non_personalized_is_uniform_weights_and_min_epsilon():
    X, y, eps = _data(1)
    lam = 0.8
    n, d = X.shape
    got = non_personalized(X, y, eps, lam, rng=7, sampler="float")
    eta = lam * n * eps.min() / (2 * math.sqrt(d) * (1 + math.sqrt(d) * min(1 / math.sqrt(lam), math.sqrt(d) / lam)))
    expected = _ridge(X, y, lam) + sample_l2_laplace(eta, d, rng=7)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_keep_probabilities_by_hand():
    eps = [0.1, 0.5, 1.0, 2.0]
    p = jorgensen_keep_probabilities(eps, 1.0)
    e = math.e
    np.testing.assert_allclose(p, [(math.exp(0.1) - 1) / (e - 1), (math.exp(0.5) - 1) / (e - 1), 1, 1],
                               rtol=1e-14)
    # expm1 keeps tiny probabilities accurate
    tiny = jorgensen_keep_probabilities([1e-12], 1.0)[0]
    assert tiny == pytest.approx(1e-12 / (e - 1), rel=1e-9)


def test_thresholds():
    eps = np.array([0.2, 0.4, 0.9])
    assert jorgensen_threshold(eps, "max") == 0.9
    assert jorgensen_threshold(eps, "mean") == pytest.approx(0.5)
    with pytest.raises(ValueError, match="kind"):
        jorgensen_threshold(eps, "median")


def test_mask_frequencies_match_probabilities():
    eps = np.array([0.01, 0.1, 0.3, 0.7, 1.0])
    t = 1.0
    p = jorgensen_keep_probabilities(eps, t)
    rng = np.random.default_rng(3)
    R = 20_000
    freq = np.mean([jorgensen_mask(eps, t, rng) for _ in range(R)], axis=0)
    se = np.sqrt(p * (1 - p) / R)
    assert np.all(np.abs(freq - p) <= 4 * se + 1e-15)
    assert freq[-1] == 1.0


def test_jorgensen_single_draw_by_hand():
    X, y, eps = _data(2, n=15)
    lam, n, d = 1.5, 15, 3
    theta, mask = jorgensen(X, y, eps, lam, threshold="mean", rng=11, return_mask=True, sampler="float")
    # the same draws by hand: n_random uniforms for the mask, then the noise
    gen = np.random.default_rng(11)
    t = eps.mean()
    p = np.where(eps < t, np.expm1(eps) / np.expm1(t), 1.0)
    rand = p < 1
    m = np.ones(n, dtype=bool)
    m[rand] = gen.random(rand.sum()) < p[rand]
    np.testing.assert_array_equal(mask, m)
    k = m.sum()
    eta = k * t / _c(lam, d)
    expected = _ridge(X[m], y[m], lam) + sample_l2_laplace(eta, d, rng=gen)
    np.testing.assert_allclose(theta, expected, rtol=1e-12)


def test_jorgensen_max_threshold_keeps_the_most_liberal():
    X, y, eps = _data(4, n=10)
    for seed in range(20):
        _, mask = jorgensen(X, y, eps, 1.0, threshold="max", rng=seed, return_mask=True)
        assert mask[np.argmax(eps)]


def test_a_threshold_above_every_level_is_refused_because_the_empty_sample_breaks_the_guarantee():
    from pdp_lib.audit import jorgensen_lattice_loss

    X, y, _ = _data(5, n=6)
    eps = np.full(6, 1e-3)
    for sampler in ("exact", "float"):
        with pytest.raises(ValueError, match=r"threshold = 40.0 is outside the allowed range \(0, max\(epsilons\)\]"):
            jorgensen(X, y, eps, 0.5, threshold=40.0, rng=0, sampler=sampler)
    # why: with every point droppable, the empty sample's point mass at 0 meets a one-point sample's law, and the
    # exact loss of point 0 (label flipped) exceeds its level 0.1 (0.283 here); at t = max(eps) it does not
    X1, y1, y2 = np.array([[1.0], [1.0]]), np.array([1.0, 1.0]), np.array([-1.0, 1.0])
    assert jorgensen_lattice_loss(X1, y1, X1, y2, [0.1, 0.1], 1.0, 2.0) > 0.28
    assert jorgensen_lattice_loss(X1, y1, X1, y2, [0.1, 0.1], 1.0, 0.1) <= 0.1


def test_least_squares_recovers_exact_linear_model():
    rng = np.random.default_rng(6)
    X = rng.random((20, 4))
    coef = np.array([0.3, -0.2, 0.1, 0.05])
    y = X @ coef
    np.testing.assert_allclose(least_squares(X, y), coef, atol=1e-12)


def test_non_private_ridge_matches_scikit_learn():
    X, y, _ = _data(7, n=30, d=4)
    lam = 0.37
    # sklearn minimizes ||y - Xw||^2 + alpha ||w||^2 = n * [(1/n)||y - Xw||^2 + lam ||w||^2]
    ref = Ridge(alpha=30 * lam, fit_intercept=False, solver="cholesky").fit(X, y).coef_
    np.testing.assert_allclose(non_private_ridge(X, y, lam), ref, rtol=1e-10)


def test_non_private_losses_reproduce_the_authors_medical_cost_outputs():
    # The authors' forplots_insurance_data_impact_lambda_plevel_34_43_23_affine.csv (pp-ridge,
    # MIT licence): type1_nonpriv_loss = 0.00943378455712119 (least squares, test MSE) and, at
    # lambda = 0.01, type2_nonpriv_loss = 0.010822223593111108 (ridge, test MSE + lambda ||theta||^2).
    data = load_medical_cost()
    X_tr, X_te, y_tr, y_te = train_test_split(data.X, data.y, test_size=0.2, seed=21)
    ls = least_squares(X_tr, y_tr)
    assert np.mean((X_te @ ls - y_te) ** 2) == pytest.approx(0.00943378455712119, rel=1e-12)
    th = non_private_ridge(X_tr, y_tr, 0.01)
    assert np.mean((X_te @ th - y_te) ** 2) + 0.01 * th @ th == pytest.approx(0.010822223593111108, rel=1e-12)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda X, y, e: jorgensen(X, y, e, 0.0), "lam"),
        (lambda X, y, e: jorgensen(X, y, e, 1.0, threshold=-1.0), "threshold"),
        (lambda X, y, e: jorgensen(X, y, e, 1.0, threshold="median"), "kind"),
        (lambda X, y, e: jorgensen(X * 2, y, e, 1.0), r"X\[0, 0\]"),
        (lambda X, y, e: jorgensen(X, y, e[:-1], 1.0), "epsilons"),
        (lambda X, y, e: non_personalized(X, y, -e, 1.0), r"epsilons\[0\]"),
        (lambda X, y, e: non_private_ridge(X, y, -1.0), "lam"),
        (lambda X, y, e: jorgensen_keep_probabilities(e, 0.0), "t"),
    ],
)
def test_bad_inputs(call, match):
    X, y, eps = _data(8, n=5)
    X[0, 0] = 0.9
    with pytest.raises(ValueError, match=match):
        call(X, y, eps)


def test_inputs_not_mutated():
    X, y, eps = _data(9)
    copies = [a.copy() for a in (X, y, eps)]
    jorgensen(X, y, eps, 1.0, rng=0)
    non_personalized(X, y, eps, 1.0, rng=0)
    for a, b in zip((X, y, eps), copies):
        np.testing.assert_array_equal(a, b)


def test_jorgensen_eta_is_k_t_over_c_and_infinite_for_the_empty_sample():
    # eta = k t / c(lam) (Section 4.2), the one formula behind the engine and the exact audit density
    lam, d, t = 0.3, 4, 0.8
    k = np.array([0, 1, 5, 12])
    eta = jorgensen_eta(lam, d, k, t)
    assert eta[0] == np.inf
    np.testing.assert_allclose(eta[1:], k[1:] * t / _c(lam, d), rtol=1e-12)
    assert float(jorgensen_eta(lam, d, 3, t, B=2.0)) == pytest.approx(
        3 * t * lam / (2 * math.sqrt(d) * (1 + math.sqrt(d) * 2.0)), rel=1e-12)
