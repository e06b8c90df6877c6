"""A moved module warns from the reader's own line, where Python's default filters show it; removed aliases are gone."""

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

OLD, NEW = "pdp_lib.experiments.specs", "pdp_lib.experiments.targets"
REMOVED = ("report", "paper", "reference", "readings", "fidelity", "mechanism", "baselines", "threshold",
           "gaussian", "streaming", "comparison", "dask_fit")


def _stderr(*args: str, **variables: str) -> str:
    """The standard error of ``python *args`` under the interpreter's default warning filters.

    No ``-W`` option and no ``PYTHONWARNINGS``: a ``DeprecationWarning`` then shows only when it
    is attributed to ``__main__`` (``-c`` runs there, and so does a script).
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"} | variables
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def test_import_statement_warns_from_the_importing_line():
    err = _stderr("-c", f"\nimport {OLD}")
    assert f"<string>:2: DeprecationWarning: {OLD} is deprecated: import {NEW} instead" in err


def test_the_moved_names_still_work():
    code = f"import warnings\nwarnings.simplefilter('error')\nimport {OLD}"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "DeprecationWarning" in proc.stderr      # it is a warning
    with pytest.warns(DeprecationWarning, match=f"{OLD} is deprecated"):
        import pdp_lib.experiments.specs as specs
        importlib.reload(specs)
    assert specs.get_target("table-1").name == "table-1"


def test_a_reader_folder_named_like_importlib_still_gets_the_warning(tmp_path):
    script = tmp_path / "my_importlib_notes" / "script.py"
    script.parent.mkdir()
    script.write_text(f"import {OLD}\n", encoding="utf-8")
    err = _stderr(str(script), PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    assert f"{script}:1: DeprecationWarning: {OLD} is deprecated" in err


@pytest.mark.parametrize("name", REMOVED)
def test_removed_aliases_and_old_paths_are_gone(name):
    import pdp_lib

    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"pdp_lib.{name}")
    with pytest.raises(AttributeError):
        getattr(pdp_lib, name)
