"""The errata chapter's summary tables: the claims and their verdicts, the coverage of the bands, the causes of the misses
and the paper's draws behind them.

Display only: every verdict and count comes from :mod:`pdp_lib.replication.claims`,
:mod:`pdp_lib.replication.verdicts` and :mod:`pdp_lib.replication.misses`.
"""


from __future__ import annotations


import numpy as np
import pandas as pd

from ..formatting import markdown_table, ratio_text, sci, sig
from .styles import METHOD_TITLES


__all__ = [
    "rules_markdown",
    "CAPTION",
    "claims_markdown",
    "claims_block",
    "coverage_markdown",
    "coverage_text",
    "causes_markdown",
    "draws_markdown",
    "table_list",
]



CAPTION = ("The headline claims of the paper's Section 4 and their verdicts. Rule: how the claim's words "
           "are read (the text argues each reading). Rebuilt and published: the statistic the rule reads, "
           "for the unregularized and the regularized loss (a range: smallest to largest over the points; "
           "a count: points where the rule's comparison holds); published values that the authors' own "
           "outputs show misprinted are left out, and the figures publish none. Over the draws: the 2.5% "
           "and 97.5% quantiles of the statistic over the draws behind the book's 95% bands (for a range, "
           "of its two ends). Verdict: on which numbers the rule holds; the draws include the rebuilt one.")


def claims_markdown(judgements) -> str:
    """The claims table as Markdown: one row per claim, the rule's text beside its verdict."""
    header = ["claim", "rule", "rebuilt", "published", "over the draws (95%)", "verdict"]
    keys = ["claim", "rule", "rebuilt", "published", "band", "verdict"]
    rows = [[j.cells()[k].replace("|", "\\|") for k in keys] for j in judgements]
    return markdown_table(header, rows)


def claims_block(judgements, *, name: str = "tab-claims", caption: str = CAPTION) -> str:
    """The claims table as a numbered MyST table (paste it with ``{glue:md}``, format myst)."""
    return f"```{{table}} {caption}\n:name: {name}\n:align: center\n\n{claims_markdown(judgements)}\n```"


# ----------------------------------------------------------------------------------- other verdict tables

def coverage_markdown(verdicts: pd.DataFrame, head: dict) -> str:
    """Per table of the paper, the published cells inside their band: sharp, loose and fixed apart.

    Parameters
    ----------
    verdicts : pandas.DataFrame
        :func:`pdp_lib.replication.verdicts.band_verdicts` rows of every table, with a column ``table``.
    head : dict
        :func:`pdp_lib.replication.verdicts.fidelity_headline` of the same rows (the last row, "all").

    Each count reads "inside of cells"; *fixed* cells have a band of zero width (nothing in
    them is random) and *zero* cells are zero up to rounding on both sides (no verdict).
    """
    def count(inside, cells):
        return f"{inside} of {cells}" if cells else "–"

    rows = ["| table | sharp: inside | loose: inside | median width, loose | fixed: inside | zero |",
            "|---|---|---|---|---|---|"]
    for k, v in verdicts.groupby("table"):
        j = v[np.isfinite(v["inside"].astype(float))]
        fixed = j["fixed"].astype(bool) if "fixed" in j else pd.Series(False, index=j.index)
        f, j = j[fixed], j[~fixed]
        s, loose = j[j["sharp"].astype(bool)], j[~j["sharp"].astype(bool)]
        width = f"{100 * loose['width'].median():.0f}%" if len(loose) else "–"
        rows.append(f"| {k} | {count(int(s['inside'].sum()), len(s))} | "
                    f"{count(int(loose['inside'].sum()), len(loose))} | {width} | "
                    f"{count(int(f['inside'].sum()), len(f))} | {int(v['machine_zero'].sum())} |")
    rows.append(f"| all | {count(head['sharp_inside'], head['sharp'])} | "
                f"{count(head['loose_inside'], head['loose'])} | {100 * head['loose_median_width']:.0f}% | "
                f"{count(head.get('fixed_inside', 0), head.get('fixed', 0))} | {head['machine_zero']} |")
    return "\n".join(rows)


def coverage_text(head: dict) -> str:
    """The headline of :func:`pdp_lib.replication.verdicts.fidelity_headline` in one line."""
    return (f"sharp: {head['sharp_inside']} of {head['sharp']} inside ({100 * head['sharp_share']:.1f}%), "
            f"misses a median {100 * head['sharp_miss_median']:.2g}% and at most "
            f"{100 * head['sharp_miss_max']:.3g}% outside; loose: {head['loose_inside']} of {head['loose']} "
            f"inside ({100 * head['loose_share']:.1f}%), median width "
            f"{100 * head['loose_median_width']:.0f}%; fixed: {head.get('fixed_inside', 0)} of "
            f"{head.get('fixed', 0)} inside; {head['machine_zero']} cells zero on both sides")


def causes_markdown(misses: pd.DataFrame, causes) -> str:
    """Per cause of :func:`pdp_lib.replication.misses.explain_misses`, the misses it explains, in ``causes`` order."""
    rows = []
    for cause in [c for c in causes if c in set(misses["cause"])]:
        m = misses[misses["cause"] == cause]
        rows.append([cause, len(m), int(m["sharp"].sum()),
                     f"{ratio_text(m['ratio'].min())} to {ratio_text(m['ratio'].max())}"])
    return markdown_table(["cause", "misses", "of which sharp", "published ÷ rebuilt"], rows)


def rules_markdown(heads: dict, causes: dict, order) -> str:
    """The headline and the misses' causes under several sets of band rules, one column per set.

    Parameters
    ----------
    heads : dict
        Rule set name -> :func:`pdp_lib.replication.verdicts.fidelity_headline`.
    causes : dict
        Rule set name -> counts of :func:`pdp_lib.replication.misses.explain_misses`' causes
        (a :class:`pandas.Series` indexed by cause).
    order : sequence of str
        The causes, in the order to show them (:data:`pdp_lib.replication.misses.CAUSES`).
    """
    names = list(heads)
    rows = []
    for label, key in (("sharp cells inside", "sharp"), ("loose cells inside", "loose"), ("fixed cells inside", "fixed")):
        rows.append([label] + [f"{heads[n][key + '_inside']} of {heads[n][key]}" for n in names])
    rows.append(["misses"] + [str(int(causes[n].sum())) for n in names])
    for cause in order:
        if any(causes[n].get(cause, 0) for n in names):
            rows.append([f"… {cause}"] + [str(int(causes[n].get(cause, 0))) for n in names])
    return markdown_table([""] + names, rows)


_DATA_TITLES = {"medical_cost": "Medical Cost", "synthetic": "synthetic"}


def table_list(rows: pd.DataFrame) -> str:
    """The tables the rows belong to (their column ``table``), each once, in order: ``5, 7, 9``."""
    return ", ".join(str(k) for k in sorted(set(rows["table"])))


def _implied_text(group) -> str:
    return sci(group.implied) if np.isfinite(group.implied) else "none"


def _percentile_text(group) -> str:
    if group.dataset == "medical_cost":
        return f"{sig(100 * group.percentile)}%" if np.isfinite(group.percentile) else "–"
    if group.draws:
        return f"{sig(100 * group.percentile)}% ({group.draws} of {group.replicates} data draws)"
    return f"– (row alone: {group.row_draws} of {group.replicates} data draws)"


def draws_markdown(groups: pd.DataFrame) -> str:
    """The paper's draws behind the misses: one row per draw, its implied statistic and percentile.

    Parameters
    ----------
    groups : pandas.DataFrame
        The draws of :func:`pdp_lib.replication.misses.explain_misses` (its second result):
        ``group, dataset, method, statistic, tables, cells, misses, implied, percentile`` and, for
        the synthetic data, ``draws, replicates, row_draws``.

    The implied value reads ``none`` when no value of the statistic reproduces every cell of the
    draw.  The percentile is the implied value's place in the statistic's distribution over
    profile draws (three significant digits); on the synthetic data, whose data draw is unknown,
    it is given with the number of rebuilt data draws under which the draw's cells meet, and
    without a value when none does (then with the count for the miss's own row alone).
    """
    rows = [[g.group, _DATA_TITLES[g.dataset], f"{METHOD_TITLES[g.method]}: {g.statistic}", g.tables,
             f"{g.cells} ({g.misses})", _implied_text(g), _percentile_text(g)]
            for g in groups.itertuples(index=False)]
    header = ["draw", "data", "column: statistic", "tables", "cells (misses)", "implied value", "percentile"]
    return markdown_table(header, rows)
