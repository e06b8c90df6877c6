"""The numbers a claim of the paper's Section 4 is judged on: rebuilt, published, and every draw.

Frames with one row per point and the columns ``<loss>_<method>`` (:func:`values_frame`), the
published cells that the authors' own outputs show misprinted (:func:`misprinted_cells`), the
draws behind the book's 95% bands recomputed from the same seeds (:func:`draw_values`, checked
against the bands by :func:`band_deviation`), and the distribution of the small-lambda factor
over standard DP over profile draws (:func:`small_lambda_factor`).  The rules that read these
numbers are in :mod:`pdp_lib.replication.claims`.
"""


from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd

from ..experiments.settings import REPLICATE_RUNS, SEED, SPLIT, SPLITS
from ..experiments.draws import draw_data, draw_profile, mask_seed, training_points
from ..experiments.engine import evaluate_sweep
from ..experiments.rebuild import kept_sweep, sweep_key
from ..experiments.targets import METHODS, get_target
from ..profiles import DEFAULT_PROFILE, privacy_profile
from .authors import disagreements

__all__ = [
    "values_frame",
    "MISPRINTS",
    "misprinted_cells",
    "draw_values",
    "band_deviation",
    "draw_frames",
    "small_lambda_factor",
]



def values_frame(results: dict, targets, field: str = "value", exclude=()) -> pd.DataFrame:
    """The numbers of ``targets`` as one frame, indexed by ``(target, param)``.

    Parameters
    ----------
    results : mapping
        Target -> long table of :func:`pdp_lib.experiments.reproduce_many`.
    targets : sequence of str
    field : {"value", "paper", "low", "high", ...}
        The column of the long tables to read (``"paper"``: the published values; NaN for
        figures).
    exclude : collection of (target, param, column)
        Cells to leave out (set to NaN), e.g. :func:`misprinted_cells`.
    """
    frames = []
    exclude = set(exclude)
    for target in targets:
        spec = get_target(target)
        table = results[target].copy()
        if exclude:
            drop = [(target, p, c) in exclude for p, c in zip(table["param"], table["column"])]
            table.loc[drop, field] = np.nan
        frame = table.pivot(index="param", columns="column", values=field).loc[list(spec.param_labels)]
        frame.index = pd.MultiIndex.from_product([[target], frame.index], names=["target", "param"])
        frames.append(frame.astype(float))
    return pd.concat(frames)


MISPRINTS = ("power of ten", "value")
"""The disagreements with the authors' outputs that are misprints: beyond the printed last digit."""


def misprinted_cells(kinds=MISPRINTS) -> set:
    """``(target, param, column)`` of the published cells that the authors' own outputs show misprinted.

    These are the disagreements of :func:`pdp_lib.disagreements` whose ``discrepancy`` is one of
    ``kinds`` (by default a power of ten or a wrong value; a last digit that differs is the
    printing's rounding, not a misprint).  The published numbers a claim is judged on leave
    them out.
    """

    d = disagreements()
    d = d[d["discrepancy"].isin(kinds)]
    return {(f"table-{t}", str(p), str(c)) for t, p, c in zip(d["table"], d["param"], d["column"])}


def draw_values(results: dict, targets, *, replicates: int, seed: int = SEED, replicate_runs=None,
                split: str = SPLIT) -> dict:
    """Every draw behind the book's 95% bands, one frame per draw and target.

    Draw 0 is the rebuilt value of ``results`` (``value``); draws ``1 ... replicates - 1`` are
    evaluated here exactly as :func:`pdp_lib.experiments.reproduce_many` evaluates its
    replicates (the same data, split, profile and mask streams, ``replicate_runs`` Jorgensen
    masks), so that their quantiles are the bands' ``low_draws`` and ``high_draws``
    (:func:`band_deviation` checks it).  A target whose draws :func:`pdp_lib.experiments.reproduce_cached`
    stored when it computed the target (:func:`pdp_lib.experiments.cache.stored_draws`, the same settings, code
    and machine) has them read back instead, the same floats.

    Parameters
    ----------
    results : mapping
        Target -> long table of ``reproduce_many(targets, replicates=replicates, seed=seed, ...)``.
    targets : sequence of str
    replicates : int
        The draws behind the bands of ``results`` (the book's ``REPLICATES`` for tables,
        ``FIGURE_REPLICATES`` for figures).
    seed, replicate_runs, split
        As given to ``reproduce_many`` (the book's settings by default).

    Returns
    -------
    dict of str -> list of pandas.DataFrame
        Per target, ``replicates`` frames indexed by the printed sweep values.
    """

    if split not in SPLITS:
        raise ValueError(f"split = {split!r} is not one of the allowed values {SPLITS}")
    replicate_runs = REPLICATE_RUNS if replicate_runs is None else int(replicate_runs)
    specs = [get_target(t) for t in targets]
    stored = {spec.name: _stored_frames(spec, seed, replicates, replicate_runs, split) for spec in specs}
    needs, methods = defaultdict(set), defaultdict(set)
    for spec in (s for s in specs if stored[s.name] is None):      # the others are evaluated below
        for value in spec.sweep_values:
            profile, fraction, lam = spec.point(value)
            needs[spec.dataset, profile, fraction].add(lam)
            methods[spec.dataset, profile, fraction].update(c.partition("_")[2] for c in spec.columns)
    out = {}
    for spec in specs:
        first = results[spec.name].pivot(index="param", columns="column", values="value")
        out[spec.name] = [first.loc[list(spec.param_labels), list(spec.columns)].astype(float)]
        out[spec.name] += stored[spec.name] or []
    for rep in range(1 if needs else replicates, replicates):
        evaluated, data = {}, {}
        for key in sorted(needs, key=lambda k: (k[0], k[2], repr(k[1]))):
            dataset, profile, fraction = key
            if dataset not in data:
                data[dataset] = draw_data(dataset, seed, rep, vary_split=split == "redraw")
            draw = data[dataset]
            X, y = training_points(draw, fraction)
            n = X.shape[0]
            lams = sorted(needs[key])
            chosen = tuple(m for m in METHODS if m in methods[key])
            # the very sweep reproduce_many evaluated for these bands in this process, if it did (same inputs)
            evaluated[key] = kept_sweep(sweep_key(dataset, profile, fraction, seed=seed, replicate=rep,
                                                  vary_split=split == "redraw", lams=lams, runs=replicate_runs,
                                                  methods=chosen))
            if evaluated[key] is None:
                eps = draw_profile(draw, profile, n)
                evaluated[key] = evaluate_sweep(X, y, draw.X_test, draw.y_test, eps, lams, runs=replicate_runs,
                                                rng=mask_seed(draw, profile, n), methods=chosen)
        for spec in (s for s in specs if stored[s.name] is None):
            rows = []
            for value in spec.sweep_values:
                profile, fraction, lam = spec.point(value)
                res = evaluated[spec.dataset, profile, fraction]
                j = int(np.flatnonzero(res.lams == lam)[0])
                rows.append([float(res.statistic(c, spec.statistic)[j]) for c in spec.columns])
            out[spec.name].append(pd.DataFrame(rows, index=pd.Index(spec.param_labels, name="param"),
                                               columns=list(spec.columns)))
    return out


def _stored_frames(spec, seed, replicates: int, replicate_runs: int, split: str):
    """Draws ``1 ... replicates - 1`` of ``spec`` from the cache (:func:`pdp_lib.experiments.cache.stored_draws`,
    the paper's bound as :func:`draw_values` evaluates), as :func:`draw_values` frames; ``None`` unless every
    printed cell of every draw is there."""
    from ..experiments.cache import stored_draws       # noqa: PLC0415 - the cache reads the code's digest

    if replicates < 2 or any(c.partition("_")[2] not in METHODS for c in spec.columns):
        return None                             # draw_values evaluates the paper's methods only
    long = stored_draws(spec.name, seed=seed, replicates=replicates, replicate_runs=replicate_runs, split=split)
    if long is None or len(long) != len(spec.param_labels) * len(spec.columns) * (replicates - 1):
        return None
    values = {(p, c, int(r)): v for p, c, r, v in long[["param", "column", "replicate", "value"]].itertuples(
        index=False)}
    frames = []
    for rep in range(1, replicates):
        rows = [[values.get((label, column, rep)) for column in spec.columns] for label in spec.param_labels]
        if any(v is None for row in rows for v in row):
            return None
        frames.append(pd.DataFrame(rows, index=pd.Index(spec.param_labels, name="param"),
                                   columns=list(spec.columns), dtype=float))
    return frames


def band_deviation(draws: dict, results: dict) -> float:
    """Largest relative difference between the draws' 2.5%/97.5% quantiles and the bands.

    The bands are ``low_draws``/``high_draws`` of the long tables (the draws alone, without the
    Monte Carlo error of the paper's averages); zero up to rounding when :func:`draw_values`
    recomputed the very draws behind them.
    """
    worst = 0.0
    for target, frames in draws.items():
        stack = np.stack([f.to_numpy(float) for f in frames])
        low, high = np.quantile(stack, [0.025, 0.975], axis=0)
        table = results[target]
        first = frames[0]
        for field, q in (("low_draws", low), ("high_draws", high)):
            band = table.pivot(index="param", columns="column", values=field).loc[first.index, first.columns]
            ref = band.to_numpy(float)
            scale = np.maximum(np.abs(ref), np.finfo(float).tiny)
            worst = max(worst, float(np.max(np.abs(q - ref) / scale)))
    return worst


def draw_frames(draws: dict, targets) -> list:
    """One frame per draw for the points of ``targets``, as :func:`values_frame` lays them out.

    Only the draws that every target has are kept (the book draws its tables
    ``REPLICATES`` times and its figures ``FIGURE_REPLICATES`` times, the first draws shared).
    """
    count = min(len(draws[t]) for t in targets)
    frames = []
    for i in range(count):
        parts = []
        for target in targets:
            f = draws[target][i].copy()
            f.index = pd.MultiIndex.from_product([[target], f.index], names=["target", "param"])
            parts.append(f)
        frames.append(pd.concat(parts))
    return frames


def small_lambda_factor(n: int, spec=None, *, draws: int = 20_000, rng=None) -> np.ndarray:
    r"""The factor non-personalized ÷ PDP-OP where the noise dominates, over simulated profiles.

    Both mechanisms add noise with the same :math:`(d+1)\operatorname{tr}A` and
    :math:`\eta \propto \sum_i\varepsilon_i` (PDP-OP) or :math:`n\min_i\varepsilon_i`
    (non-personalized), so where the noise terms dominate the factor between their expected
    losses is :math:`\bigl(\sum_i\varepsilon_i / (n\min_i\varepsilon_i)\bigr)^2`, a function of
    the profile alone (Section 4.1; the chapter *Errata and claims*).

    Parameters
    ----------
    n : int
        Training points.
    spec : ProfileSpec, optional
        The profile (default: the paper's default profile of Section 4).
    draws : int, default 20000
        Simulated profiles.
    rng : numpy.random.Generator or seed, optional

    Returns
    -------
    numpy.ndarray of shape (draws,)
    """

    spec = DEFAULT_PROFILE if spec is None else spec
    rng = np.random.default_rng(rng)
    sims = np.array([privacy_profile(n, spec, rng=rng) for _ in range(int(draws))])
    return (sims.sum(axis=1) / (n * sims.min(axis=1))) ** 2
