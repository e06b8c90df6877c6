"""Time per draw of the exact lattice sampler against the floating-point sampler, at d = 1, 12, 30, 100.

Usage: ``.venv/bin/python benchmarks/bench_exact_sampler.py [--draws 200]``.  Not a test: nothing depends on
wall time.  For each ``d`` the rate per lattice step ``t`` is the one the lattice release uses on a table of
1,070 rows with the Medical Cost profile's levels at ``lambda = 1`` (``pdp_lib.mechanisms.lattice``).

Printed, as Markdown tables:

1. per draw: the floating-point sampler (one call per draw, and vectorized), the exact sampler, their ratio;
   the rejection sampler's acceptance rate (Monte Carlo of its acceptance probability under its proposal, in
   floating point: a measurement, not part of any release) and the expected number of proposals per draw;
   at ``d = 100``, where the exact sampler refuses, the time it would take, from the time per proposal;
2. one whole release of a fitted model at ``d = 12`` (the sums, the exact solve, the grid and the noise),
   against ``sampler="float"``; and the peak memory of each (``tracemalloc``).
"""

from __future__ import annotations

import argparse
import math
import time
import tracemalloc

import numpy as np

import pdp_lib
from pdp_lib.mechanisms import exact_sampling as es
from pdp_lib.mechanisms import lattice

DIMENSIONS = (1, 12, 30, 100)


def _profile(n=1070, seed=5):
    return pdp_lib.privacy_profile(n, pdp_lib.DEFAULT_PROFILE, rng=np.random.default_rng(seed))


def _rate(d, eps):
    cal = lattice.lattice_calibration(math.fsum(eps), float(eps.min()), lattice.rounds_bound(len(eps)), 1.0, d)
    return cal.rate, cal.eta


def _per_draw(fn, repeat):
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def _acceptance(t, d, draws=200_000, seed=0):
    """E[exp(-(t ||k||_2 - ||k||_1 / N))] under the proposal (continuous Laplaces of scale N: N is large)."""
    N = es.proposal_scale(t, d)
    k = np.random.default_rng(seed).laplace(scale=N, size=(draws, d))
    x = float(t) * np.linalg.norm(k, axis=1) - np.abs(k).sum(axis=1) / N
    return float(np.exp(-np.maximum(x, 0)).mean())


def _proposal_time(t, d, repeat=200):
    """The time of one proposal: d discrete Laplaces and the acceptance test (mostly decided early)."""
    bits = es.RandomBits(1)
    N = es.proposal_scale(t, d)

    def one():
        k = [es.discrete_laplace(N, bits) for _ in range(d)]
        es._accept(t, sum(v * v for v in k), sum(abs(v) for v in k), N, bits)
    return _per_draw(one, repeat)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=200, help="exact draws per dimension (fewer at d = 30)")
    args = parser.parse_args(argv)
    eps = _profile()
    print("| d | float, one call (µs) | float, vectorized (µs) | exact (µs) | exact / float one call | "
          "acceptance rate | proposals per draw |")
    print("|---|---|---|---|---|---|---|")
    for d in DIMENSIONS:
        t, eta = _rate(d, eps)
        gen = np.random.default_rng(0)
        one = _per_draw(lambda: pdp_lib.sample_l2_laplace(eta, d, rng=gen), 2000)
        vec = _per_draw(lambda: pdp_lib.sample_l2_laplace(eta, d, size=10_000, rng=gen), 20) / 10_000
        rate = _acceptance(t, d)
        if d <= es.MAX_EXACT_DIMENSION:
            bits = es.RandomBits(2)
            draws = args.draws if d < 20 else max(10, args.draws // 10)
            exact = _per_draw(lambda: es.sample_lattice_l2(t, d, bits), draws)
            shown = f"{exact * 1e6:.0f}"
        else:
            exact = _proposal_time(t, d) / rate
            shown = f"refused; would take about {exact:.1e} s"
        print(f"| {d} | {one * 1e6:.1f} | {vec * 1e6:.2f} | {shown} | {exact / one:.0f} | {rate:.2e} | "
              f"{1 / rate:.3g} |")

    med = pdp_lib.load_medical_cost()
    X, _, y, _ = pdp_lib.train_test_split(med.X, med.y, test_size=0.2, seed=21)
    print("\n| one release, Medical Cost (n = 1070, d = 12, lambda = 1) | time (ms) | peak memory (KiB) |")
    print("|---|---|---|")
    for sampler in ("exact", "float"):
        wall = _per_draw(lambda: pdp_lib.pdp_op(X, y, eps, 1.0, rng=3, sampler=sampler), 50)
        tracemalloc.start()
        pdp_lib.pdp_op(X, y, eps, 1.0, rng=3, sampler=sampler)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"| `sampler=\"{sampler}\"` | {wall * 1e3:.2f} | {peak / 1024:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
