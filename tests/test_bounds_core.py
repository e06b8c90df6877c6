"""Tests of the deterministic bounds of Appendix A.1: Lemma A.1 and Theorem A.4.

Truths used: hand-computed values, closed-form worst cases, and brute force
(corner data, random data, a generic optimizer) for the norm bound.  The
brute-force search for the sensitivity bound lives in test_properties.py.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import optimize, special

from conftest import ridge_normal_equations
from pdp_lib import noise_scale, norm_bound, sensitivity_bound, sharp_norm_bound


@pytest.mark.parametrize("lam, d, expected", [
    (1.0, 1, 1.0),         # min(1, 1)
    (4.0, 1, 0.25),        # min(1/2, 1/4)
    (0.25, 1, 2.0),        # min(2, 4)
    (1.0, 4, 1.0),         # min(1, 2)
    (16.0, 4, 0.125),      # min(1/4, 1/8)
    (4.0, 4, 0.5),         # the two bounds cross at lam = d
    (0.01, 100, 10.0),     # min(10, 1000)
    (200.0, 12, math.sqrt(12) / 200),
])
def test_norm_bound_hand_computed(lam, d, expected):
    assert norm_bound(lam, d) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("lam, d, B, expected", [
    # c = 2 sqrt(d) (1 + sqrt(d) B) / lam
    (1.0, 1, None, 4.0),            # B = 1: 2*1*2/1
    (2.0, 4, 0.5, 4.0),             # 2*2*(1+1)/2
    (16.0, 4, None, 0.3125),        # B = 1/8: 2*2*(1 + 1/4)/16 = 5/16
    (0.25, 9, None, 168.0),         # B = 2: 2*3*(1+6)/0.25
])
def test_noise_scale_hand_computed(lam, d, B, expected):
    assert noise_scale(lam, d, B) == pytest.approx(expected, rel=1e-15)


def test_sensitivity_bound_is_weight_times_scale():
    w = np.array([0.1, 0.2, 0.7])
    # lam = 1, d = 1: c = 4
    np.testing.assert_allclose(sensitivity_bound(w, 1.0, 1), 4 * w, rtol=1e-15)
    np.testing.assert_allclose(sensitivity_bound(w, 2.0, 4, B=0.5), 4 * w, rtol=1e-15)


def test_norm_bound_one_dimensional_worst_case():
    # d = 1, one point x = 1, y = 1: theta_bar = 1/(1 + lam); sup over lam of
    # (1/(1+lam)) / min(1/sqrt(lam), 1/lam) is 1/2 at lam = 1.  The bound holds with room.
    for lam in [1e-3, 0.1, 1.0, 10.0, 1e3]:
        theta = ridge_normal_equations([[1.0]], [1.0], [1.0], lam)[0]
        assert theta == pytest.approx(1 / (1 + lam), rel=1e-14)
        assert abs(theta) <= norm_bound(lam, 1)


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("lam", [1e-2, 0.3, 1.0, 3.0, 50.0])
def test_norm_bound_on_corner_datasets(d, lam):
    # Lemma A.1 on every dataset of n = 2 points at corners x in {0,1}^d, y in {-1,1},
    # with weights on a grid: ||theta_bar|| <= B(lambda).
    corners = [(np.array(x, float), yv) for x in itertools.product([0, 1], repeat=d) for yv in (-1.0, 1.0)]
    B = norm_bound(lam, d)
    worst = 0.0
    for (x1, y1), (x2, y2) in itertools.product(corners, repeat=2):
        for w1 in (0.0, 0.25, 0.5, 0.75, 1.0):
            t = ridge_normal_equations(np.vstack([x1, x2]), [y1, y2], [w1, 1 - w1], lam)
            worst = max(worst, float(np.linalg.norm(t)))
    assert worst <= B * (1 + 1e-12)
    # the enumeration contains every single corner point with weight 1 and y = 1, whose norm is
    # sqrt(k)/(k + lam) for k ones: the search must reach the best of them
    single = max(math.sqrt(k) / (k + lam) for k in range(1, d + 1))
    assert worst >= single * (1 - 1e-12)


@pytest.mark.parametrize("d, lam", [(2, 0.05), (3, 1.0), (2, 10.0)])
def test_norm_bound_against_optimizer(d, lam):
    # Maximize ||theta_bar|| over n = 3 points in the domain and the weights (softmax).
    n = 3
    B = norm_bound(lam, d)

    def neg_norm(v):
        X = special.expit(v[: n * d].reshape(n, d))             # sigmoid -> (0, 1)
        y = np.tanh(v[n * d: n * d + n])                       # -> (-1, 1)
        z = v[n * d + n:]
        w = np.exp(z - z.max())
        w /= w.sum()
        return -np.linalg.norm(ridge_normal_equations(X, y, w, lam))

    gen = np.random.default_rng(np.random.SeedSequence(d * 1000 + int(lam * 100)))
    best = 0.0
    for _ in range(8):
        v0 = gen.normal(scale=2.0, size=n * d + 2 * n)
        res = optimize.minimize(neg_norm, v0, method="Nelder-Mead",
                                options={"maxiter": 4000, "xatol": 1e-8, "fatol": 1e-12})
        best = max(best, -res.fun)
    assert best <= B * (1 + 1e-12)
    assert best > 0.05 * B  # the search found something sizeable (it is not vacuous)
    assert best >= sharp_norm_bound(lam, d) * (1 - 1e-6)  # ... indeed the exact supremum B*(lambda)
