"""``python -m pdp_lib compare``'s table and figure: each mechanism's expected test loss on a user's own table.

The numbers come from :func:`pdp_lib.io.comparison.expected_losses` (the book's chapter *PDP-OP on your own data*,
``book/own_data.ipynb``); this module only shows them, in the style of every rebuilt table and figure
(:mod:`pdp_lib.replication.styles`).  The table needs no matplotlib; the figure imports it when drawn.
"""

from __future__ import annotations

import pandas as pd

from ..formatting import markdown_table, sci_loss, sig
from .styles import FIGURE_STYLE, FIGURE_WIDTH, METHOD_COLORS, METHOD_LINESTYLES, METHOD_TITLES, SWEEP_AXES

__all__ = ["comparison_markdown", "comparison_figure"]


def comparison_markdown(table: pd.DataFrame, own_ridge=()) -> str:
    """``python -m pdp_lib compare``'s table: a row per mechanism, a column per ``lambda``, expected test losses.

    A Monte Carlo estimate (Jorgensen et al.'s rows) carries its relative standard error after ``±``.  The rows in
    ``own_ridge`` choose their own ridge: their one value stands in the first column, and the others say so.
    """
    methods = list(dict.fromkeys(table["method"]))
    lams = list(dict.fromkeys(table["lam"]))
    cells = {(r.method, r.lam): sci_loss(r.loss) + (f" ±{sig(100 * r.se / r.loss, 2)}%" if r.se > 0 else "")
             for r in table.itertuples()}
    for m in set(own_ridge) & set(methods):
        for lam in lams[1:]:
            cells[m, lam] = "(its own λ)"
    rows = [[METHOD_TITLES.get(m, m), *(cells[m, lam] for lam in lams)] for m in methods]
    return markdown_table(["mechanism", *(f"λ = {sig(lam)}" for lam in lams)], rows)


def comparison_figure(table: pd.DataFrame, title: str = "", note: str = ""):
    """``python -m pdp_lib compare``'s figure: each mechanism's expected test loss against ``lambda``, log-log (the
    rows of :data:`pdp_lib.io.comparison.CHOSEN`, which repeat another row, are left out).

    ``note``, when given, is printed under the axes (the command line's: units and privacy).
    """
    import matplotlib.pyplot as plt

    from ..io.comparison import CHOSEN

    table = table[~table["method"].isin(CHOSEN)]      # each repeats another row's loss: the table shows them
    with plt.rc_context(FIGURE_STYLE):
        fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.2))
        for method, part in table.groupby("method", sort=False):
            ax.errorbar(part["lam"], part["loss"], yerr=1.96 * part["se"], label=METHOD_TITLES.get(method, method),
                        color=METHOD_COLORS.get(method), ls=METHOD_LINESTYLES.get(method, "-"), capsize=2)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(SWEEP_AXES["lam"])
        ax.set_ylabel("expected test loss (scaled label)")
        if title:
            ax.set_title(title)
        ax.legend(fontsize=8, ncol=2)
        if note:
            import textwrap

            fig.text(0.01, 0.005, textwrap.fill(note, 120), fontsize=7, va="bottom", ha="left")
            fig.tight_layout(rect=(0, 0.09, 1, 1))
        else:
            fig.tight_layout()
    return fig
