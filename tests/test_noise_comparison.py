"""The chapter *PDP-OP under approximate DP*'s comparisons (pdp_lib.experiments.noise_comparison)."""

import numpy as np
import pandas as pd
import pytest

from pdp_lib.approximate import MECHANISMS
from pdp_lib.curves import largest_gaussian_mu, largest_loss_range
from pdp_lib.experiments import noise_comparison as nc


def test_group_levels_are_the_paper_shares():
    levels = nc.group_levels(n=100)
    assert [int(np.sum(levels == e)) for e in (0.01, 0.2, 1.0)] == [34, 43, 23]


def test_calibration_gains_by_hand():
    levels = np.repeat([0.2, 1.0], [3, 1])
    g = nc.calibration_gains(levels, [5], [1e-6]).iloc[0]
    a = {e: largest_loss_range(e, 1e-6, 5) for e in (0.2, 1.0)}
    assert g.paper == pytest.approx(min(a[0.2] / 0.2, a[1.0] / 1.0), rel=1e-11)
    assert g.optimal == pytest.approx((3 * a[0.2] + a[1.0]) / 1.6, rel=1e-11)


def test_the_noise_sweep_is_the_closed_form_and_the_crossover_its_first_d():
    levels = np.array([0.5, 0.5, 1.0])
    sweep = nc.noise_sweep({"p": levels}, dims=range(1, 31), deltas=[1e-5])
    mu = 2 * largest_gaussian_mu(0.5, 1e-5) + largest_gaussian_mu(1.0, 1e-5)
    expected = (2.0 / mu) ** 2 / (sweep.d + 1)
    np.testing.assert_allclose(sweep.gaussian, expected, rtol=1e-12)
    d12 = sweep[sweep.d == 12].iloc[0]
    a = 2 * largest_loss_range(0.5, 1e-5, 12) + largest_loss_range(1.0, 1e-5, 12)
    assert d12.l2 == pytest.approx((2.0 / a) ** 2, rel=1e-11)
    first = nc.crossover(sweep, "pure").iloc[0]["d"]
    assert sweep[sweep.d == first].gaussian.iloc[0] < 1 <= sweep[sweep.d == first - 1].gaussian.iloc[0]
    with pytest.raises(ValueError, match="against = 'gaussian' is not allowed"):
        nc.crossover(sweep, "gaussian")


def test_comparison_draws_agree_with_mechanism_losses():
    draws = nc.comparison_draws(("synthetic",), 2, deltas=(1e-5,))
    assert list(draws.mechanism[:len(MECHANISMS)]) == list(MECHANISMS)
    first = draws[draws.replicate == 0]
    np.testing.assert_allclose(first.ratio, first.loss / first.loss.iloc[0], rtol=1e-15)
    summary = nc.comparison_summary(draws)
    table = nc.comparison_markdown(summary, 1e-5)
    assert table.splitlines()[0] == "| mechanism | synthetic |" and "Gaussian at min ε" in table


def test_synthetic_sweep_shape():
    sweep = nc.synthetic_sweep(dims=(1, 3), draws=2)
    assert list(sweep.columns) == ["d", "replicate", *MECHANISMS] and len(sweep) == 4
    assert np.all(sweep[MECHANISMS[0]] == 1.0)
    assert isinstance(sweep, pd.DataFrame)
