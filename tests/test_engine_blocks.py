"""The Jorgensen Monte Carlo of the engine is drawn in blocks of runs and reduced once.

Truths: one block (everything at once) against many blocks forced by a small
``memory_budget``, bit for bit; a ``lambda``'s column computed alone against the same column
computed with other ``lambda`` values and methods, bit for bit; the generator consumed row by
row.  Nothing here depends on wall time.
"""

import math

import numpy as np
import pytest

from pdp_lib.mechanisms.baselines import jorgensen_keep_probabilities
from pdp_lib.experiments import BEYOND_METHODS, METHODS, batched_ridge, evaluate_sweep, jorgensen_masks
from pdp_lib.experiments import engine
from pdp_lib.profiles import DEFAULT_PROFILE, privacy_profile

STATISTICS = ("mean", "std", "mean_se", "std_se", "naive_se")
EVERY_METHOD = METHODS + BEYOND_METHODS


def _data(seed, n=60, d=4, n_test=15):
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    coef = rng.uniform(-1, 1, d) / d
    X = rng.random((n, d))
    Xt = rng.random((n_test, d))
    y = np.clip(X @ coef + 0.2 * rng.standard_normal(n), -1, 1)
    yt = np.clip(Xt @ coef + 0.2 * rng.standard_normal(n_test), -1, 1)
    eps = privacy_profile(n, DEFAULT_PROFILE, rng=rng)  # a third of the points at the maximum: always kept
    return X, y, Xt, yt, eps


def _assert_identical(a, b, columns=None, lams=slice(None)):
    """Every statistic of ``columns`` (all of ``a``'s by default) equal bit for bit, ``b`` at ``lams``."""
    for col in a.mean if columns is None else columns:
        for stat in STATISTICS:
            got, want = getattr(b, stat)[col][lams], getattr(a, stat)[col]
            assert got.tobytes() == want.tobytes(), f"{stat} {col}: {got} != {want}"


def _assert_same(a, b):
    assert list(a.mean) == list(b.mean)
    _assert_identical(a, b)
    assert a.kept.keys() == b.kept.keys()
    for col in a.kept:
        np.testing.assert_array_equal(a.kept[col], b.kept[col])
    for col, t in a.thresholds.items():
        np.testing.assert_array_equal(b.thresholds[col], t)


def _blocks(eps, d, runs, budget):
    """Blocks of runs of the two Jorgensen variants under ``budget``."""
    out = []
    for t in (eps.max(), eps.mean()):
        n_random = int((jorgensen_keep_probabilities(eps, t) < 1).sum())
        out.append(math.ceil(runs / engine.block_size(runs, n_random, d, budget)))
    return out


def test_default_budget_holds_the_papers_sizes_in_one_block():
    # Medical Cost (1070 training points, d = 12), the synthetic data (80 points, d = 30), and
    # a margin: n = 1100, d = 30.
    for n, d in ((1070, 12), (80, 30), (1100, 30)):
        assert engine.block_size(10_000, n, d) == 10_000


def test_block_size_follows_the_budget_in_whole_tiles():
    per_run = engine.bytes_per_run(1000, 12)
    assert per_run >= 1000  # at least the run's mask row
    sizes = [engine.block_size(10_000, 1000, 12, memory_budget=b) for b in (1, 1e5, 1e6, 1e7, 1e8, 1e12)]
    assert sizes == sorted(sizes)
    assert sizes[0] == 1 and sizes[-1] == 10_000  # too small for one run: blocks of one run
    assert 1 < sizes[2] < engine.TILE  # fewer runs than a tile: as many as fit
    assert sizes[2] * per_run <= 0.5 * 1e6 < (sizes[2] + 1) * per_run
    assert engine.TILE < sizes[3] < 10_000 and sizes[3] % engine.TILE == 0  # more: whole tiles
    assert sizes[3] * per_run <= 0.5 * 1e7 < (sizes[3] + engine.TILE) * per_run


def test_tiles_are_aligned_on_the_run_index():
    tile = engine.TILE
    for start, rows in ((0, 1), (0, tile), (3, 2 * tile), (tile - 1, 2), (5 * tile, 7), (10, 1)):
        covered = []
        for in_tile, in_block in engine.tile_spans(start, rows):
            assert 0 <= in_tile.start < in_tile.stop <= tile
            assert in_tile.stop - in_tile.start == in_block.stop - in_block.start
            run = start + in_block.start  # the first run of the piece sits at its place in its tile
            assert run % tile == in_tile.start
            covered += range(in_block.start, in_block.stop)
        assert covered == list(range(rows))


@pytest.mark.parametrize("budget", [1.0, 3e4, 2e5, 6e5])
def test_statistics_do_not_depend_on_the_block_size_bit_for_bit(budget):
    # 700 runs: blocks of one run (budget 1, which also streams the point products one chunk
    # at a time), blocks of fewer runs than a tile, which split tiles between blocks, and
    # blocks of whole tiles; every column, the oracle's included
    X, y, Xt, yt, eps = _data(1)
    n, d = X.shape
    lams = [0.05, 0.7, 6.0]
    runs = 700
    assert min(_blocks(eps, d, runs, budget)) > 1  # the small budget really splits the runs
    assert max(_blocks(eps, d, runs, engine.DEFAULT_MEMORY_BUDGET)) == 1
    assert (engine._Points(X, y, np.zeros(n, dtype=bool), budget).P is None) == (budget == 1.0)
    seed = np.random.SeedSequence(3)
    one = evaluate_sweep(X, y, Xt, yt, eps, lams, runs=runs, rng=seed, methods=EVERY_METHOD)
    many = evaluate_sweep(X, y, Xt, yt, eps, lams, runs=runs, rng=seed, methods=EVERY_METHOD,
                          memory_budget=budget)
    _assert_same(one, many)
    assert one.std_se["unreg_jorgensen_max"].min() > 0  # the comparison covers every statistic


def test_many_blocks_and_chunks_of_points_and_test_points(monkeypatch):
    # a working set small enough to cut the 300 points and 100 test points into chunks: the
    # chunks are the same whatever the budget, so 600 blocks of one run, blocks of fewer runs
    # than a tile and one block give the same numbers
    monkeypatch.setattr(engine, "TILE_BYTES", 8 * engine.TILE * 40)
    X, y, Xt, yt, eps = _data(2, n=300, d=5, n_test=100)
    assert 1 < engine._Points(X, y, np.zeros(300, dtype=bool), 1.0).chunk < 100
    assert 1 < engine.rows_within(100, 8 * engine.TILE, engine.TILE_BYTES) < 100
    lams = [0.1, 3.0]
    runs = 600
    seed = np.random.SeedSequence(4)
    one = evaluate_sweep(X, y, Xt, yt, eps, lams, runs=runs, rng=seed, methods=METHODS)
    assert _blocks(eps, 5, runs, 1.0) == [runs, runs] and min(_blocks(eps, 5, runs, 1e5)) > 1
    for budget in (1.0, 1e5):
        _assert_same(one, evaluate_sweep(X, y, Xt, yt, eps, lams, runs=runs, rng=seed, methods=METHODS,
                                         memory_budget=budget))


@pytest.mark.parametrize("budget", [engine.DEFAULT_MEMORY_BUDGET, 2e5])
def test_a_lambdas_columns_do_not_depend_on_the_other_lambdas_or_methods(budget):
    # in one block and in several: each lambda alone, and the grid in another order, against
    # the whole grid with every method
    X, y, Xt, yt, eps = _data(5)
    lams = [0.05, 0.7, 6.0]
    runs = 700
    seed = np.random.SeedSequence(6)
    whole = evaluate_sweep(X, y, Xt, yt, eps, lams, runs=runs, rng=seed, methods=EVERY_METHOD,
                           memory_budget=budget)
    for j, lam in enumerate(lams):
        alone = evaluate_sweep(X, y, Xt, yt, eps, [lam], runs=runs, rng=seed, methods=EVERY_METHOD,
                               memory_budget=budget)
        _assert_identical(alone, whole, lams=slice(j, j + 1))
    reverse = evaluate_sweep(X, y, Xt, yt, eps, lams[::-1], runs=runs, rng=seed, methods=EVERY_METHOD,
                             memory_budget=budget)
    _assert_identical(reverse, whole, lams=slice(None, None, -1))
    # the oracle asked for alone reports the paper's t = max or t = mean estimate when it
    # chooses them, as when those columns are asked for too
    oracle = evaluate_sweep(X, y, Xt, yt, eps, lams, runs=runs, rng=seed, methods=("jorgensen_oracle",),
                            memory_budget=budget)
    columns = ("unreg_jorgensen_oracle", "reg_jorgensen_oracle")
    _assert_identical(oracle, whole, columns=columns)
    paper_t = (whole.thresholds["jorgensen_max"], whole.thresholds["jorgensen_mean"])
    assert any(t in paper_t for col in columns for t in whole.thresholds[col])  # the reuse is exercised


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
    blocks = [engine.draw_masks(gen, p[p < 1], rows, draw) for rows, draw in sizes]
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
    masks = np.random.default_rng(5).random((600, 30)) < 0.4
    masks[3] = False
    whole = batched_ridge(X, y, masks, 0.3)
    for budget in (1.0, 3e4, 5e5):
        np.testing.assert_array_equal(batched_ridge(X, y, masks, 0.3, memory_budget=budget), whole)
    np.testing.assert_array_equal(whole[3], 0.0)


@pytest.mark.parametrize("threads", [1, 2, 3, 4])
def test_the_threaded_solve_is_numpys_bit_for_bit(monkeypatch, threads):
    gen = np.random.default_rng(8)
    A = gen.normal(size=(5000, 7, 7))
    G, b = A @ A.transpose(0, 2, 1) + 0.1 * np.eye(7), gen.normal(size=(5000, 7))
    monkeypatch.setattr(engine, "_SOLVE_THREADS", threads)
    monkeypatch.setattr(engine, "_solve_pool", None)
    for rows in (1, engine._SOLVE_MIN_ROWS - 1, engine._SOLVE_MIN_ROWS, 5000):
        np.testing.assert_array_equal(engine._solve_stack(G[:rows], b[:rows]),
                                      np.linalg.solve(G[:rows], b[:rows, :, None])[..., 0])


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


def test_batched_ridge_over_several_lambdas_is_each_lambda_alone():
    gen = np.random.default_rng(4)
    X, y = gen.uniform(0, 1, (60, 3)), gen.uniform(-1, 1, 60)
    masks = gen.uniform(size=(40, 60)) < 0.5
    masks[3] = False                                   # an empty mask gives 0
    many = batched_ridge(X, y, masks, [0.1, 1.0, 30.0], memory_budget=20_000)
    assert many.shape == (3, 40, 3) and not many[:, 3].any()
    for j, lam in enumerate((0.1, 1.0, 30.0)):
        assert np.array_equal(many[j], batched_ridge(X, y, masks, lam))
