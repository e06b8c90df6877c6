"""The synthetic grid of the advice chapter (pdp_lib.experiments.synthetic_advice): its law's moments against samples
of the law, its R^2 against the closed form, its exact losses against Monte Carlo, and the procedures' bookkeeping."""

import math

import numpy as np
import pytest

from pdp_lib.bounds import noise_scale
from pdp_lib.experiments import synthetic_advice as sa
from pdp_lib.mechanisms import automatic
from pdp_lib.mechanisms.output_perturbation import sample_l2_laplace


def _sample(d, r2, n, seed=0):
    """Rows of the law, drawn directly: the independent truth for the moments."""
    signs = np.random.default_rng(seed).choice([-1.0, 1.0], d)        # the law's own signs, as population() draws them
    pop = sa.population(d, r2, seed)
    var_g = 1 / (3 * d)
    a = (1 - sa.OFFSET) / (1 + math.sqrt((1 - r2) / r2 * var_g * 3))
    sigma = 1 - sa.OFFSET - a
    gen = np.random.default_rng(seed + 1)
    X = gen.uniform(0, 1, (n, d))
    y = sa.OFFSET + a * ((2 * X - 1) @ signs) / d + gen.uniform(-sigma, sigma, n)
    return pop, np.c_[X, np.ones(n)], y


@pytest.mark.parametrize("d, r2", [(2, 0.2), (5, 0.9)])
def test_the_moments_are_the_laws(d, r2):
    pop, Z, y = _sample(d, r2, 400_000)
    assert np.abs(y).max() <= 1.0                                   # the domain
    se = 1 / math.sqrt(y.size)                                      # every product below is bounded by 1
    assert np.abs(Z.T @ Z / y.size - pop.A).max() < 5 * se
    assert np.abs(Z.T @ y / y.size - pop.b).max() < 5 * se
    assert abs(y @ y / y.size - pop.yy) < 5 * se


@pytest.mark.parametrize("d, r2", [(2, 0.2), (12, 0.9), (100, 0.2)])
def test_the_population_r2_is_the_one_asked_for(d, r2):
    pop = sa.population(d, r2)
    explained = pop.b @ np.linalg.solve(pop.A, pop.b) - pop.mean**2   # Var of the best linear predictor
    assert explained / (pop.yy - pop.mean**2) == pytest.approx(r2, rel=1e-9)


def test_pdp_ops_exact_loss_is_the_mean_over_its_noise():
    d, n, r2 = 5, 2_000, 0.9
    config = sa.configuration_losses(d, n, r2, "paper", draws=10)
    pop, eps, lam = sa.population(d, r2), config["levels"], 1.0
    theta = np.linalg.solve(pop.A + lam * np.eye(d + 1), pop.b)
    eta = math.fsum(eps) / noise_scale(lam, d + 1)
    draws = theta + sample_l2_laplace(eta, d + 1, 200_000, np.random.default_rng(3))
    values = pop.loss(draws)
    assert abs(values.mean() - config["losses"].loc[lam, "pdp_op"]) < 5 * values.std() / math.sqrt(values.size)


def test_the_procedures_read_the_configurations_losses():
    for n, chose in ((100, "mean"), (1_000_000, "ssp")):
        config = sa.configuration_losses(2, n, 0.9, "uniform", draws=10)
        out = sa.procedure_losses(config, 2)
        assert automatic.choose(float(n), 1.0, 3).mechanism == chose
        assert out["auto"] == (out["private_mean"] if chose == "mean" else config["checked"]["ssp_checked"])
        assert (config["checked"] == {}) == (chose == "mean")
        # the levels' sum the configuration carries is math.fsum's, and a configuration without it gives the same
        assert config["total"] == math.fsum(config["levels"])
        assert sa.procedure_losses({k: v for k, v in config.items() if k != "total"}, 2) == out
        assert out["oracle"] <= min(out[p] for p in sa.PROCEDURES if p != "auto") + 1e-15
        assert out["non_private"] <= out["mean"] <= out["midpoint"]
        assert out["budget_ratio"] == n / 9


def test_a_profile_it_does_not_know_is_refused():
    with pytest.raises(ValueError, match="profile = 'flat' is not allowed"):
        sa.profile_levels("flat", 10, np.random.default_rng(0))


@pytest.mark.parametrize("offset", [0.0, 0.5])
def test_the_label_mean_moves_the_intercept_only(offset):
    pop, base = sa.population(5, 0.9, offset=offset), sa.population(5, 0.9)
    assert pop.mean == pop.b[-1] == offset and np.array_equal(pop.A, base.A)
    explained = pop.b @ np.linalg.solve(pop.A, pop.b) - pop.mean**2
    assert explained / (pop.yy - pop.mean**2) == pytest.approx(0.9, rel=1e-9)


def test_ssps_standard_error_is_the_spread_of_its_draws_over_their_root_count():
    config = sa.configuration_losses(2, 1_000, 0.9, "uniform", draws=50)
    losses = config["losses"]
    assert (losses["ssp_se"] > 0).all()
    more = sa.configuration_losses(2, 1_000, 0.9, "uniform", draws=5_000)["losses"]
    # 100 times the draws: the standard error about 10 times smaller (a heavy tail makes it noisy; 3x is certain)
    assert (more["ssp_se"] * 3 < losses["ssp_se"]).mean() > 0.5
