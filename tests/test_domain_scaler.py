"""DomainScaler as a scikit-learn transformer in full: column names kept and checked, bounds keyed by name applied
by name, get_feature_names_out and set_output, and check_estimator clean but for two deliberate refusals."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline

from pdp_lib import PersonalizedRidge
from pdp_lib.preprocessing import DomainScaler

# the checks of scikit-learn's check_estimator that DomainScaler fails, each on purpose
EXPECTED_FAILURES = {
    "check_complex_data": "complex input is refused as a value of the wrong kind, not silently cast",
    "check_dtype_object": "object arrays are refused: converting one could turn strings into numbers",
}


def test_check_estimator_fails_only_the_listed_checks():
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(DomainScaler(lower=-1e6, upper=1e6), on_fail=None)
    assert {r["check_name"] for r in results if r["status"] == "failed"} == set(EXPECTED_FAILURES)
    passed = {r["check_name"] for r in results if r["status"] == "passed"}
    assert {"check_n_features_in_after_fitting", "check_estimators_nan_inf", "check_estimators_empty_data_messages",
            "check_fit2d_predict1d", "check_transformer_general", "check_fit_check_is_fitted"} <= passed


def _frame():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"age": rng.uniform(18, 64, 40), "bmi": rng.uniform(15, 50, 40)})


def test_bounds_keyed_by_name_are_applied_by_name_and_columns_are_checked():
    X = _frame()
    scaler = DomainScaler(lower={"bmi": 15, "age": 18}, upper={"bmi": 50, "age": 64}).fit(X)
    assert list(scaler.feature_names_in_) == ["age", "bmi"] and scaler.n_features_in_ == 2
    np.testing.assert_allclose(scaler.transform(X), np.column_stack([(X.age - 18) / 46, (X.bmi - 15) / 35]))
    assert list(scaler.get_feature_names_out()) == ["age", "bmi"]
    out = scaler.set_output(transform="pandas").transform(X)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["age", "bmi"]
    for other, needle in [(X[["bmi", "age"]], "in another order"), (X[["age"]], "column 'bmi' is missing"),
                          (X.assign(sex=1.0), "column 'sex' was not seen at fit")]:
        with pytest.raises(ValueError, match=needle):
            scaler.transform(other)
    with pytest.raises(ValueError, match="keyed by column name, but X has no column names"):
        DomainScaler(lower={"age": 18, "bmi": 15}, upper=100).fit(X.to_numpy())


def test_a_pipeline_refuses_swapped_columns_at_predict():
    X = _frame()
    y = np.linspace(-1, 1, 40)
    pipe = make_pipeline(DomainScaler(lower={"age": 18, "bmi": 15}, upper={"age": 64, "bmi": 50}),
                         PersonalizedRidge(lam=1.0, random_state=0))
    pipe.fit(X, y, personalizedridge__epsilons=np.full(40, 1.0))
    assert list(pipe.feature_names_in_) == ["age", "bmi"]
    pipe.predict(X)
    with pytest.raises(ValueError, match="in another order"):
        pipe.predict(X[["bmi", "age"]])
