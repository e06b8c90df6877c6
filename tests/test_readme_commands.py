"""The README's commands for a user's own table run as written, on the example that ships with the library."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pandas as pd

from pdp_lib import cli

ROOT = Path(__file__).resolve().parent.parent


def _commands() -> list:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```console\n(.*?)```", text, flags=re.S)
    lines = [line for block in blocks for line in block.splitlines()
             if line.startswith(".venv/bin/python -m pdp_lib ") and " pdp_lib/data/examples/" in line]
    return [shlex.split(line)[3:] for line in lines]


def test_the_readme_commands_run_as_written(tmp_path, monkeypatch, capsys):
    commands = _commands()
    assert [c[0] for c in commands] == ["fit", "compare", "predict"]
    (tmp_path / "pdp_lib").mkdir()
    (tmp_path / "pdp_lib" / "data").symlink_to(ROOT / "pdp_lib" / "data")    # the paths as from the root
    monkeypatch.chdir(tmp_path)
    for argv in commands:
        assert cli.main(argv) == 0, (argv, capsys.readouterr().err)
    model = json.loads((tmp_path / "model.json").read_text())
    assert model["lam"] == 1.0 and len(model["coef"]) == 12     # 11 features and the table's intercept column
    assert (tmp_path / "results" / "comparison.csv").exists()
    predictions = pd.read_csv(tmp_path / "predictions.csv")
    assert list(predictions.columns) == ["prediction"] and len(predictions) == 20
