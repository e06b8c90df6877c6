"""Tests of personalized noisy gradient descent (pdp_lib.mechanisms.noisy_gd) and its clipped variants
(pdp_lib.experiments.gradient_descent) against independent truths.

The gradient's sensitivity by brute force over the domain's corners and the sphere; every corner neighbour's shift
of one step's lattice centre, recomputed in fractions, against ``mu*_i / sqrt(T)``; the reduction, draw for draw, to
the published non-personalized full-batch noisy gradient descent at equal levels; the clipped variants against a
transcription, and against each other at equal levels; refusals of bad input.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import pdp_lib
from pdp_lib.curves import tolerated_gaussian_mus
from pdp_lib.experiments.gradient_descent import gd_draws
from pdp_lib.mechanisms import lattice
from pdp_lib.mechanisms import noisy_gd as N
from pdp_lib.mechanisms.exact_sampling import RandomBits
from problems import small_problem as _problem

DELTA = 1e-5


@pytest.mark.parametrize("d, R", [(1, 1.0), (2, 1.0), (3, 1.0), (2, 0.3), (3, 3.0)])
def test_the_gradient_sensitivity_bounds_every_pair_of_the_domain(d, R):
    rng = np.random.default_rng(d)
    thetas = [R * v / np.linalg.norm(v) for v in rng.normal(size=(1500, d))]
    thetas += [R * np.array(s) / math.sqrt(d) for s in itertools.product([-1, 1], repeat=d)]
    corners = [np.array(c, dtype=float) for c in itertools.product([0.0, 1.0], repeat=d)]
    worst = 0.0
    for th in thetas:
        for x, xp in itertools.product(corners, corners):
            for y, yp in itertools.product((-1.0, 1.0), (-1.0, 1.0)):
                worst = max(worst, np.linalg.norm((x @ th - y) * x - (xp @ th - yp) * xp))
    G = N.gd_sensitivity(R, d)
    assert worst <= G * (1 + 1e-12)
    assert worst > 0.6 * G                     # not vacuous
    for _ in range(3000):                      # interior points and inner thetas never exceed it either
        x, xp, th = rng.random(d), rng.random(d), R * rng.uniform(-1, 1, d) / math.sqrt(d)
        y, yp = rng.uniform(-1, 1, 2)
        assert np.linalg.norm((x @ th - y) * x - (xp @ th - yp) * xp) <= G


def sqrt_up(v: Fraction) -> Fraction:
    return Fraction(math.isqrt(math.ceil(v * 4**40)) + 1, 2**40)


def _centre(X, y, mus, theta, g):
    """One step's lattice centre, recomputed in fractions from the weighted sums."""
    gram, moment, _ = lattice.weighted_sums(X, y, mus)
    d, S = X.shape[1], Fraction(math.fsum(mus))
    upper = np.triu(gram)
    G = upper + np.triu(upper, 1).T
    out = []
    for j in range(d):
        v = sum(Fraction(float(G[j, k])) * Fraction(float(theta[k])) for k in range(d)) - Fraction(float(moment[j]))
        out.append(round(v / S * 2**g))
    return out


@pytest.mark.parametrize("steps", [1, 7])
def test_no_neighbour_shifts_a_step_more_than_its_share_on_the_lattice(steps):
    X, y, eps = _problem()
    X[::2], y[::2] = 1.0, 1.0
    n, d = X.shape
    mus = tolerated_gaussian_mus(eps, DELTA)
    radius = pdp_lib.norm_bound(0.5, d)
    cal = N.gd_calibration(math.fsum(mus), float(mus.min()), d, DELTA, steps, radius, 0.1,
                           rounds=lattice.rounds_bound(n))
    gamma, sigma = Fraction(1, 2**cal.step_exponent), Fraction(cal.sigma)
    rng = np.random.default_rng(1)
    thetas = [radius * v / np.linalg.norm(v) for v in rng.normal(size=(6, d))]
    thetas += [radius * np.array([1.0, 1.0]) / math.sqrt(2), -radius * np.array([1.0, 1.0]) / math.sqrt(2)]
    worst = 0.0
    grid = list(itertools.product(*[np.linspace(0, 1, 5)] * d, [-1.0, 1.0]))
    for theta in thetas:
        base = _centre(X, y, mus, theta, cal.step_exponent)
        for i, corner in itertools.product(range(n), grid):
            X2, y2 = X.copy(), y.copy()
            X2[i], y2[i] = corner[:d], corner[d]
            other = _centre(X2, y2, mus, theta, cal.step_exponent)
            shift = sqrt_up(sum(Fraction(u - v) ** 2 for u, v in zip(base, other))) * gamma / sigma
            assert shift * sqrt_up(Fraction(steps)) <= Fraction(mus[i]) * (1 + Fraction(1, 2**30))
            worst = max(worst, float(shift) * math.sqrt(steps) / mus[i])
    assert 0.4 < worst <= 1.0


def _published(X, y, lam, sigma, steps, step_size, radius, gen):
    """Full-batch noisy gradient descent as published (non-personalized): the mean gradient plus N(0, sigma^2)."""
    theta = np.zeros(X.shape[1])
    for _ in range(steps):
        noise = gen.standard_normal((1, X.shape[1]))[0]
        grad = X.T @ (X @ theta - y) / len(y) + sigma * noise
        theta = theta - step_size * (grad + lam * theta)
        if np.linalg.norm(theta) > radius:
            theta = theta * (radius / np.linalg.norm(theta))
    return theta


def test_at_equal_levels_it_is_published_noisy_gradient_descent():
    X, y, _ = _problem(n=30, d=3, seed=2)
    eps = np.full(30, 0.4)
    theta = N.noisy_gd(X, y, eps, 0.5, DELTA, 3, steps=12, sampler="float")
    mu = tolerated_gaussian_mus([0.4], DELTA)[0]
    radius = pdp_lib.norm_bound(0.5, 3)
    sigma = N.gd_sensitivity(radius, 3) * math.sqrt(12) / (30 * mu)        # G sqrt(T) / (n mu*)
    expected = _published(X, y, 0.5, sigma, 12, 1 / 3.5, radius, np.random.default_rng(3))
    assert np.allclose(theta, expected, rtol=1e-9, atol=1e-12)
    # and the clipped variants coincide there, with the unclipped one when nothing is clipped
    runs = [gd_draws(X, y, eps, 0.5, DELTA, np.random.default_rng(4), 3, personalization=p, clip=c, steps=5)
            for p in ("weights", "clipping") for c in (None, 0.7)]
    assert np.allclose(runs[0], runs[2]) and np.allclose(runs[1], runs[3])


def test_the_clipped_draws_follow_a_transcription():
    X, y, eps = _problem(n=20, d=2, seed=5)
    mus = tolerated_gaussian_mus(eps, DELTA)
    radius, lam, steps, C = pdp_lib.norm_bound(1.0, 2), 1.0, 4, 0.5
    G = N.gd_sensitivity(radius, 2)
    for pers in ("weights", "clipping"):
        got = gd_draws(X, y, eps, lam, DELTA, np.random.default_rng(6), 1, personalization=pers, clip=C, steps=steps)
        if pers == "weights":
            w, c = mus / mus.sum(), np.full(20, C)
            sigma = math.sqrt(steps) * min(2 * C, G) / mus.sum()
        else:
            w, c = np.full(20, 1 / 20), C * mus * np.mean(1 / mus)          # Boenisch et al.'s C_i = C mean(s) / s_i
            sigma = math.sqrt(steps) * max(min(2 * ci, G) / m for ci, m in zip(c, mus)) / 20
        gen, theta = np.random.default_rng(6), np.zeros(2)
        for _ in range(steps):
            grads = [(x @ theta - t) * x for x, t in zip(X, y)]
            grads = [g * min(1.0, ci / np.linalg.norm(g)) if np.linalg.norm(g) > 0 else g for g, ci in zip(grads, c)]
            step = sum(wi * g for wi, g in zip(w, grads)) + sigma * gen.standard_normal((1, 2))[0]
            theta = theta - (step + lam * theta) / (2 + lam)
            theta = theta if np.linalg.norm(theta) <= radius else theta * radius / np.linalg.norm(theta)
        assert np.allclose(got[0], theta, rtol=1e-9, atol=1e-12)


def _former_gd_draws(X, y, eps, lam, gen, draws, personalization, clip, steps, batch):
    """The runs of ``gd_draws`` as first written (every product formed whole, the clipping factor even without a
    clip): the reference its in-place steps must equal bit for bit."""
    n, d = X.shape
    steps, radius, step_size = N.check_gd_settings(lam, d, steps, None, None)
    reach = tolerated_gaussian_mus(eps, DELTA)
    G, C = N.gd_sensitivity(radius, d), math.inf if clip is None else clip
    if personalization == "weights":
        weights, norms = reach / reach.sum(), np.full(n, C)
        sigma = math.sqrt(steps) * min(2 * C, G) / reach.sum()
    else:
        weights, norms = np.full(n, 1 / n), C * reach * np.mean(1 / reach)
        sigma = math.sqrt(steps) * float(np.max(np.minimum(2 * norms, G) / reach)) / n
    row_norms, out = np.linalg.norm(X, axis=1), []
    for start in range(0, draws, batch):
        theta = np.zeros((min(batch, draws - start), d))
        for _ in range(steps):
            residual = theta @ X.T - y
            scale = np.minimum(1.0, norms / np.maximum(np.abs(residual) * row_norms, 1e-300))
            grad = (residual * scale * weights) @ X + sigma * gen.standard_normal(theta.shape)
            theta = N.project_rows(theta - step_size * (grad + lam * theta), radius)
        out.append(theta)
    return np.vstack(out)


@pytest.mark.parametrize("personalization", ["weights", "clipping"])
@pytest.mark.parametrize("clip", [None, 0.05, 0.4, 50.0])
def test_the_in_place_steps_are_the_former_steps_bit_for_bit(personalization, clip):
    X, y, eps = _problem(n=60, d=4, seed=11)
    X[7] = 0.0                                      # a row of zeros: its gradient is 0, clipped or not
    eps = eps * np.where(np.arange(60) % 3 == 0, 4.0, 1.0)          # levels that differ
    for lam, steps, draws, batch in ((0.3, 40, 7, 3), (2.0, 9, 5, 100)):
        got = gd_draws(X, y, eps, lam, DELTA, np.random.default_rng(8), draws, personalization=personalization,
                       clip=clip, steps=steps, batch=batch)
        want = _former_gd_draws(X, y, eps, lam, np.random.default_rng(8), draws, personalization, clip, steps, batch)
        assert np.array_equal(got, want)


def test_the_vectorized_runs_are_the_release_from_the_sums():
    X, y, eps = _problem(n=40, d=3, seed=7)
    theta = N.noisy_gd(X, y, eps, 1.0, DELTA, 8, steps=6, sampler="float")
    assert np.allclose(gd_draws(X, y, eps, 1.0, DELTA, np.random.default_rng(8), 1, steps=6)[0], theta,
                       rtol=1e-9, atol=1e-12)


def test_the_exact_run_is_reproducible_on_the_ball_and_near_the_real_noise():
    X, y, eps = _problem(n=50, d=3, seed=9)
    a = N.noisy_gd(X, y, eps, 1.0, DELTA, RandomBits(3), steps=5)
    b = N.noisy_gd(X, y, eps, 1.0, DELTA, RandomBits(3), steps=5)
    assert np.array_equal(a, b) and np.linalg.norm(a) <= pdp_lib.norm_bound(1.0, 3)
    mus = tolerated_gaussian_mus(eps, DELTA)
    args = (math.fsum(mus), float(mus.min()), 3, DELTA, 5, pdp_lib.norm_bound(1.0, 3), 0.25)
    exact, real = N.gd_calibration(*args, rounds=lattice.rounds_bound(50)), N.gd_calibration(*args)
    assert 1 <= exact.sigma / real.sigma < 1 + 1e-4


@pytest.mark.parametrize("kwargs, message", [
    ({"steps": 0}, "steps"), ({"steps": 2.5}, "steps"), ({"radius": 0.0}, "radius"), ({"radius": -1.0}, "radius"),
    ({"step_size": 0.0}, "step_size"), ({"sampler": "fast"}, "sampler"),
])
def test_bad_settings_are_refused_by_name(kwargs, message):
    X, y, eps = _problem()
    with pytest.raises((ValueError, TypeError), match=message):
        N.noisy_gd(X, y, eps, 1.0, DELTA, 0, **kwargs)


def test_bad_problems_are_refused():
    X, y, eps = _problem()
    for delta in (0.0, 1.0, float("nan")):
        with pytest.raises(ValueError, match="delta"):
            N.noisy_gd(X, y, eps, 1.0, delta, 0)
    with pytest.raises(ValueError, match="lam"):
        N.noisy_gd(X, y, eps, -1.0, DELTA, 0)
    with pytest.raises(ValueError, match="personalization"):
        gd_draws(X, y, eps, 1.0, DELTA, np.random.default_rng(0), 1, personalization="sample")
    with pytest.raises(ValueError, match="clip"):
        gd_draws(X, y, eps, 1.0, DELTA, np.random.default_rng(0), 1, clip=0.0)


def test_clipped_gradients_move_by_at_most_the_smaller_bound():
    # clipping is a projection on a ball: two clipped gradients of the domain are at most min(2C, G) apart
    rng = np.random.default_rng(11)
    for d, R, C in [(1, 1.0, 0.3), (2, 1.0, 5.0), (3, 0.5, 1.0), (4, 2.0, 0.05)]:
        G = N.gd_sensitivity(R, d)
        theta = R * rng.uniform(-1, 1, (4000, d)) / math.sqrt(d)
        x, xp = rng.random((4000, d)), rng.random((4000, d))
        x[:1000], xp[:1000] = 1.0, 0.0
        y, yp = rng.uniform(-1, 1, 4000), rng.uniform(-1, 1, 4000)
        g = (np.sum(x * theta, 1) - y)[:, None] * x
        gp = (np.sum(xp * theta, 1) - yp)[:, None] * xp
        clip = lambda v: v * np.minimum(1.0, C / np.maximum(np.linalg.norm(v, axis=1), 1e-300))[:, None]  # noqa
        assert np.all(np.linalg.norm(clip(g) - clip(gp), axis=1) <= min(2 * C, G) * (1 + 1e-12))


def test_with_vanishing_noise_the_exact_run_is_gradient_descent():
    # levels so large that sigma is tiny: the exact release's iterates follow noiseless projected descent
    X, y, _ = _problem(n=400, d=2, seed=12)
    eps = np.full(400, 5e4)
    lam, steps = 1.0, 15
    theta = N.noisy_gd(X, y, eps, lam, DELTA, RandomBits(4), steps=steps)
    A, b = X.T @ X / 400, X.T @ y / 400
    clean, radius = np.zeros(2), pdp_lib.norm_bound(lam, 2)
    for _ in range(steps):
        clean = clean - (A @ clean - b + lam * clean) / (2 + lam)
        clean = clean if np.linalg.norm(clean) <= radius else clean * radius / np.linalg.norm(clean)
    mus = tolerated_gaussian_mus(eps, DELTA)
    sigma = N.gd_calibration(mus.sum(), mus.min(), 2, DELTA, steps, radius, 1 / 3).sigma
    assert sigma < 1e-3 and np.linalg.norm(theta - clean) < 20 * sigma
