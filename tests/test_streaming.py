"""PDP-OP on a table of any size (pdp_lib.io, pdp_lib.mechanisms.registry, python -m pdp_lib fit): the streamed sums against the
in-memory mechanism, every refusal named by file, row and column, and the model file."""

import json
import math
import re

import numpy as np
import pandas as pd
import pytest

import pdp_lib
from pdp_lib import cli
from pdp_lib.io import public_bounds, streaming, tables
from pdp_lib.mechanisms.registry import fit_sums
from pdp_lib.mechanisms import lattice, registry
from pdp_lib.mechanisms.lattice import lattice_calibration, rounds_bound

D = 3
FEATURES = [f"f{k}" for k in range(D)]


def _table(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    raw = pd.DataFrame(rng.uniform(10, 20, (n, D)), columns=FEATURES)
    raw["charges"] = rng.uniform(-5, 5, n)
    raw["eps"] = rng.choice([0.1, 0.5, 1.0], n)
    return raw


def _bounds_file(tmp_path):
    path = tmp_path / "bounds.toml"
    path.write_text("[label]\nlower = -5\nupper = 5\n\n"
                    + "".join(f"[features.{f}]\nlower = 10\nupper = 20\n\n" for f in FEATURES))
    return path


def _in_domain(raw):
    return (raw[FEATURES].to_numpy() - 10) / 10, raw["charges"].to_numpy() / 5, raw["eps"].to_numpy()


@pytest.mark.parametrize("layout", ["csv", "parquet", "csv-folder", "parquet-glob"])
def test_streamed_fit_is_the_in_memory_mechanism(tmp_path, layout):
    raw = _table()
    data = tmp_path / "data"
    data.mkdir()
    parts = [raw.iloc[:700], raw.iloc[700:1500], raw.iloc[1500:]] if "-" in layout else [raw]
    kind = layout.split("-")[0]
    for k, part in enumerate(parts):
        path = data / f"part-{k}.{kind}"
        part.to_csv(path, index=False) if kind == "csv" else part.to_parquet(path, index=False)
    source = {"csv": data / "part-0.csv", "parquet": data / "part-0.parquet", "csv-folder": data,
              "parquet-glob": str(data / "part-*.parquet")}[layout]
    bounds = public_bounds.read_bounds(_bounds_file(tmp_path))
    sums = streaming.accumulate(source, bounds, "charges", "eps", chunk_rows=333)
    X, y, eps = _in_domain(raw)
    cal = pdp_lib.calibrate(eps, 1.0, D)
    np.testing.assert_allclose(sums.theta_bar(1.0), pdp_lib.weighted_ridge(X, y, cal.weights, 1.0), rtol=1e-10)
    release = fit_sums(sums, 1.0, rng=5)
    theta, theorem, eta = release.theta, release.theorem, release.fields["eta"]
    np.testing.assert_array_equal(theta, pdp_lib.pdp_op(X, y, eps, 1.0, rng=5))      # the same grid point
    lattice = lattice_calibration(math.fsum(eps), float(eps.min()), rounds_bound(len(raw)), 1.0, D)
    assert eta == lattice.eta and theorem == "3.1" and sums.rows == len(raw)
    release = fit_sums(sums, 1.0, rng=5, sampler="float")
    theta, eta = release.theta, release.fields["eta"]
    np.testing.assert_allclose(theta, pdp_lib.pdp_op(X, y, eps, 1.0, rng=5, sampler="float"), rtol=1e-10)
    assert eta == pytest.approx(cal.eta, rel=1e-12)
    assert sums.level_summary() == {"rows": len(raw), "sum": pytest.approx(eps.sum(), rel=1e-13), "min": 0.1,
                                    "max": 1.0, "digest": streaming.level_digest(eps)}


def test_the_sums_do_not_depend_on_the_chunks_and_merge():
    raw = _table(500)
    X, y, eps = _in_domain(raw)
    whole = streaming.Sums.zeros(D)
    whole.add(X, y, eps)
    a, b = streaming.Sums.zeros(D), streaming.Sums.zeros(D)
    a.add(X[:123], y[:123], eps[:123])
    b.add(X[123:], y[123:], eps[123:])
    merged = a.merge(b)
    np.testing.assert_allclose(merged.gram, whole.gram, rtol=1e-13)
    assert merged.rows == 500 and merged.level_summary() == whole.level_summary()
    assert whole.level_summary()["digest"] == streaming.level_digest(eps[::-1])     # order-free
    assert (whole.level_min, whole.level_max) == (eps.min(), eps.max())


# the CSV's lines as a text editor numbers them: the header is line 1, data row r (0-based) is line r + 2
@pytest.mark.parametrize("change, message", [
    (lambda t: t.__setitem__((5, "f1"), np.nan), r"line 7, column 'f1': a missing value \(an empty field, or a marker such as NA, n/a or NaN\)"),
    (lambda t: t.__setitem__((9, "eps"), 0.0), r"line 11, column 'eps': 0.0 is outside the allowed range \(0, 100\]"),
    (lambda t: t.__setitem__((9, "eps"), 100.5), r"line 11, column 'eps': 100.5 is outside the allowed range \(0, 100\]"),
    (lambda t: t.__setitem__((9, "eps"), 1e308), r"line 11, column 'eps': 1e\+308 is outside the allowed range"),
    (lambda t: t.__setitem__((9, "eps"), -1.0), r"line 11, column 'eps': -1.0 is outside"),
    (lambda t: t.__setitem__((9, "eps"), np.inf), r"line 11, column 'eps': inf is outside"),
    (lambda t: t.__setitem__((9, "eps"), np.nan), r"line 11, column 'eps': a missing value"),
    (lambda t: t.__setitem__((1500, "f2"), 25.0), r"line 1502, column 'f2': 25.0 is outside the allowed range "
                                                  r"\[10.0, 20.0\] declared in .*bounds.toml; pass clip=True"),
    (lambda t: t.__setitem__((3, "charges"), -7.0), r"line 5, column 'charges': -7.0"),
])
def test_bad_rows_are_refused_with_file_row_and_column(tmp_path, change, message):
    raw = _table()
    change(_Setter(raw))
    path = tmp_path / "data.csv"
    raw.to_csv(path, index=False)
    bounds = public_bounds.read_bounds(_bounds_file(tmp_path))
    with pytest.raises(ValueError, match=r"data.csv, " + message):
        streaming.accumulate(path, bounds, "charges", "eps", chunk_rows=400)


class _Setter:
    def __init__(self, frame):
        self.frame = frame

    def __setitem__(self, key, value):
        row, col = key
        self.frame.loc[row, col] = value


def test_the_released_fields_do_not_depend_on_the_private_rows(tmp_path, capsys):
    """Neighbouring tables (one row's features and label replaced, every level kept) give model files that
    differ in the estimate only, with or without --clip; the clamped count reaches standard error only."""
    raw = _table(300)
    neighbour = raw.copy()
    neighbour.loc[17, FEATURES + ["charges"]] = [25.0, 12.0, 19.0, 40.0]     # now outside its bounds
    files, printed = [], []
    for name, table in (("a", raw), ("b", neighbour)):
        table.to_csv(tmp_path / f"{name}.csv", index=False)
        out = tmp_path / f"{name}.json"
        assert cli.main(["fit", str(tmp_path / f"{name}.csv"), "--label", "charges", "--epsilon", "eps", "--lam", "1",
                         "--bounds", str(_bounds_file(tmp_path)), "--clip", "--seed", "3", "--out", str(out)]) == 0
        captured = capsys.readouterr()
        clamped = "0 row(s)" if name == "a" else "1 row(s)"
        assert f"not private, for the operator only: --clip clamped {clamped}" in captured.err
        assert "clamped" not in captured.out
        printed.append(captured.out.replace(f"{name}.json", "MODEL"))
        files.append(json.loads(out.read_text()))
    assert printed[0] == printed[1]                                          # standard output: the same
    a, b = files
    assert a["coef"] != b["coef"]
    for key in ("intercept", "features", "lam", "B", "eta", "privacy", "scaling", "library"):
        assert a[key] == b[key], key
    assert "clip" not in json.dumps(a)


def test_the_level_summary_has_a_size_free_of_rows_and_distinct_levels():
    """A continuous level column: the summary's fields are five, whatever the number of rows or levels."""
    rng = np.random.default_rng(0)
    sizes = []
    for n in (10, 100_000):
        sums = streaming.Sums.zeros(2)
        eps = rng.uniform(0.01, 1.0, n)
        sums.add(rng.uniform(0, 1, (n, 2)), rng.uniform(-1, 1, n), eps)
        summary = sums.level_summary()
        assert set(summary) == {"rows", "sum", "min", "max", "digest"} and len(summary["digest"]) == 32
        sizes.append(len(json.dumps(summary)))
    assert max(sizes) - min(sizes) <= 12          # only the digits of the count and the sum differ
    assert streaming.level_digest([0.1, 0.5]) == streaming.level_digest([0.5, 0.1])
    assert streaming.level_digest([0.1, 0.5]) != streaming.level_digest([0.1, 0.5, 0.5])
    assert streaming.level_digest([0.1]) != streaming.level_digest([np.nextafter(0.1, 1)])


def test_an_unwritable_out_is_refused_before_any_row_is_read(tmp_path, capsys, monkeypatch):
    _table(50).to_csv(tmp_path / "d.csv", index=False)
    read = []
    monkeypatch.setattr(streaming, "accumulate", lambda *a, **k: read.append(a))
    status = cli.main(["fit", str(tmp_path / "d.csv"), "--label", "charges", "--epsilon", "eps", "--lam", "1",
                       "--bounds", str(_bounds_file(tmp_path)), "--out", str(tmp_path / "no" / "such" / "model.json")])
    assert status == 2 and "cannot write --out" in capsys.readouterr().err and read == []


def test_noise_that_dominates_is_said(tmp_path, capsys):
    raw = _table(30)
    raw.to_csv(tmp_path / "small.csv", index=False)
    out = tmp_path / "m.json"
    assert cli.main(["fit", str(tmp_path / "small.csv"), "--label", "charges", "--epsilon", "eps", "--lam", "1",
                     "--bounds", str(_bounds_file(tmp_path)), "--seed", "0", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    eta = json.loads(out.read_text())["eta"]
    assert f"expected noise norm d/eta = {pdp_lib.formatting.sig(D / eta, 3)}" in captured.out
    assert D / eta > 1 and "warning: the noise dominates" in captured.err


@pytest.mark.parametrize("text, message", [
    ("[label]\nlower = -1e308\nupper = 1e308\n[features.f0]\nlower = 0\nupper = 1\n", r"label: the width upper - lower = inf"),
    ("[label]\nlower = -1\nupper = 1\n[features.f0]\nlower = -1e308\nupper = 1e308\n", r"features.f0: the width"),
    ("[label]\nlower = -1\nupper = 1\n[features.f0]\nlower = 1e20\nupper = 1.0000000000001e20\n", r"features.f0: the width"),
    ("[label]\nlower = -1\nupper = 1\n[features.f0]\nlower = 0\nupper = nan\n", r"features.f0.upper = nan"),
    ("[label]\nlower = -1\nupper = 1\n[features.f0\nlower = 0\n", r"bounds.toml: not valid TOML: .*line 4"),
])
def test_absurd_bounds_and_toml_typos_are_refused_with_the_file(tmp_path, text, message):
    path = tmp_path / "bounds.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        public_bounds.read_bounds(path)


def test_clip_clamps_and_counts(tmp_path):
    raw = _table()
    raw.loc[[3, 8], "f0"] = [25.0, 5.0]
    raw.loc[8, "charges"] = 9.0
    path = tmp_path / "data.csv"
    raw.to_csv(path, index=False)
    bounds = public_bounds.read_bounds(_bounds_file(tmp_path))
    sums = streaming.accumulate(path, bounds, "charges", "eps", clip=True)
    assert sums.clipped == 2
    clamped = raw.copy()
    clamped[FEATURES] = clamped[FEATURES].clip(10, 20)
    clamped["charges"] = clamped["charges"].clip(-5, 5)
    X, y, eps = _in_domain(clamped)
    cal = pdp_lib.calibrate(eps, 1.0, D)
    np.testing.assert_allclose(sums.theta_bar(1.0), pdp_lib.weighted_ridge(X, y, cal.weights, 1.0), rtol=1e-10)


def test_missing_files_columns_and_bad_bounds_are_refused(tmp_path):
    bounds_path = _bounds_file(tmp_path)
    bounds = public_bounds.read_bounds(bounds_path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        streaming.accumulate(tmp_path / "absent.csv", bounds, "charges", "eps")
    _table(10).drop(columns="f1").to_csv(tmp_path / "d.csv", index=False)
    with pytest.raises(ValueError, match=r"d.csv: column 'f1' is missing"):
        streaming.accumulate(tmp_path / "d.csv", bounds, "charges", "eps")
    bad = tmp_path / "bad.toml"
    bad.write_text("[label]\nlower = 1\nupper = 1\n[features.f0]\nlower = 0\nupper = 1\n")
    with pytest.raises(ValueError, match=r"label: lower = 1 must be below upper = 1"):
        public_bounds.read_bounds(bad)
    bad.write_text("[label]\nlower = 0\nupper = 1\nstep = 2\n[features.f0]\nlower = 0\nupper = 1\n")
    with pytest.raises(ValueError, match=r"exactly the keys lower and upper"):
        public_bounds.read_bounds(bad)
    with pytest.raises(FileNotFoundError):
        public_bounds.read_bounds(tmp_path / "none.toml")


def test_the_command_line_writes_a_model_without_rows_or_seed(tmp_path, capsys):
    raw = _table()
    raw.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "model.json"
    status = cli.main(["fit", str(tmp_path / "data.csv"), "--label", "charges", "--epsilon", "eps",
                       "--lam", "2", "--bounds", str(_bounds_file(tmp_path)), "--seed", "11", "--out", str(out)])
    assert status == 0 and "fitted on 2000 rows" in capsys.readouterr().out
    model = json.loads(out.read_text())
    X, y, eps = _in_domain(raw)
    np.testing.assert_allclose(model["coef"], pdp_lib.pdp_op(X, y, eps, 2.0, rng=11), rtol=1e-10)
    privacy = model["privacy"]
    assert model["features"] == FEATURES and privacy["theorem"].startswith("Theorem 3.1, ")
    assert "Acharya" in privacy["theorem"] and "arXiv:2401.17127" in privacy["theorem"]
    assert privacy["levels"] == {"rows": 2000, "sum": pytest.approx(eps.sum(), rel=1e-13), "min": 0.1, "max": 1.0,
                                 "digest": streaming.level_digest(eps)}
    assert "replace one" in privacy["neighbouring_relation"] and privacy["floating_point"].startswith("covered: ")
    assert privacy["sampler"].startswith("exact lattice l2-Laplace") and privacy["sampler"].endswith(
        lattice.NOISE_LAWS["lattice"])
    assert "seed" not in json.dumps(model) and set(model) == {"coef", "intercept", "features", "mechanism", "lam", "B",
                                                              "eta", "privacy", "scaling", "library"}
    assert model["mechanism"] == "output"
    status = cli.main(["fit", str(tmp_path / "data.csv"), "--label", "charges", "--epsilon", "eps", "--lam", "2",
                       "--bounds", str(_bounds_file(tmp_path)), "--seed", "11", "--sampler", "float", "--out", str(out)])
    model = json.loads(out.read_text())
    np.testing.assert_allclose(model["coef"], pdp_lib.pdp_op(X, y, eps, 2.0, rng=11, sampler="float"), rtol=1e-10)
    assert "exact arithmetic" in model["privacy"]["floating_point"] and "--sampler float" in \
        model["privacy"]["floating_point"] and model["privacy"]["sampler"].startswith("floating-point")
    assert status == 0 and "fitted on 2000 rows" in capsys.readouterr().out
    status = cli.main(["fit", str(tmp_path / "data.csv"), "--label", "charges", "--epsilon", "eps",
                       "--lam", "2", "--out", str(out)])      # no bounds: the raw values are outside [0, 1]
    assert status == 2 and "data.csv, line 2, column 'f0'" in capsys.readouterr().err
    assert cli.main(["fit", "x.csv", "--label", "a", "--epsilon", "b", "--lam", "0", "--out", "m"]) == 2
    assert "--lam = 0.0 is outside the allowed range (0, inf)" in capsys.readouterr().err


def test_fit_warns_when_the_exact_release_costs_noise(tmp_path, capsys):
    # the sums' rounding bound is charged to the smallest level: one level of 1e-12 among levels near 1
    raw = _table()
    raw.loc[0, "eps"] = 1e-12
    raw.to_csv(tmp_path / "data.csv", index=False)
    args = ["fit", str(tmp_path / "data.csv"), "--label", "charges", "--epsilon", "eps", "--lam", "1",
            "--bounds", str(_bounds_file(tmp_path)), "--seed", "1", "--out", str(tmp_path / "model.json")]
    assert cli.main(args) == 0
    assert "warning: the exact release's eta" in capsys.readouterr().err
    raw.loc[0, "eps"] = 0.1
    raw.to_csv(tmp_path / "data.csv", index=False)
    assert cli.main(args) == 0
    assert "exact release's eta" not in capsys.readouterr().err


@pytest.mark.parametrize("sampler", ["exact", "float"])
def test_fit_by_sufficient_statistics_is_the_in_memory_mechanism(tmp_path, capsys, sampler):
    raw = _table()
    raw.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "ssp.json"
    args = ["fit", str(tmp_path / "data.csv"), "--label", "charges", "--epsilon", "eps", "--lam", "2",
            "--bounds", str(_bounds_file(tmp_path)), "--seed", "11", "--mechanism", "ssp", "--sampler", sampler,
            "--out", str(out)]
    assert cli.main(args) == 0 and "sufficient-statistics perturbation" in capsys.readouterr().out
    model = json.loads(out.read_text())
    X, y, eps = _in_domain(raw)
    np.testing.assert_allclose(model["coef"], pdp_lib.ssp(X, y, eps, 2.0, rng=11, sampler=sampler), rtol=1e-10)
    assert model["mechanism"] == "ssp" and model["B"] is None and set(model["eta"]) == {"gram", "moment"}
    assert model["privacy"]["theorem"].startswith("Proposition 'Personalized SSP'")
    assert model["privacy"]["sampler"].startswith("exact lattice" if sampler == "exact" else "floating-point")
    out.unlink()
    assert cli.main(args[:-2] + ["--bound", "sharp", "--out", str(out)]) == 2
    assert "--bound applies to --mechanism output only" in capsys.readouterr().err and not out.exists()


def test_fit_releases_exactly_in_forty_dimensions_with_the_rounded_law(tmp_path, capsys):
    # above 12 features the exact release draws its noise as an exactly rounded continuous vector
    rng = np.random.default_rng(5)
    names = [f"f{j}" for j in range(40)]
    raw = pd.DataFrame(rng.uniform(0, 1, (300, 40)), columns=names)
    raw["label"], raw["eps"] = rng.uniform(-1, 1, 300), rng.choice([0.5, 1.0], 300)
    raw.to_csv(tmp_path / "wide.csv", index=False)
    out = tmp_path / "wide.json"
    assert cli.main(["fit", str(tmp_path / "wide.csv"), "--label", "label", "--epsilon", "eps", "--lam", "1",
                     "--seed", "3", "--out", str(out)]) == 0
    model = json.loads(out.read_text())
    X, y, eps = raw[names].to_numpy(), raw["label"].to_numpy(), raw["eps"].to_numpy()
    assert model["coef"] == pdp_lib.pdp_op(X, y, eps, 1.0, rng=3).tolist()
    assert model["privacy"]["sampler"].endswith(lattice.NOISE_LAWS["rounded"])


# ---- every careless input refused: non-zero exit, one line naming the file and line, nothing written ----

def _write_table(tmp_path, name="data.csv", rows=40, edit=None):
    raw = _table(rows)
    path = tmp_path / name
    raw.to_csv(path, index=False, compression="gzip" if name.endswith(".gz") else None,
               sep="\t" if ".tsv" in name else ",")
    if edit is not None:
        lines = path.read_bytes().split(b"\n")
        edit(lines)
        path.write_bytes(b"\n".join(lines))
    return path


def _set_field(line_index, field, text):
    def edit(lines):
        fields = lines[line_index].split(b",")
        fields[field] = text
        lines[line_index] = b",".join(fields)
    return edit


BAD_FILES = [   # (what, file name, edit of the file's lines, expected message); fields: f0, f1, f2, charges, eps
    ("a string in a numeric column", "data.csv", _set_field(2, 1, b"abc"),
     r"data.csv, line 3, column 'f1': 'abc' is not a number"),
    ("a decimal comma", "data.csv", _set_field(4, 0, b'"12,5"'),
     r"data.csv, line 5, column 'f0': '12,5' is not a number \(a decimal comma\? write a point\)"),
    ("bad UTF-8", "data.csv", lambda lines: lines.__setitem__(6, lines[6] + b"\xff"),
     r"data.csv, line 7: not UTF-8 text"),
    ("an extra field", "data.csv", lambda lines: lines.__setitem__(9, lines[9] + b",3"),
     r"data.csv, line 10: 6 fields, but the header has 5"),
    ("an extra field in the first row", "data.csv", lambda lines: lines.__setitem__(1, lines[1] + b",3"),
     r"data.csv, line 2: more fields than the header has"),
    ("a missing field", "data.csv", lambda lines: lines.__setitem__(3, lines[3].rsplit(b",", 1)[0]),
     r"data.csv, line 4, column 'eps': a missing value"),
    ("a blank line", "data.csv", lambda lines: lines.insert(5, b""),
     r"data.csv, line 6, column '(f0|eps)': a missing value"),     # compare reads the levels first
    ("an empty file", "data.csv", lambda lines: lines.clear(), r"data.csv: empty file: no header line"),
    ("a header only", "data.csv", lambda lines: lines.__delitem__(slice(1, None)), r"data.csv: no rows"),
    ("an undeclared column", "data.csv",
     lambda lines: lines.__setitem__(slice(None), [ln + (b",note" if k == 0 else b",x") for k, ln in enumerate(lines)
                                                   if ln]),
     r"data.csv: column 'note' is neither a feature declared in the bounds, the label nor the level"),
    ("a duplicated column", "data.csv", lambda lines: lines.__setitem__(0, lines[0].replace(b"f2", b"f1")),
     r"data.csv: column 'f1' appears twice in the header"),
    ("a level of 1e308", "data.csv", _set_field(8, 4, b"1e308"),
     r"data.csv, line 9, column 'eps': 1e\+308 is outside the allowed range \(0, 100\] \(a level above 100"),
    ("a level of 0", "data.csv", _set_field(8, 4, b"0"), r"data.csv, line 9, column 'eps': 0.0 is outside"),
    ("a negative level", "data.csv", _set_field(8, 4, b"-0.5"), r"line 9, column 'eps': -0.5 is outside the allowed "
                                                                r"range \(0, 100\]$"),
    ("an infinite level", "data.csv", _set_field(8, 4, b"inf"), r"data.csv, line 9, column 'eps': inf is outside"),
    ("a name no reader takes", "data.txt", None, r"data.txt: not a file named .csv, .csv.gz, .tsv, .tsv.gz or "
                                                 r".parquet"),
    ("a corrupt Parquet file", "data.parquet", lambda lines: lines.__setitem__(slice(None), [b"PAR1 not really"]),
     r"data.parquet: not a readable Parquet file"),
]


@pytest.mark.parametrize("command", ["fit", "compare"])
@pytest.mark.parametrize("what, name, edit, message", BAD_FILES, ids=[case[0] for case in BAD_FILES])
def test_every_careless_input_is_refused_in_one_line_with_nothing_written(tmp_path, capsys, command, what, name,
                                                                          edit, message):
    path = _write_table(tmp_path, name, edit=edit)
    out = tmp_path / ("model.json" if command == "fit" else "results")
    args = [command, str(path), "--label", "charges", "--epsilon", "eps", "--bounds", str(_bounds_file(tmp_path)),
            "--out", str(out)] + (["--lam", "1"] if command == "fit" else ["--lams", "1"])
    if what == "a header only" and command == "compare":
        message = r"data.csv: no training rows"
    status = cli.main(args)
    # compare's progress bar ("compare: 0 rows ...") may precede the one line of the error
    err = [line for line in capsys.readouterr().err.strip().splitlines() if not line.startswith("compare: ")]
    assert status == 2 and len(err) == 1, err
    assert re.search(message, err[0]) and err[0].startswith(f"python -m pdp_lib {command}: error: "), err
    assert not out.exists() and not list(tmp_path.glob("*.partial"))


def test_undeclared_columns_left_out_on_purpose_and_other_file_names(tmp_path, capsys):
    for name in ("data.CSV", "data.csv.gz", "data.tsv"):
        folder = tmp_path / name.replace(".", "_")
        folder.mkdir()
        path = _write_table(folder, name)
        status = cli.main(["fit", str(path), "--label", "charges", "--epsilon", "eps", "--lam", "1", "--bounds",
                           str(_bounds_file(tmp_path)), "--seed", "1", "--out", str(folder / "m.json")])
        assert status == 0, capsys.readouterr().err
    capsys.readouterr()
    raw = _table(40).assign(note="free text")
    raw.to_csv(tmp_path / "notes.csv", index=False)
    base = ["fit", str(tmp_path / "notes.csv"), "--label", "charges", "--epsilon", "eps", "--lam", "1", "--bounds",
            str(_bounds_file(tmp_path)), "--seed", "1", "--out", str(tmp_path / "n.json")]
    assert cli.main(base) == 2 and "--ignore note" in capsys.readouterr().err
    assert cli.main(base + ["--ignore", "note"]) == 0
    same = json.loads((tmp_path / "n.json").read_text())
    assert same["coef"] == json.loads((tmp_path / "data_CSV" / "m.json").read_text())["coef"]


def test_levels_too_small_to_draw_the_noise_are_refused(tmp_path, capsys):
    raw = _table(5)
    raw["eps"] = 1e-308
    raw.to_csv(tmp_path / "tiny.csv", index=False)
    out = tmp_path / "m.json"
    status = cli.main(["fit", str(tmp_path / "tiny.csv"), "--label", "charges", "--epsilon", "eps", "--lam", "1",
                       "--bounds", str(_bounds_file(tmp_path)), "--out", str(out)])
    assert status == 2 and "far too little for any use" in capsys.readouterr().err and not out.exists()


def test_the_level_sum_and_eta_are_exact_whatever_the_chunks(tmp_path):
    from fractions import Fraction

    raw = _table(997, seed=4)
    raw["eps"] = np.random.default_rng(1).uniform(0.01, 1.0, 997)      # every level distinct
    raw.to_csv(tmp_path / "d.csv", index=False)
    raw.iloc[::-1].to_csv(tmp_path / "reversed.csv", index=False)
    bounds = public_bounds.read_bounds(_bounds_file(tmp_path))
    exact = float(sum(Fraction(v) for v in raw["eps"]))                    # correctly rounded, independently
    totals = set()
    for name, chunk in (("d.csv", 1), ("d.csv", 7), ("d.csv", 333), ("reversed.csv", 100)):
        sums = streaming.accumulate(tmp_path / name, bounds, "charges", "eps", chunk_rows=chunk)
        totals.add((sums.total, fit_sums(sums, 1.0, rng=0).fields["eta"], sums.level_summary()["digest"]))
    assert len(totals) == 1 and totals.pop()[0] == exact
    assert streaming.exact_units([0.1, 0.2]) / 2**1126 == float(Fraction(0.1) + Fraction(0.2))
    assert streaming.exact_units([5e-324, 100.0]) == (1 << 52) + (100 << 1126)    # the smallest subnormal


def _splitmix_digest(values):
    """The level digest written out independently: SplitMix64's finalizer on each double's bits, two keys."""
    import struct

    mask = (1 << 64) - 1

    def mix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    lanes = []
    for key in (0x243F6A8885A308D3, 0x13198A2E03707344):
        lanes.append(sum(mix(struct.unpack("<Q", struct.pack("<d", v))[0] ^ key) for v in values) & mask)
    return f"{lanes[0]:016x}{lanes[1]:016x}"


def test_the_level_digest_is_its_definition():
    rng = np.random.default_rng(9)
    for values in ([0.1], [0.1, 0.5, 0.5], list(rng.uniform(0.01, 100, 1000))):
        assert streaming.level_digest(values) == _splitmix_digest(values)
    assert streaming.level_digest([0.1, 0.5]) != streaming.level_digest([0.2, 0.4])    # same count and sum


def test_the_label_scaling_never_overflows_and_huge_toml_numbers_are_refused(tmp_path):
    path = tmp_path / "bounds.toml"
    path.write_text("[label]\nlower = -7e307\nupper = 1e308\n[features.f0]\nlower = 0\nupper = 1\n")
    bounds = public_bounds.read_bounds(path)
    frame = pd.DataFrame({"f0": [0.5], "y": [9e307], "eps": [1.0]})
    _, y, _, _ = tables.check_chunk(frame, tmp_path / "d.csv", 1, bounds, "y", "eps", False)
    assert y[0] == pytest.approx((9e307 + 7e307) / 1.7e308 * 2 - 1, rel=1e-12)      # 0.882, not clipped to 1
    path.write_text("[label]\nlower = -1\nupper = 1\n[features.f0]\nlower = 0\nupper = " + "9" * 400 + "\n")
    with pytest.raises(ValueError, match=r"features.f0.upper = 9{20}.* is outside the allowed range: a finite number"):
        public_bounds.read_bounds(path)


def test_compare_refuses_losses_that_overflow(tmp_path, capsys):
    raw = _table(200)
    raw["eps"] = 1e-300
    raw.to_csv(tmp_path / "tiny.csv", index=False)
    out = tmp_path / "results"
    assert cli.main(["compare", str(tmp_path / "tiny.csv"), "--label", "charges", "--epsilon", "eps", "--bounds",
                     str(_bounds_file(tmp_path)), "--lams", "1", "--masks", "2", "--out", str(out)]) == 2
    assert "overflows" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("command", ["fit", "compare"])
def test_compressed_files_columns_named_twice_and_ignore_are_refused_in_one_line(tmp_path, capsys, command):
    import gzip

    _write_table(tmp_path, "whole.csv.gz")
    data = (tmp_path / "whole.csv.gz").read_bytes()
    (tmp_path / "cut.csv.gz").write_bytes(data[: len(data) // 2])                  # truncated
    base = ["--bounds", str(_bounds_file(tmp_path))] + (["--lam", "1"] if command == "fit" else ["--lams", "1"])
    cases = [
        ([str(tmp_path / "cut.csv.gz"), "--label", "charges", "--epsilon", "eps"],
         r"cut.csv.gz: a damaged or truncated compressed file"),
        ([str(tmp_path / "whole.csv.gz"), "--label", "eps", "--epsilon", "eps"],
         r"the label 'eps' and the privacy column 'eps' must differ"),
        ([str(tmp_path / "whole.csv.gz"), "--label", "charges", "--epsilon", "eps", "--ignore", "f1"],
         r"--ignore f1 names a column the command reads"),
    ]
    for args, message in cases:
        out = tmp_path / ("m.json" if command == "fit" else "res")
        status = cli.main([command, *args, *base, "--out", str(out)])
        err = [line for line in capsys.readouterr().err.splitlines() if line.strip() and not line.startswith("compare: ")]
        assert status == 2 and len(err) == 1 and re.search(message, err[0]), err
        assert not out.exists()
    assert gzip.decompress(data)                                                 # the whole file is fine


def test_a_byte_order_mark_is_no_part_of_a_name_and_dates_are_not_numbers(tmp_path, capsys):
    raw = _table(40)
    raw.to_csv(tmp_path / "excel.csv", index=False, encoding="utf-8-sig")
    args = ["--label", "charges", "--epsilon", "eps", "--lam", "1", "--bounds", str(_bounds_file(tmp_path)),
            "--seed", "2"]
    assert cli.main(["fit", str(tmp_path / "excel.csv"), *args, "--out", str(tmp_path / "a.json")]) == 0
    dated = raw.assign(f0=pd.Timestamp("2026-01-01") + pd.to_timedelta(raw["f0"], unit="D"))
    dated.to_parquet(tmp_path / "dated.parquet", index=False)
    assert cli.main(["fit", str(tmp_path / "dated.parquet"), *args, "--out", str(tmp_path / "b.json")]) == 2
    assert "column 'f0' has the type datetime64" in capsys.readouterr().err


def test_predict_refuses_what_is_not_a_model_and_maps_back_to_the_label(tmp_path, capsys):
    raw = _table(300)
    raw.to_csv(tmp_path / "d.csv", index=False)
    model = tmp_path / "m.json"
    assert cli.main(["fit", str(tmp_path / "d.csv"), "--label", "charges", "--epsilon", "eps", "--lam", "0.5",
                     "--bounds", str(_bounds_file(tmp_path)), "--intercept", "--seed", "4", "--out", str(model)]) == 0
    out = tmp_path / "p.csv"
    assert cli.main(["predict", str(model), str(tmp_path / "d.csv"), "--out", str(out)]) == 0
    record = json.loads(model.read_text())
    X, _, _ = _in_domain(raw)
    by_hand = -5 + 10 * (X @ np.array(record["coef"]) + record["intercept"] + 1) / 2      # label bounds [-5, 5]
    np.testing.assert_allclose(pd.read_csv(out)["prediction"], by_hand, rtol=1e-12)
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**record, "privacy": {"bounds": {}}}))
    capsys.readouterr()
    assert cli.main(["predict", str(broken), str(tmp_path / "d.csv"), "--out", str(tmp_path / "q.csv")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a model file" in err[0] and not (tmp_path / "q.csv").exists()


@pytest.mark.parametrize("mechanism, lam, sampler", [("ssp", "0.7", "exact"), ("ssp", "auto", "float"),
                                                     ("ssp", "public", "exact"), ("gd", "0.7", "exact"),
                                                     ("gd", "0.7", "float")])
def test_fit_under_delta_is_the_in_memory_mechanism(tmp_path, capsys, mechanism, lam, sampler):
    from pdp_lib.mechanisms import adassp, noisy_gd

    raw = _table(n=600)
    raw.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "model.json"
    args = ["fit", str(tmp_path / "data.csv"), "--label", "charges", "--epsilon", "eps", "--lam", lam,
            "--bounds", str(_bounds_file(tmp_path)), "--seed", "5", "--mechanism", mechanism, "--delta", "1e-5",
            "--sampler", sampler, "--chunk-rows", "250", "--out", str(out)]
    assert cli.main(args) == 0 and "(epsilon_i, delta = 1e-05)-DP" in capsys.readouterr().out
    model = json.loads(out.read_text())
    X, y, eps = _in_domain(raw)
    if mechanism == "gd":
        expected = noisy_gd.noisy_gd(X, y, eps, 0.7, 1e-5, 5, sampler=sampler)
    elif lam == "auto":
        expected = adassp.adassp(X, y, eps, 1e-5, 5, sampler=sampler)
    elif lam == "public":
        release = adassp.adassp_release(X, y, eps, 1e-5, 5, shares=(0.5, 0.5, 0.0), sampler=sampler)
        ridge = float(adassp.ridge_rule(0.0, release.calibration.sigma_gram, 0.0, 3, 1e-5))
        expected = adassp.solve_release(release.gram, release.moment, ridge, "clip")
        assert model["lam"] == pytest.approx(ridge, rel=1e-12)
    else:
        expected = adassp.gaussian_ssp(X, y, eps, 0.7, 1e-5, 5, sampler=sampler)
    np.testing.assert_allclose(model["coef"], expected, rtol=1e-9, atol=1e-12)
    assert model["mechanism"] == mechanism and model["delta"] == 1e-5 and model["B"] is None
    assert model["privacy"]["guarantee"].startswith("every row i gets (epsilon_i, delta)-differential privacy")
    assert model["privacy"]["levels"]["sum"] == pytest.approx(raw["eps"].sum())    # the levels, not mu*
    assert set(model["noise"]) >= ({"sigma", "steps"} if mechanism == "gd" else {"gram", "moment"})


@pytest.mark.parametrize("extra, message", [
    (["--mechanism", "gd"], "--mechanism gd needs --delta"),
    (["--delta", "1e-5"], "--delta applies to --mechanism ssp or gd or mean or auto only"),
    (["--mechanism", "ssp", "--steps", "5", "--delta", "1e-5"], "--steps applies to --mechanism gd only"),
    (["--mechanism", "gd", "--delta", "1e-5", "--bound", "sharp"], "--bound applies to --mechanism output only"),
    (["--mechanism", "ssp", "--delta", "1.5"], "--delta = '1.5' is outside the allowed range"),
])
def test_fit_under_delta_refuses_what_does_not_apply(tmp_path, capsys, extra, message):
    _table(n=50).to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "model.json"
    args = ["fit", str(tmp_path / "data.csv"), "--label", "charges", "--epsilon", "eps", "--lam", "1",
            "--bounds", str(_bounds_file(tmp_path)), "--out", str(out), *extra]
    assert cli.main(args) == 2
    assert message in capsys.readouterr().err and not out.exists()
    args[args.index("--lam") + 1] = "public"
    assert cli.main(args[:-len(extra)] if extra else args) == 2


def test_fit_under_delta_refuses_overflowing_ridges_and_endless_steps(tmp_path, capsys):
    _table(n=50).to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "model.json"
    base = ["fit", str(tmp_path / "data.csv"), "--label", "charges", "--epsilon", "eps", "--delta", "1e-5",
            "--bounds", str(_bounds_file(tmp_path)), "--out", str(out)]
    for extra, message in [(["--mechanism", "gd", "--lam", "5e-324"], "lam gives the ball the radius"),
                           (["--mechanism", "ssp", "--lam", "5e-324", "--seed", "0"], "the model overflowed at lam"),
                           (["--mechanism", "gd", "--lam", "1", "--steps", "1000000000"], "--steps = 1000000000")]:
        assert cli.main(base + extra) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1 and not out.exists()
    assert cli.main(base[:-6] + ["--delta", "0.5", "--bounds", str(_bounds_file(tmp_path)), "--out", str(out),
                                 "--mechanism", "ssp", "--lam", "public"]) == 0
    assert "is not below 1/n" in capsys.readouterr().err
    model = json.loads(out.read_text())
    assert model["ridge"].startswith("the public rule") and "delta field" in model["privacy"]["guarantee"]
    assert "Gaussian noise is exact on the grid" in model["privacy"]["floating_point"]


def test_fit_by_objective_perturbation_is_the_in_memory_mechanism_and_refuses_what_does_not_apply(tmp_path, capsys):
    raw = _table(n=300)
    raw.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "model.json"
    args = ["fit", str(tmp_path / "data.csv"), "--label", "charges", "--epsilon", "eps", "--lam", "0.3",
            "--bounds", str(_bounds_file(tmp_path)), "--seed", "9", "--mechanism", "objective", "--chunk-rows", "70",
            "--out", str(out)]
    for extra, message in [([], "--mechanism objective needs --sampler float"),
                           (["--sampler", "float", "--delta", "1e-5"], "--delta applies to --mechanism ssp or gd or mean or auto only"),
                           (["--sampler", "float", "--bound", "sharp"], "--bound applies to --mechanism output only"),
                           (["--sampler", "float", "--steps", "3"], "--steps applies to --mechanism gd only"),
                           (["--sampler", "float", "--lam", "public"], "--lam public applies to --mechanism ssp")]:
        assert cli.main(args + extra) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1 and not out.exists()
    assert cli.main(args + ["--sampler", "float"]) == 0 and "objective perturbation" in capsys.readouterr().out
    model = json.loads(out.read_text())
    X, y, eps = _in_domain(raw)
    expected = pdp_lib.objective_perturbation(X, y, eps, 0.3, rng=9, sampler="float")
    np.testing.assert_allclose(model["coef"], expected, rtol=1e-9, atol=1e-12)
    assert model["mechanism"] == "objective" and model["B"] == pytest.approx(pdp_lib.bounds.norm_bound(0.3, 3))
    assert model["objective_ridge"] >= 0.3 and model["eta"] > 0
    assert model["privacy"]["theorem"].startswith("Proposition 'Personalized objective perturbation'")
    assert model["privacy"]["guarantee"].startswith("every row i gets epsilon_i-differential privacy (pure")
    assert "perturbed objective minimized in floating point" in model["privacy"]["floating_point"]
    assert model["privacy"]["sampler"].startswith("floating-point l2-Laplace noise b in the objective")


def test_fit_by_objective_perturbation_says_when_the_noise_dominates(tmp_path, capsys):
    raw = _table(n=30)
    raw.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "model.json"
    args = ["fit", str(tmp_path / "data.csv"), "--label", "charges", "--epsilon", "eps", "--bounds",
            str(_bounds_file(tmp_path)), "--seed", "1", "--mechanism", "objective", "--sampler", "float", "--out",
            str(out)]
    assert cli.main(args + ["--lam", "0.1"]) == 0
    assert "warning: the noise dominates" in capsys.readouterr().err
    eps = raw["eps"].to_numpy()
    from pdp_lib.mechanisms.objective import objective_calibration
    cal = objective_calibration(eps.sum(), eps.min(), 0.1, 3, pdp_lib.bounds.norm_bound(0.1, 3))
    assert 3 / (cal.eta * cal.ridge) > pdp_lib.bounds.norm_bound(0.1, 3)      # the warning's condition, by hand
    out.unlink()
    raw = _table(n=3000)
    raw.to_csv(tmp_path / "data.csv", index=False)
    assert cli.main(args + ["--lam", "10"]) == 0
    assert "noise dominates" not in capsys.readouterr().err


def _fit_args(data, out, bounds):
    return ["fit", str(data), "--label", "charges", "--epsilon", "eps", "--lam", "1", "--bounds", str(bounds),
            "--seed", "1", "--out", str(out)]


def test_no_command_writes_over_a_file_it_reads(tmp_path, capsys):
    import os

    raw = _table(200)
    data = tmp_path / "d.csv"
    raw.to_csv(data, index=False)
    bounds = _bounds_file(tmp_path)
    before = {p: p.read_bytes() for p in (data, bounds)}
    os.link(data, tmp_path / "hard.csv")
    os.symlink(data, tmp_path / "soft.csv")
    for out in (data, bounds, tmp_path / "hard.csv", tmp_path / "soft.csv", tmp_path / "." / "d.csv"):
        assert cli.main(_fit_args(data, out, bounds)) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "--out" in err and "a file this command reads" in err
    # predict: over its rows or over its model
    model = tmp_path / "model.json"
    assert cli.main(_fit_args(data, model, bounds)) == 0
    before[model] = model.read_bytes()
    for out in (data, model):
        assert cli.main(["predict", str(model), str(data), "--out", str(out)]) == 2
        assert "a file this command reads" in capsys.readouterr().err
    # compare: a folder whose comparison.csv is the data (a folder of parts read as the data)
    folder = tmp_path / "parts"
    folder.mkdir()
    raw.to_csv(folder / "comparison.csv", index=False)
    before[folder / "comparison.csv"] = (folder / "comparison.csv").read_bytes()
    assert cli.main(["compare", str(folder), "--label", "charges", "--epsilon", "eps", "--bounds", str(bounds),
                     "--out", str(folder)]) == 2
    assert "its comparison.csv" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in before} == before        # nothing was written
    assert sorted(q.name for q in folder.iterdir()) == ["comparison.csv"]


def test_fit_from_a_checkout_that_is_not_installed_and_unexpected_errors_in_one_line(tmp_path, capsys, monkeypatch):
    import importlib.metadata
    import tomllib

    raw = _table(200)
    raw.to_csv(tmp_path / "d.csv", index=False)
    bounds = _bounds_file(tmp_path)

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)      # as on PYTHONPATH without pip install
    assert cli.main(_fit_args(tmp_path / "d.csv", tmp_path / "m.json", bounds)) == 0
    model = json.loads((tmp_path / "m.json").read_text())
    assert pdp_lib.__version__ in json.dumps(model)
    with open(__import__("pathlib").Path(pdp_lib.__file__).parent.parent / "pyproject.toml", "rb") as fh:
        assert tomllib.load(fh)["project"]["version"] == pdp_lib.__version__
    capsys.readouterr()

    def broken(*args, **kwargs):
        raise RuntimeError("something\nunexpected")

    monkeypatch.setattr(registry, "fit_sums", broken)
    assert cli.main(_fit_args(tmp_path / "d.csv", tmp_path / "m2.json", bounds)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: RuntimeError: something unexpected" in err
    assert not (tmp_path / "m2.json").exists()


@pytest.mark.parametrize("levels, warned", [([5, 10, 50, 100], True), ([1, 2, 5, 20], True), ([0.5, 100.0], True),
                                            ([1, 1, 1, 1], False), ([0.1, 0.5, 1.0, 3.0], False),
                                            ([1, 2, 3, 4], False), ([2.5, 10, 50], False), ([1, 2, 5], False),
                                            ([1, 10], False)])
def test_levels_that_look_like_percentages_are_warned_about(tmp_path, capsys, levels, warned):
    raw = _table(200)
    raw["eps"] = np.resize(np.array(levels, dtype=float), len(raw))
    raw.to_csv(tmp_path / "d.csv", index=False)
    bounds = _bounds_file(tmp_path)
    assert cli.main(_fit_args(tmp_path / "d.csv", tmp_path / "m.json", bounds)) == 0
    err = capsys.readouterr().err
    assert ("look like percentages" in err and "divide the column by 100" in err) == warned
    if warned:        # the flag takes them as they are, without the warning
        assert cli.main(_fit_args(tmp_path / "d.csv", tmp_path / "m2.json", bounds) + ["--levels-as-given"]) == 0
        assert "percentages" not in capsys.readouterr().err


def test_messages_name_the_flag_and_the_cause(tmp_path, capsys):
    raw = _table(50)
    raw.to_csv(tmp_path / "d.csv", index=False)
    bounds = _bounds_file(tmp_path)
    cases = [
        (_fit_args(tmp_path / "d.csv", tmp_path / "m.json", tmp_path / "absent.toml"),
         "--bounds '" + str(tmp_path / "absent.toml") + "' does not exist"),
        (_fit_args(tmp_path / "d.csv", tmp_path / "m.json", tmp_path), "is a folder, not a TOML file"),
        (_fit_args(tmp_path / "absent.csv", tmp_path / "m.json", bounds), "does not exist"),
        (_fit_args(tmp_path / "d.csv", tmp_path, bounds), "is a folder; give the name of a file"),
    ]
    text = raw.copy().astype(object)
    text.loc[3, "f0"] = "1,234.50"
    text.to_csv(tmp_path / "thousands.csv", index=False)
    cases.append((_fit_args(tmp_path / "thousands.csv", tmp_path / "m.json", bounds),
                  "'1,234.50' is not a number (a thousands separator? write the number without it)"))
    text.loc[3, "f0"] = "0,500"                     # a decimal comma, not a thousands separator
    text.to_csv(tmp_path / "comma.csv", index=False)
    cases.append((_fit_args(tmp_path / "comma.csv", tmp_path / "m.json", bounds), "(a decimal comma? write a point)"))
    for sep, name in ((";", "semi"), ("|", "pipe"), ("\t", "tab")):
        raw.to_csv(tmp_path / f"{name}.csv", index=False, sep=sep)
        cases.append((_fit_args(tmp_path / f"{name}.csv", tmp_path / "m.json", bounds),
                      f"the header looks separated by {sep!r}, not commas"))
    text = raw.copy().astype(object)
    text.loc[4, "charges"] = "n/a"
    text.to_csv(tmp_path / "na.csv", index=False)
    cases.append((_fit_args(tmp_path / "na.csv", tmp_path / "m.json", bounds),
                  "line 6, column 'charges': a missing value (an empty field, or a marker such as NA, n/a or NaN)"))
    cases.append((_fit_args(tmp_path / "d.csv", tmp_path / "m.json", bounds) + ["--mechanism", "ssp", "--delta",
                                                                             "1e-300"],
                  "column 'eps': the level"))
    cases += [(["predict", str(tmp_path / "absent.json"), str(tmp_path / "d.csv"), "--out", str(tmp_path / "p.csv")],
               "MODEL '" + str(tmp_path / "absent.json") + "' does not exist"),
              (["predict", str(tmp_path), str(tmp_path / "d.csv"), "--out", str(tmp_path / "p.csv")],
               "is a folder, not a model file")]
    for argv, needle in cases:
        assert cli.main(argv) == 2, needle
        err = capsys.readouterr().err
        assert needle in err and err.count("\n") == 1, (needle, err)
        assert not (tmp_path / "m.json").exists()


def test_predict_checks_rows_against_the_models_bounds(tmp_path, capsys):
    raw = _table(200)
    raw.to_csv(tmp_path / "d.csv", index=False)
    bounds = _bounds_file(tmp_path)
    assert cli.main(_fit_args(tmp_path / "d.csv", tmp_path / "m.json", bounds)) == 0
    rows = raw.head(5).copy()
    rows.loc[2, "f1"] = 200.0                                     # ten times the upper bound 20
    rows.to_csv(tmp_path / "rows.csv", index=False)
    out = tmp_path / "p.csv"
    assert cli.main(["predict", str(tmp_path / "m.json"), str(tmp_path / "rows.csv"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "rows.csv, line 4, column 'f1': 200.0 is outside the allowed range [10.0, 20.0]" in err
    assert "--clip" in err and not out.exists()
    assert cli.main(["predict", str(tmp_path / "m.json"), str(tmp_path / "rows.csv"), "--out", str(out),
                     "--clip"]) == 0
    clipped = pd.read_csv(out)["prediction"].to_numpy()
    rows.loc[2, "f1"] = 20.0
    rows.to_csv(tmp_path / "at_bound.csv", index=False)
    assert cli.main(["predict", str(tmp_path / "m.json"), str(tmp_path / "at_bound.csv"), "--out",
                     str(tmp_path / "q.csv")]) == 0
    np.testing.assert_array_equal(clipped, pd.read_csv(tmp_path / "q.csv")["prediction"].to_numpy())
    # predictions clamped to the label's bounds [-5, 5]: a model far outside them
    model = json.loads((tmp_path / "m.json").read_text())
    model["coef"] = [50.0] * len(model["coef"])
    (tmp_path / "big.json").write_text(json.dumps(model))
    assert cli.main(["predict", str(tmp_path / "big.json"), str(tmp_path / "at_bound.csv"), "--out",
                     str(tmp_path / "r.csv"), "--clip-predictions"]) == 0
    predicted = pd.read_csv(tmp_path / "r.csv")["prediction"].to_numpy()
    assert np.all(predicted <= 5.0) and np.any(predicted == 5.0)
