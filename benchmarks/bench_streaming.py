"""Time and peak memory of ``python -m pdp_lib fit`` on partitioned Parquet of n rows (d = 12), run by hand.

    .venv/bin/python benchmarks/bench_streaming.py --rows 1000000 10000000

Each size is written to a temporary folder in parts of 10^6 rows (features in [0, 1], labels in
[-1, 1], levels from the paper's three groups), then fitted in a fresh interpreter; the peak
resident memory of that process is read from ``getrusage``.  Nothing depends on wall time.
"""

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

PART = 1_000_000
D = 12


def write_parts(folder: Path, rows: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    theta = rng.uniform(-1, 1, D) / D
    for k, start in enumerate(range(0, rows, PART)):
        m = min(PART, rows - start)
        X = rng.uniform(0, 1, (m, D))
        columns = {f"x{j}": X[:, j] for j in range(D)}
        columns["y"] = np.clip(X @ theta + rng.normal(0, 0.1, m), -1, 1)
        columns["eps"] = rng.choice([0.01, 0.2, 1.0], m, p=[0.34, 0.43, 0.23])
        pq.write_table(pa.table(columns), folder / f"part-{k:04d}.parquet")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    args = parser.parse_args()
    print("| rows | write (s) | fit (s) | peak memory of fit (MB) |")
    print("|---|---|---|---|")
    for rows in args.rows:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            t0 = time.perf_counter()
            write_parts(folder, rows)
            written = time.perf_counter() - t0
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pdp_lib", "fit", str(folder), "--label", "y", "--epsilon", "eps",
                            "--lam", "1", "--out", str(folder / "model.json")], check=True, capture_output=True)
            fitted = time.perf_counter() - t0
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            print(f"| {rows:,} | {written:.1f} | {fitted:.1f} | {max(peak, before) / 1024:.0f} |", flush=True)


if __name__ == "__main__":
    main()
