"""Tests of the command line ``python -m pdp_lib reproduce ...``."""

import csv
import io
import os
import subprocess
import sys

import pytest

from pdp_lib.cli import main
from pdp_lib.experiments import engine

HEADER = "param,column,value,low,high,paper"


def _run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "pdp_lib", *args], capture_output=True, text=True,
                          timeout=300, env=env)


def _environment(**variables):
    """This process's environment without ``OPENBLAS_THREAD_TIMEOUT`` and ``OPENBLAS_NUM_THREADS`` (make test
    gives its workers one BLAS thread; the command line runs with OpenBLAS's own count), plus ``variables``."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_THREAD_TIMEOUT", "OPENBLAS_NUM_THREADS")}
    return {**env, **variables}


@pytest.mark.parametrize("given, expected", [(None, "16"), ("30", "30")])
def test_entry_point_sets_the_thread_timeout_unless_given(given, expected):
    env = _environment() if given is None else _environment(OPENBLAS_THREAD_TIMEOUT=given)
    code = ("import os, sys, pdp_lib; assert 'numpy' not in sys.modules; import pdp_lib.__main__; "
            "print(os.environ['OPENBLAS_THREAD_TIMEOUT'])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == expected


def test_thread_timeout_leaves_every_number_bit_for_bit():
    # 3,000 runs: the ridge stacks are solved in the engine's threads (engine._SOLVE_MIN_ROWS)
    if engine._SOLVE_THREADS < 2:
        pytest.skip("one core: the engine solves in one thread, and OpenBLAS has no idle thread")
    args = ("reproduce", "table-4", "--runs", "3000", "--format", "csv")
    assert 3000 >= engine._SOLVE_MIN_ROWS
    ours = _run(*args, env=_environment())
    default = _run(*args, env=_environment(OPENBLAS_THREAD_TIMEOUT="28"))  # OpenBLAS's default
    assert ours.returncode == default.returncode == 0, ours.stderr + default.stderr
    assert ours.stdout == default.stdout and ours.stdout.count("\n") > 90


def test_module_entry_point_writes_the_csv_table():
    proc = _run("reproduce", "table-9", "--runs", "20", "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == HEADER
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert len(rows) == 6 * 4
    assert rows[0]["param"] == "0.1" and rows[0]["column"] == "unreg_pdp_op"
    assert rows[0]["low"] == "" and rows[0]["high"] == ""
    assert float(rows[0]["value"]) > 0
    assert "Traceback" not in proc.stderr


def test_same_seed_same_output(capsys):
    assert main(["reproduce", "table-10", "--runs", "10", "--seed", "1"]) == 0
    first = capsys.readouterr().out
    assert main(["reproduce", "table-10", "--runs", "10", "--seed", "1"]) == 0
    assert capsys.readouterr().out == first


def test_replicates_fill_low_and_high(capsys):
    assert main(["reproduce", "table-9", "--runs", "10", "--replicates", "2"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert all(r["low"] != "" and r["high"] != "" for r in rows)
    assert all(float(r["low"]) <= float(r["high"]) for r in rows)


def test_figure_has_no_paper_values(capsys):
    assert main(["reproduce", "figure-7", "--runs", "10"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows and all(r["paper"] == "" for r in rows)
    assert {r["column"] for r in rows} >= {"unreg_jorgensen_max", "reg_jorgensen_mean"}


def test_markdown_and_out_file(tmp_path, capsys):
    out = tmp_path / "t9.md"
    assert main(["reproduce", "table-9", "--runs", "10", "--format", "markdown", "--out", str(out)]) == 0
    assert capsys.readouterr().out == ""
    text = out.read_text()
    assert text.startswith("**table-9**")
    assert "| f_c | unreg_pdp_op |" in text
    assert "(paper 9.02 × 10⁻³)" in text


def test_progress_bar_goes_to_stderr_only(capsys):
    assert main(["reproduce", "table-9", "--runs", "5"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(HEADER)
    assert "config" in captured.err  # the progress bar


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["reproduce", "table-15"], "unknown TARGET 'table-15'"),
        (["reproduce", "figure-0"], "unknown TARGET"),
        (["reproduce", "table-1", "--runs", "0"], "--runs = 0 is outside the allowed range [1, inf)"),
        (["reproduce", "table-1", "--runs", "many"], "--runs"),
        (["reproduce", "table-1", "--replicates", "0"], "--replicates = 0 is outside"),
        (["reproduce", "table-1", "--seed", "-1"], "--seed"),
        (["reproduce", "table-1", "--format", "xml"], "--format"),
        (["reproduce"], "TARGET"),
        (["replay", "table-1"], "invalid choice"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(argv, needle, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]
    assert "Traceback" not in captured.err


def test_bad_arguments_through_the_interpreter():
    proc = _run("reproduce", "table-99", "--runs", "5")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_unwritable_out_exits_2(tmp_path, capsys):
    target = tmp_path / "missing-dir" / "x.csv"
    assert main(["reproduce", "table-9", "--runs", "5", "--out", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0]


def test_help_exits_0(capsys):
    assert main(["reproduce", "--help"]) == 0
    assert "TARGET" in capsys.readouterr().out


def test_bound_option_recalibrates_every_private_mechanism(capsys):
    def rows(*extra):
        assert main(["reproduce", "table-4", "--runs", "20", "--seed", "5", *extra]) == 0
        return {(r["param"], r["column"]): float(r["value"]) for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}

    paper, sharp = rows(), rows("--bound", "sharp")
    assert paper.keys() == sharp.keys()
    for (param, column), value in paper.items():
        if column.endswith("non_private"):
            assert sharp[param, column] == value                  # no noise, no bound
        else:
            assert sharp[param, column] < value                   # B* < B(lambda): less noise
    assert main(["reproduce", "table-4", "--bound", "loose"]) == 2
    assert "--bound" in capsys.readouterr().err


def test_beyond_group_lists_its_targets_and_new_columns(capsys):
    assert main(["reproduce", "beyond", "--runs", "10"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {r["target"] for r in rows} == {f"beyond-{k}" for k in range(1, 8)} | {"tuning-1", "tuning-2"}
    rows = [r for r in rows if r["target"].startswith("beyond")]
    columns = {r["column"] for r in rows}
    for method in ("pdp_op_sharp", "threshold_public", "threshold_oracle", "jorgensen_oracle"):
        assert {f"unreg_{method}", f"reg_{method}"} <= columns
    assert all(r["paper"] == "" for r in rows) and all(float(r["value"]) >= 0 for r in rows)
    assert main(["reproduce", "all", "--runs", "10"]) == 0
    assert not any(r["target"].startswith("beyond") for r in csv.DictReader(io.StringIO(capsys.readouterr().out)))


def test_tuning_targets_are_the_chapters_tables(capsys):
    from pdp_lib.experiments.tuning_costs import DATASETS, FIXED, PRIORS, PUBLIC_RULES, SETTINGS

    assert main(["reproduce", "tuning-1", "--runs", "200", "--replicates", "2", "--seed", "5"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == (len(PRIORS) + len(FIXED) + len(PUBLIC_RULES) + len(SETTINGS) + 1) * len(DATASETS)
    assert {r["column"] for r in rows} == set(DATASETS)
    assert all(float(r["low"]) <= float(r["value"]) <= float(r["high"]) for r in rows)
    assert all(r["paper"] == "" for r in rows)
    # exact rules on the grid never beat the oracle (the constant 0 is not a grid value)
    on_grid = [r for r in rows if not r["param"].startswith(("private", "constant"))]
    assert len(on_grid) == (len(PRIORS) + len(FIXED) + 3) * len(DATASETS)
    assert all(float(r["low"]) >= 1 - 1e-12 for r in on_grid)
    assert main(["reproduce", "tuning-2", "--runs", "200", "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("**tuning-2**") and "| private, α = 1, v = 0.5 |" in text


@pytest.mark.parametrize("extra", [["--runs", "1"], ["--replicate-runs", "5"]])
def test_tuning_targets_refuse_options_they_cannot_honour(extra, capsys):
    assert main(["reproduce", "tuning-1", *extra]) == 2
    assert "tuning targets" in capsys.readouterr().err
