"""Clipped, re-weighted gradient descent under pure DP (pdp_lib.experiments.gradient_descent.clipped_pure_gd_draws)
and its place in the benchmark (pdp_lib.experiments.advice.clipped_gd_losses, with_clipped, choose_clipped), against
independent truths: each row's clipped gradient and the noise written out row by row from the same stream; a clip
above every gradient against the unclipped descent from the sums; the largest move of one row's clipped term by brute
force against the bound the rate uses; the training rows against the comparison's sums; the development tables'
choice by brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pdp_lib.bounds import norm_bound
from pdp_lib.experiments import advice
from pdp_lib.experiments.gradient_descent import clipped_pure_gd_draws, pure_gd_draws, pure_gd_rate
from pdp_lib.mechanisms.noisy_gd import gd_sensitivity
from pdp_lib.mechanisms.output_perturbation import sample_l2_laplace_unchecked


def _problem(n=120, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.uniform(size=(n, d - 1)), np.ones(n)])
    y = np.clip(X[:, :-1] @ rng.uniform(-1.0, 1.0, d - 1) - 0.3 + 0.4 * rng.standard_normal(n), -1, 1)
    eps = rng.choice([0.05, 0.5, 1.0], n)
    return X, y, eps


@pytest.mark.parametrize("clip", [0.05, 0.4, 100.0])
def test_the_steps_written_out_row_by_row_from_the_same_stream(clip):
    X, y, eps = _problem()
    n, d = X.shape
    lam, steps, draws, batch, seed = 0.5, 3, 7, 3, 11
    start = np.r_[np.zeros(d - 1), 0.2]
    got = clipped_pure_gd_draws(X, y, eps, lam, seed, draws, clip=clip, steps=steps, open_intercept=True, start=start,
                                batch=batch)
    gen = np.random.default_rng(seed)
    radius, tau, S = norm_bound(lam, d), 1.0 / (d + lam), eps.sum()
    eta = S / (steps * min(2 * clip, math.sqrt(d) * (math.sqrt(d) * radius + 2)))
    penalty = np.r_[np.full(d - 1, lam), 0.0]
    want = []
    for lo in range(0, draws, batch):
        runs = min(batch, draws - lo)
        theta = np.tile(start, (runs, 1))
        for _ in range(steps):
            grads = np.zeros((runs, d))
            for r in range(runs):
                for i in range(n):
                    g = (X[i] @ theta[r] - y[i]) * X[i]
                    norm = np.linalg.norm(g)
                    grads[r] += eps[i] / S * (g if norm <= clip else g * clip / norm)
            theta = theta - tau * (grads + sample_l2_laplace_unchecked(eta, d, runs, gen) + penalty * theta)
            norms = np.linalg.norm(theta, axis=1)
            theta = np.where((norms > radius)[:, None], theta * (radius / norms)[:, None], theta)
        want.append(theta)
    assert np.allclose(got, np.vstack(want), rtol=1e-9, atol=1e-12)


def test_a_clip_above_every_gradient_leaves_the_unclipped_descent_from_the_sums():
    X, y, eps = _problem(d=3)
    lam, steps = 0.3, 6
    A, b = (X * eps[:, None]).T @ X, X.T @ (eps * y)
    G = gd_sensitivity(norm_bound(lam, 3), 3)
    clipped = clipped_pure_gd_draws(X, y, eps, lam, None, 1, clip=G, steps=steps, noise=False)
    plain = pure_gd_draws(A, b, eps.sum(), lam, None, 1, steps=steps, noise=False)
    assert np.allclose(clipped, plain, rtol=1e-12, atol=1e-14)
    # and its noise is the unclipped rate once 2C >= G; below, the rate grows as the clip shrinks
    radius = norm_bound(lam, 3)
    assert pure_gd_rate(eps.sum(), 3, steps, radius, clip=G / 2) == pure_gd_rate(eps.sum(), 3, steps, radius)
    assert pure_gd_rate(eps.sum(), 3, steps, radius, clip=0.1) == pytest.approx(eps.sum() / (steps * 0.2), rel=1e-15)


@pytest.mark.parametrize("clip", [0.1, 1.0, 50.0])
def test_one_row_moves_a_step_by_at_most_its_weight_times_the_bound_the_rate_uses(clip):
    # brute force over the domain's corners (the intercept at 1), the labels' ends and iterates in the ball
    d, lam = 3, 0.5
    radius = norm_bound(lam, d)
    corners = [np.array([a, b, 1.0]) for a in (0.0, 1.0) for b in (0.0, 1.0)]
    rng = np.random.default_rng(1)
    thetas = rng.standard_normal((300, d))
    thetas *= (radius * rng.uniform(size=300) ** (1 / d) / np.linalg.norm(thetas, axis=1))[:, None]

    def clipped(g):
        norm = np.linalg.norm(g)
        return g if norm <= clip else g * clip / norm

    worst = max(float(np.linalg.norm(clipped((x @ th - y) * x) - clipped((x2 @ th - y2) * x2)))
                for th in thetas for x in corners for x2 in corners for y in (-1.0, 1.0) for y2 in (-1.0, 1.0))
    bound = min(2 * clip, gd_sensitivity(radius, d))
    # reached: two gradients clipped to opposite directions; the clip, the norms and the difference computed in
    # floating point each add a few units in the last place (d = 3 terms), so the computed move is within 16 ulp
    assert worst <= bound * (1 + 16 * np.finfo(float).eps)
    assert clip > 1 or worst >= 0.99 * bound                    # and the bound 2C is nearly attained
    X, y, eps = _problem(d=d)
    steps = 4
    eta = pure_gd_rate(eps.sum(), d, steps, radius, clip=clip)
    assert np.all(steps * eta * (eps / eps.sum()) * bound <= eps * (1 + 1e-12))


def test_bad_settings_are_refused_by_name():
    X, y, eps = _problem(n=20)
    for kwargs, match in (({"clip": 0.0}, r"clip = 0.0 is outside the allowed range"),
                          ({"clip": float("nan")}, "clip"),
                          ({"clip": 1.0, "open_intercept": 1}, "open_intercept = 1 is not allowed"),
                          ({"clip": 1.0, "start": np.ones(3)}, r"start has shape \(3,\)"),
                          ({"clip": 1.0, "steps": 10**6}, "under pure DP the noise grows like the steps"),
                          ({"clip": 1.0, "batch": 0}, r"batch = 0 is outside the allowed range")):
        with pytest.raises(ValueError, match=match):
            clipped_pure_gd_draws(X, y, eps, 0.5, 0, 2, **kwargs)
    with pytest.raises(ValueError, match=r"clip = -1.0 is outside the allowed range"):
        pure_gd_rate(1.0, 3, 1, 1.0, clip=-1.0)


def test_the_training_rows_are_those_the_comparison_sums():
    sums = advice.cell_sums("affairs", "paper", 1, masks=2, delta=None)
    X, y, eps = advice.cell_rows("affairs", "paper", 1)
    assert y.size == sums.plain.rows and np.all(X[:, -1] == 1.0)
    assert eps.sum() == pytest.approx(sums.eps_total, rel=1e-13)
    assert np.allclose((X * eps[:, None]).T @ X, sums.weighted.gram, rtol=1e-12)
    assert np.allclose(X.T @ (eps * y), sums.weighted.moment, rtol=1e-12, atol=1e-12)
    assert y.size + sums.test.rows == advice.load_table("affairs").y.size
    both, again = advice.cell_rows("affairs", "paper", 1, sums=True)
    plain = advice.cell_sums("affairs", "paper", 1, masks=2, delta=None)
    assert all(np.array_equal(a, b) for a, b in zip(again, (X, y, eps)))
    assert np.array_equal(both.weighted.gram, plain.weighted.gram) and both.test.yy == plain.test.yy


def test_the_benchmarks_clipped_descent_written_out_from_the_same_stream():
    sums = advice.cell_sums("meap01", "ones", 0, masks=2, delta=None)
    rows = advice.cell_rows("meap01", "ones", 0)
    lam, steps, share, clip, draws, seed = 1.0, 2, 0.25, 0.3, 30, 5
    got = advice.clipped_gd_losses(sums, rows, lam, steps, share, clip, draws, seed)
    gen = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(advice.PURE_GD_STREAM, steps, 3, 25, 300)))
    S, d = sums.eps_total, int(sums.d)
    start = np.zeros((draws, d))
    start[:, -1] = np.clip(sums.weighted.ysum / S + gen.laplace(0.0, 2.0 / (share * S), draws), -1, 1)
    X, y, eps = rows
    thetas = clipped_pure_gd_draws(X, y, eps * (1 - share), lam, gen, draws, clip=clip, steps=steps,
                                   radius=norm_bound(lam, d) + 1, open_intercept=True, start=start)
    test = sums.test
    want = (np.einsum("ri,ij,rj->r", thetas, test.gram, thetas) - 2 * thetas @ test.moment + test.yy) / test.rows
    assert np.allclose(got, want, rtol=1e-12)
    free = advice.clipped_gd_losses(sums, rows, lam, steps, share, clip, 3, seed, noise=False)
    start = np.r_[np.zeros(d - 1), sums.weighted.ysum / S]
    theta = clipped_pure_gd_draws(X, y, eps, lam, None, 1, clip=clip, steps=steps, radius=norm_bound(lam, d) + 1,
                                  open_intercept=True, start=start, noise=False)
    assert np.allclose(free, (theta @ test.gram @ theta[0] - 2 * theta @ test.moment + test.yy) / test.rows,
                       rtol=1e-12)
    with pytest.raises(ValueError, match="share"):
        advice.clipped_gd_losses(sums, rows, lam, steps, 0.0, clip, draws, seed)
    # the default ball is B(lam) + 1: where B(lam) binds (a large lam), the smaller ball gives other losses
    lam = 200.0
    wide = advice.clipped_gd_losses(sums, rows, lam, steps, share, clip, draws, seed)
    assert np.array_equal(wide, advice.clipped_gd_losses(sums, rows, lam, steps, share, clip, draws, seed,
                                                         radius=norm_bound(lam, d) + 1))
    assert abs(sums.weighted.ysum / S) > norm_bound(lam, d)            # the mean label outside B(lam)
    narrow = advice.clipped_gd_losses(sums, rows, lam, steps, share, clip, draws, seed, radius=norm_bound(lam, d))
    assert not np.allclose(wide, narrow)


def test_the_clipped_choice_and_the_noise_free_ratios_by_brute_force():
    cells = [advice.cell_losses(name, profile, 0, draws=20, masks=4)
             for name in ("meap01", "affairs") for profile in ("paper", "tenfold")]
    settings = [(clip, steps) for steps in advice.CLIPPED_STEPS for clip in advice.CLIPS]
    share = 0.25
    extended = advice.with_clipped(cells, settings, share, draws=10)
    assert all("gd_pure_clipped:0.25:0.1:1" not in c.losses for c in cells)      # the cells left as they were
    scores = {}
    for clip, steps in settings:
        name = f"{advice.GD_CLIPPED}:{share}:{clip}:{steps}"
        logs = []
        for cell in extended:
            lam = advice.pruned_lambda(advice.DEFAULT_GRID, cell.levels, cell.d)
            assert np.isnan(cell.losses.drop(lam)[name]).all()
            loss = advice.clipped_gd_losses(advice.cell_sums(cell.table, cell.profile, 0, masks=2, delta=None),
                                            advice.cell_rows(cell.table, cell.profile, 0), lam, steps, share, clip,
                                            10, 0)
            assert cell.losses.loc[lam, name] == pytest.approx(loss.mean(), rel=1e-12)
            assert cell.losses.loc[lam, name + "_se"] == pytest.approx(loss.std(ddof=1) / math.sqrt(10), rel=1e-12)
            free = advice.clipped_gd_losses(advice.cell_sums(cell.table, cell.profile, 0, masks=2, delta=None),
                                            advice.cell_rows(cell.table, cell.profile, 0), lam, steps, share, clip,
                                            1, 0, noise=False)
            free_name = f"gd_clipped_free:{share}:{clip}:{steps}"
            assert cell.losses.loc[lam, free_name] == pytest.approx(free[0], rel=1e-12)
            logs.append(math.log(loss.mean() / cell.losses["private_mean"].iloc[0]))
        scores[name] = sum(logs) / len(logs)
    best = min(scores.values())
    assert advice.choose_clipped(extended, share) == next(n for n in scores if scores[n] == best)
    free = advice.free_ratios(extended, ["gd_clipped_free:0.25:0.3:2", "ridge_free_open"])
    for table in ("meap01", "affairs"):
        mine = [c for c in extended if c.table == table]
        for column in free.columns:
            ratios = [c.losses.loc[advice.pruned_lambda(advice.DEFAULT_GRID, c.levels, c.d), column]
                      / c.losses["private_mean"].iloc[0] for c in mine]
            assert free.loc[table, column] == pytest.approx(math.exp(np.mean(np.log(ratios))), rel=1e-12)
    with pytest.raises(ValueError, match="a loss is missing"):
        advice.free_ratios(cells, ["gd_clipped_free:0.25:0.3:2"])


def test_the_residuals_are_formed_in_place_bit_for_bit():
    # the steps as first written (the residuals formed whole) against the library's in-place steps
    gen = np.random.default_rng(31)
    X, y = gen.uniform(0, 1, (50, 3)), gen.uniform(-1, 1, 50)
    X[4] = 0.0
    eps = gen.uniform(0.1, 2.0, 50)
    lam, clip, steps, draws = 0.5, 0.2, 7, 5
    got = clipped_pure_gd_draws(X, y, eps, lam, np.random.default_rng(2), draws, clip=clip, steps=steps, batch=2)
    radius, step = norm_bound(lam, 3), 1.0 / (3 + lam)
    eta = pure_gd_rate(float(eps.sum()), 3, steps, radius, clip)
    weights, norms = eps / eps.sum(), np.linalg.norm(X, axis=1)
    reach = np.divide(clip, norms, out=np.full(50, np.inf), where=norms > 0)
    noise, out = np.random.default_rng(2), []
    for lo in range(0, draws, 2):
        theta = np.zeros((min(2, draws - lo), 3))
        for _ in range(steps):
            residual = np.clip(theta @ X.T - y, -reach, reach) * weights
            grad = residual @ X + sample_l2_laplace_unchecked(eta, 3, theta.shape[0], noise)
            moved = theta - step * (grad + lam * theta)
            length = np.linalg.norm(moved, axis=1, keepdims=True)
            theta = np.where(length > radius, moved * (radius / np.maximum(length, radius)), moved)
        out.append(theta)
    assert np.array_equal(got, np.vstack(out))
