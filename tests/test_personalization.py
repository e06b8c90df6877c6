"""pdp_lib.personalization: the bias-noise condition against brute force, the large-lambda limit, the family."""

import numpy as np
import pytest

from pdp_lib.moments import QuadraticLoss
from pdp_lib.personalization import bias_noise_parts, correlated_privacy_data, large_lambda_limit
from pdp_lib.mechanisms.threshold import personalization_ratio, threshold_dp


@pytest.fixture(scope="module")
def family():
    return correlated_privacy_data(400, 1.0, n_test=500, rng=7)


def test_parts_add_up_to_the_exact_mean_and_to_monte_carlo(family):
    D = family
    P = bias_noise_parts(D.X, D.y, D.epsilons, D.X_test, D.y_test, [0.05, 1.0])
    for m in P.mean:
        np.testing.assert_allclose(P.bias[m] + P.noise[m], P.mean[m], rtol=1e-12)
    np.testing.assert_allclose(P.noise["threshold_public"] / P.noise["pdp_op"],
                               personalization_ratio(D.epsilons) ** 2, rtol=1e-12)
    # the threshold rule's mean against an independent Monte Carlo of threshold_dp
    loss = QuadraticLoss(D.X_test, D.y_test)
    gen = np.random.default_rng(3)
    draws = np.array([threshold_dp(D.X, D.y, D.epsilons, 0.05, rng=gen) for _ in range(4000)])
    values = loss.value(draws)
    assert abs(values.mean() - P.mean["threshold_public"][0]) < 4 * values.std() / np.sqrt(values.size)


def test_condition_is_the_sign_of_the_difference(family):
    D = family
    lams = np.geomspace(1e-2, 1e3, 31)
    P = bias_noise_parts(D.X, D.y, D.epsilons, D.X_test, D.y_test, lams, B="sharp")
    wins = P.mean["threshold_public"] < P.mean["pdp_op"]
    assert np.array_equal(P.condition(), wins)
    assert wins.any() and (~wins).any()               # this draw crosses: both branches are exercised
    assert not wins[0]                                # part 3: PDP-OP wins at small lambda


def test_large_lambda_limit(family):
    D = family
    limit = large_lambda_limit(D.X, D.y, D.epsilons, D.X_test, D.y_test)
    gaps = []
    for lam in (1e4, 1e5):
        P = bias_noise_parts(D.X, D.y, D.epsilons, D.X_test, D.y_test, [lam])
        gaps.append(abs(lam * (P.mean["threshold_public"][0] - P.mean["pdp_op"][0]) - limit))
    assert gaps[1] < 1e-3 * abs(limit) and gaps[1] < 0.2 * gaps[0]     # converges like 1 / lambda
    # by hand: 2 b^T (m_P - m_tau)
    b = D.X_test.T @ D.y_test / len(D.y_test)
    w = D.epsilons / D.epsilons.sum()
    keep = D.epsilons == D.epsilons.max()
    expected = 2 * b @ (D.X.T @ (w * D.y) - D.X[keep].T @ D.y[keep] / keep.sum())
    assert limit == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("rho", [-1 / 9, 0.0, 0.35, 1.0])
def test_family_rho_is_the_correlation_and_data_do_not_move(rho):
    D = correlated_privacy_data(1000, rho, rng=1)
    base = correlated_privacy_data(1000, 0.0, rng=1)
    assert np.array_equal(D.X, base.X) and np.array_equal(D.y, base.y)
    assert D.strong.sum() == D.flipped.sum() == 100
    # exact up to the rounding of the count of strong flipped points (half a point in 100 * 0.9)
    assert np.corrcoef(D.strong, D.flipped)[0, 1] == pytest.approx(rho, abs=0.5 / 90 + 1e-12)
    if float(100 * (0.1 + rho * 0.9)).is_integer():
        assert np.corrcoef(D.strong, D.flipped)[0, 1] == pytest.approx(rho, abs=1e-9)
    assert np.all((D.X >= 0) & (D.X <= 1)) and np.all(np.abs(D.y) <= 1) and np.all(np.abs(D.y_test) <= 1)
    assert set(np.unique(D.epsilons)) == {0.5, 1.0}


@pytest.mark.parametrize("kwargs, name", [
    (dict(n=1000, rho=1.01), "rho"), (dict(n=1000, rho=-0.2), "rho"), (dict(n=1000, rho=float("nan")), "rho"),
    (dict(n=1, rho=0.0), "n"), (dict(n=4, rho=0.0), "n"), (dict(n=100, rho=0.0, share=0.6), "share"),
    (dict(n=100, rho=0.0, share=0.0), "share"), (dict(n=100, rho=0.0, eps_strong=1.0), "eps_strong"),
    (dict(n=100, rho=0.0, eps_weak=-1.0), "eps_weak"), (dict(n=100, rho=0.0, noise=0.7), "noise"),
])
def test_family_refuses_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        correlated_privacy_data(**kwargs)


def test_parts_refuse_bad_input(family):
    D = family
    with pytest.raises(ValueError, match="lams"):
        bias_noise_parts(D.X, D.y, D.epsilons, D.X_test, D.y_test, [1.0, -1.0])
    with pytest.raises(ValueError, match="X_test"):
        bias_noise_parts(D.X, D.y, D.epsilons, D.X_test[:, :1], D.y_test, [1.0])
    with pytest.raises(ValueError, match="y_test"):
        bias_noise_parts(D.X, D.y, D.epsilons, D.X_test, 2 * D.y_test + 1.5, [1.0])
    X = D.X.copy()
    bias_noise_parts(X, D.y, D.epsilons, D.X_test, D.y_test, [1.0])
    assert np.array_equal(X, D.X)                     # nothing the user gave is mutated
