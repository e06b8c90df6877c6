r"""Advice tested out of sample: each candidate procedure's expected test loss on the held-out benchmark's tables.

A *procedure* is what a reader with a new table can run: it chooses a release (a mechanism and its
:math:`\lambda`) from public facts only: the number of training rows, ``d``, the training rows' levels, the grid and
``delta``.  It reads no label and no feature.  For each table of :mod:`pdp_lib.io.benchmark_tables`, each level
profile of :data:`PROFILES` and each split of :data:`SPLITS`, :func:`cell_losses` computes every release's expected
test loss with the command line's own comparison (:func:`pdp_lib.io.comparison.compare_sums` and
:func:`~pdp_lib.io.comparison.expected_losses`: exact for output perturbation and the private means, Monte Carlo
means for SSP, objective perturbation, AdaSSP and gradient descent), and :func:`procedure_table` reads each
procedure's loss off it.  The reference is the *oracle*: the least expected loss over every private release and
every :math:`\lambda` of the grid, which reads the test rows and so is not a procedure; a procedure's *ratio* is its
loss over the oracle's (1 at best).

The advice (:func:`choose_on_development`, among :data:`FAMILY`) may be tuned on the development tables only (:func:`pdp_lib.io.benchmark_tables.read_split`);
the evaluation tables report it.  Measured in the book's chapter *Which mechanism, which λ*.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import comparison
from ..io.benchmark_tables import load_table
from ..io.public_bounds import Bounds
from ..mechanisms import automatic
from ..mechanisms.lambda_grid import DEFAULT_GRID
from ..profiles import ProfileSpec, privacy_profile
from ..tuning import pruned_lambda

__all__ = ["PROFILES", "SPLITS", "DELTA", "DRAWS", "PURE", "APPROXIMATE", "Cell", "cell_losses", "benchmark_cells",
           "procedure_table", "budget_ratio", "ssp_public_ridge", "C_GRID", "TAU_GRID", "FAMILY", "SIMPLE",
           "geometric_mean", "choose_on_development", "PRIVATE", "table_interval"]

PROFILES = {"paper": ProfileSpec(), "ones": ProfileSpec(f_c=0.0, f_m=0.0, eps_c=1.0, eps_m=1.0, eps_l=1.0),
            "tenfold": ProfileSpec(eps_c=0.1, eps_m=2.0, eps_l=10.0)}
"""The level profiles: the paper's (34% conservatives in [0.01, 0.2], 43% in [0.2, 1], 23% at 1), every level 1
(standard DP at 1), and the paper's levels times ten."""

SPLITS = (0, 1, 2)
"""The seeds of the train/test splits (20% test rows) and of the levels' draws."""

DELTA = 1e-6
"""The ``delta`` of the approximate releases: below ``1/n`` for every table of the benchmark."""

DRAWS = 200
"""Monte Carlo releases per cell for the mechanisms whose expected loss has no closed form (``compare``'s
default)."""

PURE = ("midpoint", "private_mean", "pdp_op_pruned", "pdp_op_sharp_pruned", "non_personalized_pruned",
        "ssp_pruned", "objective_pruned")
"""The procedures under pure DP: the release that spends nothing (the label range's midpoint), the private mean,
PDP-OP with ``B(lambda)`` and with ``B*(lambda)`` at the pruned rule's ``lambda`` (the chapter *Choosing λ*),
standard DP at the smallest level at the pruned rule's ``lambda`` for those levels (the published non-personalized
method), and SSP and objective perturbation at the pruned rule's ``lambda``."""

APPROXIMATE = ("ssp_gaussian", "adassp", "private_mean_delta", "gd_pruned")
"""The procedures under ``(epsilon_i, delta)``: Gaussian SSP at its public ridge, AdaSSP at its private ridge, the
private mean with Gaussian noise, and noisy gradient descent at the pruned rule's ``lambda``."""

_RELEASE = {"pdp_op_pruned": "pdp_op", "pdp_op_sharp_pruned": "pdp_op_sharp",
            "non_personalized_pruned": "non_personalized", "ssp_pruned": "ssp", "objective_pruned": "objective",
            "gd_pruned": "gd"}


@dataclass(frozen=True)
class Cell:
    """One (table, profile, split): its public facts and every release's expected test loss.

    Attributes
    ----------
    table, profile : str
    split : int
    rows, d : int
        Training rows and the model's dimension (the intercept included).
    levels : numpy.ndarray
        The training rows' levels (public).
    losses : pandas.DataFrame
        Index ``lambda`` (the grid), one column per row of :data:`pdp_lib.io.comparison.METHODS`.
    """

    table: str
    profile: str
    split: int
    rows: int
    d: int
    levels: np.ndarray
    losses: pd.DataFrame


def cell_losses(table: str, profile: str, split: int, *, draws: int = DRAWS, masks: int = 20) -> Cell:
    """Every release's expected test loss on one (table, profile, split), by the command line's comparison."""
    t = load_table(table)
    d = t.X.shape[1] - 1
    gen = np.random.default_rng(np.random.SeedSequence(split, spawn_key=(sum(map(ord, table)), len(profile))))
    eps = gen.permutation(privacy_profile(t.y.size, PROFILES[profile], gen))   # levels in random row order
    names = [f"x{j}" for j in range(d)]
    frame = pd.DataFrame(t.X[:, :d], columns=names).assign(y=t.y, eps=eps)
    bounds = Bounds(features=tuple(names), lower=np.zeros(d), upper=np.ones(d), label_lower=-1.0, label_upper=1.0,
                    source="the domain", intercept=True)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "table.csv"
        frame.to_csv(path, index=False)
        sums = comparison.compare_sums(path, bounds, "y", "eps", seed=split, masks=masks, delta=DELTA)
    losses = comparison.expected_losses(sums, DEFAULT_GRID, draws=draws, seed=split)
    levels = np.repeat(sums.levels, sums.counts.astype(int))
    return Cell(table=table, profile=profile, split=split, rows=int(sums.plain.rows), d=int(sums.d), levels=levels,
                losses=losses.pivot(index="lam", columns="method", values="loss"))


def benchmark_cells(tables, profiles=tuple(PROFILES), splits=SPLITS, **kwargs) -> list:
    """:func:`cell_losses` for every table, profile and split."""
    return [cell_losses(t, p, s, **kwargs) for t in tables for p in profiles for s in splits]


def budget_ratio(cell: Cell) -> float:
    """``S / d**2`` of the cell (:func:`pdp_lib.mechanisms.automatic.budget_ratio`): public, the levels and ``d``.
    Every release's noise shrinks as it grows: PDP-OP's and SSP's energy like ``(d**2 / S)**2``."""
    return automatic.budget_ratio(float(np.sum(cell.levels)), cell.d)


def ssp_public_ridge(cell: Cell, c: float) -> float:
    """The public ridge of pure SSP with the factor ``c`` (:func:`pdp_lib.mechanisms.automatic.ssp_ridge`), on
    :data:`pdp_lib.mechanisms.lambda_grid.DEFAULT_GRID`; it reads the levels and ``d`` only."""
    return automatic.ssp_ridge(float(np.sum(cell.levels)), float(cell.levels.min()), cell.d, c, DEFAULT_GRID)


def _choice(cell: Cell, procedure: str) -> tuple:
    """``(release, lambda)`` of ``procedure`` on ``cell``, from public facts only.

    Besides the names of :data:`PURE` and :data:`APPROXIMATE`: ``"ssp_public:c"`` (pure SSP at
    :func:`ssp_public_ridge` with ``c``), ``"auto:c:tau"`` (that release when :func:`budget_ratio` is at least
    ``tau``, else the private mean) and ``"auto_delta:tau"`` (Gaussian SSP at its public ridge when the budget ratio
    is at least ``tau``, else the private mean under ``delta``).
    """
    name, *args = procedure.split(":")
    if name == "auto":
        c, tau = map(float, args)
        return _choice(cell, f"ssp_public:{c}" if budget_ratio(cell) >= tau else "private_mean")
    if name == "auto_delta":
        return _choice(cell, "ssp_gaussian" if budget_ratio(cell) >= float(args[0]) else "private_mean_delta")
    if name == "ssp_public":
        return "ssp", ssp_public_ridge(cell, float(args[0]))
    if name in ("midpoint", "private_mean", "private_mean_delta", "ssp_gaussian", "adassp"):
        return name, DEFAULT_GRID[0]                       # no lambda: the same loss on every row
    if name == "non_personalized_pruned":
        standard = np.full(cell.levels.size, cell.levels.min())
        return "non_personalized", pruned_lambda(DEFAULT_GRID, standard, cell.d)
    B = "sharp" if name == "pdp_op_sharp_pruned" else None
    return _RELEASE[name], pruned_lambda(DEFAULT_GRID, cell.levels, cell.d, B=B)


PRIVATE = tuple(m for m in comparison.METHODS if m not in comparison.NOT_PRIVATE + comparison.CHOSEN) + ("midpoint",)
"""The releases the oracle chooses among: every private row of :data:`pdp_lib.io.comparison.METHODS`, and the
midpoint, which spends nothing."""


def procedure_table(cells, procedures=PURE + APPROXIMATE) -> pd.DataFrame:
    """One row per (cell, procedure): the release and ``lambda`` chosen, its expected loss, the oracle's, the ratio.

    The oracle of a pure procedure is the best pure release; of an approximate one, the best release of either
    kind (a pure release is also ``(epsilon_i, delta)``-DP)."""
    rows = []
    pure_rows = [m for m in PRIVATE if m not in comparison.DELTA_METHODS]        # the midpoint included
    for cell in cells:
        oracle = {"pure": float(cell.losses[pure_rows].min().min()),
                  "approximate": float(cell.losses[list(PRIVATE)].min().min())}
        for procedure in procedures:
            release, lam = _choice(cell, procedure)
            loss = float(cell.losses.loc[lam, release])
            kind = _guarantee(procedure)
            rows.append((cell.table, cell.profile, cell.split, procedure, kind, release, lam, loss, oracle[kind],
                         loss / oracle[kind], float(cell.losses.loc[lam, "mean"])))
    return pd.DataFrame(rows, columns=["table", "profile", "split", "procedure", "guarantee", "release", "lam",
                                       "loss", "oracle", "ratio", "training_mean"])


def _guarantee(procedure: str) -> str:
    return "approximate" if procedure in APPROXIMATE or procedure.startswith("auto_delta") else "pure"


C_GRID = (0.2, 0.3, 0.4, 0.5, 0.7, 1.0)
"""The candidate factors of :func:`ssp_public_ridge`."""

TAU_GRID = (5.0, 10.0, 20.0, 30.0, 50.0, 100.0, 200.0)
"""The candidate thresholds of the automatic choices on :func:`budget_ratio`."""

FAMILY = {
    "pure": PURE + tuple(f"ssp_public:{c}" for c in C_GRID)
            + tuple(f"auto:{c}:{tau}" for c in C_GRID for tau in TAU_GRID),
    "approximate": APPROXIMATE + tuple(f"auto_delta:{tau}" for tau in TAU_GRID),
}
"""The procedures the advice is chosen among, under each guarantee, in order of simplicity (a tie goes to the
earlier): the fixed procedures, then the tuned ones."""

SIMPLE = {"pure": ("midpoint", "private_mean", "non_personalized_pruned", "pdp_op_pruned"),
          "approximate": ("private_mean_delta", "ssp_gaussian")}
"""The strongest simple things a reader could do instead: spend nothing, release the private mean, the published
non-personalized method and the book's earlier advice (PDP-OP at the pruned rule); under ``delta``, the private mean
and the book's earlier advice (Gaussian SSP at the public ridge)."""


def geometric_mean(ratios) -> float:
    """``exp(mean(log(ratios)))``: the typical ratio to the oracle over the cells."""
    return float(np.exp(np.mean(np.log(np.asarray(ratios, dtype=float)))))


def choose_on_development(cells, guarantee: str) -> str:
    """The procedure of :data:`FAMILY` with the least :func:`geometric_mean` ratio on ``cells`` (development cells
    only: the caller's duty), the earlier on a tie."""
    table = procedure_table(cells, FAMILY[guarantee])
    scores = table.groupby("procedure", sort=False).ratio.apply(geometric_mean)
    return min(FAMILY[guarantee], key=lambda p: (scores[p], FAMILY[guarantee].index(p)))


def table_interval(table: pd.DataFrame, first: str, second: str, *, draws: int = 4000, seed: int = 0) -> tuple:
    """The ratio of two procedures' geometric means over the cells of ``table`` (:func:`procedure_table`), with a
    95% percentile interval from resampling the tables with replacement (each table with all its cells): how much
    the comparison owes to which tables happen to be in the benchmark.  ``(ratio, low, high)``."""
    logs = np.log(table.pivot_table(index=["table", "profile", "split"], columns="procedure", values="ratio"))
    per_table = (logs[first] - logs[second]).groupby(level="table").agg(["sum", "size"])
    sums, sizes = per_table["sum"].to_numpy(), per_table["size"].to_numpy()
    gen = np.random.default_rng(seed)
    pick = gen.integers(0, sums.size, size=(draws, sums.size))
    boot = np.exp(sums[pick].sum(axis=1) / sizes[pick].sum(axis=1))
    low, high = np.quantile(boot, [0.025, 0.975])
    return float(np.exp(sums.sum() / sizes.sum())), float(low), float(high)
