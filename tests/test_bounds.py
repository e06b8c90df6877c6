"""Tests of the bounds added for the theory chapters: the exact supremum of ||theta_bar||
(sharpening Lemma A.1) and the tail quantities of ||Z|| used in the proof of Theorem 3.3.

Truths used: closed forms (single-point maximizers, Gamma moments), brute force over
corner datasets and a generic optimizer over the box, and Monte Carlo draws of the
library's own sampler checked against scipy's Gamma distribution.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import optimize, special, stats

from conftest import ridge_normal_equations
from pdp_lib.bounds import (
    noise_norm_chebyshev,
    noise_norm_quantile,
    norm_bound,
    sharp_norm_bound,
)


@pytest.mark.parametrize("lam, d, expected", [
    (1.0, 1, 0.5),                     # lam <= d: 1/(2 sqrt(lam))
    (0.25, 4, 1.0),
    (4.0, 4, 0.25),                    # at lam = d both branches give 1/(2 sqrt(d))
    (9.0, 1, 1.0 / 10.0),              # lam > d: sqrt(d)/(d + lam)
    (100.0, 4, 2.0 / 104.0),
])
def test_sharp_norm_bound_hand_computed(lam, d, expected):
    assert sharp_norm_bound(lam, d) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("d", [1, 3, 12])
def test_sharp_norm_bound_is_continuous_and_between_half_and_full_paper_bound(d):
    lams = np.geomspace(1e-3, 1e4, 400)
    sharp = np.array([sharp_norm_bound(l, d) for l in lams])
    paper = np.array([norm_bound(l, d) for l in lams])
    assert np.all(sharp <= paper * (1 + 1e-12))
    assert np.all(sharp >= 0.5 * paper * (1 - 1e-12))
    # factor exactly 2 below the crossing lam = d
    below = lams <= d
    np.testing.assert_allclose(paper[below] / sharp[below], 2.0, rtol=1e-12)
    # continuity at lam = d
    assert sharp_norm_bound(d * (1 - 1e-12), d) == pytest.approx(sharp_norm_bound(d * (1 + 1e-12), d), rel=1e-9)


@pytest.mark.parametrize("lam, d", [(0.3, 1), (0.5, 3), (2.0, 3), (10.0, 3), (50.0, 2)])
def test_sharp_norm_bound_attained_by_one_point(lam, d):
    # one point, weight 1, ||x|| = min(sqrt(lam), sqrt(d)), y = 1
    r = min(math.sqrt(lam), math.sqrt(d))
    x = np.full(d, r / math.sqrt(d))
    theta = ridge_normal_equations(x[None, :], np.array([1.0]), np.array([1.0]), lam)
    assert np.linalg.norm(theta) == pytest.approx(sharp_norm_bound(lam, d), rel=1e-12)


@pytest.mark.parametrize("lam, d", [(0.05, 2), (1.0, 2), (5.0, 2), (0.2, 3)])
def test_sharp_norm_bound_never_beaten_by_corner_datasets(lam, d):
    # every dataset of n = 3 corner points (x in {0,1}^d scaled by a grid), labels +-1, weights on a grid
    scales = [0.25, 0.5, 1.0]
    corners = [np.array(c, float) * s for c in itertools.product([0, 1], repeat=d) for s in scales]
    gen = np.random.default_rng(np.random.SeedSequence(11))
    worst = 0.0
    for _ in range(4000):
        idx = gen.integers(0, len(corners), 3)
        X = np.stack([corners[k] for k in idx])
        y = gen.choice([-1.0, 1.0], 3)
        w = gen.dirichlet(np.ones(3))
        worst = max(worst, np.linalg.norm(ridge_normal_equations(X, y, w, lam)))
    assert worst <= sharp_norm_bound(lam, d) * (1 + 1e-12)
    assert worst >= 0.99 * sharp_norm_bound(lam, d)    # the random search comes close to the supremum


@pytest.mark.parametrize("lam, d", [(0.1, 2), (3.0, 2), (20.0, 2)])
def test_sharp_norm_bound_matches_optimizer_over_the_box(lam, d):
    # n = 2 points, free weights: maximize ||theta_bar|| with L-BFGS-B from many starts
    gen = np.random.default_rng(np.random.SeedSequence(5))

    def neg(z):
        X = z[: 2 * d].reshape(2, d)
        y = z[2 * d: 2 * d + 2]
        a = z[-1]
        w = np.array([a, 1 - a])
        return -np.linalg.norm(ridge_normal_equations(X, y, w, lam))

    bounds = [(0, 1)] * (2 * d) + [(-1, 1)] * 2 + [(0, 1)]
    best = 0.0
    for _ in range(40):
        z0 = np.array([gen.uniform(lo, hi) for lo, hi in bounds])
        res = optimize.minimize(neg, z0, method="L-BFGS-B", bounds=bounds)
        best = max(best, -res.fun)
    target = sharp_norm_bound(lam, d)
    assert best <= target * (1 + 1e-9)
    assert best >= target * (1 - 1e-6)


def test_noise_norm_chebyshev_hand_computed():
    # d = 8, delta = 0.04: (8 + sqrt(16/0.04)) / eta = (8 + 20) / 2
    assert noise_norm_chebyshev(2.0, 8, 0.04) == pytest.approx(14.0, rel=1e-15)


@pytest.mark.parametrize("d, delta", [(1, 0.5), (4, 0.1), (12, 0.05), (30, 0.01)])
def test_noise_norm_chebyshev_tail_at_most_half_delta(d, delta):
    # exact Gamma tail at the Chebyshev radius, from the regularized incomplete gamma function
    eta = 3.0
    r = noise_norm_chebyshev(eta, d, delta)
    tail = special.gammaincc(d, eta * r)
    assert tail <= delta / 2


@pytest.mark.parametrize("d, prob", [(1, 0.5), (5, 0.9), (12, 0.975)])
def test_noise_norm_quantile_inverts_the_gamma_cdf(d, prob):
    eta = 0.7
    q = noise_norm_quantile(eta, d, prob)
    assert special.gammainc(d, eta * q) == pytest.approx(prob, rel=1e-10)
    if d == 1:  # exponential: closed form
        assert q == pytest.approx(-math.log(1 - prob) / eta, rel=1e-12)


def test_noise_norm_quantile_matches_the_library_sampler():
    from pdp_lib import sample_l2_laplace

    eta, d = 2.5, 6
    z = sample_l2_laplace(eta, d, size=40000, rng=np.random.default_rng(np.random.SeedSequence(3)))
    r = np.linalg.norm(z, axis=1)
    q = noise_norm_quantile(eta, d, 0.9)
    # the empirical frequency below q is Binomial(40000, 0.9): 5 standard errors = 0.0075
    assert abs(np.mean(r <= q) - 0.9) < 0.0075
    assert stats.kstest(r, "gamma", args=(d, 0, 1 / eta)).pvalue > 1e-4


@pytest.mark.parametrize("fn, args, name", [
    (sharp_norm_bound, (0.0, 2), "lam"),
    (sharp_norm_bound, (1.0, 0), "d"),
    (noise_norm_chebyshev, (-1.0, 2, 0.1), "eta"),
    (noise_norm_chebyshev, (1.0, 2, 1.0), "delta"),
    (noise_norm_quantile, (1.0, 2, 0.0), "prob"),
])
def test_bad_input_names_the_argument(fn, args, name):
    with pytest.raises(ValueError, match=name):
        fn(*args)
