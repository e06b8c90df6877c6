"""Tests of pdp_lib.accuracy (Theorem 3.3).

Truths used: hand-computed bound terms on a dataset with a known spectrum, the
normal equations solved directly, the exact Gamma law of ||Z||, the exact second
moment of the Gaussian label-noise term, and the triangle inequality run by run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from conftest import ridge_normal_equations
from pdp_lib import calibrate, make_synthetic
from pdp_lib.accuracy import (
    TERMS,
    accuracy_bound,
    accuracy_grid,
    sharp_accuracy_bound,
    simulate_accuracy,
    terms_sweep,
)


def _gen(seed):
    return np.random.default_rng(np.random.SeedSequence(seed))


def _diag_data():
    # X = [I; I] in d = 2 with equal weights: A = sum w x x^T = I / 2, lambda_min = 1/2
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    w = np.full(4, 0.25)
    return X, w


def test_accuracy_bound_hand_computed():
    X, w = _diag_data()
    lam, eta, tn, sigma, delta = 0.5, 4.0, 2.0, 0.3, 0.08
    t = accuracy_bound(X, w, lam, eta, tn, sigma, delta)
    assert t.bias == pytest.approx(2.0 / (1 + 0.5 / 0.5), rel=1e-12)            # = 1
    assert t.privacy == pytest.approx((2 + math.sqrt(4 / 0.08)) / 4.0, rel=1e-12)
    assert t.label == pytest.approx(0.3 / 0.5 * math.sqrt(4 / 0.08) * 0.5, rel=1e-12)  # ||w|| = 1/2
    assert t.total == pytest.approx(t.bias + t.privacy + t.label)


def test_sharp_bound_hand_computed():
    X, w = _diag_data()
    lam, eta, sigma, delta = 0.5, 4.0, 0.3, 0.08
    theta = np.array([1.0, -2.0])
    t = sharp_accuracy_bound(X, w, lam, eta, theta, sigma, delta)
    # H = I/2 + I/2 = I: bias = lam ||theta||; C = sigma^2 * (sum w^2 x x^T) = sigma^2 I / 8
    assert t.bias == pytest.approx(0.5 * math.sqrt(5), rel=1e-12)
    assert t.privacy == pytest.approx(stats.gamma.ppf(1 - delta / 2, 2, scale=1 / eta), rel=1e-12)
    c = 0.09 / 8
    assert t.label == pytest.approx(math.sqrt(2 * c) + math.sqrt(2 * c * math.log(2 / delta)), rel=1e-12)


@pytest.fixture(scope="module")
def runs():
    data = make_synthetic(60, 4, sigma=0.2, rng=_gen(1))
    eps = _gen(2).uniform(0.05, 1.0, 60)
    lam = 0.5
    cal = calibrate(eps, lam, 4)
    r = simulate_accuracy(data.X, data.coef, cal.weights, lam, cal.eta, 0.2, 20000, rng=_gen(3))
    return data, cal, lam, r


def test_simulation_bias_matches_normal_equations(runs):
    data, cal, lam, r = runs
    clean = ridge_normal_equations(data.X, data.X @ data.coef, cal.weights, lam)
    assert r.bias == pytest.approx(np.linalg.norm(clean - data.coef), rel=1e-10)
    H = (data.X * cal.weights[:, None]).T @ data.X + lam * np.eye(4)
    assert r.bias == pytest.approx(np.linalg.norm(lam * np.linalg.solve(H, data.coef)), rel=1e-10)


def test_simulation_error_obeys_triangle_inequality(runs):
    _, _, _, r = runs
    assert np.all(r.error <= r.bias + r.privacy + r.label + 1e-12)


def test_simulation_noise_norm_is_gamma(runs):
    _, cal, _, r = runs
    assert stats.kstest(r.privacy, "gamma", args=(4, 0, 1 / cal.eta)).pvalue > 1e-4


def test_simulation_label_term_second_moment(runs):
    data, cal, lam, r = runs
    X, w = data.X, cal.weights
    H = (X * w[:, None]).T @ X + lam * np.eye(4)
    Hinv = np.linalg.inv(H)
    Sig = 0.04 * (X * (w**2)[:, None]).T @ X
    tr_c = np.trace(Hinv @ Sig @ Hinv)
    m = np.mean(r.label**2)
    se = np.std(r.label**2) / math.sqrt(len(r.label))
    assert abs(m - tr_c) < 5 * se
    m2 = np.mean(r.s_norm**2)
    se2 = np.std(r.s_norm**2) / math.sqrt(len(r.s_norm))
    assert abs(m2 - np.trace(Sig)) < 5 * se2


@pytest.mark.parametrize("delta", [0.02, 0.1, 0.3])
def test_both_bounds_hold_with_probability_one_minus_delta(runs, delta):
    data, cal, lam, r = runs
    paper = accuracy_bound(data.X, cal.weights, lam, cal.eta, np.linalg.norm(data.coef), 0.2, delta)
    sharp = sharp_accuracy_bound(data.X, cal.weights, lam, cal.eta, data.coef, 0.2, delta)
    n = len(r.error)
    for t in (paper, sharp):
        k = int(np.sum(r.error > t.total))
        # the exceedance probability is at most delta: the empirical count must not reject it
        assert stats.binom.sf(k - 1, n, delta) > 1e-4
    # the exact Gamma quantile: ||Z|| exceeds it with probability exactly delta/2
    k = int(np.sum(r.privacy > sharp.privacy))
    assert abs(k / n - delta / 2) < 5 * math.sqrt(delta / 2 * (1 - delta / 2) / n)


def test_zero_label_noise():
    data = make_synthetic(30, 3, sigma=0.0, rng=_gen(4))
    w = np.full(30, 1 / 30)
    r = simulate_accuracy(data.X, data.coef, w, 1.0, 5.0, 0.0, 100, rng=_gen(5))
    assert np.all(r.label == 0)
    assert np.all(r.s_norm == 0)
    assert accuracy_bound(data.X, w, 1.0, 5.0, 1.0, 0.0, 0.1).label == 0


@pytest.mark.parametrize("kwargs, name", [
    (dict(sigma=-1.0), "sigma"),
    (dict(delta=0.0), "delta"),
    (dict(eta=0.0), "eta"),
    (dict(lam=-1.0), "lam"),
    (dict(theta_norm=-1.0), "theta_norm"),
])
def test_bad_input(kwargs, name):
    X, w = _diag_data()
    args = dict(X=X, weights=w, lam=1.0, eta=1.0, theta_norm=1.0, sigma=0.1, delta=0.1)
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        accuracy_bound(**args)


def test_accuracy_grid_repeats_the_runs_it_reports():
    # each record against an independent recomputation: the same generator, drawn in the grid's order
    data = make_synthetic(40, 3, sigma=0.1, rng=_gen(20))
    eps = {"a": _gen(21).uniform(0.05, 1.0, 40), "b": np.full(40, 0.5)}
    lams, sigmas, deltas = (0.1, 10.0), (0.05, 0.3), (0.05, 0.2)
    records = accuracy_grid(data.X, data.coef, eps, lams, sigmas, deltas, 500, rng=_gen(22))
    assert len(records) == 2 * 2 * 2 * 2
    gen = _gen(22)
    k = 0
    for pname, e in eps.items():
        for lam in lams:
            cal = calibrate(e, lam, 3)
            for sigma in sigmas:
                r = simulate_accuracy(data.X, data.coef, cal.weights, lam, cal.eta, sigma, 500, rng=gen)
                for dl in deltas:
                    rec = records[k]
                    k += 1
                    assert (rec["profile"], rec["lam"], rec["sigma"], rec["delta"]) == (pname, lam, sigma, dl)
                    paper = accuracy_bound(data.X, cal.weights, lam, cal.eta, np.linalg.norm(data.coef),
                                           sigma, dl).total
                    sharp = sharp_accuracy_bound(data.X, cal.weights, lam, cal.eta, data.coef, sigma, dl).total
                    assert rec["paper"] == paper and rec["sharp"] == sharp
                    assert rec["k_paper"] == np.sum(r.error > paper)
                    assert rec["k_sharp"] == np.sum(r.error > sharp)
                    assert rec["f_paper"] == rec["k_paper"] / 500 and rec["f_sharp"] == rec["k_sharp"] / 500
                    assert rec["q"] == np.quantile(r.error, 1 - dl)
                    assert rec["in_domain"] == r.labels_in_domain.mean()
                    assert rec["k_paper"] <= dl * 500          # Theorem 3.3 on these runs


def test_terms_sweep_against_closed_forms():
    data = make_synthetic(50, 4, sigma=0.1, rng=_gen(30))
    eps = _gen(31).uniform(0.05, 1.0, 50)
    lams, delta = np.array([0.05, 1.0, 50.0]), 0.1
    t = terms_sweep(data.X, data.coef, eps, lams, 0.2, delta, 3000, rng=_gen(32))
    assert set(t) == {*TERMS, *("e_" + k for k in TERMS), "sharp"}
    for j, lam in enumerate(lams):
        cal = calibrate(eps, lam, 4)
        H = (data.X * cal.weights[:, None]).T @ data.X + lam * np.eye(4)
        # the exact bias ||lam H^-1 theta*||, and the paper's bias term with lambda_min(A)
        assert t["e_bias"][j] == pytest.approx(np.linalg.norm(lam * np.linalg.solve(H, data.coef)), rel=1e-10)
        lmin = np.linalg.eigvalsh(H)[0] - lam
        assert t["bias"][j] == pytest.approx(np.linalg.norm(data.coef) / (1 + lmin / lam), rel=1e-9)
        # the privacy term against Chebyshev's radius, its quantity against the exact Gamma quantile
        assert t["privacy"][j] == pytest.approx((4 + math.sqrt(8 / delta)) / cal.eta, rel=1e-12)
        exact = stats.gamma.ppf(1 - delta / 2, 4, scale=1 / cal.eta)
        assert t["e_privacy"][j] == pytest.approx(exact, rel=0.1)
        assert t["total"][j] == pytest.approx(t["bias"][j] + t["privacy"][j] + t["label"][j], rel=1e-12)
    for k in TERMS:
        assert np.all(t[k] >= t["e_" + k])
