"""pdp_lib.readings and pdp_lib.experiments.parts: the numbers the readings cite, against independent truths."""

import numpy as np
import pytest

from pdp_lib.formatting import printed_half_unit

from pdp_lib import readings, report
from pdp_lib.experiments import loss_parts, reproduce
from pdp_lib.mechanism import calibrate, pdp_op
from pdp_lib.experiments import draw_data, draw_profile, get_target, settings, training_points


def test_formats_by_hand():
    assert report.prefix("table-14") == "t14" and report.prefix("figure-3") == "f3"
    assert readings.ratio_text(1.0) == "1.00" and readings.ratio_text(241.26) == "241"
    assert readings.ratio_text(1.2e5) == "1.20 × 10⁵" and readings.ratio_text(4.78e-7) == "4.78 × 10⁻⁷"
    assert readings.percent_text(0.0512) == "5.1%" and readings.percent_text(0.283) == "28%"
    assert readings.percent_text(3.5e-10) == "under 0.01%" and readings.percent_text(0.99999) == "over 99.9%"


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
    assert facts["jmax_max"] == readings.ratio_text(r.max()) and facts["jmax_at_max"] == str(r.idxmax())
    parts = loss_parts("table-4")
    first = parts["noise"].iloc[0] / parts["bias"].iloc[0]
    assert facts["noise_first"] == readings.ratio_text(first)
    assert facts["bias_takes_over"] == str(parts.index[np.argmax((parts["noise"] <= parts["bias"]).to_numpy())])
    judged = table[np.isfinite(table["paper"])]
    assert facts["cells"] == len(judged)
    h = np.array([printed_half_unit(p) for p in judged["paper"]])          # the printed rounding
    inside = judged[(judged["paper"] + h >= judged["low"]) & (judged["paper"] - h <= judged["high"])]
    assert facts["inside"] == len(inside) and facts["above"] + facts["below"] + facts["inside"] == facts["cells"]
    with pytest.raises(LookupError, match="table-4"):
        readings.target_facts("table-4", table[table["column"] != "reg_pdp_op"])
