"""Tests of pdp_lib.experiments.beyond: the exact columns beyond the paper, against direct computation."""

import numpy as np
import pytest

import pdp_lib
from pdp_lib.experiments import evaluate_sweep
from pdp_lib.experiments.beyond import exact_columns
from pdp_lib.moments import QuadraticLoss, loss_moments
from pdp_lib.mechanisms.threshold import best_public_threshold, oracle_threshold, threshold_calibration


def _problem(seed, n=60, d=5, m=30):
    gen = np.random.default_rng(seed)
    coef = gen.normal(size=d) / d
    X, Xt = gen.random((n, d)), gen.random((m, d))
    y = np.clip(X @ coef + 0.05 * gen.normal(size=n), -1, 1)
    yt = np.clip(Xt @ coef + 0.05 * gen.normal(size=m), -1, 1)
    eps = gen.choice([0.02, 0.1, 0.1, 0.4, 1.0], size=n) * gen.uniform(0.9, 1.1, size=n)
    return X, y, Xt, yt, eps


@pytest.mark.parametrize("B", [None, "sharp"])
def test_exact_columns_against_direct_computation(B):
    X, y, Xt, yt, eps = _problem(1)
    lams = np.array([0.05, 1.0, 30.0])
    lu = QuadraticLoss(Xt, yt)
    out = exact_columns(X, y, eps, lu, [lu.with_penalty(l) for l in lams], lams,
                        ("threshold_public", "threshold_oracle"), B=B)
    sharp = evaluate_sweep(X, y, Xt, yt, eps, lams, runs=1, methods=("pdp_op_sharp",))
    tau = best_public_threshold(eps)
    for j, lam in enumerate(lams):
        cal = pdp_lib.calibrate(eps, lam, 5, B="sharp")
        bar = pdp_lib.weighted_ridge(X, y, cal.weights, lam)
        keep, cal_t = threshold_calibration(eps, lam, 5, B=B)
        bar_t = pdp_lib.weighted_ridge(X[keep], y[keep], cal_t.weights, lam)
        for kind, penalty in (("unreg", 0.0), ("reg", lam)):
            mom = loss_moments(bar, cal.eta, Xt, yt, penalty=penalty)
            assert sharp.mean[f"{kind}_pdp_op_sharp"][j] == pytest.approx(float(mom.mean), rel=1e-12)
            assert sharp.std[f"{kind}_pdp_op_sharp"][j] == pytest.approx(float(mom.std), rel=1e-12)
            mom_t = loss_moments(bar_t, cal_t.eta, Xt, yt, penalty=penalty)
            assert out[f"{kind}_threshold_public"][0][j] == pytest.approx(float(mom_t.mean), rel=1e-12)
            assert out[f"{kind}_threshold_public"][2][j] == tau
            # the oracle: brute force over every level, through the single-run API
            best_tau, best_mean = oracle_threshold(X, y, Xt, yt, eps, lam, B=B, penalty=penalty)
            assert out[f"{kind}_threshold_oracle"][2][j] == best_tau
            assert out[f"{kind}_threshold_oracle"][0][j] == pytest.approx(best_mean, rel=1e-9)
            # an oracle is never worse than the public rule, and PDP-OP (sharp) never noisier
            assert out[f"{kind}_threshold_oracle"][0][j] <= out[f"{kind}_threshold_public"][0][j] * (1 + 1e-12)


def test_the_sharp_calibration_removes_noise_only():
    X, y, Xt, yt, eps = _problem(2)
    lams = np.array([0.5])
    lu = QuadraticLoss(Xt, yt)
    sharp = evaluate_sweep(X, y, Xt, yt, eps, lams, runs=1, methods=("pdp_op_sharp",))
    cal = pdp_lib.calibrate(eps, 0.5, 5)
    bar = pdp_lib.weighted_ridge(X, y, cal.weights, 0.5)
    paper = loss_moments(bar, cal.eta, Xt, yt)
    bias = float(lu.value(bar))
    ratio = (pdp_lib.calibrate(eps, 0.5, 5, B="sharp").eta / cal.eta) ** 2
    # same bias, noise part divided by (eta*/eta)^2
    assert sharp.mean["unreg_pdp_op_sharp"][0] - bias == pytest.approx((float(paper.mean) - bias) / ratio, rel=1e-9)


def test_jorgensen_oracle_chooses_on_one_stream_and_reports_another():
    from pdp_lib.experiments.beyond import jorgensen_grid, jorgensen_oracle

    eps = np.array([0.05, 0.2, 0.5, 1.0])
    grid = jorgensen_grid(eps)
    calls = []

    def statistics(t, runs, gen):
        # a loss with its minimum at t = 0.5 for lambda 0 and at the largest t for lambda 1,
        # plus a noise that depends on the stream: the choice must use only the first stream
        calls.append((t, runs))
        noise = gen.random() * 1e-3
        base = np.array([[abs(np.log(t / 0.5)), 1.0 / t]] * 2) + noise        # (2 losses, 2 lambdas)
        return np.stack([base, base, base * 0, base * 0])

    gs, ge = np.random.default_rng(1), np.random.default_rng(2)
    stats, chosen = jorgensen_oracle(statistics, eps, 100, gs, ge, select_runs=10)
    assert np.allclose(chosen[:, 0], grid[np.argmin(np.abs(np.log(grid / 0.5)))]) and np.all(chosen[:, 1] == 1.0)
    assert [r for _, r in calls[:grid.size]] == [10] * grid.size      # the choice: select_runs masks each
    assert {r for _, r in calls[grid.size:]} == {100}                 # the report: fresh masks, `runs` of them
    # statistics already estimated on independent masks are reused, not redrawn
    calls.clear()
    known = {1.0: np.full((4, 2, 2), 7.0)}
    stats, chosen = jorgensen_oracle(statistics, eps, 100, np.random.default_rng(1), np.random.default_rng(2),
                                     select_runs=10, known=known)
    assert np.all(stats[:, :, 1] == 7.0) and all(t != 1.0 for t, r in calls if r == 100)


def test_evaluate_sweep_beyond_columns():
    from pdp_lib.experiments import evaluate_sweep

    X, y, Xt, yt, eps = _problem(3)
    lams = [0.1, 2.0]
    res = evaluate_sweep(X, y, Xt, yt, eps, lams, runs=200, rng=np.random.SeedSequence(5),
                         methods=("pdp_op", "jorgensen_max", "jorgensen_mean", "pdp_op_sharp",
                                  "threshold_public", "threshold_oracle", "jorgensen_oracle"))
    lu = QuadraticLoss(Xt, yt)
    exact = exact_columns(X, y, eps, lu, [lu.with_penalty(l) for l in lams], np.array(lams),
                          ("threshold_public", "threshold_oracle"))
    for col, (mean, std, _) in exact.items():
        assert np.allclose(res.mean[col], mean, rtol=1e-12) and np.allclose(res.std[col], std, rtol=1e-12)
    for kind in ("unreg", "reg"):
        t = res.thresholds[f"{kind}_jorgensen_oracle"]
        for j in range(2):
            if t[j] == res.thresholds["jorgensen_max"]:     # chose t = max: reports the t = max estimate
                assert res.mean[f"{kind}_jorgensen_oracle"][j] == res.mean[f"{kind}_jorgensen_max"][j]
        assert np.all(res.mean_se[f"{kind}_jorgensen_oracle"] > 0)
    with pytest.raises(ValueError, match="methods contains 'threshold'"):
        evaluate_sweep(X, y, Xt, yt, eps, lams, runs=10, methods=("threshold",))
