"""Execute chapters in place with the current environment and store their outputs.

Usage: ``python tools/execute_notebooks.py book/mechanism.ipynb [...]`` (``make notebooks``).
nbval compares a fresh run against the outputs stored here, so commit them with the
code change that moved them.
"""

import sys
import time
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


def main(argv):
    if not argv:
        print("usage: execute_notebooks.py NOTEBOOK [...]", file=sys.stderr)
        return 2
    for name in argv:
        seconds = execute(Path(name))
        print(f"{name}: executed in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
