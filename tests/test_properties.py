"""Property-based tests (hypothesis) of the calibration and the sensitivity bound.

Over random shapes, privacy profiles and regularization levels:

* the weights of Theorems 3.1/3.2 sum to one and are proportional to epsilon;
* eta is linear in sum(epsilon) and follows Theorem 3.1 in lambda and d
  (checked against the piecewise closed form written out here);
* eta times the per-point sensitivity bound is exactly epsilon_i;
* same seed, same output; different seeds, different outputs; the estimator
  equals pdp_op under the same seed;
* Lemma A.1 and Theorem A.4 are never beaten by a brute-force neighbour search:
  point i replaced by random points, by every corner x' in {0,1}^d, y' in {-1,1},
  and by a bounded optimizer maximizing ||theta_bar(D) - theta_bar(D')||.

Settings are modest and derandomized so the run is deterministic.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import optimize

from conftest import ridge_normal_equations
from pdp_lib import PersonalizedRidge, calibrate, norm_bound, pdp_op, sensitivity_bound

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

log_floats = st.floats(min_value=-3.0, max_value=3.0).map(lambda e: 10.0 ** e)
eps_values = st.floats(min_value=-3.0, max_value=2.0).map(lambda e: 10.0 ** e)
dims = st.integers(min_value=1, max_value=30)


@st.composite
def profiles(draw, max_n=50):
    n = draw(st.integers(min_value=1, max_value=max_n))
    return np.array(draw(st.lists(eps_values, min_size=n, max_size=n)))


@st.composite
def datasets(draw, max_n=6, max_d=3):
    """A dataset in the domain: X in [0,1]^(n x d), y in [-1,1]^n, epsilons > 0."""
    n = draw(st.integers(min_value=1, max_value=max_n))
    d = draw(st.integers(min_value=1, max_value=max_d))
    X = draw(hnp.arrays(float, (n, d), elements=st.floats(0.0, 1.0)))
    y = draw(hnp.arrays(float, (n,), elements=st.floats(-1.0, 1.0)))
    eps = np.array(draw(st.lists(eps_values, min_size=n, max_size=n)))
    return X, y, eps


def theorem_31_eta(S, lam, d):
    """Theorem 3.1 written piecewise: B = 1/sqrt(lam) for lam <= d, sqrt(d)/lam for lam >= d."""
    if lam <= d:
        return lam * S / (2 * math.sqrt(d) * (1 + math.sqrt(d / lam)))
    return lam * lam * S / (2 * math.sqrt(d) * (lam + d))


# ---------------------------------------------------------------------------
# calibration
# ---------------------------------------------------------------------------

@SETTINGS
@given(eps=profiles(), lam=log_floats, d=dims)
def test_weights_sum_to_one_and_are_proportional(eps, lam, d):
    w = calibrate(eps, lam, d).weights
    assert abs(w.sum() - 1.0) <= 1e-12
    np.testing.assert_allclose(w * eps.sum(), eps, rtol=1e-12)
    i, j = int(np.argmin(eps)), int(np.argmax(eps))
    assert math.isclose(w[j] / w[i], eps[j] / eps[i], rel_tol=1e-12)


@SETTINGS
@given(eps=profiles(), lam=log_floats, d=dims, scale=log_floats)
def test_eta_follows_theorem_31(eps, lam, d, scale):
    cal = calibrate(eps, lam, d)
    S = float(eps.sum())
    assert math.isclose(cal.eta, theorem_31_eta(S, lam, d), rel_tol=1e-12)
    assert math.isclose(cal.B, min(1 / math.sqrt(lam), math.sqrt(d) / lam), rel_tol=1e-14)
    # linear in sum(epsilon)
    assert math.isclose(calibrate(eps * scale, lam, d).eta, scale * cal.eta, rel_tol=1e-12)
    # increasing in lambda (Section 3.3: less noise with more regularization), decreasing in d
    assert calibrate(eps, lam * 1.5, d).eta > cal.eta
    assert calibrate(eps, lam, d + 1).eta < cal.eta


@SETTINGS
@given(eps=profiles(), lam=log_floats, d=dims, B=log_floats)
def test_eta_follows_theorem_32(eps, lam, d, B):
    cal = calibrate(eps, lam, d, B=B)
    expected = lam * float(eps.sum()) / (2 * math.sqrt(d) * (B * math.sqrt(d) + 1))
    assert math.isclose(cal.eta, expected, rel_tol=1e-12)
    # B <= B(lambda) means less noise than Theorem 3.1, B >= B(lambda) more
    base = calibrate(eps, lam, d)
    if B <= base.B:
        assert cal.eta >= base.eta * (1 - 1e-12)
    else:
        assert cal.eta <= base.eta * (1 + 1e-12)


@SETTINGS
@given(eps=profiles(), lam=log_floats, d=dims, use_B=st.booleans(), B=log_floats)
def test_each_point_gets_its_epsilon(eps, lam, d, use_B, B):
    # privacy loss of point i under the L2-Laplace noise: eta * Delta_i = epsilon_i (Theorem 3.1/3.2 proof)
    Bv = B if use_B else None
    cal = calibrate(eps, lam, d, B=Bv)
    np.testing.assert_allclose(cal.eta * sensitivity_bound(cal.weights, lam, d, B=Bv), eps, rtol=1e-11)


# ---------------------------------------------------------------------------
# randomness and the estimator
# ---------------------------------------------------------------------------

seeds = st.integers(min_value=0, max_value=2**63 - 1)


@SETTINGS
@given(data=datasets(max_n=8, max_d=4), lam=log_floats, s1=seeds, s2=seeds)
def test_seeds_and_estimator(data, lam, s1, s2):
    X, y, eps = data
    a = pdp_op(X, y, eps, lam, rng=s1)
    np.testing.assert_array_equal(a, pdp_op(X, y, eps, lam, rng=s1))
    if s1 != s2:
        assert not np.array_equal(a, pdp_op(X, y, eps, lam, rng=s2))
    est = PersonalizedRidge(lam=lam, random_state=s1).fit(X, y, eps)
    np.testing.assert_array_equal(est.coef_, a)


# ---------------------------------------------------------------------------
# Lemma A.1 and Theorem A.4 against brute force
# ---------------------------------------------------------------------------

@SETTINGS
@given(data=datasets(max_n=8, max_d=4), lam=log_floats)
def test_norm_bound_holds(data, lam):
    X, y, eps = data
    theta = ridge_normal_equations(X, y, eps / eps.sum(), lam)
    assert np.linalg.norm(theta) <= norm_bound(lam, X.shape[1]) * (1 + 1e-10)


def _replaced(X, y, i, Xp, yp):
    """Batch of datasets with point i replaced by each row of (Xp, yp)."""
    k = len(Xp)
    XX = np.repeat(X[None], k, axis=0)
    yy = np.repeat(y[None], k, axis=0)
    XX[:, i] = Xp
    yy[:, i] = yp
    return XX, yy


def _worst_neighbour(X, y, w, lam, i, gen):
    """Largest ||theta_bar(D) - theta_bar(D')|| found over neighbours D' differing in point i."""
    n, d = X.shape
    base = ridge_normal_equations(X, y, w, lam)
    corners = np.array(list(itertools.product([0.0, 1.0], repeat=d)))
    Xp = np.vstack([np.repeat(corners, 2, axis=0), gen.random((32, d))])
    yp = np.concatenate([np.tile([-1.0, 1.0], len(corners)), gen.uniform(-1, 1, 32)])
    XX, yy = _replaced(X, y, i, Xp, yp)
    dist = np.linalg.norm(ridge_normal_equations(XX, yy, w, lam) - base, axis=1)
    best = float(dist.max())
    start = np.append(Xp[int(np.argmax(dist))], yp[int(np.argmax(dist))])

    def neg_dist(v):
        X2, y2 = X.copy(), y.copy()
        X2[i], y2[i] = v[:d], v[d]
        return -np.linalg.norm(ridge_normal_equations(X2, y2, w, lam) - base)

    bounds = [(0.0, 1.0)] * d + [(-1.0, 1.0)]
    for v0 in (start, np.append(gen.random(d), gen.uniform(-1, 1))):
        res = optimize.minimize(neg_dist, v0, method="L-BFGS-B", bounds=bounds)
        best = max(best, -float(res.fun))
    return best


@SETTINGS
@given(data=datasets(max_n=6, max_d=3), lam=log_floats, seed=st.integers(0, 2**32 - 1))
def test_sensitivity_bound_never_beaten(data, lam, seed):
    X, y, eps = data
    n, d = X.shape
    w = eps / eps.sum()
    bound = sensitivity_bound(w, lam, d)
    gen = np.random.default_rng(seed)
    for i in range(n):
        worst = _worst_neighbour(X, y, w, lam, i, gen)
        assert worst <= bound[i] * (1 + 1e-9), (i, worst, bound[i])


@settings(max_examples=15, deadline=None, derandomize=True, database=None)
@given(n=st.integers(1, 4), d=st.integers(1, 3), lam=log_floats, seed=st.integers(0, 2**32 - 1))
def test_sensitivity_bound_against_joint_optimizer(n, d, lam, seed):
    # Stronger adversary: the whole dataset D and the replacement of point 0 are optimized jointly
    # (features through a sigmoid into (0,1), labels through tanh into (-1,1)), weights fixed.
    gen = np.random.default_rng(seed)
    eps = 10.0 ** gen.uniform(-2, 0, n)
    w = eps / eps.sum()
    bound = sensitivity_bound(w, lam, d)[0]

    def neg_dist(v):
        X = 1 / (1 + np.exp(-np.clip(v[: n * d].reshape(n, d), -50, 50)))
        y = np.tanh(v[n * d: n * d + n])
        xp = 1 / (1 + np.exp(-np.clip(v[n * d + n: n * d + n + d], -50, 50)))
        yp = np.tanh(v[-1])
        X2, y2 = X.copy(), y.copy()
        X2[0], y2[0] = xp, yp
        return -np.linalg.norm(ridge_normal_equations(X, y, w, lam) - ridge_normal_equations(X2, y2, w, lam))

    best = 0.0
    for _ in range(3):
        v0 = gen.normal(scale=2.0, size=n * d + n + d + 1)
        res = optimize.minimize(neg_dist, v0, method="L-BFGS-B")
        best = max(best, -float(res.fun))
    assert best <= bound * (1 + 1e-9)


def test_brute_force_search_is_sharp_where_the_bound_is_tight():
    # For large lambda, theta_bar ~ (1/lam) sum_j w_j y_j x_j, so swapping (x, 1) for (x, -1) at the
    # corner x = (1, 1) moves theta_bar by ~ 2 sqrt(2) w_i / lam, while the bound tends to the same
    # value as B(lambda) = sqrt(d)/lam -> 0.  The search must come within 1% of the bound there, which
    # shows that it finds the worst neighbours rather than passing vacuously.
    X = np.array([[1.0, 1.0], [0.2, 0.7]])
    y = np.array([1.0, -0.3])
    w = np.array([0.6, 0.4])
    lam = 1e4
    bound = sensitivity_bound(w, lam, 2)[0]
    worst = _worst_neighbour(X, y, w, lam, 0, np.random.default_rng(0))
    assert 0.99 * bound <= worst <= bound
