"""Moved modules warn from the reader's own line, where Python's default filters show it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

MOVED = {
    "pdp_lib.report": "pdp_lib.replication.rendering",
    "pdp_lib.paper": "pdp_lib.experiments.published",
    "pdp_lib.reference": "pdp_lib.replication.authors",
    "pdp_lib.readings": "pdp_lib.replication.readings",
    "pdp_lib.fidelity": "pdp_lib.replication.misses",
    "pdp_lib.experiments.specs": "pdp_lib.experiments.targets",
}


def _stderr(*args: str, **variables: str) -> str:
    """The standard error of ``python *args`` under the interpreter's default warning filters.

    No ``-W`` option and no ``PYTHONWARNINGS``: a ``DeprecationWarning`` then shows only when it
    is attributed to ``__main__`` (``-c`` runs there, and so does a script).
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"} | variables
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


@pytest.mark.parametrize("old, new", MOVED.items())
def test_import_statement_warns_from_the_importing_line(old, new):
    err = _stderr("-c", f"\nimport {old}")
    assert f"<string>:2: DeprecationWarning: {old} is deprecated: import {new} instead" in err


@pytest.mark.parametrize("name", ["report", "paper", "reference", "readings", "fidelity"])
def test_attribute_of_the_package_warns_from_the_reader_line(name):
    # reached through pdp_lib.__getattr__ and importlib.import_module, as a notebook would
    err = _stderr("-c", f"import pdp_lib\nx = 1\npdp_lib.{name}")
    assert f"<string>:3: DeprecationWarning: pdp_lib.{name} is deprecated" in err
    assert "importlib" not in err


def test_the_moved_names_still_work():
    code = "import warnings\nwarnings.simplefilter('error')\nimport pdp_lib.report"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "DeprecationWarning" in proc.stderr      # it is a warning
    with pytest.warns(DeprecationWarning, match="pdp_lib.paper is deprecated"):
        import importlib

        import pdp_lib.paper as paper
        importlib.reload(paper)
    assert paper.published_table(2).shape[0] == 12


def test_a_reader_folder_named_like_importlib_still_gets_the_warning(tmp_path):
    script = tmp_path / "my_importlib_notes" / "script.py"
    script.parent.mkdir()
    script.write_text("import pdp_lib.report\n", encoding="utf-8")
    err = _stderr(str(script), PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    assert f"{script}:1: DeprecationWarning: pdp_lib.report is deprecated" in err
