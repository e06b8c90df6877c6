"""How every rebuilt table and figure names and draws the methods and the sweeps.

The methods' titles (:data:`METHOD_TITLES`), colours and line styles, the sweeps' titles and axis labels, and the rc
settings and width of every figure: one style for the book's table chapters
(:mod:`pdp_lib.replication.rendering`), the errata chapter's summaries (:mod:`pdp_lib.replication.summaries`) and
``python -m pdp_lib compare`` (:mod:`pdp_lib.replication.comparison_report`).  Plain data: this module imports
nothing, not even matplotlib.
"""

from __future__ import annotations

__all__ = [
    "METHOD_TITLES",
    "SWEEP_TITLES",
    "SWEEP_AXES",
    "OKABE_ITO",
    "METHOD_COLORS",
    "METHOD_LINESTYLES",
    "FIGURE_STYLE",
    "FIGURE_WIDTH",
    "column_title",
]

METHOD_TITLES = {
    "pdp_op": "PDP-OP",
    "non_personalized": "non-personalized",
    "jorgensen_max": "Jorgensen max",
    "jorgensen_mean": "Jorgensen mean",
    "non_private": "non-private",
    # beyond the paper (chapter "Does personalization pay?"); oracles read the test set
    "pdp_op_sharp": "PDP-OP, sharp B*",
    "threshold_public": "best public threshold",
    "threshold_oracle": "oracle threshold (not private)",
    "jorgensen_oracle": "Jorgensen, oracle t (not private)",
    "mean": "training mean (not private)",
    "midpoint": "bounds' midpoint (no data)",
    # beyond output perturbation (chapter "Beyond output perturbation"), pure DP
    "ssp": "SSP (Monte Carlo)",
    "objective": "objective perturbation (Monte Carlo)",
    "private_mean": "private mean",
    "ssp_gaussian": "Gaussian SSP, public ridge (δ, Monte Carlo)",
    "adassp": "AdaSSP (δ, Monte Carlo)",
    "gd": "noisy GD (δ, Monte Carlo)",
    "private_mean_delta": "private mean (δ)",
    "group_means": "private means per group (public column)",
    "group_means_delta": "private means per group (public column, δ)",
    # the release mechanism="auto" chooses (chapter "Which mechanism, which λ"): a row repeated, in tables only
    "auto": "automatic choice (SSP or private mean)",
    "auto_delta": "automatic choice (δ)",
}
"""Each method's title in tables, legends and captions."""
SWEEP_TITLES = {
    "lam": "$\\lambda$",
    "eps_c": "$\\varepsilon_c$",
    "eps_m": "$\\varepsilon_m$",
    "f_c": "$f_c$",
    "fraction": "training fraction",
}
"""Each sweep's title in a table's header."""
SWEEP_AXES = {
    "lam": "regularization $\\lambda$",
    "eps_c": "privacy level of conservatives $\\varepsilon_c$",
    "eps_m": "privacy level of mediums $\\varepsilon_m$",
    "f_c": "fraction of conservatives $f_c$",
    "fraction": "fraction of the training set used",
}
"""Each sweep's axis label in a figure."""
# the Okabe-Ito palette (safe for the common colour-vision deficiencies); line styles tell the
# methods apart without colour too
OKABE_ITO = ("#0072B2", "#D55E00", "#E69F00", "#009E73", "#56B4E9", "#CC79A7", "#F0E442", "#000000")
METHOD_COLORS = {"pdp_op": "#0072B2", "non_personalized": "#D55E00", "jorgensen_max": "#E69F00",
                 "jorgensen_mean": "#009E73", "non_private": "#000000", "pdp_op_sharp": "#56B4E9",
                 "threshold_public": "#CC79A7", "threshold_oracle": "#CC79A7", "jorgensen_oracle": "#E69F00",
                 "mean": "#F0E442", "midpoint": "#000000", "ssp": "#56B4E9", "objective": "#D55E00",
                 "private_mean": "#009E73", "ssp_gaussian": "#56B4E9", "adassp": "#0072B2", "gd": "#E69F00",
                 "private_mean_delta": "#009E73"}
"""Each method's colour in every figure (an oracle shares its rule's colour and is drawn dashed)."""
METHOD_LINESTYLES = {"pdp_op": "-", "non_personalized": "--", "jorgensen_max": "-.", "jorgensen_mean": ":",
                     "non_private": "-", "pdp_op_sharp": "-", "threshold_public": "-", "threshold_oracle": "--",
                     "jorgensen_oracle": "--", "mean": ":", "midpoint": ":", "ssp": "-.", "objective": ":",
                     "private_mean": "--", "ssp_gaussian": "--", "adassp": "-.", "gd": "--",
                     "private_mean_delta": ":"}
"""Each method's line style: the methods stay apart without colour too."""
FIGURE_STYLE = {
    # matplotlib's own text form of cycler(color=OKABE_ITO): this module imports without matplotlib (compare's
    # table needs none), and rcParams parses the text when a figure is drawn
    "axes.prop_cycle": f"cycler(color={list(OKABE_ITO)!r})",
    # a 7.4-inch figure shown at the text column's width (688 px at a 1280 px window): 1 pt is about
    # 1.29 px, so 10.5 pt tick labels and legends are about 13.6 px, more than 80% of the 16 px body text
    "font.size": 11.0, "axes.labelsize": 11.5, "axes.titlesize": 11.5, "xtick.labelsize": 10.5,
    "ytick.labelsize": 10.5, "legend.fontsize": 10.5,
    # opaque white, so that the figure reads the same in the site's dark mode
    "figure.facecolor": "white", "axes.facecolor": "white", "savefig.facecolor": "white",
    "savefig.transparent": False, "figure.dpi": 130,
}
"""The rc settings of every rebuilt figure: a colour-blind-safe palette, fonts sized for the page."""
FIGURE_WIDTH = 7.4
"""The width of every rebuilt figure, in inches: the text column's."""


def column_title(column: str) -> str:
    """``"unreg_pdp_op"`` -> ``"unreg. PDP-OP"``."""
    kind, _, method = column.partition("_")
    return f"{'unreg.' if kind == 'unreg' else 'reg.'} {METHOD_TITLES[method]}"
