"""The authors' raw outputs, and how the published tables follow from them.

The paper's experiments were run by its authors with the code of the MIT-licensed
repository ``krishnacharya/pp-ridge``, which also holds their raw CSV outputs.
Eight of those files ship inside the package (``pdp_lib/data/reference/``, with
the licence notice and ``PROVENANCE.md``).  This module loads them, picks out,
for each published cell of Tables 1-14 (:mod:`pdp_lib.experiments.published`), the raw value the
authors' file holds for the same configuration, and compares the two.  Which file
holds which table and how to read it (the file's column of the sweep, its scale, the
columns held fixed, whether the file really is the source) is the registry's
(``pdp_lib/data/targets.toml``: ``[files]`` and each table's ``source``).
Shown beside the rebuilt tables in the book's chapters *PDP-OP against standard
DP*, *PDP-OP against Jorgensen et al.*, *Variability of the test loss* and *How much
does a number move? Errata and claims* (``book/standard_dp.ipynb``,
``book/jorgensen.ipynb``, ``book/variability.ipynb``, ``book/errata.ipynb``).

What the comparison finds (pinned by ``tests/test_reference.py``):

* **Convention.** The authors rounded to 3 significant digits; they did not
  truncate.  Of the 750 published cells, 710 have a source; 705 of those equal
  the raw value rounded to 3 significant digits, while truncation reproduces
  only 365 (and of the 5 others, only one).
  A cell *agrees* when rounding the raw value to 3 significant digits gives the
  printed number; no looser relation is used.
* **Errata** (published cell vs the authors' own value): Table 3, lambda = 25,
  ``unreg_jorgensen_max``: printed ``1.81 × 10⁻²``, file ``0.1811`` (power of
  ten; the printed value makes Jorgensen-max beat the bold PDP-OP cell of that
  row); Table 3, lambda = 500, ``reg_non_private``: ``2.43 × 10⁻³`` vs
  ``0.0024246`` (rounds to 2.42); Table 4, lambda = 0.6,
  ``unreg_jorgensen_max``: ``9.89 × 10⁻¹`` vs ``0.98770`` (rounds to 9.88);
  Table 5, eps_c = 0.3, ``reg_non_personalized``: ``1.20`` vs ``3.2249``
  (the value printed two rows below); Table 9, f_c = 0.2,
  ``reg_non_personalized``: ``1.14 × 10²`` vs ``114.73`` (rounds to 1.15; the
  printed value is the truncation).
* **Table 11 has no source.** ``forplots_specific_30_100_impact_n.csv`` holds the
  training-set sweep at lambda = 50 and 100; no published cell of Table 11 equals
  any value of it at either lambda, so :func:`reference_table` returns ``None``.
* **Captions vs files.** For Tables 5-10 and 12 (one fixed lambda each) the
  lambda stated in the caption is the one whose rows reproduce the published
  numbers (:func:`best_matching_lambda`); no caption/file mismatch of lambda.

The published values are used here only to be compared with the authors' files;
they are never used as results.  Rebuilt numbers come from the library's
experiments; the book shows all three side by side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Mapping, NamedTuple

import numpy as np
import pandas as pd

from ..experiments.targets import REGISTRY, TargetSpec, get_target
from ..formatting import sci
from ..experiments.published import TABLES, table_spec

__all__ = [
    "REFERENCE_FILES",
    "TableSource",
    "TABLE_SOURCES",
    "FileReading",
    "file_reading",
    "reference_files",
    "load_reference",
    "reference_column",
    "reference_table",
    "round_sig",
    "truncate_sig",
    "compare_published_with_reference",
    "agreement_summary",
    "disagreements",
    "lambda_agreement",
    "best_matching_lambda",
]

_DATA_DIR = "data/reference"

REFERENCE_FILES = MappingProxyType({key: f["name"] for key, f in REGISTRY.files.items()})
"""Short name -> file name of the authors' outputs in ``pdp_lib/data/reference/`` (the registry's files)."""

_AUTHORS = REGISTRY.authors


class FileReading(NamedTuple):
    """How a target's values are read from its authors' file.

    ``key``: the file's short name (:data:`REFERENCE_FILES`); ``column``: the file's column of
    the swept parameter; ``scale``: file value = swept value x ``scale``; ``select``: the other
    columns the file varies, held at the target's setting (``{"eps_m": 0.5, "lamb": 100.0}``).
    """

    key: str
    column: str
    scale: float
    select: Mapping


def file_reading(target) -> FileReading:
    """Where the authors' file of ``target`` (a name or a :class:`TargetSpec`) holds its values.

    Every parameter the file varies (the registry's ``varies``) other than the sweep is held at
    the target's own setting: its ``lam``, its profile's privacy levels and fractions, or the
    full training set.

    Raises
    ------
    LookupError
        If the target names no authors' file, or one the registry does not describe.
    """
    spec = target if isinstance(target, TargetSpec) else get_target(target)
    keys = [key for key, name in REFERENCE_FILES.items() if name == spec.source_csv]
    if not keys:
        raise LookupError(f"target {spec.name!r}: {spec.source_csv!r} is not one of the authors' files "
                          f"the registry describes")
    varies = REGISTRY.files[keys[0]]["varies"]
    setting = {"lam": spec.lam, "fraction": 1.0}
    select = {v["column"]: setting[p] if p in setting else getattr(spec.profile, p)
              for p, v in varies.items() if p != spec.sweep}
    return FileReading(keys[0], varies[spec.sweep]["column"], varies[spec.sweep]["scale"], select)


@dataclass(frozen=True)
class TableSource:
    """Where the authors' raw values of one published table live.

    Attributes
    ----------
    table : int
        Published table number, 1..14.
    file : str or None
        Key of :data:`REFERENCE_FILES` whose rows reproduce the table, or ``None``
        when no file does (Table 11).
    candidate : str
        The file that should hold the table (the authors' README and the sweep it
        belongs to); the one searched when ``file`` is ``None``.
    param_column : str
        The file's column holding the swept parameter.
    param_scale : float
        File value = printed parameter x ``param_scale``: 1, except for the
        training-fraction sweeps whose file column ``N_train_frac`` counts points
        (80 synthetic training points, 1070 Medical Cost training points).
    select : Mapping[str, float]
        The other file columns held fixed, e.g. ``{"eps_m": 0.5, "lamb": 100.0}``.
    caption_lambda : float or None
        The lambda the caption states (``None`` when lambda is swept).
    matched_lambda : float or None
        The lambda of the file whose rows reproduce the published cells (the caption's when
        the file is the source, checked with :func:`best_matching_lambda`; ``None`` when
        lambda is swept or when no lambda reproduces any cell).
    note : str
        What was found.
    """

    table: int
    file: str | None
    candidate: str
    param_column: str
    param_scale: float = 1.0
    select: Mapping[str, float] = field(default_factory=dict)
    caption_lambda: float | None = None
    matched_lambda: float | None = None
    note: str = ""

    def __post_init__(self):
        object.__setattr__(self, "select", MappingProxyType(dict(self.select)))


def _table_source(k: int) -> TableSource:
    """Table ``k``'s source, from its registry entry (``source``, ``sourced``, ``source_note``)."""
    entry, spec = REGISTRY.entries[f"table-{k}"], get_target(f"table-{k}")
    reading = file_reading(spec)
    return TableSource(k, reading.key if entry["sourced"] else None, reading.key, reading.column,
                       reading.scale, reading.select, caption_lambda=spec.lam,
                       matched_lambda=spec.lam if entry["sourced"] else None, note=entry["source_note"])


TABLE_SOURCES = MappingProxyType({k: _table_source(k) for k in TABLES})
"""Published table number -> :class:`TableSource`."""


def reference_files() -> list:
    """The short names of the authors' output files (keys of :data:`REFERENCE_FILES`)."""
    return list(REFERENCE_FILES)


def _file_name(name: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    if name in REFERENCE_FILES:
        return REFERENCE_FILES[name]
    stem = name[:-4] if name.endswith(".csv") else name
    for file_name in REFERENCE_FILES.values():
        if file_name[:-4] == stem:
            return file_name
    allowed = ", ".join(REFERENCE_FILES)
    raise ValueError(
        f"name = {name!r} is not one of the authors' output files; allowed: {allowed} "
        f"(or their file names)"
    )


@lru_cache(maxsize=None)
def _read(file_name: str) -> pd.DataFrame:
    with resources.files("pdp_lib").joinpath(f"{_DATA_DIR}/{file_name}").open("r") as fh:
        return pd.read_csv(fh)


def load_reference(name: str) -> pd.DataFrame:
    """One of the authors' raw output files, as shipped.

    Parameters
    ----------
    name : str
        A key of :data:`REFERENCE_FILES` (e.g. ``"synthetic_lambda"``) or the file
        name, with or without ``.csv``.

    Returns
    -------
    pandas.DataFrame
        The file's rows and columns unchanged (a new frame on every call).
    """
    return _read(_file_name(name)).copy()


def reference_column(column: str, statistic: str = "mean") -> str:
    """The authors' file column holding a published column.

    ``<loss>_<their method>_test_<statistic>`` with ``pp`` for ``pdp_op``, ``nonpp`` for
    ``non_personalized``, ``jorg_max`` for ``jorgensen_max`` and ``jorg_avg`` for
    ``jorgensen_mean``; the non-private losses are ``type1_nonpriv_loss`` (unregularized) and
    ``type2_nonpriv_loss`` (regularized), for the mean only (they carry no noise).  The
    mapping is the registry's ``[authors]`` table.

    Parameters
    ----------
    column : str
        A published column name (:data:`pdp_lib.experiments.published.COLUMNS`).
    statistic : {"mean", "std"}
    """
    if statistic not in ("mean", "std"):
        raise ValueError(
            f"statistic = {statistic!r} is not one of the allowed values ('mean', 'std')"
        )
    if column not in REGISTRY.columns:
        raise ValueError(f"column = {column!r} is not a published column name")
    loss, _, method = column.partition("_")
    if method in _AUTHORS["methods"]:
        return _AUTHORS["pattern"].format(loss=loss, method=_AUTHORS["methods"][method], statistic=statistic)
    if statistic != "mean":
        raise ValueError(f"column = {column!r} has no standard deviation in the authors' files")
    return _AUTHORS["non_private"][loss]


def _close(values: pd.Series, target: float) -> np.ndarray:
    return np.isclose(values.to_numpy(dtype=float), target, rtol=1e-9, atol=1e-12)


def _lam_column(file_key: str) -> str:
    """The column of lambda in the authors' file ``file_key``."""
    return REGISTRY.files[file_key]["varies"]["lam"]["column"]


def _values(k: int, file_key: str, source: TableSource, lam: float | None) -> pd.DataFrame:
    """Raw values of table ``k`` read from ``file_key``, lambda optionally overridden."""
    spec = table_spec(k)
    df = _read(REFERENCE_FILES[file_key])
    select = dict(source.select)
    if lam is not None:
        select[_lam_column(file_key)] = lam
    file_columns = [reference_column(c, spec.statistic) for c in spec.columns]
    out = np.full((len(spec.rows), len(spec.columns)), np.nan)
    for i, (param, _) in enumerate(spec.rows):
        mask = _close(df[source.param_column], float(param) * source.param_scale)
        for col, value in select.items():
            mask &= _close(df[col], value)
        n_match = int(mask.sum())
        if n_match > 1:
            raise RuntimeError(
                f"Table {k}, {spec.param} = {param}: {n_match} rows of {file_key} match; "
                f"expected one"
            )
        if n_match == 1:
            out[i] = df.loc[mask, file_columns].to_numpy(dtype=float)[0]
    index = pd.Index([float(p) for p, _ in spec.rows], name=spec.param)
    return pd.DataFrame(out, index=index, columns=list(spec.columns))


def reference_table(k) -> pd.DataFrame | None:
    """The authors' raw value for each published cell of Table ``k``.

    Parameters
    ----------
    k : int
        Table number, 1..14.

    Returns
    -------
    pandas.DataFrame or None
        Same index and columns as :func:`pdp_lib.experiments.published.published_table` ``(k)``, holding
        the unrounded value of the authors' file for the table's configuration
        (:data:`TABLE_SOURCES`; the fixed lambda is the caption's); NaN for a cell
        whose row the file lacks.  ``None`` when no file is the table's source
        (Table 11).
    """
    spec = table_spec(k)
    source = TABLE_SOURCES[spec.number]
    if source.file is None:
        return None
    return _values(spec.number, source.file, source, None)


def round_sig(x: float, digits: int = 3) -> float:
    """``x`` rounded to ``digits`` significant digits (half to even on the exact binary value)."""
    return float(f"{float(x):.{digits - 1}e}")


def truncate_sig(x: float, digits: int = 3) -> float:
    """``x`` truncated (towards zero) to ``digits`` significant digits."""
    x = float(x)
    if x == 0 or not math.isfinite(x):
        return x
    d = Decimal(x)  # exact binary value
    exponent = d.adjusted()
    quantum = Decimal(1).scaleb(exponent - digits + 1)
    return float(d.quantize(quantum, rounding=ROUND_DOWN))


def _mantissa_exponent(x: float) -> tuple:
    """(mantissa x 100 as int, exponent) of ``x`` at 3 significant digits."""
    mantissa, exponent = f"{x:.2e}".split("e")
    return int(mantissa.replace(".", "").lstrip("-")), int(exponent)


def _discrepancy(published: float, rounded: float) -> str:
    pm, pe = _mantissa_exponent(published)
    rm, re_ = _mantissa_exponent(rounded)
    if (pm, pe) == (rm, re_):
        return ""
    if pm == rm:
        return "power of ten"
    if pe == re_ and abs(pm - rm) == 1:
        return "last digit"
    return "value"


_COMPARE_COLUMNS = [
    "table", "param", "param_value", "column", "published", "published_text", "bold",
    "reference", "reference_rounded", "reference_text", "agree", "agree_truncated",
    "discrepancy",
]


def _compare(k: int, ref: pd.DataFrame | None) -> pd.DataFrame:
    spec = table_spec(k)
    records = []
    for param, cells in spec.rows:
        for column in spec.columns:
            cell = cells[column]
            value = np.nan if ref is None else float(ref.at[float(param), column])
            if np.isnan(value):
                rounded, text, agree, agree_t, kind = np.nan, "", pd.NA, pd.NA, "no source"
            else:
                rounded = round_sig(value)
                text = sci(value)
                agree = rounded == cell.value
                agree_t = truncate_sig(value) == cell.value
                kind = _discrepancy(cell.value, rounded)
            records.append((spec.number, param, float(param), column, cell.value, cell.text,
                            cell.bold, value, rounded, text, agree, agree_t, kind))
    out = pd.DataFrame.from_records(records, columns=_COMPARE_COLUMNS)
    out["agree"] = out["agree"].astype("boolean")
    out["agree_truncated"] = out["agree_truncated"].astype("boolean")
    return out


def compare_published_with_reference(k) -> pd.DataFrame:
    """Each published cell of Table ``k`` beside the authors' raw value.

    A cell *agrees* when rounding the authors' value to 3 significant digits gives
    exactly the printed number (the authors' convention: rounding, not truncation;
    see the module docstring).

    Parameters
    ----------
    k : int
        Table number, 1..14.

    Returns
    -------
    pandas.DataFrame
        One line per printed cell, in printed order, with columns

        ``table, param`` (as printed), ``param_value`` (float), ``column``,
        ``published`` (float), ``published_text``, ``bold``,
        ``reference`` (the authors' unrounded value; NaN without a source),
        ``reference_rounded`` (to 3 significant digits), ``reference_text``
        (formatted like the paper), ``agree`` (nullable boolean; NA without a
        source), ``agree_truncated`` (whether truncating instead of rounding gives
        the printed number), ``discrepancy`` (``""`` when agreeing; ``"power of
        ten"``, ``"last digit"`` (off by one unit in the 3rd digit), ``"value"``,
        or ``"no source"``).
    """
    spec = table_spec(k)
    return _compare(spec.number, reference_table(spec.number))


def agreement_summary() -> pd.DataFrame:
    """Per table: cells printed, cells with a source, and how many agree.

    Returns
    -------
    pandas.DataFrame
        Indexed by table number 1..14, columns ``file, cells, sourced, agree,
        agree_truncated, rate`` (``agree / sourced``; NaN when nothing is sourced).
    """
    rows = []
    for k in TABLES:
        cmp = compare_published_with_reference(k)
        sourced = int(cmp["agree"].notna().sum())
        agree = int(cmp["agree"].fillna(False).sum())
        agree_t = int(cmp["agree_truncated"].fillna(False).sum())
        rate = agree / sourced if sourced else np.nan
        rows.append((k, TABLE_SOURCES[k].file, len(cmp), sourced, agree, agree_t, rate))
    out = pd.DataFrame(rows, columns=["table", "file", "cells", "sourced", "agree",
                                      "agree_truncated", "rate"])
    return out.set_index("table")


def disagreements() -> pd.DataFrame:
    """Every published cell that disagrees with the authors' output, all tables.

    Same columns as :func:`compare_published_with_reference`; cells without a
    source are not listed (see :func:`agreement_summary`).
    """
    frames = [compare_published_with_reference(k) for k in TABLES]
    every = pd.concat(frames, ignore_index=True)
    return every[every["agree"].eq(False).fillna(False).astype(bool)].reset_index(drop=True)


def _fixed_lambda_source(k) -> tuple:
    spec = table_spec(k)
    if "lam" not in spec.fixed:
        raise ValueError(
            f"k = {spec.number} sweeps lambda; lambda_agreement applies to the tables with one "
            f"fixed lambda, allowed range [5, 12]"
        )
    return spec, TABLE_SOURCES[spec.number]


def lambda_agreement(k) -> pd.Series:
    """How many published cells of Table ``k`` each lambda of its file reproduces.

    For the tables with one fixed lambda (5-12), the candidate file holds every
    lambda of the sweep; this counts, for each, the published cells that agree
    with the file's rows at that lambda (other fixed parameters as in
    :data:`TABLE_SOURCES`).

    Returns
    -------
    pandas.Series
        Indexed by the file's lambdas (ascending, named ``"lam"``), values the
        number of agreeing cells.
    """
    spec, source = _fixed_lambda_source(k)
    lambdas = np.sort(_read(REFERENCE_FILES[source.candidate])[_lam_column(source.candidate)].unique()
                      .astype(float))
    counts = []
    for lam in lambdas:
        cmp = _compare(spec.number, _values(spec.number, source.candidate, source, float(lam)))
        counts.append(int(cmp["agree"].fillna(False).sum()))
    return pd.Series(counts, index=pd.Index(lambdas, name="lam"), name="agreeing_cells")


def best_matching_lambda(k) -> float | None:
    """The lambda of Table ``k``'s file that reproduces the most published cells.

    ``None`` when no lambda reproduces any cell (Table 11).  Compare with the
    caption's lambda, ``TABLE_SOURCES[k].caption_lambda``.
    """
    counts = lambda_agreement(k)
    if counts.max() == 0:
        return None
    return float(counts.idxmax())
