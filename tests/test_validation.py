"""Input validation: the domain the privacy proof assumes (Section 3, "Our Setup").

A battery over every public entry point: a value outside the domain raises
``ValueError`` whose message names the argument, the first offending index
(in C order) and the allowed range; a value of the wrong kind raises
``TypeError`` naming the argument.  Then the valid edge cases, which must work
and agree with the plain float64 NumPy call.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from pdp_lib import (
    PersonalizedRidge,
    calibrate,
    make_synthetic,
    noise_scale,
    norm_bound,
    pdp_op,
    privacy_profile,
    regularized_loss,
    sample_l2_laplace,
    sensitivity_bound,
    test_losses,
    unregularized_loss,
    weighted_ridge,
)
from pdp_lib.preprocessing import DomainScaler, scale_labels, scale_to_domain

X0 = np.array([[0.1, 0.9], [0.5, 0.5], [0.0, 1.0], [0.3, 0.7], [1.0, 0.2]])
Y0 = np.array([0.2, -0.4, 1.0, -1.0, 0.0])
E0 = np.array([0.01, 0.2, 0.5, 1.0, 1.0])
W0 = E0 / E0.sum()
N, D = X0.shape


def _set(arr, idx, value):
    a = np.array(arr, dtype=float)
    a[idx] = value
    return a


def _range_msg(name, idx, value, allowed):
    """Regex for '<name>[<idx>] = <value> is outside the allowed range <allowed>'."""
    idx_txt = ", ".join(map(str, idx)) if isinstance(idx, tuple) else str(idx)
    return re.escape(f"{name}[{idx_txt}] = {float(value)!r} is outside the allowed range {allowed}")


def _scalar_msg(name, value, allowed="(0, inf)"):
    return re.escape(f"{name} = {float(value)!r} is outside the allowed range {allowed}")


# ---------------------------------------------------------------------------
# Entry points that take data.  Each is called with keyword overrides of the
# valid defaults; ``rng_name`` is how the entry point names its randomness.
# ---------------------------------------------------------------------------

def call_pdp_op(X=X0, y=Y0, epsilons=E0, lam=1.0, B=None, rng=0):
    return pdp_op(X, y, epsilons, lam, B=B, rng=rng)


def call_fit(X=X0, y=Y0, epsilons=E0, lam=1.0, B=None, rng=0):
    return PersonalizedRidge(lam=lam, B=B, random_state=rng).fit(X, y, epsilons).coef_


def call_weighted_ridge(X=X0, y=Y0, weights=W0, lam=1.0):
    return weighted_ridge(X, y, weights, lam)


DATA_ENTRIES = {"pdp_op": (call_pdp_op, "rng"), "PersonalizedRidge.fit": (call_fit, "random_state")}
XY_ENTRIES = {**DATA_ENTRIES, "weighted_ridge": (call_weighted_ridge, None)}

INF = float("inf")
NAN = float("nan")

# (override, expected message regex)
X_BAD = [
    (_set(X0, (3, 1), NAN), _range_msg("X", (3, 1), NAN, "[0, 1]")),
    (_set(X0, (2, 0), INF), _range_msg("X", (2, 0), INF, "[0, 1]")),
    (_set(X0, (0, 1), -INF), _range_msg("X", (0, 1), -INF, "[0, 1]")),
    (_set(X0, (4, 1), 1.0 + 1e-12), _range_msg("X", (4, 1), 1.0 + 1e-12, "[0, 1]")),
    (_set(X0, (1, 0), -1e-300), _range_msg("X", (1, 0), -1e-300, "[0, 1]")),
    (_set(X0, (0, 0), 255.0), _range_msg("X", (0, 0), 255.0, "[0, 1]")),
    # two offenders: the first in C order is named
    (_set(_set(X0, (3, 0), -1.0), (1, 1), 2.0), _range_msg("X", (1, 1), 2.0, "[0, 1]")),
]
Y_BAD = [
    (_set(Y0, 3, 1.5), _range_msg("y", 3, 1.5, "[-1, 1]")),
    (_set(Y0, 0, -1.0 - 1e-9), _range_msg("y", 0, -1.0 - 1e-9, "[-1, 1]")),
    (_set(Y0, 2, NAN), _range_msg("y", 2, NAN, "[-1, 1]")),
    (_set(Y0, 4, -INF), _range_msg("y", 4, -INF, "[-1, 1]")),
    (_set(_set(Y0, 4, 7.0), 1, -3.0), _range_msg("y", 1, -3.0, "[-1, 1]")),
]
EPS_BAD = [
    (_set(E0, 1, 0.0), _range_msg("epsilons", 1, 0.0, "(0, inf)")),
    (_set(E0, 0, -0.5), _range_msg("epsilons", 0, -0.5, "(0, inf)")),
    (_set(E0, 3, NAN), _range_msg("epsilons", 3, NAN, "(0, inf)")),
    (_set(E0, 4, INF), _range_msg("epsilons", 4, INF, "(0, inf)")),
    (_set(_set(E0, 4, -1.0), 2, 0.0), _range_msg("epsilons", 2, 0.0, "(0, inf)")),
]
SCALAR_BAD = [0.0, -1.0, NAN, INF, -INF]

SHAPE_BAD = [
    (dict(X=X0[:, 0]), re.escape("X must be 2-D of shape (n, d), got 1-D shape (5,)")),
    (dict(X=X0[None]), re.escape("X must be 2-D of shape (n, d), got 3-D shape (1, 5, 2)")),
    (dict(X=np.empty((0, 2)), y=np.empty(0)), re.escape("X must have n >= 1 rows and d >= 1 columns, got shape (0, 2)")),
    (dict(X=np.empty((5, 0))), re.escape("X must have n >= 1 rows and d >= 1 columns, got shape (5, 0)")),
    (dict(X=[]), re.escape("X must be 2-D of shape (n, d), got 1-D shape (0,)")),
    (dict(y=Y0[:4]), re.escape("y has 4 entries but X has 5 rows; they must match")),
    (dict(y=np.append(Y0, 0.0)), re.escape("y has 6 entries but X has 5 rows; they must match")),
    (dict(y=Y0[:, None]), re.escape("y must be 1-D of shape (n,), got shape (5, 1)")),
    (dict(y=np.empty(0)), re.escape("y must have n >= 1 entries, got 0")),
]
DATA_SHAPE_BAD = SHAPE_BAD + [
    (dict(epsilons=E0[:3]), re.escape("epsilons has 3 entries but X has 5 rows; they must match")),
    (dict(epsilons=np.empty(0)), re.escape("epsilons must have n >= 1 entries, got 0")),
    (dict(epsilons=E0[None]), re.escape("epsilons must be 1-D of shape (n,), got shape (1, 5)")),
]

TYPE_BAD = [
    (dict(X="abc"), r"X must be array-like of numbers, got str"),
    (dict(X=None), r"X must be array-like of numbers, got NoneType"),
    (dict(X=[["a", "b"]] * 5), r"X must contain numbers, got dtype <U1"),
    (dict(X=X0.astype(object)), r"X must contain numbers, got dtype object"),
    (dict(X=X0 + 0j), r"X must contain real numbers"),
    (dict(X=[[0.1, 0.2], [0.3]]), r"X must be array-like of numbers"),
    (dict(y=None), r"y must be array-like of numbers, got NoneType"),
    (dict(y=["0.1"] * 5), r"y must contain numbers"),
    (dict(lam="1"), r"lam must be a real number, got str"),
    (dict(lam=None), r"lam must be a real number, got NoneType"),
    (dict(lam=True), r"lam must be a real number, got bool"),
    (dict(lam=[1.0]), r"lam must be a real number, got list"),
    (dict(lam=np.array([1.0, 2.0])), r"lam must be a scalar, got an array of shape \(2,\)"),
    (dict(lam=1 + 1j), r"lam must be a real number, got complex"),
]
DATA_TYPE_BAD = TYPE_BAD + [
    (dict(epsilons="12345"), r"epsilons must be array-like of numbers, got str"),
    (dict(epsilons=None), r"epsilons must be array-like of numbers, got NoneType"),
    (dict(B="1"), r"B must be a real number or 'sharp', got str '1'"),
    (dict(B=[0.5]), r"B must be a real number, got list"),
]


def _cases(entries, overrides):
    return [pytest.param(fn, over, pat, id=f"{name}-{i}")
            for name, (fn, _) in entries.items() for i, (over, pat) in enumerate(overrides)]


@pytest.mark.parametrize("fn, override, pattern",
                         _cases(XY_ENTRIES, [(dict(X=v), p) for v, p in X_BAD]
                                + [(dict(y=v), p) for v, p in Y_BAD]))
def test_data_outside_domain(fn, override, pattern):
    with pytest.raises(ValueError, match=pattern):
        fn(**override)


@pytest.mark.parametrize("fn, override, pattern", _cases(DATA_ENTRIES, [(dict(epsilons=v), p) for v, p in EPS_BAD]))
def test_epsilons_outside_domain(fn, override, pattern):
    with pytest.raises(ValueError, match=pattern):
        fn(**override)


@pytest.mark.parametrize("fn, override, pattern",
                         _cases(XY_ENTRIES, [(dict(lam=v), _scalar_msg("lam", v)) for v in SCALAR_BAD]))
def test_lam_outside_domain(fn, override, pattern):
    with pytest.raises(ValueError, match=pattern):
        fn(**override)


@pytest.mark.parametrize("fn, override, pattern",
                         _cases(DATA_ENTRIES, [(dict(B=v), _scalar_msg("B", v)) for v in SCALAR_BAD]))
def test_B_outside_domain(fn, override, pattern):
    with pytest.raises(ValueError, match=pattern):
        fn(**override)


@pytest.mark.parametrize("fn, override, pattern",
                         _cases(DATA_ENTRIES, DATA_SHAPE_BAD) + _cases({"weighted_ridge": XY_ENTRIES["weighted_ridge"]},
                                                                   SHAPE_BAD))
def test_shapes(fn, override, pattern):
    with pytest.raises(ValueError, match=pattern):
        fn(**override)


# PersonalizedRidge.fit follows scikit-learn here instead: y=None raises ValueError("... requires y to be passed ...")
# and epsilons=None uses the default level with a PrivacyLevelWarning (tests/test_estimator.py checks both); lam=None
# is its default, DEFAULT_LAM for the mechanisms that take lambda (checked below)
_ESTIMATOR_CONVENTIONS = [("PersonalizedRidge.fit", "y"), ("PersonalizedRidge.fit", "epsilons"),
                          ("PersonalizedRidge.fit", "lam")]


def test_the_estimators_lam_none_is_its_default_lambda_and_nothing_else():
    from pdp_lib.estimator import DEFAULT_LAM

    assert np.array_equal(call_fit(lam=None), call_fit(lam=DEFAULT_LAM))
    assert not np.array_equal(call_fit(lam=None), call_fit(lam=2 * DEFAULT_LAM))


def _type_cases():
    cases = _cases(DATA_ENTRIES, DATA_TYPE_BAD) + _cases({"weighted_ridge": XY_ENTRIES["weighted_ridge"]}, TYPE_BAD)
    return [c for c in cases if not any(c.id.startswith(name + "-") and list(c.values[1]) == [key]
                                        and c.values[1][key] is None for name, key in _ESTIMATOR_CONVENTIONS)]


@pytest.mark.parametrize("fn, override, pattern", _type_cases())
def test_wrong_types(fn, override, pattern):
    with pytest.raises(TypeError, match=pattern):
        fn(**override)


@pytest.mark.parametrize("name", list(DATA_ENTRIES))
@pytest.mark.parametrize("rng, exc, pattern", [
    (1.5, TypeError, r"{} must be None, an int seed or a numpy.random.Generator, got float"),
    ("0", TypeError, r"{} must be None, an int seed or a numpy.random.Generator, got str"),
    (True, TypeError, r"{} must be None, an int seed or a numpy.random.Generator, got bool"),
    (np.random.RandomState(0), TypeError, r"{} must be None, an int seed or a numpy.random.Generator, got RandomState"),
    (-1, ValueError, r"{} = -1 is outside the allowed range \[0, inf\) for a seed"),
])
def test_bad_rng(name, rng, exc, pattern):
    fn, rng_name = DATA_ENTRIES[name]
    with pytest.raises(exc, match=pattern.format(rng_name)):
        fn(rng=rng)


@pytest.mark.parametrize("weights, pattern", [
    (_set(W0, 2, -0.1), _range_msg("weights", 2, -0.1, "[0, inf)")),
    (_set(W0, 1, NAN), _range_msg("weights", 1, NAN, "[0, inf)")),
    (_set(W0, 4, INF), _range_msg("weights", 4, INF, "[0, inf)")),
    (W0 * 2, r"weights must sum to 1 \(Algorithm 1\), got sum 2\.0"),
    (W0[:4] / W0[:4].sum(), re.escape("weights has 4 entries but X has 5 rows; they must match")),
    (np.array([]), re.escape("weights must have n >= 1 entries, got 0")),
])
def test_weighted_ridge_bad_weights(weights, pattern):
    with pytest.raises(ValueError, match=pattern):
        call_weighted_ridge(weights=weights)


# ---------------------------------------------------------------------------
# Entry points without data
# ---------------------------------------------------------------------------

NO_DATA_CASES = [
    # calibrate(epsilons, lam, d, B=None)
    (lambda: calibrate(_set(E0, 2, 0.0), 1.0, 2), ValueError, _range_msg("epsilons", 2, 0.0, "(0, inf)")),
    (lambda: calibrate(_set(E0, 0, NAN), 1.0, 2), ValueError, _range_msg("epsilons", 0, NAN, "(0, inf)")),
    (lambda: calibrate([], 1.0, 2), ValueError, re.escape("epsilons must have n >= 1 entries, got 0")),
    (lambda: calibrate([[0.1, 0.2]], 1.0, 2), ValueError, re.escape("epsilons must be 1-D of shape (n,)")),
    (lambda: calibrate(E0, -2.0, 2), ValueError, _scalar_msg("lam", -2.0)),
    (lambda: calibrate(E0, 1.0, 2, B=NAN), ValueError, _scalar_msg("B", NAN)),
    (lambda: calibrate(E0, 1.0, 2, B=0), ValueError, _scalar_msg("B", 0.0)),
    (lambda: calibrate(E0, 1.0, 0), ValueError, re.escape("d = 0 is outside the allowed range [1, inf)")),
    (lambda: calibrate(E0, 1.0, 2.0), TypeError, r"d must be an integer, got float"),
    (lambda: calibrate(E0, 1.0, True), TypeError, r"d must be an integer, got bool"),
    (lambda: calibrate("0.1", 1.0, 2), TypeError, r"epsilons must be array-like of numbers, got str"),
    (lambda: calibrate([1e308, 1e308], 1.0, 2), ValueError, re.escape("sum(epsilons) = inf is outside the allowed range (0, inf)")),
    # sample_l2_laplace(eta, d, size=None, rng=None)
    (lambda: sample_l2_laplace(0.0, 2), ValueError, _scalar_msg("eta", 0.0)),
    (lambda: sample_l2_laplace(-1.0, 2), ValueError, _scalar_msg("eta", -1.0)),
    (lambda: sample_l2_laplace(NAN, 2), ValueError, _scalar_msg("eta", NAN)),
    (lambda: sample_l2_laplace(INF, 2), ValueError, _scalar_msg("eta", INF)),
    (lambda: sample_l2_laplace("1", 2), TypeError, r"eta must be a real number, got str"),
    (lambda: sample_l2_laplace(1.0, 0), ValueError, re.escape("d = 0 is outside the allowed range [1, inf)")),
    (lambda: sample_l2_laplace(1.0, 2.5), TypeError, r"d must be an integer, got float"),
    (lambda: sample_l2_laplace(1.0, 2, size=-1), ValueError, re.escape("size = -1 is outside the allowed range [0, inf)")),
    (lambda: sample_l2_laplace(1.0, 2, size=2.0), TypeError, r"size must be an integer, got float"),
    (lambda: sample_l2_laplace(1.0, 2, rng=1.5), TypeError, r"rng must be None, an int seed or a numpy.random.Generator"),
    (lambda: sample_l2_laplace(1.0, 2, rng=-3), ValueError, re.escape("rng = -3 is outside the allowed range [0, inf) for a seed")),
    # bounds
    (lambda: norm_bound(0.0, 2), ValueError, _scalar_msg("lam", 0.0)),
    (lambda: norm_bound(1.0, 0), ValueError, re.escape("d = 0 is outside the allowed range [1, inf)")),
    (lambda: noise_scale(1.0, 2, B=-1.0), ValueError, _scalar_msg("B", -1.0)),
    (lambda: noise_scale(INF, 2), ValueError, _scalar_msg("lam", INF)),
    (lambda: sensitivity_bound(_set(W0, 3, -0.2), 1.0, 2), ValueError, _range_msg("weights", 3, -0.2, "[0, inf)")),
    (lambda: sensitivity_bound(W0, NAN, 2), ValueError, _scalar_msg("lam", NAN)),
    # profiles and synthetic data
    (lambda: privacy_profile(0, rng=0), ValueError, re.escape("n = 0 is outside the allowed range [1, inf)")),
    (lambda: privacy_profile(10, rng=-1), ValueError, re.escape("rng = -1 is outside the allowed range [0, inf)")),
    (lambda: make_synthetic(10, 2, sigma=-1.0), ValueError, re.escape("sigma = -1.0 is outside the allowed range [0, inf)")),
    (lambda: make_synthetic(10, 2, rng="x"), TypeError, r"rng must be None, an int seed"),
    # losses: finite values, consistent shapes
    (lambda: unregularized_loss([0.1, NAN], X0, Y0), ValueError, _range_msg("theta", 1, NAN, "(-inf, inf)")),
    (lambda: unregularized_loss([0.1, 0.2], _set(X0, (2, 1), INF), Y0), ValueError,
     _range_msg("X_test", (2, 1), INF, "(-inf, inf)")),
    (lambda: regularized_loss([0.1, 0.2], X0, _set(Y0, 3, NAN), 1.0), ValueError, _range_msg("y_test", 3, NAN, "(-inf, inf)")),
    (lambda: test_losses([0.1, 0.2], X0, Y0, 0.0), ValueError, _scalar_msg("lam", 0.0)),
    (lambda: test_losses([0.1, 0.2, 0.3], X0, Y0, 1.0), ValueError, r"theta must have shape \(d,\) or \(R, d\) with d = 2"),
]


@pytest.mark.parametrize("call, exc, pattern", NO_DATA_CASES, ids=[f"case{i}" for i in range(len(NO_DATA_CASES))])
def test_entry_points_without_data(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_degenerate_lambda_is_refused_not_silently_noise_free():
    # lam so small that 1/lam overflows: eta would be 0 (infinite noise); refuse instead.
    with np.errstate(over="ignore", divide="ignore"), \
            pytest.raises(ValueError, match=r"eta = 0\.0 is outside the allowed range \(0, inf\)"):
        calibrate(E0, 1e-320, 2)


# ---------------------------------------------------------------------------
# preprocessing
# ---------------------------------------------------------------------------

PRE_CASES = [
    (lambda: scale_to_domain([[1.0, 7.0], [2.0, 3.0]], 0.0, 5.0), ValueError,
     re.escape("X[0, 1] = 7.0 is outside the allowed range [0, 5]")),
    (lambda: scale_to_domain([[1.0, 2.0], [-2.0, 9.0]], [0, 0], [5, 5]), ValueError,
     re.escape("X[1, 0] = -2.0 is outside the allowed range [0, 5]")),
    (lambda: scale_to_domain([[1.0, NAN]], 0.0, 5.0, clip=True), ValueError,
     re.escape("X[0, 1] = nan is outside the allowed range [0, 5]")),
    (lambda: scale_to_domain(pd.DataFrame({"age": [30, 130]}), 18, 100), ValueError,
     re.escape("X[1, 0] (column 'age') = 130.0 is outside the allowed range [18, 100]")),
    (lambda: scale_to_domain([[1.0, 2.0]], [0, 3], [5, 3]), ValueError,
     re.escape("upper[1] = 3.0 must be greater than lower[1] = 3.0")),
    (lambda: scale_to_domain([[1.0, 2.0]], [0, NAN], [5, 5]), ValueError, re.escape("lower[1] = nan is outside the allowed range")),
    (lambda: scale_to_domain([[1.0, 2.0]], [0, 0, 0], [5, 5, 5]), ValueError, re.escape("lower must be a scalar or have shape (2,)")),
    (lambda: scale_to_domain([1.0, 2.0], 0, 5), ValueError, re.escape("X must be 2-D of shape (n, d)")),
    (lambda: scale_to_domain(np.empty((0, 2)), 0, 5), ValueError, re.escape("X must have n >= 1 rows")),
    (lambda: scale_to_domain([[1.0]], 0, 5, clip="yes"), TypeError, r"clip must be True or False, got str"),
    (lambda: scale_to_domain("abc", 0, 5), TypeError, r"X must be array-like of numbers, got str"),
    (lambda: scale_to_domain(pd.DataFrame({"a": [1.0]}), {"b": 0}, {"a": 5}), ValueError,
     re.escape("lower has no entry for column 'a' of X")),
    (lambda: scale_labels([100.0, 20.0, -5.0], 0, 50), ValueError,
     re.escape("y[0] = 100.0 is outside the allowed range [0, 50]")),
    (lambda: scale_labels([1.0, INF], 0, 50, clip=True), ValueError, re.escape("y[1] = inf is outside the allowed range [0, 50]")),
    (lambda: scale_labels([1.0], 5, 5), ValueError, re.escape("upper[0] = 5.0 must be greater than lower[0] = 5.0")),
    (lambda: scale_labels([1.0], "0", 5), TypeError, r"lower must be a real number, got str"),
    (lambda: scale_labels([1.0], 0, NAN), ValueError, re.escape("upper = nan is outside the allowed range (-inf, inf)")),
    (lambda: scale_labels([[1.0]], 0, 5), ValueError, re.escape("y must be 1-D of shape (n,)")),
    (lambda: scale_labels([1.0], 0, 5, symmetric=1), TypeError, r"symmetric must be True or False"),
    (lambda: DomainScaler(0, 5).fit([[1.0, 2.0]]).transform([[1.0, 6.0]]), ValueError,
     re.escape("X[0, 1] = 6.0 is outside the allowed range [0, 5]")),
    (lambda: DomainScaler(0, 5).fit([[1.0, 2.0]]).transform([[1.0]]), ValueError, re.escape("X has 1 features, but DomainScaler is expecting 2 features as input")),
    (lambda: DomainScaler([0, 1], [5, 0]).fit([[1.0, 2.0]]), ValueError, re.escape("upper[1] = 0.0 must be greater than lower[1] = 1.0")),
]


@pytest.mark.parametrize("call, exc, pattern", PRE_CASES, ids=[f"case{i}" for i in range(len(PRE_CASES))])
def test_preprocessing_errors(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


# ---------------------------------------------------------------------------
# Valid edge cases: they work and agree with the plain float64 call
# ---------------------------------------------------------------------------

CORNERS = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
CORNER_Y = np.array([-1.0, 1.0, 1.0, -1.0])
CORNER_E = np.array([0.1, 0.2, 0.3, 0.4])


@pytest.mark.parametrize("name", list(DATA_ENTRIES))
def test_domain_boundary_values_accepted(name):
    fn, _ = DATA_ENTRIES[name]
    out = fn(X=CORNERS, y=CORNER_Y, epsilons=CORNER_E)
    assert out.shape == (2,) and np.all(np.isfinite(out))
    assert np.all(np.isfinite(weighted_ridge(CORNERS, CORNER_Y, CORNER_E / CORNER_E.sum(), 1.0)))


@pytest.mark.parametrize("name", list(DATA_ENTRIES))
def test_small_shapes(name):
    fn, _ = DATA_ENTRIES[name]
    assert fn(X=[[0.5]], y=[0.5], epsilons=[1.0]).shape == (1,)             # n = 1, d = 1
    assert fn(X=[[0.5, 0.1, 1.0]], y=[-1.0], epsilons=[0.3]).shape == (3,)  # n = 1, d = 3
    assert fn(X=X0[:, :1], y=Y0, epsilons=E0).shape == (1,)                 # d = 1


@pytest.mark.parametrize("name", list(DATA_ENTRIES))
def test_containers_and_dtypes_agree(name):
    fn, _ = DATA_ENTRIES[name]
    Xb = np.array([[True, False], [False, True], [True, True], [False, False]])
    ref = fn(X=Xb.astype(float), y=CORNER_Y, epsilons=CORNER_E, lam=2.0, rng=3)
    variants = [
        dict(X=Xb),                                                        # bool features
        dict(X=Xb.astype(np.int64)),                                       # integer 0/1 features
        dict(X=Xb.astype(np.float32)),
        dict(X=Xb.astype(float).tolist(), y=CORNER_Y.tolist(), epsilons=CORNER_E.tolist()),
        dict(X=pd.DataFrame(Xb.astype(float), columns=["a", "b"]),
             y=pd.Series(CORNER_Y, index=[7, 3, 9, 1]), epsilons=pd.Series(CORNER_E)),
        dict(X=tuple(map(tuple, Xb.astype(float)))),
        dict(y=np.array([-1, 1, 1, -1])),                                  # integer labels
        dict(lam=2),                                                       # int lam
        dict(lam=np.float32(2.0)),
        dict(lam=np.array(2.0)),                                           # 0-d array
        dict(rng=np.int64(3)),
        dict(rng=np.random.default_rng(3)),
    ]
    for over in variants:
        kw = dict(X=Xb.astype(float), y=CORNER_Y, epsilons=CORNER_E, lam=2.0, rng=3)
        kw.update(over)
        np.testing.assert_array_equal(fn(**kw), ref)


@pytest.mark.parametrize("name", list(DATA_ENTRIES))
def test_none_seed_and_seedsequence_work(name):
    fn, _ = DATA_ENTRIES[name]
    assert np.all(np.isfinite(fn(rng=None)))
    a = fn(rng=np.random.default_rng(np.random.SeedSequence(5)))
    b = fn(rng=np.random.SeedSequence(5))
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("value", ["Exact", 3, None, ("exact",)])
def test_a_choice_outside_the_allowed_names_is_refused_by_name(value):
    from pdp_lib.validation import check_choice

    assert check_choice("exact", "sampler", ("exact", "float"), "'exact' or 'float'") == "exact"
    with pytest.raises(ValueError, match=re.escape(f"sampler = {value!r} is not allowed; use 'exact' or 'float'")):
        check_choice(value, "sampler", ("exact", "float"), "'exact' or 'float'")


def test_extreme_but_valid_privacy_levels():
    out = pdp_op(X0, Y0, [1e-8, 1e8, 1.0, 1.0, 1.0], 1.0, rng=0)
    assert np.all(np.isfinite(out))


def test_failed_calls_do_not_mutate_inputs():
    X = _set(X0, (2, 1), 1.5)
    Xc = X.copy()
    with pytest.raises(ValueError):
        pdp_op(X, Y0, E0, 1.0, rng=0)
    np.testing.assert_array_equal(X, Xc)
    raw = np.array([[10.0, 200.0]])
    scale_to_domain(raw, 0, 100, clip=True)
    np.testing.assert_array_equal(raw, [[10.0, 200.0]])


# ---------------------------------------------------------------------------
# preprocessing: what it computes (the errors are in PRE_CASES above)
# ---------------------------------------------------------------------------

def test_scale_to_domain_by_hand():
    raw = np.array([[18.0, 0.0], [64.0, 250.0], [41.0, 500.0]])
    out = scale_to_domain(raw, [18, 0], [64, 500])
    np.testing.assert_allclose(out, [[0.0, 0.0], [1.0, 0.5], [0.5, 1.0]], rtol=1e-15)
    # a scalar bound applies to every column
    np.testing.assert_allclose(scale_to_domain([[2.0, 4.0]], 0, 8), [[0.25, 0.5]], rtol=1e-15)


def test_scale_to_domain_clip_is_explicit():
    raw = np.array([[10.0, -5.0], [120.0, 50.0]])
    with pytest.raises(ValueError):
        scale_to_domain(raw, 0, 100)
    out = scale_to_domain(raw, 0, 100, clip=True)
    np.testing.assert_allclose(out, [[0.1, 0.0], [1.0, 0.5]], rtol=1e-15)
    np.testing.assert_array_equal(raw, [[10.0, -5.0], [120.0, 50.0]])  # input untouched


def test_scale_to_domain_dataframe_bounds_by_label():
    df = pd.DataFrame({"bmi": [15.0, 55.0], "age": [18.0, 100.0]})
    out = scale_to_domain(df, {"age": 18, "bmi": 15}, pd.Series({"age": 100, "bmi": 55}))
    np.testing.assert_allclose(out, [[0.0, 0.0], [1.0, 1.0]], rtol=1e-15)


def test_scale_to_domain_stays_inside_exactly():
    # Rounding cannot push a value outside [0, 1]: subtraction and division are monotone.
    gen = np.random.default_rng(np.random.SeedSequence(1))
    lo, hi = -3.7, 1e6 / 3
    raw = np.concatenate([gen.uniform(lo, hi, (2000, 1)), [[lo], [hi], [np.nextafter(hi, lo)]]])
    out = scale_to_domain(raw, lo, hi)
    assert out.min() >= 0.0 and out.max() <= 1.0
    assert out[-3, 0] == 0.0 and out[-2, 0] == 1.0
    # so the output is always a valid input of the mechanism
    y = np.zeros(len(out))
    assert np.all(np.isfinite(pdp_op(out, y, np.ones(len(out)), 1.0, rng=0)))


def test_scale_labels_unit_and_symmetric():
    charges = np.array([1121.8739, 63770.42801, 32446.150955])
    unit = scale_labels(charges, 1121.8739, 63770.42801)
    np.testing.assert_allclose(unit, [0.0, 1.0, 0.5], rtol=1e-12, atol=1e-15)
    sym = scale_labels(charges, 1121.8739, 63770.42801, symmetric=True)
    np.testing.assert_allclose(sym, [-1.0, 1.0, 0.0], atol=1e-12)
    assert unit.min() >= 0 and unit.max() <= 1 and sym.min() >= -1 and sym.max() <= 1
    np.testing.assert_allclose(scale_labels([-10.0, 30.0], 0, 20, clip=True), [0.0, 1.0])
    np.testing.assert_allclose(scale_labels(pd.Series([5.0, 15.0]), 0, 20), [0.25, 0.75])


def test_scale_labels_reproduces_medical_cost_label():
    # With the data's own min and max as bounds (what the paper does), scale_labels equals the loader.
    from pdp_lib import load_medical_cost

    med = load_medical_cost()
    charges = med.raw["charges"]
    np.testing.assert_allclose(scale_labels(charges, charges.min(), charges.max()), med.y, rtol=1e-15)


def test_domain_scaler_learns_nothing_from_data():
    a = np.array([[20.0, 1.0], [30.0, 2.0]])
    b = np.array([[90.0, 4.0], [18.0, 0.0], [50.0, 3.0]])
    sa = DomainScaler([18, 0], [100, 4]).fit(a)
    sb = DomainScaler([18, 0], [100, 4]).fit(b)
    probe = np.array([[59.0, 2.0]])
    np.testing.assert_array_equal(sa.transform(probe), sb.transform(probe))
    np.testing.assert_allclose(sa.transform(probe), [[0.5, 0.5]], rtol=1e-15)
    np.testing.assert_allclose(sa.inverse_transform(sa.transform(b)), b, rtol=1e-15)
    np.testing.assert_allclose(DomainScaler([18, 0], [100, 4]).fit_transform(b),
                               scale_to_domain(b, [18, 0], [100, 4]), rtol=1e-15)


def test_domain_scaler_sklearn_conventions():
    from sklearn.base import clone
    from sklearn.exceptions import NotFittedError

    s = DomainScaler(lower=[0, 1], upper=[2, 3], clip=True)
    assert s.get_params() == {"lower": [0, 1], "upper": [2, 3], "clip": True}
    c = clone(s)
    assert c.get_params() == s.get_params() and not hasattr(c, "lower_")
    with pytest.raises(NotFittedError):
        c.transform([[1.0, 2.0]])
    np.testing.assert_allclose(s.fit_transform([[5.0, 0.0]]), [[1.0, 0.0]])


def test_mixed_and_nullable_pandas_dtypes():
    # float next to bool columns (what pandas.get_dummies produces) and nullable extension dtypes
    # are numbers: accepted, and equal to the float64 call.
    raw = pd.DataFrame({"age": [0.1, 0.5, 1.0, 0.0], "smoker": ["yes", "no", "no", "yes"]})
    df = pd.get_dummies(raw, columns=["smoker"])
    assert (df.dtypes == bool).any() and (df.dtypes == float).any()
    ref = pdp_op(df.astype(float).to_numpy(), CORNER_Y, CORNER_E, 1.0, rng=0)
    np.testing.assert_array_equal(pdp_op(df, CORNER_Y, CORNER_E, 1.0, rng=0), ref)
    nullable = df.astype({"age": "Float64", "smoker_no": "boolean", "smoker_yes": "Int64"})
    y_nullable = pd.Series(CORNER_Y, dtype="Float64")
    np.testing.assert_array_equal(pdp_op(nullable, y_nullable, CORNER_E, 1.0, rng=0), ref)
    # a missing value is a NaN, refused with its index
    missing = nullable.copy()
    missing.loc[2, "smoker_yes"] = pd.NA
    with pytest.raises(ValueError, match=re.escape("X[2, 2] = nan is outside the allowed range [0, 1]")):
        pdp_op(missing, CORNER_Y, CORNER_E, 1.0, rng=0)
    with pytest.raises(TypeError, match=r"X must contain real numbers, got dtype"):
        pdp_op(raw, CORNER_Y, CORNER_E, 1.0, rng=0)  # a string column
    with pytest.raises(TypeError, match=r"y must contain real numbers, got dtype complex128"):
        pdp_op(df, pd.Series(CORNER_Y + 0j), CORNER_E, 1.0, rng=0)
