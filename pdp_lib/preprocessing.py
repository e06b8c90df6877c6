r"""Mapping raw data into the domain the privacy proof assumes, with public bounds.

Theorems 3.1 and 3.2 of the paper hold for features ``x_i in [0, 1]^d`` and
labels ``y_i in [-1, 1]`` (Section 3, "Our Setup"); the sensitivity bound of
Theorem A.4 uses ``||x|| <= sqrt(d)`` and ``|y| <= 1``.  Raw data rarely live
there, so they are first min-max scaled,

.. math::

    x \mapsto \frac{x - \ell}{u - \ell},

column by column, with a lower bound ``l`` and an upper bound ``u`` for each
feature.  Derived and discussed in the book's chapter *The PDP-OP mechanism*
(``book/mechanism.ipynb``).

The bounds must be public
-------------------------
The guarantee holds only when ``lower`` and ``upper`` are fixed *before* the
data are seen and do not depend on them (a documented range of the
instrument, a legal age range, a published price cap, ...).  Bounds computed
from the private data themselves -- ``X.min(axis=0)``, ``X.max(axis=0)``, as
scikit-learn's ``MinMaxScaler`` does on ``fit`` -- break the guarantee twice:

* they are released implicitly (a model fitted on scaled data has to be
  un-scaled with them, and the maximum of a column *is* one person's value);
* they couple the points: replacing one person's record can move the minimum
  or the maximum and so change every other scaled record, while the
  sensitivity analysis of Theorem A.4 assumes that ``i``-neighbouring datasets
  differ in point ``i`` only.

The paper itself min-max scales the Medical Cost data with the data's own
minimum and maximum (Section 4, "Data pre-processing"), as
:func:`pdp_lib.datasets.load_medical_cost` reproduces; that is fine to
reproduce its numbers and is outside the formal guarantee.

Nothing is clipped unless asked
-------------------------------
A value outside ``[lower, upper]`` raises :class:`ValueError` naming the
argument, the index (and the column label of a DataFrame) and the allowed
range.  ``clip=True`` -- explicit, never the default -- clamps such values to
the bounds instead.  Clipping with public bounds keeps the guarantee (it is a
per-record map fixed in advance), but it changes the data, so the caller has
to choose it.  NaN and inf are refused even with ``clip=True``.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin

from .validation import as_float_array, first_bad_index, format_index

__all__ = ["scale_to_domain", "scale_labels", "DomainScaler"]


def _column_bounds(bound, name: str, d: int, columns) -> np.ndarray:
    """``bound`` (a scalar, a sequence of length ``d`` or, for a DataFrame, a
    Series / mapping keyed by column label) as a finite float array of shape (d,)."""
    if columns is not None and isinstance(bound, (pd.Series, dict)):
        missing = [c for c in columns if c not in bound]
        if missing:
            raise ValueError(f"{name} has no entry for column {missing[0]!r} of X")
        bound = [bound[c] for c in columns]
    arr = as_float_array(bound, name)
    if arr.ndim == 0:
        arr = np.full(d, float(arr))
    elif arr.ndim != 1 or arr.shape[0] != d:
        raise ValueError(f"{name} must be a scalar or have shape ({d},) (one bound per column), "
                         f"got shape {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        j = first_bad_index(bad)
        raise ValueError(f"{name}[{j}] = {float(arr[j])!r} is outside the allowed range (-inf, inf)")
    return arr


def _check_bounds_order(lower: np.ndarray, upper: np.ndarray) -> None:
    width = upper - lower
    bad = ~(width > 0) | ~np.isfinite(width)
    if bad.any():
        j = first_bad_index(bad)
        raise ValueError(
            f"upper[{j}] = {float(upper[j])!r} must be greater than lower[{j}] = {float(lower[j])!r} "
            f"(with a finite difference)"
        )


def _check_clip(clip) -> bool:
    if not isinstance(clip, (bool, np.bool_)):
        raise TypeError(f"clip must be True or False, got {type(clip).__name__}")
    return bool(clip)


def _num(x) -> str:
    """Short exact text of a bound: ``18`` for 18.0, ``16884.924`` as is."""
    x = float(x)
    short = f"{x:g}"
    return short if float(short) == x else repr(x)


def _check_within(arr: np.ndarray, name: str, lower, upper, clip: bool, columns=None) -> np.ndarray:
    """Refuse NaN/inf always and values outside ``[lower, upper]`` unless ``clip``."""
    bad = ~np.isfinite(arr)
    if not clip:
        bad |= (arr < lower) | (arr > upper)
    if bad.any():
        idx = first_bad_index(bad)
        j = idx[1] if isinstance(idx, tuple) else idx
        lo, hi = (lower[j], upper[j]) if arr.ndim == 2 else (lower, upper)
        col = f" (column {columns[j]!r})" if columns is not None and arr.ndim == 2 else ""
        value = float(arr[idx])
        remedy = ("NaN and inf are refused, also with clip=True" if not np.isfinite(value) else
                  "widen the public bounds, or pass clip=True to clamp such values to them")
        raise ValueError(
            f"{name}[{format_index(idx)}]{col} = {value!r} is outside the allowed range "
            f"[{_num(lo)}, {_num(hi)}] given by lower and upper; {remedy}"
        )
    return np.clip(arr, lower, upper) if clip else arr


def scale_to_domain(X, lower, upper, *, clip=False) -> np.ndarray:
    """Min-max scale features into ``[0, 1]`` with *public* per-column bounds.

    Returns ``(X - lower) / (upper - lower)`` column by column, which lies in
    ``[0, 1]^(n x d)``, the feature domain of Theorems 3.1/3.2 (Section 3,
    "Our Setup").  Derived in the book's chapter *The PDP-OP mechanism*
    (``book/mechanism.ipynb``).  The result is in ``[0, 1]`` exactly, not only
    up to rounding: floating-point subtraction and division are monotone.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Raw features (NumPy array, nested lists or pandas DataFrame); never
        modified.
    lower, upper : float or array-like of shape (d,)
        Public bounds, fixed without looking at the data (see the module
        docstring: bounds read off the private data void the guarantee).  A
        scalar applies to every column; for a DataFrame a pandas Series or a
        dict keyed by column label is matched by label.  ``upper > lower``
        for every column.
    clip : bool, default False
        If False, a value outside ``[lower, upper]`` raises ``ValueError``.
        If True, such values are clamped to the bounds first.  NaN and inf are
        refused either way.

    Returns
    -------
    numpy.ndarray of shape (n, d)
        A new float array with entries in ``[0, 1]``.

    Raises
    ------
    ValueError
        Naming the argument, the first offending index (and column label) and
        the allowed range.
    TypeError
        For non-numeric input or a non-bool ``clip``.
    """
    clip = _check_clip(clip)
    columns = list(X.columns) if isinstance(X, pd.DataFrame) else None
    arr = as_float_array(X, "X")
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-D of shape (n, d), got {arr.ndim}-D shape {arr.shape}")
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"X must have n >= 1 rows and d >= 1 columns, got shape {arr.shape}")
    d = arr.shape[1]
    lo = _column_bounds(lower, "lower", d, columns)
    hi = _column_bounds(upper, "upper", d, columns)
    _check_bounds_order(lo, hi)
    arr = _check_within(arr, "X", lo, hi, clip, columns)
    return (arr - lo) / (hi - lo)


def _scalar_bound(value, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    x = float(value)
    if not np.isfinite(x):
        raise ValueError(f"{name} = {x!r} is outside the allowed range (-inf, inf)")
    return x


def scale_labels(y, lower, upper, *, symmetric=False, clip=False) -> np.ndarray:
    """Min-max scale labels with *public* bounds into ``[0, 1]`` (default) or ``[-1, 1]``.

    By default returns ``(y - lower) / (upper - lower)`` in ``[0, 1]``, as the
    paper maps the Medical Cost charges (Section 4, "Data pre-processing");
    ``[0, 1]`` is inside the label domain ``[-1, 1]`` of Theorems 3.1/3.2.
    With ``symmetric=True`` returns ``2 (y - lower) / (upper - lower) - 1`` in
    ``[-1, 1]``, the whole label domain.  Derived in the book's chapter
    *The PDP-OP mechanism* (``book/mechanism.ipynb``).

    Parameters
    ----------
    y : array-like of shape (n,)
        Raw labels (NumPy array, list or pandas Series); never modified.
    lower, upper : float
        Public bounds with ``upper > lower``, fixed without looking at the
        data (see the module docstring).
    symmetric : bool, default False
        Target ``[-1, 1]`` instead of ``[0, 1]``.
    clip : bool, default False
        Clamp values outside ``[lower, upper]`` instead of raising.  NaN and
        inf are refused either way.

    Returns
    -------
    numpy.ndarray of shape (n,)
    """
    clip = _check_clip(clip)
    if not isinstance(symmetric, (bool, np.bool_)):
        raise TypeError(f"symmetric must be True or False, got {type(symmetric).__name__}")
    arr = as_float_array(y, "y")
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-D of shape (n,), got shape {arr.shape}")
    if arr.shape[0] < 1:
        raise ValueError("y must have n >= 1 entries, got 0")
    lo = np.array([_scalar_bound(lower, "lower")])
    hi = np.array([_scalar_bound(upper, "upper")])
    _check_bounds_order(lo, hi)
    arr = _check_within(arr, "y", lo[0], hi[0], clip)
    unit = (arr - lo[0]) / (hi[0] - lo[0])
    return 2.0 * unit - 1.0 if symmetric else unit


class DomainScaler(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Scikit-learn transformer: :func:`scale_to_domain` with fixed public bounds.

    Unlike ``sklearn.preprocessing.MinMaxScaler``, ``fit`` learns *nothing*
    from the data (it only checks that the bounds match the number of
    columns), so placing it before :class:`pdp_lib.PersonalizedRidge` in a
    ``Pipeline`` keeps the privacy guarantee of Theorems 3.1/3.2.  See the
    module docstring and the book's chapter *The PDP-OP mechanism*
    (``book/mechanism.ipynb``).

    Parameters
    ----------
    lower, upper : float or array-like of shape (d,)
        Public per-column bounds, ``upper > lower``.
    clip : bool, default False
        Clamp values outside the bounds instead of raising ``ValueError``.

    Attributes
    ----------
    lower_, upper_ : numpy.ndarray of shape (d,)
        The bounds as arrays, in the order of the columns of ``X``.
    n_features_in_ : int
    feature_names_in_ : numpy.ndarray of shape (d,)
        The column names of ``X`` at ``fit``, when ``X`` is a DataFrame with string column names.  Bounds
        keyed by name (a mapping or a Series) are applied by name, and ``transform`` refuses a DataFrame whose
        columns are missing, extra or in another order, as scikit-learn does; ``get_feature_names_out`` returns
        them, and ``set_output(transform="pandas")`` makes ``transform`` return a DataFrame.
    """

    def __init__(self, lower=0.0, upper=1.0, clip=False):
        self.lower = lower
        self.upper = upper
        self.clip = clip

    def fit(self, X, y=None):
        """Check the bounds against the shape of ``X``; nothing is learned from its values."""
        _check_clip(self.clip)
        columns = list(X.columns) if isinstance(X, pd.DataFrame) else None
        arr = as_float_array(X, "X")
        if arr.ndim == 2 and arr.shape[1] < 1:
            raise ValueError(f"X has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required: X must be "
                             f"2-D of shape (n, d) with n >= 1 and d >= 1")
        if arr.ndim != 2 or arr.shape[0] < 1:
            raise ValueError(f"X must be 2-D of shape (n, d) with n >= 1 and d >= 1, got shape {arr.shape}"
                             + (" (Reshape your data: X.reshape(-1, 1) for one feature, X.reshape(1, -1) for one row)"
                                if arr.ndim == 1 else ""))
        bad = ~np.isfinite(arr)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise ValueError(f"X[{i}, {j}] = {float(arr[i, j])!r} is outside the allowed range (-inf, inf)")
        d = arr.shape[1]
        for name, bound in (("lower", self.lower), ("upper", self.upper)):
            keyed = isinstance(bound, dict) or (isinstance(bound, pd.Series)
                                                and list(bound.index) != list(range(len(bound))))
            if columns is None and keyed:
                raise ValueError(f"{name} is keyed by column name, but X has no column names: pass X as a "
                                 f"DataFrame, or give {name} as one bound per column in order")
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        if columns is not None and all(isinstance(c, str) for c in columns):
            self.feature_names_in_ = np.asarray(columns, dtype=object)
        lo = _column_bounds(self.lower, "lower", d, columns)
        hi = _column_bounds(self.upper, "upper", d, columns)
        _check_bounds_order(lo, hi)
        self.lower_, self.upper_ = lo, hi
        self.n_features_in_ = d
        return self

    def _fitted_input(self, X) -> np.ndarray:
        """``X`` as a float array after checking that the scaler is fitted and ``X`` has its width."""
        if not hasattr(self, "lower_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("DomainScaler is not fitted yet; call fit(X) first")
        names = getattr(self, "feature_names_in_", None)
        if names is not None and isinstance(X, pd.DataFrame):
            given = list(X.columns)
            if given != list(names):
                missing = [c for c in names if c not in given]
                extra = [c for c in given if c not in set(names)]
                what = (f"column {missing[0]!r} is missing" if missing else f"column {extra[0]!r} was not seen at fit"
                        if extra else "the columns are in another order")
                raise ValueError(f"X's columns must be those seen at fit, in the same order: {what} "
                                 f"(fit: {list(names)}, here: {given})")
        elif names is not None:
            import warnings

            warnings.warn("X does not have valid feature names, but DomainScaler was fitted with feature names",
                          UserWarning, stacklevel=3)
        arr = as_float_array(X, "X")
        if arr.ndim != 2:
            raise ValueError(f"X must have shape (n, {self.n_features_in_}), got {arr.shape} (Reshape your data: "
                             f"X.reshape(1, -1) for one row)")
        if arr.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {arr.shape[1]} features, but DomainScaler is expecting {self.n_features_in_} "
                             f"features as input")
        return arr



    def transform(self, X):
        """Return :func:`scale_to_domain` of ``X`` with the fitted bounds."""
        self._fitted_input(X)
        return scale_to_domain(X, self.lower_, self.upper_, clip=self.clip)

    def inverse_transform(self, X):
        """Map scaled features back: ``lower + X (upper - lower)``."""
        arr = self._fitted_input(X)
        return self.lower_ + arr * (self.upper_ - self.lower_)
