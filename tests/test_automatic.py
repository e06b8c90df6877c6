"""``mechanism="auto"`` (pdp_lib.mechanisms.automatic) and the private mean from the streamed sums: the rule against
hand-computed cases, its ridge against the closed form, the mean's rounding bound by brute force, and the three front
ends (``fit``, ``PersonalizedRidge``, ``compare``) against each other."""

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from pdp_lib import cli
from pdp_lib.estimator import NoiseWarning, PersonalizedRidge
from pdp_lib.io import comparison, streaming
from pdp_lib.io.public_bounds import Bounds
from pdp_lib.mechanisms import automatic, registry
from pdp_lib.mechanisms.lambda_grid import DEFAULT_GRID
from pdp_lib.mechanisms.lattice import rounds_bound, sums_rounding_bound
from pdp_lib.mechanisms.private_mean import mean_calibration, mean_from_sums, sums_mean_calibration
from pdp_lib.mechanisms.ssp import SHARE


def test_the_rule_switches_exactly_at_its_threshold():
    d = 3
    at = automatic.THRESHOLD * d**2                       # S / d^2 equal to the threshold: SSP
    assert automatic.choose(at, 0.5, d) == automatic.Choice("ssp", automatic.ssp_ridge(at, 0.5, d), 50.0, 50.0)
    below = math.nextafter(at, 0.0)
    choice = automatic.choose(below, 0.5, d)
    assert (choice.mechanism, choice.lam) == ("mean", None) and choice.budget_ratio < automatic.THRESHOLD
    assert "< 50" in choice.reason() and ">= 50" in automatic.choose(at, 0.5, d).reason()
    at_delta = automatic.THRESHOLD_DELTA * d**2
    assert automatic.choose(at_delta, 0.5, d, 1e-6).lam == "public"
    assert automatic.choose(math.nextafter(at_delta, 0.0), 0.5, d, 1e-6).mechanism == "mean"


def test_the_choice_follows_its_cause_the_budget_ratio():
    # the same rows with every level scaled: only S / d^2 moves, and the choice moves with it
    eps = np.array([0.1, 0.5, 1.0] * 100)
    d = 4
    ratios = [k * eps.sum() / d**2 for k in (1.0, 10.0)]
    choices = [automatic.choose(k * eps.sum(), k * eps.min(), d).mechanism for k in (1.0, 10.0)]
    assert ratios[0] < automatic.THRESHOLD <= ratios[1] and choices == ["mean", "ssp"]


@pytest.mark.parametrize("total, level_min, d", [(1_000.0, 0.5, 3), (50_000.0, 0.01, 12), (2_500.0, 1.0, 7)])
def test_the_ridge_is_the_closed_form_on_the_grid(total, level_min, d):
    p = d * (d + 1) // 2
    eta_gram = SHARE * total / math.sqrt(p)             # the Gram matrix's rate over the reals
    target = automatic.RIDGE_FACTOR * math.sqrt(2.0) * p / eta_gram
    logs = [abs(math.log(v) - math.log(target)) for v in DEFAULT_GRID]
    assert automatic.ssp_ridge(total, level_min, d) == DEFAULT_GRID[logs.index(min(logs))]


def test_the_rule_refuses_what_it_cannot_read():
    with pytest.raises(ValueError, match="the levels' sum"):
        automatic.choose(0.0, 0.5, 3)
    with pytest.raises(ValueError, match="delta"):
        automatic.choose(100.0, 0.5, 3, delta=1.5)


def _sums(X, y, eps, chunks, delta=None):
    sums = streaming.Sums.zeros(X.shape[1])
    for part in np.array_split(np.arange(y.size), chunks):
        w = None if delta is None else streaming.gaussian_weights(eps[part], delta)
        sums.add(X[part], y[part], eps[part], w)
    return sums


@pytest.mark.parametrize("chunks", [1, 7, 64])
def test_the_computed_centre_is_within_the_rounding_bound_of_the_exact_mean(chunks):
    # brute force against the exact rational mean, on labels built to cancel (+1, -1, ...) with weights spanning
    # six orders of magnitude: the calibration charges 2 alpha to every neighbour pair
    rng = np.random.default_rng(5)
    n = 20_000
    eps = np.exp(rng.uniform(np.log(1e-4), np.log(100.0), n))
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0) * rng.uniform(0.999, 1.0, n)
    X = np.ones((n, 1))
    sums = _sums(X, y, eps, chunks)
    exact = sum(Fraction(float(e)) * Fraction(float(v)) for e, v in zip(eps, y)) / sum(map(Fraction, eps.tolist()))
    computed = Fraction(float(sums.moment[-1])) / Fraction(float(sums.total))
    alpha = sums_rounding_bound(rounds_bound(n), 1, Fraction(float(eps.min())))
    assert sums.rounds <= rounds_bound(n)
    assert abs(computed - exact) <= alpha


def test_the_streamed_calibration_is_the_exact_one_plus_the_rounding_charge():
    eps = np.array([0.01, 0.2, 1.0] * 400)
    n = eps.size
    direct, streamed = mean_calibration(eps), sums_mean_calibration(math.fsum(eps), eps.min(), rounds_bound(n))
    assert streamed.scale >= direct.scale >= 2 / math.fsum(eps)
    assert streamed.scale <= direct.scale * (1 + 2.0**-20)       # the charge is tiny against the noise
    assert streamed.step_exponent == direct.step_exponent


def test_the_mean_from_the_sums_is_the_intercept_only_model():
    rng = np.random.default_rng(1)
    n = 500
    X = np.c_[rng.uniform(0, 1, (n, 2)), np.ones(n)]
    y, eps = rng.uniform(-1, 1, n), rng.choice([0.5, 1.0], n)
    sums = _sums(X, y, eps, 3)
    release = registry.fit_sums(sums, None, rng=4, mechanism="mean", intercept=True, sampler="float")
    expected = float(sums.moment[-1]) / sums.total + np.random.default_rng(4).laplace(scale=2 / sums.total)
    assert release.theta.tolist() == [0.0, 0.0, expected] and release.lam is None
    exact = registry.fit_sums(sums, None, rng=4, mechanism="mean", intercept=True)
    gamma = 2.0 ** -sums_mean_calibration(sums.total, sums.level_min, rounds_bound(n)).step_exponent
    assert exact.theta[:2].tolist() == [0.0, 0.0] and (exact.theta[-1] / gamma).is_integer()
    assert exact.theorem == "mean" and exact.guarantee == "pure"
    sums_d = _sums(X, y, eps, 3, delta=1e-6)
    gaussian = registry.fit_sums(sums_d, None, rng=4, mechanism="mean", intercept=True, delta=1e-6)
    assert gaussian.theorem == "mean-gaussian" and gaussian.fields["noise"]["law"] == "gaussian"


def _table(tmp_path, n, level, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 1, n)
    frame = pd.DataFrame({"a": a, "y": np.clip(0.8 * a - 0.4 + 0.1 * rng.standard_normal(n), -1, 1),
                          "eps": np.full(n, level)})
    path = tmp_path / f"t{n}.csv"
    frame.to_csv(path, index=False)
    return path, frame


@pytest.mark.parametrize("level, chose", [(0.01, "mean"), (1.0, "ssp")])
def test_fit_auto_writes_what_it_chose_and_why(tmp_path, capsys, level, chose):
    path, _ = _table(tmp_path, 2_000, level)
    out = tmp_path / "m.json"
    code = cli.main(["fit", str(path), "--label", "y", "--epsilon", "eps", "--mechanism", "auto", "--intercept",
                     "--seed", "3", "--out", str(out)])
    assert code == 0
    record = json.loads(out.read_text())
    ratio = 2_000 * level / 2**2
    assert record["mechanism"] == chose and record["chosen_by"]["chose"] == chose
    assert record["chosen_by"]["budget_ratio"] == pytest.approx(ratio, rel=1e-12)
    assert "chosen by mechanism 'auto'" in capsys.readouterr().out
    if chose == "mean":
        assert record["coef"] == [0.0] and record["lam"] is None


def test_fit_auto_and_mean_refuse_before_reading_a_row(tmp_path, capsys):
    path, _ = _table(tmp_path, 50, 1.0)
    out = tmp_path / "m.json"
    base = ["fit", str(path), "--label", "y", "--epsilon", "eps", "--out", str(out)]
    assert cli.main(base + ["--mechanism", "auto"]) == 2
    assert "--mechanism auto needs --intercept" in capsys.readouterr().err
    assert cli.main(base + ["--mechanism", "mean", "--intercept", "--lam", "1"]) == 2
    assert "--lam does not apply to --mechanism mean" in capsys.readouterr().err
    assert cli.main(base) == 2
    assert "--mechanism output needs --lam" in capsys.readouterr().err
    assert not out.exists()


def test_the_estimator_and_the_command_line_choose_alike(tmp_path):
    for level in (0.01, 1.0):
        path, frame = _table(tmp_path, 2_000, level, seed=1)
        model = PersonalizedRidge(mechanism="auto", fit_intercept=True, random_state=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NoiseWarning)
            model.fit(frame[["a"]].to_numpy(), frame["y"].to_numpy(), frame["eps"].to_numpy())
        bounds = Bounds(features=("a",), lower=np.zeros(1), upper=np.ones(1), label_lower=-1.0, label_upper=1.0,
                        source="the domain", intercept=True)
        sums = streaming.accumulate(path, bounds, "y", "eps")
        release = registry.fit_sums(sums, None, rng=2, mechanism="auto", intercept=True)
        assert model.chosen_ == release.facts["choice"]
        if model.chosen_.mechanism == "ssp":            # the same lattice release from the same bits
            assert np.array_equal(np.r_[model.coef_, model.intercept_], release.theta)
        else:
            assert model.coef_.tolist() == [0.0] and model.lam_ is None


@pytest.mark.parametrize("level", [0.01, 1.0])
def test_compare_reports_the_release_auto_chooses(tmp_path, level):
    path, _ = _table(tmp_path, 3_000, level, seed=2)
    bounds = Bounds(features=("a",), lower=np.zeros(1), upper=np.ones(1), label_lower=-1.0, label_upper=1.0,
                    source="the domain", intercept=True)
    sums = comparison.compare_sums(path, bounds, "y", "eps", masks=4, delta=1e-6)
    choice = automatic.choose(sums.eps_total, float(sums.levels[0]), sums.d)
    lams = [v for v in DEFAULT_GRID if v != choice.lam][:3]          # the chosen lambda off the grid asked for
    table = comparison.expected_losses(sums, lams, draws=20, seed=1).set_index(["lam", "method"])
    auto = table.xs("auto", level="method")
    assert auto["loss"].nunique() == 1
    if choice.mechanism == "mean":
        assert auto["loss"].iloc[0] == table.loc[(lams[0], "private_mean"), "loss"]
    else:                                   # the checked releases from the ssp row's noise at that lambda
        values, _ = comparison.checked_losses(sums, [choice.lam], 20, 1)[choice.lam]
        assert auto["loss"].iloc[0] == float(values.mean())
    choice_d = automatic.choose(sums.eps_total, float(sums.levels[0]), sums.d, 1e-6)
    if choice_d.mechanism == "mean":
        expected = table.loc[(lams[0], "private_mean_delta"), "loss"]
    else:
        ridge = comparison.gaussian_public_ridge(sums)
        expected = float(comparison.checked_losses(sums, [ridge], 20, 1, gaussian=True)[ridge][0].mean())
    assert table.loc[(lams[0], "auto_delta"), "loss"] == expected
    # checked releases passed in are read, not drawn again: given the same ones, the same table; given others,
    # auto's rows are theirs
    if choice.mechanism == "ssp":
        known = {(choice.lam, False): values}
        again = comparison.expected_losses(sums, lams, draws=20, seed=1, checked=known).set_index(["lam", "method"])
        pd.testing.assert_frame_equal(again, table)
        other = comparison.expected_losses(sums, lams, draws=20, seed=1, checked={(choice.lam, False): values + 1.0})
        assert other.set_index(["lam", "method"]).loc[(lams[0], "auto"), "loss"] == float((values + 1.0).mean())


def test_the_streamed_calibration_charges_the_proposition_s_whole_spread():
    # prop-mean-privacy: the spread is 2/S_lo + (2 alpha + gamma)/w_min, alpha the sums' rounding bound in one
    # dimension: the scale is that spread rounded up to a double, rounding charge included
    from pdp_lib.mechanisms.lattice import double_above

    for total, smallest, n in ((1e4, 1e-4, 10**6), (3.5, 0.5, 7), (2e6, 1.0, 2 * 10**6)):
        cal = sums_mean_calibration(total, smallest, rounds_bound(n))
        s_lo = Fraction(total) * (1 - Fraction(1, 2**52))
        alpha = sums_rounding_bound(rounds_bound(n), 1, Fraction(smallest))
        gamma = Fraction(1, 2**cal.step_exponent)
        spread = 2 / s_lo + (2 * alpha + gamma) / Fraction(smallest)
        assert cal.scale == double_above(spread) and cal.rate == gamma / spread
        assert cal.scale > double_above(2 / s_lo + gamma / Fraction(smallest))    # the charge is visible here


def test_under_delta_the_mean_is_calibrated_to_the_mu_star_weights_not_the_levels():
    from pdp_lib.gaussian_curves import tolerated_gaussian_mus

    rng = np.random.default_rng(8)
    n, delta = 3_000, 1e-6
    X = np.c_[rng.uniform(0, 1, (n, 1)), np.ones(n)]
    y, eps = rng.uniform(-1, 1, n), rng.choice([0.5, 1.0, 2.0], n)
    sums = _sums(X, y, eps, 4, delta=delta)
    mu_total = math.fsum(tolerated_gaussian_mus(eps, delta))
    for sampler in ("exact", "float"):
        release = registry.fit_sums(sums, None, rng=1, mechanism="mean", intercept=True, delta=delta,
                                    sampler=sampler)
        assert release.fields["noise"]["scale"] == pytest.approx(2 / mu_total, rel=1e-5)
        assert release.fields["noise"]["scale"] >= 2 / mu_total * (1 - 1e-15)


@pytest.mark.parametrize("level, chose", [(0.5, "ssp"), (math.nextafter(0.5, 0.0), "mean")])
def test_fit_switches_at_the_threshold_on_the_whole_table(tmp_path, level, chose):
    # 400 rows, one feature and the intercept: S / d^2 = 400 level / 4, exactly 50 at level 0.5
    path, _ = _table(tmp_path, 400, level)
    out = tmp_path / "m.json"
    assert cli.main(["fit", str(path), "--label", "y", "--epsilon", "eps", "--mechanism", "auto", "--intercept",
                     "--seed", "1", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["mechanism"] == chose


def test_compare_reports_auto_only_with_the_intercept_it_needs(tmp_path):
    path, _ = _table(tmp_path, 500, 1.0)
    bounds = Bounds(features=("a",), lower=np.zeros(1), upper=np.ones(1), label_lower=-1.0, label_upper=1.0,
                    source="the domain", intercept=False)
    sums = comparison.compare_sums(path, bounds, "y", "eps", masks=2)
    methods = set(comparison.expected_losses(sums, [1.0], draws=4)["method"])
    assert "private_mean" in methods and not methods & set(comparison.CHOSEN)


def test_the_model_file_states_the_mean_s_own_noise_and_no_lambda(tmp_path):
    path, _ = _table(tmp_path, 300, 1.0)
    out = tmp_path / "m.json"
    assert cli.main(["fit", str(path), "--label", "y", "--epsilon", "eps", "--mechanism", "mean", "--intercept",
                     "--seed", "1", "--out", str(out)]) == 0
    privacy = json.loads(out.read_text())["privacy"]
    assert privacy["sampler"].startswith("exact: the weighted label sum") and "Laplace" in privacy["sampler"]
    assert "no system is solved" in privacy["floating_point"] and "lambda" not in privacy["public"]
    assert "Proposition 'The private mean'" in privacy["theorem"]


@pytest.mark.parametrize("delta", [None, 1e-6])
def test_auto_releases_the_intercept_only_model_where_the_features_explain_nothing(delta):
    # labels that do not depend on the features, far from the midpoint: the check drops the ridge in favour of the
    # intercept-only model of the same release, and says so; with a strong signal it keeps the centred ridge
    gen = np.random.default_rng(8)
    n = 40_000
    X = gen.random((n, 2))
    noise = {} if delta is None else {"delta": delta, "noise": "gaussian"}
    kept = {}
    for signal in (0.0, 0.8):
        y = np.clip(-0.6 + signal * (X[:, 0] - X[:, 1]) + 0.01 * gen.standard_normal(n), -1, 1)
        model = PersonalizedRidge(mechanism="auto", fit_intercept=True, epsilon=1.0, random_state=4,
                                  sampler="float", **noise).fit(X, y)
        assert model.chosen_.mechanism == "ssp" and model.checked_ is not None
        kept[signal] = model.checked_.regression
        if not kept[signal]:
            assert model.coef_.tolist() == [0.0, 0.0]
            assert model.intercept_ == pytest.approx(-0.6, abs=0.01)
    assert kept == {0.0: False, 0.8: True}
