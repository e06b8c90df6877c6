"""Tests of the experiment engine and the target registry.

Independent truths: a brute-force per-run loop written here from the paper's formulas
(weights, eta, ridge, Gamma radius times a uniform direction), exact enumeration of
Jorgensen's sampling masks, the single-run implementations of ``pdp_lib.mechanisms.baselines``, and
for the registry the statistic of each target pinned by hand (the registry file itself is
tested in ``tests/test_registry.py``).
"""

import itertools
import math

import numpy as np
import pytest

from pdp_lib.mechanisms.baselines import jorgensen_keep_probabilities, jorgensen_mask, non_private_ridge
from pdp_lib.experiments import (
    COLUMNS,
    TARGET_NAMES,
    TARGETS,
    batched_ridge,
    draw_data,
    draw_profile,
    evaluate_sweep,
    get_target,
    jorgensen_masks,
    reproduce,
    reproduce_many,
    seed_sequence,
    training_points,
)
from pdp_lib.moments import loss_moments
from pdp_lib.profiles import DEFAULT_PROFILE

Z_MAX = 4.0


def _small(seed, n=9, d=3, n_test=6):
    rng = np.random.default_rng(seed)
    coef = rng.uniform(-1, 1, d) / d
    X = rng.random((n, d))
    Xt = rng.random((n_test, d))
    y = np.clip(X @ coef + 0.1 * rng.standard_normal(n), -1, 1)
    yt = np.clip(Xt @ coef + 0.1 * rng.standard_normal(n_test), -1, 1)
    eps = rng.uniform(0.05, 1.0, n)
    eps[0] = 1.0
    return X, y, Xt, yt, eps


def _c(lam, d):
    B = min(1 / math.sqrt(lam), math.sqrt(d) / lam)
    return 2 * math.sqrt(d) * (1 + math.sqrt(d) * B) / lam


def _ridge(X, y, w, lam):
    d = X.shape[1]
    return np.linalg.solve((X * w[:, None]).T @ X + lam * np.eye(d), (X * w[:, None]).T @ y)


def _brute_force_losses(X, y, Xt, yt, eps, lam, runs, rng):
    """Per-run loop of PDP-OP and the non-personalized baseline, from the paper's formulas."""
    n, d = X.shape
    out = {c: [] for c in ("unreg_pdp_op", "reg_pdp_op", "unreg_non_personalized", "reg_non_personalized")}
    for name, prof in (("pdp_op", eps), ("non_personalized", np.full(n, eps.min()))):
        theta_bar = _ridge(X, y, prof / prof.sum(), lam)
        eta = lam * prof.sum() / (2 * math.sqrt(d) * (1 + math.sqrt(d) * min(1 / math.sqrt(lam), math.sqrt(d) / lam)))
        for _ in range(runs):
            g = rng.standard_normal(d)
            theta = theta_bar + rng.gamma(d, 1 / eta) * g / np.linalg.norm(g)
            mse = np.mean((Xt @ theta - yt) ** 2)
            out[f"unreg_{name}"].append(mse)
            out[f"reg_{name}"].append(mse + lam * theta @ theta)
    return {k: np.array(v) for k, v in out.items()}


# --------------------------------------------------------------------------- exact columns
def test_exact_columns_match_brute_force_loop():
    X, y, Xt, yt, eps = _small(1)
    lams = [0.5, 4.0]
    res = evaluate_sweep(X, y, Xt, yt, eps, lams, runs=10, rng=0,
                         methods=("pdp_op", "non_personalized"))
    rng = np.random.default_rng(99)
    for j, lam in enumerate(lams):
        losses = _brute_force_losses(X, y, Xt, yt, eps, lam, 40_000, rng)
        for col, sample in losses.items():
            R = sample.size
            assert abs(sample.mean() - res.mean[col][j]) <= Z_MAX * sample.std() / np.sqrt(R), col
            c = sample - sample.mean()
            s2 = np.mean(c**2)
            se_var = np.sqrt((np.mean(c**4) - s2**2) / R)
            assert abs(s2 - res.std[col][j] ** 2) <= Z_MAX * se_var, col
            assert res.mean_se[col][j] == 0.0


def test_pdp_op_beats_non_personalized_and_non_private_is_deterministic():
    X, y, Xt, yt, eps = _small(2)
    res = evaluate_sweep(X, y, Xt, yt, eps, [1.0], runs=20, rng=1)
    assert res.mean["unreg_pdp_op"][0] < res.mean["unreg_non_personalized"][0]
    assert res.std["reg_non_private"][0] == 0.0
    theta = non_private_ridge(X, y, 1.0)
    assert res.mean["reg_non_private"][0] == pytest.approx(np.mean((Xt @ theta - yt) ** 2) + theta @ theta)
    ls = np.linalg.lstsq(X, y, rcond=None)[0]
    assert res.mean["unreg_non_private"][0] == pytest.approx(np.mean((Xt @ ls - yt) ** 2))
    assert list(res.mean) == list(COLUMNS)


# --------------------------------------------------------------------------- Jorgensen
def test_masks_equal_successive_single_draws():
    eps = np.array([0.05, 0.3, 1.0, 0.6, 0.01, 1.0])
    t = eps.mean()
    batch = jorgensen_masks(eps, t, 50, np.random.default_rng(5))
    gen = np.random.default_rng(5)
    loop = np.array([jorgensen_mask(eps, t, gen) for _ in range(50)])
    np.testing.assert_array_equal(batch, loop)


def test_engine_uses_the_documented_mask_streams():
    X, y, Xt, yt, eps = _small(3)
    seq = np.random.SeedSequence(17)
    res = evaluate_sweep(X, y, Xt, yt, eps, [1.0], runs=300, rng=seq,
                         methods=("jorgensen_max", "jorgensen_mean"))
    g_max, g_mean = (np.random.default_rng(c) for c in np.random.SeedSequence(17).spawn(2))
    np.testing.assert_array_equal(res.kept["jorgensen_max"], jorgensen_masks(eps, eps.max(), 300, g_max).sum(1))
    np.testing.assert_array_equal(res.kept["jorgensen_mean"], jorgensen_masks(eps, eps.mean(), 300, g_mean).sum(1))
    again = evaluate_sweep(X, y, Xt, yt, eps, [1.0], runs=300, rng=seq, methods=("jorgensen_max",))
    np.testing.assert_array_equal(again.kept["jorgensen_max"], res.kept["jorgensen_max"])


def test_batched_ridge_matches_per_mask_ridge_and_empty_mask():
    X, y, _, _, _ = _small(4, n=8)
    rng = np.random.default_rng(6)
    masks = rng.random((25, 8)) < 0.5
    masks[0] = False
    masks[1] = True
    theta = batched_ridge(X, y, masks, 0.7)
    np.testing.assert_array_equal(theta[0], np.zeros(3))
    for r in range(1, 25):
        if masks[r].any():
            np.testing.assert_allclose(theta[r], non_private_ridge(X[masks[r]], y[masks[r]], 0.7), rtol=1e-10)


def _enumerate_jorgensen(X, y, Xt, yt, eps, t, lam, penalty):
    """Exact mean and std of Jorgensen's loss by enumerating every sampling mask."""
    n, d = X.shape
    p = jorgensen_keep_probabilities(eps, t)
    rand = np.flatnonzero(p < 1)
    mean = second = 0.0
    for bits in itertools.product([False, True], repeat=rand.size):
        m = p >= 1
        m[rand] = bits
        prob = np.prod(np.where(bits, p[rand], 1 - p[rand]))
        k = m.sum()
        theta_bar = _ridge(X[m], y[m], np.full(k, 1 / k), lam)
        eta = k * t / _c(lam, d)
        # E L = L(theta_bar) + E[Z^T A Z], E Z Z^T = (E||Z||^2 / d) I, E||Z||^2 = d (d+1) / eta^2
        A = Xt.T @ Xt / len(yt) + penalty * np.eye(d)
        mu = np.mean((Xt @ theta_bar - yt) ** 2) + penalty * theta_bar @ theta_bar + (d + 1) / eta**2 * np.trace(A)
        var = float(loss_moments(theta_bar, eta, Xt, yt, penalty=penalty).var)
        mean += prob * mu
        second += prob * (var + mu * mu)
    return mean, math.sqrt(second - mean**2)


@pytest.mark.parametrize("method", ["jorgensen_max", "jorgensen_mean"])
def test_jorgensen_matches_exact_enumeration(method):
    X, y, Xt, yt, eps = _small(7, n=9)
    lam = 0.6
    res = evaluate_sweep(X, y, Xt, yt, eps, [lam], runs=20_000, rng=np.random.SeedSequence(8),
                         methods=(method,))
    t = eps.max() if method == "jorgensen_max" else eps.mean()
    for kind, penalty in (("unreg", 0.0), ("reg", lam)):
        col = f"{kind}_{method}"
        mean, std = _enumerate_jorgensen(X, y, Xt, yt, eps, t, lam, penalty)
        assert abs(res.mean[col][0] - mean) <= Z_MAX * res.mean_se[col][0]
        assert abs(res.std[col][0] - std) <= Z_MAX * res.std_se[col][0]
        # Rao-Blackwellization: the conditional-mean estimator beats the plain average
        assert res.mean_se[col][0] < res.naive_se[col][0]


def test_jorgensen_matches_brute_force_single_runs():
    from pdp_lib.mechanisms.baselines import jorgensen

    X, y, Xt, yt, eps = _small(9, n=10)
    lam = 2.0
    res = evaluate_sweep(X, y, Xt, yt, eps, [lam], runs=5000, rng=3, methods=("jorgensen_mean",))
    rng = np.random.default_rng(12)
    losses = np.array([np.mean((Xt @ jorgensen(X, y, eps, lam, "mean", rng=rng) - yt) ** 2)
                       for _ in range(6000)])
    se = math.hypot(losses.std() / math.sqrt(losses.size), res.mean_se["unreg_jorgensen_mean"][0])
    assert abs(losses.mean() - res.mean["unreg_jorgensen_mean"][0]) <= Z_MAX * se


def test_evaluate_sweep_validates_inputs():
    X, y, Xt, yt, eps = _small(10)
    with pytest.raises(ValueError, match=r"lams\[1\]"):
        evaluate_sweep(X, y, Xt, yt, eps, [1.0, -1.0], runs=5)
    with pytest.raises(ValueError, match="runs"):
        evaluate_sweep(X, y, Xt, yt, eps, [1.0], runs=0)
    with pytest.raises(ValueError, match="methods"):
        evaluate_sweep(X, y, Xt, yt, eps, [1.0], runs=5, methods=("ols",))
    with pytest.raises(ValueError, match="X_test"):
        evaluate_sweep(X, y, Xt[:, :2], yt, eps, [1.0], runs=5)
    with pytest.raises(ValueError, match=r"epsilons\[2\]"):
        evaluate_sweep(X, y, Xt, yt, np.where(np.arange(9) == 2, 0.0, eps), [1.0], runs=5)


# --------------------------------------------------------------------------- draws and seeds
def test_seed_sequence_is_the_spawned_child():
    child = np.random.SeedSequence(123).spawn(4)[3]
    np.testing.assert_array_equal(seed_sequence(123, 3).generate_state(4), child.generate_state(4))


def test_draws_follow_the_paper_and_replicates_redraw():
    syn = draw_data("synthetic", 0, 0)
    assert syn.X_train.shape == (80, 30) and syn.X_test.shape == (20, 30)
    med = draw_data("medical_cost", 0, 0)
    assert med.X_train.shape == (1070, 12) and med.split_seed == 21
    med1 = draw_data("medical_cost", 0, 1)
    assert med1.split_seed != 21 and not np.array_equal(med.X_train, med1.X_train)
    syn1 = draw_data("synthetic", 0, 1)
    assert not np.array_equal(syn.X_train, syn1.X_train)
    X, _ = training_points(med, 0.1)
    assert X.shape == (107, 12)
    eps = draw_profile(med, DEFAULT_PROFILE, 1070)
    assert eps.shape == (1070,) and eps.min() >= 0.01 and eps.max() == 1.0
    np.testing.assert_array_equal(eps, draw_profile(med, DEFAULT_PROFILE, 1070))


# --------------------------------------------------------------------------- registry
def test_registry_has_every_target():
    assert len(TARGET_NAMES) == 32 + 7 and list(TARGETS) == list(TARGET_NAMES)
    for spec in (TARGETS[n] for n in TARGET_NAMES[:32]):
        assert set(spec.columns) <= set(COLUMNS)
        assert len(spec.param_labels) == len(set(spec.param_labels))
        assert spec.statistic == ("std" if spec.name in ("table-13", "table-14") or
                                  spec.name in {f"figure-{i}" for i in (1, 2, *range(11, 19))} else "mean")
    with pytest.raises(ValueError, match=r"choose table-1 \.\.\. table-14 or figure-1 \.\.\. figure-18"):
        get_target("table-15")
    # the registry file itself, its published cells and the authors' files: tests/test_registry.py


# --------------------------------------------------------------------------- reproduce
def test_reproduce_shape_determinism_and_paper_column():
    a = reproduce("table-9", runs=40, seed=5)
    b = reproduce("table-9", runs=40, seed=5)
    c = reproduce("table-9", runs=40, seed=6)
    assert list(a.columns) == ["param", "column", "value", "low", "high", "paper", "se",
                               "low_draws", "high_draws", "spread"]
    assert len(a) == 6 * 4
    assert a.equals(b)
    assert not np.allclose(a["value"], c["value"])
    assert a["low"].isna().all() and a["high"].isna().all()
    row = a[(a.param == "0.1") & (a.column == "unreg_pdp_op")].iloc[0]
    assert row.paper == pytest.approx(9.02e-3)


def test_targets_of_one_experiment_share_their_draws():
    out = reproduce_many(["table-1", "table-3", "table-11", "table-5", "table-7"], runs=30, seed=2)
    alone = reproduce("table-1", runs=30, seed=2)
    assert out["table-1"].equals(alone)

    def cell(name, param, column):
        df = out[name]
        return df[(df.param == param) & (df.column == column)].value.iloc[0]

    assert cell("table-1", "50.00", "reg_pdp_op") == cell("table-3", "50.00", "reg_pdp_op")
    assert cell("table-11", "1.0", "unreg_pdp_op") == cell("table-1", "100.00", "unreg_pdp_op")
    assert cell("table-5", "0.01", "reg_non_personalized") == cell("table-7", "0.50", "reg_non_personalized")


def test_exact_cell_equals_direct_computation():
    from pdp_lib import calibrate, weighted_ridge

    df = reproduce("table-2", runs=10, seed=4)
    draw = draw_data("medical_cost", 4, 0)
    eps = draw_profile(draw, DEFAULT_PROFILE, 1070)
    cal = calibrate(eps, 0.5, 12)
    theta_bar = weighted_ridge(draw.X_train, draw.y_train, cal.weights, 0.5)
    mom = loss_moments(theta_bar, cal.eta, draw.X_test, draw.y_test, penalty=0.5)
    got = df[(df.param == "0.50") & (df.column == "reg_pdp_op")].value.iloc[0]
    assert got == pytest.approx(float(mom.mean), rel=1e-12)


def test_replicates_give_a_range():
    df = reproduce("table-10", runs=20, seed=1, replicates=3)
    assert np.isfinite(df["low"]).all() and np.isfinite(df["high"]).all()
    assert (df["low"] <= df["high"]).all()
    assert (df["high"] > df["low"]).any()


def test_replicate_runs_leave_the_reported_draw_unchanged():
    full = reproduce("table-4", runs=60, seed=3, replicates=3)
    cheap = reproduce("table-4", runs=60, seed=3, replicates=3, replicate_runs=5)
    assert np.array_equal(full["value"], cheap["value"])            # replicate 0 always uses `runs`
    exact = full["column"].str.contains("pdp_op|non_private")
    # exact columns do not depend on the number of runs at all, so their bands agree too
    assert np.allclose(full.loc[exact, "low"], cheap.loc[exact, "low"], rtol=1e-12)
    jorg = ~exact
    assert not np.allclose(full.loc[jorg, "low"], cheap.loc[jorg, "low"])


def test_paper_runs_widen_the_band_by_the_monte_carlo_error():
    base = reproduce("table-2", runs=10, seed=8, replicates=6, paper_runs=None)
    mc = reproduce("table-2", runs=10, seed=8, replicates=6, paper_runs=100)
    assert np.array_equal(base["value"], mc["value"])
    assert np.array_equal(mc["low_draws"], base["low"]) and np.array_equal(mc["high_draws"], base["high"])
    # with 100 runs the Monte Carlo error of a mean (std ~ mean) is ~10%: the band must move
    assert not np.allclose(mc["low"], base["low"])
    again = reproduce("table-2", runs=10, seed=8, replicates=6, paper_runs=100)
    assert again.equals(mc)


def test_standard_deviation_bands_use_the_exact_error_of_an_r_run_standard_deviation():
    # Rebuild the band of two cells of Table 14 by hand: each replicate's exact standard deviation
    # plus the exact standard error of a 100-run sample standard deviation (fourth moment of the
    # loss over runs), times the cell's Gaussian stream; the draws and streams are the documented ones.
    from pdp_lib.experiments import mixture_seed
    from pdp_lib.experiments.mixtures import METHODS, method_mixtures
    from pdp_lib.experiments.settings import MIXTURE_MASKS

    reps, runs = 4, 100
    table = reproduce("table-14", runs=50, seed=3, replicates=reps, paper_runs=runs)
    spec = get_target("table-14")
    for label, column in (("0.10", "unreg_pdp_op"), ("2.00", "reg_jorgensen_max")):
        row = table[(table["param"] == label) & (table["column"] == column)].iloc[0]
        kind, _, method = column.partition("_")
        vals, errors = [], []
        for rep in range(reps):
            draw = draw_data("medical_cost", 3, rep, vary_split=False)
            X, y = training_points(draw, 1.0)
            eps = draw_profile(draw, spec.profile, X.shape[0])
            stream = mixture_seed(draw, spec.profile, X.shape[0]).spawn(len(METHODS))[METHODS.index(method)]
            mix = method_mixtures(method, X, y, draw.X_test, draw.y_test, eps, [float(label)],
                                  masks=MIXTURE_MASKS, rng=stream)[kind, float(label)]
            errors.append(mix.std_error(1.0, "std", runs))
            normal = np.sqrt(mix.central_moments(1.0)[1]) / np.sqrt(2 * runs)
            assert errors[-1] > normal            # the loss's heavy tail: more than normal theory
            if method == "pdp_op":                # exact column: the mixture's std is the reported one
                vals.append(np.sqrt(mix.central_moments(1.0)[1]))
        if method == "pdp_op":
            assert np.isclose(vals[0], row["value"], rtol=1e-9)
            cell = (TARGET_NAMES.index("table-14"), spec.param_labels.index(label), spec.columns.index(column))
            xi = np.random.default_rng(seed_sequence(3, 7, *cell)).standard_normal(reps)
            low, high = np.quantile(np.array(vals) + np.array(errors) * xi, [0.025, 0.975])
            assert np.isclose(row["low"], low, rtol=1e-9) and np.isclose(row["high"], high, rtol=1e-9)


def test_fixed_split_keeps_the_papers_medical_cost_split():
    from pdp_lib.experiments.draws import SPLIT_SEED

    assert draw_data("medical_cost", 4, 3, vary_split=False).split_seed == SPLIT_SEED
    assert draw_data("medical_cost", 4, 3).split_seed != SPLIT_SEED
    df = reproduce("table-4", runs=10, seed=4, replicates=3, paper_runs=None)   # split="paper" by default
    non_private = df[df.column == "unreg_non_private"]
    # the non-private loss depends on the split only: fixed split, zero-width band
    assert np.allclose(non_private["low"], non_private["high"], rtol=1e-12)
    redrawn = reproduce("table-4", runs=10, seed=4, replicates=3, paper_runs=None, split="redraw")
    non_private = redrawn[redrawn.column == "unreg_non_private"]
    assert (non_private["high"] > non_private["low"] * (1 + 1e-6)).all()
    with pytest.raises(ValueError, match="split"):
        reproduce("table-4", runs=10, split="fixed")


def test_reproduce_rejects_bad_arguments():
    with pytest.raises(ValueError, match="runs"):
        reproduce("table-1", runs=0)
    with pytest.raises(ValueError, match="replicates"):
        reproduce("table-1", replicates=0)
    with pytest.raises(ValueError, match="target"):
        reproduce("table-0")


def test_batched_ridge_rejects_non_binary_masks():
    X, y, _, _, _ = _small(11, n=4)
    with pytest.raises(ValueError, match=r"masks\[1, 2\]"):
        batched_ridge(X, y, [[1, 0, 1, 0], [0, 1, 2, 1]], 1.0)
    with pytest.raises(ValueError, match="shape"):
        batched_ridge(X, y, [[True, False]], 1.0)


def test_synthetic_least_squares_is_an_exact_fit():
    # sigma = 0 and 80 > 30 training points: least squares interpolates the noiseless labels, so
    # the non-private unregularized test loss is rounding error (the paper prints 5.73e-32).
    draw = draw_data("synthetic", 0, 0)
    eps = draw_profile(draw, DEFAULT_PROFILE, 80)
    res = evaluate_sweep(draw.X_train, draw.y_train, draw.X_test, draw.y_test, eps, [1.0, 100.0], runs=1,
                         methods=("non_private",))
    assert np.all(res.mean["unreg_non_private"] < 1e-28)
    assert np.all(res.mean["reg_non_private"] > 1e-4)


def test_columns_option_computes_only_what_is_asked():
    full = reproduce("table-4", runs=20, seed=2)
    only = reproduce("table-4", runs=20, seed=2, columns=("unreg_pdp_op", "reg_pdp_op"))
    assert set(only["column"]) == {"unreg_pdp_op", "reg_pdp_op"}
    merged = only.merge(full, on=["param", "column"], suffixes=("", "_full"))
    assert len(merged) == len(only) and np.array_equal(merged["value"], merged["value_full"])
    with pytest.raises(ValueError, match="columns"):
        reproduce("table-4", runs=20, columns=("reg_non_personalized",))


def test_to_markdown_shows_the_columns_asked_for_in_the_targets_order():
    from pdp_lib.experiments import reproduce, to_markdown

    table = reproduce("table-4", runs=50, seed=0)
    whole = to_markdown("table-4", table)
    half = to_markdown("table-4", table, ["unreg_non_private", "unreg_pdp_op"])
    assert half.splitlines()[2] == "| λ | unreg_pdp_op | unreg_non_private |"
    assert len(half.splitlines()) == len(whole.splitlines())
    with pytest.raises(ValueError, match="must be columns of table-4"):
        to_markdown("table-4", table, ["unreg_pdp_op", "nonsense"])
