"""Tests of the data of Section 4: Medical Cost loader, splits, synthetic generator.

Truths used: the MD5 of the shipped file, the CSV read with the standard
library's csv module, hand computation, and scikit-learn's own
train_test_split (an independent implementation of the split the paper used).
"""

from __future__ import annotations

import csv
import hashlib
import math
from importlib import resources

import numpy as np
import pytest
from sklearn.model_selection import train_test_split as sk_train_test_split

from pdp_lib import load_medical_cost, make_synthetic, train_test_split, training_subset

MD5 = "d5364d06246fb4bfa4cc7d1ee89ebd0d"


def _csv_rows():
    with resources.files("pdp_lib").joinpath("data/insurance.csv").open("r", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def med():
    return load_medical_cost()


def test_insurance_csv_md5():
    data = resources.files("pdp_lib").joinpath("data/insurance.csv").read_bytes()
    assert hashlib.md5(data).hexdigest() == MD5


def test_medical_cost_shape_and_domain(med):
    assert med.X.shape == (1338, 12)
    assert med.y.shape == (1338,)
    assert np.all((med.X >= 0) & (med.X <= 1))
    assert np.all((med.y >= 0) & (med.y <= 1))
    assert len(med.feature_names) == 12
    assert med.feature_names[:3] == ("age", "bmi", "children")
    assert med.feature_names[-1] == "intercept"
    np.testing.assert_array_equal(med.X[:, -1], np.ones(1338))


def test_medical_cost_one_hot_blocks(med):
    names = med.feature_names
    rows = _csv_rows()
    for col, levels in [("sex", ["female", "male"]), ("smoker", ["no", "yes"]),
                        ("region", ["northeast", "northwest", "southeast", "southwest"])]:
        idx = [names.index(f"{col}_{lv}") for lv in levels]
        block = med.X[:, idx]
        assert set(np.unique(block)) <= {0.0, 1.0}
        np.testing.assert_array_equal(block.sum(axis=1), np.ones(1338))
        expected = np.array([[r[col] == lv for lv in levels] for r in rows], dtype=float)
        np.testing.assert_array_equal(block, expected)


def test_medical_cost_min_max_by_hand(med):
    rows = _csv_rows()
    assert rows[0]["age"] == "19"
    ages = [int(r["age"]) for r in rows]
    assert (min(ages), max(ages)) == (18, 64)
    assert med.X[0, 0] == pytest.approx((19 - 18) / (64 - 18), rel=1e-15)
    charges = [float(r["charges"]) for r in rows]
    lo, hi = min(charges), max(charges)
    assert med.y[0] == pytest.approx((16884.924 - lo) / (hi - lo), rel=1e-14)
    bmis = [float(r["bmi"]) for r in rows]
    assert med.X[1, 1] == pytest.approx((33.77 - min(bmis)) / (max(bmis) - min(bmis)), rel=1e-14)
    kids = [int(r["children"]) for r in rows]
    assert (min(kids), max(kids)) == (0, 5)
    assert med.X[1, 2] == pytest.approx(1 / 5, rel=1e-15)


def test_medical_cost_loader_is_fresh_each_time(med):
    again = load_medical_cost()
    again.X[0, 0] = 99.0  # the caller may modify its copy ...
    np.testing.assert_array_equal(load_medical_cost().X, med.X)  # ... without affecting the next load
    assert med.X[0, 0] != 99.0


def test_train_test_split_equals_sklearn(med):
    Xtr, Xte, ytr, yte = train_test_split(med.X, med.y)
    assert (len(Xtr), len(Xte)) == (1070, 268)
    sk = sk_train_test_split(med.X, med.y, test_size=0.2, random_state=21)
    for mine, theirs in zip((Xtr, Xte, ytr, yte), sk):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("n, test_size, seed", [(1000, 0.2, 21), (11, 0.3, 0), (5, 0.5, 3), (257, 0.1, 7)])
def test_train_test_split_equals_sklearn_other_sizes(n, test_size, seed):
    gen = np.random.default_rng(n)
    X = gen.random((n, 2))
    y = gen.random(n)
    mine = train_test_split(X, y, test_size=test_size, seed=seed)
    theirs = sk_train_test_split(X, y, test_size=test_size, random_state=seed)
    assert len(mine[1]) == math.ceil(test_size * n)
    for a, b in zip(mine, theirs):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("fraction", [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99])
def test_training_subset_equals_sklearn(med, fraction):
    Xtr, _, ytr, _ = train_test_split(med.X, med.y)
    Xs, ys = training_subset(Xtr, ytr, fraction)
    assert len(Xs) == math.floor(fraction * 1070)
    sk = sk_train_test_split(Xtr, ytr, train_size=fraction, random_state=21)
    np.testing.assert_array_equal(Xs, sk[0])
    np.testing.assert_array_equal(ys, sk[2])


def test_training_subset_full_fraction_returns_copies(small_data):
    X, y, _ = small_data
    Xs, ys = training_subset(X, y, 1.0)
    np.testing.assert_array_equal(Xs, X)
    np.testing.assert_array_equal(ys, y)
    assert not np.shares_memory(Xs, X) and not np.shares_memory(ys, y)


def test_splits_do_not_mutate_inputs(small_data):
    X, y, _ = small_data
    Xc, yc = X.copy(), y.copy()
    train_test_split(X, y)
    training_subset(X, y, 0.5)
    np.testing.assert_array_equal(X, Xc)
    np.testing.assert_array_equal(y, yc)


@pytest.mark.parametrize("call, pattern", [
    (lambda X, y: train_test_split(X, y, test_size=0.0), r"test_size = 0\.0 is outside the allowed range \(0, 1\)"),
    (lambda X, y: train_test_split(X, y, test_size=1.0), r"test_size = 1\.0 is outside the allowed range \(0, 1\)"),
    (lambda X, y: train_test_split(X, y[:-1]), r"same n"),
    (lambda X, y: train_test_split(X[:1], y[:1]), r"empty train or test set for n = 1"),
    (lambda X, y: train_test_split(X, y, seed=-1), r"seed = -1 is outside the allowed range \[0, inf\)"),
    (lambda X, y: training_subset(X, y, 0.0), r"fraction = 0\.0 is outside the allowed range \(0, 1\]"),
    (lambda X, y: training_subset(X, y, 1.2), r"fraction = 1\.2 is outside the allowed range \(0, 1\]"),
    (lambda X, y: training_subset(X, y, 0.01), r"fraction = 0\.01 keeps no point of n = 12"),
])
def test_split_argument_errors(small_data, call, pattern):
    X, y, _ = small_data
    with pytest.raises(ValueError, match=pattern):
        call(X, y)


# ---------------------------------------------------------------------------
# synthetic data (Section 4, "Synthetic Data Generation")
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n, d", [(1, 1), (50, 1), (200, 4), (100, 30)])
def test_synthetic_noise_free(n, d):
    s = make_synthetic(n, d, rng=5)
    assert s.X.shape == (n, d) and s.y.shape == (n,)
    assert np.all((s.X >= 0) & (s.X <= 1))
    assert np.linalg.norm(s.theta_star) == pytest.approx(1.0, rel=1e-14)
    np.testing.assert_allclose(s.coef, s.theta_star / math.sqrt(d), rtol=1e-15)
    np.testing.assert_array_equal(s.y, s.X @ s.coef)
    # |y| <= ||x|| ||theta*|| / sqrt(d) <= 1, and by Cauchy-Schwarz for each row
    assert np.all(np.abs(s.y) <= 1)
    assert np.all(np.abs(s.y) <= np.linalg.norm(s.X, axis=1) / math.sqrt(d) + 1e-15)
    assert s.sigma == 0.0


def test_synthetic_with_label_noise():
    sigma = 0.05
    s = make_synthetic(20_000, 3, sigma=sigma, rng=6)
    resid = s.y - s.X @ s.coef
    # sample sd of N(0, sigma^2): SE ~ sigma / sqrt(2N)
    assert abs(resid.std(ddof=1) - sigma) < 5 * sigma / math.sqrt(2 * 20_000)
    assert abs(resid.mean()) < 5 * sigma / math.sqrt(20_000)


def test_synthetic_theta_star_uniform_on_sphere():
    # mean of theta* over independent draws ~ 0 (SE sqrt(1/(d N)))
    d, N = 3, 3000
    thetas = np.array([make_synthetic(1, d, rng=np.random.default_rng(s)).theta_star
                       for s in np.random.SeedSequence(5).spawn(N)])
    assert np.all(np.abs(thetas.mean(axis=0)) < 5 * math.sqrt(1 / (d * N)))


def test_synthetic_reproducible():
    a = make_synthetic(10, 3, rng=42)
    b = make_synthetic(10, 3, rng=42)
    c = make_synthetic(10, 3, rng=43)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.any(a.X == c.X)


@pytest.mark.parametrize("kwargs, exc, pattern", [
    (dict(n=0, d=2), ValueError, r"n = 0 is outside the allowed range \[1, inf\)"),
    (dict(n=5, d=0), ValueError, r"d = 0 is outside the allowed range \[1, inf\)"),
    (dict(n=5, d=2, sigma=-0.1), ValueError, r"sigma = -0\.1 is outside the allowed range \[0, inf\)"),
    (dict(n=5, d=2, sigma=float("nan")), ValueError, r"sigma = nan is outside the allowed range \[0, inf\)"),
    (dict(n=5, d=2, sigma="0.1"), TypeError, r"sigma must be a real number"),
    (dict(n=5.0, d=2), TypeError, r"n must be an integer"),
])
def test_synthetic_argument_errors(kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        make_synthetic(rng=0, **kwargs)


def test_diabetes_prepared_as_the_paper_prepares_medical_cost():
    import hashlib

    from pdp_lib.datasets import load_diabetes, train_test_split
    from pdp_lib.validation import check_features, check_labels

    data = load_diabetes()
    assert data.X.shape == (442, 11) and data.y.shape == (442,)
    check_features(data.X)
    check_labels(data.y, 442)                              # in the domain
    assert np.all(data.X[:, -1] == 1.0) and data.feature_names[-1] == "intercept"
    assert np.allclose(data.X[:, :-1].min(axis=0), 0.0) and np.allclose(data.X[:, :-1].max(axis=0), 1.0)
    assert data.y.min() == 0.0 and data.y.max() == 1.0
    assert set(np.unique(data.X[:, 1])) == {0.0, 1.0}      # sex, coded 1/2, becomes 0/1
    raw = np.ascontiguousarray(data.raw.to_numpy(float))
    assert raw[:, -1].min() == 25.0 and raw[:, -1].max() == 346.0
    # the raw values of the pinned scikit-learn wheel (pdp_lib/data/PROVENANCE.md)
    assert hashlib.sha256(raw.tobytes()).hexdigest() == (
        "839c546b0b4ac02c2e6cbe5e5c92313cefa993446c9733e9b49477cc3f96e104")
    # hand-checked first patient: age 59 of 19..79, progression 151 of 25..346
    assert data.X[0, 0] == pytest.approx((59 - 19) / (79 - 19))
    assert data.y[0] == pytest.approx((151 - 25) / (346 - 25))
    X_train, X_test, _, _ = train_test_split(data.X, data.y, test_size=0.2, seed=21)
    assert X_train.shape == (353, 11) and X_test.shape == (89, 11)
