"""Tests of pdp_lib.audit.level_change: the privacy loss of a change of one slot's level.

Truths used: Theorem 3.1's calibration written out, the ridge solutions of the normal
equations, and in d = 1 the two Laplace densities ``(eta / 2) exp(-eta |o - theta|)``
integrated on a fine grid (``delta(epsilon)`` and ``P[L > epsilon]`` in closed form up to
quadrature), against which the Monte Carlo estimates must agree within five standard errors.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import ridge_normal_equations
from pdp_lib.audit import LevelChange, level_change_loss

X3 = np.array([[0.9], [0.2], [0.6]])
Y3 = np.array([0.8, -0.5, 0.3])
EPS3 = np.array([1.0, 0.5, 0.2])
LAM = 1.0
SIZE = 100_000


def _eta(eps, lam, d):
    # Theorem 3.1: eta = lam sum(eps) / (2 sqrt(d) (1 + sqrt(d) B(lam)))
    B = min(1 / np.sqrt(lam), np.sqrt(d) / lam)
    return lam * eps.sum() / (2 * np.sqrt(d) * (1 + np.sqrt(d) * B))


def _exact_d1(eta_a, theta_a, eta_b, theta_b, grid):
    """delta(eps) = int (p_a - e^eps p_b)_+ and P_a[log p_a / p_b > eps] by quadrature."""
    lo = min(theta_a, theta_b) - 60 / min(eta_a, eta_b)
    hi = max(theta_a, theta_b) + 60 / min(eta_a, eta_b)
    o = np.linspace(lo, hi, 2_000_001)
    pa = eta_a / 2 * np.exp(-eta_a * np.abs(o - theta_a))
    pb = eta_b / 2 * np.exp(-eta_b * np.abs(o - theta_b))
    log_ratio = np.log(pa) - np.log(pb)
    delta = np.array([np.trapezoid(np.clip(pa - np.exp(e) * pb, 0, None), o) for e in grid])
    exceed = np.array([np.trapezoid(pa * (log_ratio > e), o) for e in grid])
    return delta, exceed


def test_monte_carlo_matches_the_laplace_densities_in_one_dimension():
    res = level_change_loss(X3, Y3, EPS3, 0, 0.01, LAM, SIZE, rng=3)
    eps2 = EPS3.copy()
    eps2[0] = 0.01
    eta1, eta2 = _eta(EPS3, LAM, 1), _eta(eps2, LAM, 1)
    t1 = ridge_normal_equations(X3, Y3, EPS3 / EPS3.sum(), LAM)[0]
    t2 = ridge_normal_equations(X3, Y3, eps2 / eps2.sum(), LAM)[0]
    assert res.eta == pytest.approx((eta1, eta2), rel=1e-12)
    assert res.eta_part == pytest.approx((eta1 - eta2) / eta1, rel=1e-12)
    assert res.centre_part == pytest.approx(eta2 * abs(t1 - t2), rel=1e-9)
    d12, x12 = _exact_d1(eta1, t1, eta2, t2, res.grid)
    d21, x21 = _exact_d1(eta2, t2, eta1, t1, res.grid)
    delta, exceed = np.maximum(d12, d21), np.maximum(x12, x21)
    assert delta.min() > 0.1 and exceed.min() > 0.2          # a case with much to detect
    # (1 - e^(eps - L))_+ lies in [0, 1], so its variance is at most its mean
    np.testing.assert_array_less(np.abs(res.delta - delta), 5 * np.sqrt(delta / SIZE) + 1e-4)
    se = np.sqrt(exceed * (1 - exceed) / SIZE)
    np.testing.assert_array_less(np.abs(res.exceed - exceed), 5 * se + 1e-4)
    assert res.max_loss > 1


def test_no_change_of_level_is_no_loss():
    res = level_change_loss(X3, Y3, EPS3, 1, EPS3[1], LAM, 1000, rng=0)
    assert res.eta[0] == res.eta[1]
    assert res.max_loss == 0 and res.eta_part == 0 and res.centre_part == 0
    assert np.all(res.delta == 0) and np.all(res.exceed == 0)


def test_the_grid_and_the_nearest_level():
    full = level_change_loss(X3, Y3, EPS3, 0, 0.01, LAM, 5000, rng=9)
    assert len(full.grid) == 41
    np.testing.assert_allclose(full.grid, np.geomspace(1e-4, 1.0, 41), rtol=0)
    picked = full.grid[[20, 30, 40]]
    part = level_change_loss(X3, Y3, EPS3, 0, 0.01, LAM, 5000, rng=9, grid=picked)
    np.testing.assert_array_equal(part.delta, full.delta[[20, 30, 40]])
    np.testing.assert_array_equal(part.exceed, full.exceed[[20, 30, 40]])
    # nearest on a log scale: 0.04 is nearer 0.1 than 0.01 (linearly it is the other way)
    coarse = LevelChange(eta=(1.0, 1.0), grid=np.array([0.01, 0.1, 1.0]),
                         delta=np.array([3.0, 2.0, 1.0]), exceed=np.array([0.3, 0.2, 0.1]),
                         max_loss=0.0, eta_part=0.0, centre_part=0.0)
    assert coarse.at("delta", 0.04) == 2.0
    assert coarse.at("exceed", 0.02) == 0.3
    assert coarse.at("delta", 50.0) == 1.0


def test_bad_input_names_argument_and_range():
    with pytest.raises(ValueError, match=r"i = 3 is outside the allowed range"):
        level_change_loss(X3, Y3, EPS3, 3, 0.01, LAM, 10)
    with pytest.raises(ValueError, match="new_epsilon"):
        level_change_loss(X3, Y3, EPS3, 0, 0.0, LAM, 10)
    with pytest.raises(ValueError, match="grid"):
        level_change_loss(X3, Y3, EPS3, 0, 0.01, LAM, 10, grid=[0.1, -1.0])
    with pytest.raises(ValueError, match=r"epsilons\[2\]"):
        level_change_loss(X3, Y3, np.array([1.0, 0.5, 0.0]), 0, 0.01, LAM, 10)
    res = level_change_loss(X3, Y3, EPS3, 0, 0.01, LAM, 10, rng=0)
    with pytest.raises(ValueError, match="key"):
        res.at("eta", 0.1)
    with pytest.raises(ValueError, match="epsilon"):
        res.at("delta", 0.0)


def test_inputs_are_not_modified():
    X, y, eps = X3.copy(), Y3.copy(), EPS3.copy()
    level_change_loss(X, y, eps, 0, 0.01, LAM, 10, rng=0)
    np.testing.assert_array_equal(X, X3)
    np.testing.assert_array_equal(y, Y3)
    np.testing.assert_array_equal(eps, EPS3)
