"""The published values of Tables 1-14 of the paper, transcribed once, as data.

Every number printed in the fourteen tables of Acharya, Boenisch, Naidu and Ziani,
"Personalized Differential Privacy for Ridge Regression", as it appears in the paper's LaTeX
source, is one line of ``pdp_lib/data/published.csv`` (``table, param, column, text, bold``:
the row's parameter and the cell exactly as printed, e.g. ``8.54 × 10²``, in the format of
:func:`pdp_lib.formatting.sci`).  What each table is -- its ``\\label``, the line of
``paper.tex`` where its ``table`` environment begins, the caption, the first column's header,
the swept parameter, the statistic, the columns, the caption's fixed parameters and notes --
comes from the registry (``pdp_lib/data/targets.toml``, :mod:`pdp_lib.experiments.targets`).
The tables are numbered 1..14 in their order of appearance in the LaTeX source (Tables 1-4 in
Section 4, Tables 5-12 in Appendix "Additional Experiments", Tables 13-14 at the end of the
appendix).  The number a cell denotes is derived from its text by :func:`parse_cell`.

It sits with the experiments because :func:`pdp_lib.experiments.reproduce` puts each published value
beside the rebuilt one (the ``paper`` column of its tables and of the command line's CSV).  Shown
beside the rebuilt tables in the book's chapters *PDP-OP against standard DP*,
*PDP-OP against Jorgensen et al.*, *Variability of the test loss* and *How much does a
number move? Errata and claims*, and compared with the authors' raw outputs by
:mod:`pdp_lib.replication.authors`.  A published value is never used as a result.

Columns are named as in :data:`COLUMNS` (``unreg`` is the mean squared error on the test set,
``reg`` that plus ``lambda * ||theta_hat||^2``, Section 4, "Metrics"); the swept parameter as
in :data:`PARAMETERS`.  The statistic is the mean over runs of the noise, except in Tables
13 and 14 (standard deviation).
"""

from __future__ import annotations

import csv
import io
import numbers
import re
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType
from typing import Mapping, NamedTuple

import pandas as pd

from .targets import COLUMNS, REGISTRY, STATISTICS, SWEEPS, Registry

__all__ = [
    "COLUMNS",
    "PARAMETERS",
    "STATISTICS",
    "DATASETS",
    "N_TABLES",
    "PublishedCell",
    "PublishedTable",
    "TABLES",
    "parse_cell",
    "load_tables",
    "table_spec",
    "table_number",
    "caption",
    "published_table",
    "published_cells",
    "bold_cells",
    "published",
]

PARAMETERS = SWEEPS
"""Names of the swept parameter printed in a table's first column (the registry's sweeps)."""


class PublishedCell(NamedTuple):
    """One printed cell: its text, the number it denotes, and whether it is bold."""

    text: str
    value: float
    bold: bool = False


@dataclass(frozen=True)
class PublishedTable:
    """One published table, as printed.

    Attributes
    ----------
    number : int
        1..14, the order of appearance in the LaTeX source.
    label : str
        The table's LaTeX ``\\label``.
    tex_line : int
        Line of ``paper.tex`` where the ``table`` environment begins.
    caption : str
        The caption as plain text (LaTeX macros expanded, references resolved).
    dataset : str
        ``"synthetic"`` or ``"medical_cost"``.
    param : str
        The swept parameter of the first column, one of :data:`PARAMETERS`.
    param_label : str
        The first column's header as printed.
    statistic : str
        ``"mean"`` or ``"std"`` (over runs of the noise).
    fixed : Mapping[str, float]
        The parameters the caption states as fixed (names ``d, n, eps_c, eps_m, eps_l,
        f_c, f_m, f_l, lam``); only what the caption prints.
    columns : tuple of str
        The printed columns, left to right, named as in :data:`COLUMNS`.
    rows : tuple of (str, Mapping[str, PublishedCell])
        Each row: the parameter value as printed, and its cells by column.
    notes : tuple of str
        What the printed table itself leaves unstated or mislabels.
    """

    number: int
    label: str
    tex_line: int
    caption: str
    dataset: str
    param: str
    param_label: str
    statistic: str
    fixed: Mapping[str, float]
    columns: tuple
    rows: tuple
    notes: tuple = ()

    def __post_init__(self):
        # Freeze the nested mappings so the transcription cannot be altered in place.
        object.__setattr__(self, "fixed", MappingProxyType(dict(self.fixed)))
        object.__setattr__(
            self, "rows", tuple((p, MappingProxyType(dict(c))) for p, c in self.rows)
        )


_CELL = re.compile(r"(\d\.\d\d)(?: × 10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))?")
_SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def parse_cell(text: str) -> float:
    """The number a printed cell denotes: ``"8.54 × 10²"`` -> ``854.0``, ``"9.78"`` -> ``9.78``.

    The inverse of :func:`pdp_lib.formatting.sci` on three significant digits.

    Raises
    ------
    ValueError
        If ``text`` is not in the paper's format (mantissa ``d.dd``, optional ``× 10`` power).
    """
    m = _CELL.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        raise ValueError(f"text = {text!r} is not a printed cell such as '8.54 × 10²' or '9.78'")
    exponent = 0 if m.group(2) is None else int(m.group(2).translate(_SUPERSCRIPT))
    return float(f"{m.group(1)}e{exponent}")


def _cells(text: str) -> dict:
    """``{table: {(param, column): PublishedCell}}`` from the text of ``published.csv``."""
    out: dict = {}
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames != ["table", "param", "column", "text", "bold"]:
        raise ValueError(f"published cells: header {reader.fieldnames} is not table,param,column,text,bold")
    for line, row in enumerate(reader, start=2):
        if row["bold"] not in ("0", "1"):
            raise ValueError(f"published cells, line {line}: bold = {row['bold']!r} is not 0 or 1")
        key = (row["param"], row["column"])
        cells = out.setdefault(int(row["table"]), {})
        if key in cells:
            raise ValueError(f"published cells, line {line}: Table {row['table']} {key} is given twice")
        cells[key] = PublishedCell(row["text"], parse_cell(row["text"]), row["bold"] == "1")
    return out


def load_tables(registry: Registry = REGISTRY, cells: str | None = None) -> Mapping:
    """The published tables: the registry's table entries filled with their printed cells.

    Parameters
    ----------
    registry : Registry
        The parsed registry (:func:`pdp_lib.experiments.targets.load_registry`).
    cells : str, optional
        The text of the published cells (``pdp_lib/data/published.csv`` when None).

    Returns
    -------
    Mapping[int, PublishedTable]
        By table number, in increasing order.

    Raises
    ------
    LookupError
        If the cells of a table are not exactly its printed rows times its columns, or cells
        are given for a table the registry does not describe.
    """
    if cells is None:
        cells = resources.files("pdp_lib").joinpath("data/published.csv").read_text(encoding="utf-8")
    by_table = _cells(cells)
    tables = {}
    for e in registry.entries.values():
        if e["kind"] != "table":
            continue
        k, given = e["number"], by_table.pop(e["number"], {})
        wanted = [(p, c) for p in e["params"] for c in e["columns"]]
        if set(given) != set(wanted):
            missing, extra = sorted(set(wanted) - set(given)), sorted(set(given) - set(wanted))
            raise LookupError(f"Table {k}: published cells missing {missing[:3]}, not in the table {extra[:3]}")
        tables[k] = PublishedTable(
            number=k, label=e["label"], tex_line=e["tex_line"], caption=e["paper_caption"],
            dataset=e["dataset"], param=e["sweep"], param_label=e["header"], statistic=e["statistic"],
            fixed=e["fixed"], columns=e["columns"], notes=e["paper_notes"],
            rows=tuple((p, {c: given[p, c] for c in e["columns"]}) for p in e["params"]),
        )
    if by_table:
        raise LookupError(f"published cells of Tables {sorted(by_table)}, which the registry does not describe")
    return MappingProxyType(dict(sorted(tables.items())))


TABLES = load_tables()
"""Table number (1..14) -> :class:`PublishedTable`."""
N_TABLES = len(TABLES)
DATASETS = tuple(dict.fromkeys(t.dataset for t in TABLES.values()))


def table_spec(k) -> PublishedTable:
    """The transcription of Table ``k``.

    Parameters
    ----------
    k : int
        Table number, 1..14 (order of appearance in the paper's LaTeX source).

    Returns
    -------
    PublishedTable

    Raises
    ------
    TypeError
        If ``k`` is not an integer.
    ValueError
        If ``k`` is outside ``[1, 14]``.
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer table number, got {type(k).__name__}")
    if int(k) not in TABLES:
        raise ValueError(f"k = {int(k)} is outside the allowed range [1, {len(TABLES)}]")
    return TABLES[int(k)]


def table_number(label: str) -> int:
    """The number (1..14) of the table with LaTeX label ``label``."""
    for number, table in TABLES.items():
        if table.label == label:
            return number
    known = ", ".join(t.label for t in TABLES.values())
    raise ValueError(f"label = {label!r} is not a table label of the paper; allowed: {known}")


def caption(k) -> str:
    """The caption of Table ``k`` as plain text."""
    return table_spec(k).caption


_WHAT = ("value", "text", "bold")


def published_table(k, what: str = "value") -> pd.DataFrame:
    """Table ``k`` as printed, one row per printed row.

    Parameters
    ----------
    k : int
        Table number, 1..14.
    what : {"value", "text", "bold"}
        ``"value"``: the printed numbers as floats; ``"text"``: the printed strings
        (``"8.54 × 10²"``); ``"bold"``: whether each cell is printed in bold.

    Returns
    -------
    pandas.DataFrame
        Indexed by the swept parameter (float; the index is named after it as in
        :data:`PARAMETERS`, e.g. ``"lam"``), with the table's columns in printed order.
        A new frame on every call.
    """
    table = table_spec(k)
    if what not in _WHAT:
        raise ValueError(f"what = {what!r} is not one of the allowed values {_WHAT}")
    index = pd.Index([float(p) for p, _ in table.rows], name=table.param)
    data = [[getattr(cells[c], what) for c in table.columns] for _, cells in table.rows]
    dtype = {"value": float, "text": object, "bold": bool}[what]
    return pd.DataFrame(data, index=index, columns=list(table.columns), dtype=dtype)


def published_cells(k) -> pd.DataFrame:
    """Table ``k`` in long form, one line per printed cell.

    Returns
    -------
    pandas.DataFrame
        Columns ``table, param, param_value, column, text, value, bold`` where
        ``param`` is the row's parameter as printed (``"1.00"``) and
        ``param_value`` the same as a float; rows in printed order (row by row,
        left to right).
    """
    table = table_spec(k)
    records = [
        (table.number, p, float(p), c, cells[c].text, cells[c].value, cells[c].bold)
        for p, cells in table.rows
        for c in table.columns
    ]
    return pd.DataFrame(
        records, columns=["table", "param", "param_value", "column", "text", "value", "bold"]
    )


def bold_cells(k) -> list:
    """The cells of Table ``k`` printed in bold, as ``(param as printed, column)`` pairs."""
    table = table_spec(k)
    return [(p, c) for p, cells in table.rows for c in table.columns if cells[c].bold]


def published(target: str):
    """Published values of a reproduction target of the command line, or ``None``.

    Parameters
    ----------
    target : str
        ``"table-1"`` ... ``"table-14"`` or ``"figure-1"`` ... ``"figure-18"`` (the
        targets of ``python -m pdp_lib reproduce``).

    Returns
    -------
    pandas.DataFrame or None
        For a table, :func:`published_cells` of it (columns include ``param`` as
        printed, ``column`` and ``value``); ``None`` for a figure, whose values the
        paper does not print.
    """
    if not isinstance(target, str):
        raise TypeError(f"target must be a string, got {type(target).__name__}")
    kind, _, number = target.partition("-")
    figures = sum(e["kind"] == "figure" for e in REGISTRY.entries.values())
    if kind in ("table", "figure") and number.isdigit():
        k = int(number)
        if kind == "table":
            return published_cells(k)
        if 1 <= k <= figures:
            return None
        raise ValueError(
            f"target = {target!r}: figure number {k} is outside the allowed range [1, {figures}]"
        )
    raise ValueError(
        f"target = {target!r} is not a target; allowed: 'table-1' ... 'table-{len(TABLES)}', "
        f"'figure-1' ... 'figure-{figures}'"
    )
