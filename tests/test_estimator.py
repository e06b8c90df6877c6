"""Tests of PersonalizedRidge: Algorithm 1 behind scikit-learn's conventions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import MinMaxScaler

from conftest import make_domain_data, ridge_normal_equations
from pdp_lib import PersonalizedRidge, calibrate, pdp_op
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
    assert est.eta_ == cal.eta
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
                              "validation_fraction": 0.5, "noise": "l2", "delta": None}
    assert not hasattr(c, "coef_")
    c.set_params(lam=0.25)
    assert c.lam == 0.25 and est.lam == 3.0
    np.testing.assert_array_equal(c.fit(X, y, eps).coef_, pdp_op(X, y, eps, 0.25, B=0.5, rng=9))


def test_invalid_params_raise_at_fit(small_data):
    X, y, eps = small_data
    with pytest.raises(TypeError, match=r"lam must be a real number, got str 'best': use a number in \(0, inf\) "
                                        r"or 'auto'"):
        PersonalizedRidge(lam="best").fit(X, y, eps)
    with pytest.raises(ValueError, match=r"tuning_share = 0.0 is outside the allowed range \(0, 1\]"):
        PersonalizedRidge(lam="auto", tuning_share=0.0).fit(X, y, eps)
    with pytest.raises(ValueError, match=r"lam_grid|grid is empty"):
        PersonalizedRidge(lam="auto", lam_grid=[]).fit(X, y, eps)
    with pytest.raises(ValueError, match=r"lam = -1\.0 is outside the allowed range \(0, inf\)"):
        PersonalizedRidge(lam=-1.0).fit(X, y, eps)
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
