"""Tests of the registry ``pdp_lib/data/targets.toml`` (Tables 1-14, Figures 1-18), read by
``pdp_lib.experiments.targets.load_registry``.

Independent truths: the authors' output files themselves (their columns and the values they
hold), the published cells as stored in ``published.csv`` (read here with the csv module), the
sizes of the paper's data draws, and the five sweep names of the design card.  A toy entry shows
that a new table or figure needs an entry and its cells, no code.
"""

from __future__ import annotations

import csv
import io
import tomllib
from importlib import resources

import numpy as np
import pytest

from pdp_lib.experiments import published
from pdp_lib.replication import authors, rendering
from pdp_lib.experiments import draw_data, reproduce
from pdp_lib.experiments import targets as specs
from pdp_lib.experiments.draws import DATASETS, SYNTHETIC_D, SYNTHETIC_N
from pdp_lib.profiles import ProfileSpec

SWEEPS = ("lam", "eps_c", "eps_m", "f_c", "fraction")


def _data(name: str) -> str:
    return resources.files("pdp_lib").joinpath(f"data/{name}").read_text(encoding="utf-8")


def _edited(old: str, new: str) -> str:
    text = _data("targets.toml")
    assert text.count(old) == 1, old
    return text.replace(old, new)


def _published_cells() -> dict:
    """``{table: [(param, column), ...]}`` straight from published.csv."""
    out = {}
    for row in csv.DictReader(io.StringIO(_data("published.csv"))):
        out.setdefault(int(row["table"]), []).append((row["param"], row["column"]))
    return out


# ----------------------------------------------------------------------------- the file

def test_the_registry_parses_and_lists_every_target_once():
    raw = tomllib.loads(_data("targets.toml"))
    assert len(raw["targets"]) == 32 + 7
    names = [f"table-{k}" for k in range(1, 15)] + [f"figure-{k}" for k in range(1, 19)]
    beyond = [f"beyond-{k}" for k in range(1, 8)]
    assert list(specs.TARGETS) == list(specs.TARGET_NAMES) == names + beyond
    assert list(specs.PAPER_TARGET_NAMES) == names and list(specs.BEYOND_TARGET_NAMES) == beyond
    assert specs.SWEEPS == SWEEPS
    assert dict(specs.load_registry().targets) == specs.TARGETS
    assert published.PARAMETERS == SWEEPS


@pytest.mark.parametrize("name", specs.PAPER_TARGET_NAMES)
def test_every_target_is_complete_and_consistent(name):
    spec, entry = specs.get_target(name), specs.REGISTRY.entries[name]
    assert entry["label"].startswith("tab:" if spec.kind == "table" else "fig:")
    assert spec.dataset in DATASETS
    assert spec.sweep in SWEEPS
    assert spec.statistic in ("mean", "std")
    assert spec.columns and set(spec.columns) <= set(specs.COLUMNS)
    assert len(set(spec.columns)) == len(spec.columns)
    assert len(set(spec.param_labels)) == len(spec.param_labels) >= 5
    assert list(spec.sweep_values) == sorted(spec.sweep_values)
    assert isinstance(spec.profile, ProfileSpec) and spec.profile.validate()
    assert spec.caption and spec.source_csv in authors.REFERENCE_FILES.values()
    # the caption's fixed parameters are those of the rebuild
    fixed = entry["fixed"]
    assert (spec.lam is None) == (spec.sweep == "lam") and fixed.get("lam") == spec.lam
    for key, value in fixed.items():
        if key in ("eps_c", "eps_m", "eps_l", "f_c", "f_m"):
            assert key != spec.sweep and getattr(spec.profile, key) == value, (name, key)
        elif key == "f_l":
            assert spec.sweep != "f_c" and spec.profile.f_l == pytest.approx(value, abs=1e-12)
        elif key in ("d", "n"):
            assert spec.dataset == "synthetic" and value == {"d": SYNTHETIC_D, "n": SYNTHETIC_N}[key]
    if spec.kind == "table":
        assert entry["header"] and entry["paper_caption"] and entry["tex_line"] > 0


def test_the_synthetic_sizes_the_captions_state_are_the_draws():
    draw = draw_data("synthetic", 0, 0)
    assert draw.X_train.shape[0] + draw.X_test.shape[0] == SYNTHETIC_N
    assert draw.X_train.shape[1] == SYNTHETIC_D


def test_tables_have_published_cells_for_exactly_their_params_and_columns():
    cells = _published_cells()
    tables = [s for s in specs.TARGETS.values() if s.kind == "table"]
    assert sorted(cells) == sorted(int(s.name.split("-")[1]) for s in tables)
    for spec in tables:
        printed = cells[int(spec.name.split("-")[1])]
        # in printed order: row by row, left to right
        assert printed == [(p, c) for p in spec.param_labels for c in spec.columns], spec.name


def test_figures_have_no_published_cells():
    figures = [s for s in specs.TARGETS.values() if s.kind == "figure"]
    assert len(figures) == 18
    numbers = set(_published_cells())
    for spec in figures:
        assert published.published(spec.name) is None
        assert specs.REGISTRY.entries[spec.name].get("params") == spec.param_labels
    assert numbers == set(range(1, 15))


# ----------------------------------------------------------------------------- the authors' files

def test_every_shipped_file_is_described_and_holds_the_values_listed():
    shipped = {p.name for p in resources.files("pdp_lib").joinpath("data/reference").iterdir()
               if p.name.endswith(".csv")}
    assert shipped == set(authors.REFERENCE_FILES.values())
    for key, f in specs.REGISTRY.files.items():
        frame = authors.load_reference(key)
        for param, v in f["varies"].items():
            held = np.unique(np.round(frame[v["column"]].to_numpy(float) / v["scale"], 10))
            assert held.tolist() == sorted(v["values"]), (key, param)


@pytest.mark.parametrize("name", specs.PAPER_TARGET_NAMES)
def test_the_authors_file_holds_every_sweep_value_the_target_claims(name):
    spec = specs.get_target(name)
    frame = authors.load_reference(spec.source_csv)
    reading = authors.file_reading(spec)
    assert authors.REFERENCE_FILES[reading.key] == spec.source_csv
    mask = np.ones(len(frame), dtype=bool)
    for column, value in reading.select.items():
        mask &= np.isclose(frame[column].to_numpy(float), value, rtol=1e-9, atol=1e-12)
    swept = frame.loc[mask, reading.column].to_numpy(float)
    for value in spec.sweep_values:
        assert np.isclose(swept, value * reading.scale, rtol=1e-9, atol=1e-12).sum() == 1, (name, value)
    for column in spec.columns:
        assert authors.reference_column(column, spec.statistic) in frame, (name, column)


def test_only_table_11_is_not_sourced():
    unsourced = [n for n, e in specs.REGISTRY.entries.items() if not e["sourced"]]
    assert unsourced == ["table-11"]
    assert authors.TABLE_SOURCES[11].file is None and authors.reference_table(11) is None


# ----------------------------------------------------------------------------- checks of an entry

@pytest.mark.parametrize("old, new, message", [
    ('sweep = "lam"\nparams = "printed_lam_table_1"', 'sweep = "lambda"\nparams = "printed_lam_table_1"',
     r"target table-1: sweep = 'lambda'"),
    ('columns = "standard_dp"\nsource = "synthetic_lambda"', 'columns = ["unreg_ols"]\nsource = "synthetic_lambda"',
     r"target table-1: columns"),
    ('profile = "f_c_sweep"\nstatistic = "std"\ncolumns = "jorgensen_std"\nsource = "synthetic_fc"',
     'profile = "nope"\nstatistic = "std"\ncolumns = "jorgensen_std"\nsource = "synthetic_fc"',
     r"target figure-15: profile = 'nope'"),
    ('tex_line = 304\n', '', r"target table-1: .*missing fields \['tex_line'\]"),
    ('fixed = { f_c = 0.54, f_m = 0.37, eps_m = 0.5, lam = 100.0 }',
     'fixed = { f_c = 0.54, f_m = 0.37, eps_m = 0.5 }', r"target table-5: fixed must state lam"),
    ('source = "medical_n"\nsource_note', 'source = "synthetic_n"\nsource_note',
     r"target table-12: source = 'synthetic_n' is not a file of dataset medical_cost"),
    ('notes = ["figure_columns_loss"]\n\n[[targets]]\nkind = "figure"\nnumber = 7',
     'notes = ["figure_columns_lost"]\n\n[[targets]]\nkind = "figure"\nnumber = 7',
     r"target figure-6: note 'figure_columns_lost'"),
    ('jorgensen = { f_c = 0.54, f_m = 0.37, eps_m = 0.5 }', 'jorgensen = { f_c = 0.54, f_m = 0.37, eps_m = 5.0 }',
     r"eps_c <= eps_m <= eps_l"),
])
def test_a_bad_entry_fails_loudly(old, new, message):
    with pytest.raises(ValueError, match=message):
        specs.load_registry(_edited(old, new))


# ----------------------------------------------------------------------------- a new target

TOY_FIGURE = '''
[[targets]]
kind = "figure"
number = 19
label = "fig:toy_epsm"
dataset = "medical_cost"
sweep = "eps_m"
fixed = { eps_c = 0.01, lam = 2.0 }
profile = "jorgensen"
statistic = "mean"
columns = ["unreg_pdp_op", "reg_pdp_op"]
source = "medical_eps"
caption = "PDP-OP on the Medical Cost data, varying eps_m at lambda = 2."
'''

TOY_TABLE = '''
[[targets]]
kind = "table"
number = 15
label = "tab:toy_fc"
tex_line = 2000
dataset = "synthetic"
sweep = "f_c"
params = ["0.1", "0.3"]
header = "Fraction of Conservative Users (f_c)"
fixed = { f_m = 0.37, lam = 50.0 }
profile = "f_c_sweep"
statistic = "mean"
columns = "standard_dp"
source = "synthetic_fc"
source_note = "A toy table."
caption = "PDP-OP vs standard DP, synthetic data, varying f_c at lambda = 50."
paper_caption = "A toy table at lambda = 50."
'''


def test_a_new_figure_and_table_are_one_entry_each_plus_cells(monkeypatch):
    registry = specs.load_registry(_data("targets.toml") + TOY_FIGURE + TOY_TABLE)
    assert "figure-19" in registry.targets and "table-15" in registry.targets
    assert {n: registry.targets[n] for n in specs.TARGET_NAMES} == specs.TARGETS
    cells = "".join(f"15,{p},{c},{t},{int(c.endswith('pdp_op'))}\n"
                    for p, t in (("0.1", "1.00"), ("0.3", "2.50 × 10⁻¹"))
                    for c in registry.targets["table-15"].columns)
    tables = published.load_tables(registry, _data("published.csv") + cells)
    monkeypatch.setattr(specs, "TARGETS", dict(registry.targets))
    monkeypatch.setattr(published, "TABLES", tables)

    figure = reproduce("figure-19", runs=5, seed=1)
    assert len(figure) == 10 * 2 and figure["paper"].isna().all()
    ref = rendering.reference_series("figure-19")
    assert list(ref.columns) == ["unreg_pdp_op", "reg_pdp_op"] and list(ref.index) == list(registry.files[
        "medical_eps"]["varies"]["eps_m"]["values"])
    assert rendering.loss_table_markdown("figure-19", figure, "unreg").startswith("| $\\varepsilon_m$ | PDP-OP |")

    table = reproduce("table-15", runs=5, seed=1)
    assert table.set_index(["param", "column"])["paper"].to_dict() == {
        (p, c): v for p, v in (("0.1", 1.0), ("0.3", 0.25)) for c in registry.targets["table-15"].columns}
    assert published.published_table(15).index.name == "f_c"
    assert published.bold_cells(15) == [("0.1", "unreg_pdp_op"), ("0.1", "reg_pdp_op"),
                                    ("0.3", "unreg_pdp_op"), ("0.3", "reg_pdp_op")]
    # the rebuilt table's cells against the printed ones
    assert "<small>" in rendering.loss_table_markdown("table-15", table, "reg")


@pytest.mark.parametrize("name", specs.BEYOND_TARGET_NAMES)
def test_every_target_beyond_the_paper_is_complete(name):
    spec, entry = specs.get_target(name), specs.REGISTRY.entries[name]
    assert spec.kind == "beyond" and spec.source_csv is None and "label" not in entry
    assert spec.dataset in DATASETS + ("diabetes",)
    assert set(spec.columns) <= set(specs.COLUMNS) | set(specs.BEYOND_COLUMNS)
    assert set(specs.BEYOND_COLUMNS) <= set(spec.columns)          # every new baseline is shown
    assert (spec.lam is None) == (spec.sweep == "lam") and spec.profile.validate()
    assert len(set(spec.param_labels)) == len(spec.param_labels) >= 5


def test_beyond_columns_are_refused_in_the_papers_targets():
    bad = _data("targets.toml").replace('columns = "standard_dp"', 'columns = ["unreg_pdp_op_sharp"]', 1)
    with pytest.raises(ValueError, match="target table-1: columns"):
        specs.load_registry(bad)
    bad = _data("targets.toml").replace('dataset = "synthetic"\nsweep = "lam"', 'dataset = "diabetes"\nsweep = "lam"', 1)
    with pytest.raises(ValueError, match="target table-1: dataset = 'diabetes' is not one of"):
        specs.load_registry(bad)
