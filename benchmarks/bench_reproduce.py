"""Speed and accuracy of the experiment engine (run by hand; not a test).

    .venv/bin/python benchmarks/bench_reproduce.py [--runs 10000] [--skip-all]

1. Wall time of ``python -m pdp_lib reproduce all --runs N`` (every table and figure, one
   draw), in a fresh interpreter, output discarded.
2. Table 4 (Medical Cost data, 12 values of lambda, PDP-OP / Jorgensen max / Jorgensen mean /
   non-private) at ``N`` runs: the vectorized engine against a straightforward per-run
   Python loop of the single-run estimators (``pdp_lib.pdp_op``,
   ``pdp_lib.mechanisms.baselines.jorgensen``) that computes both losses from the same runs, in the
   same process, on the same data draw and profile.  Reports the speed ratio and checks that
   both agree within their standard errors.
3. For every Jorgensen cell of Table 4: the engine's Monte Carlo standard error (mask
   average of the exact conditional means) against the naive ``std / sqrt(N)`` of a plain
   average over runs, and the loop's own empirical standard error.

Prints Markdown; the numbers measured on the project machine are in ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time

import numpy as np

from pdp_lib import pdp_op
from pdp_lib.mechanisms.baselines import jorgensen, least_squares, non_private_ridge
from pdp_lib.experiments import draw_data, draw_profile, evaluate_sweep, get_target, mask_seed, reproduce
from pdp_lib.formatting import sig

SEED = 0


def time_reproduce_all(runs: int) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pdp_lib", "reproduce", "all", "--runs", str(runs),
                           "--seed", str(SEED), "--out", os.devnull],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    assert proc.returncode == 0
    return time.perf_counter() - start


def naive_table4(X, y, Xt, yt, eps, lams, runs, rng):
    """The per-run loop: one private estimate per run and method, both losses from it."""
    out = {}
    for lam in lams:
        for name, fit in (
            ("pdp_op", lambda: pdp_op(X, y, eps, lam, rng=rng)),
            ("jorgensen_max", lambda: jorgensen(X, y, eps, lam, threshold="max", rng=rng)),
            ("jorgensen_mean", lambda: jorgensen(X, y, eps, lam, threshold="mean", rng=rng)),
        ):
            unreg = np.empty(runs)
            reg = np.empty(runs)
            for r in range(runs):
                theta = fit()
                mse = np.mean((Xt @ theta - yt) ** 2)
                unreg[r] = mse
                reg[r] = mse + lam * theta @ theta
            out[f"unreg_{name}", lam] = unreg
            out[f"reg_{name}", lam] = reg
        ls = least_squares(X, y)
        rid = non_private_ridge(X, y, lam)
        out["unreg_non_private", lam] = np.array([np.mean((Xt @ ls - yt) ** 2)])
        out["reg_non_private", lam] = np.array([np.mean((Xt @ rid - yt) ** 2) + lam * rid @ rid])
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--skip-all", action="store_true", help="skip timing `reproduce all`")
    args = parser.parse_args(argv)
    runs = args.runs

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"numpy {np.__version__}; load average {os.getloadavg()[0]:.2f}\n")

    if not args.skip_all:
        t_all = time_reproduce_all(runs)
        print(f"## `python -m pdp_lib reproduce all --runs {runs}`\n\nwall time {t_all:.1f} s "
              f"(32 targets, one draw)\n")

    spec = get_target("table-4")
    lams = list(spec.sweep_values)
    draw = draw_data("medical_cost", SEED, 0)
    n = draw.X_train.shape[0]
    eps = draw_profile(draw, spec.profile, n)

    start = time.perf_counter()
    table = reproduce("table-4", runs=runs, seed=SEED)
    t_engine = time.perf_counter() - start
    res = evaluate_sweep(draw.X_train, draw.y_train, draw.X_test, draw.y_test, eps, lams, runs=runs,
                         rng=mask_seed(draw, spec.profile, n))

    start = time.perf_counter()
    loop = naive_table4(draw.X_train, draw.y_train, draw.X_test, draw.y_test, eps, lams, runs,
                        np.random.default_rng(12345))
    t_loop = time.perf_counter() - start

    print(f"## Table 4 at {runs} runs\n")
    print(f"engine (`reproduce('table-4')`): {t_engine:.2f} s; per-run loop: {t_loop:.1f} s; "
          f"ratio {t_loop / t_engine:.0f}x\n")

    worst = 0.0
    print("| lambda | column | engine mean | engine SE | naive SE std/sqrt(N) | SE ratio | loop mean | loop SE | z |")
    print("|---|---|---|---|---|---|---|---|---|")
    for j, lam in enumerate(lams):
        for col in spec.columns:
            sample = loop[col, lam]
            m_loop = sample.mean()
            se_loop = sample.std() / np.sqrt(sample.size) if sample.size > 1 else 0.0
            m_eng = res.mean[col][j]
            se_eng = res.mean_se[col][j]
            joint = np.hypot(se_loop, se_eng)
            z = abs(m_loop - m_eng) / joint if joint > 0 else abs(m_loop - m_eng)
            worst = max(worst, z)
            assert table[(table.param == spec.param_labels[j]) & (table.column == col)].value.iloc[0] == m_eng
            if "jorgensen" in col:
                naive = res.naive_se[col][j]
                print(f"| {sig(lam)} | {col} | {sig(m_eng)} | {sig(se_eng)} | {sig(naive)} | "
                      f"{naive / se_eng:.1f} | {sig(m_loop)} | {sig(se_loop)} | {z:.2f} |")
    print(f"\nlargest |engine - loop| / joint SE over all {len(lams) * len(spec.columns)} cells: {worst:.2f}")


if __name__ == "__main__":
    main()
