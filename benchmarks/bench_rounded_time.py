"""How the exact rounded ℓ2 draw's running time follows its output: Spearman's rank correlation of the time (and of
the random bits used, a deterministic count of the work) with ``||K||`` at d = 12 and d = 30.

The draw is never given a centre or data, but its time grows with the norm of what it draws, so time and output
together say more than the output alone (Jin, McMurtry, Rubinstein & Ohrimenko, IEEE S&P 2022).

    python benchmarks/bench_rounded_time.py [--draws N]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import numpy as np
from scipy.stats import spearmanr

from pdp_lib.mechanisms.exact_rounding import sample_rounded_l2
from pdp_lib.mechanisms.exact_sampling import RandomBits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2000)
    args = parser.parse_args()
    for d in (12, 30):
        bits = RandomBits(2026)
        norms, seconds, used = [], [], []
        for _ in range(args.draws):
            before = bits.used
            t0 = time.perf_counter()
            k = sample_rounded_l2(Fraction(1, 1000), d, bits)
            seconds.append(time.perf_counter() - t0)
            used.append(bits.used - before)
            norms.append(float(np.sqrt(sum(v * v for v in k))))
        print(f"d = {d}: {args.draws} draws at rate 1/1000; Spearman(time, ||K||) = "
              f"{spearmanr(seconds, norms)[0]:.2f}, Spearman(bits used, ||K||) = {spearmanr(used, norms)[0]:.2f}")


if __name__ == "__main__":
    main()
