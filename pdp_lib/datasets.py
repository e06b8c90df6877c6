"""Data of Section 4: the synthetic generator, the Medical Cost data, the splits.

The Medical Cost data ("Medical Cost Personal Datasets", Kaggle; from Brett
Lantz, *Machine Learning with R*, Packt 2013) ship inside the package as
``pdp_lib/data/insurance.csv``; see ``pdp_lib/data/PROVENANCE.md``.
Used in the book's chapter *The PDP-OP mechanism* and in every table chapter.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from importlib import resources

import numpy as np
import pandas as pd

from .validation import (
    as_float_array,
    check_count,
    check_dimension,
    check_fraction,
    check_rng,
)

__all__ = [
    "SyntheticData",
    "make_synthetic",
    "MedicalCost",
    "load_medical_cost",
    "Diabetes",
    "load_diabetes",
    "train_test_split",
    "training_subset",
    "NUMERIC_COLUMNS",
    "CATEGORICAL_COLUMNS",
]

NUMERIC_COLUMNS = ("age", "bmi", "children")
CATEGORICAL_COLUMNS = ("sex", "smoker", "region")
LABEL_COLUMN = "charges"


@dataclass(frozen=True)
class SyntheticData:
    """A synthetic dataset of Section 4.

    Attributes
    ----------
    X : numpy.ndarray of shape (n, d)
        Features, uniform on ``[0, 1]^d``.
    y : numpy.ndarray of shape (n,)
        Labels ``x^T theta_star / sqrt(d)`` (plus Gaussian noise when ``sigma > 0``).
    theta_star : numpy.ndarray of shape (d,)
        Uniform on the unit sphere.
    coef : numpy.ndarray of shape (d,)
        ``theta_star / sqrt(d)``: the coefficient with ``y = X coef + noise``,
        i.e. the ``theta^*`` of Assumption 3.2 and Theorem 3.3.
    sigma : float
        Label noise standard deviation.
    """

    X: np.ndarray
    y: np.ndarray
    theta_star: np.ndarray
    coef: np.ndarray
    sigma: float


def make_synthetic(n, d, sigma=0.0, rng=None) -> SyntheticData:
    """Draw the synthetic data of Section 4 ("Synthetic Data Generation").

    ``theta_star`` is uniform on the unit sphere ``S^{d-1}``, each ``x`` uniform
    on ``[0, 1]^d`` and ``y = x^T theta_star / sqrt(d) + N(0, sigma^2)``.  With
    ``sigma = 0`` (the paper's setting) ``|y| <= ||x|| / sqrt(d) <= 1``, inside the
    domain.  With ``sigma > 0`` labels may leave ``[-1, 1]``; they are returned
    as drawn (never clipped), and the mechanism will refuse them.

    Parameters
    ----------
    n, d : int
        Number of points and dimension, both ``>= 1``.
    sigma : float, default 0
        Label noise, ``>= 0``.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    SyntheticData
    """
    n = check_count(n, "n")
    d = check_dimension(d)
    if isinstance(sigma, (bool, np.bool_)) or not isinstance(sigma, numbers.Real):
        raise TypeError(f"sigma must be a real number, got {type(sigma).__name__}")
    sigma = float(sigma)
    if not math.isfinite(sigma) or sigma < 0:
        raise ValueError(f"sigma = {sigma!r} is outside the allowed range [0, inf)")
    gen = check_rng(rng)
    g = gen.standard_normal(d)
    theta_star = g / np.linalg.norm(g)
    X = gen.random((n, d))
    coef = theta_star / math.sqrt(d)
    y = X @ coef
    if sigma > 0:
        y = y + gen.normal(0.0, sigma, size=n)
    return SyntheticData(X=X, y=y, theta_star=theta_star, coef=coef, sigma=sigma)


@dataclass(frozen=True)
class MedicalCost:
    """The preprocessed Medical Cost data (Section 4, "Data pre-processing").

    Attributes
    ----------
    X : numpy.ndarray of shape (1338, 12)
        ``age, bmi, children`` min-max scaled to ``[0, 1]``; one-hot ``sex``,
        ``smoker``, ``region`` with every level kept; a final intercept column
        of ones.
    y : numpy.ndarray of shape (1338,)
        ``charges`` min-max scaled to ``[0, 1]``.
    feature_names : tuple of str
    raw : pandas.DataFrame
        The data as read from the CSV file (a copy).
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple
    raw: pd.DataFrame = field(repr=False)


def _read_insurance_csv() -> pd.DataFrame:
    with resources.files("pdp_lib").joinpath("data/insurance.csv").open("r") as fh:
        return pd.read_csv(fh)


def _min_max(col: pd.Series) -> np.ndarray:
    v = col.to_numpy(dtype=float)
    lo, hi = v.min(), v.max()
    if hi == lo:
        return np.zeros_like(v)
    return (v - lo) / (hi - lo)


def load_medical_cost() -> MedicalCost:
    """Load and preprocess the Medical Cost data exactly as the paper does.

    Min-max scale ``age, bmi, children`` and the label ``charges`` to ``[0, 1]``,
    one-hot encode ``sex, smoker, region`` keeping every level (levels in
    alphabetical order), and append an intercept column of ones (``d = 12``).
    The column order is the authors': numeric features, then the one-hot
    blocks, then the intercept.

    Returns
    -------
    MedicalCost
    """
    raw = _read_insurance_csv()
    cols = {name: _min_max(raw[name]) for name in NUMERIC_COLUMNS}
    for name in CATEGORICAL_COLUMNS:
        for level in sorted(raw[name].unique()):
            cols[f"{name}_{level}"] = (raw[name] == level).to_numpy(dtype=float)
    cols["intercept"] = np.ones(len(raw))
    names = tuple(cols)
    X = np.column_stack([cols[k] for k in names])
    y = _min_max(raw[LABEL_COLUMN])
    return MedicalCost(X=X, y=y, feature_names=names, raw=raw.copy())


DIABETES_FEATURES = ("age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6")


@dataclass(frozen=True)
class Diabetes:
    """The diabetes data, prepared as the paper prepares Medical Cost (data it never saw).

    Attributes
    ----------
    X : numpy.ndarray of shape (442, 11)
        The ten baseline variables (``age, sex, bmi, bp, s1 ... s6``) min-max scaled to
        ``[0, 1]`` (``sex``, coded 1/2, becomes 0/1), and a final intercept column of ones.
    y : numpy.ndarray of shape (442,)
        Disease progression one year after baseline, min-max scaled to ``[0, 1]``.
    feature_names : tuple of str
    raw : pandas.DataFrame
        The unscaled variables and target (a copy).
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple
    raw: pd.DataFrame = field(repr=False)


def load_diabetes() -> Diabetes:
    """Load the diabetes data of Efron et al. (2004), as shipped in the pinned scikit-learn wheel.

    442 patients, ten baseline variables and a quantitative measure of disease progression
    one year later (``sklearn.datasets.load_diabetes(scaled=False)``: the raw values, read
    from the wheel, no download; provenance in ``pdp_lib/data/PROVENANCE.md``).  Prepared
    as Section 4 prepares the Medical Cost data (:func:`load_medical_cost`): every variable
    and the target min-max scaled to ``[0, 1]``, then an intercept column of ones
    (``d = 11``).  Split it with :func:`train_test_split` (80/20, seed 21), as the paper
    splits Medical Cost.  Used in the book's chapter *Does personalization pay?*.

    Returns
    -------
    Diabetes
    """
    from sklearn.datasets import load_diabetes as _sklearn_diabetes  # noqa: PLC0415 - heavy import

    bunch = _sklearn_diabetes(scaled=False)
    names = tuple(bunch.feature_names)
    if names != DIABETES_FEATURES or bunch.data.shape != (442, 10):
        raise ValueError(f"scikit-learn's diabetes data changed: features {names}, shape "
                         f"{bunch.data.shape}; expected {DIABETES_FEATURES}, (442, 10)")
    raw = pd.DataFrame(bunch.data, columns=list(names))
    raw["progression"] = bunch.target
    X = np.column_stack([_min_max(raw[name]) for name in names] + [np.ones(len(raw))])
    y = _min_max(raw["progression"])
    return Diabetes(X=X, y=y, feature_names=names + ("intercept",), raw=raw.copy())


def _shuffle_split_indices(n: int, n_first: int, n_second: int, seed: int):
    # Same permutation as scikit-learn's ShuffleSplit with an int random_state:
    # a legacy RandomState(seed) local to this call (never the global state).
    perm = np.random.RandomState(seed).permutation(n)
    return perm[:n_first], perm[n_first : n_first + n_second]


def train_test_split(X, y, test_size=0.2, seed=21):
    """Shuffle and split into train and test sets, as the paper's code did.

    Reproduces ``sklearn.model_selection.train_test_split(X, y,
    test_size=test_size, random_state=seed)`` exactly: ``ceil(test_size * n)``
    test points, the rest for training, drawn by one permutation from a
    ``numpy.random.RandomState(seed)`` local to this call.  The paper used
    ``test_size=0.2, random_state=21`` for both datasets.

    Returns
    -------
    X_train, X_test, y_train, y_test : numpy.ndarray
    """
    Xa = as_float_array(X, "X")
    ya = as_float_array(y, "y")
    if Xa.ndim != 2 or ya.ndim != 1 or len(Xa) != len(ya):
        raise ValueError(f"X must be (n, d) and y (n,) with the same n, got {Xa.shape} and {ya.shape}")
    test_size = check_fraction(test_size, "test_size", closed_low=False, closed_high=False)
    seed = check_count(seed, "seed", minimum=0)
    n = len(Xa)
    n_test = math.ceil(test_size * n)
    n_train = n - n_test
    if n_train < 1 or n_test < 1:
        raise ValueError(f"test_size = {test_size} leaves an empty train or test set for n = {n}")
    test, train = _shuffle_split_indices(n, n_test, n_train, seed)
    return Xa[train], Xa[test], ya[train], ya[test]


def training_subset(X, y, fraction, seed=21):
    """The first ``floor(fraction * n)`` points of a seeded shuffle (Tables 11-12).

    Reproduces ``train_test_split(X, y, train_size=fraction,
    random_state=seed)[::2]`` of scikit-learn, which the paper's code used to
    vary the training set size; ``fraction = 1`` returns copies of the data.
    """
    Xa = as_float_array(X, "X")
    ya = as_float_array(y, "y")
    if Xa.ndim != 2 or ya.ndim != 1 or len(Xa) != len(ya):
        raise ValueError(f"X must be (n, d) and y (n,) with the same n, got {Xa.shape} and {ya.shape}")
    fraction = check_fraction(fraction, "fraction", closed_low=False)
    seed = check_count(seed, "seed", minimum=0)
    if fraction == 1.0:
        return Xa, ya
    n = len(Xa)
    n_train = math.floor(fraction * n)
    if n_train < 1:
        raise ValueError(f"fraction = {fraction} keeps no point of n = {n}")
    n_rest = n - n_train
    _, train = _shuffle_split_indices(n, n_rest, n_train, seed)
    return Xa[train], ya[train]
