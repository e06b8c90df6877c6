"""Time and peak memory of the experiment engine as the training set grows (run by hand; not a test).

    .venv/bin/python benchmarks/bench_scale.py                 # n = 10^3 ... 10^6, a few minutes
    .venv/bin/python benchmarks/bench_scale.py --sizes 1000 10000 --runs 1000 --no-readme   # quick look
    .venv/bin/python benchmarks/bench_scale.py --sizes 200000 --methods pdp_op jorgensen_max --no-readme

For each training size ``n`` one call of ``pdp_lib.experiments.evaluate_sweep`` runs in a fresh
interpreter, on synthetic data in the domain: features uniform on ``[0, 1]^d``, labels uniform
on ``[-1, 1]``, a test set of ``n / 4`` points (the paper's 80/20 split) and privacy levels from
the paper's default three-group profile.  Reported: the wall time of the call, the peak
resident set size of that interpreter (``ru_maxrss``: imports, data and call) and the same peak
just before the call (imports and data only), and the engine's blocks of runs
(``engine.block_size``) for both Jorgensen thresholds.  Prints a Markdown table and the
log-log slope of time against ``n``, and writes both into ``benchmarks/README.md`` (section
*Scaling in n*) unless ``--no-readme``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

README = Path(__file__).with_name("README.md")
SECTION = "## Scaling in n (`bench_scale.py`)"
SEED = 0


def _peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


def child(n: int, d: int, runs: int, lams, methods, memory_budget) -> dict:
    """One measurement, in this (fresh) interpreter."""
    from pdp_lib.mechanisms.baselines import jorgensen_keep_probabilities
    from pdp_lib.experiments import engine, evaluate_sweep
    from pdp_lib.profiles import DEFAULT_PROFILE, privacy_profile

    rng = np.random.default_rng(np.random.SeedSequence(SEED))
    n_test = max(1, n // 4)
    X, Xt = rng.random((n, d)), rng.random((n_test, d))
    y, yt = rng.uniform(-1.0, 1.0, n), rng.uniform(-1.0, 1.0, n_test)
    eps = privacy_profile(n, DEFAULT_PROFILE, rng=rng)
    budget = engine.DEFAULT_MEMORY_BUDGET if memory_budget is None else memory_budget
    blocks = {}
    for name, t in (("max", eps.max()), ("mean", eps.mean())):
        if f"jorgensen_{name}" in methods:
            n_random = int((jorgensen_keep_probabilities(eps, t) < 1).sum())
            size = engine.block_size(runs, n_random, d, budget)
            blocks[name] = [size, math.ceil(runs / size)]
    before = _peak_rss_mb()
    start = time.perf_counter()
    res = evaluate_sweep(X, y, Xt, yt, eps, lams, runs=runs, rng=np.random.SeedSequence(SEED, spawn_key=(1,)),
                         methods=tuple(methods), memory_budget=budget)
    seconds = time.perf_counter() - start
    assert all(np.isfinite(v).all() for v in res.mean.values())
    return {"n": n, "n_test": n_test, "seconds": seconds, "peak_mb": _peak_rss_mb(), "before_mb": before,
            "blocks": blocks}


def measure(n: int, args) -> dict:
    """Run :func:`child` for ``n`` in a fresh interpreter and return its report."""
    cmd = [sys.executable, __file__, "--child", str(n), "--d", str(args.d), "--runs", str(args.runs),
           "--lams", *map(str, args.lams), "--methods", *args.methods]
    if args.memory_budget is not None:
        cmd += ["--memory-budget", str(args.memory_budget)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def table(rows, methods) -> str:
    jorg = [m.split("_")[1] for m in methods if m.startswith("jorgensen_")]
    head = "| n | test points | time (s) | peak RSS (MB) | RSS before the call (MB) |"
    rule = "|---:|---:|---:|---:|---:|"
    for name in jorg:
        head += f" runs per block, t = {name} (blocks) |"
        rule += "---:|"
    lines = [head, rule]
    for r in rows:
        line = (f"| {r['n']:,} | {r['n_test']:,} | {r['seconds']:.2f} | {r['peak_mb']:.0f} | "
                f"{r['before_mb']:.0f} |")
        for name in jorg:
            size, count = r["blocks"][name]
            line += f" {size:,} ({count:,}) |"
        lines.append(line)
    return "\n".join(lines)


def slope(rows) -> float:
    """Least-squares slope of log(time) against log(n)."""
    n = np.log([r["n"] for r in rows])
    t = np.log([r["seconds"] for r in rows])
    return float(np.polyfit(n, t, 1)[0])


def section(machine: str, setup: str, md: str, fit: str) -> str:
    """The README section: how to rerun, what is measured, the table and the slope."""
    return f"""{SECTION}

Time and peak memory of one `evaluate_sweep` call as the training set grows, each size in a fresh
interpreter (`.venv/bin/python benchmarks/bench_scale.py`; `--help` for sizes, runs, methods and budget).
Data: features uniform on `[0,1]^d`, labels uniform on `[-1,1]`, `n / 4` test points (the paper's 80/20
split), privacy levels from the paper's default three-group profile. Peak RSS is `ru_maxrss` of that
interpreter (imports, data and call); the column before it is the same peak just before the call. The
Jorgensen masks are drawn and turned into Gram matrices in blocks of runs chosen from the engine's memory
budget (`memory_budget`, default 512 MB; `pdp_lib.experiments.engine.block_size`), and each run's
conditional moments are kept (`4 L runs` floats) and reduced once at the end, so the memory of the call is
the budget, a fixed 32 MiB for the matrix products and a few copies of the data, whatever the number of
runs; the statistics are the same, bit for bit, whatever the budget.

_Measured: {machine}; {setup}._

{md}

{fit}.
"""


def write_readme(text: str) -> None:
    """Replace (or append) the section *Scaling in n* of ``benchmarks/README.md``, keeping the rest."""
    old = README.read_text()
    start = old.find(SECTION)
    if start < 0:
        new = old.rstrip("\n") + "\n\n" + text.rstrip("\n") + "\n"
    else:
        nxt = old.find("\n## ", start + len(SECTION))
        rest = "" if nxt < 0 else old[nxt:]
        new = old[:start] + text.rstrip("\n") + "\n" + rest
    README.write_text(new)


def main(argv=None) -> int:
    from pdp_lib.experiments import METHODS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**3, 10**4, 10**5, 10**6])
    parser.add_argument("--d", type=int, default=12)
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--lams", type=float, nargs="+", default=[1.0])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--memory-budget", type=float, default=None, help="bytes (default: the engine's)")
    parser.add_argument("--no-readme", action="store_true", help="print only; leave README.md alone")
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.d, args.runs, args.lams, args.methods, args.memory_budget)))
        return 0

    load = os.getloadavg()[0]
    rows = []
    for n in args.sizes:
        rows.append(measure(n, args))
        r = rows[-1]
        print(f"n = {n:,}: {r['seconds']:.2f} s, peak RSS {r['peak_mb']:.0f} MB", file=sys.stderr)
    md = table(rows, args.methods)
    machine = (f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
               f"numpy {np.__version__}, load average {load:.1f} at the start")
    setup = (f"d = {args.d}, {args.runs:,} runs, lambda = {', '.join(f'{v:g}' for v in args.lams)}, "
             f"methods: {', '.join(args.methods)}; memory budget "
             f"{'default' if args.memory_budget is None else f'{args.memory_budget:.3g} bytes'}")
    fit = f"Log-log slope of time against n: **{slope(rows):.2f}**" if len(rows) > 1 else ""
    print(f"{machine}\n{setup}\n\n{md}\n\n{fit}")
    if not args.no_readme:
        write_readme(section(machine, setup, md, fit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
