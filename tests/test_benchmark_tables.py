"""The held-out benchmark's tables (pdp_lib.io.benchmark_tables) and the procedures measured on them
(pdp_lib.experiments.advice): the split by its rule, every table as shipped, and procedures that read public facts
only, held against the oracle and against losses computed here."""

import dataclasses
import hashlib
import tomllib
from pathlib import Path

import numpy as np
import pytest

import pdp_lib
from pdp_lib.experiments import advice
from pdp_lib.io import benchmark_tables as bt
from pdp_lib.io import comparison

FOLDER = Path(pdp_lib.__file__).parent / "data" / "benchmark"


def test_the_split_is_the_rule_and_the_book_tables_only_develop():
    dev, held = bt.read_split()
    assert (dev, held) == bt.split_rule(bt.table_names())
    assert set(dev).isdisjoint(held) and set(dev) | set(held) == set(bt.table_names())
    assert set(bt.BOOK_TABLES) <= set(dev)
    assert len(held) >= 15 and not set(held) & set(bt.BOOK_TABLES)
    # the rule, written out again: the first hexadecimal digit of SHA-256(name)
    assert all((hashlib.sha256(n.encode()).hexdigest()[0] in "01234") == (n in dev)
               for n in bt.table_names() if n not in bt.BOOK_TABLES)
    assert (FOLDER / "split.toml").read_text(encoding="utf-8") == bt.split_text(
        [n for n in bt.table_names() if n not in bt.BOOK_TABLES])


def test_the_second_evaluation_set_is_its_rule_over_tables_no_other_set_holds():
    fresh = tomllib.loads((FOLDER / "fresh.toml").read_text(encoding="utf-8"))
    assert bt.read_fresh() == bt.fresh_rule(bt.fresh_eligible()) == tuple(sorted(fresh["tables"]))
    assert bt.fresh_eligible() == tuple(fresh["eligible"])
    assert len(bt.read_fresh()) == bt.FRESH_COUNT and not set(fresh["eligible"]) & set(bt.table_names())
    # the rule, written out again: the 12 smallest SHA-256 of "fresh:" + name
    digests = sorted(hashlib.sha256(("fresh:" + n).encode()).hexdigest() for n in fresh["eligible"])
    assert {hashlib.sha256(("fresh:" + n).encode()).hexdigest() for n in bt.read_fresh()} == set(digests[:12])


def test_the_third_evaluation_set_is_the_second_sets_undrawn_tables_but_a_panel_and_a_duplicate():
    third = tomllib.loads((FOLDER / "third.toml").read_text(encoding="utf-8"))
    fresh = tomllib.loads((FOLDER / "fresh.toml").read_text(encoding="utf-8"))
    assert bt.third_eligible() == tuple(third["eligible"]) == tuple(sorted(set(fresh["eligible"]) - set(
        fresh["evaluation"])))
    assert bt.read_third() == bt.third_rule(bt.third_eligible()) == tuple(sorted(third["tables"]))
    assert set(bt.third_eligible()) - set(bt.read_third()) == {"big9salary", "benefits"}
    assert not set(bt.read_third()) & (set(bt.table_names()) | set(bt.read_fresh()))


def test_every_shipped_table_is_the_file_its_provenance_names():
    provenance = tomllib.loads((FOLDER / "provenance.toml").read_text(encoding="utf-8"))["tables"]
    assert set(provenance) == (set(bt.table_names()) - set(bt.BOOK_TABLES) | set(bt.read_fresh())
                               | set(bt.read_third()))
    for name, entry in provenance.items():
        data = (FOLDER / f"{name}.csv.gz").read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["file_sha256"], name
        assert entry["kept"] >= 500 and entry["kept"] <= entry["rows"]


@pytest.mark.parametrize("name", bt.table_names() + bt.read_fresh() + bt.read_third())
def test_every_table_is_read_into_the_domain_by_its_public_bounds(name):
    table = bt.load_table(name)
    n, width = table.X.shape
    assert width == len(table.features) + 1 and table.bounds.intercept
    assert np.all(table.X[:, -1] == 1.0) and np.all((table.X >= 0) & (table.X <= 1))
    # the bounds are each column's minimum and maximum: the label spans [-1, 1] exactly
    assert table.y.min() == -1.0 and table.y.max() == 1.0
    assert np.all(table.X[:, :-1].min(axis=0) == 0.0) and np.all(table.X[:, :-1].max(axis=0) == 1.0)
    assert n >= (442 if name == "diabetes" else 500)


def test_a_table_is_read_once_and_cannot_be_changed_by_a_reader():
    first, again = bt.load_table("medical"), bt.load_table("medical")
    assert first is again
    with pytest.raises(ValueError, match="read-only"):
        first.X[0, 0] = 0.5
    with pytest.raises(ValueError, match="read-only"):
        first.y[0] = 0.0


def test_an_unknown_table_is_refused_naming_the_allowed_ones():
    with pytest.raises(ValueError, match=r"table = 'iris' is not a benchmark table; use one of 401k, "):
        bt.load_table("iris")


@pytest.fixture(scope="module")
def cells():
    return [advice.cell_losses(name, profile, 0, draws=20, masks=4)
            for name in ("meap01", "affairs") for profile in ("paper", "tenfold")]


def test_no_procedure_beats_the_oracle_and_one_private_release_meets_it(cells):
    table = advice.procedure_table(cells, advice.FAMILY["pure"] + advice.FAMILY["approximate"])
    assert np.all(table.ratio >= 1.0)                   # the oracle is the least of the same entries
    best = table.groupby(["table", "profile", "guarantee"]).ratio.min()
    assert best.min() >= 1.0


def test_the_private_mean_and_the_midpoint_are_the_losses_computed_here(cells):
    # independent truth: the test rows drawn by compare's own coin, the losses written out in numpy
    for cell in cells:
        table = bt.load_table(cell.table)
        eps = _levels(cell)
        X, y = table.X, table.y
        u = comparison.row_uniforms([X[:, j] for j in range(X.shape[1] - 1)] + [y, eps], cell.split)
        test = u < 0.2
        train_eps, train_y = eps[~test], y[~test]
        S = train_eps.sum()
        m = train_eps @ train_y / S
        midpoint = np.mean(y[test] ** 2)
        private_mean = np.mean((y[test] - m) ** 2) + 8.0 / S**2
        assert cell.losses["midpoint"].iloc[0] == pytest.approx(midpoint, rel=1e-12)
        assert cell.losses["private_mean"].iloc[0] == pytest.approx(private_mean, rel=1e-9)


def _levels(cell):
    """The levels cell_losses drew for every row of its table (the same seed)."""
    from pdp_lib.profiles import privacy_profile

    table = bt.load_table(cell.table)
    gen = np.random.default_rng(np.random.SeedSequence(cell.split, spawn_key=(sum(map(ord, cell.table)),
                                                                              len(cell.profile))))
    return gen.permutation(privacy_profile(table.y.size, advice.PROFILES[cell.profile], gen))


def test_a_procedure_reads_public_facts_only(cells):
    # the cause: the losses (labels, features) change, the public facts do not: every choice stays
    cell = cells[0]
    shuffled = dataclasses.replace(cell, losses=cell.losses.sample(frac=1.0, axis=1, random_state=0) * 3.0)
    for procedure in advice.FAMILY["pure"] + advice.FAMILY["approximate"]:
        assert advice._choice(cell, procedure) == advice._choice(shuffled, procedure)
    # and the levels do move them: ten times the levels lower the budget's bar and the public ridge
    richer = dataclasses.replace(cell, levels=cell.levels * 10.0)
    assert advice.budget_ratio(richer) == pytest.approx(10.0 * advice.budget_ratio(cell))
    assert advice.ssp_public_ridge(richer, 0.4) <= advice.ssp_public_ridge(cell, 0.4)


def test_the_automatic_choices_follow_the_budget_ratio(cells):
    cell = cells[0]
    ratio = advice.budget_ratio(cell)
    assert advice._choice(cell, f"auto:0.4:{ratio * 2}")[0] == "private_mean"
    assert advice._choice(cell, f"auto:0.4:{ratio / 2}") == ("ssp_checked", advice.ssp_public_ridge(cell, 0.4))
    assert advice._choice(cell, f"auto_plain:0.4:{ratio / 2}") == ("ssp", advice.ssp_public_ridge(cell, 0.4))
    assert advice._choice(cell, f"auto_delta:{ratio / 2}")[0] == "ssp_gaussian_checked"
    assert advice._choice(cell, f"auto_delta:{ratio * 2}")[0] == "private_mean_delta"
    assert advice.ssp_public_ridge(cell, 0.4) in advice.DEFAULT_GRID


def test_the_development_choice_is_the_least_geometric_mean_by_brute_force(cells):
    table = advice.procedure_table(cells, advice.FAMILY["pure"])
    scores = {p: advice.geometric_mean(table[table.procedure == p].ratio) for p in advice.FAMILY["pure"]}
    chosen = advice.choose_on_development(cells, "pure")
    assert scores[chosen] == min(scores.values())
    assert advice.FAMILY["pure"].index(chosen) == min(i for i, p in enumerate(advice.FAMILY["pure"])
                                                     if scores[p] == scores[chosen])


def test_per_table_ratios_carry_their_monte_carlo_error_and_match_a_recomputation(cells):
    per = advice.per_table_ratio(cells, "auto:0.4:5.0", "private_mean")
    assert set(per.index) == {"meap01", "affairs"} and (per.log_se >= 0).all()
    # a hand computation from the cells: the geometric mean of the ratios, the delta method's error
    table = advice.procedure_table([c for c in cells if c.table == "meap01"], ("auto:0.4:5.0", "private_mean"))
    auto, mean = (table[table.procedure == p] for p in ("auto:0.4:5.0", "private_mean"))
    logs = np.log(auto.loss.to_numpy() / mean.loss.to_numpy())
    assert per.loc["meap01", "ratio"] == pytest.approx(np.exp(logs.mean()), rel=1e-12)
    # the error's bound: a split's cells summed (they share their noise), the splits' squares added
    rel = auto.se.to_numpy() / auto.loss.to_numpy()
    by_split = [rel[auto.split.to_numpy() == s].sum() for s in advice.SPLITS]
    assert per.loc["meap01", "log_se"] == pytest.approx(np.sqrt(np.sum(np.square(by_split))) / len(logs), rel=1e-12)
    assert per.loc["meap01", "log_se"] >= np.sqrt(np.sum(rel ** 2)) / len(logs)     # never below independence
    assert (mean.se == 0).all()
    with pytest.raises(ValueError, match="mean = 'ssp_checked:0.4'.*exact"):
        advice.per_table_ratio(cells, "private_mean", "ssp_checked:0.4")


def test_a_ratio_over_missing_cells_is_refused_not_averaged_over_the_rest(cells):
    with pytest.raises(ValueError, match="a loss is missing"):
        advice.per_table_ratio(cells, "ssp_checked:0.01", "private_mean")          # a factor off C_GRID


def test_a_band_is_the_ratio_divided_and_multiplied_by_its_spread():
    low, high = advice.band(1.2, 0.05)
    assert low == 1.2 / np.exp(0.1) and high == 1.2 * np.exp(0.1) and low * high == pytest.approx(1.44, rel=1e-15)
    lows, highs = advice.band(np.array([1.0, 2.0]), np.array([0.0, 0.01]), widths=3.0)
    assert lows[0] == highs[0] == 1.0 and highs[1] == 2.0 * np.exp(0.03)


def test_the_bound_on_the_error_sums_a_split_s_cells_and_adds_the_splits_squares():
    assert advice.log_se_bound([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1]) == pytest.approx(np.hypot(0.3, 0.7) / 4, rel=1e-15)
    assert advice.log_se_bound([0.1, 0.2, 0.3], [0, 1, 2]) == pytest.approx(np.sqrt(0.14) / 3, rel=1e-15)


def test_the_cells_of_one_split_share_their_noise_and_different_splits_do_not():
    # why the bound sums a split's cells: the releases of two profiles of one split are drawn from one stream
    losses = {}
    for profile, split in (("paper", 0), ("ones", 0), ("ones", 1)):
        sums = advice.cell_sums("meap01", profile, split, masks=4)
        lam = comparison.gaussian_public_ridge(sums)
        losses[profile, split] = comparison.checked_losses(sums, [lam], 400, split, gaussian=True)[lam][0]
    same = np.corrcoef(losses["paper", 0], losses["ones", 0])[0, 1]
    other = np.corrcoef(losses["ones", 0], losses["ones", 1])[0, 1]
    assert same > 0.3 and abs(other) < 0.15


def test_a_table_recomputed_with_its_own_releases_gives_the_cells_ratio():
    cells = [advice.cell_losses("meap01", profile, split, draws=20, masks=4)
             for profile in advice.PROFILES for split in advice.SPLITS]
    per = advice.per_table_ratio(cells, "auto:0.4:5.0", "private_mean")
    ratio, se = advice.checked_ratio("meap01", 0.4, 5.0, draws=20)
    assert ratio == pytest.approx(per.loc["meap01", "ratio"], rel=1e-12)
    assert se == pytest.approx(per.loc["meap01", "log_se"], rel=1e-12)


def test_a_table_s_ratio_at_another_delta_is_computed_at_that_delta():
    # at the benchmark's delta the same numbers; a larger delta shrinks the private mean's Gaussian noise
    base = advice.checked_ratio("meap01", 0.4, 5.0, gaussian=True, draws=20)
    assert advice.checked_ratio("meap01", 0.4, 5.0, gaussian=True, draws=20, delta=advice.DELTA) == base
    assert advice.checked_ratio("meap01", 0.4, 5.0, gaussian=True, draws=20, delta=1e-3) != base
    sums = [advice.cell_sums("meap01", "paper", 0, masks=4, delta=d) for d in (advice.DELTA, 1e-3)]
    assert comparison.private_mean_loss(sums[1], gaussian=True) < comparison.private_mean_loss(sums[0], gaussian=True)


def test_the_private_means_loss_is_the_comparisons_row():
    sums = advice.cell_sums("meap01", "paper", 0, masks=4)
    table = comparison.expected_losses(sums, [1.0], draws=3, seed=0).set_index("method")
    assert comparison.private_mean_loss(sums) == table.loc["private_mean", "loss"]
    assert comparison.private_mean_loss(sums, gaussian=True) == table.loc["private_mean_delta", "loss"]


def test_the_binary_columns_are_the_dummies_the_spec_names():
    # hand truth from tables.toml: affairs' male and kids are its 0/1 features; meap01 has none
    names = bt.load_table("affairs").features
    assert [names[j] for j in advice.binary_columns("affairs")] == ["male", "kids"]
    assert advice.binary_columns("meap01") == []


def test_the_group_means_losses_are_computed_here_from_the_rows(cells):
    # independent truth: the test rows drawn by compare's own coin, each group's weighted mean and its noise's
    # variance (Laplace 8/S_g**2, Gaussian 4/M_g**2) written out in numpy, group by group
    from pdp_lib.curves import tolerated_gaussian_mus

    seen = 0
    for cell in cells:
        table = bt.load_table(cell.table)
        eps, X, y = _levels(cell), table.X, table.y
        u = comparison.row_uniforms([X[:, j] for j in range(X.shape[1] - 1)] + [y, eps], cell.split)
        test = u < 0.2
        for j in advice.binary_columns(cell.table):
            for name, w, var in (("group", eps, 8.0),
                                 ("group_delta", tolerated_gaussian_mus(eps, advice.DELTA), 4.0)):
                loss = free = 0.0
                for g in (0.0, 1.0):
                    train, held = ~test & (X[:, j] == g), test & (X[:, j] == g)
                    m = w[train] @ y[train] / w[train].sum()
                    free += np.sum((y[held] - m) ** 2)
                    loss += np.sum((y[held] - m) ** 2) + held.sum() * var / w[train].sum() ** 2
                assert cell.losses[f"{name}:{j}"].iloc[0] == pytest.approx(loss / test.sum(), rel=1e-9)
                assert cell.losses[f"{name}_free:{j}"].iloc[0] == pytest.approx(free / test.sum(), rel=1e-9)
                assert (cell.losses[f"{name}:{j}_se"] == 0.0).all()
                mean = "private_mean" if name == "group" else "private_mean_delta"
                whole = np.mean((y[test] - w[~test] @ y[~test] / w[~test].sum()) ** 2)
                assert cell.losses[f"{mean}_free"].iloc[0] == pytest.approx(whole, rel=1e-9)
                seen += 1
    assert seen == 8                       # affairs' two features, two profiles, two guarantees


def test_the_group_means_are_procedures_of_their_guarantee_and_not_the_oracles(cells):
    cell = cells[-1]
    assert advice._choice(cell, "group:3") == ("group:3", advice.DEFAULT_GRID[0])
    table = advice.procedure_table([cell], ("group:0", "group_delta:0"))
    assert list(table.guarantee) == ["pure", "approximate"]
    assert not any(name.startswith("group") for name in advice.PRIVATE)


def test_the_group_ratios_are_the_per_table_ratios_of_the_same_cells(cells):
    chosen = {"pure": "auto:0.4:50.0", "approximate": "auto_delta:10.0"}
    table = advice.group_ratios(cells, chosen)
    assert list(table.table.unique()) == ["affairs"] and len(table) == 4     # meap01 has no binary feature
    for row in table.itertuples():
        mine = [c for c in cells if c.table == row.table]
        kind, mean = ("group", "private_mean") if row.guarantee == "pure" else ("group_delta", "private_mean_delta")
        vs_mean = advice.per_table_ratio(mine, f"{kind}:{row.column}", mean)
        rule = advice.per_table_ratio(mine, chosen[row.guarantee], f"{kind}:{row.column}")
        assert row.vs_mean == pytest.approx(vs_mean.ratio.iloc[0], rel=1e-12)
        assert row.vs_rule == pytest.approx(1.0 / rule.ratio.iloc[0], rel=1e-12)
        low, high = advice.band(1.0 / rule.ratio.iloc[0], rule.log_se.iloc[0])
        assert (row.low, row.high) == pytest.approx((low, high), rel=1e-12)


def test_group_cells_say_where_the_rule_releases_the_mean_by_its_threshold(cells):
    # independent truth: the rules' definition, the private mean below the budget ratio's threshold tau
    chosen = {"pure": "auto:0.4:50.0", "approximate": "auto_delta:10.0"}
    table = advice.group_cells(cells, chosen)
    assert len(table) == 8                        # affairs' two features, two profiles, two guarantees
    for row in table.itertuples():
        cell = next(c for c in cells if (c.table, c.profile, c.split) == (row.table, row.profile, row.split))
        tau = 50.0 if row.guarantee == "pure" else 10.0
        assert row.rule_mean == (advice.budget_ratio(cell) < tau)
        kind, mean = ("group", "private_mean") if row.guarantee == "pure" else ("group_delta", "private_mean_delta")
        first = cell.losses.iloc[0]
        assert row.ratio == first[f"{kind}:{row.column}"] / first[mean]
        assert row.free == first[f"{kind}_free:{row.column}"] / first[f"{mean}_free"]
    assert set(table.rule_mean) == {True, False}  # the fixture's cells have both


def test_the_ratios_per_profile_and_per_table_are_the_geometric_means_written_out(cells):
    procedure = f"auto:{advice.C_GRID[2]}:{advice.TAU_GRID[0]}"
    pairs = advice.profile_ratios(cells, procedure, "private_mean")
    table = advice.procedure_table(cells, (procedure,))
    for cell in cells:
        loss = float(table[(table.table == cell.table) & (table.profile == cell.profile)].loss.iloc[0])
        assert pairs[cell.table, cell.profile] == pytest.approx(loss / cell.losses["private_mean"].iloc[0], rel=1e-12)
    rules = advice.rule_ratios(cells, {"pure": procedure})
    for name in ("meap01", "affairs"):
        assert rules["pure"].ratio[name] == pytest.approx(np.exp(np.log(pairs[name]).mean()), rel=1e-12)
        low, high = rules["pure"].low[name], rules["pure"].high[name]
        assert low == pytest.approx(rules["pure"].ratio[name] / np.exp(2 * rules["pure"].log_se[name]), rel=1e-12)
        assert low <= rules["pure"].ratio[name] <= high
    ridge = advice.ridge_ratios(cells)
    for name in ("meap01", "affairs"):
        mine = [c.losses["non_private"].min() / c.losses["mean"].iloc[0] for c in cells if c.table == name]
        assert ridge[name] == pytest.approx(np.exp(np.mean(np.log(mine))), rel=1e-12)
