"""Tests of pdp_lib.audit: the replacement geometry, the worst-neighbour search, the exact
privacy loss of output perturbation, the datasets of a worst pair and the Clopper--Pearson
black-box audit of a pair.

Truths used: the normal equations solved directly on the modified datasets, brute force
over grids of replacement records, a closed-form worst case (all other points at the
origin), closed-form Laplace densities in d = 1 and d = 2, and the binomial distribution.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.spatial.distance import pdist

from conftest import make_domain_data, ridge_normal_equations
from pdp_lib import calibrate, pdp_op, sensitivity_bound, weighted_ridge
from pdp_lib.bounds import sharp_norm_bound
from pdp_lib.audit import (
    ReplacementGeometry,
    audit_pair,
    clopper_pearson,
    epsilon_lower_bound,
    likelihood_ratio_scores,
    log_density_ratio,
    projection_scores,
    realized_privacy_loss,
    sample_mechanism,
    threshold_audit,
    vertex_lower_bound,
    worst_neighbour,
    worst_neighbours,
    worst_pair_datasets,
)


def _gen(seed):
    return np.random.default_rng(np.random.SeedSequence(seed))


def _weights(n, seed):
    w = _gen(seed).random(n) + 0.05
    return w / w.sum()


def _replace(X, y, i, u, v):
    X2, y2 = X.copy(), y.copy()
    X2[i], y2[i] = u, v
    return X2, y2


# ------------------------------------------------------------------ geometry
@pytest.mark.parametrize("n, d, lam", [(1, 1, 0.5), (5, 3, 0.01), (40, 6, 2.0)])
def test_replaced_matches_normal_equations(n, d, lam):
    X, y, _ = make_domain_data(n, d, seed=n + d)
    w = _weights(n, 1)
    geom = ReplacementGeometry(X, y, w, lam)
    gen = _gen(2)
    U = gen.random((n, 4, d))
    V = gen.uniform(-1, 1, (n, 4))
    got = geom.replaced(U, V)
    for i in range(n):
        for s in range(4):
            X2, y2 = _replace(X, y, i, U[i, s], V[i, s])
            np.testing.assert_allclose(got[i, s], ridge_normal_equations(X2, y2, w, lam), atol=1e-10)
    # the slot's own record gives back theta_bar
    np.testing.assert_allclose(geom.replaced(X, y), np.tile(ridge_normal_equations(X, y, w, lam), (n, 1)),
                               atol=1e-10)


def test_worst_label_is_at_an_end_point():
    # for a fixed replacement x', ||theta(D) - theta(D')|| over a grid of y' peaks at y' = +-1
    X, y, _ = make_domain_data(15, 3, seed=4)
    w = _weights(15, 3)
    geom = ReplacementGeometry(X, y, w, 0.2, indices=[3])
    gen = _gen(9)
    vs = np.linspace(-1, 1, 201)
    for _ in range(20):
        u = gen.random(3)
        th = geom.replaced(np.tile(u, (1, 201, 1)), vs[None, :])[0]
        dist = np.linalg.norm(th - geom.theta_bar, axis=1)
        assert dist.max() == pytest.approx(max(dist[0], dist[-1]), rel=1e-12)


# ------------------------------------------------------------------ search vs brute force
def _grid(d, k):
    g = np.linspace(0, 1, k)
    return np.array(np.meshgrid(*([g] * d), indexing="ij")).reshape(d, -1).T


@pytest.mark.parametrize("lam, seed", [(0.05, 0), (1.0, 1), (20.0, 2)])
def test_worst_neighbour_beats_brute_force_grid(lam, seed):
    n, d = 12, 2
    X, y, _ = make_domain_data(n, d, seed=seed)
    w = _weights(n, seed)
    G = _grid(d, 201)
    res_all = worst_neighbours(X, y, w, lam, rng=seed)
    for i in (0, 5, 11):
        geom = ReplacementGeometry(X, y, w, lam, indices=[i])
        brute = 0.0
        for v in (-1.0, 1.0):
            th = geom.replaced(G[None], np.full((1, len(G)), v))[0]
            brute = max(brute, np.linalg.norm(th - geom.theta_bar, axis=1).max())
        one = worst_neighbour(X, y, w, lam, i, rng=seed)
        assert one.distance[0] >= brute * (1 - 1e-9)
        assert res_all.distance[i] >= brute * (1 - 1e-3)
        assert one.distance[0] <= sensitivity_bound(w, lam, d)[i]
        # the reported neighbour reproduces the reported distance
        X2, y2 = _replace(X, y, i, one.x_b[0], one.y_b[0])
        assert np.linalg.norm(ridge_normal_equations(X, y, w, lam)
                              - ridge_normal_equations(X2, y2, w, lam)) == pytest.approx(one.distance[0], rel=1e-9)


@pytest.mark.parametrize("d, k", [(1, 2001), (2, 61)])
def test_pair_search_beats_brute_force_diameter(d, k):
    n, lam = 8, 0.1
    X, y, _ = make_domain_data(n, d, seed=20 + d)
    w = _weights(n, 21)
    i = 2
    geom = ReplacementGeometry(X, y, w, lam, indices=[i])
    G = _grid(d, k)
    pts = np.concatenate([geom.replaced(G[None], np.full((1, len(G)), v))[0] for v in (-1.0, 1.0)])
    brute = pdist(pts).max()
    res = worst_neighbour(X, y, w, lam, i, pair=True, rng=0)
    assert res.distance[0] >= brute * (1 - 1e-9)
    assert res.distance[0] <= sensitivity_bound(w, lam, d)[i]


@pytest.mark.parametrize("d, lam, wi", [(1, 0.5, 0.3), (2, 4.0, 0.1), (3, 0.01, 0.2)])
def test_pair_search_finds_closed_form_worst_case(d, lam, wi):
    # others at the origin contribute nothing: theta(D_{i<-(u,v)}) = w v u / (lam + w ||u||^2);
    # the diameter over the domain is max_{0 <= s <= sqrt(d)} 2 w s / (lam + w s^2)
    n = 4
    X = np.zeros((n, d))
    y = np.array([0.3, -0.2, 0.9, 0.0])
    w = np.array([wi] + [(1 - wi) / (n - 1)] * (n - 1))
    s_star = min(math.sqrt(lam / wi), math.sqrt(d))
    closed = 2 * wi * s_star / (lam + wi * s_star**2)
    res = worst_neighbour(X, y, w, lam, 0, pair=True, rng=1)
    assert res.distance[0] == pytest.approx(closed, rel=1e-7)


def test_vectorized_and_scipy_searches_agree():
    X, y, _ = make_domain_data(30, 4, seed=8)
    w = _weights(30, 8)
    allr = worst_neighbours(X, y, w, 0.3, rng=3)
    for i in (0, 17, 29):
        one = worst_neighbour(X, y, w, 0.3, i, rng=4)
        assert one.distance[0] >= allr.distance[i] * (1 - 1e-9)
        assert allr.distance[i] >= one.distance[0] * (1 - 1e-2)


# ------------------------------------------------------------------ privacy loss
@pytest.mark.parametrize("lam, pair", [(0.1, False), (3.0, True)])
def test_realized_loss_never_exceeds_epsilon(lam, pair):
    X, y, eps = make_domain_data(25, 3, seed=31)
    res = realized_privacy_loss(X, y, eps, lam, pair=pair, rng=0)
    d = X.shape[1]
    B = min(1 / np.sqrt(lam), np.sqrt(d) / lam)                      # Theorem 3.1, written out
    eta = lam * eps.sum() / (2 * np.sqrt(d) * (1 + np.sqrt(d) * B))
    delta = 2 * np.sqrt(d) * (eps / eps.sum()) * (np.sqrt(d) * B + 1) / lam  # Theorem A.4
    np.testing.assert_allclose(res.bound, eta * delta, rtol=1e-12)
    np.testing.assert_allclose(eta * delta, eps, rtol=1e-12)
    assert np.all(res.loss <= eps)
    assert np.all(res.loss > 0)
    # ... and never below the certified lower bound of explicit records (a search returning 0 fails)
    lower = res.eta * vertex_lower_bound(X, y, eps / eps.sum(), lam, pair=pair)
    assert np.all(lower > 0)
    assert np.all(res.loss >= lower * (1 - 1e-9))
    cal = calibrate(eps, lam, 3)
    assert res.eta == pytest.approx(cal.eta)


def _origin_dataset(d, wi, n=4):
    # every point but slot 0 at the origin: the supremum for slot 0 is known in closed form
    X = np.zeros((n, d))
    y = np.linspace(-0.6, 0.9, n)
    w = np.array([wi] + [(1 - wi) / (n - 1)] * (n - 1))
    return X, y, w


def _origin_supremum(d, lam, wi):
    # max over two records of slot 0 of ||theta_bar(D_a) - theta_bar(D_b)|| (chapter Sensitivity,
    # Proposition "A dataset that nearly attains the bound"): max_{0 <= s <= sqrt(d)} 2 w s / (lam + w s^2)
    s = min(math.sqrt(lam / wi), math.sqrt(d))
    return 2 * wi * s / (lam + wi * s**2)


@pytest.mark.parametrize("d, lam, wi", [(1, 0.5, 0.3), (2, 4.0, 0.1), (3, 0.01, 0.2), (1, 1e3, 0.25)])
def test_vectorized_pair_search_reaches_the_known_supremum(d, lam, wi):
    X, y, w = _origin_dataset(d, wi)
    closed = _origin_supremum(d, lam, wi)
    res = worst_neighbours(X, y, w, lam, indices=[0], pair=True, rng=2)
    assert res.distance[0] <= closed * (1 + 1e-9)
    assert res.distance[0] >= 0.99 * closed          # reaches the supremum: a vacuous search fails here


@pytest.mark.parametrize("d, lam", [(1, 0.5), (2, 4.0), (3, 0.05)])
def test_realized_loss_reaches_the_known_supremum(d, lam):
    X, y, _ = _origin_dataset(d, 0.3, n=5)
    eps = np.array([0.9, 0.3, 0.6, 0.2, 1.0])
    cal = calibrate(eps, lam, d)
    closed = cal.eta * _origin_supremum(d, lam, cal.weights[0])
    res = realized_privacy_loss(X, y, eps, lam, pair=True, rng=5)
    assert res.loss[0] <= min(closed * (1 + 1e-9), eps[0])
    assert res.loss[0] >= 0.99 * closed


@pytest.mark.parametrize("pair", [False, True])
def test_vertex_lower_bound_matches_direct_solves(pair):
    n, d, lam = 15, 3, 0.4
    X, y, _ = make_domain_data(n, d, seed=70)
    w = _weights(n, 70)
    lower = vertex_lower_bound(X, y, w, lam, pair=pair)
    theta = ridge_normal_equations(X, y, w, lam)
    for i in range(n):
        plus = ridge_normal_equations(*_replace(X, y, i, np.ones(d), 1.0), w, lam)
        minus = ridge_normal_equations(*_replace(X, y, i, np.ones(d), -1.0), w, lam)
        expected = (np.linalg.norm(plus - minus) if pair
                    else max(np.linalg.norm(theta - plus), np.linalg.norm(theta - minus)))
        assert lower[i] == pytest.approx(expected, rel=1e-10)
    assert np.all(lower > 0)
    assert np.all(lower <= sensitivity_bound(w, lam, d))


@pytest.mark.parametrize("lam, pair, n_iter", [(0.05, False, 0), (0.05, True, 0), (2.0, False, 30),
                                               (2.0, True, 30), (300.0, True, 150)])
def test_searches_never_end_below_the_vertex_lower_bound(lam, pair, n_iter):
    # the starts contain the records of vertex_lower_bound and the ascent is monotone, so even
    # without a single iteration the search reaches it
    n, d = 20, 4
    X, y, _ = make_domain_data(n, d, seed=71)
    w = _weights(n, 71)
    lower = vertex_lower_bound(X, y, w, lam, pair=pair)
    res = worst_neighbours(X, y, w, lam, pair=pair, n_starts=3, n_iter=n_iter, rng=6)
    assert np.all(res.distance >= lower * (1 - 1e-9))
    assert np.all(res.distance <= sensitivity_bound(w, lam, d))
    one = worst_neighbour(X, y, w, lam, 7, pair=pair, n_starts=3, n_iter=n_iter, rng=6)
    assert one.distance[0] >= lower[7] * (1 - 1e-9)


# ------------------------------------------------------------------ the sharp calibration, falsified
@pytest.mark.parametrize("lam", [1e3, 1e4])
def test_sharp_calibration_never_beaten_and_nearly_attained_in_one_dimension(lam):
    # calibrate(..., B=B*(lambda)) (chapter Sensitivity, Corollary): the adversarial search never finds
    # a pair above eps_i, and for d = 1 and large lambda it comes within 1% of it
    X, y, eps = make_domain_data(25, 1, seed=80)
    B = sharp_norm_bound(lam, 1)
    res = realized_privacy_loss(X, y, eps, lam, B=B, pair=True, rng=0)
    cal = calibrate(eps, lam, 1, B=B)
    np.testing.assert_allclose(res.bound, cal.eta * sensitivity_bound(cal.weights, lam, 1, B=B), rtol=1e-12)
    np.testing.assert_allclose(res.bound, eps, rtol=1e-12)       # eta * Delta_i(B*) = eps_i
    assert np.all(res.loss <= eps)
    assert np.max(res.loss / eps) >= 0.99


@pytest.mark.parametrize("d, lam", [(1, 0.01), (2, 0.05), (3, 0.5), (5, 20.0)])
@pytest.mark.parametrize("pair", [False, True])
def test_sharp_calibration_never_beaten(d, lam, pair):
    X, y, eps = make_domain_data(30, d, seed=81 + d)
    B = sharp_norm_bound(lam, d)
    res = realized_privacy_loss(X, y, eps, lam, B=B, pair=pair, rng=1)
    assert np.all(res.loss <= eps)
    lower = res.eta * vertex_lower_bound(X, y, eps / eps.sum(), lam, pair=pair)
    assert np.all(res.loss >= lower * (1 - 1e-9))


def test_log_density_ratio_supremum_is_eta_times_distance():
    gen = _gen(40)
    d, eta = 5, 1.7
    ta, tb = gen.normal(size=d), gen.normal(size=d)
    delta = np.linalg.norm(ta - tb)
    o = gen.normal(scale=3.0, size=(20000, d))
    assert np.all(log_density_ratio(o, ta, eta, tb) <= eta * delta + 1e-12)
    e = (ta - tb) / delta
    ray = ta + np.linspace(0, 50, 11)[:, None] * e
    np.testing.assert_allclose(log_density_ratio(ray, ta, eta, tb), eta * delta, rtol=1e-12)
    # the opposite ray attains the infimum -eta * delta
    np.testing.assert_allclose(log_density_ratio(tb - np.linspace(0, 5, 6)[:, None] * e, ta, eta, tb),
                               -eta * delta, rtol=1e-12)


@pytest.mark.parametrize("d", [1, 2])
def test_log_density_ratio_with_two_noise_levels_matches_closed_form_densities(d):
    # d = 1: eta/2 exp(-eta|z|); d = 2: eta^2/(2 pi) exp(-eta r)
    def dens(z, eta):
        r = np.linalg.norm(z, axis=-1)
        c = eta / 2 if d == 1 else eta**2 / (2 * math.pi)
        return c * np.exp(-eta * r)

    gen = _gen(41)
    ta, tb = gen.normal(size=d), gen.normal(size=d)
    o = gen.normal(size=(50, d))
    got = log_density_ratio(o, ta, 2.0, tb, 0.5)
    np.testing.assert_allclose(got, np.log(dens(o - ta, 2.0)) - np.log(dens(o - tb, 0.5)), rtol=1e-10)
    # different noise levels: unbounded along a ray (the normalizers no longer cancel)
    far = ta + np.array([1e2, 1e4])[:, None] * np.ones(d) / math.sqrt(d)
    vals = log_density_ratio(far, ta, 0.5, tb, 2.0)
    assert vals[1] > 100 * vals[0] > 0


def test_sample_mechanism_reproduces_pdp_op_draw_for_draw():
    X, y, eps = make_domain_data(20, 3, seed=50)
    one = sample_mechanism(X, y, eps, 0.7, size=1, rng=np.random.default_rng(123))
    ref = pdp_op(X, y, eps, 0.7, rng=np.random.default_rng(123), sampler="float")
    np.testing.assert_allclose(one[0], ref, rtol=0, atol=1e-14)


# ------------------------------------------------------------------ Clopper--Pearson and the audit
@pytest.mark.parametrize("n, alpha", [(10, 0.05), (1000, 0.01)])
def test_clopper_pearson_closed_forms(n, alpha):
    assert clopper_pearson(0, n, alpha, "upper") == pytest.approx(1 - alpha ** (1 / n), rel=1e-10)
    assert clopper_pearson(n, n, alpha, "lower") == pytest.approx(alpha ** (1 / n), rel=1e-10)
    assert clopper_pearson(n, n, alpha, "upper") == 1.0
    assert clopper_pearson(0, n, alpha, "lower") == 0.0


@pytest.mark.parametrize("k, n", [(1, 20), (7, 50), (300, 1000)])
def test_clopper_pearson_solves_the_binomial_tail_equations(k, n):
    alpha = 0.05
    hi = clopper_pearson(k, n, alpha, "upper")
    lo = clopper_pearson(k, n, alpha, "lower")
    assert stats.binom.cdf(k, n, hi) == pytest.approx(alpha, rel=1e-8)
    assert stats.binom.sf(k - 1, n, lo) == pytest.approx(alpha, rel=1e-8)


def test_epsilon_lower_bound_hand_computed():
    # TPR = 1 with n = 1000 (lower bound alpha^(1/n) at level 0.025), FPR = 0 (upper bound 1 - 0.025^(1/n))
    n = 1000
    lo = 0.025 ** (1 / n)
    hi = 1 - 0.025 ** (1 / n)
    expected = max(math.log(lo / hi), math.log((1 - hi) / (1 - lo)))
    assert epsilon_lower_bound(n, n, 0, n, alpha=0.05) == pytest.approx(expected, rel=1e-9)
    # identical rates carry no evidence
    assert epsilon_lower_bound(500, 1000, 500, 1000) == 0.0


def test_threshold_audit_is_valid_and_powerful_on_the_laplace_mechanism():
    # d = 1: theta = 0 versus 1 with eta = 1, privacy loss exactly 1
    gen = _gen(60)
    sd = gen.laplace(0.0, 1.0, 60000)
    sp = gen.laplace(-1.0, 1.0, 60000)
    res = threshold_audit(projection_scores(sd[:, None], np.array([0.0]), np.array([-1.0])),
                          projection_scores(sp[:, None], np.array([0.0]), np.array([-1.0])))
    assert 0.8 <= res.epsilon_lower <= 1.0
    assert res.n_eval == 30000
    # identical distributions: a 95% lower bound is positive in about 5% of audits at most
    positives = 0
    for s in range(40):
        g = _gen(100 + s)
        r = threshold_audit(g.laplace(0, 1, 2000), g.laplace(0, 1, 2000))
        positives += r.epsilon_lower > 0
    assert positives <= 6


def test_likelihood_ratio_scores_are_bounded_by_the_loss():
    gen = _gen(61)
    ta, tb = np.array([0.5, 0.0, 0.0]), np.zeros(3)
    o = gen.normal(size=(1000, 3))
    s = likelihood_ratio_scores(o, ta, tb, 2.0)
    assert np.all(np.abs(s) <= 2.0 * 0.5 + 1e-12)


def test_worst_pair_datasets_hold_the_records_found_in_their_slot():
    X, y, _ = make_domain_data(15, 3, seed=80)
    w = _weights(15, 80)
    X0, y0 = X.copy(), y.copy()
    found = worst_neighbours(X, y, w, 0.4, indices=[9, 2], pair=True, rng=0)
    for k, i in enumerate((9, 2)):
        X_a, y_a, X_b, y_b = worst_pair_datasets(X, y, found, i)
        rest = np.arange(15) != i
        for Xr, yr in ((X_a, y_a), (X_b, y_b)):
            np.testing.assert_array_equal(Xr[rest], X[rest])
            np.testing.assert_array_equal(yr[rest], y[rest])
        np.testing.assert_array_equal(X_a[i], found.x_a[k])
        np.testing.assert_array_equal(X_b[i], found.x_b[k])
        assert (y_a[i], y_b[i]) == (found.y_a[k], found.y_b[k])
        gap = ridge_normal_equations(X_a, y_a, w, 0.4) - ridge_normal_equations(X_b, y_b, w, 0.4)
        assert np.linalg.norm(gap) == pytest.approx(found.distance[k], rel=1e-9)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    with pytest.raises(ValueError, match=r"i = 5 is outside the allowed range"):
        worst_pair_datasets(X, y, found, 5)


def test_audit_pair_certifies_most_of_a_nearly_tight_pair():
    # d = 1, slot 0 at (1, +1) against (1, -1), the others at the origin: the exact loss from
    # Theorem 3.1's eta written out and the normal equations, nearly eps_0 = 1
    n, lam = 20, 100.0
    X = np.zeros((n, 1))
    X[0] = 1.0
    y_a = np.zeros(n)
    y_a[0] = 1.0
    eps = np.ones(n)
    res = audit_pair(X, y_a, X, -y_a, eps, lam, 20_000, rng=7)
    B = min(1 / np.sqrt(lam), 1 / lam)
    eta = lam * eps.sum() / (2 * (1 + B))
    w = eps / eps.sum()
    gap = ridge_normal_equations(X, y_a, w, lam) - ridge_normal_equations(X, -y_a, w, lam)
    exact = eta * np.linalg.norm(gap)
    assert res.exact == pytest.approx(exact, rel=1e-12)
    assert 0.98 < exact < 1.0
    for test in (res.projection, res.likelihood_ratio):
        assert 0.85 * exact <= test.epsilon_lower <= exact
        assert test.n_eval == 10_000


def test_audit_pair_draws_d_then_d_prime_from_one_generator():
    X, y, eps = make_domain_data(12, 2, seed=70)
    X_b, y_b = _replace(X, y, 3, np.array([1.0, 0.0]), -1.0)
    gen = np.random.default_rng(5)
    sa = sample_mechanism(X, y, eps, 0.5, 400, rng=gen)
    sb = sample_mechanism(X_b, y_b, eps, 0.5, 400, rng=gen)
    cal = calibrate(eps, 0.5, 2)
    ta, tb = weighted_ridge(X, y, cal.weights, 0.5), weighted_ridge(X_b, y_b, cal.weights, 0.5)
    projection = threshold_audit(projection_scores(sa, ta, tb), projection_scores(sb, ta, tb))
    likelihood = threshold_audit(likelihood_ratio_scores(sa, ta, tb, cal.eta),
                                 likelihood_ratio_scores(sb, ta, tb, cal.eta))
    for rng in (5, np.random.default_rng(5)):      # an int seed makes one generator too
        res = audit_pair(X, y, X_b, y_b, eps, 0.5, 400, rng=rng)
        assert res.projection == projection and res.likelihood_ratio == likelihood


# ------------------------------------------------------------------ bad input
def test_bad_input_names_argument_and_range():
    X, y, eps = make_domain_data(5, 2, seed=0)
    w = np.full(5, 0.2)
    with pytest.raises(ValueError, match=r"i = 5 is outside the allowed range \[0, 4\]"):
        worst_neighbour(X, y, w, 1.0, 5)
    with pytest.raises(ValueError, match=r"indices\[1\] = -1"):
        worst_neighbours(X, y, w, 1.0, indices=[0, -1])
    with pytest.raises(ValueError, match=r"k\[0\] = 11 is outside the allowed range \[0, 10\]"):
        clopper_pearson(11, 10)
    with pytest.raises(ValueError, match="alpha"):
        clopper_pearson(1, 10, alpha=1.5)
    bad = X.copy()
    bad[2, 1] = 1.5
    with pytest.raises(ValueError, match=r"X\[2, 1\]"):
        worst_neighbours(bad, y, w, 1.0)
    with pytest.raises(ValueError, match="lam"):
        realized_privacy_loss(X, y, eps, 0.0)
    with pytest.raises(ValueError, match="coincide"):
        projection_scores(np.zeros((3, 2)), np.ones(2), np.ones(2))


def test_inputs_are_not_modified():
    X, y, eps = make_domain_data(10, 2, seed=3)
    X0, y0 = X.copy(), y.copy()
    w = np.full(10, 0.1)
    worst_neighbours(X, y, w, 1.0, rng=0)
    worst_neighbour(X, y, w, 1.0, 3, rng=0)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


@pytest.mark.parametrize("lam, d", [(0.2, 2), (30.0, 3)])
def test_largest_norm_dataset_stays_in_domain_and_below_the_supremum(lam, d):
    from pdp_lib.audit import largest_norm_dataset

    res = largest_norm_dataset(lam, d, n_starts=4, rng=0)
    assert np.all((res.X >= 0) & (res.X <= 1)) and np.all(np.abs(res.y) <= 1)
    assert res.weights.sum() == pytest.approx(1.0)
    assert res.norm == pytest.approx(np.linalg.norm(ridge_normal_equations(res.X, res.y, res.weights, lam)))
    assert res.norm <= sharp_norm_bound(lam, d) * (1 + 1e-9)
    assert res.norm >= sharp_norm_bound(lam, d) * (1 - 1e-6)     # ... and reaches it
