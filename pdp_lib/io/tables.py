r"""Users' tables, read in chunks: file kinds, headers, and every row checked and mapped into the domain.

:func:`data_files` finds the files of a source (one CSV, TSV or Parquet file, a folder of them, or a glob),
:func:`chunks` reads one in chunks of rows, and :func:`check_chunk` refuses a row outside its public bounds, a
missing value or a level outside ``(0, MAX_LEVEL]`` with its file, line and column, then maps the row into the
domain (features in ``[0, 1]``, label in ``[-1, 1]``).  The bounds are :class:`pdp_lib.io.public_bounds.Bounds`;
the sums built from the rows are :mod:`pdp_lib.io.streaming`'s.
"""

from __future__ import annotations

import glob as _glob
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..validation import MAX_LEVEL

__all__ = ["CHUNK_ROWS", "file_kind", "data_files", "header", "table_columns", "check_columns", "chunks", "where",
           "refuse", "numbers", "check_levels", "check_chunk", "check_values", "look_like_percentages"]

CHUNK_ROWS = 200_000
"""Rows read at a time: about 20 MB per chunk at 12 features."""


_KINDS = ((".csv.gz", "csv"), (".tsv.gz", "tsv"), (".csv", "csv"), (".tsv", "tsv"), (".parquet", "parquet"))
"""The file names read, by ending (any case), and their kind."""

_KIND_NAMES = ".csv, .csv.gz, .tsv, .tsv.gz or .parquet"


def file_kind(path) -> str | None:
    """``"csv"``, ``"tsv"`` or ``"parquet"`` by the file name's ending (any case; ``.gz`` for compressed text), else ``None``."""
    name = Path(path).name.lower()
    return next((kind for ending, kind in _KINDS if name.endswith(ending)), None)


def data_files(source) -> list:
    """The files of ``source``: one CSV, TSV or Parquet file, a folder of them, or a glob; sorted.

    Raises
    ------
    FileNotFoundError
        When nothing matches.
    ValueError
        On a file whose name does not end in ``.csv``, ``.csv.gz``, ``.tsv``, ``.tsv.gz`` or ``.parquet``
        (any case), or on a folder or glob that mixes kinds (CSV, TSV, Parquet).
    """
    text = str(source)
    p = Path(text)
    if p.is_dir():
        files = sorted(q for q in p.iterdir() if q.is_file() and file_kind(q))
    elif any(ch in text for ch in "*?["):
        files = sorted(Path(q) for q in _glob.glob(text))
    else:
        files = [p] if p.exists() else []
    if not files:
        if not p.exists() and not any(ch in text for ch in "*?["):
            raise FileNotFoundError(f"DATA {text!r} does not exist")
        raise FileNotFoundError(f"{text}: no CSV, TSV or Parquet file found")
    for q in files:
        if not q.is_file() or file_kind(q) is None:
            raise ValueError(f"{q}: not a file named {_KIND_NAMES}")
    kinds = sorted({file_kind(q) for q in files})
    if len(kinds) > 1:
        raise ValueError(f"{text}: mixes {' and '.join(k.upper() for k in kinds)} files; give one kind")
    return files


def _open(path: Path, mode: str, **kwargs):
    """Open a text file, through gzip when its name ends in ``.gz``."""
    import gzip

    return (gzip.open if path.name.lower().endswith(".gz") else open)(path, mode, **kwargs)


def _first_bad_line(path: Path):
    """The first line of a text file that is not UTF-8, with the reason: ``(line, reason)`` or ``None``."""
    with _open(path, "rb") as fh:
        for number, line in enumerate(fh, 1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as exc:
                return number, f"{exc.reason} at byte {exc.start} of the line"
    return None


def _text_error(path: Path, exc: Exception) -> ValueError:
    """A reading error of a text file, named by the file and, where it can be known, the line."""
    import re

    if isinstance(exc, UnicodeDecodeError):
        bad = _first_bad_line(path)
        where = f"{path}, line {bad[0]}" if bad else str(path)
        return ValueError(f"{where}: not UTF-8 text ({bad[1] if bad else exc.reason}); save the file as UTF-8")
    if isinstance(exc, pd.errors.EmptyDataError):
        return ValueError(f"{path}: empty file: no header line")
    found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
    if found:
        n, line, saw = found.groups()
        return ValueError(f"{path}, line {line}: {saw} fields, but the header has {n}")
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, (EOFError, OSError)):
        return ValueError(f"{path}: a damaged or truncated compressed file ({type(exc).__name__}: {first})")
    return ValueError(f"{path}: cannot be read as {file_kind(path).upper()}: {first}")


def _read_text(path: Path, **kwargs):
    # blank lines are kept (as missing values, refused with their line), so that line numbers are the file's;
    # utf-8-sig reads a spreadsheet's byte-order mark as no part of the first column's name
    return pd.read_csv(path, sep="\t" if file_kind(path) == "tsv" else ",", skip_blank_lines=False,
                       encoding="utf-8-sig", **kwargs)


def table_columns(bounds, label: str, epsilon: str, ignore=()) -> tuple:
    """The columns a command reads (features, label, level) and those a table may hold (plus ``ignore``).

    Refuses a label or level that is also a feature or each other, and an ``ignore`` that names a column the
    command reads, each in one line.
    """
    columns = list(bounds.features) + [label, epsilon]
    if len(set(columns)) != len(columns):
        raise ValueError(f"the label {label!r} and the privacy column {epsilon!r} must differ from each other "
                         f"and from the features {list(bounds.features)}")
    used = [c for c in ignore if c in columns]
    if used:
        raise ValueError(f"--ignore {used[0]} names a column the command reads (a declared feature, the label or "
                         f"the level); only other columns can be left out")
    return columns, set(columns) | set(ignore)


def _parquet(path: Path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise ValueError(f"{path}: not a readable Parquet file ({str(exc).splitlines()[0]})") from None


def header(path: Path) -> list:
    """The column names of one file (its header line, or its Parquet schema), errors named by the file."""
    if file_kind(path) == "parquet":
        return list(_parquet(path).schema_arrow.names)
    import csv

    try:    # the header line as written (pandas would rename a repeated name, "x" and "x.1")
        with _open(path, "rt", encoding="utf-8-sig", newline="") as fh:
            names = next(csv.reader(fh, delimiter="\t" if file_kind(path) == "tsv" else ","), [])
    except UnicodeDecodeError as exc:
        raise _text_error(path, exc) from None
    except (OSError, EOFError, csv.Error) as exc:
        raise ValueError(f"{path}: cannot be read as {file_kind(path).upper()}: {exc}") from None
    if not names or names == [""]:
        raise ValueError(f"{path}: empty file: no header line")
    return names


def check_columns(path: Path, names: list, columns: list, allowed) -> None:
    if len(set(names)) != len(names):
        twice = next(c for c in names if names.count(c) > 1)
        raise ValueError(f"{path}: column {twice!r} appears twice in the header")
    missing = [c for c in columns if c not in names]
    if missing:
        hint = ""
        if len(names) == 1:
            sep = next((c for c in (";", "\t", "|") if c in names[0]), None)
            if sep is not None:
                hint = (f"; the header looks separated by {sep!r}, not commas: write the file with commas (or, for "
                        f"tabs, name it .tsv)")
        raise ValueError(f"{path}: column {missing[0]!r} is missing (columns: {names}){hint}")
    if allowed is not None:
        extra = [c for c in names if c not in allowed]
        if extra:
            raise ValueError(f"{path}: column {extra[0]!r} is neither a feature declared in the bounds, the label nor "
                             f"the level; declare it, or pass --ignore {extra[0]} to leave it out on purpose")


def chunks(path: Path, columns: list, chunk_rows: int, allowed=None):
    """``(first_row, DataFrame)`` for each chunk of ``path``, only ``columns``; rows count from 1.

    Every field of a text file is read, so that a row with more fields than the header is refused
    (with ``usecols`` the parser would drop them silently); ``allowed`` (a set of names), when given,
    refuses any other column.
    """
    if file_kind(path) == "parquet":
        pf = _parquet(path)
        check_columns(path, list(pf.schema_arrow.names), columns, allowed)
        start = 1
        for batch in pf.iter_batches(batch_size=chunk_rows, columns=columns):
            frame = batch.to_pandas()
            if len(frame) == 0:
                continue
            yield start, frame[columns]
            start += len(frame)
        return
    check_columns(path, header(path), columns, allowed)
    start = 1
    try:
        for chunk in _read_text(path, chunksize=chunk_rows):
            if not isinstance(chunk.index, pd.RangeIndex):   # the parser took extra fields for an index
                raise ValueError(f"{path}, line 2: more fields than the header has")
            if len(chunk) == 0:
                continue
            yield start, chunk[columns]
            start += len(chunk)
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError, EOFError, OSError) as exc:
        raise _text_error(path, exc) from None


def look_like_percentages(level_min: float, level_max: float, whole: bool) -> bool:
    """Whether levels from ``level_min`` to ``level_max`` (all whole numbers when ``whole``) look like percentages:
    a largest level of exactly 100, or whole numbers in ``[1, 100]`` with the largest at least 20 (a level of 20
    allows a likelihood ratio of ``e**20``: as a choice it is rare, as a percentage common; sets such as
    ``{1, 2, 5}`` or ``{1, 10}`` are ordinary levels and pass)."""
    return level_max == 100 or (whole and level_min >= 1 and 20 <= level_max <= 100)



def where(path, row: int) -> str:
    """Where data row ``row`` (from 1) is: the line a text editor shows in a CSV file (its header is line 1,
    each row one line), the row in a Parquet file or a partition."""
    if isinstance(path, Path) and file_kind(path) in ("csv", "tsv"):
        return f"{path}, line {row + 1}"
    return f"{path}, row {row}"


def refuse(path, row: int, column: str, value, allowed: str):
    if isinstance(value, float) and math.isnan(value):
        raise ValueError(f"{where(path, row)}, column {column!r}: a missing value (an empty field, or a marker such "
                         f"as NA, n/a or NaN): every field must be a number")
    raise ValueError(f"{where(path, row)}, column {column!r}: {value!r} is outside the allowed range {allowed}")


_THOUSANDS = re.compile(r"^\s*[+-]?[1-9]\d{0,2}(,\d{3})+(\.\d*)?\s*$")
"""A number written with commas between groups of three digits, as ``1,234.50``."""


def numbers(frame: pd.DataFrame, path, first: int) -> np.ndarray:
    """The chunk as floats; a field that is not a number (text, a decimal comma) is refused with its place."""
    out = np.empty(frame.shape, dtype=float)
    for j, column in enumerate(frame.columns):
        series = frame[column]
        if pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype):
            out[:, j] = series.to_numpy(dtype=float, na_value=np.nan)
            continue
        if not (pd.api.types.is_object_dtype(series.dtype) or pd.api.types.is_string_dtype(series.dtype)):
            raise ValueError(f"{path}: column {column!r} has the type {series.dtype}, not numbers")
        numbers = pd.to_numeric(series, errors="coerce")
        bad = (numbers.isna() & series.notna()).to_numpy()
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            value = series.iloc[r]
            hint = ""
            if isinstance(value, str) and _THOUSANDS.match(value):
                hint = " (a thousands separator? write the number without it)"
            elif isinstance(value, str) and "," in value:
                hint = " (a decimal comma? write a point)"
            raise ValueError(f"{where(path, first + r)}, column {column!r}: {value!r} is not a number{hint}")
        out[:, j] = numbers.to_numpy(dtype=float, na_value=np.nan)
    return out


def check_levels(eps: np.ndarray, path, first: int, epsilon: str) -> None:
    """Every level finite and in ``(0, MAX_LEVEL]``, else refused with its place."""
    bad = ~np.isfinite(eps) | (eps <= 0) | (eps > MAX_LEVEL)
    if np.any(bad):
        r = int(np.flatnonzero(bad)[0])
        hint = (f" (a level above {MAX_LEVEL:g} protects nothing and is refused as a slip: fit rows that need no "
                "privacy separately)") if eps[r] > MAX_LEVEL else ""
        refuse(path, first + r, epsilon, float(eps[r]), f"(0, {MAX_LEVEL:g}]{hint}")


def check_chunk(frame: pd.DataFrame, path, first: int, bounds, label: str, epsilon: str, clip: bool):
    """Validate one chunk and map it into the domain: ``(X, y, eps, rows clipped)``."""
    cols = list(bounds.features) + [label, epsilon]
    return check_values(numbers(frame[cols], path, first), cols, path, first, bounds, clip)


def check_values(values: np.ndarray, cols: list, path, first: int, bounds, clip: bool):
    """:func:`check_chunk` on a chunk already read as numbers, columns ``cols`` (features, label, level)."""
    epsilon = cols[-1]
    bad = ~np.isfinite(values)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        refuse(path, first + int(r), cols[c], float(values[r, c]), "(a finite number; missing values "
                "are refused)")
    eps = values[:, -1]
    check_levels(eps, path, first, epsilon)
    lower = np.append(bounds.lower, bounds.label_lower)
    upper = np.append(bounds.upper, bounds.label_upper)
    raw = values[:, :-1]
    outside = (raw < lower) | (raw > upper)
    changed = 0
    if outside.any():
        if not clip:
            r, c = np.argwhere(outside)[0]
            refuse(path, first + int(r), cols[c], float(raw[r, c]), f"[{float(lower[c])!r}, {float(upper[c])!r}] declared in "
                    f"{bounds.source or 'the bounds'}; pass clip=True (--clip) to clamp such values")
        changed = int(np.sum(outside.any(axis=1)))
        raw = np.clip(raw, lower, upper)
    X = (raw[:, :-1] - bounds.lower) / (bounds.upper - bounds.lower)
    # divide first: y - lower <= upper - lower, both finite (read_bounds), so nothing overflows
    y = (raw[:, -1] - bounds.label_lower) / (bounds.label_upper - bounds.label_lower) * 2.0 - 1.0
    X = np.clip(X, 0.0, 1.0)
    if bounds.intercept:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    return X, np.clip(y, -1.0, 1.0), eps, changed

