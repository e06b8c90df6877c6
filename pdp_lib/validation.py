"""Input validation: the domain the privacy proof assumes, checked in one place.

Theorems 3.1 and 3.2 of the paper hold only for features in ``[0, 1]^d``, labels
in ``[-1, 1]``, privacy levels ``epsilon_i > 0`` and ``lambda > 0``
(Section 3, "Our Setup"; derived in the book's chapter *The PDP-OP mechanism*).
Every public function of :mod:`pdp_lib` routes its inputs through these checks.
A value outside the domain raises :class:`ValueError` naming the argument, the
first offending index and the allowed range; a value of the wrong kind raises
:class:`TypeError`.  Nothing is clipped or coerced silently: a silent fix would
void the guarantee.  Inputs are never modified; the checks return new arrays
(or read-only views of the caller's data, never written to).
"""

from __future__ import annotations

import numbers
import sys

import numpy as np

__all__ = [
    "check_data",
    "check_problem",
    "check_features",
    "check_labels",
    "check_epsilons",
    "check_weights",
    "check_positive",
    "check_dimension",
    "check_count",
    "check_fraction",
    "check_rng",
    "check_finite",
    "check_choice",
    "MAX_LEVEL",
]

MAX_LEVEL = 100.0
"""The largest privacy level a table read from files may carry (``python -m pdp_lib fit`` and ``compare``).

A level above 100 promises nothing a reader of differential privacy would call protection (a likelihood
ratio up to ``e**100``, about ``2.7e43``), and it takes the weight of ``100 / eps_j`` rows of level
``eps_j`` in ``w_i = eps_i / sum(eps)``: such a value is almost always a slip (a misplaced decimal point,
a count in the level column), and ``1e308`` twice overflows the sum.  Rows that need no privacy belong
in a separate, non-private fit.  With every level at most 100 the sum stays finite for any number of rows
a machine can hold.  The Python API (:func:`check_epsilons`) keeps the paper's range ``(0, inf)``.
"""


def as_float_array(value, name: str) -> np.ndarray:
    """Convert ``value`` to a float array without copying user data in place."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be array-like of numbers, got {type(value).__name__}")
    sparse = sys.modules.get("scipy.sparse")
    if sparse is not None and sparse.issparse(value):
        raise TypeError(f"{name} is a sparse {type(value).__name__}: sparse input is not supported; pass a dense "
                        f"array ({name}.toarray())")
    pd = sys.modules.get("pandas")  # a DataFrame exists only once pandas is imported: no import here
    if pd is not None and isinstance(value, (pd.DataFrame, pd.Series)):
        # Mixed column dtypes (float next to bool, e.g. after pandas.get_dummies) and nullable
        # extension dtypes (Int64, Float64, boolean) turn into object arrays under np.asarray;
        # read them column-wise instead, missing values becoming NaN (refused later, by index).
        dtypes = list(value.dtypes) if isinstance(value, pd.DataFrame) else [value.dtype]
        bad = [t for t in dtypes if not (pd.api.types.is_bool_dtype(t) or pd.api.types.is_numeric_dtype(t))
               or pd.api.types.is_complex_dtype(t)]
        if bad:
            raise TypeError(f"{name} must contain real numbers, got dtype {bad[0]}")
        return value.to_numpy(dtype=float, na_value=np.nan, copy=True)
    try:
        arr = np.asarray(value)
    except Exception as exc:  # pragma: no cover - exotic objects
        raise TypeError(f"{name} must be array-like of numbers: {exc}") from None
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise TypeError(f"{name} must contain numbers, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must contain real numbers, got dtype {arr.dtype}")
    return arr.astype(float, copy=True)


def _check_not_empty(arr: np.ndarray, name: str, head: str = "must have n >= 1 rows and d >= 1 columns") -> None:
    """A 2-D array needs ``n >= 1`` rows and ``d >= 1`` columns (also worded as scikit-learn words it)."""
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        what = (f"0 sample(s) (shape={arr.shape}) while a minimum of 1 is required" if arr.shape[0] < 1 else
                f"0 feature(s) (shape={arr.shape}) while a minimum of 1 is required")
        raise ValueError(f"{name} {head}, got shape {arr.shape}: found {what}.")


def first_bad_index(mask: np.ndarray):
    """Index (int or tuple) of the first ``True`` entry of ``mask`` in C order."""
    flat = int(np.flatnonzero(mask.ravel())[0])
    idx = np.unravel_index(flat, mask.shape)
    return int(idx[0]) if len(idx) == 1 else tuple(int(i) for i in idx)


def format_index(idx) -> str:
    return ", ".join(map(str, idx)) if isinstance(idx, tuple) else str(idx)


def _check_interval(arr: np.ndarray, name: str, low: float, high: float,
                    remedy: str = "scale_to_domain") -> None:
    bad = ~np.isfinite(arr) | (arr < low) | (arr > high)
    if bad.any():
        idx = first_bad_index(bad)
        what = "" if np.isfinite(arr[idx]) else "; NaN and infinity are refused"
        raise ValueError(
            f"{name}[{format_index(idx)}] = "
            f"{float(arr[idx])!r} is outside the allowed range [{low:g}, {high:g}] "
            f"(the privacy guarantee assumes it; map the data into the domain first, "
            f"e.g. with pdp_lib.preprocessing.{remedy} and public bounds{what})"
        )


def check_features(X, name: str = "X") -> np.ndarray:
    """Validate a feature matrix: 2-D, non-empty, every entry in ``[0, 1]``.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Features; Section 3 ("Our Setup") assumes ``x_i in [0, 1]^d``.
    name : str
        Argument name used in error messages.

    Returns
    -------
    numpy.ndarray
        A float copy of shape ``(n, d)``.
    """
    arr = as_float_array(X, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D of shape (n, d), got {arr.ndim}-D shape {arr.shape}")
    _check_not_empty(arr, name)
    _check_interval(arr, name, 0.0, 1.0)
    return arr


def _per_point(value, n: int | None, name: str) -> np.ndarray:
    """A float copy of a per-point vector: 1-D, at least one entry, ``n`` entries when given."""
    arr = as_float_array(value, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D of shape (n,), got shape {arr.shape}")
    if arr.shape[0] < 1:
        raise ValueError(f"{name} must have n >= 1 entries, got 0")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} entries but X has {n} rows; they must match")
    return arr


def check_labels(y, n: int | None = None, name: str = "y") -> np.ndarray:
    """Validate labels: 1-D, every entry in ``[-1, 1]``, length ``n`` when given.

    Section 3 ("Our Setup") assumes ``y_i in [-1, 1]``.
    """
    arr = _per_point(y, n, name)
    _check_interval(arr, name, -1.0, 1.0, remedy="scale_labels")
    return arr


def check_epsilons(epsilons, n: int | None = None, name: str = "epsilons") -> np.ndarray:
    """Validate per-point privacy levels: 1-D, finite, every ``epsilon_i > 0``.

    Definition 2.2 (personalized DP) and Theorems 3.1/3.2 take ``epsilon_i > 0``.
    """
    arr = _per_point(epsilons, n, name)
    bad = ~np.isfinite(arr) | (arr <= 0)
    if bad.any():
        i = first_bad_index(bad)
        raise ValueError(f"{name}[{i}] = {float(arr[i])!r} is outside the allowed range (0, inf): "
                         f"every privacy level must be positive and finite")
    return arr


def check_weights(weights, n: int | None = None, name: str = "weights", atol: float = 1e-9) -> np.ndarray:
    """Validate loss weights: 1-D, finite, ``w_i >= 0`` and ``sum(w) = 1``.

    Algorithm 1 takes a weight vector ``w >= 0`` with ``sum_i w_i = 1``; the norm
    bound of Lemma A.1 uses ``sum_i w_i y_i^2 <= 1`` and so depends on it.
    """
    arr = _per_point(weights, n, name)
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        i = first_bad_index(bad)
        raise ValueError(f"{name}[{i}] = {float(arr[i])!r} is outside the allowed range [0, inf)")
    total = float(arr.sum())
    if abs(total - 1.0) > atol:
        raise ValueError(f"{name} must sum to 1 (Algorithm 1), got sum {total!r}")
    return arr


def check_positive(value, name: str) -> float:
    """Validate a scalar that must be finite and strictly positive (``lam``, ``B``, ``eta``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.ndarray)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise TypeError(f"{name} must be a scalar, got an array of shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must be a real number, got dtype {arr.dtype}")
    x = float(arr)
    if not np.isfinite(x) or x <= 0:
        raise ValueError(f"{name} = {x!r} is outside the allowed range (0, inf)")
    return x


def check_count(value, name: str, minimum: int = 1) -> int:
    """Validate an integer count such as ``d``, ``n`` or ``size`` (``>= minimum``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral,)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    v = int(value)
    if v < minimum:
        raise ValueError(f"{name} = {v} is outside the allowed range [{minimum}, inf)")
    return v


def check_dimension(d, name: str = "d") -> int:
    """Validate a feature dimension ``d >= 1``."""
    return check_count(d, name, minimum=1)


def check_fraction(value, name: str, *, closed_low: bool = True, closed_high: bool = True) -> float:
    """Validate a number in ``[0, 1]`` (bounds optionally open)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    x = float(value)
    lo_ok = x >= 0 if closed_low else x > 0
    hi_ok = x <= 1 if closed_high else x < 1
    if not (np.isfinite(x) and lo_ok and hi_ok):
        lo = "[" if closed_low else "("
        hi = "]" if closed_high else ")"
        raise ValueError(f"{name} = {x!r} is outside the allowed range {lo}0, 1{hi}")
    return x


def check_choice(value, name: str, allowed, use: str) -> str:
    """Validate a choice by name: ``value`` if it is a string among ``allowed``, else :class:`ValueError`
    ``"<name> = <value> is not allowed; use <use>"``, ``use`` saying what each allowed value means."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} = {value!r} is not allowed; use {use}")
    return value


def check_rng(rng, name: str = "rng") -> np.random.Generator:
    """Turn ``None``, an int seed or a :class:`numpy.random.Generator` into a Generator.

    A :class:`numpy.random.SeedSequence` is accepted too.  The legacy global state
    (``np.random.seed``) is never used.
    """
    if rng is None or isinstance(rng, (np.random.SeedSequence,)):
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError(f"{name} must be None, an int seed or a numpy.random.Generator, got bool")
    if isinstance(rng, numbers.Integral):
        if int(rng) < 0:
            raise ValueError(f"{name} = {int(rng)} is outside the allowed range [0, inf) for a seed")
        return np.random.default_rng(int(rng))
    raise TypeError(
        f"{name} must be None, an int seed or a numpy.random.Generator, got {type(rng).__name__}"
    )


def check_finite(value, name: str, ndim: tuple = (1, 2)) -> np.ndarray:
    """Validate an array of finite real numbers with a dimension in ``ndim``; return a float copy.

    For arrays that the privacy proof does not constrain to a range (test data
    given to :func:`pdp_lib.losses.test_losses`, features given to
    ``PersonalizedRidge.predict``, estimates ``theta``): NaN and inf are still
    refused, naming the first offending index.
    """
    arr = as_float_array(value, name)
    if arr.ndim not in ndim:
        dims = " or ".join(f"{k}-D" for k in ndim)
        raise ValueError(f"{name} must be {dims}, got shape {arr.shape}")
    if arr.size == 0:
        if arr.ndim == 2:
            _check_not_empty(arr, name, "must not be empty")
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = first_bad_index(bad)
        raise ValueError(f"{name}[{format_index(idx)}] = {float(arr[idx])!r} is outside the allowed "
                         f"range (-inf, inf): values must be finite")
    return arr


_ABSENT = object()  # an argument the caller does not pass (``None`` is a value, and is refused)


def check_data(X, y, weights=_ABSENT, lam=_ABSENT) -> tuple:
    """Validate a weighted ridge problem at once: ``(X, y, weights, lam)`` (eq. (2)).

    ``X`` and ``y`` as :func:`check_features` and :func:`check_labels` (consistent lengths),
    ``weights`` as :func:`check_weights` and ``lam`` as :func:`check_positive` when passed
    (``None`` is returned for an argument not passed; a ``None`` passed is refused).  The one entry point of the functions that take a weighted
    dataset (the weighted ridge, the audits, the accuracy bound).
    """
    X = check_features(X)
    y = check_labels(y, X.shape[0])
    w = None if weights is _ABSENT else check_weights(weights, X.shape[0])
    return X, y, w, None if lam is _ABSENT else check_positive(lam, "lam")


def check_problem(X, y, epsilons, lam=_ABSENT) -> tuple:
    """Validate a personalized private regression problem at once: ``(X, y, epsilons, lam)``.

    ``X``, ``y`` and ``lam`` as in :func:`check_data`, ``epsilons`` as :func:`check_epsilons`
    (one level per point).  The one entry point of every mechanism that takes a privacy
    profile (PDP-OP, its baselines, the threshold rules).
    """
    X = check_features(X)
    y = check_labels(y, X.shape[0])
    return X, y, check_epsilons(epsilons, X.shape[0]), None if lam is _ABSENT else check_positive(lam, "lam")
