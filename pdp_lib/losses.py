"""Test losses of Section 4 ("Metrics"), vectorized over runs.

Unregularized test loss: ``(1/N) sum_i (y_i - x_i^T theta)^2``; regularized
test loss: that plus ``lam ||theta||^2`` with the training ``lam``.
"""

from __future__ import annotations

import numpy as np

from .validation import check_finite, check_positive

__all__ = ["test_losses", "unregularized_loss", "regularized_loss"]


def _prepare(theta, X, y):
    theta = check_finite(theta, "theta", ndim=(1, 2))
    X = check_finite(X, "X_test", ndim=(2,))
    y = check_finite(y, "y_test", ndim=(1,))
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0] or X.shape[0] < 1:
        raise ValueError(f"X_test must be (N, d) and y_test (N,), got {X.shape} and {y.shape}")
    if theta.ndim not in (1, 2) or theta.shape[-1] != X.shape[1]:
        raise ValueError(f"theta must have shape (d,) or (R, d) with d = {X.shape[1]}, got {theta.shape}")
    return theta, X, y


def unregularized_loss(theta, X_test, y_test) -> np.ndarray:
    """Mean squared error on the test set (Section 4, metric (1)); one value per row of ``theta``."""
    theta, X, y = _prepare(theta, X_test, y_test)
    resid = theta @ X.T - y  # (R, N) or (N,)
    return np.mean(resid**2, axis=-1)


def regularized_loss(theta, X_test, y_test, lam) -> np.ndarray:
    """Test MSE plus ``lam ||theta||^2`` (Section 4, metric (2))."""
    lam = check_positive(lam, "lam")
    theta, X, y = _prepare(theta, X_test, y_test)
    return unregularized_loss(theta, X, y) + lam * np.sum(theta**2, axis=-1)


def test_losses(theta, X_test, y_test, lam) -> tuple[np.ndarray, np.ndarray]:
    """Both metrics of Section 4: ``(unregularized, regularized)``."""
    lam = check_positive(lam, "lam")
    theta_arr, X, y = _prepare(theta, X_test, y_test)
    unreg = unregularized_loss(theta_arr, X, y)
    return unreg, unreg + lam * np.sum(theta_arr**2, axis=-1)


test_losses.__test__ = False  # not a pytest test despite the name
