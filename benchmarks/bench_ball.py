"""Time the exact check of the objective release's ball: split squares and ``math.fsum`` against rationals.

Usage::

    .venv/bin/python benchmarks/bench_ball.py [--rows 2000] [--repeat 3]

For each dimension, rows on the sphere of radius 0.9 (normalized in floating point, so their computed norms sit
within a few units in the last place of the radius, where ``into_ball`` must check exactly) are checked by
:func:`pdp_lib.mechanisms.objective.exact_norms_at_most` and, one row at a time, by the rational
:func:`pdp_lib.mechanisms.objective.exact_norm_at_most`; the answers must agree (asserted), and the medians of
``--repeat`` runs and their ratio are printed.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from pdp_lib.mechanisms import objective as O


def _median_time(f, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print("| d | rationals (ms) | split squares (ms) | ratio |\n|---|---|---|---|")
    for d in (3, 13, 31):
        rows = rng.normal(size=(args.rows, d))
        rows = rows / np.linalg.norm(rows, axis=1, keepdims=True) * 0.9
        fast = O.exact_norms_at_most(rows, 0.9)
        assert fast.tolist() == [O.exact_norm_at_most(r, 0.9) for r in rows]
        slow_t = _median_time(lambda: [O.exact_norm_at_most(r, 0.9) for r in rows], args.repeat)
        fast_t = _median_time(lambda: O.exact_norms_at_most(rows, 0.9), args.repeat)
        print(f"| {d} | {1e3 * slow_t:.1f} | {1e3 * fast_t:.1f} | {slow_t / fast_t:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
