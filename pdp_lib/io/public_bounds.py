r"""Public bounds: each feature's range and the label's, fixed before the data are seen.

:func:`read_bounds` reads them from a small TOML file; :func:`domain_bounds` takes a table already in the domain
(every column but the label and the level a feature in ``[0, 1]``, the label in ``[-1, 1]``).  Bounds read off
the data break the guarantee (the book's chapter *What the guarantee does not cover*).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .tables import data_files, header

__all__ = ["Bounds", "read_bounds", "domain_bounds"]


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
