"""Tests of pdp_lib.replication.rendering and .verdicts, which decide every ✓ and ✗ of the book, against hand-computed cases."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from pdp_lib.replication import rendering, verdicts
from pdp_lib.experiments import published_values, reproduce
from pdp_lib.experiments import targets as specs_module
from pdp_lib.formatting import MACHINE_ZERO, is_machine_zero, sci_loss

NAN = float("nan")


def _long(rows):
    """A long table; ``spread`` (the robust standard deviation over draws) is a quarter of the band."""
    table = pd.DataFrame(rows, columns=["param", "column", "value", "low", "high", "paper"])
    return table.assign(spread=(table["high"] - table["low"]) / 4)


# Five hand-made cells: inside a sharp band, above a sharp band, below a loose band, a machine
# zero on both sides, and a cell without published value (a figure's, say).  Spread-based widths:
# 3.92 x band / 4 / value = 0.098, 0.098, 0.98.
CELLS = _long([
    ("1.00", "unreg_pdp_op", 2.0, 1.9, 2.1, 2.05),       # width 0.1 -> sharp, inside
    ("1.00", "reg_pdp_op", 4.0, 3.8, 4.2, 4.62),         # width 0.1 -> sharp, 10% above high
    ("3.00", "unreg_pdp_op", 1.0, 0.5, 1.5, 0.4),        # width 1.0 -> loose, 25% below low
    ("3.00", "reg_pdp_op", 1.67e-32, 1e-32, 3e-32, 2.46e-32),  # machine zero both
    ("5.00", "unreg_pdp_op", 1.0, 0.9, 1.1, NAN),        # not published
])


def test_band_verdicts_by_hand():
    v = verdicts.band_verdicts(CELLS)
    assert list(v["param"]) == ["1.00", "1.00", "3.00", "3.00"]           # unpublished row dropped
    assert v["ratio"].iloc[0] == pytest.approx(2.05 / 2.0)
    assert v["ratio"].iloc[1] == pytest.approx(4.62 / 4.0)
    assert v["ratio"].iloc[2] == pytest.approx(0.4)
    assert np.isnan(v["ratio"].iloc[3])                                     # nothing to compare
    assert list(v["inside"].iloc[:3]) == [1.0, 0.0, 0.0] and np.isnan(v["inside"].iloc[3])
    assert list(v["machine_zero"]) == [False, False, False, True]
    assert v["width"].iloc[0] == pytest.approx(0.1) and v["width"].iloc[2] == pytest.approx(1.0)
    assert list(v["sharp"]) == [True, True, False, False]
    assert v["outside"].iloc[0] == 0.0
    # the published values' rounding intervals: 4.62 +- 0.005, 0.400 +- 0.0005
    assert list(v["rounding"]) == pytest.approx([0.005, 0.005, 0.0005, 5e-35])
    assert v["outside"].iloc[1] == pytest.approx(4.615 / 4.2 - 1)            # 9.9% above the edge
    assert v["outside"].iloc[2] == pytest.approx(0.5 / 0.4005 - 1)           # 25% below the edge
    exact = verdicts.band_verdicts(CELLS, rounding=False)
    assert exact["outside"].iloc[1] == pytest.approx(4.62 / 4.2 - 1) and exact["rounding"].iloc[1] == 0


def test_printed_rounding_decides_a_cell_its_last_digit_touches():
    # band [1.90, 2.0455]: 2.05 printed stands for [2.045, 2.055], which meets it; [1.90, 2.0440] does not
    cells = _long([("1.00", "unreg_pdp_op", 2.0, 1.9, 2.0455, 2.05), ("3.00", "unreg_pdp_op", 2.0, 1.9, 2.0440, 2.05)])
    assert list(verdicts.band_verdicts(cells)["inside"]) == [1.0, 0.0]
    assert list(verdicts.band_verdicts(cells, rounding=False)["inside"]) == [0.0, 0.0]


def test_fixed_cells_are_judged_to_the_printed_digits_and_counted_apart():
    cells = _long([("1.00", "unreg_non_private", 2.004, 2.004, 2.004, 2.00),    # rounds to 2.00: inside
                   ("3.00", "unreg_non_private", 2.006, 2.006, 2.006, 2.00),    # rounds to 2.01: a miss
                   ("1.00", "unreg_pdp_op", 2.0, 1.9, 2.1, 2.05)])
    v = verdicts.band_verdicts(cells)
    assert list(v["fixed"]) == [True, True, False] and list(v["inside"]) == [1.0, 0.0, 1.0]
    assert not v["sharp"].iloc[:2].any()
    h = verdicts.fidelity_headline(v)
    assert (h["fixed"], h["fixed_inside"], h["sharp"] + h["loose"]) == (2, 1, 1)
    # rows of several tables, whose index labels repeat: each row is counted once
    both = pd.concat([v, verdicts.band_verdicts(CELLS)])
    h = verdicts.fidelity_headline(both)
    assert (h["fixed"], h["sharp"] + h["loose"], h["machine_zero"]) == (2, 1 + 3, 1)


def test_band_coverage_against_simulation():
    # 40 uniform draws: the interpolated 2.5%/97.5% quantiles cover a 41st draw with chance 37.05/41
    assert verdicts.band_coverage(40) == pytest.approx(37.05 / 41, rel=1e-12)
    gen = np.random.default_rng(11)
    for sample in (gen.uniform, gen.standard_normal):
        draws = sample(size=(100_000, 41))
        lo, hi = np.quantile(draws[:, :40], [0.025, 0.975], axis=1)
        hit = ((draws[:, 40] >= lo) & (draws[:, 40] <= hi)).mean()
        assert 37 / 41 - 0.005 < hit < 39 / 41 + 0.005                  # between the order statistics'
        if sample is gen.uniform:
            assert abs(hit - verdicts.band_coverage(40)) < 4 * np.sqrt(0.1 * 0.9 / 100_000)
    with pytest.raises(ValueError, match="replicates"):
        verdicts.band_coverage(1)


def test_sharpness_changes_counts_cells_whose_class_moves_with_the_seed():
    a = _long([("1.00", "unreg_pdp_op", 2.0, 1.9, 2.1, 2.05), ("3.00", "unreg_pdp_op", 1.0, 0.5, 1.5, 0.4)])
    b = a.assign(low=[1.5, 0.5], high=[2.5, 1.5])      # the first cell's band widens to 0.5: loose
    out = verdicts.sharpness_changes({1: {"table-1": a}, 2: {"table-1": b}}, sharpness="band")
    assert out == {"cells": 2, "changed": 1, "sharp_always": 0}
    same = verdicts.sharpness_changes({1: {"table-1": a}, 2: {"table-1": a}}, sharpness="band")
    assert same == {"cells": 2, "changed": 0, "sharp_always": 1}


def test_sharpness_from_the_spread_or_from_the_band():
    cells = _long([("1.00", "unreg_pdp_op", 2.0, 1.9, 2.1, 2.05)]).assign(spread=0.2)   # 3.92 x 0.1 = 0.39
    assert not verdicts.band_verdicts(cells)["sharp"].iloc[0]
    assert verdicts.band_verdicts(cells, sharpness="band")["sharp"].iloc[0]             # band width 0.1
    with pytest.raises(ValueError, match="sharpness"):
        verdicts.band_verdicts(cells, sharpness="widest")


def test_edges_of_the_band_are_inside():
    v = verdicts.band_verdicts(_long([("1.00", "unreg_pdp_op", 2.0, 1.9, 2.1, 1.9),
                                    ("3.00", "unreg_pdp_op", 2.0, 1.9, 2.1, 2.1)]))
    assert list(v["inside"]) == [1.0, 1.0] and list(v["outside"]) == [0.0, 0.0]


def test_one_replicate_gives_no_verdict():
    v = verdicts.band_verdicts(_long([("1.00", "unreg_pdp_op", 2.0, NAN, NAN, 2.5)]))
    assert np.isnan(v["inside"].iloc[0]) and not v["sharp"].iloc[0]
    assert v["ratio"].iloc[0] == pytest.approx(1.25)


def test_machine_zero_on_one_side_only_is_judged():
    # a published exact zero against a rebuilt 1e-3 is a real disagreement, not "0 = 0"
    v = verdicts.band_verdicts(_long([("1.00", "unreg_pdp_op", 1e-3, 9e-4, 1.1e-3, 2e-32)]))
    assert not v["machine_zero"].iloc[0] and v["inside"].iloc[0] == 0.0


def test_machine_zero_formatting():
    assert MACHINE_ZERO == 1e-20
    assert is_machine_zero(0.0) and is_machine_zero(2.46e-32) and not is_machine_zero(1e-19)
    assert not is_machine_zero(-1e-32)          # a negative loss is not a rounding of zero
    assert sci_loss(1.67e-32) == "0" and sci_loss(0.0) == "0"
    assert sci_loss(8.5432e2) == "8.54 × 10²" and sci_loss(5.3e-1) == "5.30 × 10⁻¹"


def test_band_summary_counts_machine_zero_apart():
    s = verdicts.band_summary({"table-1": CELLS})
    assert s.to_dict("records") == [{"target": "table-1", "cells": 3, "inside": 1,
                                     "share": pytest.approx(1 / 3), "machine_zero": 1}]
    assert verdicts.band_summary({"table-1": CELLS.assign(low=NAN, high=NAN)}).empty


def test_fidelity_headline_by_hand():
    h = verdicts.fidelity_headline(verdicts.band_verdicts(CELLS))
    assert (h["sharp"], h["sharp_inside"], h["loose"], h["loose_inside"], h["machine_zero"]) == (2, 1, 1, 0, 1)
    assert h["sharp_share"] == pytest.approx(0.5) and h["loose_share"] == 0.0
    assert h["sharp_miss_median"] == pytest.approx(4.615 / 4.2 - 1) and h["sharp_miss_max"] == pytest.approx(4.615 / 4.2 - 1)
    assert h["loose_median_width"] == pytest.approx(1.0)


@pytest.fixture
def tiny_target(monkeypatch):
    """A two-row, two-column table target in the registry, for rendering tests."""
    spec = replace(specs_module.get_target("table-1"), name="table-1",
                   param_labels=("1.00", "3.00"), columns=("unreg_pdp_op", "reg_pdp_op"))
    monkeypatch.setitem(specs_module.TARGETS, "table-1", spec)
    return spec


def test_loss_table_markdown_puts_the_published_value_and_its_verdict_under_the_rebuilt_one(tiny_target):
    unreg = rendering.loss_table_markdown("table-1", CELLS, "unreg").splitlines()
    assert unreg[0] == "| $\\lambda$ | PDP-OP |" and unreg[1] == "|---|---|"
    assert unreg[2] == "| 1.00 | 2.00<br><small>2.05 ✓</small> |"
    assert unreg[3] == "| 3.00 | 1.00<br><small>4.00 × 10⁻¹ ✗ −20%</small> |"      # 0.4005/0.5 - 1: below the band
    reg = rendering.loss_table_markdown("table-1", CELLS, "reg").splitlines()
    assert reg[2] == "| 1.00 | 4.00<br><small>4.62 ✗ +9.9%</small> |"                 # 4.615/4.2 - 1: above it
    assert reg[3] == "| 3.00 | 0<br><small>0, both zero</small> |"


def test_loss_table_markdown_refuses_a_missing_published_cell_and_a_bad_kind(tiny_target):
    with pytest.raises(LookupError, match=r"param 3\.00, column reg_pdp_op"):
        rendering.loss_table_markdown("table-1", CELLS.iloc[:3], "reg")
    with pytest.raises(ValueError, match="kind"):
        rendering.loss_table_markdown("table-1", CELLS, "both")


def test_loss_table_markdown_bolds_the_best_private_method_and_shows_zero(monkeypatch):
    table = _long([("1.00", c, v, NAN, NAN, NAN) for c, v in (
        ("unreg_pdp_op", 0.25), ("unreg_non_personalized", 3.0),
        ("reg_pdp_op", 1.67e-32), ("reg_non_personalized", 2.0))])
    spec = specs_module.get_target("table-1")
    monkeypatch.setitem(specs_module.TARGETS, "table-1", replace(spec, param_labels=("1.00",)))
    # one replicate: no band, so the published value (none here) carries no verdict
    table["paper"] = [0.25, 3.0, 1e-32, 2.0]
    assert rendering.loss_table_markdown("table-1", table, "unreg").splitlines()[2] == (
        "| 1.00 | **2.50 × 10⁻¹**<br><small>2.50 × 10⁻¹</small> | 3.00<br><small>3.00</small> |")
    assert rendering.loss_table_markdown("table-1", table, "reg").splitlines()[2] == (
        "| 1.00 | **0**<br><small>0, both zero</small> | 2.00<br><small>2.00</small> |")


def test_table_block_numbers_labels_and_captions_from_the_registry(tiny_target):
    block = rendering.table_block("table-1", CELLS)
    heads = [line for line in block.splitlines() if line.startswith("```{table}")]
    assert len(heads) == 2 and "`" not in "".join(h[len("```{table}"):] for h in heads)   # no backtick in a caption
    assert heads[0].startswith("```{table} Table 1 of the paper, rebuilt: unregularized test loss (mean over runs). "
                               "PDP-OP vs standard DP, synthetic data")
    assert "$\\varepsilon_c$ = 0.01" in heads[0] and ":name: tab-t1-unreg" in block and ":name: tab-t1-reg" in block
    with pytest.raises(ValueError, match="figure-3"):
        rendering.table_block("figure-3", CELLS)


def test_caption_text_and_figure_block():
    assert rendering.caption_text("figure-3").startswith("PDP-OP vs Jorgensen et al., synthetic data, varying $\\varepsilon_c$")
    assert "$\\lambda$ = 50" in rendering.caption_text("figure-3") and "eps_" not in rendering.caption_text("figure-3")
    block = rendering.figure_block("figure-12", replicates=7).splitlines()
    assert block[:3] == ["```{glue:figure} f12_plot", ":name: fig-f12", ":width: 100%"]
    assert block[4].startswith("Figure 12 of the paper, rebuilt: standard deviation over runs of the test loss")
    assert "over 7 draws" in block[4] and "crosses" not in block[4]                  # a figure has no published cells
    assert "crosses the published values" in rendering.figure_block("table-4", replicates=7)


def test_target_figure_is_stacked_legible_and_opaque():
    table = reproduce("figure-4", runs=20, replicates=2)
    fig = rendering.target_figure("figure-4", table)
    top, bottom = fig.axes
    assert fig.get_figwidth() == pytest.approx(7.4) and top.get_position().y0 > bottom.get_position().y1   # stacked
    assert fig.get_facecolor()[:3] == (1.0, 1.0, 1.0) and fig.get_facecolor()[3] == 1.0
    ticks = [t.get_fontsize() for ax in fig.axes for t in ax.get_yticklabels()]
    legend = [t.get_fontsize() for t in fig.legends[0].get_texts()]
    assert min(ticks + legend) >= 10.5          # 14.5 px at the column's width: >= 80% of the 16 px body
    colours = {line.get_color() for line in top.get_lines() if line.get_linestyle() != "None"}
    assert colours <= set(rendering.OKABE_ITO)


def test_show_code_prints_the_source_without_the_docstring(capsys):
    rendering.show_code(rendering.caption_text)
    out = capsys.readouterr().out
    assert out.startswith("def caption_text(target: str) -> str:") and "registry's caption" not in out


def test_reference_series_fails_loudly(monkeypatch):
    spec = specs_module.get_target("figure-7")
    monkeypatch.setitem(specs_module.TARGETS, "figure-7", replace(spec, source_csv="no_such_file.csv"))
    with pytest.raises(ValueError, match="no_such_file"):
        rendering.reference_series("figure-7")
    monkeypatch.setitem(specs_module.TARGETS, "figure-7", replace(spec, lam=12345.0))
    with pytest.raises(LookupError, match="figure-7"):
        rendering.reference_series("figure-7")


def test_reference_series_of_every_target_is_complete():
    for name in specs_module.PAPER_TARGET_NAMES:
        ref = rendering.reference_series(name)
        spec = specs_module.get_target(name)
        assert list(ref.columns) == list(spec.columns), name
        assert len(ref) >= len(spec.param_labels) // 2, name


def test_published_values_fail_loudly(monkeypatch):
    assert len(published_values("table-9")) == 6 * 4
    with pytest.raises(ValueError, match="figure-3"):
        published_values("figure-3")
    spec = specs_module.get_target("table-9")
    monkeypatch.setitem(specs_module.TARGETS, "table-9", replace(spec, param_labels=spec.param_labels + ("0.7",)))
    with pytest.raises(LookupError, match=r"table-9.*Table 9.*param 0\.7"):
        published_values("table-9")
    monkeypatch.setitem(specs_module.TARGETS, "table-9", replace(spec, param_labels=spec.param_labels[1:]))
    with pytest.raises(LookupError, match=r"Table 9 publishes the cell \(param 0\.1"):
        published_values("table-9")


def test_figures_reproduce_without_published_values():
    df = reproduce("figure-7", runs=5, seed=1)
    assert df["paper"].isna().all()
