"""Time a chapter's slowest cells: each target cell after every code cell before it has run once.

Usage::

    .venv/bin/python benchmarks/bench_cells.py book/beyond.ipynb 48b107f6 [more ids] [--repeat 3]

The cells before a target run once, in order, with their outputs dropped
(:func:`pdp_lib.replication.chapter_cells.run_cells`), in an IPython shell as in a kernel (so that a cell that runs
another page's cells and reads their glued values works); then the target runs ``--repeat`` times in a copy of that
namespace and the median wall time is printed. Run it with one BLAS thread (``OPENBLAS_NUM_THREADS=1``, as
``make test``'s workers), on an otherwise idle machine. To compare two versions of the library, run it twice with
``PYTHONPATH`` pointing at a checkout of each (a ``git worktree``): the chapter and its cells are the same, only
the code they call changes.
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import sys
import time
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("chapter", type=Path, help="the chapter's notebook, e.g. book/beyond.ipynb")
    ap.add_argument("ids", nargs="+", help="ids of the code cells to time, in the chapter's order")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each target (at least 1)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error(f"--repeat = {args.repeat} is outside the allowed range [1, inf)")
    import json

    import matplotlib

    matplotlib.use("Agg")
    from IPython.core.interactiveshell import InteractiveShell

    # a shell, as a kernel has: displays (glued values among them) reach capture_output, so that a cell that runs
    # other cells and reads what they glue (run_cells(..., glue=...)) works here too
    InteractiveShell.instance()
    import pdp_lib
    from pdp_lib.replication.chapter_cells import chapter_code, run_cells

    chapter = args.chapter.resolve()
    order = [c.get("id") for c in json.loads(chapter.read_text(encoding="utf-8"))["cells"]
             if c["cell_type"] == "code"]
    unknown = [i for i in args.ids if i not in order]
    if unknown:
        ap.error(f"ids = {unknown}: not the id of a code cell of {chapter.name}")
    os.chdir(chapter.parent)                      # a chapter runs in its folder
    print(f"pdp_lib from {Path(pdp_lib.__file__).parent}, {chapter.name}")
    namespace, done = {}, 0
    for target in sorted(args.ids, key=order.index):
        at = order.index(target)
        run_cells(chapter.name, order[done:at], namespace)
        done = at
        source = dict(chapter_code(chapter.name, [target]))[target]
        code = compile(source, f"{chapter.name}#{target}", "exec")
        times = []
        for _ in range(args.repeat):
            trial = copy.copy(namespace)
            start = time.perf_counter()
            run_cells_source(code, trial)
            times.append(time.perf_counter() - start)
        print(f"{target}: median {statistics.median(times):.2f} s over {args.repeat} "
              f"({', '.join(f'{t:.2f}' for t in times)})")
    return 0


def run_cells_source(code, namespace) -> None:
    """Run compiled cell ``code`` in ``namespace``, its displays captured and dropped."""
    from IPython.utils.capture import capture_output

    with capture_output():
        exec(code, namespace)


if __name__ == "__main__":
    sys.exit(main())
