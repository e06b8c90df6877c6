"""The computed facts that the reading after each rebuilt table or figure cites.

The book's table chapters follow every rebuilt table and figure with a paragraph that says what
it shows, why it has that shape and where the paper's numbers sit in their bands.  Every number
in those paragraphs comes from :func:`target_facts`, which :func:`pdp_lib.replication.rendering.show_table` and
:func:`pdp_lib.replication.rendering.show_figure` glue under the target's prefix (:func:`pdp_lib.replication.rendering.prefix`: ``t4_jmax_max`` for Table 4,
``f3_noise_first`` for Figure 3), formatted to what the mathematics fixes (three significant
digits), so that a stored page does not depend on the machine that wrote it.

The facts, with the theory they tie to:

* the band verdicts of the published cells (:func:`pdp_lib.replication.verdicts.band_verdicts`);
* how much larger each other private method's statistic is than PDP-OP's;
* PDP-OP's exact bias and noise parts along the sweep
  (:func:`pdp_lib.experiments.loss_parts`, Theorem *thm-exact-loss-moments*), and for
  standard deviations the linear and quadratic parts of the variance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..experiments.parts import loss_parts
from ..experiments.targets import get_target
from ..formatting import percent_text, ratio_text
from .verdicts import band_verdicts

__all__ = ["SHORT_NAMES", "target_facts"]

SHORT_NAMES = {"non_personalized": "np", "jorgensen_max": "jmax", "jorgensen_mean": "jmean"}
"""The other private methods, as the glue keys name them (``t1_np_max``, ``t4_jmax_min``, ...)."""



def _first_label(mask: pd.Series, default: str) -> str:
    hits = mask[mask.to_numpy()]
    return str(hits.index[0]) if len(hits) else default


def target_facts(target: str, table: pd.DataFrame) -> dict:
    """Every number the reading of ``target`` may cite, as display text (or an int for counts).

    Parameters
    ----------
    target : str
        A name of :data:`pdp_lib.experiments.TARGET_NAMES`.
    table : pandas.DataFrame
        Its long table from :func:`pdp_lib.experiments.reproduce_many`.

    Returns
    -------
    dict
        ``first``, ``last``: the sweep's first and last values as printed.
        ``pdp_change``: PDP-OP's unregularized statistic at the last value over that at the first.
        For each other private method (short name ``s`` of :data:`SHORT_NAMES`) in the target:
        ``s_min``, ``s_max`` (its unregularized statistic over PDP-OP's, smallest and largest
        over the sweep), ``s_at_max`` (where the largest is), ``s_reg_min``, ``s_reg_max``.
        For means: ``noise_first``, ``noise_last`` (PDP-OP's noise part over its bias part at
        the first and last value) and ``bias_takes_over`` (the first value where the bias
        part is the larger, or ``"nowhere in the sweep"``).
        For standard deviations: ``linear_first``, ``linear_last`` (the linear part's share of
        PDP-OP's variance).
        For Jorgensen's columns: ``se_max``, the largest Monte Carlo standard error relative
        to its value.
        For tables: ``cells`` (published cells with a verdict), ``inside``, ``above``,
        ``below``, ``sharp``, ``sharp_inside`` and ``position``, the median position of the
        published values inside their band (0% at its lower edge, 100% at its upper edge).

    Raises
    ------
    LookupError
        If ``table`` lacks a column of the target.
    """
    spec = get_target(target)
    values = table.pivot(index="param", columns="column", values="value")
    missing = [c for c in spec.columns if c not in values]
    if missing:
        raise LookupError(f"target {target!r}: the table given has no column {missing[0]!r}")
    values = values.loc[list(spec.param_labels)]
    facts = {"first": spec.param_labels[0], "last": spec.param_labels[-1]}
    pdp = values["unreg_pdp_op"]
    facts["pdp_change"] = ratio_text(pdp.iloc[-1] / pdp.iloc[0])
    for method, short in SHORT_NAMES.items():
        if f"unreg_{method}" not in values:
            continue
        for kind, key in (("unreg", short), ("reg", f"{short}_reg")):
            r = values[f"{kind}_{method}"] / values[f"{kind}_pdp_op"]
            facts[f"{key}_min"], facts[f"{key}_max"] = ratio_text(r.min()), ratio_text(r.max())
            if kind == "unreg":
                facts[f"{short}_at_max"] = str(r.idxmax())
    parts = loss_parts(target)
    if spec.statistic == "mean":
        ratio = parts["noise"] / parts["bias"]
        facts["noise_first"], facts["noise_last"] = ratio_text(ratio.iloc[0]), ratio_text(ratio.iloc[-1])
        facts["bias_takes_over"] = _first_label(ratio <= 1, "nowhere in the sweep")
    else:
        share = parts["var_linear"] / (parts["var_linear"] + parts["var_quadratic"])
        facts["linear_first"], facts["linear_last"] = percent_text(share.iloc[0]), percent_text(share.iloc[-1])
    jorgensen = table[table["column"].str.contains("jorgensen")]
    if len(jorgensen):
        facts["se_max"] = percent_text((jorgensen["se"] / jorgensen["value"]).max())
    if spec.kind == "table":
        v = band_verdicts(table)
        judged = v[np.isfinite(v["inside"].astype(float))]
        inside = judged[judged["inside"] == 1]
        facts["cells"], facts["inside"] = len(judged), len(inside)
        facts["above"] = int((judged["paper"] - judged["rounding"] > judged["high"]).sum())   # printed rounding
        facts["below"] = int((judged["paper"] + judged["rounding"] < judged["low"]).sum())    # allowed for
        sharp = judged[judged["sharp"].astype(bool)]
        facts["sharp"], facts["sharp_inside"] = len(sharp), int(sharp["inside"].sum())
        width = (inside["high"] - inside["low"]).to_numpy(float)
        position = (inside["paper"] - inside["low"]).to_numpy(float) / np.where(width > 0, width, np.nan)
        position = position[np.isfinite(position)]
        facts["position"] = f"{100 * float(np.median(position)):.0f}%" if len(position) else "none"
    return facts
