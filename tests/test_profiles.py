"""Tests of the privacy profiles of Section 4 ("Choice of Privacy Budgets")."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from pdp_lib import DEFAULT_PROFILE, ProfileSpec, privacy_profile
from pdp_lib.profiles import group_sizes


def test_default_profile_is_the_papers():
    s = DEFAULT_PROFILE
    assert (s.f_c, s.f_m, s.eps_c, s.eps_m, s.eps_l) == (0.34, 0.43, 0.01, 0.2, 1.0)
    assert s.f_l == pytest.approx(0.23, abs=1e-15)


@pytest.mark.parametrize("n, f_c, f_m, expected", [
    (100, 0.34, 0.43, (34, 43, 23)),
    # 0.34 * 1070 = 363.8 -> 363, 0.43 * 1070 = 460.1 -> 460, rest 247
    (1070, 0.34, 0.43, (363, 460, 247)),
    # 0.34 * 1338 = 454.92 -> 454, 0.43 * 1338 = 575.34 -> 575, rest 309
    (1338, 0.34, 0.43, (454, 575, 309)),
    # 0.29 * 100 is 28.999999999999996 in floating point: still 29 points
    (100, 0.29, 0.43, (29, 43, 28)),
    (1, 0.34, 0.43, (0, 0, 1)),
    (3, 0.34, 0.43, (1, 1, 1)),   # 1.02 -> 1, 1.29 -> 1
    (10, 0.0, 0.0, (0, 0, 10)),
    (10, 1.0, 0.0, (10, 0, 0)),
    (10, 0.5, 0.5, (5, 5, 0)),
])
def test_group_sizes_hand_computed(n, f_c, f_m, expected):
    assert group_sizes(n, f_c, f_m) == expected


@pytest.mark.parametrize("n", [1, 7, 100, 1070])
def test_profile_groups_and_ranges(n):
    spec = DEFAULT_PROFILE
    eps = privacy_profile(n, spec, rng=3)
    n_c, n_m, n_l = group_sizes(n, spec.f_c, spec.f_m)
    assert eps.shape == (n,)
    cons, med, lib = eps[:n_c], eps[n_c:n_c + n_m], eps[n_c + n_m:]
    assert np.all((cons >= spec.eps_c) & (cons <= spec.eps_m))
    assert np.all((med >= spec.eps_m) & (med <= spec.eps_l))
    assert len(lib) == n_l
    assert np.all(lib == spec.eps_l)  # liberals get exactly eps_l


def test_profile_groups_are_uniform():
    spec = ProfileSpec(f_c=0.5, f_m=0.5, eps_c=0.05, eps_m=0.3, eps_l=2.0)
    eps = privacy_profile(20_000, spec, rng=11)
    cons, med = eps[:10_000], eps[10_000:]
    assert stats.kstest(cons, stats.uniform(0.05, 0.25).cdf).pvalue > 1e-3
    assert stats.kstest(med, stats.uniform(0.3, 1.7).cdf).pvalue > 1e-3


def test_profile_reproducible_and_seed_sensitive():
    a = privacy_profile(50, rng=1)
    np.testing.assert_array_equal(a, privacy_profile(50, rng=1))
    np.testing.assert_array_equal(a, privacy_profile(50, rng=np.random.default_rng(1)))
    b = privacy_profile(50, rng=2)
    n_c, n_m, _ = group_sizes(50, 0.34, 0.43)
    assert not np.any(a[: n_c + n_m] == b[: n_c + n_m])


def test_profile_degenerate_levels():
    spec = ProfileSpec(f_c=0.3, f_m=0.3, eps_c=0.5, eps_m=0.5, eps_l=0.5)
    np.testing.assert_array_equal(privacy_profile(10, spec, rng=0), np.full(10, 0.5))


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(f_c=-0.1), r"f_c = -0\.1 is outside the allowed range \[0, 1\]"),
    (dict(f_c=1.5), r"f_c = 1\.5 is outside the allowed range \[0, 1\]"),
    (dict(f_m=float("nan")), r"f_m = nan is outside the allowed range \[0, 1\]"),
    (dict(f_c=0.6, f_m=0.5), r"f_c \+ f_m = 1\.1 is outside the allowed range \[0, 1\]"),
    (dict(eps_c=0.0), r"eps_c = 0\.0 is outside the allowed range \(0, inf\)"),
    (dict(eps_m=-1.0), r"eps_m = -1\.0 is outside the allowed range \(0, inf\)"),
    (dict(eps_l=float("inf")), r"eps_l = inf is outside the allowed range \(0, inf\)"),
    (dict(eps_c=0.5, eps_m=0.2), r"eps_c <= eps_m <= eps_l"),
    (dict(eps_m=0.2, eps_l=0.1), r"eps_c <= eps_m <= eps_l"),
])
def test_bad_specs_raise(kwargs, pattern):
    spec = ProfileSpec(**kwargs)
    with pytest.raises(ValueError, match=pattern):
        spec.validate()
    with pytest.raises(ValueError, match=pattern):
        privacy_profile(10, spec, rng=0)


@pytest.mark.parametrize("n, exc, pattern", [
    (0, ValueError, r"n = 0 is outside the allowed range \[1, inf\)"),
    (-3, ValueError, r"n = -3 is outside the allowed range \[1, inf\)"),
    (2.5, TypeError, r"n must be an integer"),
    ("10", TypeError, r"n must be an integer"),
])
def test_bad_n_raises(n, exc, pattern):
    with pytest.raises(exc, match=pattern):
        privacy_profile(n, rng=0)


def test_bad_spec_type_raises():
    with pytest.raises(TypeError, match=r"spec must be a ProfileSpec"):
        privacy_profile(10, {"f_c": 0.3}, rng=0)
