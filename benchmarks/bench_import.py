"""How long ``import pdp_lib`` and the command line's start take (fresh interpreters).

Usage: ``.venv/bin/python benchmarks/bench_import.py [--repeat 7]``.  Each measurement runs in a
new interpreter, so nothing is cached in ``sys.modules``; the median of ``--repeat`` runs is
printed.  The library imports its modules on first use (PEP 562), so ``import pdp_lib`` loads
neither NumPy's heavier friends nor SciPy, pandas or scikit-learn; ``tests/test_imports.py``
checks that without timing anything.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

CASES = {
    "import pdp_lib": [sys.executable, "-c", "import pdp_lib"],
    "import pdp_lib; pdp_lib.pdp_op": [sys.executable, "-c", "import pdp_lib; pdp_lib.pdp_op"],
    "python -m pdp_lib reproduce --help": [sys.executable, "-m", "pdp_lib", "reproduce", "--help"],
    "python -c pass (interpreter start)": [sys.executable, "-c", "pass"],
}


def measure(command, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    print("| command | median wall time (s) |")
    print("|---|---|")
    for name, command in CASES.items():
        print(f"| `{name}` | {measure(command, args.repeat):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
