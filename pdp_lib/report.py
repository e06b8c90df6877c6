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

from .experiments.settings import SHARP_WIDTH
from .experiments.specs import get_target
from .formatting import MACHINE_ZERO, is_machine_zero, sci_loss

__all__ = [
    "METHOD_TITLES",
    "column_title",
    "rebuilt_markdown",
    "comparison_markdown",
    "band_verdicts",
    "band_summary",
    "fidelity_headline",
    "reference_series",
    "plot_target",
]

METHOD_TITLES = {
    "pdp_op": "PDP-OP",
    "non_personalized": "non-personalized",
    "jorgensen_max": "Jorgensen max",
    "jorgensen_mean": "Jorgensen mean",
    "non_private": "non-private",
    # beyond the paper (chapter "Does personalization pay?"); oracles read the test set
    "pdp_op_sharp": "PDP-OP, sharp B*",
    "threshold_public": "best public threshold",
    "threshold_oracle": "oracle threshold (not private)",
    "jorgensen_oracle": "Jorgensen, oracle t (not private)",
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
_COLORS = {"pdp_op": "C0", "non_personalized": "C3", "jorgensen_max": "C1",
           "jorgensen_mean": "C2", "non_private": "0.3", "pdp_op_sharp": "C4", "threshold_public": "C5",
           "threshold_oracle": "C6", "jorgensen_oracle": "C7"}


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
        cells = [label] + [f"**{sci_loss(row[c])}**" if c in bold else sci_loss(row[c]) for c in spec.columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def band_verdicts(table: pd.DataFrame) -> pd.DataFrame:
    """Per published cell: ratio published / rebuilt, the band's verdict and how sharp it is.

    Parameters
    ----------
    table : pandas.DataFrame
        A long table of :func:`pdp_lib.experiments.reproduce` (``param, column, value, low,
        high, paper``).

    Returns
    -------
    pandas.DataFrame
        The rows whose ``paper`` is known, with the extra columns

        ``machine_zero``  rebuilt and published values both zero up to rounding
                          (:data:`pdp_lib.formatting.MACHINE_ZERO`): nothing to judge;
        ``ratio``         published / rebuilt (NaN for machine-zero cells);
        ``inside``        1.0 when ``low <= paper <= high``, 0.0 when not, NaN when no band
                          was computed (one replicate) or the cell is machine zero;
        ``width``         band width relative to the rebuilt value, ``(high - low) / value``;
        ``sharp``         ``width < SHARP_WIDTH`` (20%): a band that can tell values apart;
        ``outside``       how far outside the band the published value lies, relative to
                          the band's nearer edge (``paper / high - 1`` above it,
                          ``low / paper - 1`` below it), 0 inside.

        A published value that is machine zero while the rebuilt one is not (or the
        reverse) is judged like any other cell: one of the two is wrong.
    """
    paper = table["paper"].astype(float)
    t = table[np.isfinite(paper)].copy()
    value, low, high, paper = (t[c].astype(float).to_numpy() for c in ("value", "low", "high", "paper"))
    zero = np.array([is_machine_zero(v) and is_machine_zero(p) for v, p in zip(value, paper)], dtype=bool)
    has_band = np.isfinite(low) & np.isfinite(high) & ~zero
    with np.errstate(divide="ignore", invalid="ignore"):
        t["machine_zero"] = zero
        t["ratio"] = np.where(zero, np.nan, paper / value)
        inside = (paper >= low) & (paper <= high)
        t["inside"] = np.where(has_band, inside.astype(float), np.nan)
        t["width"] = np.where(has_band, (high - low) / value, np.nan)
        t["sharp"] = has_band & (t["width"].to_numpy() < SHARP_WIDTH)
        outside = np.where(paper > high, paper / high - 1, np.where(paper < low, low / paper - 1, 0.0))
        t["outside"] = np.where(has_band, outside, np.nan)
    return t.reset_index(drop=True)


def _verdict_cell(row) -> str:
    if row.machine_zero:
        return "0 = 0"
    mark = "" if not np.isfinite(row.inside) else (" ✓" if row.inside else " ✗")
    return f"{row.ratio:#.3g}{mark}"


def comparison_markdown(target: str, table: pd.DataFrame) -> str:
    """Published ÷ rebuilt for every cell, marked ✓ when the published value is inside the 95% band.

    A cell whose published and rebuilt values are both zero up to rounding reads ``0 = 0`` and
    carries no mark: there is nothing to judge.  A published cell missing from ``table`` raises.
    """
    spec = get_target(target)
    v = band_verdicts(table)
    cells = {(r.param, r.column): _verdict_cell(r) for r in v.itertuples(index=False)}
    header = [_SWEEP_TITLES[spec.sweep]] + [column_title(c) for c in spec.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label in spec.param_labels:
        row = [label]
        for c in spec.columns:
            if (label, c) not in cells:
                raise LookupError(f"target {target!r}: no published value for the cell (param {label}, "
                                  f"column {c}) in the table given")
            row.append(cells[label, c])
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


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
    says how little a loose ✓ means.  Machine-zero cells are counted apart, never as ✓.

    Returns
    -------
    dict
        ``sharp``, ``sharp_inside``, ``sharp_share``, ``sharp_miss_median`` and
        ``sharp_miss_max`` (how far outside their band the sharp misses lie, relative to the
        nearer edge), ``loose``, ``loose_inside``, ``loose_share``, ``loose_median_width``,
        ``machine_zero``.
    """
    judged = verdicts[np.isfinite(verdicts["inside"].astype(float))]
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
    }


def reference_series(target: str) -> pd.DataFrame:
    """The authors' raw output for ``target``: index = swept value, one column per target column.

    Reads the file as the registry says (:func:`pdp_lib.reference.file_reading`): the rows where
    every other parameter the file varies is at the target's setting (``lambda``, the other
    privacy level of the ``eps`` sweeps), the sweep's column divided by its scale (training
    sizes in the authors' files are counts of points; they become fractions of the training set).

    Raises
    ------
    ValueError
        If the target's file is not one of the authors' files (:func:`pdp_lib.reference.load_reference`).
    LookupError
        If the target has no authors' file, no row of the file matches the target's fixed
        parameters, or a column of the target has no column in the file; the message names the
        target, the file and the cell.
    """
    from .reference import file_reading, load_reference, reference_column

    spec = get_target(target)
    if spec.source_csv is None:
        raise LookupError(f"target {target!r} has no authors' output file")
    frame = load_reference(spec.source_csv)
    reading = file_reading(spec)
    mask = np.ones(len(frame), dtype=bool)
    for name, value in reading.select.items():
        mask &= np.isclose(frame[name].to_numpy(float), value)
    x = frame[reading.column].to_numpy(float) / reading.scale
    if not mask.any():
        raise LookupError(f"target {target!r}: no row of the authors' file {spec.source_csv} matches "
                          f"its fixed parameters (lambda = {spec.lam}, profile {spec.profile})")
    out = {}
    for column in spec.columns:
        name = reference_column(column, spec.statistic)
        if name not in frame:
            raise LookupError(f"target {target!r}: column {column} ({name}) is missing from the "
                              f"authors' file {spec.source_csv}")
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
