"""Tests of the test losses of Section 4 ("Metrics"), against hand computation."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_lib import regularized_loss, test_losses, unregularized_loss


def test_losses_by_hand():
    # residuals x^T theta - y = [0.5 - 1, 0.5 - 0] -> MSE = (0.25 + 0.25)/2 = 0.25
    X = [[1.0, 0.0], [0.0, 1.0]]
    y = [1.0, 0.0]
    theta = [0.5, 0.5]
    assert unregularized_loss(theta, X, y) == pytest.approx(0.25, rel=1e-15)
    # + lam ||theta||^2 = 2 * 0.5 -> 1.25
    assert regularized_loss(theta, X, y, 2.0) == pytest.approx(1.25, rel=1e-15)
    unreg, reg = test_losses(theta, X, y, 2.0)
    assert unreg == pytest.approx(0.25, rel=1e-15)
    assert reg == pytest.approx(1.25, rel=1e-15)


def test_losses_by_hand_three_points():
    # theta = [2, -1]; predictions [2*0.5 - 1*1, 2*1 - 0, 0 - 0.5] = [0, 2, -0.5]
    # y = [0, 1, 0.5] -> squared residuals [0, 1, 1] -> MSE 2/3; ||theta||^2 = 5
    X = np.array([[0.5, 1.0], [1.0, 0.0], [0.0, 0.5]])
    y = np.array([0.0, 1.0, 0.5])
    theta = np.array([2.0, -1.0])
    assert unregularized_loss(theta, X, y) == pytest.approx(2 / 3, rel=1e-15)
    assert regularized_loss(theta, X, y, 0.1) == pytest.approx(2 / 3 + 0.5, rel=1e-15)


def test_losses_vectorized_over_runs_equal_loop():
    gen = np.random.default_rng(np.random.SeedSequence(3))
    R, N, d = 7, 20, 4
    thetas = gen.normal(size=(R, d))
    X = gen.random((N, d))
    y = gen.uniform(-1, 1, N)
    unreg, reg = test_losses(thetas, X, y, 0.3)
    assert unreg.shape == (R,) and reg.shape == (R,)
    for r in range(R):
        resid = y - X @ thetas[r]
        expect = float(np.mean(resid**2))
        assert unreg[r] == pytest.approx(expect, rel=1e-13)
        assert reg[r] == pytest.approx(expect + 0.3 * float(thetas[r] @ thetas[r]), rel=1e-13)
        assert unregularized_loss(thetas[r], X, y) == pytest.approx(unreg[r], rel=1e-13)
    np.testing.assert_allclose(regularized_loss(thetas, X, y, 0.3), reg, rtol=1e-15)


def test_losses_do_not_mutate_inputs():
    theta = np.array([[0.1, 0.2], [0.3, 0.4]])
    X = np.array([[0.5, 0.5], [1.0, 0.0], [0.0, 1.0]])
    y = np.array([0.1, -0.2, 0.3])
    copies = [a.copy() for a in (theta, X, y)]
    test_losses(theta, X, y, 1.0)
    for a, b in zip((theta, X, y), copies):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("call, exc, pattern", [
    (lambda t, X, y: unregularized_loss(t, X, y[:-1]), ValueError, r"X_test must be \(N, d\) and y_test \(N,\)"),
    (lambda t, X, y: unregularized_loss(t[:1], X, y), ValueError, r"theta must have shape \(d,\) or \(R, d\) with d = 2"),
    (lambda t, X, y: unregularized_loss(t, X[0], y), ValueError, r"X_test must be 2-D"),
    (lambda t, X, y: unregularized_loss(t, np.where(X > 0.9, np.nan, X), y), ValueError, r"X_test\[1, 0\] = nan"),
    (lambda t, X, y: unregularized_loss(t, X, np.array([0.0, np.inf, 0.0])), ValueError, r"y_test\[1\] = inf"),
    (lambda t, X, y: unregularized_loss([0.0, np.nan], X, y), ValueError, r"theta\[1\] = nan"),
    (lambda t, X, y: unregularized_loss(t, X[:0], y[:0]), ValueError, r"X_test must not be empty"),
    (lambda t, X, y: regularized_loss(t, X, y, 0.0), ValueError, r"lam = 0\.0 is outside the allowed range \(0, inf\)"),
    (lambda t, X, y: test_losses(t, X, y, -1), ValueError, r"lam = -1\.0 is outside the allowed range \(0, inf\)"),
    (lambda t, X, y: test_losses(t, X, y, "1"), TypeError, r"lam must be a real number"),
    (lambda t, X, y: test_losses("abc", X, y, 1.0), TypeError, r"theta must be array-like"),
])
def test_loss_argument_errors(call, exc, pattern):
    theta = np.array([0.1, 0.2])
    X = np.array([[0.5, 0.5], [1.0, 0.0], [0.0, 1.0]])
    y = np.array([0.1, -0.2, 0.3])
    with pytest.raises(exc, match=pattern):
        call(theta, X, y)
