"""PDP-OP on a table of any size (pdp_lib.streaming, python -m pdp_lib fit): the streamed sums against the
in-memory mechanism, every refusal named by file, row and column, and the model file."""

import json

import numpy as np
import pandas as pd
import pytest

import pdp_lib
from pdp_lib import cli, streaming

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
    bounds = streaming.read_bounds(_bounds_file(tmp_path))
    sums = streaming.accumulate(source, bounds, "charges", "eps", chunk_rows=333)
    X, y, eps = _in_domain(raw)
    cal = pdp_lib.calibrate(eps, 1.0, D)
    np.testing.assert_allclose(sums.theta_bar(1.0), pdp_lib.weighted_ridge(X, y, cal.weights, 1.0), rtol=1e-10)
    theta, (theorem, _, eta) = streaming.fit_sums(sums, 1.0, rng=5)
    np.testing.assert_allclose(theta, pdp_lib.pdp_op(X, y, eps, 1.0, rng=5), rtol=1e-10)
    assert eta == pytest.approx(cal.eta, rel=1e-12) and theorem == "3.1" and sums.rows == len(raw)
    assert sums.levels == {0.1: int(np.sum(eps == 0.1)), 0.5: int(np.sum(eps == 0.5)), 1.0: int(np.sum(eps == 1.0))}


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
    assert merged.rows == 500 and merged.levels == whole.levels


@pytest.mark.parametrize("change, message", [
    (lambda t: t.__setitem__((5, "f1"), np.nan), r"row 6, column 'f1': nan is outside the allowed range"),
    (lambda t: t.__setitem__((9, "eps"), 0.0), r"row 10, column 'eps': 0.0 is outside the allowed range \(0, inf\)"),
    (lambda t: t.__setitem__((9, "eps"), np.nan), r"row 10, column 'eps': nan"),
    (lambda t: t.__setitem__((1500, "f2"), 25.0), r"row 1501, column 'f2': 25.0 is outside the allowed range "
                                                  r"\[10.0, 20.0\] declared in .*bounds.toml; pass clip=True"),
    (lambda t: t.__setitem__((3, "charges"), -7.0), r"row 4, column 'charges': -7.0"),
])
def test_bad_rows_are_refused_with_file_row_and_column(tmp_path, change, message):
    raw = _table()
    change(_Setter(raw))
    path = tmp_path / "data.csv"
    raw.to_csv(path, index=False)
    bounds = streaming.read_bounds(_bounds_file(tmp_path))
    with pytest.raises(ValueError, match=r"data.csv, " + message):
        streaming.accumulate(path, bounds, "charges", "eps", chunk_rows=400)


class _Setter:
    def __init__(self, frame):
        self.frame = frame

    def __setitem__(self, key, value):
        row, col = key
        self.frame.loc[row, col] = value


def test_clip_clamps_and_counts(tmp_path):
    raw = _table()
    raw.loc[[3, 8], "f0"] = [25.0, 5.0]
    raw.loc[8, "charges"] = 9.0
    path = tmp_path / "data.csv"
    raw.to_csv(path, index=False)
    bounds = streaming.read_bounds(_bounds_file(tmp_path))
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
    bounds = streaming.read_bounds(bounds_path)
    with pytest.raises(FileNotFoundError, match="no CSV or Parquet file found"):
        streaming.accumulate(tmp_path / "absent.csv", bounds, "charges", "eps")
    _table(10).drop(columns="f1").to_csv(tmp_path / "d.csv", index=False)
    with pytest.raises(ValueError, match=r"d.csv: column 'f1' is missing"):
        streaming.accumulate(tmp_path / "d.csv", bounds, "charges", "eps")
    bad = tmp_path / "bad.toml"
    bad.write_text("[label]\nlower = 1\nupper = 1\n[features.f0]\nlower = 0\nupper = 1\n")
    with pytest.raises(ValueError, match=r"label: lower = 1 must be below upper = 1"):
        streaming.read_bounds(bad)
    bad.write_text("[label]\nlower = 0\nupper = 1\nstep = 2\n[features.f0]\nlower = 0\nupper = 1\n")
    with pytest.raises(ValueError, match=r"exactly the keys lower and upper"):
        streaming.read_bounds(bad)
    with pytest.raises(FileNotFoundError):
        streaming.read_bounds(tmp_path / "none.toml")


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
    assert model["features"] == FEATURES and model["privacy"]["theorem"] == "3.1"
    assert {lv["epsilon"] for lv in model["privacy"]["levels"]} == {0.1, 0.5, 1.0}
    assert "seed" not in json.dumps(model) and set(model) == {"coef", "features", "lam", "B", "eta", "privacy",
                                                              "scaling", "library"}
    status = cli.main(["fit", str(tmp_path / "data.csv"), "--label", "charges", "--epsilon", "eps",
                       "--lam", "2", "--out", str(out)])      # no bounds: the raw values are outside [0, 1]
    assert status == 2 and "row 1, column 'f0'" in capsys.readouterr().err
    assert cli.main(["fit", "x.csv", "--label", "a", "--epsilon", "b", "--lam", "0", "--out", "m"]) == 2
    assert "--lam = 0.0 is outside the allowed range (0, inf)" in capsys.readouterr().err
