"""Time and peak memory of PDP-OP on partitioned Parquet of n rows (d = 12), streaming and on Dask; run by hand.

    .venv/bin/python benchmarks/bench_streaming.py --rows 1000000 10000000

Each size is written to a temporary folder in parts of 10^6 rows (features in [0, 1], labels in
[-1, 1], levels from the paper's three groups).  Streaming: ``python -m pdp_lib fit`` in a fresh
interpreter, whose peak resident memory is read from ``getrusage``.  Dask: the sums on a
``LocalCluster`` of 2 worker processes (one thread each), one task per part, with each worker's
peak resident memory read on the worker.  Nothing depends on wall time.
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


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def dask_fit_time(folder: Path, client):
    import dask.dataframe as dd

    from pdp_lib import dask_fit, streaming

    bounds = streaming.domain_bounds(folder, "y", "eps")
    t0 = time.perf_counter()
    dask_fit.fit_dask(dd.read_parquet(str(folder)), "y", "eps", 1.0, bounds, client=client)
    elapsed = time.perf_counter() - t0
    return elapsed, max(client.run(_peak_mb).values())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    print("| rows | write (s) | streaming fit (s) | its peak memory (MB) | Dask fit (s) | worker peak (MB) |")
    print("|---|---|---|---|---|---|")
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
            on_dask, worker_peak = dask_fit_time(folder, client)
            print(f"| {rows:,} | {written:.1f} | {fitted:.1f} | {max(peak, before) / 1024:.0f} | {on_dask:.1f} "
                  f"| {worker_peak:.0f} |", flush=True)
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
