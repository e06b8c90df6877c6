"""Time and peak memory of PDP-OP on partitioned Parquet of n rows (d = 12), streaming and on Dask; run by hand.

    .venv/bin/python benchmarks/bench_streaming.py --rows 1000000 10000000
    .venv/bin/python benchmarks/bench_streaming.py --rows 10000000 --levels continuous --compare --no-dask
    .venv/bin/python benchmarks/bench_streaming.py --rows 10000000 --mechanism ssp --match --no-dask

Each size is written to a temporary folder in parts of 10^6 rows (features in [0, 1], labels in
[-1, 1], levels from the paper's three groups, or ``--levels continuous``: uniform on [0.01, 1], every
level distinct).  Streaming: ``python -m pdp_lib fit`` (and ``compare`` with ``--compare``) in a fresh
interpreter, whose own peak resident memory it reports from ``getrusage`` when it exits; the model
file's size.  Dask: the sums on a
``LocalCluster`` of 2 worker processes (one thread each), one task per part, with each worker's
peak resident memory read on the worker.  ``--mechanism ssp`` fits by sufficient-statistics perturbation;
``--match`` then loads the same rows in memory (in the order the files are read) and runs the in-memory mechanism
with the same seed, reporting the largest relative difference between the two models.  Nothing depends on wall
time.
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


def write_parts(folder: Path, rows: int, seed: int = 0, levels: str = "groups") -> None:
    rng = np.random.default_rng(seed)
    theta = rng.uniform(-1, 1, D) / D
    for k, start in enumerate(range(0, rows, PART)):
        m = min(PART, rows - start)
        X = rng.uniform(0, 1, (m, D))
        columns = {f"x{j}": X[:, j] for j in range(D)}
        columns["y"] = np.clip(X @ theta + rng.normal(0, 0.1, m), -1, 1)
        columns["eps"] = (rng.choice([0.01, 0.2, 1.0], m, p=[0.34, 0.43, 0.23]) if levels == "groups"
                          else rng.uniform(0.01, 1.0, m))
        pq.write_table(pa.table(columns), folder / f"part-{k:04d}.parquet")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def dask_fit_time(folder: Path, client):
    import dask.dataframe as dd

    from pdp_lib.io import dask_fit, public_bounds

    bounds = public_bounds.domain_bounds(folder, "y", "eps")
    t0 = time.perf_counter()
    dask_fit.fit_dask(dd.read_parquet(str(folder)), "y", "eps", 1.0, bounds, client=client)
    elapsed = time.perf_counter() - t0
    return elapsed, max(client.run(_peak_mb).values())


_MEASURED = ("import resource, runpy, sys\n"
             "sys.argv = ['pdp_lib'] + sys.argv[1:]\n"
             "try:\n    runpy.run_module('pdp_lib', run_name='__main__')\n"
             "finally:\n"
             "    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, file=sys.stderr)\n")


def run_measured(*args) -> tuple:
    """``python -m pdp_lib ARGS`` in a fresh interpreter: (seconds, its own peak resident memory in MB)."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _MEASURED, *args], capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    return elapsed, float(done.stderr.strip().splitlines()[-1])


SEED = 11

_IN_MEMORY = ("import json, resource, sys, time\n"
              "import numpy as np, pandas as pd, pdp_lib\n"
              "from pdp_lib.io import tables\n"
              "folder, model, mechanism = sys.argv[1:4]\n"
              "parts = tables.data_files(folder)\n"
              "frame = pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True)\n"
              "X = frame[[f'x{j}' for j in range(12)]].to_numpy()\n"
              "y, eps = frame['y'].to_numpy(), frame['eps'].to_numpy()\n"
              "del frame\n"
              "t0 = time.perf_counter()\n"
              "run = pdp_lib.ssp if mechanism == 'ssp' else pdp_lib.pdp_op\n"
              f"theta = run(X, y, eps, 1.0, rng={SEED})\n"
              "elapsed = time.perf_counter() - t0\n"
              "coef = np.array(json.load(open(model))['coef'])\n"
              "diff = float(np.max(np.abs(coef - theta) / np.abs(theta)))\n"
              "print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, diff)\n")


def in_memory(folder: Path, model: Path, mechanism: str) -> tuple:
    """The in-memory mechanism on the same rows with the same seed, in a fresh interpreter: its seconds (the
    mechanism alone, after loading), its peak resident memory, and the largest relative difference of the models."""
    done = subprocess.run([sys.executable, "-c", _IN_MEMORY, str(folder), str(model), mechanism],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    elapsed, peak, diff = done.stdout.split()
    return f"{float(elapsed):.1f}", f"{float(peak):.0f}", f"{float(diff):.1e}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--levels", choices=("groups", "continuous"), default="groups")
    parser.add_argument("--compare", action="store_true", help="also time compare")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask cluster")
    parser.add_argument("--mechanism", choices=("output", "ssp"), default="output")
    parser.add_argument("--match", action="store_true",
                        help="compare the streamed model with the in-memory mechanism at the same seed")
    args = parser.parse_args()
    client = cluster = None
    if not args.no_dask:
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    print(f"levels: {args.levels}, mechanism: {args.mechanism}")
    print("| rows | write (s) | fit (s) | fit peak (MB) | model file (KB) | compare (s) | compare peak (MB) "
          "| Dask fit (s) | worker peak (MB) | in memory (s) | in-memory peak (MB) | largest relative difference |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for rows in args.rows:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "data"
            folder.mkdir()
            t0 = time.perf_counter()
            write_parts(folder, rows, levels=args.levels)
            written = time.perf_counter() - t0
            model = Path(tmp) / "model.json"
            fitted, peak = run_measured("fit", str(folder), "--label", "y", "--epsilon", "eps", "--lam", "1",
                                        "--seed", str(SEED), "--mechanism", args.mechanism, "--out", str(model))
            size = model.stat().st_size / 1024
            compared = ("", "")
            if args.compare:
                c, cpeak = run_measured("compare", str(folder), "--label", "y", "--epsilon", "eps",
                                        "--out", str(Path(tmp) / "cmp"))
                compared = (f"{c:.1f}", f"{cpeak:.0f}")
            on_dask = ("", "")
            if client is not None:
                t, wpeak = dask_fit_time(folder, client)
                on_dask = (f"{t:.1f}", f"{wpeak:.0f}")
            matched = in_memory(folder, model, args.mechanism) if args.match else ("", "", "")
            print(f"| {rows:,} | {written:.1f} | {fitted:.1f} | {peak:.0f} | {size:.1f} | {compared[0]} | "
                  f"{compared[1]} | {on_dask[0]} | {on_dask[1]} | {' | '.join(matched)} |", flush=True)
    if client is not None:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
