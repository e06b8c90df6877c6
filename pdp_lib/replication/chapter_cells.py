"""Run another chapter's code cells again, by cell id, so that a page can continue where another left off.

A chapter split over several pages of the book (*Beyond output perturbation*: its sufficient statistics, then
gradient descent and objective perturbation, then every mechanism compared) keeps each computation in one place:
a later page runs the earlier page's cells it builds on again, in the order they appear there and with their own
seeds, instead of a copy of them. So every number a later page reads is the number the earlier page computes and
shows, bit for bit, and the earlier page stays the one source of its code.
"""

import json
from pathlib import Path


def chapter_code(chapter, ids) -> list:
    """The source of the code cells ``ids`` of ``chapter``, in the order given.

    Parameters
    ----------
    chapter : str or pathlib.Path
        The chapter's notebook (``.ipynb``), relative to the working directory (the chapter's folder when a
        chapter runs).
    ids : sequence of str
        Cell ids (nbformat 4.5) of code cells of ``chapter``.

    Returns
    -------
    list of (str, str)
        ``(id, source)`` for each cell.

    Raises
    ------
    FileNotFoundError
        If ``chapter`` does not exist.
    ValueError
        If an id is not the id of a code cell of ``chapter``, or is given twice.
    """
    path = Path(chapter)
    if not path.is_file():
        raise FileNotFoundError(f"chapter = {str(chapter)!r}: no such notebook (run from the book's folder)")
    cells = {c.get("id"): c for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
             if c["cell_type"] == "code"}
    ids = list(ids)
    if len(set(ids)) != len(ids):
        raise ValueError(f"ids = {ids}: an id is given twice")
    missing = [i for i in ids if i not in cells]
    if missing:
        raise ValueError(f"ids = {missing}: not the id of a code cell of {path.name}")
    return [(i, "".join(cells[i]["source"])) for i in ids]


def run_cells(chapter, ids, namespace: dict, glue=()) -> None:
    """Run the code cells ``ids`` of ``chapter`` in ``namespace``, showing nothing of them.

    What the cells print or display (tables, glued values, figures) is captured and dropped, except the glued
    values named in ``glue``, which are glued again here, with the cells' own text, for this page's prose.
    Figures the cells open are closed.

    Parameters
    ----------
    chapter : str or pathlib.Path
        The chapter's notebook, relative to the working directory (the book's folder when a chapter runs).
    ids : sequence of str
        Ids of code cells of ``chapter``, in the order that chapter runs them (its seeds are spent in that
        order, so the cells draw exactly what they draw there).
    namespace : dict
        Where the cells run: a page's ``globals()``.
    glue : sequence of str, optional
        Keys the cells glue that this page's text quotes.

    Raises
    ------
    FileNotFoundError, ValueError
        As :func:`chapter_code`; ``ValueError`` also if a key of ``glue`` is not glued by the cells.
    """
    from IPython.display import display
    from IPython.utils.capture import capture_output
    import matplotlib.pyplot as plt

    code = chapter_code(chapter, ids)
    before = set(plt.get_fignums())
    with capture_output() as captured:
        for cell_id, source in code:
            exec(compile(source, f"{Path(chapter).name}#{cell_id}", "exec"), namespace)
    for number in set(plt.get_fignums()) - before:
        plt.close(number)
    glued = {}
    for output in captured.outputs:
        name = (output.metadata or {}).get("scrapbook", {}).get("name")
        if name is not None:
            glued[name] = output
    missing = [k for k in glue if k not in glued]
    if missing:
        raise ValueError(f"glue = {missing}: not glued by cells {list(ids)} of {Path(chapter).name}")
    for key in glue:
        display(glued[key].data, raw=True, metadata=glued[key].metadata)


def spawned(root: int, *key: int):
    """The seed a chapter's seed tree holds at ``key``, however many children were spawned before.

    ``numpy.random.SeedSequence(root).spawn(n)[i]`` has the spawn key ``(i,)``, and its ``k``-th call of
    ``.spawn(1)[0]`` (from 0) the key ``(i, k)``: a page that runs only some of another page's cells names the
    child it continues with, where a call of ``spawn`` would count only the calls it ran.

    Parameters
    ----------
    root : int
        The chapter's root seed.
    *key : int
        The child's spawn key, each entry at least 0.

    Returns
    -------
    numpy.random.SeedSequence
    """
    import numpy as np

    if any(not isinstance(k, int) or k < 0 for k in key):
        raise ValueError(f"key = {key}: every entry must be an int >= 0")
    return np.random.SeedSequence(root, spawn_key=tuple(key))
