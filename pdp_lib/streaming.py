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
privacy level that is missing or not positive is refused with the file, the row and the column; an
explicit ``clip=True`` clamps out-of-range values to the bounds instead and counts the rows it changed.

Behind ``python -m pdp_lib fit`` and ``compare`` (:mod:`pdp_lib.cli`); the mechanism is Algorithm 1 as
derived in the book's chapter *The PDP-OP mechanism* (``book/mechanism.ipynb``).
"""

from __future__ import annotations

import glob as _glob
import json
import tomllib
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd

from .bounds import noise_scale
from .mechanism import _sample_l2_laplace, calibrate
from .validation import check_count, check_positive, check_rng

__all__ = ["Bounds", "read_bounds", "domain_bounds", "data_files", "Sums", "accumulate", "fit_sums", "model_record",
           "write_model", "CHUNK_ROWS"]

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
    """

    features: tuple
    lower: np.ndarray
    upper: np.ndarray
    label_lower: float
    label_upper: float
    source: str = ""

    def as_dict(self) -> dict:
        """The bounds as plain data (for the model file)."""
        return {"features": {f: [float(lo), float(hi)] for f, lo, hi in zip(self.features, self.lower, self.upper)},
                "label": [self.label_lower, self.label_upper], "source": self.source}


def _bound_pair(entry, where: str) -> tuple:
    if not isinstance(entry, dict) or set(entry) != {"lower", "upper"}:
        raise ValueError(f"{where} must be a table with exactly the keys lower and upper, got {entry!r}")
    lo, hi = entry["lower"], entry["upper"]
    for name, v in (("lower", lo), ("upper", hi)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v):
            raise ValueError(f"{where}.{name} = {v!r} is outside the allowed range: a finite number")
    if not lo < hi:
        raise ValueError(f"{where}: lower = {lo!r} must be below upper = {hi!r}")
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
    with p.open("rb") as fh:
        data = tomllib.load(fh)
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
    if path.suffix == ".csv":
        names = list(pd.read_csv(path, nrows=0).columns)
    else:
        import pyarrow.parquet as pq

        names = list(pq.ParquetFile(path).schema_arrow.names)
    features = tuple(c for c in names if c not in (label, epsilon))
    if not features:
        raise ValueError(f"{path}: no feature column besides {label!r} and {epsilon!r}")
    d = len(features)
    return Bounds(features=features, lower=np.zeros(d), upper=np.ones(d), label_lower=-1.0, label_upper=1.0,
                  source="the domain: features in [0, 1], label in [-1, 1]")


def data_files(source) -> list:
    """The files of ``source``: one CSV or Parquet file, a folder of them, or a glob; sorted.

    Raises
    ------
    FileNotFoundError
        When nothing matches.
    ValueError
        On a file that is neither ``.csv`` nor ``.parquet``.
    """
    text = str(source)
    p = Path(text)
    if p.is_dir():
        files = sorted(q for q in p.iterdir() if q.suffix in (".csv", ".parquet"))
    elif any(ch in text for ch in "*?["):
        files = sorted(Path(q) for q in _glob.glob(text))
    else:
        files = [p] if p.exists() else []
    if not files:
        raise FileNotFoundError(f"{text}: no CSV or Parquet file found")
    for q in files:
        if q.suffix not in (".csv", ".parquet"):
            raise ValueError(f"{q}: not a .csv or .parquet file")
    return files


def _chunks(path: Path, columns: list, chunk_rows: int):
    """``(first_row, DataFrame)`` for each chunk of ``path``, only ``columns``; rows count from 1."""
    if path.suffix == ".csv":
        header = pd.read_csv(path, nrows=0).columns
        missing = [c for c in columns if c not in header]
        if missing:
            raise ValueError(f"{path}: column {missing[0]!r} is missing (columns: {list(header)})")
        start = 1
        for chunk in pd.read_csv(path, usecols=columns, chunksize=chunk_rows):
            yield start, chunk[columns]
            start += len(chunk)
    else:
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(path)
        names = pf.schema_arrow.names
        missing = [c for c in columns if c not in names]
        if missing:
            raise ValueError(f"{path}: column {missing[0]!r} is missing (columns: {names})")
        start = 1
        for batch in pf.iter_batches(batch_size=chunk_rows, columns=columns):
            frame = batch.to_pandas()
            yield start, frame[columns]
            start += len(frame)


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
        ``sum_i eps_i``.
    rows : int
    clipped : int
        Rows changed by ``clip=True``.
    levels : dict
        Each distinct ``eps`` -> its number of rows.
    """

    gram: np.ndarray
    moment: np.ndarray
    total: float = 0.0
    rows: int = 0
    clipped: int = 0
    levels: dict = field(default_factory=dict)

    @classmethod
    def zeros(cls, d: int) -> "Sums":
        """Empty sums in dimension ``d``."""
        return cls(gram=np.zeros((d, d)), moment=np.zeros(d))

    def add(self, X: np.ndarray, y: np.ndarray, eps: np.ndarray) -> None:
        """Add rows already in the domain."""
        Xw = X * eps[:, None]
        self.gram += Xw.T @ X
        self.moment += Xw.T @ y
        self.total += float(np.sum(eps))
        self.rows += X.shape[0]
        values, counts = np.unique(eps, return_counts=True)
        for v, c in zip(values.tolist(), counts.tolist()):
            self.levels[v] = self.levels.get(v, 0) + c

    def merge(self, other: "Sums") -> "Sums":
        """The sums of two disjoint sets of rows."""
        levels = dict(self.levels)
        for v, c in other.levels.items():
            levels[v] = levels.get(v, 0) + c
        return Sums(gram=self.gram + other.gram, moment=self.moment + other.moment, total=self.total + other.total,
                    rows=self.rows + other.rows, clipped=self.clipped + other.clipped, levels=levels)

    def theta_bar(self, lam: float) -> np.ndarray:
        """The weighted ridge solution of eq. (2) with ``w_i = eps_i / total``."""
        d = self.moment.size
        A = self.gram / self.total
        A[np.diag_indices(d)] += lam
        c = np.linalg.cholesky(A)
        return np.linalg.solve(c.T, np.linalg.solve(c, self.moment / self.total))


def _refuse(path, row: int, column: str, value, allowed: str):
    raise ValueError(f"{path}, row {row}, column {column!r}: {value!r} is outside the allowed range {allowed}")


def _check_chunk(frame: pd.DataFrame, path, first: int, bounds: Bounds, label: str, epsilon: str, clip: bool):
    """Validate one chunk and map it into the domain: ``(X, y, eps, rows clipped)``."""
    cols = list(bounds.features) + [label, epsilon]
    values = frame[cols].to_numpy(dtype=float, na_value=np.nan)
    bad = ~np.isfinite(values)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        _refuse(path, first + int(r), cols[c], float(values[r, c]), "(a finite number; missing values "
                "are refused)")
    eps = values[:, -1]
    if np.any(eps <= 0):
        r = int(np.flatnonzero(eps <= 0)[0])
        _refuse(path, first + r, epsilon, float(eps[r]), "(0, inf)")
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
    y = 2.0 * (raw[:, -1] - bounds.label_lower) / (bounds.label_upper - bounds.label_lower) - 1.0
    return np.clip(X, 0.0, 1.0), np.clip(y, -1.0, 1.0), eps, changed


def accumulate(source, bounds: Bounds, label: str, epsilon: str, *, clip: bool = False,
               chunk_rows: int = CHUNK_ROWS, progress=None) -> Sums:
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

    Returns
    -------
    Sums
    """
    chunk_rows = check_count(chunk_rows, "chunk_rows")
    sums = Sums.zeros(len(bounds.features))
    columns = list(bounds.features) + [label, epsilon]
    if len(set(columns)) != len(columns):
        raise ValueError(f"the label {label!r} and the privacy column {epsilon!r} must differ from each other "
                         f"and from the features {list(bounds.features)}")
    for path in data_files(source):
        for first, frame in _chunks(path, columns, chunk_rows):
            X, y, eps, changed = _check_chunk(frame, path, first, bounds, label, epsilon, clip)
            sums.add(X, y, eps)
            sums.clipped += changed
            if progress is not None:
                progress(X.shape[0])
    if sums.rows == 0:
        raise ValueError(f"{source}: no rows")
    return sums


def fit_sums(sums: Sums, lam, B=None, rng=None):
    """PDP-OP from the sums: ``(theta_hat, calibration)``; the noise is drawn once, here.

    With the same ``rng``, ``theta_hat`` equals :func:`pdp_lib.pdp_op` on the same rows up to the
    rounding of the sums' order (the noise is the same draw).
    """
    lam = check_positive(lam, "lam")
    gen = check_rng(rng)
    d = sums.moment.size
    levels = np.fromiter(sums.levels, dtype=float)
    cal = calibrate(levels, lam, d, B)                 # validates lam, d and B; names the theorem
    eta = sums.total / noise_scale(lam, d, cal.B)      # S / c_lambda, S over every row
    theta_bar = sums.theta_bar(lam)
    return theta_bar + _sample_l2_laplace(eta, d, 1, gen)[0], (cal.theorem, cal.B, eta)


def model_record(theta, bounds: Bounds, sums: Sums, lam, theorem: str, B: float, eta: float) -> dict:
    """The model file's content: the estimate, the calibration and the privacy statement; no row, no seed."""
    return {
        "coef": [float(v) for v in theta],
        "features": list(bounds.features),
        "lam": float(lam), "B": float(B), "eta": float(eta),
        "privacy": {
            "statement": "each row i gets epsilon_i-personalized differential privacy (pure), for the rows "
                         "read, with the bounds below fixed before the data were seen",
            "theorem": theorem,
            "levels": [{"epsilon": float(v), "rows": int(c)} for v, c in sorted(sums.levels.items())],
            "rows": int(sums.rows), "clipped_rows": int(sums.clipped),
            "bounds": bounds.as_dict(),
        },
        "scaling": "features x -> (x - lower) / (upper - lower); label y -> 2 (y - lower) / (upper - lower) - 1",
        "library": f"pdp_lib {version('pdp_lib')}",
    }


def write_model(record: dict, path) -> None:
    """Write the model file (JSON)."""
    Path(path).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
