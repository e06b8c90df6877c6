"""Execute chapters in place with the current environment and store their outputs.

Usage: ``python tools/execute_notebooks.py [--jobs N|auto] book/mechanism.ipynb [...]``
(``make notebooks``).  nbval compares a fresh run against the outputs stored here, and
``make book`` and ``make pdf`` render them, so commit them with the code change that moved
them.  ``--jobs`` chapters execute at once, each in its own process and kernel (default 1;
``auto``: one per core).
"""

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def coalesce_streams(nb) -> None:
    """Merge consecutive stream outputs of one name: a kernel may flush a print in two parts,
    which would store the same text in two outputs from one run to the next."""
    for cell in nb.cells:
        merged = []
        for out in cell.get("outputs", []):
            if (merged and out.output_type == "stream" and merged[-1].output_type == "stream"
                    and merged[-1].name == out.name):
                merged[-1].text += out.text
            else:
                merged.append(out)
        if "outputs" in cell:
            cell.outputs = merged


def execute(path: Path) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout=1800,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
    )
    client.execute()
    coalesce_streams(nb)
    nbformat.write(nb, path)
    return time.perf_counter() - start


def _jobs(text: str) -> int:
    if text == "auto":
        return os.cpu_count() or 1
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"--jobs = {value} is outside the allowed range [1, inf) or auto")
    return value


def main(argv):
    parser = argparse.ArgumentParser(description="Execute chapters in place and store their outputs.")
    parser.add_argument("--jobs", type=_jobs, default=1, help="chapters executed at once (an integer or auto)")
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args(argv)
    if args.jobs == 1 or len(args.notebooks) == 1:
        for path in args.notebooks:
            print(f"{path}: executed in {execute(path):.1f} s", flush=True)
        return 0
    failed = []
    with ProcessPoolExecutor(max_workers=min(args.jobs, len(args.notebooks))) as pool:
        futures = {pool.submit(execute, path): path for path in args.notebooks}
        for future in as_completed(futures):
            path = futures[future]
            try:
                print(f"{path}: executed in {future.result():.1f} s", flush=True)
            except Exception as exc:  # noqa: BLE001 - report every chapter, then fail
                print(f"{path}: FAILED: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
                      file=sys.stderr, flush=True)
                failed.append(path)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
