r"""PDP-OP on a table of any size: public bounds, chunked reading, and the two sums the mechanism needs.

PDP-OP needs only :math:`G = \sum_i \varepsilon_i x_i x_i^\top`, :math:`b = \sum_i \varepsilon_i y_i x_i`
and :math:`S = \sum_i \varepsilon_i`: with :math:`w_i = \varepsilon_i / S`,
:math:`\bar\theta = (G/S + \lambda I)^{-1} b/S` (eq. (2)), and the noise depends on :math:`S`, ``d``,
``lambda`` and ``B`` only (Theorems 3.1 and 3.2).  Every term is a sum over rows, so the mechanism
streams over any number of rows with no approximation: :func:`accumulate` reads the data in chunks
(CSV or Parquet: one file, a folder of parts or a glob), checks every row against the declared
bounds and maps it into the domain, and adds its share of the sums; :func:`fit_sums` draws the noise
once.  Peak memory is set by the chunk size, not by the number of rows.

The bounds are public: a small TOML file (:func:`read_bounds`) gives each feature's range and the
label's, fixed before the data are seen.  Bounds read off the data break the guarantee (the book's
chapter *What the guarantee does not cover*).  A row outside its bounds, a missing value, or a
privacy level that is missing, not positive or above :data:`pdp_lib.validation.MAX_LEVEL` is refused
with the file, the row and the column; an explicit ``clip=True`` clamps out-of-range values to the
bounds instead and counts the rows it changed, for the operator only: that count depends on the
private rows, so it is never released (the model file does not hold it).

The levels are public (the neighbouring relation replaces one row's features and label and keeps every
level), and the model file summarizes them in a size that does not depend on the number of rows or of
distinct levels: their number, sum, minimum, maximum and an order-free digest (:func:`level_digest`).

Behind ``python -m pdp_lib fit`` and ``compare`` (:mod:`pdp_lib.cli`); the mechanism is Algorithm 1 as
derived in the book's chapter *The PDP-OP mechanism* (``book/mechanism.ipynb``).
"""

from __future__ import annotations

import glob as _glob
import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..bounds import noise_scale
from ..mechanisms.lattice import NOISE_LAWS, merged_rounds, noise_law, weighted_sums
from ..mechanisms.output_perturbation import _sample_l2_laplace, calibrate
from ..validation import MAX_LEVEL, check_count, check_fraction, check_positive, check_rng

__all__ = ["Bounds", "read_bounds", "domain_bounds", "data_files", "file_kind", "header", "Sums", "accumulate", "fit_sums", "gaussian_weights", "model_record",
           "write_model", "read_model", "predict_file", "table_columns", "level_digest", "privacy_statement", "CHUNK_ROWS"]

CHUNK_ROWS = 200_000
"""Rows read at a time: about 20 MB per chunk at 12 features."""


@dataclass(frozen=True)
class Bounds:
    """Public bounds: each feature's ``[lower, upper]`` and the label's, in the order of ``features``.

    Attributes
    ----------
    features : tuple of str
        The feature columns, in the model's order.
    lower, upper : numpy.ndarray of shape (d,)
    label_lower, label_upper : float
    source : str
        Where the bounds were read (a path), for the model's privacy statement.
    intercept : bool
        Append a constant feature 1 to every row (after the mapping into the domain): its coefficient is
        the model's intercept.  The constant lies in ``[0, 1]``, so the domain, and with it the guarantee
        of Theorems 3.1 and 3.2, hold with ``d + 1`` features.
    """

    features: tuple
    lower: np.ndarray
    upper: np.ndarray
    label_lower: float
    label_upper: float
    source: str = ""
    intercept: bool = False

    @property
    def d(self) -> int:
        """The model's dimension: the features, and the intercept's constant when there is one."""
        return len(self.features) + int(self.intercept)

    def as_dict(self) -> dict:
        """The bounds as plain data (for the model file)."""
        return {"features": {f: [float(lo), float(hi)] for f, lo, hi in zip(self.features, self.lower, self.upper)},
                "label": [self.label_lower, self.label_upper], "intercept": bool(self.intercept),
                "source": self.source}


def _bound_pair(entry, where: str) -> tuple:
    if not isinstance(entry, dict) or set(entry) != {"lower", "upper"}:
        raise ValueError(f"{where} must be a table with exactly the keys lower and upper, got {entry!r}")
    lo, hi = entry["lower"], entry["upper"]
    for name, v in (("lower", lo), ("upper", hi)):
        try:
            finite = not isinstance(v, bool) and isinstance(v, (int, float)) and np.isfinite(float(v))
        except OverflowError:                          # an integer beyond the largest float
            finite = False
        if not finite:
            raise ValueError(f"{where}.{name} = {v!r} is outside the allowed range: a finite number")
    if not lo < hi:
        raise ValueError(f"{where}: lower = {lo!r} must be below upper = {hi!r}")
    width = float(hi) - float(lo)
    if not np.isfinite(width) or width < 1e-12 * max(abs(float(lo)), abs(float(hi))):
        raise ValueError(f"{where}: the width upper - lower = {width!r} is outside the allowed range: finite, and at "
                         f"least 1e-12 times the larger bound's size (else the scaling to the domain overflows or "
                         f"loses every digit)")
    return float(lo), float(hi)


def read_bounds(path) -> Bounds:
    """Read public bounds from a TOML file.

    The file has a table ``[label]`` and one table per feature under ``[features]``, each with
    ``lower`` and ``upper``; the features' order in the file is the model's::

        [label]
        lower = 1000.0
        upper = 70000.0

        [features.age]
        lower = 18
        upper = 64

    Raises
    ------
    FileNotFoundError
        When the file is missing.
    ValueError
        On a missing table, a key other than ``lower`` and ``upper``, a bound that is not finite, or
        ``lower >= upper``.
    """
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"--bounds {str(p)!r} is a folder, not a TOML file")
    if not p.exists():
        raise FileNotFoundError(f"--bounds {str(p)!r} does not exist")
    with p.open("rb") as fh:
        try:
            data = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:      # its message ends "(at line L, column C)"
            raise ValueError(f"{p}: not valid TOML: {exc}") from None
        except UnicodeDecodeError as exc:
            raise ValueError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    unknown = set(data) - {"label", "features"}
    if unknown or "label" not in data or "features" not in data:
        raise ValueError(f"{p}: the bounds file needs exactly the tables [label] and [features.<name>], "
                         f"got {sorted(data)}")
    features = data["features"]
    if not isinstance(features, dict) or not features:
        raise ValueError(f"{p}: [features] must name at least one feature")
    pairs = [_bound_pair(v, f"{p}: features.{k}") for k, v in features.items()]
    label = _bound_pair(data["label"], f"{p}: label")
    return Bounds(features=tuple(features), lower=np.array([a for a, _ in pairs]),
                  upper=np.array([b for _, b in pairs]), label_lower=label[0], label_upper=label[1],
                  source=str(p))


def domain_bounds(source, label: str, epsilon: str) -> Bounds:
    """Bounds for data already in the domain: every column but ``label`` and ``epsilon`` a feature in ``[0, 1]``.

    The features are read from the first file's header (its schema, not its values); the label
    lies in ``[-1, 1]``.
    """
    path = data_files(source)[0]
    names = header(path)
    features = tuple(c for c in names if c not in (label, epsilon))
    if not features:
        raise ValueError(f"{path}: no feature column besides {label!r} and {epsilon!r}")
    d = len(features)
    return Bounds(features=features, lower=np.zeros(d), upper=np.ones(d), label_lower=-1.0, label_upper=1.0,
                  source="the domain: features in [0, 1], label in [-1, 1]")


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


def table_columns(bounds: Bounds, label: str, epsilon: str, ignore=()) -> tuple:
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


def _check_columns(path: Path, names: list, columns: list, allowed) -> None:
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


def _chunks(path: Path, columns: list, chunk_rows: int, allowed=None):
    """``(first_row, DataFrame)`` for each chunk of ``path``, only ``columns``; rows count from 1.

    Every field of a text file is read, so that a row with more fields than the header is refused
    (with ``usecols`` the parser would drop them silently); ``allowed`` (a set of names), when given,
    refuses any other column.
    """
    if file_kind(path) == "parquet":
        pf = _parquet(path)
        _check_columns(path, list(pf.schema_arrow.names), columns, allowed)
        start = 1
        for batch in pf.iter_batches(batch_size=chunk_rows, columns=columns):
            frame = batch.to_pandas()
            if len(frame) == 0:
                continue
            yield start, frame[columns]
            start += len(frame)
        return
    _check_columns(path, header(path), columns, allowed)
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


@dataclass
class Sums:
    """The sums PDP-OP needs, accumulated over rows (every row already mapped into the domain).

    Attributes
    ----------
    gram : numpy.ndarray of shape (d, d)
        ``sum_i eps_i x_i x_i^T``.
    moment : numpy.ndarray of shape (d,)
        ``sum_i eps_i y_i x_i``.
    total : float
        ``sum_i eps_i``, correctly rounded from the exact sum ``exact_total`` (in units of ``2**-1126``), so
        that it, and ``eta``, do not depend on the rows' order, the chunks, the files or the partitions.
    rows : int
    clipped : int
        Rows changed by ``clip=True``: a diagnostic for the operator, computed from the private rows, never
        released.
    level_min, level_max : float
        The smallest and the largest level.
    digest : tuple of two int
        The order-free digest of the levels (:func:`level_digest`), two lanes modulo ``2**64``.
    weight_exact_total, weight_min : int, float
        The sum (exactly, in the units of ``exact_total``) and the smallest of the weights the sums were accumulated
        with: the levels themselves, or ``mu*(eps_i, delta)`` for the Gaussian mechanisms (``add(..., weights=)``).
    levels_whole : bool
        Whether every level is a whole number (public, as the levels are), read by :func:`look_like_percentages`.
    rounds : int
        A bound on the roundings any term meets in ``gram`` and ``moment``, a function of the chunks' and
        partitions' sizes only, at most :func:`pdp_lib.mechanisms.lattice.rounds_bound` of the rows
        (the exact release checks it).
    stack : list
        The partial sums of the chunks added so far, ``(chunks, rounds, gram, moment)``, combined like a binary
        counter.
    """

    gram: np.ndarray
    moment: np.ndarray
    rows: int = 0
    clipped: int = 0
    level_min: float = float("inf")
    level_max: float = float("-inf")
    digest: tuple = (0, 0)
    exact_total: int = 0
    rounds: int = 0
    stack: list = field(default_factory=list, repr=False, compare=False)
    weight_exact_total: int = 0
    weight_min: float = float("inf")
    levels_whole: bool = True

    @classmethod
    def zeros(cls, d: int) -> "Sums":
        """Empty sums in dimension ``d``."""
        return cls(gram=np.zeros((d, d)), moment=np.zeros(d))

    def add(self, X: np.ndarray, y: np.ndarray, eps: np.ndarray, weights=None) -> None:
        """Add rows already in the domain, with their levels ``eps``; ``gram`` and ``moment`` are weighted by
        ``weights`` (default: the levels).

        A chunk's sums are blocks and a pairwise tree (:func:`pdp_lib.mechanisms.lattice.weighted_sums`); the
        chunks' sums are combined like a binary counter (two partial sums of as many chunks are added), so
        ``rounds`` grows like the logarithm of the number of chunks, whatever their size.
        """
        w = eps if weights is None else np.asarray(weights, dtype=float)
        gram, moment, rounds = weighted_sums(X, y, w)
        stack = self.stack
        stack.append((1, rounds, gram, moment))
        while len(stack) > 1 and stack[-1][0] == stack[-2][0]:
            (c, r, g, m), (c2, r2, g2, m2) = stack.pop(), stack.pop()
            stack.append((c + c2, merged_rounds(r, r2), g2 + g, m2 + m))
        _, self.rounds, g, m = stack[-1]
        for _, r, g2, m2 in reversed(stack[:-1]):
            self.rounds, g, m = merged_rounds(self.rounds, r), g2 + g, m2 + m
        self.gram, self.moment = np.array(g), np.array(m)
        self.exact_total += exact_units(eps)
        self.weight_exact_total += exact_units(w)
        if w.size:
            self.weight_min = min(self.weight_min, float(w.min()))
        self.rows += X.shape[0]
        if eps.size:
            self.level_min = min(self.level_min, float(eps.min()))
            self.level_max = max(self.level_max, float(eps.max()))
            self.digest = _add_digests(self.digest, _lanes(eps))
            self.levels_whole = self.levels_whole and bool(np.all(eps == np.floor(eps)))

    def merge(self, other: "Sums") -> "Sums":
        """The sums of two disjoint sets of rows."""
        exact = self.exact_total + other.exact_total
        rounds = merged_rounds(self.rounds, other.rounds)
        gram, moment = self.gram + other.gram, self.moment + other.moment
        return Sums(gram=gram, moment=moment, rounds=rounds, stack=[(1 << 62, rounds, gram, moment)],
                    rows=self.rows + other.rows, clipped=self.clipped + other.clipped,
                    level_min=min(self.level_min, other.level_min), level_max=max(self.level_max, other.level_max),
                    digest=_add_digests(self.digest, other.digest), exact_total=exact,
                    weight_exact_total=self.weight_exact_total + other.weight_exact_total,
                    weight_min=min(self.weight_min, other.weight_min),
                    levels_whole=self.levels_whole and other.levels_whole)

    @property
    def total(self) -> float:
        """``sum_i eps_i``, correctly rounded once from ``exact_total``."""
        return self.exact_total / _UNIT

    @property
    def weight_total(self) -> float:
        """The sum of the weights, correctly rounded once from ``weight_exact_total``."""
        return self.weight_exact_total / _UNIT

    def level_summary(self) -> dict:
        """The public levels in a size that does not depend on ``rows``: count, sum, min, max, digest."""
        return {"rows": int(self.rows), "sum": float(self.total), "min": float(self.level_min),
                "max": float(self.level_max), "digest": _digest_text(self.digest)}

    def theta_bar(self, lam: float) -> np.ndarray:
        """The weighted ridge solution of eq. (2) with ``w_i = eps_i / total``."""
        d = self.moment.size
        A = self.gram / self.total
        A[np.diag_indices(d)] += lam
        c = np.linalg.cholesky(A)
        return np.linalg.solve(c.T, np.linalg.solve(c, self.moment / self.total))


_UNIT = 1 << 1126
"""Levels are summed exactly as integers in units of ``2**-1126``: every positive double is ``M 2**(e - 53)``
with an integer ``M < 2**53`` and ``e >= -1073``."""


def exact_units(values) -> int:
    """The exact sum of nonnegative finite doubles, as an integer in units of ``2**-1126``.

    Each value is split by :func:`numpy.frexp` into a 53-bit integer mantissa and an exponent; the
    mantissas are summed exactly per exponent in two 32-bit halves (``int64`` holds ``2**31`` rows of
    each), and the groups are added as Python integers.  ``exact_units(a) / 2**1126`` is then the
    correctly rounded sum, whatever the order of the values.
    """
    v = np.ascontiguousarray(values, dtype=np.float64).ravel()
    if v.size == 0:
        return 0
    mantissa, exponent = np.frexp(v)
    whole = (mantissa * 2.0 ** 53).astype(np.int64)                # exact: |mantissa| < 1 has 53 bits
    total = 0
    for e in np.unique(exponent).tolist():
        group = whole[exponent == e]
        high = int(np.sum(group >> 32, dtype=np.int64))
        low = int(np.sum(group & 0xFFFFFFFF, dtype=np.int64))
        total += ((high << 32) + low) << (e - 53 + 1126)
    return total


_MASK = (1 << 64) - 1
_LANE_KEYS = (np.uint64(0x243F6A8885A308D3), np.uint64(0x13198A2E03707344))   # the digits of pi, as in Blowfish


def _mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer (Steele, Lea & Flood 2014): a bijection of 64-bit words that spreads every bit."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _lanes(eps: np.ndarray) -> tuple:
    """The two digest lanes of a batch of levels: sums modulo ``2**64`` of mixed bit patterns."""
    bits = np.ascontiguousarray(eps, dtype=np.float64).view(np.uint64)
    return tuple(int(np.sum(_mix64(bits ^ key), dtype=np.uint64)) for key in _LANE_KEYS)


def _add_digests(a: tuple, b: tuple) -> tuple:
    return ((a[0] + b[0]) & _MASK, (a[1] + b[1]) & _MASK)


def _digest_text(lanes: tuple) -> str:
    return f"{lanes[0]:016x}{lanes[1]:016x}"


def level_digest(epsilons) -> str:
    """An order-free digest of a level column: 32 hexadecimal digits.

    Each level's IEEE 754 bits are mixed by SplitMix64's finalizer under two keys, and each lane is
    summed modulo ``2**64`` (a multiset hash), so the digest depends on the multiset of levels only: not
    on the rows' order, the files' layout, the chunks or the partitions, and it merges by addition.  It
    lets a reader check that a model was fitted with the level column they hold (the levels are public)
    against accidents: another file, a changed, added or lost row.  It is a checksum, not a commitment:
    its lanes are linear sums, so two columns built on purpose to collide can be found (by lattice
    reduction); do not rely on it against someone who chooses the columns.

    Parameters
    ----------
    epsilons : array_like
        The levels, as float64.
    """
    return _digest_text(_lanes(np.asarray(epsilons, dtype=np.float64).ravel()))


def _where(path, row: int) -> str:
    """Where data row ``row`` (from 1) is: the line a text editor shows in a CSV file (its header is line 1,
    each row one line), the row in a Parquet file or a partition."""
    if isinstance(path, Path) and file_kind(path) in ("csv", "tsv"):
        return f"{path}, line {row + 1}"
    return f"{path}, row {row}"


def _refuse(path, row: int, column: str, value, allowed: str):
    if isinstance(value, float) and math.isnan(value):
        raise ValueError(f"{_where(path, row)}, column {column!r}: a missing value (an empty field, or a marker such "
                         f"as NA, n/a or NaN): every field must be a number")
    raise ValueError(f"{_where(path, row)}, column {column!r}: {value!r} is outside the allowed range {allowed}")


_THOUSANDS = re.compile(r"^\s*[+-]?[1-9]\d{0,2}(,\d{3})+(\.\d*)?\s*$")
"""A number written with commas between groups of three digits, as ``1,234.50``."""


def _numbers(frame: pd.DataFrame, path, first: int) -> np.ndarray:
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
            raise ValueError(f"{_where(path, first + r)}, column {column!r}: {value!r} is not a number{hint}")
        out[:, j] = numbers.to_numpy(dtype=float, na_value=np.nan)
    return out


def _check_levels(eps: np.ndarray, path, first: int, epsilon: str) -> None:
    """Every level finite and in ``(0, MAX_LEVEL]``, else refused with its place."""
    bad = ~np.isfinite(eps) | (eps <= 0) | (eps > MAX_LEVEL)
    if np.any(bad):
        r = int(np.flatnonzero(bad)[0])
        hint = (f" (a level above {MAX_LEVEL:g} protects nothing and is refused as a slip: fit rows that need no "
                "privacy separately)") if eps[r] > MAX_LEVEL else ""
        _refuse(path, first + r, epsilon, float(eps[r]), f"(0, {MAX_LEVEL:g}]{hint}")


def _check_chunk(frame: pd.DataFrame, path, first: int, bounds: Bounds, label: str, epsilon: str, clip: bool):
    """Validate one chunk and map it into the domain: ``(X, y, eps, rows clipped)``."""
    cols = list(bounds.features) + [label, epsilon]
    return _check_values(_numbers(frame[cols], path, first), cols, path, first, bounds, clip)


def _check_values(values: np.ndarray, cols: list, path, first: int, bounds: Bounds, clip: bool):
    """:func:`_check_chunk` on a chunk already read as numbers, columns ``cols`` (features, label, level)."""
    epsilon = cols[-1]
    bad = ~np.isfinite(values)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        _refuse(path, first + int(r), cols[c], float(values[r, c]), "(a finite number; missing values "
                "are refused)")
    eps = values[:, -1]
    _check_levels(eps, path, first, epsilon)
    lower = np.append(bounds.lower, bounds.label_lower)
    upper = np.append(bounds.upper, bounds.label_upper)
    raw = values[:, :-1]
    outside = (raw < lower) | (raw > upper)
    changed = 0
    if outside.any():
        if not clip:
            r, c = np.argwhere(outside)[0]
            _refuse(path, first + int(r), cols[c], float(raw[r, c]), f"[{float(lower[c])!r}, {float(upper[c])!r}] declared in "
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


def accumulate(source, bounds: Bounds, label: str, epsilon: str, *, clip: bool = False,
               chunk_rows: int = CHUNK_ROWS, progress=None, ignore=(), delta=None) -> Sums:
    """Read ``source`` in chunks, check and map every row, and return the sums.

    Features map to ``[0, 1]`` and the label to ``[-1, 1]`` with the declared bounds (the last
    ``np.clip`` only removes rounding past the end points of a value on its bound).

    Parameters
    ----------
    source : str or Path
        A CSV or Parquet file, a folder of them, or a glob.
    bounds : Bounds
    label, epsilon : str
        The label's column and the privacy levels' column.
    clip : bool
        Clamp out-of-range values to their bounds (counted in ``Sums.clipped``) instead of refusing them.
    chunk_rows : int
        Rows per chunk.
    progress : callable, optional
        Called with the number of rows read after each chunk.
    ignore : sequence of str
        Columns to leave out on purpose.  Any other column that is neither a feature, the label nor the
        level is refused: an undeclared column is usually a slip (a feature left out of the bounds file).
    delta : None or float
        ``None``: the sums are weighted by the levels.  In ``(0, 1)``: by ``mu*(eps_i, delta)``
        (:func:`gaussian_weights`), for the Gaussian mechanisms.

    Returns
    -------
    Sums
    """
    chunk_rows = check_count(chunk_rows, "chunk_rows")
    sums = Sums.zeros(bounds.d)
    columns, allowed = table_columns(bounds, label, epsilon, ignore)
    for path in data_files(source):
        for first, frame in _chunks(path, columns, chunk_rows, allowed):
            X, y, eps, changed = _check_chunk(frame, path, first, bounds, label, epsilon, clip)
            sums.add(X, y, eps, None if delta is None else gaussian_weights(eps, delta, path, first, epsilon))
            sums.clipped += changed
            if progress is not None:
                progress(X.shape[0])
    if sums.rows == 0:
        raise ValueError(f"{source}: no rows")
    return sums


def gaussian_weights(eps: np.ndarray, delta: float, path=None, first: int = 1, column: str = "epsilon") -> np.ndarray:
    """``mu*(eps_i, delta)`` for every row (:func:`pdp_lib.curves.tolerated_gaussian_mus`), computed once per distinct
    level: the weights of the Gaussian mechanisms, a function of each row's public level alone.

    With ``path``, a level for which ``mu*`` cannot be computed is refused with its file, line (``first`` is the
    chunk's first row, from 1) and ``column``, rather than with its index in the chunk.
    """
    from ..curves import tolerated_gaussian_mus

    levels, index = np.unique(eps, return_inverse=True)
    try:
        return tolerated_gaussian_mus(levels, delta)[index]
    except ValueError as exc:
        if path is None:
            raise
        for level in levels:
            try:
                tolerated_gaussian_mus(np.array([level]), delta)
            except ValueError:
                r = int(np.flatnonzero(eps == level)[0])
                reason = str(exc).split(" is outside ", 1)[-1]
                raise ValueError(f"{_where(path, first + r)}, column {column!r}: the level {float(level)!r} with "
                                 f"delta = {delta!r} is outside {reason}") from None
        raise


MECHANISMS = ("output", "ssp", "gd", "objective")
"""``fit --mechanism``: PDP-OP's output perturbation, sufficient-statistics perturbation (:mod:`pdp_lib.mechanisms.ssp`,
and with ``delta`` :mod:`pdp_lib.mechanisms.adassp`), noisy gradient descent (:mod:`pdp_lib.mechanisms.noisy_gd`,
with ``delta``), or objective perturbation (:mod:`pdp_lib.mechanisms.objective`, pure DP, ``sampler="float"``
only)."""

RIDGE_RULES = ("public", "auto")
"""``lam`` as a rule, for SSP under ``delta``: the public ridge, or AdaSSP's private one."""


def fit_sums(sums: Sums, lam, B=None, rng=None, *, sampler: str = "exact", mechanism: str = "output", delta=None,
             steps=None, diagnostics=None):
    """PDP-OP from the sums: ``(theta_hat, (theorem, B, eta))``; the noise is drawn once, here.

    ``mechanism="ssp"``: sufficient-statistics perturbation from the same sums
    (:func:`pdp_lib.mechanisms.ssp.statistics_from_sums`, or its floating-point form), solved at ``lam``;
    then ``theorem = "ssp"``, ``B`` is ``nan`` (SSP needs no bound on the solution) and ``eta`` the pair
    ``(eta_gram, eta_moment)``.

    ``sampler="exact"`` (the default): the lattice release (:mod:`pdp_lib.mechanisms.lattice`), with
    ``eta`` the lattice's ``eta'``; with the same seed, ``theta_hat`` equals :func:`pdp_lib.pdp_op` on the
    same rows unless the sums' rounding moves the solution across a half step of the grid.
    ``sampler="float"``: the double-precision sampler, exact over the reals only; with the same ``rng``,
    ``theta_hat`` equals ``pdp_op(..., sampler="float")`` up to the rounding of the sums' order.  The
    calibration needs the levels' sum only (Theorems 3.1 and 3.2: ``eta = sum(eps) / c_lambda``).

    ``diagnostics``, a dict when given, receives public facts of the release that the model file does not hold:
    for the SSP forms, ``"gram_floor"``, the smallest eigenvalue of the released Gram matrix with its negative
    eigenvalues set to 0 (post-processing of the release; :mod:`pdp_lib.mechanisms.noise_energy` reads it).
    """
    from ..mechanisms.lattice import check_sampler, release_from_sums

    sampler = check_sampler(sampler)
    if mechanism not in MECHANISMS:
        raise ValueError(f"mechanism = {mechanism!r} is not allowed; use one of {', '.join(MECHANISMS)}")
    if mechanism == "objective":
        if delta is not None or steps is not None:
            raise ValueError("mechanism 'objective' is pure DP and takes no steps: leave delta and steps out")
        return _fit_objective(sums, lam, rng, sampler)
    if delta is not None or mechanism == "gd":
        return _fit_gaussian(sums, lam, rng, sampler, mechanism, delta, steps, diagnostics)
    if steps is not None:
        raise ValueError("steps applies to mechanism 'gd' only")
    lam = check_positive(lam, "lam")
    d = sums.moment.size
    if not (0 < sums.total < float("inf")):
        raise ValueError(f"the levels' sum {sums.total!r} is outside the allowed range (0, inf)")
    if mechanism == "ssp":
        return _fit_ssp(sums, lam, rng, sampler, diagnostics)
    cal = calibrate(np.array([sums.level_min, sums.level_max]), lam, d, B)   # validates lam, d and B; names the theorem
    eta = sums.total / noise_scale(lam, d, cal.B)      # S / c_lambda, S over every row
    if not (eta > 0 and np.isfinite(eta) and np.isfinite(1.0 / eta)):
        raise ValueError(f"the noise cannot be drawn: eta = sum(eps) / c_lambda = {eta!r}, and its scale 1/eta "
                         f"overflows; the levels sum to {sums.total!r}, far too little for any use")
    if sampler == "exact":
        if rng is not None:
            check_rng(rng)
        theta, lattice, _ = release_from_sums(sums.gram, sums.moment, sums.total, sums.level_min, sums.rows,
                                              sums.rounds, lam, B, rng)
        eta = lattice.eta
    else:
        theta = sums.theta_bar(lam) + _sample_l2_laplace(eta, d, 1, check_rng(rng))[0]
    if not np.all(np.isfinite(theta)):   # the noise overflowed: an event of the noise alone (||theta_bar|| <= B)
        raise ValueError(f"the noise overflowed (eta = {eta!r}): the levels sum to {sums.total!r}, far too little "
                         f"for any use; nothing was written")
    return theta, (cal.theorem, cal.B, eta)


def _fit_gaussian(sums: Sums, lam, rng, sampler: str, mechanism: str, delta, steps, diagnostics=None):
    """Gaussian SSP, AdaSSP or noisy gradient descent from sums weighted by ``mu*(eps_i, delta)``.

    ``(theta_hat, (theorem, None, noise))`` with ``noise`` a dict of the public noise parameters and the ``lam``
    used (``lam="public"``: the public ridge of :func:`pdp_lib.mechanisms.adassp.ridge_rule`; ``"auto"``: AdaSSP's).
    """
    from ..bounds import norm_bound
    from ..mechanisms import adassp, noisy_gd
    from ..mechanisms.exact_sampling import RandomBits
    from ..mechanisms.lattice import rounds_bound

    if mechanism == "output":
        raise ValueError("delta applies to mechanism 'ssp' or 'gd' only: PDP-OP's file release is pure DP here")
    if delta is None:
        raise ValueError("mechanism 'gd' needs delta in (0, 1): noisy gradient descent is (epsilon_i, delta)-DP")
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    if sums.weight_exact_total == sums.exact_total and sums.weight_min == sums.level_min and sums.rows:
        raise ValueError("the sums are weighted by the levels, not by mu*(eps_i, delta): accumulate them with delta")
    rule = lam if isinstance(lam, str) else None
    if rule is not None and (mechanism != "ssp" or rule not in RIDGE_RULES):
        raise ValueError(f"lam = {lam!r} is not allowed here; a number > 0, or 'public' or 'auto' with mechanism "
                         f"'ssp' and delta")
    lam = None if rule is not None else check_positive(lam, "lam")
    d, total, n = sums.moment.size, sums.weight_total, sums.rows
    if sampler == "exact" and rng is not None and not isinstance(rng, RandomBits):
        check_rng(rng)
    if mechanism == "ssp":
        if steps is not None:
            raise ValueError("steps applies to mechanism 'gd' only")
        shares = adassp.SHARES if rule == "auto" else adassp.check_shares((0.5, 0.5, 0.0))
        release = adassp.release_from_sums(sums.gram, sums.moment, total, sums.weight_min, n, sums.rounds, rng, delta,
                                           shares, sampler=sampler)
        cal = release.calibration
        if rule == "auto":
            lam = adassp.adassp_ridge(release)
        elif rule == "public":
            lam = float(adassp.ridge_rule(0.0, cal.sigma_gram, 0.0, d, delta))
            noise_extra = {"ridge": "the public rule sigma_gram sqrt(d log(2 d^2 / 0.05)) of the book's chapter "
                                    "'Beyond output perturbation' (reads no data)"}
        with np.errstate(all="ignore"):
            theta = adassp._solve(release.gram, release.moment, lam, "clip")
        _record_gram_floor(diagnostics, release.gram)
        noise = {"gram": cal.sigma_gram, "moment": cal.sigma_moment, **(noise_extra if rule == "public" else {})}
        if rule == "auto":
            noise["eigenvalue"] = cal.sigma_eigen
        theorem = "adassp" if rule == "auto" else "ssp-gaussian"
    else:
        steps = noisy_gd.STEPS if steps is None else check_count(steps, "steps")
        if steps > noisy_gd.MAX_STEPS:
            raise ValueError(f"steps = {steps!r} is outside the allowed range [1, {noisy_gd.MAX_STEPS}]")
        radius, step_size = norm_bound(lam, d), 1.0 / (d + lam)
        noisy_gd.check_radius(radius, d, "lam")
        if sampler == "exact":
            cal = noisy_gd.gd_calibration(total, sums.weight_min, d, delta, steps, radius, step_size,
                                          rounds=rounds_bound(n))
            if sums.rounds > rounds_bound(n):
                raise RuntimeError(f"the sums met {sums.rounds} roundings, more than the {rounds_bound(n)} the proof "
                                   f"allows for {n} rows")
            theta = noisy_gd._run_lattice(sums.gram, sums.moment, total, lam, cal, RandomBits(rng))
        else:
            cal = noisy_gd.gd_calibration(total, sums.weight_min, d, delta, steps, radius, step_size)
            theta = noisy_gd.noisy_gd_draws(sums.gram / total, sums.moment / total, lam, cal, check_rng(rng), 1)[0]
        noise = {"sigma": cal.sigma, "steps": steps, "radius": radius, "step_size": step_size}
        theorem = "gd"
    if not np.all(np.isfinite(theta)):
        raise ValueError(f"the model overflowed at lam = {lam!r}: the noise divided by so small a ridge leaves no finite "
                         f"model (the levels sum to {sums.total!r}); raise lam; nothing was written")
    return theta, (theorem, None, {"lam": float(lam), "delta": delta, **noise})


def _fit_objective(sums: Sums, lam, rng, sampler: str):
    """Objective perturbation from the sums: ``(theta_hat, ("objective", R, {"eta", "ridge"}))``, ``R = B(lam)``."""
    from ..bounds import norm_bound
    from ..mechanisms import objective
    from ..mechanisms.noisy_gd import check_radius

    objective.check_objective_sampler(sampler)
    lam = check_positive(lam, "lam")
    d = sums.moment.size
    if not (0 < sums.total < float("inf")):
        raise ValueError(f"the levels' sum {sums.total!r} is outside the allowed range (0, inf)")
    radius = check_radius(norm_bound(lam, d), d, "lam")
    cal = objective.objective_calibration(sums.total, sums.level_min, lam, d, radius)
    A, c = np.asarray(sums.gram, dtype=float) / sums.total, np.asarray(sums.moment, dtype=float) / sums.total
    theta = objective.objective_draws(A, c, cal, check_rng(rng), 1)[0]
    if not np.all(np.isfinite(theta)):
        raise ValueError(f"the model overflowed at lam = {lam!r}: raise lam; nothing was written")
    return theta, ("objective", radius, {"eta": cal.eta, "ridge": cal.ridge})


def _record_gram_floor(diagnostics, gram) -> None:
    """Put the released Gram matrix's smallest eigenvalue, negative ones set to 0, in ``diagnostics`` (if a dict)."""
    if diagnostics is not None:
        from ..mechanisms.noise_energy import gram_floor

        diagnostics["gram_floor"] = gram_floor(gram)


def _fit_ssp(sums: Sums, lam: float, rng, sampler: str, diagnostics=None):
    """SSP from the sums: ``(theta_hat, ("ssp", nan, (eta_gram, eta_moment)))``."""
    from ..mechanisms import ssp

    d = sums.moment.size
    if sampler == "exact":
        if rng is not None:
            check_rng(rng)
        A_hat, b_hat, cal = ssp.statistics_from_sums(sums.gram, sums.moment, sums.total, sums.level_min, sums.rows,
                                                     sums.rounds, rng)
    else:
        gen = check_rng(rng)
        cal = ssp.ssp_calibration(sums.total, sums.level_min, d)
        rows, cols = np.triu_indices(d)
        upper = np.asarray(sums.gram, dtype=float)[rows, cols] / sums.total
        upper = upper + _sample_l2_laplace(cal.eta_gram, rows.size, 1, gen)[0]
        A_hat = np.zeros((d, d))
        A_hat[rows, cols] = upper
        A_hat = A_hat + np.triu(A_hat, 1).T
        b_hat = np.asarray(sums.moment, dtype=float) / sums.total + _sample_l2_laplace(cal.eta_moment, d, 1, gen)[0]
    theta = ssp.solve_statistics(A_hat, b_hat, lam)
    _record_gram_floor(diagnostics, A_hat)
    if not np.all(np.isfinite(theta)):
        raise ValueError(f"the noise overflowed: the levels sum to {sums.total!r}, far too little for any use; "
                         f"nothing was written")
    return theta, ("ssp", float("nan"), (cal.eta_gram, cal.eta_moment))


PAPER = ("K. Acharya, F. Boenisch, R. Naidu and J. Ziani, Personalized Differential Privacy for Ridge Regression, "
         "arXiv:2401.17127 (2024)")
"""The paper whose theorems the model file cites."""

_THEOREMS = {
    "ssp-gaussian": "Proposition 'Personalized AdaSSP' with the shares (1/2, 1/2, 0) (no eigenvalue released) of the "
                    "book's chapter 'Beyond output perturbation': Gaussian noise on sum_i w_i x_i x_i^T and "
                    "sum_i w_i y_i x_i, w_i = mu*(epsilon_i, delta) / sum(mu*), then the ridge solved at lambda",
    "adassp": "Proposition 'Personalized AdaSSP' of the book's chapter 'Beyond output perturbation': Gaussian noise on "
              "the weighted sums and on their smallest eigenvalue, w_i = mu*(epsilon_i, delta) / sum(mu*), lambda "
              "chosen by Wang's rule from the release",
    "gd": "Proposition 'Personalized noisy gradient descent' with the lemma 'The gradient's sensitivity' of the book's "
          "chapter 'Beyond output perturbation': steps of full-batch projected gradient descent on the weighted "
          "ridge objective, each data gradient released with Gaussian noise, w_i = mu*(epsilon_i, delta) / sum(mu*)",
    "objective": "Proposition 'Personalized objective perturbation' of the book's chapter 'Beyond output "
                 "perturbation' (beyond the paper: the weighted ridge objective at the ridge in the field "
                 "objective_ridge, plus b . theta with b of density proportional to exp(-eta ||b||), minimized over "
                 "the ball of radius B (the field B, B(lambda) of Lemma A.1), w_i = epsilon_i / sum(epsilon))",
    "ssp": "Proposition 'Personalized SSP' with the lemma 'The statistics' sensitivities' of the book's chapter "
           "'Beyond output perturbation' (beyond the paper: noise on sum_i w_i x_i x_i^T and sum_i w_i y_i x_i, "
           "w_i = epsilon_i / sum(epsilon), then the ridge solved at lambda)",
    "3.1": "Theorem 3.1, with the norm bound B(lambda) = min(1/sqrt(lambda), sqrt(d)/lambda) of Lemma A.1",
    "3.2 with B*": "Theorem 3.2, with B = B*(lambda), the exact supremum of the weighted ridge solution's norm "
                   "over the domain (the book's chapter 'Sensitivity of the weighted ridge solution')",
}


SAMPLER_TEXT = {
    "exact": "exact lattice l2-Laplace: theta_bar solved exactly in rational arithmetic from the floating-point "
             "sums, rounded to the grid of step 2**-g, plus noise k on the integer lattice at rate "
             "t = eta' 2**-g, drawn from uniform bits with integer arithmetic only; its law: ",
    "float": "floating-point l2-Laplace: a Gamma(d, 1/eta) radius times a uniform direction",
}
"""What the model file says of each sampler; the exact one's law (:data:`pdp_lib.mechanisms.lattice.NOISE_LAWS`)
follows, named for the model's dimension by :func:`pdp_lib.mechanisms.lattice.noise_law`."""

FLOATING_POINT_TEXT = {
    "exact": "covered: the proof bounds every rounding of the sums for any summation order, solves the system "
             "exactly, and adds the grid's rounding to the sensitivity; the noise is exact on the grid, and the "
             "double written is a function of the grid point (the book's chapter 'What the guarantee does not "
             "cover', section 'A release that keeps its promise in floating point'); not covered: the running "
             "time: forming the sums and solving the system can take longer on some rows, and the noise "
             "sampler's time, independent of the rows, depends on the noise drawn, so time and model together "
             "can reveal the estimate before noise",
    "float": "the guarantee is proved for exact arithmetic; the noise here is drawn and added in floating point, "
             "which can leak beyond epsilon_i (Mironov, CCS 2012; the book's chapter 'What the guarantee does not "
             "cover' shows it for this sampler); chosen explicitly with --sampler float",
}

GAUSSIAN_FLOATING_POINT_TEXT = {
    "exact": "covered: the proof bounds every rounding of the sums for any summation order, computes each released "
             "statistic's (or each step's gradient's) centre exactly from the sums, and adds the grid's rounding to "
             "the sensitivity; the Gaussian noise is exact on the grid, and every double released is a function of "
             "a grid point; the solve and the steps' updates are post-processing of the released values (the "
             "book's chapter 'Beyond output perturbation'); not covered: the running time",
    "float": "the guarantee is proved for exact arithmetic; the Gaussian noise here is drawn and added in floating "
             "point, which can leak beyond (epsilon_i, delta) (Mironov, CCS 2012); chosen explicitly with "
             "--sampler float",
}


OBJECTIVE_FLOATING_POINT_TEXT = (
    "the guarantee is proved for exact arithmetic; the noise is drawn in floating point and the perturbed objective "
    "minimized in floating point, and both can leak beyond epsilon_i (Mironov, CCS 2012, for the noise); objective "
    "perturbation has no release exact in floating point, so it was chosen explicitly with --sampler float")

GAUSSIAN_THEOREMS = ("ssp-gaussian", "adassp", "gd")
"""The releases under (epsilon_i, delta), with Gaussian noise."""


def _sampler_text(sampler: str, theorem: str, d: int) -> str:
    """What the model file says of the noise: the sampler, and for the exact one its law."""
    if theorem in GAUSSIAN_THEOREMS:
        if sampler == "float":
            return "floating-point Gaussian noise (NumPy's generator) on each released statistic"
        return ("exact lattice Gaussian: each released statistic's centre computed exactly from the floating-point "
                "sums and rounded to the grid of step 2**-g, plus round(Z / 2**-g) steps with Z Gaussian, drawn from "
                "uniform bits as lazily refined reals; a function of the Gaussian mechanism's output at the rounded "
                "centre")
    if theorem == "objective":
        return ("floating-point l2-Laplace noise b in the objective (a Gamma(d, 1/eta) radius times a uniform "
                "direction), the objective minimized over the ball in floating point")
    if theorem == "ssp":
        if sampler == "float":
            return "floating-point l2-Laplace on each statistic: a Gamma radius times a uniform direction"
        return ("exact lattice l2-Laplace on each statistic: the sums divided exactly by the levels' sum, rounded "
                "to the grid of step 2**-g, plus noise drawn from uniform bits with integer arithmetic only; its "
                "law: " + NOISE_LAWS["rounded"])
    return SAMPLER_TEXT[sampler] + (NOISE_LAWS[noise_law(d)] if sampler == "exact" else "")


def privacy_statement(sums: Sums, bounds: Bounds, theorem: str, sampler: str = "exact") -> dict:
    """The model file's privacy statement: the guarantee, its relation, what is public, its proof, its limits.

    Every field is public or a function of public values: the levels' summary (the levels are public),
    the bounds (declared before the data were seen), the theorem.  Nothing computed from the private
    features and labels appears here; the estimate is the mechanism's only output that depends on them.
    """
    gaussian = theorem in GAUSSIAN_THEOREMS
    return {
        "guarantee": ("every row i gets (epsilon_i, delta)-differential privacy (approximate, personalized), with the "
                      "delta of the model file's delta field: for any two neighbouring tables and any set of models S, "
                      "P(S) <= exp(epsilon_i) P'(S) + delta when row i is the row that differs") if gaussian else
                     "every row i gets epsilon_i-differential privacy (pure, personalized): for any two "
                     "neighbouring tables and any set of models, the probability of the set changes by a factor "
                     "of at most exp(epsilon_i) when row i is the row that differs",
        "neighbouring_relation": "replace one: two tables are neighbours when they differ in one row's features "
                                 "and label; the number of rows and every row's level are the same in both",
        "public": "the number of rows and every row's privacy level (the level column is not protected; the "
                  "summary below is released as it is), the bounds below (fixed before the data were seen), "
                  "lambda and the calibration's noise parameters",
        "theorem": f"{_THEOREMS.get(theorem, 'Theorem ' + theorem)}; {PAPER}",
        "floating_point": (OBJECTIVE_FLOATING_POINT_TEXT if theorem == "objective" else
                           (GAUSSIAN_FLOATING_POINT_TEXT if gaussian else FLOATING_POINT_TEXT)[sampler]),
        "sampler": _sampler_text(sampler, theorem, sums.moment.size),
        "levels": sums.level_summary(),
        "bounds": bounds.as_dict(),
    }


def model_record(theta, bounds: Bounds, sums: Sums, lam, theorem: str, B: float, eta: float,
                 sampler: str = "exact") -> dict:
    """The model file's content: the estimate, the calibration and the privacy statement.

    No row, no seed, and nothing else computed from the private features and labels (not even the
    number of rows ``--clip`` changed, which the command line reports to the operator on standard error).
    """
    theta = np.asarray(theta, dtype=float)
    coef, intercept = (theta[:-1], float(theta[-1])) if bounds.intercept else (theta, 0.0)
    extra = {}
    if theorem == "ssp":        # SSP: no bound on the solution; one eta per statistic
        mechanism, B, eta = "ssp", None, {"gram": float(eta[0]), "moment": float(eta[1])}
    elif theorem == "objective":        # the ball's radius, the noise's rate, the ridge minimized with
        mechanism, B, extra, eta = "objective", float(B), {"objective_ridge": float(eta["ridge"])}, float(eta["eta"])
    elif theorem in GAUSSIAN_THEOREMS:      # Gaussian noise: standard deviations, delta, the lam used
        noise = {k: (int(v) if k == "steps" else v if k == "ridge" else float(v)) for k, v in eta.items()}
        lam, delta = noise.pop("lam"), noise.pop("delta")
        mechanism, B, eta = ("gd" if theorem == "gd" else "ssp"), None, None
        ridge = noise.pop("ridge", "given")
        extra = {"delta": delta, "noise": noise,
                 "ridge": "AdaSSP's private rule" if theorem == "adassp" else ridge}
    else:
        mechanism, B, eta = "output", float(B), float(eta)
    return {
        "coef": [float(v) for v in coef],
        "intercept": intercept,
        "features": list(bounds.features),
        "mechanism": mechanism,
        "lam": float(lam), "B": B, "eta": eta, **extra,
        "privacy": privacy_statement(sums, bounds, theorem, sampler),
        "scaling": "features x -> (x - lower) / (upper - lower); label y -> 2 (y - lower) / (upper - lower) - 1; "
                   "prediction in the label's units: lower + (upper - lower) (coef . x + intercept + 1) / 2 "
                   "(python -m pdp_lib predict)",
        "library": f"pdp_lib {_library_version()}",
    }


def read_model(path) -> dict:
    """Read a model file written by ``python -m pdp_lib fit``; refuses a file that is not one, naming it."""
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"MODEL {str(p)!r} is a folder, not a model file")
    if not p.exists():
        raise FileNotFoundError(f"MODEL {str(p)!r} does not exist")
    try:
        record = json.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{p}: not a model file (not JSON: {exc})") from None
    try:
        features = list(record["features"])
        bounds = record["privacy"]["bounds"]
        pairs = [bounds["features"][f] for f in features] + [bounds["label"]]
        ok = (len(record["coef"]) == len(features) and all(len(pair) == 2 for pair in pairs)
              and all(np.isfinite(float(v)) for v in [*record["coef"], record.get("intercept", 0.0), *np.ravel(pairs)]))
    except (KeyError, TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{p}: not a model file of python -m pdp_lib fit (it needs coef, one finite number per "
                         f"feature, and the bounds of every feature and of the label)")
    return record


def predict_file(model: dict, source, out, *, chunk_rows: int = CHUNK_ROWS, clip: bool = False,
                 clip_predictions: bool = False) -> int:
    """Predict the label, in its own units, for every row of ``source``; write them as CSV to ``out``.

    Each feature is mapped with the model's public bounds, ``x -> (x - lower) / (upper - lower)``, the
    scaled prediction is ``coef . x + intercept``, and it is mapped back,
    ``lower_y + (upper_y - lower_y) (prediction + 1) / 2``.  A row with a feature outside the model's bounds
    is refused with its file, line and column (a value ten times too large is more often a slip than a new
    kind of row, and the model was never fitted there); ``clip=True`` clamps it to the bounds instead.
    ``clip_predictions=True`` clamps each prediction to the label's bounds.  A missing or non-numeric feature
    is refused with its file, line and column.  Post-processing of
    the released model, so it costs no privacy.  Other columns (the label, the levels) are ignored.
    The output has one column, ``prediction``, a row per input row in the input's order (the files
    of a folder or glob in sorted order); it is written whole or not at all.

    Returns
    -------
    int
        The number of rows predicted.
    """
    bounds = model["privacy"]["bounds"]
    features = list(model["features"])
    lower = np.array([bounds["features"][f][0] for f in features], dtype=float)
    upper = np.array([bounds["features"][f][1] for f in features], dtype=float)
    label_lower, label_upper = (float(v) for v in bounds["label"])
    coef = np.asarray(model["coef"], dtype=float)
    intercept = float(model.get("intercept", 0.0))
    out = Path(out)
    partial = out.with_name(out.name + ".partial")
    rows = 0
    try:
        with partial.open("w", encoding="utf-8", newline="") as fh:
            fh.write("prediction\n")
            for path in data_files(source):
                for first, frame in _chunks(path, features, check_count(chunk_rows, "chunk_rows")):
                    values = _numbers(frame[features], path, first)
                    bad = ~np.isfinite(values)
                    if bad.any():
                        r, c = np.argwhere(bad)[0]
                        _refuse(path, first + int(r), features[c], float(values[r, c]), "(a finite number)")
                    if clip:
                        values = np.clip(values, lower, upper)
                    outside = (values < lower) | (values > upper)
                    if outside.any():
                        r, c = np.argwhere(outside)[0]
                        allowed = f"[{float(lower[c])!r}, {float(upper[c])!r}]"
                        _refuse(path, first + int(r), features[c], float(values[r, c]),
                                f"{allowed} of the model's bounds (pass --clip to clamp it)")
                    scaled = (values - lower) / (upper - lower) @ coef + intercept
                    prediction = label_lower + (label_upper - label_lower) * (scaled + 1.0) / 2.0
                    if clip_predictions:
                        prediction = np.clip(prediction, label_lower, label_upper)
                    fh.write("".join(f"{v!r}\n" for v in prediction.tolist()))
                    rows += len(prediction)
        partial.replace(out)
    finally:
        partial.unlink(missing_ok=True)
    return rows


def write_model(record: dict, path) -> None:
    """Write the model file (JSON)."""
    Path(path).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def _library_version() -> str:
    """The package's own version (``pdp_lib.__version__``): read from the code, so that a checkout on ``PYTHONPATH``
    that was never installed writes its model file too."""
    import pdp_lib

    return pdp_lib.__version__
