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

import dataclasses
import functools
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..bounds import norm_bound
from ..io import comparison
from ..io.benchmark_tables import load_table
from ..io.public_bounds import Bounds
from ..mechanisms import automatic
from ..mechanisms.lambda_grid import DEFAULT_GRID
from ..profiles import ProfileSpec, privacy_profile
from ..tuning import pruned_lambda
from ..validation import check_fraction
from .gradient_descent import clipped_pure_gd_draws, pure_gd_draws

__all__ = ["PROFILES", "SPLITS", "DELTA", "DRAWS", "PURE", "APPROXIMATE", "Cell", "cell_losses", "benchmark_cells",
           "procedure_table", "budget_ratio", "ssp_public_ridge", "C_GRID", "TAU_GRID", "FAMILY", "SIMPLE",
           "geometric_mean", "choose_on_development", "PRIVATE", "table_interval", "FIRST_ROUND",
           "per_table_ratio", "log_se_bound", "band", "cell_sums", "checked_ratio",
           "binary_columns", "group_ratios", "group_cells", "GD_STEPS", "GD_PURE", "GD_OPEN", "GD_CENTRED", "GD_SHARES",
           "centred_gd_losses", "choose_steps", "choose_centred", "ball_cells", "widened_cells",
           "pure_gd_losses", "PURE_GD_STREAM", "gd_loss_parts", "cell_rows", "clipped_gd_losses", "GD_CLIPPED", "CLIPS",
           "CLIPPED_STEPS", "CLIPPED_DRAWS", "with_clipped", "choose_clipped", "free_ratios", "rule_ratios",
           "ridge_ratios", "profile_ratios"]

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

GD_PURE, GD_OPEN, GD_CENTRED = "gd_pure", "gd_pure_open", "gd_pure_centred"
"""Noisy gradient descent under pure DP: its intercept penalized like every coefficient (the library's steps), the
same with the intercept unpenalized (:func:`pdp_lib.experiments.gradient_descent.pure_gd_draws`), and that variant
started at a private mean (:func:`centred_gd_losses`)."""

GD_SHARES = (0.25, 0.5, 0.75)
"""The shares of each level that :data:`GD_CENTRED` spends on the private mean it starts from (``gd_pure_centred:s:T``
for a share ``s``), among which the development tables choose with the steps."""

GD_STEPS = (1, 2, 5, 10, 20)
"""The steps ``T`` of noisy gradient descent under pure DP (``gd_pure:T``) among which the development tables
choose: its noise grows like ``T`` (the pure losses add up), against the square root under ``(epsilon_i, delta)``."""

GD_CLIPPED = "gd_pure_clipped"
"""The centred descent with each row's gradient clipped (:func:`clipped_gd_losses`): ``gd_pure_clipped:s:C:T`` for a
share ``s``, a clip ``C`` of :data:`CLIPS` and steps ``T`` of :data:`CLIPPED_STEPS` (:func:`with_clipped`)."""

CLIPS = (0.1, 0.3, 1.0)
"""The clips ``C`` among which the development tables choose: a row's gradient has norm ``|r| ||x||``, with
``||x|| <= sqrt(d)`` and the residual ``|r|`` at most ``sqrt(d) R + 1``; the unclipped bound ``G`` is far larger."""

CLIPPED_STEPS = (1, 2, 5, 10)
"""The steps among which the development tables choose the clipped descent's: :data:`GD_STEPS` without 20, since
each run passes over the rows at every step, and under pure DP the noise grows like the steps."""

CLIPPED_DRAWS = 50
"""Runs per cell of each clipped setting when the development tables choose one (the chosen setting is then
evaluated with :data:`DRAWS`): each run passes over the rows at every step."""

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
        Index ``lambda`` (the grid), one column per row of :data:`pdp_lib.io.comparison.METHODS` and one of its
        Monte Carlo standard error per row (``<row>_se``, 0 where the loss is exact), and two of SSP's
        checked releases with the intercept (:func:`pdp_lib.io.comparison.checked_losses`): ``ssp_checked`` at the
        public ridges of :data:`C_GRID` (``nan`` at the other values of ``lambda``) and ``ssp_gaussian_checked`` at Gaussian SSP's public ridge (the same on every row).
        For each binary feature ``j`` (:func:`binary_columns`), ``group:j`` and ``group_delta:j``: the private means
        per group of that feature, were it public (:func:`pdp_lib.io.comparison.group_mean_loss`), exact and the same
        on every row; they are not among the oracle's releases (:data:`PRIVATE`), whose guarantee covers the whole row.
        ``group_free:j``, ``group_delta_free:j``, ``private_mean_free`` and ``private_mean_delta_free``: the same
        releases' losses without their noise (the same split and weights), for :func:`group_cells`.
        ``gd_pure:T`` for each ``T`` of :data:`GD_STEPS`: noisy gradient descent under pure DP with ``T`` steps
        (:func:`pure_gd_losses`), a Monte Carlo mean at the pruned rule's ``lambda`` only
        (``nan`` elsewhere); not among the oracle's releases, which it would change; ``gd_pure_open:T``, the same
        with the intercept unpenalized, and ``gd_pure_centred:s:T`` for each share ``s`` of :data:`GD_SHARES`, that
        variant started at a private mean (:func:`centred_gd_losses`).  At the same ``lambda``, the noise-free parts
        of their losses (:func:`gd_loss_parts`): ``gd_free:T``, ``gd_open_free:T``, ``gd_centred_free:T``,
        ``ridge_free`` and ``ridge_free_open``.
    mean_label : float
        The training rows' weighted mean label :math:`\\sum_i \\varepsilon_i y_i / S`: not public, read only to
        explain where a release loses (:func:`ball_cells`), as the losses read the test rows.
    """

    table: str
    profile: str
    split: int
    rows: int
    d: int
    levels: np.ndarray
    losses: pd.DataFrame
    mean_label: float = float("nan")


@contextmanager
def _cell_source(table: str, profile: str, split: int):
    """One (table, profile, split) as ``compare`` reads it: ``(path, bounds)``, the table with its levels drawn in
    random row order and its columns in the domain, written as a Parquet file (the same numbers as a CSV file's,
    each float read back exactly either way, written several times faster) that lives while the context does."""
    t = load_table(table)
    d = t.X.shape[1] - 1
    gen = np.random.default_rng(np.random.SeedSequence(split, spawn_key=(sum(map(ord, table)), len(profile))))
    eps = gen.permutation(privacy_profile(t.y.size, PROFILES[profile], gen))   # levels in random row order
    names = [f"x{j}" for j in range(d)]
    frame = pd.DataFrame(t.X[:, :d], columns=names).assign(y=t.y, eps=eps)
    bounds = Bounds(features=tuple(names), lower=np.zeros(d), upper=np.ones(d), label_lower=-1.0, label_upper=1.0,
                    source="the domain", intercept=True)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "table.parquet"
        frame.to_parquet(path, index=False)
        yield path, bounds


def cell_sums(table: str, profile: str, split: int, *, masks: int = 20, delta=DELTA):
    """The comparison's sums (:func:`pdp_lib.io.comparison.compare_sums`) of one (table, profile, split): its levels
    drawn in random row order, its columns in the domain, a fifth of the rows for test; ``delta`` for the releases
    under (epsilon_i, delta) (None: none of them)."""
    with _cell_source(table, profile, split) as (path, bounds):
        return comparison.compare_sums(path, bounds, "y", "eps", seed=split, masks=masks, delta=delta)


def cell_rows(table: str, profile: str, split: int, *, sums: bool = False):
    """The training rows ``(X, y, eps)`` of :func:`cell_sums`'s split (:func:`pdp_lib.io.comparison.training_rows`),
    the intercept's column last: for the releases that read rows one by one (:func:`clipped_gd_losses`).
    ``sums=True``: ``(the cell's sums, the rows)`` from one written table, the sums as :func:`cell_sums` with
    ``masks=2`` and no ``delta``."""
    with _cell_source(table, profile, split) as (path, bounds):
        rows = comparison.training_rows(path, bounds, "y", "eps", seed=split)
        if not sums:
            return rows
        return comparison.compare_sums(path, bounds, "y", "eps", seed=split, masks=2, delta=None), rows


def cell_losses(table: str, profile: str, split: int, *, draws: int = DRAWS, masks: int = 20) -> Cell:
    """Every release's expected test loss on one (table, profile, split), by the command line's comparison."""
    sums = cell_sums(table, profile, split, masks=masks)
    levels = np.repeat(sums.levels, sums.counts.astype(int))
    total, smallest = float(np.sum(levels)), float(levels.min())
    groups = {f"{kind}:{j}": comparison.group_mean_loss(sums, j, gaussian=kind == "group_delta")
              for j in binary_columns(table) for kind in ("group", "group_delta")}
    free = {f"{kind}_free:{j}": comparison.group_mean_loss(sums, j, gaussian=kind == "group_delta", noise=False)
            for j in binary_columns(table) for kind in ("group", "group_delta")}
    free |= {f"{mean}_free": comparison.private_mean_loss(sums, gaussian=mean.endswith("delta"), noise=False)
             for mean in comparison.PRIVATE_MEANS}
    lam_gd = pruned_lambda(DEFAULT_GRID, levels, int(sums.d))
    pure_gd = {f"{kind}:{steps}": pure_gd_losses(sums, lam_gd, steps, draws, split, open_intercept=kind == GD_OPEN)
               for kind in (GD_PURE, GD_OPEN) for steps in GD_STEPS}
    pure_gd |= {f"{GD_CENTRED}:{share}:{steps}": centred_gd_losses(sums, lam_gd, steps, share, draws, split)
                for share in GD_SHARES for steps in GD_STEPS}
    gd_parts = gd_loss_parts(sums, lam_gd)
    ridges = sorted({automatic.ssp_ridge(total, smallest, int(sums.d), c, DEFAULT_GRID) for c in C_GRID})
    checked = comparison.checked_losses(sums, ridges, draws, split)
    ridge = comparison.gaussian_public_ridge(sums)
    checked_d = comparison.checked_losses(sums, [ridge], draws, split, gaussian=True)[ridge][0]
    known = {(lam, False): values for lam, (values, _) in checked.items()} | {(ridge, True): checked_d}
    losses = comparison.expected_losses(sums, DEFAULT_GRID, draws=draws, seed=split, checked=known)
    frame = losses.pivot(index="lam", columns="method", values="loss")
    frame = frame.join(losses.pivot(index="lam", columns="method", values="se").add_suffix("_se"))
    for name, values in (("ssp_checked", {lam: v for lam, (v, _) in checked.items()}),
                         ("ssp_gaussian_checked", {lam: checked_d for lam in frame.index})):
        frame[name] = [float(values[lam].mean()) if lam in values else np.nan for lam in frame.index]
        frame[name + "_se"] = [float(values[lam].std(ddof=1) / np.sqrt(draws)) if lam in values else np.nan
                               for lam in frame.index]
    extra = {}
    for name, loss in groups.items():
        extra[name], extra[name + "_se"] = np.full(len(frame), loss), np.zeros(len(frame))
    extra |= {name: np.full(len(frame), loss) for name, loss in free.items()}
    at = frame.index == lam_gd                           # pure gradient descent: the pruned rule's lambda only
    for name, values in pure_gd.items():
        extra[name] = np.where(at, float(values.mean()), np.nan)
        extra[name + "_se"] = np.where(at, float(values.std(ddof=1) / np.sqrt(draws)), np.nan)
    extra |= {name: np.where(at, value, np.nan) for name, value in gd_parts.items()}
    frame = pd.concat([frame, pd.DataFrame(extra, index=frame.index)], axis=1)
    return Cell(table=table, profile=profile, split=split, rows=int(sums.plain.rows), d=int(sums.d), levels=levels,
                losses=frame, mean_label=float(sums.weighted.ysum / sums.eps_total))


PURE_GD_STREAM = 4
"""The spawn key of :func:`pure_gd_losses`'s random streams, beside a cell's split (with the steps)."""


def pure_gd_losses(sums, lam: float, steps: int, draws: int, seed: int, *, open_intercept: bool = False) -> np.ndarray:
    """The test losses of ``draws`` runs of noisy gradient descent under pure DP with ``steps`` steps at ``lam``
    (:func:`pdp_lib.experiments.gradient_descent.pure_gd_draws`, re-weighted by the levels, unclipped) from the
    comparison's sums (:func:`cell_sums`), each ``steps`` from a stream of its own.  ``open_intercept``: the
    intercept left unpenalized (the variant ``gd_pure_open``), from streams of its own.  Floating point: an
    experiment, not a row of ``compare``."""
    key = (PURE_GD_STREAM, steps, 1) if open_intercept else (PURE_GD_STREAM, steps)
    gen = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))
    thetas = pure_gd_draws(sums.weighted.gram, sums.weighted.moment, sums.eps_total, lam, gen, draws, steps=steps,
                           open_intercept=open_intercept)
    return comparison.test_losses(sums, thetas)


def centred_gd_losses(sums, lam: float, steps: int, share: float, draws: int, seed: int, *,
                      radius=None) -> np.ndarray:
    """The test losses of ``draws`` runs of gradient descent under pure DP started at a private mean, from the
    comparison's sums: a share ``share`` of each level releases the weighted mean label with the private mean's
    Laplace noise (scale ``2 / (share S)``, :mod:`pdp_lib.mechanisms.private_mean`), clipped to the label range
    ``[-1, 1]``; the rest, ``(1 - share) epsilon_i``, runs ``steps`` steps with the intercept unpenalized
    (:func:`pure_gd_losses` with ``open_intercept``) from the intercept-only model at that mean.  Point ``i`` spends
    ``share epsilon_i + (1 - share) epsilon_i = epsilon_i`` (basic composition); the start is post-processing of the
    released mean.  The same weights ``epsilon_i / S`` in both parts.  ``radius``: the ball's (None: ``B(lam)``, as
    every descent here).  Floating point: an experiment."""
    share = check_fraction(share, "share", closed_low=False, closed_high=False)
    gen = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(PURE_GD_STREAM, steps, 2, round(100 * share))))
    total = sums.eps_total
    released = np.clip(sums.weighted.ysum / total + gen.laplace(0.0, 2.0 / (share * total), draws), -1.0, 1.0)
    start = np.zeros((draws, int(sums.d)))
    start[:, -1] = released
    rest = 1.0 - share
    thetas = pure_gd_draws(sums.weighted.gram * rest, sums.weighted.moment * rest, total * rest, lam, gen, draws,
                           steps=steps, open_intercept=True, start=start, radius=radius)
    return comparison.test_losses(sums, thetas)


def clipped_gd_losses(sums, rows, lam: float, steps: int, share: float, clip: float, draws: int, seed: int, *,
                      radius=None, noise: bool = True) -> np.ndarray:
    """The test losses of ``draws`` runs of clipped gradient descent under pure DP started at a private mean: as
    :func:`centred_gd_losses` (a share ``share`` of each level releases the weighted mean label, the rest runs
    ``steps`` steps with the intercept unpenalized from the intercept-only model at that mean), with each row's
    gradient clipped to the norm ``clip`` (:func:`pdp_lib.experiments.gradient_descent.clipped_pure_gd_draws`, noise
    rate ``(1 - share) S / (T min(2 clip, G))``).  ``sums`` from :func:`cell_sums` (the test rows, the weighted mean
    label) and ``rows`` from :func:`cell_rows` of the same cell.  ``radius``: the ball's (None: ``B(lam) + 1``, which
    holds the intercept-only model at every mean label in ``[-1, 1]``; below the clip's bound it costs no noise).
    ``noise=False``: the same steps without either noise, from the weighted mean label itself (``draws`` equal
    runs).  Floating point: an experiment."""
    share = check_fraction(share, "share", closed_low=False, closed_high=False)
    key = (PURE_GD_STREAM, steps, 3, round(100 * share), round(1000 * clip))
    gen = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))
    X, y, eps = rows
    total = sums.eps_total
    mean = sums.weighted.ysum / total
    start = np.zeros((draws, int(sums.d)))
    start[:, -1] = np.clip(mean + gen.laplace(0.0, 2.0 / (share * total), draws), -1.0, 1.0) if noise else mean
    if radius is None:
        radius = norm_bound(lam, int(sums.d)) + 1.0
    thetas = clipped_pure_gd_draws(X, y, eps * (1.0 - share), lam, gen, draws, clip=clip, steps=steps, radius=radius,
                                   open_intercept=True, start=start, noise=noise)
    return comparison.test_losses(sums, thetas)


def gd_loss_parts(sums, lam: float) -> dict:
    """Where the loss of gradient descent at ``lam`` comes from, without noise, on the comparison's sums: the test
    loss of ``T`` noise-free steps for each ``T`` of :data:`GD_STEPS` (``gd_free:T``; ``gd_open_free:T`` with the
    intercept unpenalized; ``gd_centred_free:T`` with it unpenalized and from the weighted mean label without noise),
    of the weighted ridge they tend to, its intercept penalized like every coefficient (``ridge_free``), and of the
    same ridge with its intercept, the last coefficient, left unpenalized (``ridge_free_open``)."""
    if not sums.intercept:
        raise ValueError("gd_loss_parts needs the sums of a model with the intercept, its last coefficient")
    A, b = sums.weighted.gram / sums.eps_total, sums.weighted.moment / sums.eps_total
    mean = np.zeros(b.size)
    mean[-1] = sums.weighted.ysum / sums.eps_total
    out = {f"{name}:{steps}": float(comparison.test_losses(sums, pure_gd_draws(
        sums.weighted.gram, sums.weighted.moment, sums.eps_total, lam, None, 1, steps=steps, noise=False,
        open_intercept=name != "gd_free", start=mean if name == "gd_centred_free" else None))[0])
        for name in ("gd_free", "gd_open_free", "gd_centred_free") for steps in GD_STEPS}
    penalty = np.full(b.size, lam)
    out["ridge_free"] = float(comparison.test_losses(sums, [np.linalg.solve(A + np.diag(penalty), b)])[0])
    penalty[-1] = 0.0
    out["ridge_free_open"] = float(comparison.test_losses(sums, [np.linalg.solve(A + np.diag(penalty), b)])[0])
    return out


def binary_columns(table: str) -> list:
    """The features of ``table`` (indices into its features, in the order of its spec) whose every value is 0 or 1:
    the columns :func:`cell_losses` tries as a public group (:mod:`pdp_lib.mechanisms.group_means`).  Reading them
    spends nothing only because each is, in turn, taken to be public."""
    return list(_binary_columns(table))


@functools.lru_cache(maxsize=None)
def _binary_columns(table: str) -> tuple:
    X = load_table(table).X[:, :-1]                 # a shipped table: the same file for the whole process
    return tuple(j for j in range(X.shape[1]) if bool(np.all((X[:, j] == 0.0) | (X[:, j] == 1.0))))


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
    :func:`ssp_public_ridge` with ``c``), ``"ssp_checked:c"`` (its checked release with the intercept,
    :mod:`pdp_lib.mechanisms.checked_ssp`, at that ridge), ``"auto:c:tau"`` (the checked release when
    :func:`budget_ratio` is at least ``tau``, else the private mean), ``"auto_delta:tau"`` (Gaussian SSP's checked
    release at its public ridge when the budget ratio is at least ``tau``, else the private mean under ``delta``),
    and ``"auto_plain:c:tau"`` and ``"auto_delta_plain:tau"``, the same rules with the plain ridge and no check
    (the benchmark's first round, :data:`FIRST_ROUND`), and ``"group:j"`` and ``"group_delta:j"``, the private means
    per group of binary feature ``j``, were it public (:class:`Cell`), and ``"gd_pure:T"``, ``"gd_pure_open:T"`` and
    ``"gd_pure_centred:s:T"``, noisy gradient descent under pure DP at the pruned rule's ``lambda``, and
    ``"gd_pure_clipped:s:C:T"``, the centred one clipped per row (:func:`with_clipped` adds its column).
    """
    name, *args = procedure.split(":")
    if name in ("group", "group_delta"):
        return procedure, DEFAULT_GRID[0]                  # the means per group: no lambda
    if name in (GD_PURE, GD_OPEN, GD_CENTRED, GD_CLIPPED):
        return procedure, pruned_lambda(DEFAULT_GRID, cell.levels, cell.d)
    if name in ("auto", "auto_plain"):
        c, tau = map(float, args)
        kind = "ssp_checked" if name == "auto" else "ssp_public"
        return _choice(cell, f"{kind}:{c}" if budget_ratio(cell) >= tau else "private_mean")
    if name in ("auto_delta", "auto_delta_plain"):
        kind = "ssp_gaussian_checked" if name == "auto_delta" else "ssp_gaussian"
        return _choice(cell, kind if budget_ratio(cell) >= float(args[0]) else "private_mean_delta")
    if name == "ssp_public":
        return "ssp", ssp_public_ridge(cell, float(args[0]))
    if name == "ssp_checked":
        return "ssp_checked", ssp_public_ridge(cell, float(args[0]))
    if name in ("midpoint", "private_mean", "private_mean_delta", "ssp_gaussian", "adassp", "ssp_gaussian_checked"):
        return name, DEFAULT_GRID[0]                       # no lambda: the same loss on every row
    if name == "non_personalized_pruned":
        standard = np.full(cell.levels.size, cell.levels.min())
        return "non_personalized", pruned_lambda(DEFAULT_GRID, standard, cell.d)
    B = "sharp" if name == "pdp_op_sharp_pruned" else None
    return _RELEASE[name], pruned_lambda(DEFAULT_GRID, cell.levels, cell.d, B=B)


PRIVATE = (tuple(m for m in comparison.METHODS if m not in comparison.NOT_PRIVATE + comparison.CHOSEN)
           + ("midpoint", "ssp_checked", "ssp_gaussian_checked"))
"""The releases the oracle chooses among: every private row of :data:`pdp_lib.io.comparison.METHODS`, the
midpoint, which spends nothing, and SSP's checked releases."""


def procedure_table(cells, procedures=PURE + APPROXIMATE) -> pd.DataFrame:
    """One row per (cell, procedure): the release and ``lambda`` chosen, its expected loss and that loss's Monte Carlo
    standard error (0 where it is exact), the oracle's loss, the ratio.

    The oracle of a pure procedure is the best pure release; of an approximate one, the best release of either
    kind (a pure release is also ``(epsilon_i, delta)``-DP)."""
    rows = []
    for cell in cells:
        pure_rows = [m for m in PRIVATE if m not in comparison.DELTA_METHODS + ("ssp_gaussian_checked",)]
        oracle = {"pure": float(cell.losses[pure_rows].min().min()),
                  "approximate": float(cell.losses[list(PRIVATE)].min().min())}
        for procedure in procedures:
            release, lam = _choice(cell, procedure)
            loss = float(cell.losses.loc[lam, release])
            kind = _guarantee(procedure)
            se = float(cell.losses.loc[lam, release + "_se"])
            rows.append((cell.table, cell.profile, cell.split, procedure, kind, release, lam, loss, se, oracle[kind],
                         loss / oracle[kind], float(cell.losses.loc[lam, "mean"])))
    return pd.DataFrame(rows, columns=["table", "profile", "split", "procedure", "guarantee", "release", "lam",
                                       "loss", "se", "oracle", "ratio", "training_mean"])


def checked_ratio(table: str, c: float, tau: float, *, gaussian: bool = False, draws: int = DRAWS,
                  delta: float = DELTA) -> tuple:
    """The automatic rule ``auto:c:tau`` (``gaussian``: ``auto_delta:tau`` at ``delta``, ``c`` unused) on one table
    with ``draws`` releases per cell: ``(ratio, log_se)`` of its loss to the private mean's (of the same guarantee),
    as :func:`per_table_ratio` gives from the benchmark's cells, with more releases where the benchmark's leave the
    answer open, or at another ``delta``."""
    logs, rels, of = [], [], []
    for profile in PROFILES:
        for split in SPLITS:
            of.append(split)
            sums = cell_sums(table, profile, split, delta=delta)
            levels = np.repeat(sums.levels, sums.counts.astype(int))
            total = float(np.sum(levels))
            if gaussian:
                mean = comparison.private_mean_loss(sums, gaussian=True)
                lam = comparison.gaussian_public_ridge(sums)
            else:
                mean = comparison.private_mean_loss(sums)
                lam = automatic.ssp_ridge(total, float(levels.min()), int(sums.d), c, DEFAULT_GRID)
            if automatic.budget_ratio(total, int(sums.d)) < tau:
                logs.append(0.0)
                rels.append(0.0)
                continue
            values, _ = comparison.checked_losses(sums, [lam], draws, split, gaussian=gaussian)[lam]
            logs.append(float(np.log(values.mean() / mean)))
            rels.append(float(values.std(ddof=1) / np.sqrt(draws) / values.mean()))
    return float(np.exp(np.mean(logs))), log_se_bound(rels, of)


def per_table_ratio(cells, procedure: str, mean: str) -> pd.DataFrame:
    """Each table's ratio of ``procedure``'s expected loss to ``mean``'s (a release whose loss is exact): the
    geometric mean over the table's cells, with a bound on the Monte Carlo standard error of its logarithm
    (:func:`log_se_bound`).  Index ``table``; columns ``ratio`` and ``log_se``."""
    table = procedure_table(cells, (procedure, mean))
    wide = table.pivot_table(index=["table", "profile", "split"], columns="procedure", values=["loss", "se"],
                             dropna=False)
    if wide["loss"].isna().any().any():
        raise ValueError(f"procedure = {procedure!r}, mean = {mean!r}: a loss is missing on "
                         f"{int(wide['loss'].isna().any(axis=1).sum())} (table, profile, split) cells; every table "
                         f"needs every profile and split, and the procedure a loss on each (its factor in C_GRID)")
    if not (wide["se"][mean] == 0.0).all():
        raise ValueError(f"mean = {mean!r}: its loss must be exact (a standard error of 0 on every cell)")
    logs = np.log(wide["loss"][procedure] / wide["loss"][mean])
    rel = (wide["se"][procedure] / wide["loss"][procedure]).rename("rel").reset_index()
    by = logs.groupby(level="table")
    return pd.DataFrame({"ratio": np.exp(by.mean()),
                         "log_se": {t: log_se_bound(part.rel.to_numpy(), part.split.to_numpy())
                                    for t, part in rel.groupby("table")}})


def rule_ratios(cells, chosen: dict) -> dict:
    """For each guarantee of ``chosen`` (``{"pure": procedure, "approximate": procedure}``), each table's ratio of the
    procedure's loss to the private mean's of the same guarantee (:func:`per_table_ratio`), with its band of two
    bounded standard errors either side (:func:`band`): guarantee -> frame of ``ratio, log_se, low, high``."""
    means = {"pure": "private_mean", "approximate": "private_mean_delta"}
    out = {}
    for guarantee, procedure in chosen.items():
        per = per_table_ratio(cells, procedure, means[guarantee])
        low, high = band(per.ratio, per.log_se)
        out[guarantee] = per.assign(low=low, high=high)
    return out


def profile_ratios(cells, procedure: str, mean: str) -> pd.Series:
    """Each (table, profile)'s ratio of ``procedure``'s expected loss to ``mean``'s: the geometric mean over that
    profile's splits (a table's :func:`per_table_ratio` averages its profiles too).  Index ``(table, profile)``."""
    table = procedure_table(cells, (procedure, mean))
    wide = table.pivot_table(index=["table", "profile", "split"], columns="procedure", values="loss")
    return (wide[procedure] / wide[mean]).groupby(level=["table", "profile"]).apply(geometric_mean)


def ridge_ratios(cells) -> pd.Series:
    """Each table's geometric mean over its cells of the non-private ridge's loss (at the grid's best ``lambda``, its
    intercept penalized like every feature) over the training mean's: below 0.5 where the ridge halves it."""
    ratios = pd.Series([cell.losses["non_private"].min() / cell.losses["mean"].iloc[0] for cell in cells],
                       index=[cell.table for cell in cells])
    return ratios.groupby(level=0).apply(geometric_mean)


def band(ratio, log_se, widths: float = 2.0) -> tuple:
    """``(low, high)``: ``ratio`` divided and multiplied by ``exp(widths * log_se)``, the band of ``widths``
    standard errors of the logarithm either side (:func:`per_table_ratio`, :func:`checked_ratio`); scalars or
    arrays."""
    spread = np.exp(widths * log_se)
    return ratio / spread, ratio * spread


def log_se_bound(rel, splits) -> float:
    r"""A bound on the standard error of the mean of the cells' log ratios, from each cell's relative standard error
    ``rel`` (the delta method) and its split.

    A cell's releases are drawn from the stream its split names, whatever the profile, so the cells of one split
    share their noise (scaled by the profile's levels) and their errors may be correlated, while different splits
    draw independently.  Without assuming more, the standard deviation of a split's sum is at most the sum of its
    cells' (the worst correlation, 1); the splits' variances add:
    :math:`\sqrt{\sum_s (\sum_{c \in s} r_c)^2} / n_\text{cells}`."""
    rel, splits = np.asarray(rel, dtype=float), np.asarray(splits)
    per_split = [rel[splits == s].sum() for s in np.unique(splits)]
    return float(np.sqrt(np.sum(np.square(per_split))) / rel.size)


def _guarantee(procedure: str) -> str:
    return ("approximate" if procedure in APPROXIMATE or procedure.startswith(("auto_delta", "group_delta"))
            else "pure")


FIRST_ROUND = {"pure": "auto_plain:0.4:50.0", "approximate": "auto_delta_plain:50.0"}
"""The rules the development tables chose in the benchmark's first round, before the evaluation tables were first
read: the plain ridge, which shrinks the intercept towards 0, and no check.  On the evaluation tables the first
round lost clearly to the private mean on some tables, worst on ``401ksubs``, whose labels sit far from the midpoint with a
small spread), so the second round added the centred ridge and the check (:mod:`pdp_lib.mechanisms.checked_ssp`)
and chose again on the development tables; the chapter reports both rounds."""


C_GRID = (0.2, 0.3, 0.4, 0.5, 0.7, 1.0)
"""The candidate factors of :func:`ssp_public_ridge`."""

TAU_GRID = (5.0, 10.0, 20.0, 30.0, 50.0, 100.0, 200.0)
"""The candidate thresholds of the automatic choices on :func:`budget_ratio`."""

FAMILY = {
    "pure": PURE + tuple(f"ssp_public:{c}" for c in C_GRID)
            + tuple(f"auto_plain:{c}:{tau}" for c in C_GRID for tau in TAU_GRID)
            + tuple(f"auto:{c}:{tau}" for c in C_GRID for tau in TAU_GRID),
    "approximate": APPROXIMATE + tuple(f"auto_delta_plain:{tau}" for tau in TAU_GRID)
                   + tuple(f"auto_delta:{tau}" for tau in TAU_GRID),
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


_GROUP_KINDS = (("pure", "group", "private_mean"), ("approximate", "group_delta", "private_mean_delta"))
"""Each guarantee's groups column and the private mean they are held against."""


def group_ratios(cells, chosen: dict) -> pd.DataFrame:
    """For each table of ``cells`` and each of its binary features, were it public: the private means per group
    (:class:`Cell`'s ``group:j`` and ``group_delta:j``) against the private mean of the same guarantee, exact, and
    against the shipped rule ``chosen[guarantee]`` (``{"pure": ..., "approximate": ...}``), with the rule's band of
    two standard errors (:func:`band`), each the geometric mean over the table's cells.

    The arithmetic is :func:`per_table_ratio`'s (the mean of the cells' log ratios, the rule's error bounded by
    :func:`log_se_bound`), with the rule's losses read once for every table and feature.  One row per (table,
    feature, guarantee): ``table``, ``column``, ``feature``, ``guarantee``, ``vs_mean`` (below 1: the groups beat
    the private mean), ``vs_rule``, ``low`` and ``high`` (below 1: they beat the rule)."""
    kinds = _GROUP_KINDS
    rules = procedure_table(cells, tuple(chosen[g] for g, _, _ in kinds))
    rows = []
    for table in dict.fromkeys(c.table for c in cells):
        mine = [c for c in cells if c.table == table]
        names = load_table(table).features
        for j in binary_columns(table):
            for guarantee, kind, mean in kinds:
                rule = rules[(rules.table == table) & (rules.procedure == chosen[guarantee])]
                if len(rule) != len(mine):
                    raise ValueError(f"table = {table!r}: the rule {chosen[guarantee]!r} has {len(rule)} cells of "
                                     f"{len(mine)}")
                group = np.array([float(c.losses[f"{kind}:{j}"].iloc[0]) for c in mine])
                base = np.array([float(c.losses[mean].iloc[0]) for c in mine])
                if np.isnan(group).any() or np.isnan(base).any():
                    raise ValueError(f"table = {table!r}, feature {j}: a loss is missing")
                ratio = float(np.exp(np.mean(np.log(rule.loss.to_numpy() / group))))
                log_se = log_se_bound((rule.se / rule.loss).to_numpy(), rule.split.to_numpy())
                low, high = band(1.0 / ratio, log_se)
                rows.append((table, j, names[j], guarantee, float(np.exp(np.mean(np.log(group / base)))),
                             1.0 / ratio, float(low), float(high)))
    return pd.DataFrame(rows, columns=["table", "column", "feature", "guarantee", "vs_mean", "vs_rule", "low", "high"])


def group_cells(cells, chosen: dict) -> pd.DataFrame:
    """Cell by cell, what :func:`group_ratios` averages: for each cell of ``cells``, each binary feature ``j`` and
    each guarantee, the private means per group over the private mean of the same guarantee (``ratio``), the same
    ratio with neither release's noise (``free``: the same split, rows and weights), and whether the shipped rule
    ``chosen[guarantee]`` releases the private mean in that cell (``rule_mean``).

    Columns ``table``, ``profile``, ``split``, ``column``, ``guarantee``, ``ratio``, ``free``, ``rule_mean``."""
    kinds = _GROUP_KINDS
    rules = procedure_table(cells, tuple(chosen[g] for g, _, _ in kinds)).set_index(
        ["table", "profile", "split", "guarantee"]).release
    rows = []
    for cell in cells:
        first = cell.losses.iloc[0]
        for j in binary_columns(cell.table):
            for guarantee, kind, mean in kinds:
                release = rules[cell.table, cell.profile, cell.split, guarantee]
                rows.append((cell.table, cell.profile, cell.split, j, guarantee,
                             float(first[f"{kind}:{j}"] / first[mean]),
                             float(first[f"{kind}_free:{j}"] / first[f"{mean}_free"]),
                             bool(release == mean)))
    return pd.DataFrame(rows, columns=["table", "profile", "split", "column", "guarantee", "ratio", "free",
                                       "rule_mean"])


def choose_steps(cells, kind: str = "gd_pure") -> int:
    """The steps ``T`` of :data:`GD_STEPS` whose noisy gradient descent under pure DP (``kind:T``, at the pruned
    rule's ``lambda``; ``kind`` :data:`GD_PURE` or :data:`GD_OPEN`) has the least geometric mean over ``cells`` of its
    expected loss over the private mean's: the development tables' choice when ``cells`` are theirs (ties to the
    fewer steps)."""
    if kind not in (GD_PURE, GD_OPEN):
        raise ValueError(f"kind = {kind!r} is not allowed; use {GD_PURE!r} or {GD_OPEN!r}")
    return int(_least_against_mean(cells, [f"{kind}:{steps}" for steps in GD_STEPS]).split(":")[-1])


def choose_centred(cells) -> str:
    """The setting ``"gd_pure_centred:s:T"`` (a share ``s`` of :data:`GD_SHARES`, steps ``T`` of :data:`GD_STEPS`)
    with the least geometric mean over ``cells`` of its expected loss over the private mean's: the development
    tables' choice when ``cells`` are theirs (ties to the fewer steps, then the smaller share)."""
    return _least_against_mean(cells, [f"{GD_CENTRED}:{share}:{steps}" for steps in GD_STEPS for share in GD_SHARES])


def _least_against_mean(cells, names: list) -> str:
    """The first of ``names`` with the least geometric mean over ``cells`` of its loss over the private mean's."""
    table = procedure_table(cells, tuple(names) + ("private_mean",))
    key = ["table", "profile", "split"]
    mean = table[table.procedure == "private_mean"].set_index(key).loss
    scores = {name: geometric_mean((table[table.procedure == name].set_index(key).loss / mean).to_numpy())
              for name in names}
    missing = [name for name, score in scores.items() if not np.isfinite(score)]
    if missing:
        raise ValueError(f"{missing[0]}: a loss is missing on some cells; every cell needs it at its pruned lambda")
    return min(names, key=lambda name: (scores[name], names.index(name)))


def ball_cells(cells, procedure: str) -> pd.DataFrame:
    """Per cell: the ratio of ``procedure``'s loss (a gradient descent of :func:`_choice` at the pruned rule's
    ``lambda``) to the private mean's, the same ratio for its steps without noise (``free_ratio``: the columns
    ``gd_free:T``, ``gd_open_free:T`` or ``gd_centred_free:T`` of :func:`gd_loss_parts`), and whether the training
    rows' weighted mean label lies in the ball the descent is confined to, ``|m| <= B(lambda)``
    (:func:`pdp_lib.bounds.norm_bound`): only then is the intercept-only model at that mean a point of the ball.
    Columns ``table, profile, split, ratio, free_ratio, radius, mean, inside``."""
    free_of = {GD_PURE: "gd_free", GD_OPEN: "gd_open_free", GD_CENTRED: "gd_centred_free"}
    rows = []
    for cell in cells:
        column, lam = _choice(cell, procedure)
        kind = column.split(":")[0]
        if kind not in free_of:
            raise ValueError(f"procedure = {procedure!r} is not a gradient descent under pure DP")
        radius = norm_bound(lam, cell.d)
        mean = cell.losses["private_mean"].iloc[0]
        free = cell.losses.loc[lam, f"{free_of[kind]}:{column.split(':')[-1]}"]
        rows.append((cell.table, cell.profile, cell.split, float(cell.losses.loc[lam, column] / mean),
                     float(free / mean), radius, cell.mean_label, abs(cell.mean_label) <= radius))
    return pd.DataFrame(rows, columns=["table", "profile", "split", "ratio", "free_ratio", "radius", "mean", "inside"])


def widened_cells(cells, procedure: str, draws: int = DRAWS) -> pd.DataFrame:
    """Per cell: the ratio to the private mean of the centred descent ``procedure`` (``"gd_pure_centred:s:T"``) run
    again from the same sums and streams with its ball widened to radius ``B(lambda) + 1``, which holds the
    intercept-only model at every mean label in ``[-1, 1]``; its noise grows with the radius (the sensitivity of
    :func:`pdp_lib.mechanisms.noisy_gd.gd_sensitivity`).  Columns ``table, profile, split, ratio, inside``
    (``inside`` as in :func:`ball_cells`, for the ball ``B(lambda)``)."""
    parts = procedure.split(":")
    if len(parts) != 3 or parts[0] != GD_CENTRED:
        raise ValueError(f"procedure = {procedure!r} is not a centred descent ({GD_CENTRED}:share:steps)")
    _, share, steps = parts
    rows = []
    for cell in cells:
        sums = cell_sums(cell.table, cell.profile, cell.split, masks=2)
        lam = pruned_lambda(DEFAULT_GRID, cell.levels, cell.d)
        radius = norm_bound(lam, cell.d)
        losses = centred_gd_losses(sums, lam, int(steps), float(share), draws, cell.split, radius=radius + 1.0)
        rows.append((cell.table, cell.profile, cell.split, float(losses.mean() / cell.losses["private_mean"].iloc[0]),
                     abs(cell.mean_label) <= radius))
    return pd.DataFrame(rows, columns=["table", "profile", "split", "ratio", "inside"])


def with_clipped(cells, settings, share: float, *, draws: int = DRAWS) -> list:
    """``cells`` with the clipped descent's columns added at the pruned rule's ``lambda`` (``nan`` elsewhere):
    ``gd_pure_clipped:s:C:T`` and its ``_se`` for each ``(C, T)`` of ``settings`` (:func:`clipped_gd_losses`, a mean
    over ``draws`` runs), and its steps without noise, ``gd_clipped_free:s:C:T``.  Each cell's sums and rows are
    read again (:func:`cell_sums`, :func:`cell_rows`); the cells themselves are left as they were."""
    out = []
    for cell in cells:
        sums, rows = cell_rows(cell.table, cell.profile, cell.split, sums=True)
        lam = pruned_lambda(DEFAULT_GRID, cell.levels, cell.d)
        at, extra = cell.losses.index == lam, {}
        for clip, steps in settings:
            name = f"{share}:{clip}:{steps}"
            losses = clipped_gd_losses(sums, rows, lam, steps, share, clip, draws, cell.split)
            free = clipped_gd_losses(sums, rows, lam, steps, share, clip, 1, cell.split, noise=False)
            extra[f"{GD_CLIPPED}:{name}"] = np.where(at, float(losses.mean()), np.nan)
            extra[f"{GD_CLIPPED}:{name}_se"] = np.where(at, float(losses.std(ddof=1) / np.sqrt(draws)), np.nan)
            extra[f"gd_clipped_free:{name}"] = np.where(at, float(free[0]), np.nan)
        losses = pd.concat([cell.losses, pd.DataFrame(extra, index=cell.losses.index)], axis=1)
        out.append(dataclasses.replace(cell, losses=losses))
    return out


def choose_clipped(cells, share: float) -> str:
    """The setting ``"gd_pure_clipped:s:C:T"`` (share ``share``, a clip of :data:`CLIPS`, steps of
    :data:`CLIPPED_STEPS`) with the least geometric mean over ``cells`` (from :func:`with_clipped`) of its expected
    loss over the private mean's: the development tables' choice when ``cells`` are theirs (ties to the fewer steps,
    then the smaller clip)."""
    return _least_against_mean(cells, [f"{GD_CLIPPED}:{share}:{clip}:{steps}" for steps in CLIPPED_STEPS
                                       for clip in CLIPS])


def free_ratios(cells, columns) -> pd.DataFrame:
    """Each table's geometric mean over its cells of the loss in each of ``columns`` over the private mean's, read at
    the pruned rule's ``lambda`` (the noise-free parts of :func:`gd_loss_parts` and :func:`with_clipped`).  Index
    ``table``, one column per name of ``columns``."""
    rows = []
    for cell in cells:
        lam = pruned_lambda(DEFAULT_GRID, cell.levels, cell.d)
        mean = float(cell.losses["private_mean"].iloc[0])
        rows.append([cell.table] + [float(cell.losses.loc[lam, column]) / mean if column in cell.losses else np.nan
                                    for column in columns])
    frame = pd.DataFrame(rows, columns=["table", *columns])
    if frame[list(columns)].isna().any().any():
        raise ValueError(f"columns = {list(columns)}: a loss is missing at the pruned rule's lambda on some cells")
    return frame.groupby("table").agg(geometric_mean)
