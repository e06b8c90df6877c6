"""Show rebuilt tables and figures beside the published numbers and the authors' outputs.

Used by the book's table chapters (*PDP-OP against standard DP*, *PDP-OP against
Jorgensen et al.*, *Variability of the test loss*, *Errata and claims*).  Input is the
long table that :func:`pdp_lib.experiments.reproduce` returns (``param, column, value,
low, high, paper, se``); output is Markdown (rendered as MyST) or matplotlib figures.

:func:`show_table` and :func:`show_figure` are what a chapter calls: each glues (myst-nb) a
numbered, captioned MyST table or figure, with its caption and label taken from the registry
(``tab-t4-unreg``, ``tab-t4-reg``, ``fig-f3``, ...), together with the facts its reading cites
(:func:`pdp_lib.replication.readings.target_facts`), and displays a plain version for a reader running
the notebook.  :func:`show_code` prints a library function's source for the theory chapters.
Published values come from :mod:`pdp_lib.experiments.published` and the authors' raw outputs from
:mod:`pdp_lib.replication.authors`; they are only ever displayed beside rebuilt numbers.
The methods' titles, colours and line styles and the figures' style come from :mod:`pdp_lib.replication.styles`,
and ``python -m pdp_lib compare``'s table and figure from :mod:`pdp_lib.replication.comparison_report`; their
names are importable from this module too.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..experiments.targets import get_target
from ..formatting import MACHINE_ZERO, is_machine_zero, sci_loss
from .authors import file_reading, load_reference, reference_column
from .comparison_report import comparison_figure, comparison_markdown  # noqa: F401 - the chapters' names
from .readings import target_facts
from .styles import (FIGURE_STYLE, FIGURE_WIDTH, METHOD_COLORS, METHOD_LINESTYLES, METHOD_TITLES,  # noqa: F401
                     OKABE_ITO, SWEEP_AXES, SWEEP_TITLES, column_title)
from .verdicts import band_verdicts

__all__ = [
    "METHOD_TITLES",
    "column_title",
    "reference_series",
    "plot_target",
    "OKABE_ITO",
    "METHOD_COLORS",
    "METHOD_LINESTYLES",
    "FIGURE_STYLE",
    "prefix",
    "caption_text",
    "loss_table_markdown",
    "table_block",
    "target_figure",
    "figure_block",
    "show_table",
    "show_figure",
    "show_code",
    "glue_facts",
]


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


def reference_series(target: str) -> pd.DataFrame:
    """The authors' raw output for ``target``: index = swept value, one column per target column.

    Reads the file as the registry says (:func:`pdp_lib.replication.authors.file_reading`): the rows where
    every other parameter the file varies is at the target's setting (``lambda``, the other
    privacy level of the ``eps`` sweeps), the sweep's column divided by its scale (training
    sizes in the authors' files are counts of points; they become fractions of the training set).

    Raises
    ------
    ValueError
        If the target's file is not one of the authors' files (:func:`pdp_lib.replication.authors.load_reference`).
    LookupError
        If the target has no authors' file, no row of the file matches the target's fixed
        parameters, or a column of the target has no column in the file; the message names the
        target, the file and the cell.
    """

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


def plot_target(target: str, table: pd.DataFrame, axes, *, reference: pd.DataFrame | None = None,
                legend: bool = True):
    """Two panels (unregularized, regularized): rebuilt value per method, its 95% band, overlays.

    Lines: the rebuilt statistic for the seed's draw; shaded: the 2.5%-97.5% band over
    replicate draws; crosses: the published values (tables); open circles: the authors' own
    outputs (:func:`reference_series`).  ``legend=False`` leaves the legend to the caller
    (:func:`target_figure` draws one for both panels).
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
            color = METHOD_COLORS[method]
            if (t["value"] < MACHINE_ZERO).all():
                # an exact fit (least squares on n <= d points): zero up to rounding; a log axis
                # cannot show it, so it is named in the legend instead
                ax.plot([], [], " ", label=f"{METHOD_TITLES[method]}: 0 (exact fit)")
                continue
            ax.plot(t["x"], t["value"], METHOD_LINESTYLES[method], color=color, lw=1.8,
                    label=METHOD_TITLES[method])
            if np.isfinite(t["low"].astype(float)).all():
                ax.fill_between(t["x"], t["low"], t["high"], color=color, alpha=0.18, lw=0)
            if np.isfinite(t["paper"].astype(float)).any():
                ax.plot(t["x"], t["paper"], "x", color=color, ms=6, mew=1.5)
            if reference is not None and c in reference and (reference[c] >= MACHINE_ZERO).all():
                ax.plot(reference.index, reference[c], "o", mfc="none", color=color, ms=5)
        ax.set_yscale("log")
        if spec.sweep == "lam":
            ax.set_xscale("log")
        ax.set_xlabel(SWEEP_AXES[spec.sweep])
        what = "standard deviation of the " if spec.statistic == "std" else ""
        ax.set_ylabel(f"{what}{'unregularized' if kind == 'unreg' else 'regularized'} test loss")
        ax.grid(True, which="major", alpha=0.3)
    if np.isfinite(table["paper"].astype(float)).any():
        axes[0].plot([], [], "kx", label="published")
    if reference is not None:
        axes[0].plot([], [], "ko", mfc="none", label="authors' output")
    if legend:
        for ax in axes:
            ax.legend()
    return axes


_KIND_TITLES = {"table": "Table", "figure": "Figure"}
_LOSS_TITLES = {"unreg": "unregularized test loss", "reg": "regularized test loss"}
_CAPTION_MATH = [(re.compile(r"\beps_([cml])\b"), r"$\\varepsilon_\1$"), (re.compile(r"\bf_([cml])\b"), r"$f_\1$"),
                 (re.compile(r"\blambda\b"), r"$\\lambda$")]


def prefix(target: str) -> str:
    """The glue prefix of a target: ``"table-4"`` -> ``"t4"``, ``"figure-3"`` -> ``"f3"``."""
    kind, _, number = target.partition("-")
    return f"{kind[0]}{number}"


def caption_text(target: str) -> str:
    """The registry's caption of ``target`` with its symbols as math (``eps_c`` -> ``$\\varepsilon_c$``)."""
    text = get_target(target).caption.rstrip(".")
    if text.startswith("vs "):  # the figures' captions name the comparison only
        text = "PDP-OP " + text
    for pattern, repl in _CAPTION_MATH:
        text = pattern.sub(repl, text)
    return text


def _title(target: str) -> str:
    kind, _, number = target.partition("-")
    return f"{_KIND_TITLES[kind]} {number} of the paper, rebuilt"


def _published_cell(row) -> str:
    """The second line of a cell: the published value and its verdict."""
    if row.machine_zero:
        return "0, both zero"
    text = sci_loss(row.paper)
    if not np.isfinite(row.inside):
        return text
    if row.inside:
        return f"{text} ✓"
    # the published value's rounding interval relative to the band's nearer edge: (P - h) / high - 1
    # above, (P + h) / low - 1 below, so that a value below the band reads between -100% and 0
    # (band_verdicts' "outside" is symmetric: low / (P + h) - 1)
    above = row.paper - row.rounding > row.high
    edge, nearer = (row.high, row.paper - row.rounding) if above else (row.low, row.paper + row.rounding)
    p = 100 * (float(nearer) / float(edge) - 1)
    shown = f"{p:+.2g}%" if abs(p) < 10 else f"{p:+.0f}%"
    return f"{text} ✗ {shown.replace('-', '−')}"


def loss_table_markdown(target: str, table: pd.DataFrame, kind: str) -> str:
    """One loss of the target as a Markdown table: each cell the rebuilt value over the published one.

    Parameters
    ----------
    target : str
        A name of :data:`pdp_lib.experiments.TARGET_NAMES`.
    table : pandas.DataFrame
        Its long table from :func:`pdp_lib.experiments.reproduce_many`.
    kind : {"unreg", "reg"}
        The unregularized or the regularized loss.

    Returns
    -------
    str
        One row per swept value and one column per method of that loss.  A cell holds the
        rebuilt value (bold for the lowest private value of the row, as in the paper) and, for
        a published table, below it the published value: ``✓`` inside the rebuilt 95% band,
        ``✗ +5.1%`` above it or ``✗ −20%`` below it: published / nearer edge - 1,
        and ``0, both zero`` where both are zero up to rounding.

    Raises
    ------
    ValueError
        If ``kind`` is not ``"unreg"`` or ``"reg"``.
    LookupError
        If a published cell of the target is missing from ``table``.
    """
    if kind not in _LOSS_TITLES:
        raise ValueError(f"kind = {kind!r} is not one of the allowed values ('unreg', 'reg')")
    spec = get_target(target)
    columns = [c for c in spec.columns if c.startswith(kind + "_")]
    values = _pivot(table, "value")
    published = {}
    if spec.kind == "table":
        published = {(r.param, r.column): _published_cell(r) for r in band_verdicts(table).itertuples(index=False)}
    header = [SWEEP_TITLES[spec.sweep]] + [METHOD_TITLES[c.partition("_")[2]] for c in columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label in spec.param_labels:
        row = values.loc[label]
        bold = _best_private(row, columns)
        cells = [label]
        for c in columns:
            text = f"**{sci_loss(row[c])}**" if c in bold else sci_loss(row[c])
            if spec.kind == "table":
                if (label, c) not in published:
                    raise LookupError(f"target {target!r}: no published value for the cell (param {label}, "
                                      f"column {c}) in the table given")
                text += f"<br><small>{published[label, c]}</small>"
            cells.append(text)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _statistic_text(target: str) -> str:
    return ("standard deviation over runs" if get_target(target).statistic == "std"
            else "mean over runs")


def _loss_tables(target: str, table: pd.DataFrame) -> list:
    """``(label, caption, markdown)`` of the target's two tables, unregularized then regularized."""
    spec = get_target(target)
    if spec.kind != "table":
        raise ValueError(f"target = {target!r} is not a table of the paper; show it with show_figure")
    zero = any(is_machine_zero(v) for v in table["value"])
    parts = []
    for kind in ("unreg", "reg"):
        caption = (f"{_title(target)}: {_LOSS_TITLES[kind]} ({_statistic_text(target)}). {caption_text(target)}. "
                   "Each cell: the rebuilt value (bold, the lowest private value of the row), and below it the "
                   "published value, ✓ inside the rebuilt 95% band, ✗ outside it by the distance shown, relative "
                   "to the band's nearer edge.")
        if zero and kind == "unreg":
            caption += " 0: zero up to rounding (an exact fit)."
        parts.append((f"tab-{prefix(target)}-{kind}", caption, loss_table_markdown(target, table, kind)))
    return parts


def table_block(target: str, table: pd.DataFrame) -> str:
    """The target as two numbered MyST tables, unregularized then regularized loss.

    Their labels are ``tab-<prefix>-unreg`` and ``tab-<prefix>-reg`` (``tab-t4-unreg``), their
    captions the registry's (:func:`caption_text`) after "Table N of the paper, rebuilt".
    """
    return "\n\n".join(f"```{{table}} {caption}\n:name: {label}\n:align: center\n\n{body}\n```"
                        for label, caption, body in _loss_tables(target, table))


def target_figure(target: str, table: pd.DataFrame):
    """The target drawn at the text column's width: two stacked panels and one legend above them.

    Parameters
    ----------
    target : str
        A name of :data:`pdp_lib.experiments.TARGET_NAMES`.
    table : pandas.DataFrame
        Its long table from :func:`pdp_lib.experiments.reproduce_many`.

    Returns
    -------
    matplotlib.figure.Figure
        Top: unregularized, bottom: regularized statistic, in :data:`FIGURE_STYLE`, with the
        authors' outputs where they exist (:func:`reference_series`).
    """
    import matplotlib.pyplot as plt

    spec = get_target(target)
    reference = reference_series(target) if spec.source_csv is not None else None
    with plt.rc_context(FIGURE_STYLE):
        fig, axes = plt.subplots(2, 1, figsize=(FIGURE_WIDTH, 7.6), sharex=True)
        plot_target(target, table, axes, reference=reference, legend=False)
        axes[0].set_xlabel("")
        handles, labels = {}, []
        for ax in axes:
            for h, label in zip(*ax.get_legend_handles_labels()):
                if label not in handles:
                    handles[label] = h
                    labels.append(label)
        marks = ("published", "authors' output")  # the markers after the methods' lines
        labels = [k for k in labels if k not in marks] + [k for k in labels if k in marks]
        fig.legend([handles[k] for k in labels], labels, loc="upper center", ncol=3, frameon=False)
        rows = -(-len(labels) // 3)
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.037 * rows - 0.01))
    plt.close(fig)
    return fig


_SWEEP_PLAIN = {
    "lam": "the regularization parameter lambda",
    "eps_c": "the privacy level of the conservatives",
    "eps_m": "the privacy level of the mediums",
    "f_c": "the fraction of conservatives",
    "fraction": "the fraction of the training set used",
}
_DATASET_PLAIN = {"synthetic": "the paper's synthetic data", "medical_cost": "the Medical Cost data",
                  "diabetes": "the diabetes data"}


def _plain_list(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _figure_alt(spec) -> str:
    """The alt text of a target drawn by :func:`target_figure`: plain words (no math, no file name), from the spec."""
    what = "standard deviation over runs" if spec.statistic == "std" else "mean over runs"
    methods = list(dict.fromkeys(METHOD_TITLES[c.partition("_")[2]] for c in spec.columns))
    scales = "both axes logarithmic" if spec.sweep == "lam" else "a logarithmic vertical axis"
    marks = ["shaded 95% bands"]
    if spec.kind == "table":
        marks.append("crosses at the published values")
    if spec.source_csv is not None:
        marks.append("open circles at the authors' own outputs")
    others = [m for m in methods if m != METHOD_TITLES["pdp_op"]]
    see = (f"compare PDP-OP with {_plain_list(others)}" if len(others) < len(methods)
           else "compare the methods")
    return (f"Two stacked line charts of the {what} of the test loss against {_SWEEP_PLAIN[spec.sweep]} on "
            f"{_DATASET_PLAIN[spec.dataset]}, unregularized loss on top and regularized loss below, {scales}. "
            f"One line per method ({_plain_list(methods)}), with {_plain_list(marks)}, to {see} "
            f"across the sweep.")


def figure_block(target: str, *, replicates: int) -> str:
    """A numbered MyST figure pasting the glued plot ``<prefix>_plot``, captioned from the registry.

    ``replicates`` is the number of draws behind the shaded bands, stated in the caption.
    Its label is ``fig-<prefix>`` (``fig-f3``, ``fig-t1`` for Table 1 drawn as a figure).
    """
    spec = get_target(target)
    what = "standard deviation over runs of the" if spec.statistic == "std" else "mean over runs of the"
    drawn = "" if spec.kind == "figure" else ", drawn"
    marks = "crosses the published values, " if spec.kind == "table" else ""
    caption = (f"{_title(target)}{drawn}: {what} test loss, unregularized (top) and regularized (bottom). "
               f"{caption_text(target)}. Lines: the rebuilt values; shaded: their 95% bands over {replicates} draws; "
               f"{marks}open circles the authors' own outputs.")
    # the option block ends where the caption begins (no blank line), as MyST reads it
    return (f"```{{glue:figure}} {prefix(target)}_plot\n:name: fig-{prefix(target)}\n:width: 100%\n"
            f":alt: {_figure_alt(spec)}\n{caption}\n```")


def glue_facts(facts: dict | None = None, /, *, prefix: str = "", **more) -> None:
    """Glue (myst-nb) each fact under its name, without displaying it: the chapters' one glue call.

    The prose cites a fact as ``{glue:text}`name``` (a number) or ``{glue:md}`name``` (Markdown),
    so that a number in the text is the one the computation produced.

    Parameters
    ----------
    facts : mapping, optional
        Name -> value: a number, a string, an ``IPython.display.Markdown`` or a matplotlib figure,
        glued as it is.
    prefix : str, optional
        Prepended to every name (``"t4_"``, say), for facts that belong to one target.
    **more
        More facts, by keyword.
    """
    from myst_nb import glue

    for key, value in {**(facts or {}), **more}.items():
        glue(f"{prefix}{key}", value, display=False)


def _glue_facts(target: str, facts: dict) -> None:
    glue_facts(facts, prefix=f"{prefix(target)}_")


def show_table(target: str, results: dict) -> dict:
    """Glue ``target`` as two numbered tables and the facts its reading cites; show it plainly too.

    For the book, glues ``<prefix>_table`` (Markdown: :func:`table_block`, pasted with
    ``{glue:md}``) and every fact of :func:`pdp_lib.replication.readings.target_facts` as
    ``<prefix>_<fact>``; for a reader running the notebook, displays the two tables with their
    captions (tag the cell ``remove-output``: the book shows the numbered, pasted version).

    Parameters
    ----------
    target : str
        A table of the paper, ``"table-1"`` ... ``"table-14"``.
    results : mapping
        Target name -> long table, as :func:`pdp_lib.experiments.reproduce_many` returns.

    Returns
    -------
    dict
        The facts glued (:func:`pdp_lib.replication.readings.target_facts`).
    """
    from IPython.display import Markdown, display
    from myst_nb import glue


    table = results[target]
    glue(f"{prefix(target)}_table", Markdown(table_block(target, table)), display=False)
    facts = target_facts(target, table)
    _glue_facts(target, facts)
    display(Markdown("\n\n".join(f"**{caption}**\n\n{body}" for _, caption, body in _loss_tables(target, table))))
    return facts


def show_figure(target: str, results: dict, *, replicates: int) -> dict:
    """Glue ``target`` as a numbered figure (:func:`target_figure`, :func:`figure_block`) and its facts.

    Glues the plot as ``<prefix>_plot`` and the MyST figure that pastes it as ``<prefix>_figure``
    (pasted with ``{glue:md}``), plus, for a figure of the paper, the facts of
    :func:`pdp_lib.replication.readings.target_facts` (a table's facts come with :func:`show_table`);
    displays the plot for a reader running the notebook (tag the cell ``remove-output``).

    Parameters
    ----------
    target : str
        A name of :data:`pdp_lib.experiments.TARGET_NAMES`.
    results : mapping
        Target name -> long table, as :func:`pdp_lib.experiments.reproduce_many` returns.
    replicates : int
        The draws behind the bands (stated in the caption).

    Returns
    -------
    dict
        The facts glued (empty for a table drawn as a figure).
    """
    from IPython.display import Markdown, display
    from myst_nb import glue

    table = results[target]
    fig = target_figure(target, table)
    glue(f"{prefix(target)}_plot", fig, display=False)
    glue(f"{prefix(target)}_figure", Markdown(figure_block(target, replicates=replicates)), display=False)

    facts = target_facts(target, table) if get_target(target).kind == "figure" else {}
    _glue_facts(target, facts)
    display(fig)
    return facts


def show_code(fn) -> None:
    """Print a library function's source without its docstring (the theory chapters show the code)."""
    import ast
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    node = tree.body[0]
    if ast.get_docstring(node) is not None:
        node.body = node.body[1:]
    print(ast.unparse(tree))
