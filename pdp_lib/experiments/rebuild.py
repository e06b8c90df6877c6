"""Rebuild any table or figure of the paper: plan the draws, evaluate them once, assemble.

:func:`reproduce` returns one target as a long table with the columns
``param, column, value, low, high, paper`` (the command line's CSV, :mod:`pdp_lib.cli`) and a
Monte Carlo standard error ``se``; :func:`reproduce_many` rebuilds several targets at once and
evaluates each distinct configuration (data draw, training subset, profile) a single time,
for all the ``lambda`` values the targets need.

``value`` is the statistic the paper reports (mean over runs; standard deviation in Tables
13-14 and the standard-deviation figures) for the draw made from ``seed``; ``low`` and
``high`` are the 2.5% and 97.5% quantiles of ``value`` over ``replicates`` independent draws
of what the paper drew at random (:mod:`pdp_lib.experiments.draws`; replicate 0 is the main
draw), including the Monte Carlo error of the paper's 10,000-run averages, empty (NaN) when
``replicates == 1``; ``paper`` is the published value (:mod:`pdp_lib.experiments.published`; NaN for figures).
The defaults are the book's (:mod:`pdp_lib.experiments.settings`), so the command line and
the chapters show the same band.
"""

from __future__ import annotations

import sys
from collections import OrderedDict, defaultdict
from dataclasses import replace

import numpy as np
import pandas as pd
from tqdm import tqdm

from ..validation import check_count
from .draws import draw_data, draw_profile, mask_seed, mixture_seed, seed_sequence, training_points
from .engine import evaluate_sweep
from .mixtures import METHODS as MIXTURE_METHODS, method_mixtures
from .settings import BOUNDS, MIXTURE_MASKS, PAPER_RUNS, REPLICATE_RUNS, RUNS, SEED, SPLIT, SPLITS
from .targets import BEYOND_METHODS, METHODS, TARGET_NAMES, get_target

__all__ = ["reproduce", "reproduce_many", "published_values", "to_markdown", "OUTPUT_COLUMNS"]

OUTPUT_COLUMNS = ("param", "column", "value", "low", "high", "paper")

KEPT_SWEEPS = 4096
"""How many replicate sweeps :func:`reproduce_many` keeps for :func:`kept_sweep` (the oldest go first)."""

_SWEEPS: OrderedDict = OrderedDict()


def sweep_key(dataset, profile, fraction, *, seed, replicate, vary_split, lams, runs, methods, B=None) -> tuple:
    """Every input of one :func:`pdp_lib.experiments.evaluate_sweep` call of :func:`reproduce_many`.

    The data, split, training subset, profile and mask streams are functions of ``(dataset, seed,
    replicate, vary_split, profile, fraction)`` (:mod:`pdp_lib.experiments.draws`); the rest are the
    call's own arguments, ``lams`` in the order given.
    """
    return (str(dataset), profile, fraction, int(seed), int(replicate), bool(vary_split),
            tuple(float(v) for v in lams), int(runs), tuple(methods), B)


def kept_sweep(key: tuple):
    """The sweep :func:`reproduce_many` evaluated for ``key`` (:func:`sweep_key`) in this process, or ``None``.

    A memo of a pure function of its key: :func:`pdp_lib.replication.claim_numbers.draw_values` reads
    back the replicates of the bands instead of evaluating them again.  Only ``lams``, ``runs``,
    ``mean`` and ``std`` are kept (what :meth:`SweepResult.statistic` reads; the other fields are
    empty), as read-only arrays.
    """
    found = _SWEEPS.get(key)
    if found is not None:
        _SWEEPS.move_to_end(key)
    return found


def _frozen(values) -> np.ndarray:
    values = np.array(values)          # a copy: the caller's arrays stay its own
    values.flags.writeable = False
    return values


def _keep(key: tuple, result):
    """``result``'s ``lams``, ``mean`` and ``std``, read-only, kept under ``key`` (at most :data:`KEPT_SWEEPS`)."""
    kept = replace(result, lams=_frozen(result.lams), mean={c: _frozen(v) for c, v in result.mean.items()},
                   std={c: _frozen(v) for c, v in result.std.items()}, mean_se={}, std_se={}, naive_se={},
                   kept={}, thresholds={})
    _SWEEPS[key] = kept
    _SWEEPS.move_to_end(key)
    while len(_SWEEPS) > KEPT_SWEEPS:
        _SWEEPS.popitem(last=False)
    return kept


def published_values(target: str) -> dict:
    """Published values of the table ``target`` as ``{(param_label, column): value}``.

    Read from :mod:`pdp_lib.experiments.published`.  Every cell the target's specification names must be
    published and every published cell must be one the specification names: a cell that
    cannot be matched raises a ``LookupError`` naming the target, the table and the cell,
    so that a published value never silently drops out of a comparison.

    Raises
    ------
    ValueError
        If ``target`` is not a target, or is a figure (the paper prints no values for
        its figures).
    LookupError
        If a published cell and the specification disagree.
    """
    from . import published  # noqa: PLC0415 - the transcription is read only when asked for

    spec = get_target(target)
    if spec.kind != "table":
        raise ValueError(f"target = {target!r} has no published values: the paper prints "
                         f"numbers only for its tables ('table-1' ... 'table-14')")
    data = published.published(target)
    table = int(target.split("-")[1])
    values = {(str(p), str(c)): float(v)
              for p, c, v in data[["param", "column", "value"]].itertuples(index=False)}
    wanted = {(label, column) for label in spec.param_labels for column in spec.columns}
    missing = sorted(wanted - set(values))
    extra = sorted(set(values) - wanted)
    if missing:
        label, column = missing[0]
        raise LookupError(f"target {target!r}: Table {table} has no published value for the cell "
                          f"(param {label}, column {column}); {len(missing)} cell(s) missing")
    if extra:
        label, column = extra[0]
        raise LookupError(f"target {target!r}: Table {table} publishes the cell (param {label}, "
                          f"column {column}), which the target's specification does not name; "
                          f"{len(extra)} such cell(s)")
    return values


def _config_key(spec, value):
    profile, fraction, lam = spec.point(value)
    return (spec.dataset, profile, fraction), lam


def reproduce_many(targets, *, runs=RUNS, seed=SEED, replicates=1, replicate_runs=None,
                   paper_runs=PAPER_RUNS, split=SPLIT, bound="paper", columns=None,
                   std_error="exact", progress=False, draws=None) -> dict:
    """Rebuild several targets, sharing every draw and evaluation they have in common.

    Parameters
    ----------
    targets : sequence of str
        Names from :data:`pdp_lib.experiments.TARGET_NAMES`.
    runs : int, default 10000
        Runs per cell (the paper's 10,000); only the Jorgensen columns depend on it.
    seed : int, default 2024
        Root of every random draw (:func:`pdp_lib.experiments.draws.seed_sequence`); the
        default is the book's (:mod:`pdp_lib.experiments.settings`).
    replicates : int, default 1
        Independent draws of data, split and profile for the ``low``/``high`` quantiles.
    replicate_runs : int, optional
        Runs per cell for replicates 1, 2, ... (replicate 0, whose ``value`` is reported,
        always uses ``runs``).  Fewer runs suffice where the Monte Carlo error of the
        Jorgensen columns stays far below the spread between draws; ``None`` means the
        book's 100 (``settings.REPLICATE_RUNS``), or ``runs`` when that is smaller.
    paper_runs : int or None, default 10000
        When given, ``low``/``high`` describe what a ``paper_runs``-run Monte Carlo estimate
        (the paper's procedure) would print: each replicate's value plus a Gaussian draw with
        that estimate's standard error: ``std / sqrt(paper_runs)`` for means, and for standard
        deviations the exact ``sqrt(mu4 - sigma^4) / (2 sigma sqrt(paper_runs))`` from the
        loss's fourth central moment over runs (:meth:`pdp_lib.mixtures.LossMixture.std_error`;
        for Jorgensen et al. over ``MIXTURE_MASKS`` masks of each replicate), which the loss's
        heavy tail makes larger than the normal theory's ``std / sqrt(2 paper_runs)``.  The band over
        draws alone is always returned as ``low_draws``/``high_draws``.  The default is the
        paper's 10,000 runs, as in the book and on the command line; ``None`` leaves the
        Monte Carlo error out and makes the two bands equal.
    split : {"paper", "redraw"}, default "paper"
        ``"paper"``: every replicate keeps the paper's Medical Cost split and training
        subsets (``random_state=21``), which are reproduced exactly, so the band shows only
        what differed between the paper's run and this one: the privacy profile, the masks
        and the noise.  ``"redraw"``: replicates 1, 2, ... redraw them too.  The synthetic
        data are redrawn in every replicate either way (the paper's draw is unknown).
    bound : {"paper", "sharp"}, default "paper"
        The norm bound every private mechanism is calibrated with: the paper's
        ``B(lambda)`` (Theorem 3.1, what the published numbers used) or the exact supremum
        ``B*(lambda)`` (``B="sharp"`` of :func:`pdp_lib.calibrate`), which keeps every
        guarantee with less noise.  The published values stay the paper's.
    columns : sequence of str, optional
        Compute only these columns of each target (e.g. the exact PDP-OP columns, which need
        no Monte Carlo); ``None``: every column the target prints.
    std_error : {"exact", "normal"}, default "exact"
        The Monte Carlo error of a published standard deviation: ``"exact"`` from the loss's
        fourth moment (above), ``"normal"`` the normal theory's ``std / sqrt(2 paper_runs)``,
        which understates it (kept to show what the exact error changes).
    progress : bool, default False
        Show a progress bar on stderr (the command line turns it on).
    draws : dict, optional
        When given (empty), filled with what the bands are taken over, for
        :mod:`pdp_lib.experiments.cache` to store: ``"frames"``, per target when ``replicates > 1``, the value of
        each printed cell in replicates ``1, 2, ...`` (columns ``param``, ``column``, ``replicate``, ``value``:
        what :func:`pdp_lib.replication.claim_numbers.draw_values` returns; replicate 0 is the table's
        ``value``), and ``"settings"``, what those values depend on besides the target, the code and the machine
        (``seed``, ``replicates``, ``replicate_runs`` as used, ``split``, ``bound``).  Not part of the result.

    Returns
    -------
    dict of str -> pandas.DataFrame
        One long table per target (see :func:`reproduce`) with the extra columns
        ``low_draws`` and ``high_draws``, and ``spread``: ``1.4826`` times the median absolute
        deviation of ``value`` over the draws (NaN for one replicate), a robust estimate of its
        standard deviation that the choice of the seed moves far less than the band's ends.
    """
    if draws is not None and not isinstance(draws, dict):
        raise ValueError(f"draws = {draws!r} is not allowed; give an empty dict to fill, or None")
    specs = [get_target(t) for t in targets]
    runs = check_count(runs, "runs")
    seed = check_count(seed, "seed", minimum=0)
    replicates = check_count(replicates, "replicates")
    replicate_runs = (min(runs, REPLICATE_RUNS) if replicate_runs is None
                      else check_count(replicate_runs, "replicate_runs"))
    if paper_runs is not None:
        paper_runs = check_count(paper_runs, "paper_runs")
    if split not in SPLITS:
        raise ValueError(f"split = {split!r} is not one of the allowed values {SPLITS}")
    if bound not in BOUNDS:
        raise ValueError(f"bound = {bound!r} is not one of the allowed values {BOUNDS}")
    if std_error not in ("exact", "normal"):
        raise ValueError(f"std_error = {std_error!r} is not one of the allowed values ('exact', 'normal')")
    B = None if bound == "paper" else "sharp"
    vary_split = split == "redraw"

    needs = defaultdict(set)  # (dataset, profile, fraction) -> lambdas
    methods_needed = defaultdict(set)  # (dataset, profile, fraction) -> methods of the columns shown
    std_needs = defaultdict(lambda: defaultdict(set))  # ... -> method -> lambdas of a standard deviation's band
    shown = {}
    for spec in specs:
        shown[spec.name] = tuple(c for c in spec.columns if columns is None or c in columns)
        if not shown[spec.name]:
            raise ValueError(f"columns = {columns!r} keeps no column of {spec.name!r}; its columns: {spec.columns}")
        for value in spec.sweep_values:
            key, lam = _config_key(spec, value)
            needs[key].add(lam)
            methods_needed[key].update(c.partition("_")[2] for c in shown[spec.name])
            if spec.statistic == "std" and paper_runs is not None and replicates > 1 and std_error == "exact":
                for c in shown[spec.name]:
                    std_needs[key][c.partition("_")[2]].add(lam)
    configs = sorted(needs, key=lambda k: (k[0], k[2], repr(k[1])))

    results, mixtures = {}, {}
    bar = tqdm(total=len(configs) * replicates, disable=not progress, file=sys.stderr,
               desc="reproduce", unit="config")
    try:
        for rep in range(replicates):
            data = {}
            for key in configs:
                dataset, profile, fraction = key
                if dataset not in data:
                    data[dataset] = draw_data(dataset, seed, rep, vary_split=vary_split)
                draw = data[dataset]
                X, y = training_points(draw, fraction)
                n = X.shape[0]
                eps = draw_profile(draw, profile, n)
                lams = sorted(needs[key])
                rep_runs = runs if rep == 0 else replicate_runs
                methods = tuple(m for m in METHODS + BEYOND_METHODS if m in methods_needed[key])
                res = evaluate_sweep(X, y, draw.X_test, draw.y_test, eps, lams, runs=rep_runs,
                                     rng=mask_seed(draw, profile, n), methods=methods, B=B)
                results[rep, key] = replace(res, kept={})  # keep only the statistics
                if rep > 0:  # a replicate of the bands: draw_values reads it back (kept_sweep)
                    _keep(sweep_key(dataset, profile, fraction, seed=seed, replicate=rep, vary_split=vary_split,
                                    lams=lams, runs=rep_runs, methods=methods, B=B), res)
                if key in std_needs:  # the loss's exact fourth moments, per method (own streams)
                    streams = mixture_seed(draw, profile, n).spawn(len(MIXTURE_METHODS))
                    for method, method_lams in std_needs[key].items():
                        mixtures[rep, key, method] = method_mixtures(
                            method, X, y, draw.X_test, draw.y_test, eps, sorted(method_lams),
                            masks=MIXTURE_MASKS, B=B, rng=streams[MIXTURE_METHODS.index(method)])
                bar.update(1)
    finally:
        bar.close()

    tables, draws_of = {}, {}
    for spec in specs:
        paper = published_values(spec.name) if spec.kind == "table" else {}
        rows, draw_rows = [], []
        for label, value in zip(spec.param_labels, spec.sweep_values):
            key, lam = _config_key(spec, value)
            per_rep = [results[rep, key] for rep in range(replicates)]
            j = int(np.flatnonzero(per_rep[0].lams == lam)[0])
            for column in shown[spec.name]:
                vals = np.array([r.statistic(column, spec.statistic)[j] for r in per_rep])
                se = float(per_rep[0].standard_error(column, spec.statistic)[j])
                draw_rows += [(label, column, rep, float(vals[rep])) for rep in range(1, replicates)]
                if replicates > 1:
                    low_d, high_d = np.quantile(vals, [0.025, 0.975])
                    low, high = low_d, high_d
                    if paper_runs is not None:
                        if spec.statistic == "mean":
                            errors = np.array([r.std[column][j] for r in per_rep]) / np.sqrt(paper_runs)
                        elif std_error == "normal":
                            errors = np.array([r.std[column][j] for r in per_rep]) / np.sqrt(2 * paper_runs)
                        else:
                            kind, _, method = column.partition("_")
                            errors = np.array([mixtures[rep, key, method][kind, float(lam)].std_error(
                                1.0, "std", paper_runs) for rep in range(replicates)])
                        cell_key = (TARGET_NAMES.index(spec.name), spec.param_labels.index(label),
                                    spec.columns.index(column))
                        # the paper's Monte Carlo error: one stream per target and cell
                        xi = np.random.default_rng(seed_sequence(seed, 7, *cell_key)).standard_normal(replicates)
                        low, high = np.quantile(vals + errors * xi, [0.025, 0.975])
                    spread = 1.4826 * np.median(np.abs(vals - np.median(vals)))
                else:
                    low = high = low_d = high_d = spread = np.nan
                rows.append((label, column, float(vals[0]), float(low), float(high),
                             paper.get((label, column), np.nan), se, float(low_d), float(high_d), float(spread)))
        tables[spec.name] = pd.DataFrame(
            rows, columns=list(OUTPUT_COLUMNS) + ["se", "low_draws", "high_draws", "spread"])
        if replicates > 1:
            draws_of[spec.name] = pd.DataFrame(draw_rows, columns=["param", "column", "replicate", "value"])
    if draws is not None:
        draws.update(frames=draws_of, settings={"seed": seed, "replicates": replicates,
                                                "replicate_runs": replicate_runs, "split": split, "bound": bound})
    return tables


def reproduce(target, *, runs=RUNS, seed=SEED, replicates=1, replicate_runs=None,
              paper_runs=PAPER_RUNS, split=SPLIT, bound="paper", columns=None,
              progress=False) -> pd.DataFrame:
    """Rebuild one table or figure of the paper.

    Parameters
    ----------
    target : str
        ``"table-1"`` ... ``"table-14"`` or ``"figure-1"`` ... ``"figure-18"``.
    runs, seed, replicates, replicate_runs, paper_runs, split, bound, columns, progress
        As in :func:`reproduce_many`.

    Returns
    -------
    pandas.DataFrame
        Columns ``param, column, value, low, high, paper, se``: one row per printed sweep
        value and column of the paper (``se`` is the Monte Carlo standard error of ``value``,
        0 for the exact columns).
    """
    return reproduce_many([target], runs=runs, seed=seed, replicates=replicates,
                          replicate_runs=replicate_runs, paper_runs=paper_runs,
                          split=split, bound=bound, columns=columns, progress=progress)[target]


_SWEEP_NAMES = {"lam": "λ", "eps_c": "ε_c", "eps_m": "ε_m", "f_c": "f_c", "fraction": "fraction of training set"}


def to_markdown(target: str, table: pd.DataFrame, columns=None) -> str:
    """A Markdown (MyST) table of one rebuilt target: rebuilt value, range and published value.

    ``table`` is the output of :func:`reproduce` for ``target`` (or a subset of its rows); each
    cell reads ``value [low, high] (paper p)`` at three significant digits.  ``columns``: the
    target's columns to show (all by default), for a table that must fit a page.
    """
    from ..formatting import markdown_table
    from ..formatting import sci_loss as sci

    spec = get_target(target)
    shown = list(spec.columns) if columns is None else [c for c in spec.columns if c in set(columns)]
    if columns is not None and len(shown) != len(set(columns)):
        raise ValueError(f"columns = {list(columns)!r} must be columns of {target}: {list(spec.columns)}")
    present = set(table["param"])
    rows = []
    for label in (p for p in spec.param_labels if p in present):
        cells = [label]
        for column in shown:
            row = table[(table["param"] == label) & (table["column"] == column)].iloc[0]
            text = sci(row["value"])
            if np.isfinite(row["low"]):
                text += f" [{sci(row['low'])}, {sci(row['high'])}]"
            if np.isfinite(row["paper"]):
                text += f" (paper {sci(row['paper'])})"
            cells.append(text)
        rows.append(cells)
    title = f"**{target}** ({spec.statistic} over runs): {spec.caption}"
    return f"{title}\n\n" + markdown_table([_SWEEP_NAMES[spec.sweep], *shown], rows) + "\n"
