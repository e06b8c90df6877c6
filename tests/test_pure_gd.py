"""Noisy gradient descent under pure DP (pdp_lib.experiments.gradient_descent.pure_gd_*), the benchmark's candidate,
against independent truths: the calibration against each point's level by the composition of its steps; the
iterates without noise against projected gradient descent written out here; each step's noise against the
l2-Laplace law's mean norm d/eta; the comparison's test losses against the draws' losses computed from the rows; the
development tables' choice of steps by brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from pdp_lib.experiments import advice
from pdp_lib.experiments.gradient_descent import pure_gd_draws, pure_gd_rate
from pdp_lib.mechanisms.noisy_gd import gd_sensitivity
from pdp_lib.bounds import norm_bound


def _problem(n=300, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.uniform(size=(n, d - 1)), np.ones(n)])
    y = np.clip(X[:, :-1] @ rng.uniform(-0.5, 0.5, d - 1) + 0.1 * rng.standard_normal(n), -1, 1)
    eps = rng.choice([0.05, 0.5, 1.0], n)
    return X, y, eps


@pytest.mark.parametrize("steps", [1, 5, 20])
def test_every_point_spends_at_most_its_level_over_the_steps(steps):
    # independent truth: the largest move of one point's gradient term by brute force over the domain's corners
    # (the intercept fixed at 1), the labels' ends and iterates on the ball's sphere, against the bound the rate uses
    d, lam = 3, 0.5
    radius = norm_bound(lam, d)
    corners = [np.array([a, b, 1.0]) for a in (0.0, 1.0) for b in (0.0, 1.0)]
    rng = np.random.default_rng(steps)
    thetas = rng.standard_normal((400, d))
    thetas = radius * thetas / np.linalg.norm(thetas, axis=1, keepdims=True)
    worst = max(float(np.linalg.norm((x @ th - y) * x - (x2 @ th - y2) * x2))
                for th in thetas for x in corners for x2 in corners for y in (-1.0, 1.0) for y2 in (-1.0, 1.0))
    G = gd_sensitivity(radius, d)
    assert worst <= G
    X, y, eps = _problem(d=d)
    eta = pure_gd_rate(eps.sum(), d, steps, radius)
    spent = steps * eta * (eps / eps.sum()) * worst            # each step's loss at the largest move found
    assert np.all(spent <= eps * (1 + 1e-12))


def test_bad_settings_are_refused_by_name():
    for args, error, match in (((1.0, 3, 1, -1.0), ValueError, r"radius = -1.0 is outside the allowed range"),
                               ((1.0, 3, 2.5, 1.0), TypeError, "steps must be an integer"),
                               ((1.0, 3, 0, 1.0), ValueError, r"steps = 0 is outside the allowed range"),
                               ((1.0, 3, 10**6, 1.0), ValueError, "under pure DP the noise grows like the steps"),
                               ((0.0, 3, 1, 1.0), ValueError, r"total = 0.0 is outside the allowed range")):
        with pytest.raises(error, match=match):
            pure_gd_rate(*args)
    with pytest.raises(ValueError, match=r"draws = 0 is outside the allowed range"):
        pure_gd_draws(np.eye(3), np.ones(3), 1.0, 0.5, 0, 0)
    with pytest.raises(ValueError, match=r"A has shape \(2, 2\) and b \(3,\)"):
        pure_gd_draws(np.eye(2), np.ones(3), 1.0, 0.5, 0, 1)


def test_without_noise_the_iterates_are_projected_gradient_descent():
    X, y, eps = _problem(seed=1)
    d, lam, steps = X.shape[1], 0.3, 7
    A, b, S = (X * eps[:, None]).T @ X, (X * eps[:, None]).T @ y, eps.sum()
    scale = 1e12                                              # levels so large that the noise is below 1e-9
    got = pure_gd_draws(A * scale, b * scale, S * scale, lam, np.random.default_rng(0), 3, steps=steps)
    w = eps / S
    theta, tau, radius = np.zeros(d), 1.0 / (d + lam), norm_bound(lam, d)
    for _ in range(steps):
        grad = X.T @ (w * (X @ theta - y)) + lam * theta
        theta = theta - tau * grad
        theta = theta * min(1.0, radius / np.linalg.norm(theta))
    assert np.allclose(got, theta, atol=1e-8)


def test_the_iterates_stay_in_the_ball_where_it_binds():
    # the sensitivity bound holds on the ball only: a radius far inside the ridge's norm makes every step project
    X, y, eps = _problem(seed=5)
    d, lam, steps, radius = X.shape[1], 0.3, 6, 0.05
    A, b, S = (X * eps[:, None]).T @ X, (X * eps[:, None]).T @ y, eps.sum()
    got = pure_gd_draws(A, b, S, lam, None, 1, steps=steps, radius=radius, noise=False)[0]
    w = eps / S
    theta, tau = np.zeros(d), 1.0 / (d + lam)
    for _ in range(steps):
        theta = theta - tau * (X.T @ (w * (X @ theta - y)) + lam * theta)
        theta = theta * min(1.0, radius / np.linalg.norm(theta))
    assert np.allclose(got, theta, atol=1e-12)
    assert np.linalg.norm(got) == pytest.approx(radius, rel=1e-12)          # on the sphere: it bound
    noisy = pure_gd_draws(A, b, S, lam, np.random.default_rng(1), 500, steps=steps, radius=radius)
    assert np.all(np.linalg.norm(noisy, axis=1) <= radius * (1 + 1e-12))


def test_a_step_adds_l2_laplace_noise_of_the_calibrated_rate():
    X, y, eps = _problem(seed=2)
    d, lam = X.shape[1], 0.5
    A, b, S = (X * eps[:, None]).T @ X, (X * eps[:, None]).T @ y, eps.sum()
    radius = 1e6                                              # no projection: theta_1 = tau (b / S - z)
    tau = 1.0 / (d + lam)
    draws = 20_000
    theta = pure_gd_draws(A, b, S, lam, np.random.default_rng(3), draws, steps=1, radius=radius)
    z = b / S - theta / tau
    norms = np.linalg.norm(z, axis=1)
    eta = pure_gd_rate(S, d, 1, radius)
    assert abs(norms.mean() - d / eta) < 4 * (math.sqrt(d) / eta) / math.sqrt(draws)   # Gamma(d, 1/eta)
    assert stats.kstest(norms, "gamma", args=(d, 0, 1 / eta)).pvalue > 1e-3          # its whole law
    assert np.abs(z.mean(axis=0)).max() < 4 * norms.std() / math.sqrt(draws)          # centred


def test_the_benchmarks_losses_are_the_draws_test_losses():
    cell_sums = advice.cell_sums("affairs", "paper", 0, masks=4)
    lam, steps, draws = 1.0, 5, 50
    losses = advice.pure_gd_losses(cell_sums, lam, steps, draws, seed=4)
    gen = np.random.default_rng(np.random.SeedSequence(4, spawn_key=(advice.PURE_GD_STREAM, steps)))
    thetas = pure_gd_draws(cell_sums.weighted.gram, cell_sums.weighted.moment, cell_sums.eps_total, lam, gen, draws,
                           steps=steps)
    test = cell_sums.test
    quad = np.einsum("ri,ij,rj->r", thetas, test.gram, thetas)
    assert np.allclose(losses, (quad - 2 * thetas @ test.moment + test.yy) / test.rows, rtol=1e-12)


def test_the_development_choice_of_steps_is_the_least_geometric_mean_by_brute_force():
    cells = [advice.cell_losses(name, profile, 0, draws=20, masks=4)
             for name in ("meap01", "affairs") for profile in ("paper", "tenfold")]
    scores = {}
    for steps in advice.GD_STEPS:
        logs = []
        for cell in cells:
            lam = advice.pruned_lambda(advice.DEFAULT_GRID, cell.levels, cell.d)
            logs.append(math.log(cell.losses.loc[lam, f"gd_pure:{steps}"] / cell.losses["private_mean"].iloc[0]))
            assert cell.losses[f"gd_pure:{steps}"].notna().sum() == 1          # at the pruned rule's lambda only
        scores[steps] = math.exp(sum(logs) / len(logs))
    assert advice.choose_steps(cells) == min(scores, key=scores.get)


def test_the_noise_free_parts_are_the_ridges_written_out_from_the_rows():
    # independent truth: compare's coin for the test rows, the weighted ridges solved here from the rows
    from pdp_lib.io import benchmark_tables as bt
    from pdp_lib.io import comparison
    from pdp_lib.profiles import privacy_profile

    table, split, profile = bt.load_table("affairs"), 0, "paper"
    gen = np.random.default_rng(np.random.SeedSequence(split, spawn_key=(sum(map(ord, "affairs")), len(profile))))
    eps = gen.permutation(privacy_profile(table.y.size, advice.PROFILES[profile], gen))
    X, y = table.X, table.y
    test = comparison.row_uniforms([X[:, j] for j in range(X.shape[1] - 1)] + [y, eps], split) < 0.2
    Xt, yt, w = X[~test], y[~test], eps[~test] / eps[~test].sum()
    lam = 0.7
    parts = advice.gd_loss_parts(advice.cell_sums("affairs", profile, split, masks=4), lam)
    loss = lambda theta: float(np.mean((X[test] @ theta - y[test]) ** 2))
    A, b = (Xt * w[:, None]).T @ Xt, (Xt * w[:, None]).T @ yt
    open_penalty = np.diag(np.r_[np.full(X.shape[1] - 1, lam), 0.0])
    assert parts["ridge_free"] == pytest.approx(loss(np.linalg.solve(A + lam * np.eye(X.shape[1]), b)), rel=1e-9)
    assert parts["ridge_free_open"] == pytest.approx(loss(np.linalg.solve(A + open_penalty, b)), rel=1e-9)
    theta, tau, radius = np.zeros(X.shape[1]), 1.0 / (X.shape[1] + lam), norm_bound(lam, X.shape[1])
    for steps in range(1, max(advice.GD_STEPS) + 1):
        theta = theta - tau * (A @ theta - b + lam * theta)
        theta = theta * min(1.0, radius / np.linalg.norm(theta))
        if steps in advice.GD_STEPS:
            assert parts[f"gd_free:{steps}"] == pytest.approx(loss(theta), rel=1e-9)
    # the variants: the intercept unpenalized, from 0 and from the weighted mean label (no noise in either)
    for name, start in (("gd_open_free", np.zeros(X.shape[1])), ("gd_centred_free", np.r_[np.zeros(X.shape[1] - 1),
                                                                                          w @ yt])):
        theta = start * min(1.0, radius / np.linalg.norm(start)) if start.any() else start
        for steps in range(1, max(advice.GD_STEPS) + 1):
            theta = theta - tau * (A @ theta - b + open_penalty @ theta)
            theta = theta * min(1.0, radius / np.linalg.norm(theta))
            if steps in advice.GD_STEPS:
                assert parts[f"{name}:{steps}"] == pytest.approx(loss(theta), rel=1e-9)


def test_the_intercept_can_be_left_unpenalized_and_the_descent_started_anywhere_in_the_ball():
    X, y, eps = _problem(seed=7)
    d, lam, steps, radius = X.shape[1], 0.4, 5, 0.6
    A, b, S = (X * eps[:, None]).T @ X, (X * eps[:, None]).T @ y, eps.sum()
    start = np.array([0.1, -0.2, 0.3, -0.9])                      # outside the ball: projected first
    got = pure_gd_draws(A, b, S, lam, None, 2, steps=steps, radius=radius, noise=False, open_intercept=True,
                        start=start)
    w, tau, penalty = eps / S, 1.0 / (d + lam), np.r_[np.full(d - 1, lam), 0.0]
    theta = start * radius / np.linalg.norm(start)
    for _ in range(steps):
        theta = theta - tau * (X.T @ (w * (X @ theta - y)) + penalty * theta)
        theta = theta * min(1.0, radius / np.linalg.norm(theta))
    assert np.allclose(got, theta, rtol=0, atol=1e-13)
    rows = np.array([[0.0, 0.0, 0.0, 0.1], [0.0, 0.0, 0.0, -0.2]])   # one start per run
    each = pure_gd_draws(A, b, S, lam, None, 2, steps=1, radius=radius, noise=False, start=rows)
    for k in range(2):
        one = pure_gd_draws(A, b, S, lam, None, 1, steps=1, radius=radius, noise=False, start=rows[k])
        assert np.array_equal(each[k], one[0])
    with pytest.raises(ValueError, match=r"start has shape \(3,\)"):
        pure_gd_draws(A, b, S, lam, None, 2, steps=1, start=np.zeros(3))
    with pytest.raises(ValueError, match="open_intercept = 1 is not allowed"):
        pure_gd_draws(A, b, S, lam, None, 2, steps=1, open_intercept=1)


def test_the_centred_descent_spends_a_share_on_the_mean_and_the_rest_on_its_steps():
    # written out from the same stream: the mean's Laplace noise at scale 2 / (share S) first, then the steps' noise
    # at the rate of (1 - share) S, with the intercept unpenalized, from the clipped released mean
    from pdp_lib.mechanisms.output_perturbation import sample_l2_laplace_unchecked

    sums = advice.cell_sums("affairs", "paper", 0, masks=4)
    lam, steps, share, draws, seed = 1.0, 3, 0.25, 40, 9
    got = advice.centred_gd_losses(sums, lam, steps, share, draws, seed)
    gen = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(advice.PURE_GD_STREAM, steps, 2, 25)))
    S, d = sums.eps_total, sums.d
    A, b = sums.weighted.gram / S, sums.weighted.moment / S
    mean = np.clip(sums.weighted.ysum / S + gen.laplace(0.0, 2.0 / (share * S), draws), -1, 1)
    radius, tau = norm_bound(lam, d), 1.0 / (d + lam)
    eta = pure_gd_rate((1 - share) * S, d, steps, radius)
    theta = np.zeros((draws, d))
    theta[:, -1] = mean
    theta *= np.minimum(1.0, radius / np.linalg.norm(theta, axis=1))[:, None]
    penalty = np.r_[np.full(d - 1, lam), 0.0]
    for _ in range(steps):
        theta = theta - tau * (theta @ A - b + sample_l2_laplace_unchecked(eta, d, draws, gen) + penalty * theta)
        theta *= np.minimum(1.0, radius / np.linalg.norm(theta, axis=1))[:, None]
    test = sums.test
    want = (np.einsum("ri,ij,rj->r", theta, test.gram, theta) - 2 * theta @ test.moment + test.yy) / test.rows
    assert np.allclose(got, want, rtol=1e-9)
    with pytest.raises(ValueError, match="share"):
        advice.centred_gd_losses(sums, lam, steps, 1.0, draws, seed)


def test_the_centred_choice_and_the_ball_by_brute_force():
    from pdp_lib.io import benchmark_tables as bt

    cells = [advice.cell_losses(name, profile, 0, draws=20, masks=4)
             for name in ("meap01", "affairs") for profile in ("paper", "tenfold")]
    scores = {}
    for share in advice.GD_SHARES:
        for steps in advice.GD_STEPS:
            name = f"{advice.GD_CENTRED}:{share}:{steps}"
            logs = [math.log(c.losses.loc[advice.pruned_lambda(advice.DEFAULT_GRID, c.levels, c.d), name]
                             / c.losses["private_mean"].iloc[0]) for c in cells]
            scores[name] = sum(logs) / len(logs)
    best = min(scores.values())
    assert advice.choose_centred(cells) == next(n for n in scores if scores[n] == best)
    ball = advice.ball_cells(cells, "gd_pure_centred:0.5:2")
    wide = advice.widened_cells(cells, "gd_pure_centred:0.5:2", draws=20)
    for cell, row, wrow in zip(cells, ball.itertuples(), wide.itertuples()):
        table = bt.load_table(cell.table)
        lam = advice.pruned_lambda(advice.DEFAULT_GRID, cell.levels, cell.d)
        sums = advice.cell_sums(cell.table, cell.profile, 0, masks=4)
        assert cell.mean_label == pytest.approx(sums.weighted.ysum / sums.eps_total, rel=1e-12)
        assert -1 <= cell.mean_label <= 1 and table.y.min() <= cell.mean_label <= table.y.max()
        assert row.inside == (abs(cell.mean_label) <= norm_bound(lam, cell.d)) == wrow.inside
        pm = cell.losses["private_mean"].iloc[0]
        assert row.ratio == pytest.approx(cell.losses.loc[lam, "gd_pure_centred:0.5:2"] / pm, rel=1e-12)
        assert row.free_ratio == pytest.approx(cell.losses.loc[lam, "gd_centred_free:2"] / pm, rel=1e-12)
        widened = advice.centred_gd_losses(sums, lam, 2, 0.5, 20, 0, radius=norm_bound(lam, cell.d) + 1)
        assert wrow.ratio == pytest.approx(widened.mean() / pm, rel=1e-9)
    with pytest.raises(ValueError, match="not a gradient descent"):
        advice.ball_cells(cells, "private_mean")
    with pytest.raises(ValueError, match="not a centred descent"):
        advice.widened_cells(cells, "gd_pure:2")
