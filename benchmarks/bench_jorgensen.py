"""Jorgensen et al.'s release, exact (exact coins, one public lattice) against the floating-point one, on the
Medical Cost training data (d = 12) with the paper's default profile, both thresholds: the median time of one
release over repeated draws, and their ratio.

    python benchmarks/bench_jorgensen.py [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import pdp_lib
from pdp_lib.mechanisms.baselines import jorgensen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    data = pdp_lib.load_medical_cost()
    X, y = data.X, data.y
    X_tr, _, y_tr, _ = pdp_lib.train_test_split(X, y)
    eps = pdp_lib.privacy_profile(len(y_tr), pdp_lib.DEFAULT_PROFILE, rng=np.random.default_rng(1))
    for threshold in ("max", "mean"):
        times = {}
        for sampler in ("float", "exact"):
            runs = []
            for seed in range(args.repeats):
                t0 = time.perf_counter()
                jorgensen(X_tr, y_tr, eps, 1.0, threshold, rng=seed, sampler=sampler)
                runs.append(time.perf_counter() - t0)
            times[sampler] = statistics.median(runs)
        print(f"threshold {threshold}: float {times['float'] * 1e3:.2f} ms, exact {times['exact'] * 1e3:.2f} ms, "
              f"ratio {times['exact'] / times['float']:.1f} (n = {len(y_tr)}, d = {X.shape[1]}, median of "
              f"{args.repeats})")


if __name__ == "__main__":
    main()
