"""Tests of pdp_lib.audit.sensitivity_checks (instances for Lemma A.3 and the slot search of Theorem A.4).

Truths used: finite differences of the returned functions, the spectrum of their Hessians
(by finite differences of the gradients), the closed-form minimizer of a quadratic, a direct
solve of eq. (2) on the two modified datasets, and the bounds of pdp_lib.bounds.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import make_domain_data, ridge_normal_equations
from pdp_lib.audit.sensitivity_checks import minimize_smooth, slot_search, strongly_convex_pair
from pdp_lib.bounds import sensitivity_bound, sharp_norm_bound


def _gen(seed):
    return np.random.default_rng(np.random.SeedSequence(seed))


def _hessian(f, t, h=1e-5):
    d = len(t)
    cols = [(f(t + h * e)[1] - f(t - h * e)[1]) / (2 * h) for e in np.eye(d)]
    H = np.array(cols)
    return 0.5 * (H + H.T)


@pytest.mark.parametrize("convex_g", [True, False])
@pytest.mark.parametrize("d", [1, 3, 6])
def test_gradients_match_finite_differences(convex_g, d):
    G, g = strongly_convex_pair(_gen(d), d, 0.7, convex_g)
    gen = _gen(100 + d)
    h = 1e-6
    for _ in range(5):
        t = gen.normal(size=d)
        for f in (G, g):
            fd = np.array([(f(t + h * e)[0] - f(t - h * e)[0]) / (2 * h) for e in np.eye(d)])
            assert np.allclose(f(t)[1], fd, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("convex_g", [True, False])
def test_strong_convexity_of_G_and_G_plus_g(convex_g):
    d, gamma = 4, 0.8
    G, g = strongly_convex_pair(_gen(7), d, gamma, convex_g)
    mu = 0.0 if convex_g else 0.5 * gamma
    gen = _gen(8)
    smallest_g = np.inf
    for _ in range(20):
        t = 3 * gen.normal(size=d)
        HG, Hg = _hessian(G, t), _hessian(g, t)
        assert np.linalg.eigvalsh(HG)[0] >= (gamma + mu) * (1 - 1e-5)
        assert np.linalg.eigvalsh(HG + Hg)[0] >= gamma * (1 - 1e-5)
        smallest_g = min(smallest_g, np.linalg.eigvalsh(Hg)[0])
    if convex_g:
        assert smallest_g >= -1e-5
    else:
        assert smallest_g < 0          # g is not convex: its Hessian has a negative direction
    # far from the origin the log cosh terms are flat, so the Hessian of G is P, whose smallest
    # eigenvalue is exactly gamma + mu
    far = 1e3 * np.ones(d)
    assert np.linalg.eigvalsh(_hessian(G, far, h=1e-3))[0] == pytest.approx(gamma + mu, rel=1e-4)


def test_same_generator_same_pair():
    G1, _ = strongly_convex_pair(_gen(3), 3, 1.0)
    G2, _ = strongly_convex_pair(_gen(3), 3, 1.0)
    t = np.array([0.3, -0.2, 1.1])
    assert G1(t)[0] == G2(t)[0]


def test_minimize_smooth_on_a_quadratic():
    P = np.array([[3.0, 1.0], [1.0, 2.0]])
    q = np.array([1.0, -4.0])
    t = minimize_smooth(lambda t: (0.5 * t @ P @ t + q @ t, P @ t + q), 2)
    assert np.allclose(t, np.linalg.solve(P, -q), atol=1e-9)


def test_lemma_holds_on_the_instances():
    # Lemma A.3: gamma ||theta_1 - theta_2|| <= ||grad g(theta_1)||
    gen = _gen(11)
    for convex_g in (True, False):
        for _ in range(10):
            d, gamma = int(gen.integers(1, 5)), float(gen.exponential(1.0)) + 0.05
            G, g = strongly_convex_pair(gen, d, gamma, convex_g)
            t2 = minimize_smooth(G, d)
            t1 = minimize_smooth(lambda t: tuple(u + v for u, v in zip(G(t), g(t))), d)
            assert gamma * np.linalg.norm(t1 - t2) <= np.linalg.norm(g(t1)[1]) * (1 + 1e-6)


def test_slot_search_against_direct_solves_and_bounds():
    X, y, eps = make_domain_data(30, 3, seed=5)
    w = eps / eps.sum()
    lam = 2.0
    res = slot_search(X, y, w, lam, 4, 3, n_starts=3, n_iter=40, rng=_gen(6))
    order = np.argsort(-w, kind="stable")
    assert list(res.indices[:4]) == list(order[:4])
    assert len(set(res.indices)) == 7 and not set(res.indices[4:]) & set(order[:4])
    assert np.allclose(res.bound, sensitivity_bound(w, lam, 3)[res.indices], rtol=1e-15)
    assert np.allclose(res.bound_sharp, (w * 2 * np.sqrt(3) * (np.sqrt(3) * sharp_norm_bound(lam, 3) + 1)
                                         / lam)[res.indices], rtol=1e-12)
    assert np.all(res.distance <= res.bound_sharp) and np.all(res.bound_sharp <= res.bound)
    assert np.all(res.distance >= res.vertex * (1 - 1e-9))
    # the floor is the pair at the all-ones vertex with labels +1 and -1, solved directly
    for k, i in enumerate(res.indices):
        Xa = X.copy()
        Xa[i] = 1.0
        ya, yb = y.copy(), y.copy()
        ya[i], yb[i] = 1.0, -1.0
        direct = np.linalg.norm(ridge_normal_equations(Xa, ya, w, lam)
                                - ridge_normal_equations(Xa, yb, w, lam))
        assert res.vertex[k] == pytest.approx(direct, rel=1e-10)


def test_slot_search_ties_are_broken_by_index():
    X, y, _ = make_domain_data(12, 2, seed=9)
    w = np.full(12, 1 / 12)
    res = slot_search(X, y, w, 1.0, 5, 0, n_starts=2, n_iter=5, rng=_gen(1))
    assert list(res.indices) == [0, 1, 2, 3, 4]


def test_slot_search_refuses_too_many_slots():
    X, y, _ = make_domain_data(5, 2, seed=2)
    with pytest.raises(ValueError, match="n_top"):
        slot_search(X, y, np.full(5, 0.2), 1.0, 4, 2, rng=_gen(0))
