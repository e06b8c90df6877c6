"""Tests of pdp_lib.replication.misses against hand computations, closed forms and Monte Carlo."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pdp_lib import calibrate, mixtures, weighted_ridge
from pdp_lib.replication import misses as misses_module
from pdp_lib.experiments.mixtures import method_mixtures
from pdp_lib.formatting import printed_half_unit
from pdp_lib.experiments import draw_data, draw_profile, reproduce, training_points
from pdp_lib.mechanisms.output_perturbation import sample_l2_laplace
from pdp_lib.moments import QuadraticLoss
from pdp_lib.profiles import DEFAULT_PROFILE, ProfileSpec, privacy_profile

Z_MAX = 4.0  # Monte Carlo checks: |estimate - exact| <= 4 standard errors


def _rng(*key):
    return np.random.default_rng(np.random.SeedSequence(20241126, spawn_key=key))


def _test_set(N=40, d=4, seed=0):
    gen = _rng(99, seed)
    return gen.random((N, d)), gen.uniform(-1, 1, N)


# --------------------------------------------------------------------------- printed digits
@pytest.mark.parametrize("value, half", [
    (1.23e-2, 0.5e-4),      # 1.23 x 10^-2: the third digit is 10^-4
    (1.00, 0.005),
    (9.43e-3, 0.5e-5),
    (1.19e5, 500.0),
    (9.996, 0.05),          # prints as 1.00 x 10^1
    (-2.5, 0.005),
])
def test_printed_half_unit_by_hand(value, half):
    assert printed_half_unit(value) == pytest.approx(half, rel=1e-12)


def test_printed_half_unit_other_digits_and_bad_values():
    assert printed_half_unit(1.234, digits=4) == pytest.approx(0.0005)
    for bad in (0.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="value"):
            printed_half_unit(bad)


def test_bonferroni_z_by_hand():
    assert misses_module.bonferroni_z(1) == pytest.approx(1.959964, abs=1e-6)          # 2.5% each side
    assert misses_module.bonferroni_z(2) == pytest.approx(stats.norm.ppf(1 - 0.0125))   # 1.25% each side
    assert misses_module.bonferroni_z(10, level=0.9) == pytest.approx(stats.norm.ppf(1 - 0.005))
    with pytest.raises(ValueError, match="level"):
        misses_module.bonferroni_z(3, level=1.0)


# --------------------------------------------------------------------------- the loss over runs
def test_mixture_of_one_centre_matches_the_exact_moments():
    X, y = _test_set()
    loss = QuadraticLoss(X, y, penalty=0.3)
    theta, eta = np.array([0.2, -0.4, 0.1, 0.3]), 7.0
    mix = mixtures.loss_mixture(loss, theta, eta)
    poly = mix.polynomial()
    for u in (1.0, 0.25, 4.0):                       # u = 1/a^2 for eta scaled by a
        exact = loss.moments(theta, eta / np.sqrt(u))
        assert poly.mean(u) == pytest.approx(float(exact.mean), rel=1e-12)
        assert poly.var(u) == pytest.approx(float(exact.var), rel=1e-12)
        mu, m2, _, _ = mix.central_moments(u)
        assert mu == pytest.approx(float(exact.mean), rel=1e-12)
        assert m2 == pytest.approx(float(exact.var), rel=1e-12)


def test_pure_quadratic_noise_has_the_moments_of_a_gamma_square():
    # X_test = I (N = d rows): A = I/d and, with y = theta, g = 0; the loss is L0 + rho^2 / d with
    # rho ~ Gamma(d, rate eta) exactly (Remark 3.1), whose central moments scipy knows.
    d, eta = 5, 2.0
    X, theta = np.eye(d), np.full(d, 0.3)
    mix = mixtures.loss_mixture(QuadraticLoss(X, theta), theta, eta)
    r2 = stats.gamma(a=d, scale=1 / eta)
    raw = [r2.moment(2 * k) / d**k for k in range(5)]           # E (rho^2/d)^k
    mu = raw[1]
    central = [sum(math.comb(k, j) * raw[j] * (-mu) ** (k - j) for j in range(k + 1)) for k in range(5)]
    got = mixtures.LossMixture.central_moments(mix, 1.0)
    assert got[0] == pytest.approx(mu, rel=1e-12)
    assert got[1:] == pytest.approx(central[2:], rel=1e-10)


def test_two_centres_without_noise_by_hand():
    # eta = inf: the loss is L1 or L2 with probability 1/2 each.
    X, y = _test_set()
    loss = QuadraticLoss(X, y)
    thetas = np.array([[0.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.5, 0.5]])
    L1, L2 = (float(loss.value(t)) for t in thetas)
    mix = mixtures.loss_mixture(loss, thetas, [np.inf, np.inf])
    half = (L1 - L2) / 2
    assert mix.central_moments(1.0) == pytest.approx(((L1 + L2) / 2, half**2, 0.0, half**4), abs=1e-14)
    poly = mix.polynomial()
    assert (poly.m1, poly.v1, poly.v2) == (0.0, 0.0, 0.0) and poly.v0 == pytest.approx(half**2)


@pytest.mark.parametrize("penalty", [0.0, 0.5])
def test_central_moments_monte_carlo(penalty):
    # Two centres with their own noise: the second and third central moments over runs.  (The
    # fourth has too heavy a tail for a plain Monte Carlo check; see the next test.)
    X, y = _test_set(seed=1)
    loss = QuadraticLoss(X, y, penalty=penalty)
    thetas = np.array([[0.3, -0.2, 0.5, 0.1], [-0.1, 0.4, 0.0, 0.2]])
    etas = np.array([3.0, 5.0])
    mix = mixtures.loss_mixture(loss, thetas, etas)
    gen = _rng(2, int(penalty * 10))
    R = 400_000
    which = gen.integers(0, 2, R)
    z = np.concatenate([sample_l2_laplace(e, 4, size=R, rng=gen) for e in etas]).reshape(2, R, 4)
    sample = loss.value(thetas[which] + z[which, np.arange(R)])
    mu, m2, m3, _ = mix.central_moments(1.0)
    c = sample - mu
    for k, exact in ((1, 0.0), (2, m2), (3, m3)):
        est = c**k
        assert abs(est.mean() - exact) <= Z_MAX * est.std() / np.sqrt(R), k


@pytest.mark.parametrize("penalty", [0.0, 0.5])
def test_central_moments_by_generic_expansion(penalty):
    # L - E L = 2 rho l + rho^2 q - c with rho ~ Gamma(d, rate eta) independent of the uniform
    # direction U (l = g^T U, q = U^T A U).  Expand (2 rho l + rho^2 q - c)^k by the multinomial
    # theorem, take E rho^m exactly and E[l^i q^j] by Monte Carlo over U (bounded variables,
    # so the estimates are accurate): an independent check of the closed form's algebra.
    X, y = _test_set(seed=4)
    loss = QuadraticLoss(X, y, penalty=penalty)
    theta, eta, d = np.array([0.3, -0.2, 0.5, 0.1]), 2.5, 4
    mix = mixtures.loss_mixture(loss, theta, eta)
    g = loss.half_gradient(theta)
    G = _rng(4, int(penalty * 10)).standard_normal((2_000_000, d))
    U = G / np.linalg.norm(G, axis=1, keepdims=True)
    ell, q = U @ g, np.einsum("ni,ij,nj->n", U, loss.matrix, U)
    rho = [math.gamma(d + m) / math.gamma(d) / eta**m for m in range(9)]
    c = rho[2] * q.mean()
    _, *exact = mix.central_moments(1.0)
    for k, want in zip((2, 3, 4), exact):
        total = 0.0
        for i in range(k + 1):
            for j in range(k + 1 - i):
                r = k - i - j
                coef = math.factorial(k) / (math.factorial(i) * math.factorial(j) * math.factorial(r))
                total += coef * 2**i * (-c) ** r * rho[i + 2 * j] * np.mean(ell**i * q**j)
        assert total == pytest.approx(want, rel=5e-3), k


def test_std_error_of_a_standard_deviation_uses_the_kurtosis():
    # Gaussian-like case check: for the gamma-square loss the delta-method error is
    # sqrt(mu4 - sigma^4) / (2 sigma sqrt(R)), larger than the normal theory's sigma / sqrt(2R).
    d, eta, runs = 5, 2.0, 10_000
    X, theta = np.eye(d), np.full(d, 0.3)
    mix = mixtures.loss_mixture(QuadraticLoss(X, theta), theta, eta)
    _, m2, _, m4 = mix.central_moments(1.0)
    se = mix.std_error(1.0, "std", runs)
    assert se == pytest.approx(np.sqrt((m4 - m2**2) / runs) / (2 * np.sqrt(m2)))
    assert mix.kurtosis() > 3 and se > np.sqrt(m2) / np.sqrt(2 * runs)
    assert mix.std_error(1.0, "mean", runs) == pytest.approx(np.sqrt(m2 / runs))


def test_std_error_of_a_standard_deviation_monte_carlo():
    # 400 sample standard deviations of 2,000 runs each: their spread is the predicted error.
    X, y = _test_set(seed=3)
    loss = QuadraticLoss(X, y)
    theta, eta, runs = np.array([0.3, -0.2, 0.5, 0.1]), 2.0, 2_000
    mix = mixtures.loss_mixture(loss, theta, eta)
    z = sample_l2_laplace(eta, 4, size=400 * runs, rng=_rng(3))
    sds = loss.value(theta + z).reshape(400, runs).std(axis=1, ddof=1)
    predicted = mix.std_error(1.0, "std", runs)
    assert sds.std(ddof=1) == pytest.approx(predicted, rel=0.2)    # 400 replicates: ~4% error


def test_mixture_rejects_bad_input():
    X, y = _test_set()
    loss = QuadraticLoss(X, y)
    with pytest.raises(ValueError, match="etas"):
        mixtures.loss_mixture(loss, np.zeros((2, 4)), [1.0])
    with pytest.raises(ValueError, match=r"etas\[1\]"):
        mixtures.loss_mixture(loss, np.zeros((2, 4)), [1.0, -1.0])
    with pytest.raises(ValueError, match="u ="):
        mixtures.loss_mixture(loss, np.zeros(4), 1.0).central_moments(-1.0)


# --------------------------------------------------------------------------- inversion
def test_implied_u_round_trip_mean_and_std():
    X, y = _test_set()
    poly = mixtures.loss_mixture(QuadraticLoss(X, y), np.array([0.1, 0.2, 0.3, 0.4]), 4.0).polynomial()
    for u in (0.3, 1.0, 2.7):
        assert misses_module.implied_u(poly.mean(u), poly, "mean") == pytest.approx(u, rel=1e-10)
        assert misses_module.implied_u(np.sqrt(poly.var(u)), poly, "std") == pytest.approx(u, rel=1e-10)
    assert misses_module.implied_u(poly.m0 / 2, poly, "mean") < 0          # below the noiseless loss


def test_implied_interval_is_the_image_of_the_printed_rounding():
    # With z = 0 only the printed rounding remains: [P - h, P + h] maps to [s(P+h), s(P-h)].
    X, y = _test_set()
    mix = mixtures.loss_mixture(QuadraticLoss(X, y), np.array([0.1, 0.2, 0.3, 0.4]), 0.5)
    poly = mix.polynomial()
    P = float(f"{float(poly.mean(1.0)):.3g}")
    h = printed_half_unit(P)
    low, high = misses_module.implied_interval(P, mix, "mean", 100.0, runs=10_000, z=0.0)
    assert low == pytest.approx(100 / np.sqrt(misses_module.implied_u(P + h, poly)), rel=1e-12)
    assert high == pytest.approx(100 / np.sqrt(misses_module.implied_u(P - h, poly)), rel=1e-12)
    assert low <= 100.0 * np.sqrt(1.0 / misses_module.implied_u(P, poly)) <= high
    wider = misses_module.implied_interval(P, mix, "mean", 100.0, runs=10_000, z=3.0)
    assert wider[0] < low and wider[1] > high


def test_implied_interval_of_an_unreachable_value_is_empty():
    X, y = _test_set()
    mix = mixtures.loss_mixture(QuadraticLoss(X, y), np.array([0.1, 0.2, 0.3, 0.4]), 0.5)
    below = float(mix.polynomial().m0) / 10
    assert all(np.isnan(misses_module.implied_interval(below, mix, "mean", 1.0, runs=10_000, z=2.0)))


def test_common_interval_by_hand():
    assert misses_module.common_interval([(1, 5), (2, 6), (0, 4)]) == (2.0, 4.0)
    assert all(np.isnan(misses_module.common_interval([(1, 2), (3, 4)])))
    assert all(np.isnan(misses_module.common_interval([(1, 2), (np.nan, np.nan)])))
    assert misses_module.common_interval([(1, np.inf), (2, 3)]) == (2.0, 3.0)


def _medical(fraction=1.0):
    draw = draw_data("medical_cost", 2024, 0, vary_split=False)
    X, y = training_points(draw, fraction)
    return draw, X, y


def test_non_personalized_inversion_recovers_the_minimum_exactly():
    # Closed form: the non-personalized mean loss at a profile whose minimum is m' is
    # L(theta_bar) + (d+1) tr A / eta'^2 with eta' = n m' / c(lambda) (Theorem 3.1); inverting the
    # value printed with 3 digits must give back an interval around m'.
    draw, X, y = _medical()
    n, d = X.shape
    eps = draw_profile(draw, DEFAULT_PROFILE, n)
    lams = [0.1, 1.0]
    mix = method_mixtures("non_personalized", X, y, draw.X_test, draw.y_test, eps, lams)
    ref = misses_module.profile_statistic(eps, "non_personalized")
    assert ref == eps.min()
    for m_paper in (0.0105, 0.0121, 0.03):
        for lam in lams:
            cal = calibrate(np.full(n, m_paper), lam, d)
            theta = weighted_ridge(X, y, cal.weights, lam)
            exact = float(QuadraticLoss(draw.X_test, draw.y_test).moments(theta, cal.eta).mean)
            printed = float(f"{exact:.3g}")
            low, high = misses_module.implied_interval(printed, mix["unreg", lam], "mean", ref,
                                                  runs=10_000, z=0.0)
            assert low <= m_paper <= high
            assert (high - low) / m_paper < 0.01             # 3 digits fix the minimum to 1%


def test_pdp_op_inversion_recovers_a_scaled_sum():
    # Scaling the whole profile by a keeps PDP-OP's weights and multiplies eta by a: the implied
    # sum of the scaled profile's exact loss is a * sum(eps).
    draw, X, y = _medical()
    n, d = X.shape
    eps = draw_profile(draw, DEFAULT_PROFILE, n)
    mix = method_mixtures("pdp_op", X, y, draw.X_test, draw.y_test, eps, [0.5])
    ref = misses_module.profile_statistic(eps, "pdp_op")
    assert ref == pytest.approx(eps.sum())
    for a in (0.97, 1.05):
        cal = calibrate(a * eps, 0.5, d)
        theta = weighted_ridge(X, y, cal.weights, 0.5)
        loss = QuadraticLoss(draw.X_test, draw.y_test)
        for statistic, value in (("mean", loss.moments(theta, cal.eta).mean),
                                 ("std", loss.moments(theta, cal.eta).std)):
            low, high = misses_module.implied_interval(float(f"{float(value):.3g}"), mix["unreg", 0.5],
                                                  statistic, ref, runs=10_000, z=0.0)
            assert low <= a * eps.sum() <= high


def test_jorgensen_mixture_matches_the_engine():
    # The mixture over masks reproduces the engine's mean and standard deviation over runs.
    from pdp_lib.experiments import evaluate_sweep

    draw = draw_data("synthetic", 2024, 0)
    X, y = training_points(draw, 1.0)
    eps = draw_profile(draw, DEFAULT_PROFILE, X.shape[0])
    seq = np.random.SeedSequence(5)
    res = evaluate_sweep(X, y, draw.X_test, draw.y_test, eps, [10.0], runs=300, rng=seq,
                         methods=("jorgensen_max",))
    gen = np.random.default_rng(np.random.SeedSequence(5, spawn_key=(0,)))   # the engine's 't = max' stream
    mix = method_mixtures("jorgensen_max", X, y, draw.X_test, draw.y_test, eps, [10.0], masks=300, rng=gen)
    mu, m2, _, _ = mix["unreg", 10.0].central_moments(1.0)
    assert mu == pytest.approx(res.mean["unreg_jorgensen_max"][0], rel=1e-9)
    assert np.sqrt(m2) == pytest.approx(res.std["unreg_jorgensen_max"][0], rel=1e-2)   # R/(R-1) aside


# --------------------------------------------------------------------------- the profile's distribution
def test_profile_statistic_by_hand():
    eps = np.array([0.1, 0.5, 1.0])
    assert misses_module.profile_statistic(eps, "pdp_op") == pytest.approx(1.6)
    assert misses_module.profile_statistic(eps, "non_personalized") == 0.1
    keep = (np.expm1(0.1) + np.expm1(0.5)) / np.expm1(1.0) + 1.0
    assert misses_module.profile_statistic(eps, "jorgensen_max") == pytest.approx(keep)
    t = 1.6 / 3                                            # mean: 0.1 and 0.5 are below it
    keep = (np.expm1(0.1) + np.expm1(0.5)) / np.expm1(t) + 1.0
    assert misses_module.profile_statistic(eps, "jorgensen_mean") == pytest.approx(t * keep)
    with pytest.raises(ValueError, match="method"):
        misses_module.profile_statistic(eps, "non_private")


def test_sum_eps_moments_by_hand():
    # n = 100, default profile: 34 conservatives on [0.01, 0.2], 43 mediums on [0.2, 1], 23 at 1.
    mean, sd = misses_module.sum_eps_moments(DEFAULT_PROFILE, 100)
    assert mean == pytest.approx(34 * 0.105 + 43 * 0.6 + 23)
    assert sd**2 == pytest.approx(34 * 0.19**2 / 12 + 43 * 0.8**2 / 12)


def test_statistic_cdf_closed_forms():
    spec, n = DEFAULT_PROFILE, 100
    mean, _ = misses_module.sum_eps_moments(spec, n)
    assert misses_module.statistic_cdf(mean, "pdp_op", spec, n) == pytest.approx(0.5)
    low, high = misses_module.statistic_support("pdp_op", spec, n)
    assert misses_module.statistic_cdf(low - 1e-9, "pdp_op", spec, n) == 0.0
    assert misses_module.statistic_cdf(high, "pdp_op", spec, n) == 1.0
    # min: 1 - (1 - (x - eps_c)/(eps_m - eps_c))^34, by hand at x = 0.0119
    assert misses_module.statistic_cdf(0.0119, "non_personalized", spec, n) == pytest.approx(1 - (1 - 0.01) ** 34)
    degenerate = ProfileSpec(f_c=0.5, f_m=0.3, eps_c=0.5, eps_m=0.5, eps_l=1.0)
    assert misses_module.statistic_cdf(0.5, "non_personalized", degenerate, n) == 1.0
    assert misses_module.statistic_cdf(0.49, "non_personalized", degenerate, n) == 0.0


@pytest.mark.parametrize("method", ["pdp_op", "non_personalized", "jorgensen_max", "jorgensen_mean"])
def test_statistic_cdf_against_simulated_profiles(method):
    spec, n, draws = ProfileSpec(f_c=0.54, f_m=0.37, eps_c=0.01, eps_m=0.5, eps_l=1.0), 80, 4000
    gen = _rng(7, len(method))
    sample = np.array([misses_module.profile_statistic(privacy_profile(n, spec, rng=gen), method)
                       for _ in range(draws)])
    for q in (0.1, 0.5, 0.9):
        x = float(np.quantile(sample, q))
        # the cdf at the simulated q-quantile is q, up to the sampling error of a quantile
        assert abs(misses_module.statistic_cdf(x, method, spec, n) - q) <= Z_MAX * np.sqrt(q * (1 - q) / draws) + 0.01


# --------------------------------------------------------------------------- every miss
def test_explain_misses_rules_on_hand_made_bands():
    # Table 5 with hand-made bands: the misprinted cell (printed 1.20, the authors' 3.22) with a
    # band around 3.22; a cell whose band has zero width at the rounded value's neighbour; a cell
    # far above its band with a partner inside it.
    table = reproduce("table-5", runs=50).copy()
    table[["low", "high"]] = np.nan
    i = table.index[(table["param"] == "0.30") & (table["column"] == "reg_non_personalized")][0]
    table.loc[i, ["low", "high"]] = (3.0, 3.5)
    j = table.index[(table["param"] == "0.50") & (table["column"] == "reg_pdp_op")][0]
    p = table.loc[j, "paper"]
    table.loc[j, ["low", "high"]] = (p * (1 + 1e-4), p * (1 + 1e-4))       # inside the rounding
    misses, groups = misses_module.explain_misses({"table-5": table}, seed=2024, replicates=2, rounding=False)
    by_cell = {(r.param, r.column): r.cause for r in misses.itertuples(index=False)}
    assert by_cell == {("0.30", "reg_non_personalized"): "misprint",
                       ("0.50", "reg_pdp_op"): "printed rounding"}
    assert groups.empty
    # judged with its printed rounding, the second cell is no miss at all
    misses, _ = misses_module.explain_misses({"table-5": table}, seed=2024, replicates=2)
    assert {(r.param, r.column): r.cause for r in misses.itertuples(index=False)} == {
        ("0.30", "reg_non_personalized"): "misprint"}


def test_explain_misses_medical_cost_non_personalized_is_one_draw():
    # Table 2 rebuilt with 3 replicates: its non-personalized column lies outside the band, and
    # one minimum explains all 24 published cells (the chapter's Table 2 inversion).
    table = reproduce("table-2", replicates=3)
    misses, groups = misses_module.explain_misses({"table-2": table}, seed=2024, replicates=3)
    assert set(misses["cause"]) <= set(misses_module.CAUSES)
    nonpers = misses[misses["column"].str.endswith("non_personalized")]
    assert len(nonpers) > 0 and (nonpers["cause"] == "one profile draw").all()
    g = groups[groups["method"] == "non_personalized"].iloc[0]
    assert g.cells == 24 and g.explained and 0.01 < g.low <= g.high < 0.2
    assert 0.9 < g.percentile < 1.0                      # an unusually large minimum
    assert pd.api.types.is_integer_dtype(groups["misses"])


def test_examine_draws_reads_a_group_back_only_when_every_input_is_the_same(monkeypatch):
    # a second call on the same group reads its intervals back (the frames are equal, no mixture is built);
    # another number of masks, another seed or another published value builds them again
    table = reproduce("table-2", replicates=2)
    misses_module._INTERVALS.clear()
    built = []
    real = misses_module.method_mixtures
    monkeypatch.setattr(misses_module, "method_mixtures", lambda *a, **k: built.append(a[0]) or real(*a, **k))
    groups = misses_module.paper_draws({"table-2": table}, methods=("non_personalized",))
    first = misses_module.examine_draws({"table-2": table}, seed=2024, replicates=2, groups=groups, masks=20)
    assert len(built) == 2                                # one per replicate
    again = misses_module.examine_draws({"table-2": table}, seed=2024, replicates=2, groups=groups, masks=20)
    assert len(built) == 2
    pd.testing.assert_frame_equal(first, again)
    misses_module.examine_draws({"table-2": table}, seed=2024, replicates=2, groups=groups, masks=21)
    misses_module.examine_draws({"table-2": table}, seed=2025, replicates=2, groups=groups, masks=20)
    misses_module.examine_draws({"table-2": table}, seed=2024, replicates=2, groups=groups, masks=20, runs=5000)
    assert len(built) == 8
    other = table.copy()
    other["paper"] = other["paper"] * 1.01
    moved = misses_module.examine_draws({"table-2": other}, seed=2024, replicates=2, groups=groups, masks=20)
    assert len(built) == 10 and not moved["low"].equals(first["low"])
    misses_module._INTERVALS.clear()
    fresh = misses_module.examine_draws({"table-2": table}, seed=2024, replicates=2, groups=groups, masks=20)
    pd.testing.assert_frame_equal(first, fresh)
    kept = next(iter(misses_module._INTERVALS.values()))[0]
    with pytest.raises(ValueError):
        kept[0, 0, 0] = 0.0                               # what is kept cannot be changed by a caller
    with pytest.raises(TypeError, match="seed must be an integer"):
        misses_module.examine_draws({"table-2": table}, seed=2024.0, replicates=2, groups=groups, masks=20)
    monkeypatch.setattr(misses_module, "KEPT_GROUPS", 0)  # nothing kept: each call builds its own
    misses_module._INTERVALS.clear()
    pd.testing.assert_frame_equal(first, misses_module.examine_draws({"table-2": table}, seed=2024, replicates=2,
                                                                     groups=groups, masks=20))
    assert not misses_module._INTERVALS
    misses_module._INTERVALS.clear()


def test_paper_draws_selects_by_dataset_and_method():
    tables = {"table-2": reproduce("table-2"), "table-5": reproduce("table-5", runs=50)}
    every = misses_module.paper_draws(tables)
    med = misses_module.paper_draws(tables, dataset="medical_cost", methods=("pdp_op",))
    assert len(med) == 1 and med[0][3] == "pdp_op" and med[0] in every
    # Table 2 sweeps lambda (one draw per method); Table 5 draws one profile per row (7 rows)
    assert len(every) == 2 + 2 * 7
