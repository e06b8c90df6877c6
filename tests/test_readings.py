"""pdp_lib.replication.readings and pdp_lib.experiments.parts: the numbers the readings cite, against independent truths."""

import numpy as np
import pytest

from pdp_lib.replication import readings, rendering
from pdp_lib.experiments import draw_data, draw_profile, get_target, loss_parts, reproduce, settings, training_points
from pdp_lib.formatting import printed_half_unit, ratio_text
from pdp_lib.mechanisms.output_perturbation import calibrate, pdp_op


def test_prefixes_by_hand():
    assert rendering.prefix("table-14") == "t14" and rendering.prefix("figure-3") == "f3"


def test_loss_parts_sum_to_the_engine_and_match_monte_carlo():
    parts = loss_parts("table-4")
    table = reproduce("table-4", columns=["unreg_pdp_op"])
    np.testing.assert_allclose(parts["mean"].to_numpy(), table["value"].to_numpy(), rtol=1e-12)
    # an independent truth at lambda = 1: Monte Carlo over the mechanism itself
    spec = get_target("table-4")
    draw = draw_data(spec.dataset, settings.SEED)
    X, y = training_points(draw)
    eps = draw_profile(draw, spec.profile, X.shape[0])
    rng = np.random.default_rng(7)
    thetas = np.array([pdp_op(X, y, eps, 1.0, rng=rng) for _ in range(4000)])
    losses = np.mean((thetas @ draw.X_test.T - draw.y_test) ** 2, axis=1)
    row = parts.loc["1.00"]
    assert abs(losses.mean() - row["mean"]) < 4 * losses.std() / np.sqrt(len(losses))
    assert row["eta"] == pytest.approx(float(calibrate(eps, 1.0, X.shape[1]).eta))
    assert losses.std() == pytest.approx(row["std"], rel=0.1)
    with pytest.raises(ValueError, match="kind"):
        loss_parts("table-4", "both")


def test_target_facts_by_hand():
    facts = readings.target_facts("table-4", reproduce("table-4", runs=200, replicates=3))
    table = reproduce("table-4", runs=200, replicates=3)
    vals = table.pivot(index="param", columns="column", values="value")
    r = vals["unreg_jorgensen_max"] / vals["unreg_pdp_op"]
    assert facts["jmax_max"] == ratio_text(r.max()) and facts["jmax_at_max"] == str(r.idxmax())
    parts = loss_parts("table-4")
    first = parts["noise"].iloc[0] / parts["bias"].iloc[0]
    assert facts["noise_first"] == ratio_text(first)
    assert facts["bias_takes_over"] == str(parts.index[np.argmax((parts["noise"] <= parts["bias"]).to_numpy())])
    judged = table[np.isfinite(table["paper"])]
    assert facts["cells"] == len(judged)
    h = np.array([printed_half_unit(p) for p in judged["paper"]])          # the printed rounding
    inside = judged[(judged["paper"] + h >= judged["low"]) & (judged["paper"] - h <= judged["high"])]
    assert facts["inside"] == len(inside) and facts["above"] + facts["below"] + facts["inside"] == facts["cells"]
    with pytest.raises(LookupError, match="table-4"):
        readings.target_facts("table-4", table[table["column"] != "reg_pdp_op"])
