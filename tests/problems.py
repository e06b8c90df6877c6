"""A shared small problem for the tests of the sufficient-statistics and gradient mechanisms."""

from __future__ import annotations

import numpy as np


def small_problem(n=8, d=2, seed=0):
    """``(X, y, epsilons)``: ``n`` rows of the domain in ``d`` features, levels from four values."""
    rng = np.random.default_rng(seed)
    return rng.random((n, d)), rng.uniform(-1, 1, n), rng.choice([0.2, 0.5, 1.0, 2.0], n)
