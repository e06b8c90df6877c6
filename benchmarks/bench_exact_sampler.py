"""Time per draw of the exact samplers against the floating-point sampler, at d = 1, 12, 30, 100, 300.

Usage: ``.venv/bin/python benchmarks/bench_exact_sampler.py [--draws 200]``.  Not a test: nothing depends on
wall time.  For each ``d`` the rate per lattice step ``t`` is the one the lattice release uses on a table of
1,070 rows with the Medical Cost profile's levels at ``lambda = 1`` (``pdp_lib.mechanisms.lattice``).

Printed, as Markdown tables:

1. per draw: the floating-point sampler (one call per draw, and vectorized); the two exact samplers, the
   lattice law's rejection sampler (``sample_lattice_l2``) and the exactly rounded continuous draw
   (``sample_rounded_l2``); the ratio of the one the release uses (``noise_law``) to the float sampler; the
   rejection sampler's acceptance rate (Monte Carlo of its acceptance probability under its proposal, in
   floating point: a measurement, not part of any release) and its expected number of proposals per draw;
   above ``d = 30`` the time the rejection sampler would take, from the time per proposal;
2. one whole release of a fitted model (the sums, the centre, the grid and the noise) against
   ``sampler="float"``: Medical Cost at ``d = 12``, and uniform synthetic rows at ``d = 100``; the peak
   memory of each (``tracemalloc``); and at ``d = 100`` the centre by the certified refined solution against
   Bareiss's exact solve.
"""

from __future__ import annotations

import argparse
import math
import time
import tracemalloc

import numpy as np

import pdp_lib
from pdp_lib.mechanisms import exact_rounding as er
from pdp_lib.mechanisms import exact_sampling as es
from pdp_lib.mechanisms import lattice

DIMENSIONS = (1, 12, 30, 100, 300)


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
    print("| d | float, one call (µs) | float, vectorized (µs) | lattice law, rejection (µs) | rounded law (µs) | "
          "law used | used / float one call | acceptance rate | proposals per draw |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d in DIMENSIONS:
        t, eta = _rate(d, eps)
        gen = np.random.default_rng(0)
        one = _per_draw(lambda: pdp_lib.sample_l2_laplace(eta, d, rng=gen), 2000)
        vec = _per_draw(lambda: pdp_lib.sample_l2_laplace(eta, d, size=10_000, rng=gen), 20) / 10_000
        rate = _acceptance(t, d)
        if d <= 30:
            bits = es.RandomBits(2)
            draws = args.draws if d < 20 else max(10, args.draws // 10)
            rejection = _per_draw(lambda: es.sample_lattice_l2(t, d, bits), draws)
            shown = f"{rejection * 1e6:,.0f}"
        else:
            rejection = _proposal_time(t, d) / rate
            shown = f"would take about {rejection:.1e} s"
        bits = es.RandomBits(3)
        rounded = _per_draw(lambda: er.sample_rounded_l2(t, d, bits), args.draws)
        law = lattice.noise_law(d)
        used = rejection if law == "lattice" else rounded
        print(f"| {d} | {one * 1e6:.1f} | {vec * 1e6:.2f} | {shown} | {rounded * 1e6:,.0f} | {law} | "
              f"{used / one:,.0f} | {rate:.2e} | {1 / rate:.3g} |")

    med = pdp_lib.load_medical_cost()
    X, _, y, _ = pdp_lib.train_test_split(med.X, med.y, test_size=0.2, seed=21)
    rng = np.random.default_rng(8)
    wide = rng.uniform(0, 1, (10_000, 100)) / 10.0, rng.uniform(-1, 1, 10_000)
    wide_eps = pdp_lib.privacy_profile(10_000, pdp_lib.DEFAULT_PROFILE, rng=rng)
    print("\n| one release | time (ms) | peak memory (KiB) |")
    print("|---|---|---|")
    for name, (A, b, levels) in [("Medical Cost (n = 1070, d = 12, lambda = 1)", (X, y, eps)),
                                 ("uniform rows (n = 10,000, d = 100, lambda = 1)", (*wide, wide_eps))]:
        for sampler in ("exact", "float"):
            pdp_lib.pdp_op(A, b, levels, 1.0, rng=3, sampler=sampler)        # warm-up: first-call imports
            wall = _per_draw(lambda: pdp_lib.pdp_op(A, b, levels, 1.0, rng=3, sampler=sampler), 20)
            tracemalloc.start()
            pdp_lib.pdp_op(A, b, levels, 1.0, rng=3, sampler=sampler)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(f"| {name}, `sampler=\"{sampler}\"` | {wall * 1e3:.2f} | {peak / 1024:,.0f} |")
    G, m, _ = lattice.weighted_sums(*wide, wide_eps)
    cal = lattice.lattice_calibration(math.fsum(wide_eps), float(wide_eps.min()), lattice.rounds_bound(10_000),
                                      1.0, 100)
    alpha = lattice.sums_rounding_bound(lattice.rounds_bound(10_000), 100, wide_eps.min())
    print("\n| the centre at d = 100 | time (ms) |")
    print("|---|---|")
    for name, kw in [("certified refined solution", {"alpha": alpha}), ("Bareiss's exact solve", {})]:
        wall = _per_draw(lambda: lattice.lattice_centre(G, m, math.fsum(wide_eps), 1.0, cal.step_exponent, **kw),
                         3)
        print(f"| {name} | {wall * 1e3:,.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
