"""pdp_lib.replication.claims: the rules behind the verdicts on Section 4's claims, on inputs whose verdict is known."""

import math

import numpy as np
import pandas as pd
import pytest

from pdp_lib.replication import claim_numbers, claims, summaries
from pdp_lib.replication.claims import FactorRule, GainRule, LowerRule, Verdict
from pdp_lib.experiments import get_target, reproduce_many
from pdp_lib.profiles import ProfileSpec

ROUGHLY_100 = FactorRule("non_personalized", "pdp_op", low=100 / math.sqrt(10), high=100 * math.sqrt(10))
AT_LEAST_100 = FactorRule("non_personalized", "pdp_op", low=100.0)


def frame(**columns):
    """A frame of hand-made numbers: one row per point, the columns ``<loss>_<method>``."""
    return pd.DataFrame({k: np.asarray(v, dtype=float) for k, v in columns.items()})


def factor_frame(unreg, reg):
    """PDP-OP at 1 everywhere, the non-personalized baseline at the given factors."""
    unreg, reg = np.atleast_1d(unreg).astype(float), np.atleast_1d(reg).astype(float)
    return frame(unreg_pdp_op=np.ones_like(unreg), unreg_non_personalized=unreg,
                 reg_pdp_op=np.ones_like(reg), reg_non_personalized=reg)


# ---------------------------------------------------------------- "roughly 100" is two-sided

@pytest.mark.parametrize("factor, holds", [
    (100, True), (40, True), (300, True), (31.7, True), (316, True),
    (1e4, False),          # four orders of magnitude are not "roughly 100"
    (1864, False), (20, False), (1, False),
])
def test_roughly_100_is_an_order_of_magnitude_either_way(factor, holds):
    assert ROUGHLY_100.holds(factor_frame([factor, 100], [100, 100])) is holds


def test_a_factor_of_ten_thousand_holds_for_the_one_sided_rule_only():
    f = factor_frame([1e4, 1e4], [1e4, 1e4])
    assert AT_LEAST_100.holds(f) and not ROUGHLY_100.holds(f)
    assert ROUGHLY_100.exceeds(f)


def test_both_losses_are_read():
    # the unregularized factor is roughly 100, the regularized one is not: the claim speaks of both
    f = factor_frame([100, 120], [1850, 1850])
    assert not ROUGHLY_100.holds(f)
    assert ROUGHLY_100.statistic(f) == {"unreg": (100.0, 120.0), "reg": (1850.0, 1850.0)}
    assert not AT_LEAST_100.holds(factor_frame([500, 500], [50, 500]))


def test_a_falling_factor_is_described_by_its_range():
    f = factor_frame([1864, 643, 169], [1864, 1852, 1833])
    assert ROUGHLY_100.describe(f) == "unreg. 169 to 1.86 × 10³<br>reg. 1.83 × 10³ to 1.86 × 10³"
    assert AT_LEAST_100.holds(f) and not ROUGHLY_100.holds(f)


def test_missing_cells_are_left_out():
    f = factor_frame([100, np.nan], [100, 100])
    f.loc[1, "unreg_non_personalized"] = np.nan
    assert ROUGHLY_100.holds(f)
    assert ROUGHLY_100.statistic(f)["unreg"] == (100.0, 100.0)


def test_the_rules_state_their_thresholds():
    assert "between 31.6 and 316" in ROUGHLY_100.text and "both losses" in ROUGHLY_100.text
    assert "at least 100" in AT_LEAST_100.text
    assert "at least 15% and below 25%" in GainRule("pdp_op", "jorgensen_max", 0.15, 0.25).text
    assert "90% or more" in LowerRule("pdp_op", ("jorgensen_max", "jorgensen_mean"), share=0.9).text


# ---------------------------------------------------------------- "up to roughly 20 percent"

def gain_frame(unreg_gains, reg_gains):
    """Jorgensen max at 1, PDP-OP at 1 - gain."""
    u, r = np.asarray(unreg_gains, float), np.asarray(reg_gains, float)
    return frame(unreg_pdp_op=1 - u, unreg_jorgensen_max=np.ones_like(u),
                 reg_pdp_op=1 - r, reg_jorgensen_max=np.ones_like(r))


UP_TO_20 = GainRule("pdp_op", "jorgensen_max", low=0.15, high=0.25)


@pytest.mark.parametrize("unreg, reg, holds", [
    ([0.19, 0.003], [0.188, 0.18], True),      # the rebuilt Table 3: up to 19%, always positive
    ([0.15, 0.01], [0.1, 0.1], True),         # 15% rounds to 20% at one significant digit
    ([0.25, 0.01], [0.1, 0.1], False),        # 25% rounds to 30%
    ([0.30, 0.10], [0.2, 0.2], False),        # up to 30% is not up to roughly 20%
    ([0.10, 0.05], [0.12, 0.1], False),       # up to 12%: neither
    ([0.20, -0.01], [0.2, 0.2], False),       # worse at one point: not "consistently better"
])
def test_up_to_roughly_20_percent(unreg, reg, holds):
    assert UP_TO_20.holds(gain_frame(unreg, reg)) is holds


def test_gains_are_described_as_percentages():
    assert UP_TO_20.describe(gain_frame([0.193, 0.00345], [0.188, 0.18])) == \
        "unreg. 0.345% to 19.3%<br>reg. 18.0% to 18.8%"


# ---------------------------------------------------------------- "lower", "consistently", "vast majority"

VAST_MAJORITY = LowerRule("pdp_op", ("jorgensen_max", "jorgensen_mean"), share=0.9)
EVERYWHERE = LowerRule("pdp_op", ("jorgensen_max", "jorgensen_mean"))


def lower_frame(below_unreg, below_reg, points=10):
    """PDP-OP at 1; both Jorgensen columns at 2 at the first ``below`` points, at 0.5 after."""
    def column(k):
        return np.where(np.arange(points) < k, 2.0, 0.5)
    return frame(unreg_pdp_op=np.ones(points), unreg_jorgensen_max=column(below_unreg),
                 unreg_jorgensen_mean=column(below_unreg) + 1, reg_pdp_op=np.ones(points),
                 reg_jorgensen_max=column(below_reg), reg_jorgensen_mean=column(below_reg) + 1)


@pytest.mark.parametrize("unreg, reg, vast, every", [
    (10, 10, True, True), (9, 10, True, False), (8, 10, False, False), (10, 8, False, False)])
def test_lower_at_a_share_of_the_points(unreg, reg, vast, every):
    f = lower_frame(unreg, reg)
    assert VAST_MAJORITY.holds(f) is vast and EVERYWHERE.holds(f) is every
    assert VAST_MAJORITY.counts(f, "unreg") == (unreg, 10)


def test_a_tie_is_not_lower():
    f = lower_frame(10, 10)
    f.loc[3, "reg_jorgensen_max"] = 1.0
    assert not EVERYWHERE.holds(f)
    assert LowerRule("jorgensen_max", ("jorgensen_mean",)).holds(f)   # mean stays above max


def test_lower_needs_points():
    empty = lower_frame(0, 0, points=0)
    assert not EVERYWHERE.holds(empty)


# ---------------------------------------------------------------- verdicts and draws

def test_decide_counts_the_draws():
    good, bad = factor_frame([100], [100]), factor_frame([1e4], [100])
    v = ROUGHLY_100.decide(good, good, [good, good, bad])
    assert (v.rebuilt, v.published, v.holding, v.draws) == (True, True, 2, 3)
    assert not v.holds and not v.fails
    assert v.text.startswith("**holds** on the rebuilt and published numbers, and on 2 of 3 draws")
    assert "not on every draw" in v.text


def test_a_claim_that_fails():
    bad = factor_frame([1864, 169], [1864, 1833])
    v = ROUGHLY_100.decide(bad, bad, [bad] * 4)
    assert v.fails and v.text.startswith("**does not hold**")
    assert v.text.endswith("the factor exceeds 316 on the rebuilt and published numbers and on 4 of 4 draws: "
                           "the claim understates it")


def test_understates_only_if_every_draw_says_so():
    bad, low = factor_frame([1864], [1864]), factor_frame([245], [245])
    v = ROUGHLY_100.decide(bad, bad, [bad, bad, low])
    assert v.holding == 1 and v.text.startswith("**does not hold** on the rebuilt or the published numbers")
    assert "on 2 of 3 draws: the claim understates it on those draws, not on every draw" in v.text
    below = factor_frame([5], [5])
    assert ROUGHLY_100.decide(below, below, [below]).notes == ()   # below the range: no "understates"


def test_verdict_texts():
    assert Verdict(True, True, 5, 5).text.startswith("**holds**: ")
    assert Verdict(True, False, 3, 5).text.startswith("**depends on the draw**: holds on the rebuilt numbers")
    mixed = Verdict(False, True, 3, 5).text
    assert mixed.startswith("**depends on the draw**: holds on the published numbers")
    assert Verdict(False, False, 0, 5).fails


# ---------------------------------------------------------------- the claims of Section 4

def test_the_seven_claims_of_section_4():
    assert [c.number for c in claims.CLAIMS] == list(range(1, 8))
    for c in claims.CLAIMS:
        for target in c.targets:
            spec = get_target(target)
            assert set(c.rule.columns) <= set(spec.columns), (c.number, target)
    # claim 7 reads standard deviations, the others means
    assert {get_target(t).statistic for t in claims.CLAIMS[6].targets} == {"std"}
    assert {get_target(t).statistic for c in claims.CLAIMS[:6] for t in c.targets} == {"mean"}
    assert claims.CLAIMS[1].rule.low == pytest.approx(31.62, abs=0.01)
    assert claims.CLAIMS[1].rule.high == pytest.approx(316.2, abs=0.1)


def test_misprints_are_the_ones_beyond_the_last_digit():
    cells = claim_numbers.misprinted_cells()
    assert ("table-3", "25.00", "unreg_jorgensen_max") in cells       # a power of ten
    assert ("table-5", "0.30", "reg_non_personalized") in cells       # another row's value
    assert ("table-4", "0.60", "unreg_jorgensen_max") not in cells    # the last digit only


def test_values_frame_leaves_out_what_it_is_told():
    spec = get_target("table-1")
    rows = [(p, c, 1.0) for p in spec.param_labels for c in spec.columns]
    table = pd.DataFrame(rows, columns=["param", "column", "paper"])
    out = claim_numbers.values_frame({"table-1": table}, ["table-1"], "paper",
                              exclude={("table-1", "3.00", "reg_pdp_op")})
    assert out.shape == (len(spec.param_labels), len(spec.columns))
    assert np.isnan(out.loc[("table-1", "3.00"), "reg_pdp_op"])
    assert int(np.isnan(out.to_numpy()).sum()) == 1


@pytest.mark.parametrize("target", ["table-2", "table-4"])
def test_draw_values_are_the_draws_behind_the_bands(target):
    # few runs and draws: the point is that the same streams give the same draws
    kwargs = dict(runs=200, replicates=4, replicate_runs=30)
    results = reproduce_many([target], **kwargs)
    draws = claim_numbers.draw_values(results, [target], replicates=4, replicate_runs=30)
    assert len(draws[target]) == 4
    assert claim_numbers.band_deviation(draws, results) < 1e-9
    first = results[target].pivot(index="param", columns="column", values="value")
    zero = draws[target][0]
    assert np.array_equal(zero.to_numpy(), first.loc[zero.index, zero.columns].to_numpy())


def test_small_lambda_factor():
    equal = ProfileSpec(f_c=0.5, f_m=0.5, eps_c=0.3, eps_m=0.3, eps_l=0.3)
    assert np.allclose(claim_numbers.small_lambda_factor(10, equal, draws=5, rng=0), 1.0)
    f = claim_numbers.small_lambda_factor(80, draws=2000, rng=1)
    assert (f >= 1).all()
    # (sum / (n min))^2 with min near eps_c = 0.01 and sum near the default profile's mean
    assert 200 < np.median(f) < 5000


def test_the_table_is_a_numbered_myst_table():
    good = factor_frame([100], [100])
    claim = claims.Claim(1, "a quote", "Section 4.1, Table 1", ("table-1",), ROUGHLY_100)
    j = claims.Judgement(claim, good, good, [good], ROUGHLY_100.decide(good, good, [good]))
    block = summaries.claims_block([j])
    first = block.splitlines()[0]
    assert first.startswith("```{table} ") and "`" not in first[3:]
    assert ":name: tab-claims" in block and block.rstrip().endswith("```")
    row = [line for line in block.splitlines() if line.startswith("| 1.")][0]
    assert ROUGHLY_100.text in row and "**holds**" in row


def test_rules_markdown_puts_each_rule_set_in_a_column():
    heads = {name: {"sharp": 10, "sharp_inside": s, "loose": 5, "loose_inside": 4, "fixed": 2, "fixed_inside": f}
             for name, s, f in (("simple", 7, 0), ("exact", 9, 2))}
    causes = {"simple": pd.Series({"misprint": 2, "printed rounding": 3}), "exact": pd.Series({"misprint": 2})}
    lines = summaries.rules_markdown(heads, causes, ["misprint", "printed rounding", "unexplained"]).splitlines()
    assert lines[0] == "|  | simple | exact |"
    assert lines[2] == "| sharp cells inside | 7 of 10 | 9 of 10 |"
    assert lines[4] == "| fixed cells inside | 0 of 2 | 2 of 2 |"
    assert lines[5] == "| misses | 5 | 2 |"
    assert lines[6:] == ["| … misprint | 2 | 2 |", "| … printed rounding | 3 | 0 |"]   # unexplained: none


def test_table_list_names_each_table_once_in_order():
    rows = pd.DataFrame({"table": [9, 5, 7, 5, 9]})
    assert summaries.table_list(rows) == "5, 7, 9"
    assert summaries.table_list(rows.iloc[:0]) == ""


def test_draws_markdown_one_row_per_draw():
    base = dict(group="G1", dataset="medical_cost", method="non_personalized", statistic="min ε",
                tables="2", cells=24, misses=24, implied=0.0121, percentile=0.981, draws=0,
                replicates=40, row_draws=0)
    groups = pd.DataFrame([
        base,
        {**base, "group": "G2", "implied": np.nan, "percentile": np.nan},
        {**base, "group": "G3", "dataset": "synthetic", "method": "pdp_op", "statistic": "Σε",
         "implied": 0.16, "percentile": 0.99912, "draws": 5},
        {**base, "group": "G4", "dataset": "synthetic", "implied": np.nan, "percentile": np.nan,
         "row_draws": 7},
    ])
    lines = summaries.draws_markdown(groups).splitlines()
    assert lines[0] == ("| draw | data | column: statistic | tables | cells (misses) | implied value "
                        "| percentile |")
    assert lines[2] == "| G1 | Medical Cost | non-personalized: min ε | 2 | 24 (24) | 1.21 × 10⁻² | 98.1% |"
    assert lines[3].endswith("| none | – |")
    assert lines[4] == ("| G3 | synthetic | PDP-OP: Σε | 2 | 24 (24) | 1.60 × 10⁻¹ "
                        "| 99.9% (5 of 40 data draws) |")
    assert lines[5].endswith("| none | – (row alone: 7 of 40 data draws) |")
    assert len(lines) == 6
