"""The Jorgensen Monte Carlo of the engine is drawn and reduced in blocks of runs.

Truths: one block (everything at once, the two-pass formulas of ``engine._aggregate``) against
many blocks forced by a small ``memory_budget``; the generator consumed row by row; the
statistics of a sample computed directly against the same statistics merged from pieces.
Nothing here depends on wall time.
"""

import math

import numpy as np
import pytest

from pdp_lib.baselines import jorgensen_keep_probabilities
from pdp_lib.experiments import batched_ridge, evaluate_sweep, jorgensen_masks
from pdp_lib.experiments import engine
from pdp_lib.profiles import DEFAULT_PROFILE, privacy_profile

RTOL = 1e-12
STATISTICS = ("mean", "std", "mean_se", "std_se", "naive_se")


def _data(seed, n=60, d=4, n_test=15):
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    coef = rng.uniform(-1, 1, d) / d
    X = rng.random((n, d))
    Xt = rng.random((n_test, d))
    y = np.clip(X @ coef + 0.2 * rng.standard_normal(n), -1, 1)
    yt = np.clip(Xt @ coef + 0.2 * rng.standard_normal(n_test), -1, 1)
    eps = privacy_profile(n, DEFAULT_PROFILE, rng=rng)  # a third of the points at the maximum: always kept
    return X, y, Xt, yt, eps


def _assert_same(a, b):
    for stat in STATISTICS:
        for col in a.mean:
            np.testing.assert_allclose(getattr(b, stat)[col], getattr(a, stat)[col], rtol=RTOL, atol=0,
                                       err_msg=f"{stat} {col}")
    assert a.kept.keys() == b.kept.keys()
    for col in a.kept:
        np.testing.assert_array_equal(a.kept[col], b.kept[col])
    assert a.thresholds == b.thresholds


def test_default_budget_holds_the_papers_sizes_in_one_block():
    # Medical Cost (1070 training and 268 test points, d = 12, 12 lambdas), the synthetic data
    # (80 and 20 points, d = 30), and a margin: n = 1100, d = 30.
    for n, d, n_test in ((1070, 12, 268), (80, 30, 20), (1100, 30, 275)):
        assert engine.block_size(10_000, n, d, n_test, 12) == 10_000


def test_block_size_follows_the_budget():
    per_run = engine._bytes_per_run(1000, 12, 2)
    assert per_run >= 1000  # at least the run's mask row
    sizes = [engine.block_size(10_000, 1000, 12, 250, 2, memory_budget=b) for b in (1, 1e6, 1e7, 1e8, 1e12)]
    assert sizes == sorted(sizes)
    assert sizes[0] == 1 and sizes[-1] == 10_000  # too small for one run: blocks of one run
    assert 1 < sizes[2] < 10_000
    assert sizes[2] * per_run <= 0.5 * 1e7 < (sizes[2] + 1) * per_run


@pytest.mark.parametrize("budget", [2e5, 1.0])
def test_statistics_do_not_depend_on_the_block_size(budget):
    X, y, Xt, yt, eps = _data(1)
    n, d = X.shape
    lams = [0.05, 0.7, 6.0]
    runs = 500
    for t in (eps.max(), eps.mean()):
        n_random = int((jorgensen_keep_probabilities(eps, t) < 1).sum())
        size = engine.block_size(runs, n_random, d, Xt.shape[0], len(lams), memory_budget=budget)
        assert math.ceil(runs / size) > 1  # the small budget really splits the runs
    assert engine.block_size(runs, n, d, Xt.shape[0], len(lams)) == runs
    # the budget of one byte also streams the point products one point at a time
    assert engine._Points(X, y, np.zeros(n, dtype=bool), 1.0).P is None
    seed = np.random.SeedSequence(3)
    one = evaluate_sweep(X, y, Xt, yt, eps, lams, runs=runs, rng=seed)
    many = evaluate_sweep(X, y, Xt, yt, eps, lams, runs=runs, rng=seed, memory_budget=budget)
    _assert_same(one, many)
    assert one.std_se["unreg_jorgensen_max"].min() > 0  # the comparison covers every statistic


def test_masks_do_not_depend_on_the_block_size():
    _, _, _, _, eps = _data(2, n=40)
    t = eps.mean()
    runs = 300
    whole = jorgensen_masks(eps, t, runs, np.random.default_rng(7))
    small = jorgensen_masks(eps, t, runs, np.random.default_rng(7), memory_budget=8 * 40 * 7)
    np.testing.assert_array_equal(small, whole)
    # the engine's own blocks: uneven sizes, drawn one after the other from one generator
    p = jorgensen_keep_probabilities(eps, t)
    gen = np.random.default_rng(7)
    sizes = ((1, 1), (64, 64), (64, 7), (64, 1), (64, 100), (43, 43))  # (rows, rows of uniforms at a time)
    blocks = [engine._draw_masks(gen, p[p < 1], rows, draw) for rows, draw in sizes]
    np.testing.assert_array_equal(np.vstack(blocks).astype(bool), whole[:, p < 1])
    assert whole[:, p >= 1].all()


def test_kept_counts_are_the_masks_of_the_documented_streams_for_any_budget():
    X, y, Xt, yt, eps = _data(3)
    runs = 200
    seq = np.random.SeedSequence(17)
    g_max, g_mean = (np.random.default_rng(c) for c in np.random.SeedSequence(17).spawn(2))
    res = evaluate_sweep(X, y, Xt, yt, eps, [1.0], runs=runs, rng=seq, memory_budget=1e5,
                         methods=("jorgensen_max", "jorgensen_mean"))
    np.testing.assert_array_equal(res.kept["jorgensen_max"], jorgensen_masks(eps, eps.max(), runs, g_max).sum(1))
    np.testing.assert_array_equal(res.kept["jorgensen_mean"], jorgensen_masks(eps, eps.mean(), runs, g_mean).sum(1))


def test_batched_ridge_does_not_depend_on_the_block_size():
    X, y, _, _, _ = _data(4, n=30)
    masks = np.random.default_rng(5).random((120, 30)) < 0.4
    masks[3] = False
    whole = batched_ridge(X, y, masks, 0.3)
    for budget in (1.0, 3e4):
        np.testing.assert_allclose(batched_ridge(X, y, masks, 0.3, memory_budget=budget), whole, rtol=RTOL, atol=0)
    np.testing.assert_array_equal(whole[3], 0.0)


@pytest.mark.parametrize("pieces", [[1, 1], [7, 1, 300, 2, 190], [100] * 5, [1] * 40])
def test_merged_moments_equal_the_two_pass_formulas(pieces):
    rng = np.random.default_rng(np.random.SeedSequence(11))
    R = sum(pieces)
    # heavy-tailed conditional means around a level far from 0, and variances correlated with them
    mu = 50.0 + rng.lognormal(0.0, 1.5, (2, 3, R))
    v = 0.3 * mu**2 * rng.random((2, 3, R))
    cuts = np.cumsum(pieces)[:-1]
    merged = engine._PairwiseSum()
    for m, w in zip(np.split(mu, cuts, axis=-1), np.split(v, cuts, axis=-1)):
        merged.add(engine._Moments.of(m, w))
    got = merged.total().statistics()
    for i in range(2):
        for j in range(3):
            want = engine._aggregate(mu[i, j], v[i, j])
            np.testing.assert_allclose([g[i, j] for g in got], want, rtol=RTOL, atol=0)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), -float("inf")])
def test_memory_budget_must_be_a_positive_finite_number(bad):
    X, y, Xt, yt, eps = _data(5, n=10)
    with pytest.raises(ValueError, match=r"memory_budget .*outside the allowed range \(0, inf\)"):
        evaluate_sweep(X, y, Xt, yt, eps, [1.0], runs=5, memory_budget=bad)
    with pytest.raises(ValueError, match="memory_budget"):
        jorgensen_masks(eps, eps.max(), 5, 0, memory_budget=bad)
    with pytest.raises(ValueError, match="memory_budget"):
        batched_ridge(X, y, np.ones((2, 10), dtype=bool), 1.0, memory_budget=bad)
    with pytest.raises(ValueError, match="memory_budget"):
        engine.block_size(5, 10, 2, memory_budget=bad)


def test_memory_budget_must_be_a_number():
    X, y, Xt, yt, eps = _data(6, n=10)
    for bad in ("512MB", None, True, [1e6]):
        with pytest.raises(TypeError, match="memory_budget"):
            evaluate_sweep(X, y, Xt, yt, eps, [1.0], runs=5, memory_budget=bad)
