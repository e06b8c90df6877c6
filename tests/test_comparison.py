"""The book's comparison on a user's table (pdp_lib.io.comparison): the streamed sums against the in-memory mechanisms."""

import numpy as np
import pandas as pd
import pytest

import pdp_lib
from pdp_lib.io import comparison, public_bounds
from pdp_lib.mechanisms.baselines import jorgensen_keep_probabilities, non_private_ridge
from pdp_lib.moments import loss_moments
from pdp_lib.mechanisms.threshold import threshold_calibration

D = 3
FEATURES = [f"f{k}" for k in range(D)]


def _table(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, D))
    raw = pd.DataFrame(X, columns=FEATURES)
    raw["y"] = np.clip(X @ np.array([0.5, -0.3, 0.2]) + rng.normal(0, 0.1, n), -1, 1)
    raw["eps"] = rng.choice([0.05, 0.2, 1.0], n, p=[0.3, 0.4, 0.3])
    return raw


def _coins(raw, seed):
    """The split's coin for each row, from its values as read: features, label, level."""
    return comparison.row_uniforms([raw[c].to_numpy() for c in [*FEATURES, "y", "eps"]], seed)


def test_the_split_depends_on_the_rows_only_not_on_the_files_or_their_order(tmp_path):
    raw = _table(2000)
    raw.to_csv(tmp_path / "one.csv", index=False)
    parts = tmp_path / "parts"
    parts.mkdir()
    shuffled = raw.sample(frac=1.0, random_state=4)[["eps", "y", *FEATURES]]      # rows and columns reordered
    for k, start in enumerate(range(0, 2000, 700)):
        shuffled.iloc[start:start + 700].to_parquet(parts / f"p{k}.parquet", index=False)
    bounds = public_bounds.domain_bounds(tmp_path / "one.csv", "y", "eps")
    a = comparison.compare_sums(tmp_path / "one.csv", bounds, "y", "eps", seed=5, masks=2, chunk_rows=333)
    b = comparison.compare_sums(parts, bounds, "y", "eps", seed=5, masks=2, chunk_rows=1000)
    assert a.test.rows == b.test.rows == int(np.sum(_coins(raw, 5) < 0.2)) and a.plain.rows == b.plain.rows
    np.testing.assert_allclose(a.test.gram, b.test.gram, rtol=1e-12)
    np.testing.assert_allclose(a.weighted.moment, b.weighted.moment, rtol=1e-12)
    u = _coins(raw, 5)
    assert 0 <= u.min() and u.max() < 1 and abs(np.mean(u < 0.2) - 0.2) < 0.03      # a fair coin: 2000 rows


def test_uniforms_do_not_depend_on_the_chunks():
    whole = comparison.uniforms(7, 0, 0, 0, 10_000, width=2)
    parts = np.concatenate([comparison.uniforms(7, 0, 0, s, min(3000, 10_000 - s), width=2)
                            for s in range(0, 10_000, 3000)], axis=1)
    np.testing.assert_array_equal(whole, parts)


def test_every_expected_loss_is_the_in_memory_mechanisms(tmp_path):
    raw = _table()
    raw.to_csv(tmp_path / "d.csv", index=False)
    bounds = public_bounds.domain_bounds(tmp_path / "d.csv", "y", "eps")
    sums = comparison.compare_sums(tmp_path / "d.csv", bounds, "y", "eps", test_fraction=0.25, seed=3, masks=4,
                                   chunk_rows=500)
    table = comparison.expected_losses(sums, [0.5, 2.0]).set_index(["lam", "method"])
    test = _coins(raw, 3) < 0.25
    X, y, eps = raw[FEATURES].to_numpy(), raw["y"].to_numpy(), raw["eps"].to_numpy()
    Xtr, ytr, etr, Xte, yte = X[~test], y[~test], eps[~test], X[test], y[test]
    u = comparison.uniforms(3, 1, 0, 0, len(raw), width=8)[:, ~test]
    for lam in (0.5, 2.0):
        expected = {}
        for method, B in (("pdp_op", None), ("pdp_op_sharp", "sharp")):
            cal = pdp_lib.calibrate(etr, lam, D, B)
            theta = pdp_lib.weighted_ridge(Xtr, ytr, cal.weights, lam)
            expected[method] = loss_moments(theta, cal.eta, Xte, yte).mean
        cal = pdp_lib.calibrate(np.full(etr.size, etr.min()), lam, D)
        expected["non_personalized"] = loss_moments(pdp_lib.weighted_ridge(Xtr, ytr, cal.weights, lam), cal.eta,
                                                    Xte, yte).mean
        keep, cal = threshold_calibration(etr, lam, D)
        expected["threshold_public"] = loss_moments(pdp_lib.weighted_ridge(Xtr[keep], ytr[keep], cal.weights, lam),
                                             cal.eta, Xte, yte).mean
        for j, (kind, t) in enumerate((("max", etr.max()), ("mean", etr.mean()))):
            p = jorgensen_keep_probabilities(etr, t)
            values = []
            for m in range(4):
                kept = u[j * 4 + m] < p
                cal = pdp_lib.calibrate(np.full(int(kept.sum()), t), lam, D)
                th = pdp_lib.weighted_ridge(Xtr[kept], ytr[kept], cal.weights, lam)
                values.append(loss_moments(th, cal.eta, Xte, yte).mean)
            expected[f"jorgensen_{kind}"] = np.mean(values)
        expected["non_private"] = np.mean((Xte @ non_private_ridge(Xtr, ytr, lam) - yte) ** 2)
        for method, value in expected.items():
            assert table.loc[(lam, method), "loss"] == pytest.approx(float(value), rel=1e-9), method
    # no intercept here: mechanism="auto" needs one, so its rows are left out
    assert set(table.index.get_level_values("method")) == (set(comparison.METHODS) - set(comparison.DELTA_METHODS)
                                                           - set(comparison.CHOSEN))


def test_bad_levels_are_refused_in_the_first_pass(tmp_path):
    raw = _table(100)
    raw.loc[17, "eps"] = -1.0
    raw.to_csv(tmp_path / "d.csv", index=False)
    bounds = public_bounds.domain_bounds(tmp_path / "d.csv", "y", "eps")
    with pytest.raises(ValueError, match=r"d.csv, line 19, column 'eps': -1.0 is outside the allowed range \(0, 100\]"):
        comparison.compare_sums(tmp_path / "d.csv", bounds, "y", "eps")
    with pytest.raises(ValueError, match=r"test_fraction = 1.0 is outside the allowed range \(0, 1\)"):
        comparison.compare_sums(tmp_path / "d.csv", bounds, "y", "eps", test_fraction=1.0)


def test_the_mean_predictor_is_the_training_mean_on_the_test_rows(tmp_path):
    raw = _table(900)
    raw.to_csv(tmp_path / "d.csv", index=False)
    bounds = public_bounds.domain_bounds(tmp_path / "d.csv", "y", "eps")
    sums = comparison.compare_sums(tmp_path / "d.csv", bounds, "y", "eps", seed=3, masks=2)
    test = _coins(raw, 3) < 0.2
    mean = raw["y"].to_numpy()[~test].mean()
    expected = np.mean((raw["y"].to_numpy()[test] - mean) ** 2)                 # by hand
    table = comparison.expected_losses(sums, [1.0]).set_index("method")
    assert table.loc["mean", "loss"] == pytest.approx(expected, rel=1e-12)
    assert table.loc["midpoint", "loss"] == pytest.approx(np.mean(raw["y"].to_numpy()[test] ** 2), rel=1e-12)


def test_compare_writes_nothing_when_a_row_is_refused(tmp_path, capsys):
    from pdp_lib import cli
    raw = _table(300)
    raw.loc[250, "eps"] = -1.0
    raw.to_csv(tmp_path / "d.csv", index=False)
    out = tmp_path / "results"
    assert cli.main(["compare", str(tmp_path / "d.csv"), "--label", "y", "--epsilon", "eps", "--out", str(out)]) == 2
    assert "line 252, column 'eps'" in capsys.readouterr().err and not out.exists()


def test_the_command_line_writes_the_three_files(tmp_path, capsys):
    from pdp_lib import cli
    _table(800).to_csv(tmp_path / "d.csv", index=False)
    out = tmp_path / "out"
    status = cli.main(["compare", str(tmp_path / "d.csv"), "--label", "y", "--epsilon", "eps", "--lams", "0.1,1,10",
                       "--masks", "3", "--out", str(out)])
    printed = capsys.readouterr().out
    assert status == 0 and "training and" in printed and comparison.NOTE in printed
    table = pd.read_csv(out / "comparison.csv")
    assert list(table.columns) == ["lam", "method", "loss", "se", "units"]
    assert len(table) == 3 * len(set(comparison.METHODS) - set(comparison.DELTA_METHODS) - set(comparison.CHOSEN))
    assert set(table["units"]) == {"squared scaled label ([-1, 1]); not private: reads the test rows"}
    markdown = (out / "comparison.md").read_text()
    assert markdown.startswith("| mechanism | λ = 0.1 | λ = 1 | λ = 10 |") and markdown.strip().endswith(comparison.NOTE)
    assert "±" in markdown and "one standard error of that mean, as a percentage of the loss" in markdown
    assert (out / "comparison.png").read_bytes()[:4] == b"\x89PNG"
    assert cli.main(["compare", str(tmp_path / "d.csv"), "--label", "y", "--epsilon", "eps", "--lams", "1,1",
                     "--out", str(out)]) == 2
    assert "repeats a value" in capsys.readouterr().err
    assert cli.main(["compare", str(tmp_path / "d.csv"), "--label", "y", "--epsilon", "eps", "--lams", "1",
                     "--masks", "2", "--draws", "20", "--delta", "1e-5", "--out", str(out)]) == 0
    capsys.readouterr()
    assert set(pd.read_csv(out / "comparison.csv")["method"]) == set(comparison.METHODS) - set(comparison.CHOSEN)
    assert cli.main(["compare", str(tmp_path / "d.csv"), "--label", "y", "--epsilon", "eps", "--delta", "1",
                     "--out", str(tmp_path / "never")]) == 2
    assert "--delta" in capsys.readouterr().err and not (tmp_path / "never").exists()


def test_the_masks_do_not_depend_on_the_slices_their_draws_are_made_in(tmp_path, monkeypatch):
    _table(1200).to_csv(tmp_path / "d.csv", index=False)
    bounds = public_bounds.domain_bounds(tmp_path / "d.csv", "y", "eps")
    whole = comparison.compare_sums(tmp_path / "d.csv", bounds, "y", "eps", seed=2, masks=4, chunk_rows=1200)
    monkeypatch.setattr(comparison, "_MASK_ROWS", 97)          # many slices per chunk, cut across blocks
    sliced = comparison.compare_sums(tmp_path / "d.csv", bounds, "y", "eps", seed=2, masks=4, chunk_rows=1200)
    for kind in whole.masks:
        for a, b in zip(whole.masks[kind], sliced.masks[kind]):
            assert a.rows == b.rows
            np.testing.assert_allclose(a.gram, b.gram, rtol=1e-12)
            np.testing.assert_allclose(a.moment, b.moment, rtol=1e-12, atol=1e-12)


def test_compare_writes_its_tables_without_matplotlib(tmp_path, capsys, monkeypatch):
    """pip install "pdp_lib[parquet]" alone: compare writes the CSV and the Markdown and says, in one line, which
    extra draws the figure."""
    import importlib.util

    from pdp_lib import cli
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    _table(300).to_csv(tmp_path / "d.csv", index=False)
    out = tmp_path / "out"
    assert cli.main(["compare", str(tmp_path / "d.csv"), "--label", "y", "--epsilon", "eps", "--lams", "1",
                     "--masks", "2", "--out", str(out)]) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip() and not line.startswith("compare: ")]
    assert err == ["comparison.png not drawn: it needs matplotlib: pip install 'pdp_lib[plot]'"]
    assert sorted(p.name for p in out.iterdir()) == ["comparison.csv", "comparison.md"]


def _split(raw, seed, fraction):
    test = _coins(raw, seed) < fraction
    X, y, eps = raw[FEATURES].to_numpy(), raw["y"].to_numpy(), raw["eps"].to_numpy()
    return X[~test], y[~test], eps[~test], X[test], y[test]


def test_the_mechanisms_beyond_output_perturbation_are_their_releases_and_the_private_mean_is_exact(tmp_path):
    from pdp_lib.mechanisms import objective
    from pdp_lib.mechanisms.ssp import solve_statistics, ssp_statistics

    raw = _table(n=800, seed=2)
    raw.to_csv(tmp_path / "d.csv", index=False)
    bounds = public_bounds.domain_bounds(tmp_path / "d.csv", "y", "eps")
    sums = comparison.compare_sums(tmp_path / "d.csv", bounds, "y", "eps", test_fraction=0.25, seed=1, masks=2)
    lams = [0.3, 3.0]
    table = comparison.expected_losses(sums, lams, draws=400, seed=1).set_index(["lam", "method"])
    Xtr, ytr, etr, Xte, yte = _split(raw, 1, 0.25)
    centre, S = etr @ ytr / etr.sum(), etr.sum()      # Laplace(2 / S) around the re-weighted mean label
    pm = np.mean((yte - centre) ** 2) + 8 / S**2
    gen = np.random.default_rng(99)                   # an independent Monte Carlo of each release, in memory
    for lam in lams:
        assert table.loc[(lam, "private_mean"), "loss"] == pytest.approx(pm, rel=1e-12)
        ssp_losses = [np.mean((yte - Xte @ solve_statistics(*ssp_statistics(Xtr, ytr, etr, gen, sampler="float")[:2],
                                                           lam)) ** 2) for _ in range(400)]
        obj = [np.mean((yte - Xte @ objective.objective_perturbation(Xtr, ytr, etr, lam, gen, sampler="float")) ** 2)
               for _ in range(400)]
        for method, values in (("ssp", np.array(ssp_losses)), ("objective", np.array(obj))):
            row = table.loc[(lam, method)]
            spread = np.hypot(row["se"], values.std(ddof=1) / np.sqrt(values.size))
            assert abs(row["loss"] - values.mean()) < 4 * spread and 0 < row["se"] < 0.1 * row["loss"]


def test_without_noise_the_monte_carlo_mechanisms_are_the_ridge_fit(tmp_path):
    raw = _table(n=600, seed=4)
    raw.to_csv(tmp_path / "d.csv", index=False)
    bounds = public_bounds.domain_bounds(tmp_path / "d.csv", "y", "eps")
    sums = comparison.compare_sums(tmp_path / "d.csv", bounds, "y", "eps", seed=2, masks=2)
    scale = 1e12                          # every level times 1e12: the same weights, the noise vanishes
    sums.levels, sums.eps_total = sums.levels * scale, sums.eps_total * scale
    for name in ("gram", "moment", "yy", "ysum"):
        setattr(sums.weighted, name, getattr(sums.weighted, name) * scale)
    table = comparison.expected_losses(sums, [0.5], draws=20, seed=0).set_index(["lam", "method"])
    Xtr, ytr, etr, Xte, yte = _split(raw, 2, 0.2)
    exact = np.mean((yte - Xte @ pdp_lib.weighted_ridge(Xtr, ytr, etr / etr.sum(), 0.5)) ** 2)
    for method in ("ssp", "objective", "pdp_op"):
        assert table.loc[(0.5, method), "loss"] == pytest.approx(exact, rel=1e-6)


def test_expected_losses_refuses_too_few_draws(tmp_path):
    raw = _table(n=200)
    raw.to_csv(tmp_path / "d.csv", index=False)
    bounds = public_bounds.domain_bounds(tmp_path / "d.csv", "y", "eps")
    sums = comparison.compare_sums(tmp_path / "d.csv", bounds, "y", "eps", masks=2)
    with pytest.raises(ValueError, match="draws"):
        comparison.expected_losses(sums, [1.0], draws=1)


def test_under_delta_the_gaussian_mechanisms_are_their_releases_and_the_private_mean_is_exact(tmp_path):
    from pdp_lib.mechanisms import adassp, noisy_gd

    raw = _table(n=900, seed=6)
    raw.to_csv(tmp_path / "d.csv", index=False)
    bounds = public_bounds.domain_bounds(tmp_path / "d.csv", "y", "eps")
    sums = comparison.compare_sums(tmp_path / "d.csv", bounds, "y", "eps", seed=4, masks=2, delta=1e-5)
    table = comparison.expected_losses(sums, [0.5], draws=400, seed=2).set_index(["lam", "method"])
    Xtr, ytr, etr, Xte, yte = _split(raw, 4, 0.2)
    mus = tolerated = pdp_lib.curves.tolerated_gaussian_mus(etr, 1e-5)
    centre, M = mus @ ytr / mus.sum(), mus.sum()
    assert table.loc[(0.5, "private_mean_delta"), "loss"] == pytest.approx(
        np.mean((yte - centre) ** 2) + 4 / M**2, rel=1e-12)
    cal = adassp.adassp_calibration(float(M), float(tolerated.min()), D, 1e-5, (0.5, 0.5, 0.0))
    ridge = float(adassp.ridge_rule(0.0, cal.sigma_gram, 0.0, D, 1e-5))
    gen = np.random.default_rng(17)                   # an independent Monte Carlo of each release, in memory
    runs = {"ssp_gaussian": lambda: adassp.gaussian_ssp(Xtr, ytr, etr, ridge, 1e-5, gen, sampler="float"),
            "adassp": lambda: adassp.adassp(Xtr, ytr, etr, 1e-5, gen, sampler="float"),
            "gd": lambda: noisy_gd.noisy_gd(Xtr, ytr, etr, 0.5, 1e-5, gen, sampler="float")}
    for method, run in runs.items():
        values = np.array([np.mean((yte - Xte @ run()) ** 2) for _ in range(400)])
        row = table.loc[(0.5, method)]
        assert abs(row["loss"] - values.mean()) < 4 * np.hypot(row["se"], values.std(ddof=1) / 20)
    plain = comparison.expected_losses(comparison.compare_sums(tmp_path / "d.csv", bounds, "y", "eps", seed=4,
                                                               masks=2), [0.5], draws=2)
    assert not set(plain["method"]) & set(comparison.DELTA_METHODS)
    assert set(table.index.get_level_values("method")) == set(comparison.METHODS) - set(comparison.CHOSEN)


def test_rows_that_choose_their_own_ridge_show_one_value():
    from pdp_lib.replication import rendering

    table = pd.DataFrame({"lam": [0.1, 1.0, 0.1, 1.0], "method": ["pdp_op", "pdp_op", "adassp", "adassp"],
                          "loss": [0.5, 0.25, 0.125, 0.125], "se": [0.0, 0.0, 0.01, 0.01]})
    md = rendering.comparison_markdown(table, comparison.OWN_RIDGE)
    adassp = next(line for line in md.splitlines() if line.startswith("| " + rendering.METHOD_TITLES["adassp"]))
    assert adassp.count("(its own λ)") == 1 and adassp.count("1.25") == 1
    assert "(its own λ)" not in rendering.comparison_markdown(table)          # without the set: every column


def test_compare_adds_the_private_means_per_group_of_a_public_column(tmp_path, capsys):
    from pdp_lib import cli

    raw = _table(900, seed=3)
    raw["f1"] = (raw["f1"] > 0.4).astype(float)            # a binary feature, taken to be public
    raw.to_csv(tmp_path / "d.csv", index=False)
    out = tmp_path / "out"
    args = ["compare", str(tmp_path / "d.csv"), "--label", "y", "--epsilon", "eps", "--lams", "0.1,1",
            "--masks", "2", "--draws", "20", "--delta", "1e-5", "--intercept", "--out", str(out)]
    assert cli.main(args + ["--group", "f1"]) == 0
    printed = capsys.readouterr().out
    assert "take 'f1' to be public" in printed
    table = pd.read_csv(out / "comparison.csv")
    # independent truth: compare's coin for the test rows, each group's weighted mean and noise written out here
    test = _coins(raw, 0) < 0.2
    train = raw[~test]
    from pdp_lib.curves import tolerated_gaussian_mus
    for method, w, var in (("group_means", train["eps"].to_numpy(), 8.0),
                           ("group_means_delta", tolerated_gaussian_mus(train["eps"].to_numpy(), 1e-5), 4.0)):
        loss = 0.0
        for g in (0.0, 1.0):
            mine, held = (train["f1"] == g).to_numpy(), raw[test & (raw["f1"] == g)]
            m = w[mine] @ train["y"].to_numpy()[mine] / w[mine].sum()
            loss += np.sum((held["y"] - m) ** 2) + len(held) * var / w[mine].sum() ** 2
        rows = table[table["method"] == method]
        assert len(rows) == 2 and np.allclose(rows["loss"], loss / test.sum(), rtol=1e-9) and (rows["se"] == 0).all()
    assert "private means per group (public column)" in (out / "comparison.md").read_text()
    # refused in one line with nothing written: a name that is not a feature before any row is read, a column that
    # is not binary once the sums are read, before the Monte Carlo
    never = tmp_path / "never"
    for extra, message in ((["--group", "f9"], "--group 'f9' is not a feature of the bounds; use one of f0, f1, f2"),
                           (["--group", "f0"], "--group 'f0': column = 0: a training row's value is strictly between"),):
        assert cli.main(args[:-1] + [str(never)] + extra) == 2
        assert message in capsys.readouterr().err and not never.exists()
    raw.assign(f1=1.0).to_csv(tmp_path / "one.csv", index=False)      # one group: the other has no training row
    assert cli.main([a if a != str(tmp_path / "d.csv") else str(tmp_path / "one.csv") for a in args]
                    + ["--group", "f1"]) == 0
    capsys.readouterr()
    one = pd.read_csv(out / "comparison.csv")
    test_one = _coins(raw.assign(f1=1.0), 0) < 0.2
    w, yy = raw["eps"][~test_one].to_numpy(), raw["y"].to_numpy()
    m = w @ yy[~test_one] / w.sum()
    expected = np.mean((yy[test_one] - m) ** 2) + 8.0 / w.sum() ** 2
    assert np.allclose(one[one["method"] == "group_means"]["loss"], expected, rtol=1e-9)
    no_intercept = [a for a in args if a != "--intercept"]
    assert cli.main(no_intercept[:-1] + [str(never), "--group", "f1"]) == 2
    assert "--group needs --intercept" in capsys.readouterr().err and not never.exists()


def test_the_verdict_holds_no_regression_against_the_groups_nor_them_against_the_mean():
    table = pd.DataFrame({"lam": [1.0] * 4, "method": ["private_mean", "pdp_op", "group_means", "group_means_delta"],
                          "loss": [0.5, 0.6, 0.1, 0.1], "se": [0.0, 0.0, 0.0, 0.0]})
    verdict = comparison.private_mean_verdict(table)
    assert verdict is not None and "the best, pdp_op" in verdict     # the groups are not a regression that beats it


def test_the_group_rows_without_delta_and_the_refusals_of_the_loss(tmp_path):
    raw = _table(400, seed=5)
    raw["f2"] = (raw["f2"] > 0.5).astype(float)
    raw.to_csv(tmp_path / "d.csv", index=False)
    bounds = public_bounds.domain_bounds(tmp_path / "d.csv", "y", "eps")
    import dataclasses
    sums = comparison.compare_sums(tmp_path / "d.csv", dataclasses.replace(bounds, intercept=True), "y", "eps",
                                   masks=2)
    rows = comparison.group_rows(sums, 2, [0.1, 1.0])
    assert list(rows["method"]) == ["group_means", "group_means"]      # no delta: no Gaussian row
    with pytest.raises(TypeError, match="column must be an integer"):
        comparison.group_mean_loss(sums, 0.5)
    with pytest.raises(TypeError, match="column must be an integer"):
        comparison.group_mean_loss(sums, True)
    with pytest.raises(ValueError, match=r"column = 3 is outside the allowed range \[0, 2\]"):
        comparison.group_mean_loss(sums, 3)


def test_the_masks_ridges_at_once_are_each_masks_own_ridge_bit_for_bit(tmp_path):
    # the Jorgensen rows solve every mask's ridge in one batch: each must be the one-at-a-time answer, to the bit
    _table(1200, seed=5).to_csv(tmp_path / "d.csv", index=False)
    bounds = public_bounds.domain_bounds(tmp_path / "d.csv", "y", "eps")
    sums = comparison.compare_sums(tmp_path / "d.csv", bounds, "y", "eps", seed=6, masks=6)
    for kind, parts in sums.masks.items():
        parts = [part for part in parts if part.rows]
        assert len(parts) == 6
        for lam in (1e-3, 0.1, 7.0):
            many = comparison._ridges(parts, lam)
            for part, row in zip(parts, many):
                one = comparison._ridge(part, part.rows, lam)
                assert np.array_equal(row, one)
                A = part.gram / part.rows + lam * np.eye(D)        # and it is the ridge
                assert np.allclose(A @ row, part.moment / part.rows, rtol=0, atol=1e-13)
