"""Tests of pdp_lib.replication.authors: the authors' raw outputs and their agreement with the paper.

Independent truths used here: the files' MD5 sums (taken when they were copied), their
shapes, hand-computed roundings, row look-ups written directly with pandas, and the
findings of the comparison (agreement counts and the list of errata) pinned exactly, so
that any change in the transcription, the data or the matching shows up.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from pdp_lib.experiments import published
from pdp_lib.replication import authors

MD5 = {
    "LICENSE-MIT.txt": "4f3f1af63f8a695c4ac44a5419fde740",
    "forplots_insurance_data_impact_epsc_epsm_affine.csv": "85ed1e98f0f924e00c56db01f121e428",
    "forplots_insurance_data_impact_fc_affine.csv": "418af92dba6898f71d4f59da8ea3bc24",
    "forplots_insurance_data_impact_lambda_plevel_34_43_23_affine.csv": "4ddae419ee5ed43632041ce9624c20d0",
    "forplots_insurance_data_impact_n_plevel_34_43_23_affine.csv": "461328915ae7c62ef46bd22cb4e36937",
    "forplots_specific_30_100_eps_c_eps_m.csv": "103923695b3af654bda2765f51b1d38f",
    "forplots_specific_30_100_impact_fc.csv": "ef02c1a7885093829e0e6513c17ab9b7",
    "forplots_specific_30_100_impact_n.csv": "0bd57d698df83e92b49337011bff76ad",
    "forplots_specific_30_100_plevel_34_43_23_result.csv": "c79d828cac87490fedd31293152d4f7b",
}

SHAPES = {
    "synthetic_lambda": (22, 27),
    "medical_lambda": (14, 32),
    "synthetic_eps": (352, 29),   # 22 lambdas x (7 eps_c + 10 eps_m - 1 shared) configurations
    "medical_eps": (224, 34),     # 14 lambdas x 16
    "synthetic_fc": (132, 28),    # 22 lambdas x 6 f_c
    "medical_fc": (84, 33),       # 14 lambdas x 6 f_c
    "synthetic_n": (20, 33),      # 2 lambdas x 10 training sizes
    "medical_n": (140, 33),       # 14 lambdas x 10 training sizes
}

# (sourced cells, cells agreeing after rounding to 3 significant digits,
#  cells agreeing after truncating to 3 significant digits) per table
AGREEMENT = {
    1: (60, 60, 30),
    2: (48, 48, 23),
    3: (120, 118, 71),
    4: (96, 95, 51),
    5: (28, 27, 11),
    6: (28, 28, 15),
    7: (40, 40, 12),
    8: (40, 40, 22),
    9: (24, 23, 12),
    10: (24, 24, 11),
    11: (0, 0, 0),
    12: (40, 40, 27),
    13: (90, 90, 44),
    14: (72, 72, 36),
}

# Agreement rate (agreeing / sourced cells) per table; None: no source.
AGREEMENT_RATE = {
    1: Fraction(1), 2: Fraction(1), 3: Fraction(59, 60), 4: Fraction(95, 96),
    5: Fraction(27, 28), 6: Fraction(1), 7: Fraction(1), 8: Fraction(1), 9: Fraction(23, 24),
    10: Fraction(1), 11: None, 12: Fraction(1), 13: Fraction(1), 14: Fraction(1),
}

# The errata: published cells that disagree with the authors' own output
# (table, param as printed, column, kind of discrepancy, authors' value at the paper's precision).
ERRATA = [
    (3, "25.00", "unreg_jorgensen_max", "power of ten", "1.81 × 10⁻¹"),
    (3, "500.00", "reg_non_private", "last digit", "2.42 × 10⁻³"),
    (4, "0.60", "unreg_jorgensen_max", "last digit", "9.88 × 10⁻¹"),
    (5, "0.30", "reg_non_personalized", "value", "3.22"),
    (9, "0.2", "reg_non_personalized", "last digit", "1.15 × 10²"),
]


def _bytes(file_name):
    return resources.files("pdp_lib").joinpath(f"data/reference/{file_name}").read_bytes()


# ----------------------------------------------------------------------------- the files

@pytest.mark.parametrize("file_name", sorted(MD5))
def test_md5(file_name):
    assert hashlib.md5(_bytes(file_name)).hexdigest() == MD5[file_name]


def test_provenance_lists_every_file_and_md5():
    text = resources.files("pdp_lib").joinpath("data/reference/PROVENANCE.md").read_text("utf-8")
    assert "krishnacharya/pp-ridge" in text and "MIT" in text
    for file_name, md5 in MD5.items():
        assert file_name in text and md5 in text


def test_licence_notice_is_kept():
    text = _bytes("LICENSE-MIT.txt").decode("utf-8")
    assert text.startswith("MIT License")
    assert "Copyright (c) 2023 KVA" in text
    assert "The above copyright notice and this permission notice shall be included" in text


def test_every_shipped_file_is_registered():
    shipped = {p.name for p in resources.files("pdp_lib").joinpath("data/reference").iterdir()
               if p.name.endswith(".csv")}
    assert shipped == set(authors.REFERENCE_FILES.values())
    assert sorted(authors.reference_files()) == sorted(SHAPES)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_loader_shapes(name):
    frame = authors.load_reference(name)
    assert frame.shape == SHAPES[name]
    assert frame.select_dtypes("number").shape[1] == SHAPES[name][1]
    # the same file by its file name, with and without the extension
    file_name = authors.REFERENCE_FILES[name]
    pd.testing.assert_frame_equal(authors.load_reference(file_name), frame)
    pd.testing.assert_frame_equal(authors.load_reference(file_name[:-4]), frame)


def test_loader_returns_fresh_copies():
    frame = authors.load_reference("synthetic_lambda")
    frame.iloc[0, 0] = -1
    assert authors.load_reference("synthetic_lambda").iloc[0, 0] == 30


def test_loader_rejects_unknown_names():
    with pytest.raises(ValueError, match="name = 'nope'"):
        authors.load_reference("nope")
    with pytest.raises(TypeError, match="name must be a string"):
        authors.load_reference(3)


# ----------------------------------------------------------------------------- mapping

@pytest.mark.parametrize("column, statistic, expected", [
    ("unreg_pdp_op", "mean", "unreg_pp_test_mean"),
    ("reg_non_personalized", "mean", "reg_nonpp_test_mean"),
    ("unreg_jorgensen_max", "std", "unreg_jorg_max_test_std"),
    ("reg_jorgensen_mean", "std", "reg_jorg_avg_test_std"),
    ("unreg_non_private", "mean", "type1_nonpriv_loss"),
    ("reg_non_private", "mean", "type2_nonpriv_loss"),
])
def test_reference_column(column, statistic, expected):
    assert authors.reference_column(column, statistic) == expected


def test_reference_column_rejects_bad_input():
    with pytest.raises(ValueError, match="column = 'unreg_ols'"):
        authors.reference_column("unreg_ols")
    with pytest.raises(ValueError, match="statistic = 'median'"):
        authors.reference_column("unreg_pdp_op", "median")
    with pytest.raises(ValueError, match="no standard deviation"):
        authors.reference_column("reg_non_private", "std")


def test_every_mapped_column_exists_in_its_file():
    for k, source in authors.TABLE_SOURCES.items():
        spec = published.table_spec(k)
        columns = set(authors.load_reference(source.candidate).columns)
        for c in spec.columns:
            assert authors.reference_column(c, spec.statistic) in columns, (k, c)
        assert source.param_column in columns
        assert set(source.select) <= columns


@pytest.mark.parametrize("target, expected", [
    ("table-1", ("synthetic_lambda", "lamb", 1.0, {})),
    ("table-5", ("synthetic_eps", "eps_c", 1.0, {"lamb": 100.0, "eps_m": 0.5})),
    ("figure-5", ("synthetic_eps", "eps_m", 1.0, {"lamb": 50.0, "eps_c": 0.01})),
    ("table-9", ("synthetic_fc", "fc", 1.0, {"lamb": 100.0})),
    ("figure-16", ("medical_fc", "f_c", 1.0, {"lamb": 1.0})),
    ("table-11", ("synthetic_n", "N_train_frac", 80, {"lamb": 100.0})),
    ("figure-18", ("medical_n", "N_train_frac", 1070, {"lamb": 1.0})),
])
def test_file_reading_holds_the_other_parameters_at_the_targets_setting(target, expected):
    """Read off the files' headers by hand: the column of the sweep, the counts of training
    points (80 of 100 synthetic points, 1070 of 1338 Medical Cost rows), the columns held."""
    key, column, scale, select = authors.file_reading(target)
    assert (key, column, scale, dict(select)) == expected


def test_file_reading_of_an_undescribed_file_raises():
    from dataclasses import replace

    from pdp_lib.experiments import get_target

    with pytest.raises(LookupError, match=r"target 'figure-7': 'other.csv' is not one of the authors' files"):
        authors.file_reading(replace(get_target("figure-7"), source_csv="other.csv"))


# ----------------------------------------------------------------------------- rounding

@pytest.mark.parametrize("x, rounded, truncated", [
    (853.9528025973499, 854.0, 853.0),
    (114.73177391893007, 115.0, 114.0),
    (0.0024246047121519814, 0.00242, 0.00242),
    (0.9876974967035896, 0.988, 0.987),
    (9.996, 10.0, 9.99),
    (5.732458362890185e-32, 5.73e-32, 5.73e-32),
    (-1.239, -1.24, -1.23),
    (2.0, 2.0, 2.0),
])
def test_round_and_truncate_by_hand(x, rounded, truncated):
    assert authors.round_sig(x) == rounded
    assert authors.truncate_sig(x) == truncated


# ----------------------------------------------------------------------------- row selection

@pytest.mark.parametrize("k", [k for k in range(1, 15) if k != 11])
def test_reference_table_has_the_published_shape(k):
    ref = authors.reference_table(k)
    pub = published.published_table(k)
    assert ref.index.equals(pub.index)
    assert list(ref.columns) == list(pub.columns)
    assert ref.notna().all().all()
    assert (ref.to_numpy() > 0).all()


def test_reference_rows_picked_by_hand():
    """A few look-ups written directly against the files."""
    syn = authors.load_reference("synthetic_lambda")
    row = syn[syn["lamb"] == 1.0].iloc[0]
    assert authors.reference_table(1).at[1.0, "unreg_pdp_op"] == row["unreg_pp_test_mean"]
    assert authors.reference_table(13).at[1.0, "reg_jorgensen_mean"] == \
        row["reg_jorg_avg_test_std"]
    assert authors.reference_table(3).at[1.0, "unreg_non_private"] == row["type1_nonpriv_loss"]

    eps = authors.load_reference("synthetic_eps")
    row = eps[np.isclose(eps["eps_c"], 0.3) & (eps["eps_m"] == 0.5) & (eps["lamb"] == 100.0)]
    assert len(row) == 1
    assert authors.reference_table(5).at[0.3, "reg_non_personalized"] == \
        row["reg_nonpp_test_mean"].iloc[0]
    row = eps[(eps["eps_c"] == 0.01) & (eps["eps_m"] == 0.35) & (eps["lamb"] == 100.0)]
    assert authors.reference_table(7).at[0.35, "unreg_non_personalized"] == \
        row["unreg_nonpp_test_mean"].iloc[0]

    fc = authors.load_reference("medical_fc")
    row = fc[np.isclose(fc["f_c"], 0.6) & (fc["lamb"] == 1.0)]
    assert authors.reference_table(10).at[0.6, "reg_pdp_op"] == row["reg_pp_test_mean"].iloc[0]

    med_n = authors.load_reference("medical_n")
    row = med_n[(med_n["N_train_frac"] == 107) & (med_n["lamb"] == 1.0)]
    assert authors.reference_table(12).at[0.1, "unreg_pdp_op"] == \
        row["unreg_pp_test_mean"].iloc[0]


# ----------------------------------------------------------------------------- agreement

@pytest.fixture(scope="module")
def summary():
    return authors.agreement_summary()


@pytest.mark.parametrize("k", range(1, 15))
def test_agreement_per_table_is_pinned(k, summary):
    cmp = authors.compare_published_with_reference(k)
    sourced = int(cmp["agree"].notna().sum())
    agree = int(cmp["agree"].fillna(False).sum())
    agree_t = int(cmp["agree_truncated"].fillna(False).sum())
    assert (sourced, agree, agree_t) == AGREEMENT[k]
    row = summary.loc[k]
    assert (row["cells"], row["sourced"], row["agree"], row["agree_truncated"]) == \
        (len(cmp), *AGREEMENT[k])
    if AGREEMENT_RATE[k] is None:
        assert sourced == 0 and np.isnan(row["rate"])
    else:
        assert Fraction(agree, sourced) == AGREEMENT_RATE[k]
        assert row["rate"] == float(AGREEMENT_RATE[k])


def test_the_authors_rounded_rather_than_truncated(summary):
    sourced = sum(v[0] for v in AGREEMENT.values())
    rounded = sum(v[1] for v in AGREEMENT.values())
    truncated = sum(v[2] for v in AGREEMENT.values())
    assert (sourced, rounded, truncated) == (710, 705, 365)
    assert summary["cells"].sum() == 750
    assert summary["sourced"].sum() == sourced


def test_disagreeing_cells_are_the_pinned_errata():
    found = authors.disagreements()
    listed = [(r.table, r.param, r.column, r.discrepancy, r.reference_text)
              for r in found.itertuples()]
    assert listed == ERRATA
    # each erratum really is one: the authors' rounded value differs from the printed one
    assert (found["reference_rounded"] != found["published"]).all()


def test_comparison_columns():
    cmp = authors.compare_published_with_reference(3)
    assert list(cmp.columns) == [
        "table", "param", "param_value", "column", "published", "published_text", "bold",
        "reference", "reference_rounded", "reference_text", "agree", "agree_truncated",
        "discrepancy",
    ]
    assert len(cmp) == 120
    assert str(cmp["agree"].dtype) == "boolean"
    agreeing = cmp[cmp["agree"].fillna(False).astype(bool)]
    assert (agreeing["discrepancy"] == "").all()
    assert (agreeing["reference_text"] == agreeing["published_text"]).all()


def test_pdp_op_is_lowest_in_the_authors_outputs():
    """The paper's bold claim holds in the authors' raw values, including Table 3, lambda = 25
    where the printed numbers contradict it (a misprint, not a result)."""
    for k, source in authors.TABLE_SOURCES.items():
        ref = authors.reference_table(k)
        if ref is None:
            continue
        for group in ("unreg_", "reg_"):
            private = [c for c in ref.columns if c.startswith(group) and "non_private" not in c]
            assert (ref[private].idxmin(axis=1) == group + "pdp_op").all(), (k, group)


# ----------------------------------------------------------------------------- sources

@pytest.mark.parametrize("k", [5, 6, 7, 8, 9, 10, 12])
def test_caption_lambda_is_the_matching_lambda(k):
    source = authors.TABLE_SOURCES[k]
    assert source.caption_lambda == published.table_spec(k).fixed["lam"]
    assert authors.best_matching_lambda(k) == source.matched_lambda == source.caption_lambda
    counts = authors.lambda_agreement(k)
    sourced, agree, _ = AGREEMENT[k]
    assert counts.max() == agree
    # at the matching lambda the file reproduces the table; at no other lambda does it come close
    assert (counts.drop(source.matched_lambda) < sourced // 2).all()


def test_table_11_has_no_source():
    assert authors.reference_table(11) is None
    assert authors.TABLE_SOURCES[11].file is None
    cmp = authors.compare_published_with_reference(11)
    assert (cmp["discrepancy"] == "no source").all() and cmp["agree"].isna().all()
    # at both lambdas the candidate file holds, no published cell agrees
    counts = authors.lambda_agreement(11)
    assert counts.to_dict() == {50.0: 0, 100.0: 0}
    assert authors.best_matching_lambda(11) is None


def test_table_11_matches_no_row_of_its_candidate_file():
    """Not even a misaligned row: only two of the 40 published values occur anywhere in the
    mapped columns of the file, and at rows of other training sizes (chance coincidences)."""
    spec = published.table_spec(11)
    frame = authors.load_reference(authors.TABLE_SOURCES[11].candidate)
    hits = []
    for param, cells in spec.rows:
        for column in spec.columns:
            rounded = frame[authors.reference_column(column)].map(authors.round_sig)
            rows = frame.loc[rounded == cells[column].value, ["N_train_frac", "lamb"]]
            hits += [(param, column, int(n), float(lam)) for n, lam in rows.to_numpy()]
    assert hits == [
        ("0.1", "reg_non_personalized", 24, 50.0),   # printed fraction 0.1 <-> 8 points
        ("0.6", "unreg_pdp_op", 40, 100.0),          # printed fraction 0.6 <-> 48 points
    ]


def test_lambda_agreement_rejects_lambda_sweeps():
    for k in (1, 2, 3, 4, 13, 14):
        with pytest.raises(ValueError, match=rf"k = {k} sweeps lambda"):
            authors.lambda_agreement(k)


def test_bad_table_numbers():
    with pytest.raises(ValueError, match=r"k = 0 is outside the allowed range \[1, 14\]"):
        authors.reference_table(0)
    with pytest.raises(ValueError, match=r"k = 15 is outside the allowed range \[1, 14\]"):
        authors.compare_published_with_reference(15)
    with pytest.raises(TypeError):
        authors.reference_table(2.0)
