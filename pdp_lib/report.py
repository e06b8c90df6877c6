"""Show rebuilt tables and figures beside the published numbers and the authors' outputs.

Used by the book's table chapters (*PDP-OP against standard DP*, *PDP-OP against
Jorgensen et al.*, *Variability of the test loss*, *Errata and claims*).  Input is the
long table that :func:`pdp_lib.experiments.reproduce` returns (``param, column, value,
low, high, paper, se``); output is Markdown (rendered as MyST) or matplotlib axes.
Published values come from :mod:`pdp_lib.paper` and the authors' raw outputs from
:mod:`pdp_lib.reference`; they are only ever displayed beside rebuilt numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .experiments.specs import get_target
from .formatting import sci, sig

__all__ = [
    "METHOD_TITLES",
    "column_title",
    "rebuilt_markdown",
    "comparison_markdown",
    "band_verdicts",
    "band_summary",
    "reference_series",
    "plot_target",
]

METHOD_TITLES = {
    "pdp_op": "PDP-OP",
    "non_personalized": "non-personalized",
    "jorgensen_max": "Jorgensen max",
    "jorgensen_mean": "Jorgensen mean",
    "non_private": "non-private",
}
_SWEEP_TITLES = {
    "lam": "$\\lambda$",
    "eps_c": "$\\varepsilon_c$",
    "eps_m": "$\\varepsilon_m$",
    "f_c": "$f_c$",
    "fraction": "training fraction",
}
_SWEEP_AXIS = {
    "lam": "regularization $\\lambda$",
    "eps_c": "privacy level of conservatives $\\varepsilon_c$",
    "eps_m": "privacy level of mediums $\\varepsilon_m$",
    "f_c": "fraction of conservatives $f_c$",
    "fraction": "fraction of the training set used",
}
MACHINE_ZERO = 1e-20  # losses below this are zero up to floating-point rounding
_COLORS = {"pdp_op": "C0", "non_personalized": "C3", "jorgensen_max": "C1",
           "jorgensen_mean": "C2", "non_private": "0.3"}


def column_title(column: str) -> str:
    """``"unreg_pdp_op"`` -> ``"unreg. PDP-OP"``."""
    kind, _, method = column.partition("_")
    return f"{'unreg.' if kind == 'unreg' else 'reg.'} {METHOD_TITLES[method]}"


def _pivot(table: pd.DataFrame, field: str) -> pd.DataFrame:
    return table.pivot(index="param", columns="column", values=field)


def _best_private(row: pd.Series, columns) -> set:
    """Columns holding the smallest private value of each loss kind in one row (bold in the paper)."""
    best = set()
    for kind in ("unreg", "reg"):
        cols = [c for c in columns if c.startswith(kind + "_") and not c.endswith("non_private")]
        if len(cols) > 1:
            best.add(min(cols, key=lambda c: row[c]))
    return best


def rebuilt_markdown(target: str, table: pd.DataFrame) -> str:
    """The rebuilt target in the paper's layout, best private method per loss kind in bold."""
    spec = get_target(target)
    values = _pivot(table, "value")
    header = [_SWEEP_TITLES[spec.sweep]] + [column_title(c) for c in spec.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label in spec.param_labels:
        row = values.loc[label]
        bold = _best_private(row, spec.columns)
        cells = [label] + [f"**{sci(row[c])}**" if c in bold else sci(row[c]) for c in spec.columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def band_verdicts(table: pd.DataFrame) -> pd.DataFrame:
    """Per published cell: ratio published / rebuilt and whether the published value lies in the band.

    Returns a frame with ``param, column, value, low, high, paper, ratio, inside`` for the rows
    whose ``paper`` is known; ``inside`` is NaN when no band was computed (one replicate).
    """
    t = table[np.isfinite(table["paper"].astype(float))].copy()
    t["ratio"] = t["paper"] / t["value"]
    has_band = np.isfinite(t["low"].astype(float)) & np.isfinite(t["high"].astype(float))
    inside = (t["paper"] >= t["low"]) & (t["paper"] <= t["high"])
    t["inside"] = np.where(has_band, inside.astype(float), np.nan)
    return t.reset_index(drop=True)


def comparison_markdown(target: str, table: pd.DataFrame) -> str:
    """Published ÷ rebuilt for every cell, marked ✓ when the published value is inside the 95% band."""
    spec = get_target(target)
    v = band_verdicts(table)
    ratio = v.pivot(index="param", columns="column", values="ratio")
    inside = v.pivot(index="param", columns="column", values="inside")
    header = [_SWEEP_TITLES[spec.sweep]] + [column_title(c) for c in spec.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label in spec.param_labels:
        cells = [label]
        for c in spec.columns:
            if label not in ratio.index or c not in ratio.columns or not np.isfinite(ratio.loc[label, c]):
                cells.append("—")
                continue
            mark = "" if not np.isfinite(inside.loc[label, c]) else (" ✓" if inside.loc[label, c] else " ✗")
            cells.append(f"{ratio.loc[label, c]:#.3g}{mark}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def band_summary(tables: dict) -> pd.DataFrame:
    """Coverage of the published cells by the rebuilt 95% bands, one row per target."""
    rows = []
    for target, table in tables.items():
        v = band_verdicts(table)
        v = v[np.isfinite(v["inside"].astype(float))]
        if len(v) == 0:
            continue
        rows.append({"target": target, "cells": len(v), "inside": int(v["inside"].sum()),
                     "share": float(v["inside"].mean())})
    return pd.DataFrame(rows)


def reference_series(target: str) -> pd.DataFrame | None:
    """The authors' raw output for ``target``: index = swept value, one column per target column.

    Selects the rows of the authors' file that match the target's fixed parameters (``lambda``
    and the other privacy level for the ``eps`` sweeps).  Training sizes in the authors' files
    are counts of points; they are turned back into fractions of the training set.
    """
    from .reference import load_reference, reference_column

    spec = get_target(target)
    try:
        frame = load_reference(spec.source_csv)
    except (ValueError, KeyError, FileNotFoundError):
        return None
    mask = np.ones(len(frame), dtype=bool)
    if spec.sweep != "lam":
        mask &= np.isclose(frame["lamb"].to_numpy(float), spec.lam)
    if spec.sweep == "lam":
        x = frame["lamb"].to_numpy(float)
    elif spec.sweep == "eps_c":
        mask &= np.isclose(frame["eps_m"].to_numpy(float), spec.profile.eps_m)
        x = frame["eps_c"].to_numpy(float)
    elif spec.sweep == "eps_m":
        mask &= np.isclose(frame["eps_c"].to_numpy(float), spec.profile.eps_c)
        x = frame["eps_m"].to_numpy(float)
    elif spec.sweep == "f_c":
        x = frame["f_c" if "f_c" in frame else "fc"].to_numpy(float)
    else:
        counts = frame["N_train_frac"].to_numpy(float)
        x = counts / counts.max()
    if not mask.any():
        return None
    out = {}
    for column in spec.columns:
        try:
            name = reference_column(column, spec.statistic)
        except ValueError:
            continue
        if name in frame:
            out[column] = frame[name].to_numpy(float)[mask]
    result = pd.DataFrame(out, index=np.round(x[mask], 10))
    result.index.name = spec.sweep
    return result.sort_index()


def plot_target(target: str, table: pd.DataFrame, axes, *, reference: pd.DataFrame | None = None):
    """Two panels (unregularized, regularized): rebuilt value per method, its 95% band, overlays.

    Lines: the rebuilt statistic for the seed's draw; shaded: the 2.5%-97.5% band over
    replicate draws; crosses: the published values (tables); open circles: the authors' own
    outputs (:func:`reference_series`).
    """
    spec = get_target(target)
    x_of = {label: float(label) for label in spec.param_labels}
    for ax, kind in zip(axes, ("unreg", "reg")):
        cols = [c for c in spec.columns if c.startswith(kind + "_")]
        for c in cols:
            method = c.partition("_")[2]
            t = table[table["column"] == c].copy()
            t["x"] = t["param"].map(x_of)
            t = t.sort_values("x")
            color = _COLORS[method]
            if (t["value"] < MACHINE_ZERO).all():
                # an exact fit (least squares on n <= d points): zero up to rounding; a log axis
                # cannot show it, so it is named in the legend instead
                ax.plot([], [], " ", label=f"{METHOD_TITLES[method]}: 0 (exact fit)")
                continue
            ax.plot(t["x"], t["value"], "-", color=color, lw=1.6, label=METHOD_TITLES[method])
            if np.isfinite(t["low"].astype(float)).all():
                ax.fill_between(t["x"], t["low"], t["high"], color=color, alpha=0.18, lw=0)
            if np.isfinite(t["paper"].astype(float)).any():
                ax.plot(t["x"], t["paper"], "x", color=color, ms=6, mew=1.5)
            if reference is not None and c in reference and (reference[c] >= MACHINE_ZERO).all():
                ax.plot(reference.index, reference[c], "o", mfc="none", color=color, ms=5)
        ax.set_yscale("log")
        if spec.sweep == "lam":
            ax.set_xscale("log")
        ax.set_xlabel(_SWEEP_AXIS[spec.sweep])
        what = "standard deviation of the " if spec.statistic == "std" else ""
        ax.set_ylabel(f"{what}{'unregularized' if kind == 'unreg' else 'regularized'} test loss")
        ax.grid(True, which="major", alpha=0.3)
    if np.isfinite(table["paper"].astype(float)).any():
        axes[0].plot([], [], "kx", label="published")
    if reference is not None:
        axes[0].plot([], [], "ko", mfc="none", label="authors' output")
    for ax in axes:
        ax.legend(fontsize=8)
    return axes
