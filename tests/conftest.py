"""Shared fixtures and reference computations for the tests of :mod:`pdp_lib`.

Every random draw in the tests comes from a ``numpy.random.Generator`` seeded
from a fixed ``SeedSequence``, so the suite is deterministic.
"""

from __future__ import annotations

import numpy as np
import pytest


def make_domain_data(n: int, d: int, seed: int = 0):
    """Features uniform on ``[0,1]^d``, labels uniform on ``[-1,1]``, epsilons in ``[0.01, 1]``."""
    gen = np.random.default_rng(np.random.SeedSequence(seed))
    X = gen.random((n, d))
    y = gen.uniform(-1.0, 1.0, n)
    eps = gen.uniform(0.01, 1.0, n)
    return X, y, eps


def ridge_normal_equations(X, y, w, lam):
    """Eq. (2) solved straight from its normal equations (Lemma A.2 of the paper).

    ``(sum_i w_i x_i x_i^T + lam I) theta = sum_i w_i y_i x_i`` with
    ``numpy.linalg.solve``; written out here so the tests do not lean on the
    library's own solver.  ``X`` may carry leading batch axes: shapes
    ``(..., n, d)``, ``(..., n)``.
    """
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    w = np.asarray(w, float)
    d = X.shape[-1]
    A = np.einsum("...i,...ij,...ik->...jk", w, X, X) + lam * np.eye(d)
    b = np.einsum("...i,...i,...ij->...j", w, y, X)
    return np.linalg.solve(A, b[..., None])[..., 0]


@pytest.fixture
def rng():
    """A fresh, fixed-seed Generator for one test."""
    return np.random.default_rng(np.random.SeedSequence(20240601))


@pytest.fixture
def small_data():
    """A small dataset inside the domain: n = 12, d = 3."""
    return make_domain_data(12, 3, seed=7)
