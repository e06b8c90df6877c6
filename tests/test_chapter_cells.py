"""Tests of pdp_lib.replication.chapter_cells: another chapter's cells run again, and the seed tree's children."""

import json

import matplotlib
import numpy as np
import pytest

from pdp_lib.replication.chapter_cells import chapter_code, run_cells, spawned

matplotlib.use("Agg")


def _chapter(tmp_path, cells):
    nb = {"cells": [{"cell_type": kind, "id": cid, "metadata": {}, "source": src, **(
        {"outputs": [], "execution_count": None} if kind == "code" else {})} for kind, cid, src in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "earlier.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


CELLS = [("markdown", "m1", "# text"),
         ("code", "c1", "x = 2\nprint('shown there')"),
         ("code", "c2", "y = x * 3\nimport matplotlib.pyplot as plt\nplt.figure()"),
         ("code", "c3", "from pdp_lib.replication.rendering import glue_facts\n"
                        "glue_facts(kept=str(y), dropped='no')")]


def test_the_cells_run_in_the_order_given_in_the_namespace_showing_nothing(tmp_path, capsys):
    import matplotlib.pyplot as plt

    path, ns = _chapter(tmp_path, CELLS), {}
    plt.close("all")
    run_cells(path, ["c1", "c2"], ns)
    assert ns["x"] == 2 and ns["y"] == 6
    assert capsys.readouterr().out == ""            # the print was captured and dropped
    assert plt.get_fignums() == []                   # the figure the cell opened is closed


def test_only_the_named_glue_is_shown_again(tmp_path):
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    InteractiveShell.instance()                      # displays are published as in a kernel
    path = _chapter(tmp_path, CELLS)
    with capture_output() as page:
        run_cells(path, ["c1", "c2", "c3"], {}, glue=["kept"])
    assert [o.metadata["scrapbook"]["name"] for o in page.outputs] == ["kept"]
    assert "'6'" in page.outputs[0].data["application/papermill.record/text/plain"]
    with pytest.raises(ValueError, match=r"glue = \['absent'\]"):
        run_cells(path, ["c1", "c2", "c3"], {}, glue=["absent"])


def test_bad_ids_and_paths_are_refused_before_anything_runs(tmp_path):
    path, ns = _chapter(tmp_path, CELLS), {}
    with pytest.raises(ValueError, match=r"ids = \['m1'\]: not the id of a code cell"):
        run_cells(path, ["c1", "m1"], ns)
    with pytest.raises(ValueError, match="given twice"):
        run_cells(path, ["c1", "c1"], ns)
    assert ns == {}                                  # c1 did not run
    with pytest.raises(FileNotFoundError, match="no such notebook"):
        chapter_code(tmp_path / "missing.ipynb", ["c1"])
    assert chapter_code(path, ["c2", "c1"])[0] == ("c2", CELLS[2][2])


def test_spawned_is_the_child_a_stateful_spawn_gives():
    seeds = np.random.SeedSequence(20261127).spawn(6)
    children = [seeds[4].spawn(1)[0] for _ in range(5)]
    for k, child in enumerate(children):
        assert np.array_equal(child.generate_state(8), spawned(20261127, 4, k).generate_state(8))
    assert np.array_equal(seeds[2].generate_state(4), spawned(20261127, 2).generate_state(4))
    with pytest.raises(ValueError, match=r"key = \(4, -1\)"):
        spawned(20261127, 4, -1)


def test_the_pages_after_beyond_run_cells_that_exist_there():
    # every id a later page of Beyond runs again is a code cell of the page it names
    from pathlib import Path
    import ast

    book = Path(__file__).resolve().parents[1] / "book"
    calls = 0
    for page in ("beyond_iterative.ipynb", "beyond_compared.ipynb"):
        first = next(c for c in json.loads((book / page).read_text())["cells"] if c["cell_type"] == "code")
        tree = ast.parse("".join(first["source"]))
        lists = {t.id: ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                 for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "run_cells":
                chapter, ids = node.args[0].value, lists[node.args[1].id]
                assert len(chapter_code(book / chapter, ids)) == len(ids)
                calls += 1
    assert calls == 3
