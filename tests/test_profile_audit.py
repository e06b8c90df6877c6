"""Tests of pdp_lib.audit.profile_audit: simultaneous lower confidence bounds on a privacy profile.

Truths used: the closed-form profile of the Laplace mechanism (d = 1), the exact profile of the
ℓ2 mechanism in d = 12 (:func:`pdp_lib.approximate.l2_privacy_profile`), the Gaussian
mechanism's profile (Balle and Wang 2018), written out here with ``scipy.stats.norm``, brute-force
counts and SciPy's own exact binomial intervals (``scipy.stats.binomtest``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from scipy import stats

from pdp_lib.approximate import l2_privacy_profile, laplace_privacy_profile
from pdp_lib.audit.privacy_loss import log_density_ratio
from pdp_lib.audit.profile_audit import (
    DeltaLowerBounds,
    ProfileAudit,
    audit_privacy_profile,
    delta_lower_bounds,
)
from pdp_lib.mechanisms.output_perturbation import sample_l2_laplace

N = 200_000          # outputs per dataset for the sharpness tests


def _gen(seed):
    return np.random.default_rng(np.random.SeedSequence(seed))


def _l2_scores(d, a, n, gen, eta_true=1.0):
    """Log likelihood ratios of the claimed ℓ2 mechanism (eta = 1, centres 0 and a e_1) on draws at ``eta_true``."""
    ta, tb = np.zeros(d), np.zeros(d)
    tb[0] = a
    out_d = ta + sample_l2_laplace(eta_true, d, n, gen)
    out_dprime = tb + sample_l2_laplace(eta_true, d, n, gen)
    return log_density_ratio(out_d, ta, 1.0, tb), log_density_ratio(out_dprime, ta, 1.0, tb)


def _gaussian_profile(eps_prime, mu):
    """Balle and Wang (2018), Theorem 8: the exact profile of N(theta, sigma^2 I) at mu = ||Delta|| / sigma."""
    e = np.asarray(eps_prime, float)
    return stats.norm.cdf(mu / 2 - e / mu) - np.exp(e) * stats.norm.cdf(-mu / 2 - e / mu)


def _gaussian_scores(mu, d, shape, gen, sigma_true=1.0):
    """Log likelihood ratios of the claimed N(., I) mechanism (centres 0 and mu e_1) on draws at ``sigma_true``."""
    ta, tb = np.zeros(d), np.zeros(d)
    tb[0] = mu

    def score(o):
        return (np.sum((o - tb) ** 2, axis=-1) - np.sum((o - ta) ** 2, axis=-1)) / 2.0

    out_d = ta + sigma_true * gen.standard_normal((*shape, d))
    out_dprime = tb + sigma_true * gen.standard_normal((*shape, d))
    return score(out_d), score(out_dprime)


# The Laplace grid skips eps' = a itself: the loss has an atom at a, and the event {score > a}
# separates the doubles the two centres can output (see the floating-point test below).
LAPLACE_A = 1.0
LAPLACE_GRID = LAPLACE_A * np.r_[np.linspace(0.0, 0.95, 20), 1.05, 1.1]
L2_D, L2_A = 12, 2.0
L2_GRID = np.linspace(0.0, 1.1 * L2_A, 23)
GAUSS_MU, GAUSS_D = 1.0, 3
GAUSS_GRID = np.linspace(0.0, GAUSS_MU ** 2 / 2 + 2.5 * GAUSS_MU, 25)


@lru_cache(maxsize=None)
def _l2_exact():
    return np.array([l2_privacy_profile(e, L2_D, L2_A) for e in L2_GRID])


# ------------------------------------------------------------------ sharp and valid on true mechanisms
def _sharp_and_valid(audit: ProfileAudit, grid):
    assert isinstance(audit, ProfileAudit)
    assert len(grid) >= 20 and audit.exact[-1] < audit.exact[0]
    assert not audit.exceeds, np.max(audit.bounds.lower - audit.exact)
    assert np.all(audit.bounds.lower <= audit.exact + 1e-12)
    assert audit.best_ratio >= 0.5, audit.best_ratio
    assert audit.bounds.lower[grid == audit.best_eps][0] >= 0.5 * audit.exact[grid == audit.best_eps][0]
    assert np.all(np.diff(audit.bounds.lower) <= 0)     # a profile, and its bounds, never increase


def test_laplace_d1_bounds_stay_below_the_closed_form_and_reach_it():
    sd, sp = _l2_scores(1, LAPLACE_A, N, _gen(1))
    exact = [laplace_privacy_profile(e, LAPLACE_A) for e in LAPLACE_GRID]
    audit = audit_privacy_profile(sd, sp, LAPLACE_GRID, exact)
    _sharp_and_valid(audit, LAPLACE_GRID)
    assert audit.best_ratio > 0.95
    assert np.all(audit.ratio[LAPLACE_GRID < LAPLACE_A] > 0.7)      # close along the whole curve


def test_l2_d12_bounds_stay_below_the_exact_profile_and_reach_it():
    sd, sp = _l2_scores(L2_D, L2_A, N, _gen(2))
    audit = audit_privacy_profile(sd, sp, L2_GRID, _l2_exact())
    _sharp_and_valid(audit, L2_GRID)
    assert audit.best_ratio > 0.9


def test_gaussian_bounds_stay_below_balle_wang_and_reach_it():
    sd, sp = _gaussian_scores(GAUSS_MU, GAUSS_D, (N,), _gen(3))
    exact = _gaussian_profile(GAUSS_GRID, GAUSS_MU)
    audit = audit_privacy_profile(sd, sp, GAUSS_GRID, exact)
    _sharp_and_valid(audit, GAUSS_GRID)
    assert audit.best_ratio > 0.9
    assert np.all(exact > 0)          # the Gaussian's loss is unbounded: delta > 0 everywhere


def test_exact_as_a_function_gives_the_same_audit():
    sd, sp = _l2_scores(1, LAPLACE_A, 5_000, _gen(4))
    exact = [laplace_privacy_profile(e, LAPLACE_A) for e in LAPLACE_GRID]
    by_array = audit_privacy_profile(sd, sp, LAPLACE_GRID, exact)
    by_function = audit_privacy_profile(sd, sp, LAPLACE_GRID, lambda e: laplace_privacy_profile(e, LAPLACE_A))
    np.testing.assert_array_equal(by_array.exact, by_function.exact)
    assert by_array.best_ratio == by_function.best_ratio and by_array.best_eps == by_function.best_eps


# ------------------------------------------------------------------ a false claim is caught
def test_a_mechanism_with_less_noise_than_claimed_is_caught():
    # the noise scale is 0.7 of the claimed one (eta / 0.7): the outputs are scored and judged as
    # the claimed mechanism's, and some lower bound rises above the claimed curve
    sd, sp = _l2_scores(L2_D, L2_A, N, _gen(5), eta_true=1.0 / 0.7)
    audit = audit_privacy_profile(sd, sp, L2_GRID, _l2_exact())
    assert audit.exceeds
    assert np.max(audit.bounds.lower - audit.exact) > 0.05
    # more noise than claimed is more private, and no bound refutes the claim
    sd, sp = _l2_scores(L2_D, L2_A, N, _gen(6), eta_true=0.7)
    assert not audit_privacy_profile(sd, sp, L2_GRID, _l2_exact()).exceeds


def test_a_gaussian_with_less_noise_than_claimed_is_caught():
    sd, sp = _gaussian_scores(GAUSS_MU, GAUSS_D, (N,), _gen(7), sigma_true=0.7)
    audit = audit_privacy_profile(sd, sp, GAUSS_GRID, _gaussian_profile(GAUSS_GRID, GAUSS_MU))
    assert audit.exceeds and np.max(audit.bounds.lower - audit.exact) > 0.05


def test_the_floating_point_outputs_of_laplace_at_the_atom_are_told_apart():
    # In d = 1 the loss equals a on a half-line, an atom.  In doubles, the centre 0 outputs any
    # double there while the centre a outputs only fl(a + z), and fl(1 + |o|) - |o| > 1 happens
    # for the first only: the event {score > a} has probability 0 under D' and a few percent under
    # D, so delta(a) = 0 is refuted, an instance of Mironov's attack (CCS 2012).
    sd, sp = _l2_scores(1, LAPLACE_A, N, _gen(1))
    audit = audit_privacy_profile(sd, sp, [LAPLACE_A], [0.0])
    assert audit.bounds.count_dprime[0] == 0 and audit.bounds.count_d[0] > 0.01 * N
    assert audit.exceeds


# ------------------------------------------------------------------ the simultaneous guarantee
@pytest.mark.parametrize("mechanism", ["gaussian", "laplace"])
def test_coverage_of_the_simultaneous_bounds(mechanism):
    reps, n, alpha = 300, 2_000, 0.05
    gen = _gen(8)
    if mechanism == "gaussian":
        grid, exact = GAUSS_GRID, _gaussian_profile(GAUSS_GRID, GAUSS_MU)
        sd, sp = _gaussian_scores(GAUSS_MU, GAUSS_D, (reps, n), gen)
    else:
        grid = LAPLACE_GRID
        exact = np.array([laplace_privacy_profile(e, LAPLACE_A) for e in grid])
        flat_d, flat_p = _l2_scores(1, LAPLACE_A, reps * n, gen)
        sd, sp = flat_d.reshape(reps, n), flat_p.reshape(reps, n)
    exceeded = np.array([audit_privacy_profile(sd[r], sp[r], grid, exact, alpha).exceeds for r in range(reps)])
    margin = 3.0 * np.sqrt(alpha * (1 - alpha) / reps)
    assert exceeded.mean() <= alpha + margin, exceeded.mean()


# ------------------------------------------------------------------ the arithmetic, against brute force
def test_counts_and_bounds_match_brute_force_and_scipys_exact_intervals():
    gen = _gen(9)
    sd, sp = gen.normal(0.5, 1.0, 57), gen.normal(0.0, 1.0, 41)
    grid = np.array([0.0, 0.2, 0.7, 1.5])
    ts = np.array([-0.5, 0.0, 0.3, 1.0, 9.0])
    alpha = 0.2
    res = delta_lower_bounds(sd, sp, grid, alpha, thresholds=ts)
    assert isinstance(res, DeltaLowerBounds)
    level = alpha / (2 * ts.size)
    for j, t in enumerate(ts):
        k_d, k_p = int(np.sum(sd > t)), int(np.sum(sp > t))
        assert (res.count_d[j], res.count_dprime[j]) == (k_d, k_p)
        lo_d = stats.binomtest(k_d, 57).proportion_ci(1 - 2 * level, method="exact").low
        hi_p = stats.binomtest(k_p, 41).proportion_ci(1 - 2 * level, method="exact").high
        assert res.p_d_lower[j] == pytest.approx(lo_d, abs=1e-10)
        assert res.p_dprime_upper[j] == pytest.approx(hi_p, abs=1e-10)
    for i, e in enumerate(grid):
        best = max(res.p_d_lower[j] - np.exp(e) * res.p_dprime_upper[j] for j in range(ts.size))
        assert res.lower[i] == pytest.approx(max(best, 0.0), abs=1e-14)
        assert (res.event[i] == -1) == (best <= 0)
    assert (res.n_d, res.n_dprime, res.alpha) == (57, 41, alpha)
    np.testing.assert_array_equal(res.thresholds, ts)


def test_default_events_are_the_grid_and_bounds_are_clipped_at_zero():
    res = delta_lower_bounds([3.0, 3.0, 3.0], [5.0, 5.0], [0.0, 1.0])
    np.testing.assert_array_equal(res.thresholds, [0.0, 1.0])
    np.testing.assert_array_equal(res.lower, [0.0, 0.0])      # nothing to see: 0, never negative
    np.testing.assert_array_equal(res.event, [-1, -1])


def test_a_grid_beyond_float_range_gives_zero_not_a_warning():
    with np.errstate(all="raise"):
        res = delta_lower_bounds([1.0, 2.0], [0.0, 0.5], [0.0, 1e3])
    assert res.lower[1] == 0.0


def test_no_positive_exact_value_gives_nan_ratio():
    audit = audit_privacy_profile([1.0, 2.0], [0.0, 0.5], [5.0, 6.0], [0.0, 0.0])
    assert np.isnan(audit.best_ratio) and np.isnan(audit.best_eps) and not audit.exceeds
    assert np.all(np.isnan(audit.ratio))


# ------------------------------------------------------------------ bad input
GOOD = dict(scores_d=[0.1, 0.5, 2.0], scores_dprime=[0.0, -1.0], eps_grid=[0.0, 0.5, 1.0])


@pytest.mark.parametrize("change, match", [
    (dict(alpha=0.0), "alpha"),
    (dict(alpha=1.0), "alpha"),
    (dict(alpha=1.5), "alpha"),
    (dict(eps_grid=[]), "eps_grid"),
    (dict(eps_grid=[0.0, np.nan]), "eps_grid"),
    (dict(eps_grid=[0.0, np.inf]), "eps_grid"),
    (dict(eps_grid=[-0.1, 0.5]), r"eps_grid\[0\].*\[0, inf\)"),
    (dict(eps_grid=[0.0, 0.5, 0.5]), "eps_grid must be strictly increasing"),
    (dict(eps_grid=[1.0, 0.5]), "eps_grid must be strictly increasing"),
    (dict(eps_grid=[[0.0, 1.0]]), "eps_grid"),
    (dict(scores_d=[]), "scores_d"),
    (dict(scores_d=[[0.1, 0.2]]), "scores_d"),
    (dict(scores_d=[0.1, np.nan]), r"scores_d\[1\]"),
    (dict(scores_dprime=[np.inf]), r"scores_dprime\[0\]"),
    (dict(thresholds=[1.0, 0.0]), "thresholds must be strictly increasing"),
    (dict(thresholds=[]), "thresholds"),
])
def test_bad_input_is_refused_by_name(change, match):
    with pytest.raises(ValueError, match=match):
        delta_lower_bounds(**{**GOOD, **change})


@pytest.mark.parametrize("exact, match", [
    ([0.1, 0.2], "exact must have one value per eps_grid entry"),
    ([0.1, 0.2, 1.5], r"exact\[2\].*\[0, 1\]"),
    ([0.1, -0.2, 0.0], r"exact\[1\]"),
    ([0.1, np.nan, 0.0], r"exact\[1\]"),
    (lambda e: np.nan, r"exact\[0\]"),
])
def test_bad_exact_curve_is_refused_by_name(exact, match):
    with pytest.raises(ValueError, match=match):
        audit_privacy_profile(GOOD["scores_d"], GOOD["scores_dprime"], GOOD["eps_grid"], exact)
