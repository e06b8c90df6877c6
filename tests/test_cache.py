"""pdp_lib.experiments.cache: a cached table is the table the code computes, keyed exactly."""

import numpy as np
import pandas as pd
import pytest

from pdp_lib.experiments import cache, reproduce_many


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("PDP_LIB_CACHE", str(tmp_path))
    return tmp_path


def test_cached_equals_computed_and_is_reused(store, monkeypatch):
    kwargs = dict(runs=200, replicates=2)
    first = cache.reproduce_cached(["table-2", "table-4"], **kwargs)
    assert len(list(store.glob("*.pkl"))) == 2
    fresh = reproduce_many(["table-2", "table-4"], **kwargs)
    for t in fresh:
        pd.testing.assert_frame_equal(first[t], fresh[t])

    def fail(*args, **kw):
        raise AssertionError("recomputed a cached target")

    monkeypatch.setattr(cache, "reproduce_many", fail)
    again = cache.reproduce_cached(["table-4", "table-2"], **kwargs)     # another order, all cached
    assert list(again) == ["table-4", "table-2"]
    for t in fresh:
        pd.testing.assert_frame_equal(again[t], fresh[t])


def test_a_target_is_the_same_whatever_it_is_computed_with():
    # the key leaves out the other targets of the call: sharing draws must not change a number
    kwargs = dict(runs=300, replicates=2)
    alone = reproduce_many(["table-4"], **kwargs)["table-4"]
    together = reproduce_many(["table-3", "table-4", "table-14", "figure-2"], **kwargs)["table-4"]
    cols = ["value", "low", "high", "se"]
    np.testing.assert_allclose(alone[cols].to_numpy(float), together[cols].to_numpy(float), rtol=1e-12, atol=0)


def test_key_changes_with_every_input(store, monkeypatch):
    base = cache.cache_key("table-4", {"runs": 100})
    assert cache.cache_key("table-3", {"runs": 100}) != base
    assert cache.cache_key("table-4", {"runs": 101}) != base
    assert cache.cache_key("table-4", {"runs": 100, "bound": "sharp"}) != base
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Sandybridge")
    assert cache.cache_key("table-4", {"runs": 100}) != base
    monkeypatch.delenv("OPENBLAS_CORETYPE")
    monkeypatch.setattr(cache, "_code_digest", lambda: "other code")
    assert cache.cache_key("table-4", {"runs": 100}) != base


def test_cache_off_and_location(tmp_path, monkeypatch):
    monkeypatch.setenv("PDP_LIB_CACHE", "off")
    assert cache.cache_dir() is None
    out = cache.reproduce_cached(["table-2"], runs=100)
    assert set(out) == {"table-2"}
    monkeypatch.setenv("PDP_LIB_CACHE", str(tmp_path / "c"))
    assert cache.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("PDP_LIB_CACHE")
    assert cache.cache_dir().parts[-2:] == ("_build", "cache")       # the repository's build folder
