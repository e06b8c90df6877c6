"""Verdicts on the published cells: inside or outside their rebuilt bands, how sharp, the headline.

One module for the rules, so that the rendering of the rebuilt tables (:mod:`.rendering`), the
readings after them (:mod:`.readings`), the explanation of the misses (:mod:`.misses`) and the
headline claims (:mod:`.claims`) judge a cell the same way.  Used in the book's chapters that
rebuild the paper's tables and in *How much does a number move? Errata and claims*.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..experiments.settings import SHARP_WIDTH
from ..formatting import is_machine_zero, printed_half_unit

__all__ = ["band_verdicts", "band_coverage", "band_summary", "fidelity_headline", "sharpness_changes"]


def band_verdicts(table: pd.DataFrame, *, rounding: bool = True, sharpness: str = "spread") -> pd.DataFrame:
    """Per published cell: ratio published / rebuilt, the band's verdict and how sharp it is.

    Parameters
    ----------
    table : pandas.DataFrame
        A long table of :func:`pdp_lib.experiments.reproduce` (``param, column, value, low,
        high, paper``, and ``spread`` for ``sharpness="spread"``).
    rounding : bool, default True
        Judge a published value with its printed rounding: the paper prints three significant
        digits, so ``P`` stands for any value in ``[P - h, P + h]`` with ``h`` half a unit of its
        last digit (:func:`pdp_lib.formatting.printed_half_unit`), and the cell is inside when
        that interval meets the band.  ``False`` judges ``P`` as an exact number.
    sharpness : {"spread", "band"}, default "spread"
        What makes a cell *sharp*: ``"spread"``, a 95% width ``2 × 1.96 × spread`` (the robust
        standard deviation over the draws, see :func:`pdp_lib.experiments.reproduce_many`)
        below ``SHARP_WIDTH`` of the value, an estimate the seed moves little; ``"band"``, the
        band's own width ``high - low``, whose ends are single order statistics of the draws
        and move with the seed.

    Returns
    -------
    pandas.DataFrame
        The rows whose ``paper`` is known, with the extra columns

        ``machine_zero``  rebuilt and published values both zero up to rounding
                          (:data:`pdp_lib.formatting.MACHINE_ZERO`): nothing to judge;
        ``fixed``         a band of zero width: nothing in the cell is random (an exact
                          column whose inputs the draws do not move), judged but counted apart;
        ``rounding``      ``h``, half a unit of the published value's last printed digit (0
                          with ``rounding=False``);
        ``ratio``         published / rebuilt (NaN for machine-zero cells);
        ``inside``        1.0 when ``[P - h, P + h]`` meets ``[low, high]``, 0.0 when not, NaN
                          when no band was computed (one replicate) or the cell is machine zero;
        ``width``         band width relative to the rebuilt value, ``(high - low) / value``;
        ``sharp``         the width estimate of ``sharpness`` below ``SHARP_WIDTH`` (20%): a
                          band that can tell values apart (never for a fixed cell);
        ``outside``       how far outside the band the published interval lies, relative to
                          the band's nearer edge (``(P - h) / high - 1`` above it,
                          ``low / (P + h) - 1`` below it), 0 inside.

        A published value that is machine zero while the rebuilt one is not (or the
        reverse) is judged like any other cell: one of the two is wrong.
    """
    if sharpness not in ("spread", "band"):
        raise ValueError(f"sharpness = {sharpness!r} is not one of the allowed values ('spread', 'band')")
    paper = table["paper"].astype(float)
    t = table[np.isfinite(paper)].copy()
    value, low, high, paper = (t[c].astype(float).to_numpy() for c in ("value", "low", "high", "paper"))
    zero = np.array([is_machine_zero(v) and is_machine_zero(p) for v, p in zip(value, paper)], dtype=bool)
    has_band = np.isfinite(low) & np.isfinite(high) & ~zero
    h = np.array([printed_half_unit(p) if rounding and p != 0 else 0.0 for p in paper])
    with np.errstate(divide="ignore", invalid="ignore"):
        t["machine_zero"] = zero
        t["fixed"] = has_band & (high == low)
        t["rounding"] = h
        t["ratio"] = np.where(zero, np.nan, paper / value)
        inside = (paper + h >= low) & (paper - h <= high)
        t["inside"] = np.where(has_band, inside.astype(float), np.nan)
        t["width"] = np.where(has_band, (high - low) / value, np.nan)
        if sharpness == "spread":
            estimate = 2 * 1.959964 * t["spread"].astype(float).to_numpy() / value
        else:
            estimate = t["width"].to_numpy()
        t["sharp"] = has_band & ~t["fixed"].to_numpy() & (estimate < SHARP_WIDTH)
        outside = np.where(paper - h > high, (paper - h) / high - 1,
                           np.where(paper + h < low, low / (paper + h) - 1, 0.0))
        t["outside"] = np.where(has_band, outside, np.nan)
    return t.reset_index(drop=True)


def band_coverage(replicates: int, low: float = 0.025, high: float = 0.975) -> float:
    """The chance that one more draw falls inside a band made of ``replicates`` draws' quantiles.

    The band is ``numpy.quantile(draws, [low, high])`` (linear interpolation): its ends sit at
    the order-statistic positions ``h = (K - 1) p + 1`` of the ``K`` draws.  For a uniform
    statistic ``E U_(j) = j / (K + 1)`` and the interpolation is linear in the quantile, so a new
    independent draw falls inside with probability exactly ``(h_high - h_low) / (K + 1)``; for
    any continuous statistic the interpolated ends lie between the enclosing order statistics,
    whose coverages, ``(floor(h_high) - ceil(h_low)) / (K + 1)`` and
    ``(ceil(h_high) - floor(h_low)) / (K + 1)``, bound it.  With 40 draws a nominal 95% band
    covers about 90%.

    Returns
    -------
    float
    """
    K = int(replicates)
    if K < 2:
        raise ValueError(f"replicates = {replicates!r} is outside the allowed range [2, inf)")
    if not 0 <= low < high <= 1:
        raise ValueError(f"low = {low!r}, high = {high!r}: need 0 <= low < high <= 1")
    return ((K - 1) * high + 1 - ((K - 1) * low + 1)) / (K + 1)


def band_summary(tables: dict) -> pd.DataFrame:
    """Coverage of the published cells by the rebuilt 95% bands, one row per target.

    Columns ``target, cells, inside, share, machine_zero``: ``cells`` counts the cells with a
    band that can be judged, ``machine_zero`` the cells left out because both values are
    zero up to rounding.  Targets without a band (one replicate) are left out.
    """
    rows = []
    for target, table in tables.items():
        v = band_verdicts(table)
        judged = v[np.isfinite(v["inside"].astype(float))]
        if len(judged) == 0:
            continue
        rows.append({"target": target, "cells": len(judged), "inside": int(judged["inside"].sum()),
                     "share": float(judged["inside"].mean()), "machine_zero": int(v["machine_zero"].sum())})
    return pd.DataFrame(rows, columns=["target", "cells", "inside", "share", "machine_zero"])


def fidelity_headline(verdicts: pd.DataFrame) -> dict:
    """The two headline numbers of the comparison with the paper, from :func:`band_verdicts` rows.

    *Sharp* cells (band narrower than ``SHARP_WIDTH`` of the value) can tell a different
    number from the right one; *loose* cells cannot tell much, and their median band width
    says how little a loose ✓ means.  Machine-zero cells are counted apart, never as ✓, and so
    are *fixed* cells (a band of zero width: nothing random), which agree or not to the
    printed digits.

    Returns
    -------
    dict
        ``sharp``, ``sharp_inside``, ``sharp_share``, ``sharp_miss_median`` and
        ``sharp_miss_max`` (how far outside their band the sharp misses lie, relative to the
        nearer edge), ``loose``, ``loose_inside``, ``loose_share``, ``loose_median_width``,
        ``machine_zero``.
    """
    judged = verdicts[np.isfinite(verdicts["inside"].astype(float))]
    is_fixed = judged["fixed"].astype(bool) if "fixed" in judged else pd.Series(False, index=judged.index)
    fixed, judged = judged[is_fixed.to_numpy()], judged[~is_fixed.to_numpy()]   # by position: labels may repeat
    sharp = judged[judged["sharp"].astype(bool)]
    loose = judged[~judged["sharp"].astype(bool)]
    misses = sharp[sharp["inside"] == 0]["outside"].astype(float)
    return {
        "sharp": len(sharp),
        "sharp_inside": int(sharp["inside"].sum()),
        "sharp_share": float(sharp["inside"].mean()) if len(sharp) else float("nan"),
        "sharp_miss_median": float(misses.median()) if len(misses) else 0.0,
        "sharp_miss_max": float(misses.max()) if len(misses) else 0.0,
        "loose": len(loose),
        "loose_inside": int(loose["inside"].sum()),
        "loose_share": float(loose["inside"].mean()) if len(loose) else float("nan"),
        "loose_median_width": float(loose["width"].median()) if len(loose) else float("nan"),
        "machine_zero": int(verdicts["machine_zero"].sum()),
        "fixed": len(fixed),
        "fixed_inside": int(fixed["inside"].sum()),
    }


def sharpness_changes(results_by_seed: dict, sharpness: str = "spread") -> dict:
    """How many published cells change from sharp to loose (or back) with the seed of the draws.

    Parameters
    ----------
    results_by_seed : dict
        ``{seed: {target: table}}``: the same tables rebuilt from several seeds (each with its
        band and ``spread``, as :func:`pdp_lib.experiments.reproduce_many` returns them).
    sharpness : {"spread", "band"}
        The rule of :func:`band_verdicts`.

    Returns
    -------
    dict
        ``cells`` (the cells judged under every seed), ``changed`` (those whose class differs
        between two seeds) and ``sharp_always`` (sharp under every seed).
    """
    flags = {}
    for seed, results in results_by_seed.items():
        for target, table in results.items():
            v = band_verdicts(table, sharpness=sharpness)
            judged = v[np.isfinite(v["inside"].astype(float))]
            for r in judged.itertuples(index=False):
                flags.setdefault((target, r.param, r.column), {})[seed] = bool(r.sharp)
    every = [f for f in flags.values() if len(f) == len(results_by_seed)]
    changed = sum(len(set(f.values())) > 1 for f in every)
    return {"cells": len(every), "changed": changed, "sharp_always": sum(all(f.values()) for f in every)}
