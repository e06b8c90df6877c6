"""Tests of PersonalizedRidge: Algorithm 1 behind scikit-learn's conventions."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import MinMaxScaler

from conftest import make_domain_data, ridge_normal_equations
from pdp_lib import PersonalizedRidge, calibrate, pdp_op
from pdp_lib.mechanisms.lattice import lattice_calibration, rounds_bound
from pdp_lib.mechanisms.objective import objective_perturbation
from pdp_lib.preprocessing import DomainScaler


def test_coef_equals_pdp_op_under_same_seed(small_data):
    X, y, eps = small_data
    for lam, B in [(1.0, None), (0.1, None), (5.0, 0.4)]:
        est = PersonalizedRidge(lam=lam, B=B, random_state=17).fit(X, y, eps)
        np.testing.assert_array_equal(est.coef_, pdp_op(X, y, eps, lam, B=B, rng=17))
        est = PersonalizedRidge(lam=lam, B=B, random_state=np.random.default_rng(17)).fit(X, y, eps)
        np.testing.assert_array_equal(est.coef_, pdp_op(X, y, eps, lam, B=B, rng=np.random.default_rng(17)))


def test_fitted_attributes(small_data):
    X, y, eps = small_data
    est = PersonalizedRidge(lam=2.0, random_state=0).fit(X, y, eps)
    cal = calibrate(eps, 2.0, X.shape[1])
    np.testing.assert_allclose(est.weights_, eps / eps.sum(), rtol=1e-15)
    lattice = lattice_calibration(math.fsum(eps), float(eps.min()), rounds_bound(X.shape[0]), 2.0, X.shape[1])
    assert est.eta_ == lattice.eta and cal.eta * (1 - 2.0**-19) < est.eta_ < cal.eta   # the lattice's eta'
    assert PersonalizedRidge(lam=2.0, random_state=0, sampler="float").fit(X, y, eps).eta_ == cal.eta
    approximate = PersonalizedRidge(lam=2.0, random_state=0, delta=1e-5).fit(X, y, eps)    # exact, rounded law
    np.testing.assert_array_equal(approximate.coef_, pdp_op(X, y, eps, 2.0, rng=0, delta=1e-5))
    assert est.n_features_in_ == 3
    assert est.coef_.shape == (3,)


def test_noise_free_limit(small_data):
    X, y, eps = small_data
    est = PersonalizedRidge(lam=0.3, random_state=0).fit(X, y, eps * 1e12)
    np.testing.assert_allclose(est.coef_, ridge_normal_equations(X, y, eps / eps.sum(), 0.3), atol=1e-9)


def test_predict_is_x_times_coef(small_data):
    X, y, eps = small_data
    est = PersonalizedRidge(random_state=1).fit(X, y, eps)
    Xn = np.random.default_rng(3).random((5, 3))
    np.testing.assert_allclose(est.predict(Xn), Xn @ est.coef_, rtol=1e-15)
    np.testing.assert_allclose(est.predict(Xn.tolist()), Xn @ est.coef_, rtol=1e-15)


def test_predict_before_fit_raises():
    with pytest.raises(NotFittedError):
        PersonalizedRidge().predict([[0.5]])


def test_predict_checks_shape_and_finiteness(small_data):
    X, y, eps = small_data
    est = PersonalizedRidge(random_state=1).fit(X, y, eps)
    with pytest.raises(ValueError, match=r"X must have shape \(m, 3\)"):
        est.predict(np.zeros((2, 4)))
    bad = np.zeros((3, 3))
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"X\[1, 2\] = nan"):
        est.predict(bad)


def test_fit_keeps_constructor_params(small_data):
    X, y, eps = small_data
    est = PersonalizedRidge(lam=0.7, B=None, random_state=5)
    before = est.get_params()
    est.fit(X, y, eps)
    assert est.get_params() == before
    assert est.lam == 0.7 and est.B is None and est.random_state == 5


def test_int_random_state_gives_same_fit_twice_generator_does_not(small_data):
    X, y, eps = small_data
    est = PersonalizedRidge(random_state=5)
    a = est.fit(X, y, eps).coef_.copy()
    np.testing.assert_array_equal(est.fit(X, y, eps).coef_, a)
    est = PersonalizedRidge(random_state=np.random.default_rng(5))
    a = est.fit(X, y, eps).coef_.copy()
    assert not np.any(est.fit(X, y, eps).coef_ == a)


def test_clone_get_set_params(small_data):
    X, y, eps = small_data
    est = PersonalizedRidge(lam=3.0, B=0.5, random_state=9).fit(X, y, eps)
    c = clone(est)
    assert c.get_params() == {"lam": 3.0, "B": 0.5, "random_state": 9, "lam_grid": None, "tuning_share": 1.0,
                              "validation_fraction": 0.5, "noise": "l2", "delta": None, "epsilon": None,
                              "fit_intercept": False, "sampler": "exact", "mechanism": "output"}
    assert not hasattr(c, "coef_")
    c.set_params(lam=0.25)
    assert c.lam == 0.25 and est.lam == 3.0
    np.testing.assert_array_equal(c.fit(X, y, eps).coef_, pdp_op(X, y, eps, 0.25, B=0.5, rng=9))


def test_invalid_params_raise_at_fit(small_data):
    X, y, eps = small_data
    with pytest.raises(TypeError, match=r"lam must be a real number, got str 'best': use a number in \(0, inf\), "
                                        r"'pruned', 'auto' or 'public' \(mechanism='ssp' with delta\)"):
        PersonalizedRidge(lam="best").fit(X, y, eps)
    with pytest.raises(ValueError, match=r"tuning_share = 0.0 is outside the allowed range \(0, 1\]"):
        PersonalizedRidge(lam="auto", tuning_share=0.0).fit(X, y, eps)
    with pytest.raises(ValueError, match=r"lam_grid|grid is empty"):
        PersonalizedRidge(lam="auto", lam_grid=[]).fit(X, y, eps)
    with pytest.raises(ValueError, match=r"lam = -1\.0 is outside the allowed range \(0, inf\)"):
        PersonalizedRidge(lam=-1.0).fit(X, y, eps)
    with pytest.raises(ValueError, match=r"sampler = 'lattice' is not allowed; use 'exact'"):
        PersonalizedRidge(sampler="lattice").fit(X, y, eps)
    with pytest.raises(ValueError, match=r"B = 0\.0 is outside the allowed range \(0, inf\)"):
        PersonalizedRidge(B=0.0).fit(X, y, eps)
    with pytest.raises(TypeError, match=r"random_state must be None, an int seed"):
        PersonalizedRidge(random_state=1.5).fit(X, y, eps)


def test_pipeline_with_public_bounds_scaler():
    # raw features with public bounds: age in [18, 100], income in [0, 500]
    gen = np.random.default_rng(np.random.SeedSequence(8))
    raw = np.column_stack([gen.uniform(18, 100, 30), gen.uniform(0, 500, 30)])
    y = gen.uniform(-1, 1, 30)
    eps = gen.uniform(0.1, 1, 30)
    pipe = make_pipeline(DomainScaler(lower=[18, 0], upper=[100, 500]),
                         PersonalizedRidge(lam=0.5, random_state=4))
    pipe.fit(raw, y, personalizedridge__epsilons=eps)
    scaled = (raw - [18, 0]) / np.array([82.0, 500.0])
    expected = pdp_op(scaled, y, eps, 0.5, rng=4)
    np.testing.assert_allclose(pipe[-1].coef_, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(pipe.predict(raw[:4]), scaled[:4] @ expected, rtol=1e-12)
    # clone of the pipeline refits to the same numbers (int seed)
    again = clone(pipe).fit(raw, y, personalizedridge__epsilons=eps)
    np.testing.assert_array_equal(again[-1].coef_, pipe[-1].coef_)


def test_pipeline_after_minmax_scaler():
    # Compatibility only: MinMaxScaler learns its bounds from the data, which is outside the
    # guarantee (see pdp_lib.preprocessing); clip=True keeps unseen data inside [0, 1].
    gen = np.random.default_rng(np.random.SeedSequence(9))
    raw = gen.normal(size=(25, 3))
    y = gen.uniform(-1, 1, 25)
    eps = gen.uniform(0.1, 1, 25)
    pipe = Pipeline([("scale", MinMaxScaler(clip=True)),
                     ("personalizedridge", PersonalizedRidge(lam=1.0, random_state=2))])
    pipe.fit(raw, y, personalizedridge__epsilons=eps)
    lo, hi = raw.min(axis=0), raw.max(axis=0)
    scaled = np.clip((raw - lo) / (hi - lo), 0, 1)
    np.testing.assert_allclose(pipe[-1].coef_, pdp_op(scaled, y, eps, 1.0, rng=2), rtol=1e-10)
    new = gen.normal(scale=3.0, size=(6, 3))  # partly outside the training range
    expected = np.clip((new - lo) / (hi - lo), 0, 1) @ pipe[-1].coef_
    np.testing.assert_allclose(pipe.predict(new), expected, rtol=1e-10)


def test_inputs_never_mutated_and_containers_accepted(small_data):
    X, y, eps = small_data
    Xc, yc, ec = X.copy(), y.copy(), eps.copy()
    ref = PersonalizedRidge(lam=0.4, random_state=6).fit(X, y, eps).coef_
    np.testing.assert_array_equal(X, Xc)
    np.testing.assert_array_equal(y, yc)
    np.testing.assert_array_equal(eps, ec)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    ys = pd.Series(y, index=np.arange(100, 112))
    es = pd.Series(eps)
    dfc, ysc, esc = df.copy(), ys.copy(), es.copy()
    for args in [(X.tolist(), y.tolist(), eps.tolist()), (df, ys, es), (X, tuple(y), es)]:
        coef = PersonalizedRidge(lam=0.4, random_state=6).fit(*args).coef_
        np.testing.assert_array_equal(coef, ref)
    pd.testing.assert_frame_equal(df, dfc)
    pd.testing.assert_series_equal(ys, ysc)
    pd.testing.assert_series_equal(es, esc)


def test_read_only_inputs_accepted(small_data):
    X, y, eps = small_data
    for a in (X, y, eps):
        a.setflags(write=False)
    coef = PersonalizedRidge(random_state=0).fit(X, y, eps).coef_
    np.testing.assert_array_equal(coef, pdp_op(X, y, eps, 1.0, rng=0))


def test_score_is_r2():
    X, y, eps = make_domain_data(40, 2, seed=3)
    est = PersonalizedRidge(lam=0.1, random_state=0).fit(X, y, eps)
    pred = X @ est.coef_
    r2 = 1 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2)
    assert est.score(X, y) == pytest.approx(r2, rel=1e-12)


# ---- scikit-learn's conventions: levels as routed metadata, one level for all, intercept, column names ----

def test_levels_routed_as_metadata_through_a_pipeline_and_cross_validation():
    import sklearn
    from sklearn.model_selection import KFold, cross_val_score

    X, y, eps = make_domain_data(60, 3, seed=11)
    raw = 10 + 20 * X                                            # a user's units, public bounds [10, 30]
    with sklearn.config_context(enable_metadata_routing=True):
        ridge = PersonalizedRidge(lam=0.5, random_state=4).set_fit_request(epsilons=True)
        pipe = make_pipeline(DomainScaler(lower=10, upper=30), ridge)
        pipe.fit(raw, y, epsilons=eps)
        np.testing.assert_allclose(pipe[-1].coef_, pdp_op(X, y, eps, 0.5, rng=4), rtol=1e-12)
        folds = KFold(3)
        scores = cross_val_score(pipe, raw, y, cv=folds, params={"epsilons": eps})
    for score, (train, test) in zip(scores, folds.split(raw)):   # each fold fitted with its own rows' levels
        theta = pdp_op(X[train], y[train], eps[train], 0.5, rng=4)
        residual = y[test] - X[test] @ theta
        assert score == pytest.approx(1 - residual @ residual / np.sum((y[test] - y[test].mean()) ** 2), rel=1e-10)


def test_one_level_for_every_row_fits_without_epsilons():
    X, y, eps = make_domain_data(30, 2, seed=2)
    est = PersonalizedRidge(lam=2.0, epsilon=0.5, random_state=8).fit(X, y)
    np.testing.assert_array_equal(est.coef_, pdp_op(X, y, np.full(30, 0.5), 2.0, rng=8))
    assert make_pipeline(PersonalizedRidge(epsilon=0.5, random_state=8)).fit(X, y)[-1].coef_.shape == (2,)
    with pytest.raises(ValueError, match="epsilons and epsilon = 0.5 are both given"):
        PersonalizedRidge(epsilon=0.5).fit(X, y, eps)
    from pdp_lib import PrivacyLevelWarning

    with pytest.warns(PrivacyLevelWarning, match="no privacy level was chosen"):      # the default level, said
        PersonalizedRidge().fit(X, y)
    with pytest.raises(ValueError, match=r"epsilon = -1.0 is outside the allowed range"):
        PersonalizedRidge(epsilon=-1.0).fit(X, y)


def test_the_intercept_is_a_constant_feature_in_the_domain():
    X, y, eps = make_domain_data(40, 3, seed=5)
    est = PersonalizedRidge(lam=0.3, fit_intercept=True, random_state=1).fit(X, y, eps)
    theta = pdp_op(np.hstack([X, np.ones((40, 1))]), y, eps, 0.3, rng=1)     # d + 1 in the calibration
    np.testing.assert_array_equal(est.coef_, theta[:3])
    assert est.intercept_ == theta[3] and est.n_features_in_ == 3
    np.testing.assert_allclose(est.predict(X), X @ theta[:3] + theta[3], rtol=1e-14)
    assert PersonalizedRidge(random_state=1).fit(X, y, eps).intercept_ == 0.0


def test_column_names_are_kept_and_checked_at_predict():
    X, y, eps = make_domain_data(25, 3, seed=6)
    frame = pd.DataFrame(X, columns=["age", "bmi", "children"])
    est = PersonalizedRidge(random_state=3).fit(frame, y, eps)
    assert list(est.feature_names_in_) == ["age", "bmi", "children"]
    # the linear model of the columns, to within the rounding bound of a 3-term dot product in any order
    # (Higham, eq. (3.5)): each prediction against the exact one, computed over the rationals
    for row, pred in zip(X, est.predict(frame)):
        exact = sum(Fraction(a) * Fraction(c) for a, c in zip(row, est.coef_))
        scale = sum(abs(Fraction(a) * Fraction(c)) for a, c in zip(row, est.coef_))
        assert abs(Fraction(pred) - exact) <= Fraction(3, 2**53 - 3) * scale
    with pytest.raises(ValueError, match=r"columns differ from fit's at position 0"):
        est.predict(frame[["bmi", "age", "children"]])            # reordered: refused, never silently wrong
    with pytest.raises(ValueError, match=r"X has no column names"):
        est.predict(X)
    assert not hasattr(PersonalizedRidge(random_state=3).fit(X, y, eps), "feature_names_in_")


# Every check of scikit-learn's check_estimator that fails, with the reason. Most feed data outside the domain
# [0, 1]^d x [-1, 1], which the privacy proof assumes and the estimator refuses (it never rescales silently).
EXPECTED_FAILURES = {
    "check_complex_data": "complex input raises TypeError (a value of the wrong kind), not ValueError",
    "check_dtype_object": "object arrays are refused: converting one could turn strings into numbers",
}


@pytest.mark.parametrize("estimator", [PersonalizedRidge(), PersonalizedRidge(epsilon=1.0, random_state=0)],
                         ids=["default", "epsilon=1"])
def test_check_estimator_fails_only_where_the_domain_or_a_listed_reason_says(estimator):
    import warnings

    from sklearn.utils.estimator_checks import check_estimator

    from pdp_lib import PrivacyLevelWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLevelWarning)
        results = check_estimator(estimator, on_fail=None)
    failed = [r for r in results if r["status"] == "failed"]
    outside = [r for r in failed if "is outside the allowed range [0, 1]" in str(r["exception"])
               or "is outside the allowed range [-1, 1]" in str(r["exception"])]
    others = {r["check_name"] for r in failed if r not in outside}
    assert others == set(EXPECTED_FAILURES)
    passed = {r["check_name"] for r in results if r["status"] == "passed"}
    assert {"check_get_params_invariance", "check_set_params", "check_no_attributes_set_in_init",
            "check_parameters_default_constructible", "check_estimators_unfitted", "check_estimators_nan_inf",
            "check_estimators_empty_data_messages", "check_estimator_sparse_array", "check_fit_non_negative",
            "check_supervised_y_no_nan", "check_estimator_cloneable"} <= passed


def test_the_default_level_is_used_with_a_warning(small_data):
    from pdp_lib import PrivacyLevelWarning

    X, y, _ = small_data
    with pytest.warns(PrivacyLevelWarning, match="no privacy level was chosen: every row gets the default epsilon = 1"):
        default = PersonalizedRidge(random_state=4).fit(X, y)
    chosen = PersonalizedRidge(epsilon=1.0, random_state=4).fit(X, y)
    np.testing.assert_array_equal(default.coef_, chosen.coef_)
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        PersonalizedRidge(epsilon=1.0).fit(X, None)


def test_pickled_and_refitted_models_are_the_same(small_data):
    import pickle

    X, y, eps = small_data
    est = PersonalizedRidge(lam=0.4, fit_intercept=True, random_state=2).fit(pd.DataFrame(X, columns=list("abc")), y, eps)
    again = pickle.loads(pickle.dumps(est))
    frame = pd.DataFrame(X, columns=list("abc"))
    np.testing.assert_array_equal(again.predict(frame), est.predict(frame))
    first = est.coef_.copy()
    np.testing.assert_array_equal(est.fit(frame, y, eps).coef_, first)        # an int seed: the same fit again


def test_objective_perturbation_is_fitted_by_explicit_opt_in_only():
    rng = np.random.default_rng(4)
    X, y, eps = rng.random((60, 3)), rng.uniform(-1, 1, 60), rng.choice([0.5, 1.0, 2.0], 60)
    model = PersonalizedRidge(lam=0.4, random_state=3, mechanism="objective", sampler="float").fit(X, y, eps)
    expected = objective_perturbation(X, y, eps, 0.4, rng=3, sampler="float")
    np.testing.assert_allclose(model.coef_, expected, rtol=1e-12, atol=1e-15)
    assert model.lam_ >= 0.4 and model.eta_ > 0 and np.isnan(model.sigma_)
    for kwargs, message in [({}, "no release that is exact in floating point"),
                            ({"sampler": "float", "B": "sharp"}, "B = 'sharp' is not allowed"),
                            ({"sampler": "float", "delta": 1e-5}, "pure DP"),
                            ({"sampler": "float", "lam": "pruned"}, "no rule for its lambda")]:
        with pytest.raises(ValueError, match=message):
            PersonalizedRidge(**{"lam": 0.4, "mechanism": "objective", **kwargs}).fit(X, y, eps)


def test_noisy_gradient_descent_is_fitted_under_delta_only():
    from pdp_lib.mechanisms.noisy_gd import noisy_gd

    rng = np.random.default_rng(6)
    X, y, eps = rng.random((40, 2)), rng.uniform(-1, 1, 40), rng.choice([0.5, 1.0, 2.0], 40)
    model = PersonalizedRidge(lam=0.5, random_state=8, mechanism="gd", noise="gaussian", delta=1e-5).fit(X, y, eps)
    np.testing.assert_array_equal(model.coef_, noisy_gd(X, y, eps, 0.5, 1e-5, 8))
    assert model.lam_ == 0.5 and model.weights_.sum() == pytest.approx(1.0)
    for kwargs, message in [({}, "mechanism='gd' has Gaussian noise"),
                            ({"noise": "gaussian", "delta": 1e-5, "B": "sharp"}, "B = 'sharp' is not allowed"),
                            ({"noise": "gaussian", "delta": 1e-5, "lam": "auto"}, "no rule for its lambda")]:
        with pytest.raises(ValueError, match=message):
            PersonalizedRidge(**{"lam": 0.5, "mechanism": "gd", **kwargs}).fit(X, y, eps)
