"""The published values of Tables 1-14 of the paper, transcribed once.

This module is data: every number printed in the fourteen tables of Acharya,
Boenisch, Naidu and Ziani, "Personalized Differential Privacy for Ridge
Regression", as it appears in the paper's LaTeX source, with each table's
label, caption (plain text), swept parameter, statistic and bold cells.  The
tables are numbered 1..14 in their order of appearance in the LaTeX source
(Tables 1-4 in Section 4, Tables 5-12 in Appendix "Additional Experiments",
Tables 13-14 at the end of the appendix); each entry cites its ``\\label`` and
the line of ``paper.tex`` where its ``table`` environment begins.
Shown beside the rebuilt tables in the book's chapters *PDP-OP against standard
DP*, *PDP-OP against Jorgensen et al.*, *Variability of the test loss* and *How much
does a number move? Errata and claims* (``book/standard_dp.ipynb``,
``book/jorgensen.ipynb``, ``book/variability.ipynb``, ``book/errata.ipynb``).

Each cell keeps both forms the paper prints: the text (``"8.54 × 10²"``, in the
format of :func:`pdp_lib.formatting.sci`) and the number it denotes, as a
Python float written with the same three significant digits (``8.54e2``).

These values are for side-by-side display beside rebuilt ones, and for the
consistency checks of :mod:`pdp_lib.reference` against the authors' raw outputs.
A published value is never used as a result.  The book's table chapters show
them next to the numbers the library recomputes.

Column names (only those a table prints):

``unreg_pdp_op, unreg_non_personalized, unreg_jorgensen_max, unreg_jorgensen_mean,
unreg_non_private, reg_pdp_op, reg_non_personalized, reg_jorgensen_max,
reg_jorgensen_mean, reg_non_private``

``unreg`` is the mean squared error on the test set, ``reg`` that plus
``lambda * ||theta_hat||^2`` (Section 4, "Metrics").  The statistic is the
mean over runs of the noise, except in Tables 13 and 14 (standard deviation).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, NamedTuple

import pandas as pd

__all__ = [
    "COLUMNS",
    "PARAMETERS",
    "STATISTICS",
    "DATASETS",
    "N_TABLES",
    "PublishedCell",
    "PublishedTable",
    "TABLES",
    "table_spec",
    "table_number",
    "caption",
    "published_table",
    "published_cells",
    "bold_cells",
    "published",
]

COLUMNS = (
    "unreg_pdp_op",
    "unreg_non_personalized",
    "unreg_jorgensen_max",
    "unreg_jorgensen_mean",
    "unreg_non_private",
    "reg_pdp_op",
    "reg_non_personalized",
    "reg_jorgensen_max",
    "reg_jorgensen_mean",
    "reg_non_private",
)
"""Every column name a published table may use, in the order of the design card."""

PARAMETERS = ("lambda", "eps_c", "eps_m", "f_c", "training_fraction")
"""Names of the swept parameter printed in a table's first column."""

STATISTICS = ("mean", "std")
DATASETS = ("synthetic", "medical_cost")
N_TABLES = 14


class PublishedCell(NamedTuple):
    """One printed cell: its text, the number it denotes, and whether it is bold."""

    text: str
    value: float
    bold: bool = False


_C = PublishedCell


@dataclass(frozen=True)
class PublishedTable:
    """One published table, as printed.

    Attributes
    ----------
    number : int
        1..14, the order of appearance in the LaTeX source.
    label : str
        The table's LaTeX ``\\label``.
    tex_line : int
        Line of ``paper.tex`` where the ``table`` environment begins.
    caption : str
        The caption as plain text (LaTeX macros expanded, references resolved).
    dataset : str
        ``"synthetic"`` or ``"medical_cost"``.
    param : str
        The swept parameter of the first column, one of :data:`PARAMETERS`.
    param_label : str
        The first column's header as printed.
    statistic : str
        ``"mean"`` or ``"std"`` (over runs of the noise).
    fixed : Mapping[str, float]
        The parameters the caption states as fixed (names ``d, n, eps_c, eps_m, eps_l,
        f_c, f_m, f_l, lambda``); only what the caption prints.
    columns : tuple of str
        The printed columns, left to right, named as in :data:`COLUMNS`.
    rows : tuple of (str, Mapping[str, PublishedCell])
        Each row: the parameter value as printed, and its cells by column.
    notes : tuple of str
        What the printed table itself leaves unstated or mislabels.
    """

    number: int
    label: str
    tex_line: int
    caption: str
    dataset: str
    param: str
    param_label: str
    statistic: str
    fixed: Mapping[str, float]
    columns: tuple
    rows: tuple
    notes: tuple = ()

    def __post_init__(self):
        # Freeze the nested mappings so the transcription cannot be altered in place.
        object.__setattr__(self, "fixed", MappingProxyType(dict(self.fixed)))
        object.__setattr__(
            self, "rows", tuple((p, MappingProxyType(dict(c))) for p, c in self.rows)
        )


# Table 1: paper.tex line 304, \label{tab:syn_4_1_plevel_34_43_23}
_TABLE_1 = PublishedTable(
    number=1,
    label="tab:syn_4_1_plevel_34_43_23",
    tex_line=304,
    caption=(
        "Loss of PDP-OP compared to standard DP on the synthetic dataset with d = 30, n = 100, "
        "keeping ε_c = 0.01, ε_m = 0.2, ε_l = 1.0, f_c = 0.34, f_m = 0.43, f_l = 0.23."
    ),
    dataset="synthetic",
    param="lambda",
    param_label="Regularization parameter Lambda (λ)",
    statistic="mean",
    fixed={
        "d": 30,
        "n": 100,
        "eps_c": 0.01,
        "eps_m": 0.2,
        "eps_l": 1.0,
        "f_c": 0.34,
        "f_m": 0.43,
        "f_l": 0.23,
    },
    columns=(
        "unreg_pdp_op",
        "unreg_non_personalized",
        "reg_pdp_op",
        "reg_non_personalized",
    ),
    rows=(
        ("1.00", {
            "unreg_pdp_op": _C("8.54 × 10²", 8.54e2, True),
            "unreg_non_personalized": _C("4.60 × 10⁵", 4.60e5),
            "reg_pdp_op": _C("3.32 × 10³", 3.32e3, True),
            "reg_non_personalized": _C("1.77 × 10⁶", 1.77e6),
        }),
        ("3.00", {
            "unreg_pdp_op": _C("3.88 × 10¹", 3.88e1, True),
            "unreg_non_personalized": _C("2.08 × 10⁴", 2.08e4),
            "reg_pdp_op": _C("3.82 × 10²", 3.82e2, True),
            "reg_non_personalized": _C("2.03 × 10⁵", 2.03e5),
        }),
        ("5.00", {
            "unreg_pdp_op": _C("9.78", 9.78, True),
            "unreg_non_personalized": _C("5.20 × 10³", 5.20e3),
            "reg_pdp_op": _C("1.50 × 10²", 1.50e2, True),
            "reg_non_personalized": _C("8.08 × 10⁴", 8.08e4),
        }),
        ("7.00", {
            "unreg_pdp_op": _C("3.81", 3.81, True),
            "unreg_non_personalized": _C("2.06 × 10³", 2.06e3),
            "reg_pdp_op": _C("8.36 × 10¹", 8.36e1, True),
            "reg_non_personalized": _C("4.46 × 10⁴", 4.46e4),
        }),
        ("10.00", {
            "unreg_pdp_op": _C("1.49", 1.49, True),
            "unreg_non_personalized": _C("8.18 × 10²", 8.18e2),
            "reg_pdp_op": _C("4.58 × 10¹", 4.58e1, True),
            "reg_non_personalized": _C("2.45 × 10⁴", 2.45e4),
        }),
        ("15.00", {
            "unreg_pdp_op": _C("5.30 × 10⁻¹", 5.30e-1, True),
            "unreg_non_personalized": _C("2.75 × 10²", 2.75e2),
            "reg_pdp_op": _C("2.34 × 10¹", 2.34e1, True),
            "reg_non_personalized": _C("1.26 × 10⁴", 1.26e4),
        }),
        ("20.00", {
            "unreg_pdp_op": _C("2.54 × 10⁻¹", 2.54e-1, True),
            "unreg_non_personalized": _C("1.29 × 10²", 1.29e2),
            "reg_pdp_op": _C("1.49 × 10¹", 1.49e1, True),
            "reg_non_personalized": _C("8.01 × 10³", 8.01e3),
        }),
        ("25.00", {
            "unreg_pdp_op": _C("1.44 × 10⁻¹", 1.44e-1, True),
            "unreg_non_personalized": _C("7.45 × 10¹", 7.45e1),
            "reg_pdp_op": _C("1.07 × 10¹", 1.07e1, True),
            "reg_non_personalized": _C("5.63 × 10³", 5.63e3),
        }),
        ("50.00", {
            "unreg_pdp_op": _C("2.28 × 10⁻²", 2.28e-2, True),
            "unreg_non_personalized": _C("1.11 × 10¹", 1.11e1),
            "reg_pdp_op": _C("3.06", 3.06, True),
            "reg_non_personalized": _C("1.64 × 10³", 1.64e3),
        }),
        ("75.00", {
            "unreg_pdp_op": _C("9.35 × 10⁻³", 9.35e-3, True),
            "unreg_non_personalized": _C("3.78", 3.78),
            "reg_pdp_op": _C("1.56", 1.56, True),
            "reg_non_personalized": _C("8.29 × 10²", 8.29e2),
        }),
        ("100.00", {
            "unreg_pdp_op": _C("5.82 × 10⁻³", 5.82e-3, True),
            "unreg_non_personalized": _C("1.80", 1.80),
            "reg_pdp_op": _C("1.01", 1.01, True),
            "reg_non_personalized": _C("5.36 × 10²", 5.36e2),
        }),
        ("125.00", {
            "unreg_pdp_op": _C("4.39 × 10⁻³", 4.39e-3, True),
            "unreg_non_personalized": _C("1.06", 1.06),
            "reg_pdp_op": _C("7.37 × 10⁻¹", 7.37e-1, True),
            "reg_non_personalized": _C("3.91 × 10²", 3.91e2),
        }),
        ("150.00", {
            "unreg_pdp_op": _C("3.68 × 10⁻³", 3.68e-3, True),
            "unreg_non_personalized": _C("6.79 × 10⁻¹", 6.79e-1),
            "reg_pdp_op": _C("5.73 × 10⁻¹", 5.73e-1, True),
            "reg_non_personalized": _C("3.05 × 10²", 3.05e2),
        }),
        ("175.00", {
            "unreg_pdp_op": _C("3.33 × 10⁻³", 3.33e-3, True),
            "unreg_non_personalized": _C("4.76 × 10⁻¹", 4.76e-1),
            "reg_pdp_op": _C("4.67 × 10⁻¹", 4.67e-1, True),
            "reg_non_personalized": _C("2.49 × 10²", 2.49e2),
        }),
        ("200.00", {
            "unreg_pdp_op": _C("3.09 × 10⁻³", 3.09e-3, True),
            "unreg_non_personalized": _C("3.64 × 10⁻¹", 3.64e-1),
            "reg_pdp_op": _C("3.97 × 10⁻¹", 3.97e-1, True),
            "reg_non_personalized": _C("2.10 × 10²", 2.10e2),
        }),
    ),
)

# Table 2: paper.tex line 337, \label{tab:insurance_4_1_plevel_34_43_23}
_TABLE_2 = PublishedTable(
    number=2,
    label="tab:insurance_4_1_plevel_34_43_23",
    tex_line=337,
    caption=(
        "Loss of PDP-OP compared to standard DP on the Medical cost dataset, keeping ε_c = 0.01, "
        "ε_m = 0.2, ε_l=1.0, f_c = 0.34, f_m = 0.43, f_l = 0.23."
    ),
    dataset="medical_cost",
    param="lambda",
    param_label="Regularization parameter Lambda (λ)",
    statistic="mean",
    fixed={"eps_c": 0.01, "eps_m": 0.2, "eps_l": 1.0, "f_c": 0.34, "f_m": 0.43, "f_l": 0.23},
    columns=(
        "unreg_pdp_op",
        "unreg_non_personalized",
        "reg_pdp_op",
        "reg_non_personalized",
    ),
    rows=(
        ("0.01", {
            "unreg_pdp_op": _C("1.19 × 10⁵", 1.19e5, True),
            "unreg_non_personalized": _C("2.18 × 10⁸", 2.18e8),
            "reg_pdp_op": _C("1.22 × 10⁵", 1.22e5, True),
            "reg_non_personalized": _C("2.31 × 10⁸", 2.31e8),
        }),
        ("0.05", {
            "unreg_pdp_op": _C("1.03 × 10³", 1.03e3, True),
            "unreg_non_personalized": _C("1.89 × 10⁶", 1.89e6),
            "reg_pdp_op": _C("1.16 × 10³", 1.16e3, True),
            "reg_non_personalized": _C("2.12 × 10⁶", 2.12e6),
        }),
        ("0.10", {
            "unreg_pdp_op": _C("1.34 × 10²", 1.34e2, True),
            "unreg_non_personalized": _C("2.49 × 10⁵", 2.49e5),
            "reg_pdp_op": _C("1.70 × 10²", 1.70e2, True),
            "reg_non_personalized": _C("3.08 × 10⁵", 3.08e5),
        }),
        ("0.50", {
            "unreg_pdp_op": _C("1.30", 1.30, True),
            "unreg_non_personalized": _C("2.40 × 10³", 2.40e3),
            "reg_pdp_op": _C("3.03", 3.03, True),
            "reg_non_personalized": _C("5.52 × 10³", 5.52e3),
        }),
        ("0.60", {
            "unreg_pdp_op": _C("8.10 × 10⁻¹", 8.10e-1, True),
            "unreg_non_personalized": _C("1.47 × 10³", 1.47e3),
            "reg_pdp_op": _C("2.02", 2.02, True),
            "reg_non_personalized": _C("3.65 × 10³", 3.65e3),
        }),
        ("0.70", {
            "unreg_pdp_op": _C("5.29 × 10⁻¹", 5.29e-1, True),
            "unreg_non_personalized": _C("9.26 × 10²", 9.26e2),
            "reg_pdp_op": _C("1.47", 1.47, True),
            "reg_non_personalized": _C("2.61 × 10³", 2.61e3),
        }),
        ("0.80", {
            "unreg_pdp_op": _C("3.78 × 10⁻¹", 3.78e-1, True),
            "unreg_non_personalized": _C("6.36 × 10²", 6.36e2),
            "reg_pdp_op": _C("1.11", 1.11, True),
            "reg_non_personalized": _C("1.98 × 10³", 1.98e3),
        }),
        ("0.90", {
            "unreg_pdp_op": _C("2.78 × 10⁻¹", 2.78e-1, True),
            "unreg_non_personalized": _C("4.59 × 10²", 4.59e2),
            "reg_pdp_op": _C("8.79 × 10⁻¹", 8.79e-1, True),
            "reg_non_personalized": _C("1.54 × 10³", 1.54e3),
        }),
        ("1.00", {
            "unreg_pdp_op": _C("2.15 × 10⁻¹", 2.15e-1, True),
            "unreg_non_personalized": _C("3.45 × 10²", 3.45e2),
            "reg_pdp_op": _C("7.12 × 10⁻¹", 7.12e-1, True),
            "reg_non_personalized": _C("1.24 × 10³", 1.24e3),
        }),
        ("2.00", {
            "unreg_pdp_op": _C("6.80 × 10⁻²", 6.80e-2, True),
            "unreg_non_personalized": _C("5.18 × 10¹", 5.18e1),
            "reg_pdp_op": _C("2.26 × 10⁻¹", 2.26e-1, True),
            "reg_non_personalized": _C("3.19 × 10²", 3.19e2),
        }),
        ("3.00", {
            "unreg_pdp_op": _C("5.52 × 10⁻²", 5.52e-2, True),
            "unreg_non_personalized": _C("1.73 × 10¹", 1.73e1),
            "reg_pdp_op": _C("1.39 × 10⁻¹", 1.39e-1, True),
            "reg_non_personalized": _C("1.52 × 10²", 1.52e2),
        }),
        ("5.00", {
            "unreg_pdp_op": _C("5.54 × 10⁻²", 5.54e-2, True),
            "unreg_non_personalized": _C("4.49", 4.49),
            "reg_pdp_op": _C("9.65 × 10⁻²", 9.65e-2, True),
            "reg_non_personalized": _C("6.25 × 10¹", 6.25e1),
        }),
    ),
)

# Table 3: paper.tex line 371, \label{tab:acc_syn_4_2_1_plevel_34_43_23}
_TABLE_3 = PublishedTable(
    number=3,
    label="tab:acc_syn_4_2_1_plevel_34_43_23",
    tex_line=371,
    caption=(
        "Lower loss compared to Jorgensen et al. on the synthetic dataset with d = 30, n = 100, "
        "keeping ε_c = 0.01, ε_m = 0.2, ε_l=1.0, f_c = 0.34, f_m = 0.43, f_l = 0.23."
    ),
    dataset="synthetic",
    param="lambda",
    param_label="Regularization parameter Lambda (λ)",
    statistic="mean",
    fixed={
        "d": 30,
        "n": 100,
        "eps_c": 0.01,
        "eps_m": 0.2,
        "eps_l": 1.0,
        "f_c": 0.34,
        "f_m": 0.43,
        "f_l": 0.23,
    },
    columns=(
        "unreg_pdp_op",
        "unreg_jorgensen_max",
        "unreg_jorgensen_mean",
        "unreg_non_private",
        "reg_pdp_op",
        "reg_jorgensen_max",
        "reg_jorgensen_mean",
        "reg_non_private",
    ),
    rows=(
        ("1.00", {
            "unreg_pdp_op": _C("8.54 × 10²", 8.54e2, True),
            "unreg_jorgensen_max": _C("1.09 × 10³", 1.09e3),
            "unreg_jorgensen_mean": _C("1.89 × 10³", 1.89e3),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("3.32 × 10³", 3.32e3, True),
            "reg_jorgensen_max": _C("4.16 × 10³", 4.16e3),
            "reg_jorgensen_mean": _C("7.55 × 10³", 7.55e3),
            "reg_non_private": _C("2.01 × 10⁻³", 2.01e-3),
        }),
        ("3.00", {
            "unreg_pdp_op": _C("3.88 × 10¹", 3.88e1, True),
            "unreg_jorgensen_max": _C("4.82 × 10¹", 4.82e1),
            "unreg_jorgensen_mean": _C("8.64 × 10¹", 8.64e1),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("3.82 × 10²", 3.82e2, True),
            "reg_jorgensen_max": _C("4.79 × 10²", 4.79e2),
            "reg_jorgensen_mean": _C("8.64 × 10²", 8.64e2),
            "reg_non_private": _C("2.11 × 10⁻³", 2.11e-3),
        }),
        ("5.00", {
            "unreg_pdp_op": _C("9.78", 9.78, True),
            "unreg_jorgensen_max": _C("1.21 × 10¹", 1.21e1),
            "unreg_jorgensen_mean": _C("2.15 × 10¹", 2.15e1),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("1.50 × 10²", 1.50e2, True),
            "reg_jorgensen_max": _C("1.89 × 10²", 1.89e2),
            "reg_jorgensen_mean": _C("3.40 × 10²", 3.40e2),
            "reg_non_private": _C("2.17 × 10⁻³", 2.17e-3),
        }),
        ("7.00", {
            "unreg_pdp_op": _C("3.81", 3.81, True),
            "unreg_jorgensen_max": _C("4.81", 4.81),
            "unreg_jorgensen_mean": _C("8.85", 8.85),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("8.36 × 10¹", 8.36e1, True),
            "reg_jorgensen_max": _C("1.05 × 10²", 1.05e2),
            "reg_jorgensen_mean": _C("1.89 × 10²", 1.89e2),
            "reg_non_private": _C("2.20 × 10⁻³", 2.20e-3),
        }),
        ("10.00", {
            "unreg_pdp_op": _C("1.49", 1.49, True),
            "unreg_jorgensen_max": _C("1.88", 1.88),
            "unreg_jorgensen_mean": _C("3.44", 3.44),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("4.58 × 10¹", 4.58e1, True),
            "reg_jorgensen_max": _C("5.75 × 10¹", 5.75e1),
            "reg_jorgensen_mean": _C("1.03 × 10²", 1.03e2),
            "reg_non_private": _C("2.24 × 10⁻³", 2.24e-3),
        }),
        ("15.00", {
            "unreg_pdp_op": _C("5.30 × 10⁻¹", 5.30e-1, True),
            "unreg_jorgensen_max": _C("6.61 × 10⁻¹", 6.61e-1),
            "unreg_jorgensen_mean": _C("1.16", 1.16),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("2.34 × 10¹", 2.34e1, True),
            "reg_jorgensen_max": _C("2.97 × 10¹", 2.97e1),
            "reg_jorgensen_mean": _C("5.33 × 10¹", 5.33e1),
            "reg_non_private": _C("2.28 × 10⁻³", 2.28e-3),
        }),
        ("20.00", {
            "unreg_pdp_op": _C("2.54 × 10⁻¹", 2.54e-1, True),
            "unreg_jorgensen_max": _C("3.12 × 10⁻¹", 3.12e-1),
            "unreg_jorgensen_mean": _C("5.64 × 10⁻¹", 5.64e-1),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("1.49 × 10¹", 1.49e1, True),
            "reg_jorgensen_max": _C("1.87 × 10¹", 1.87e1),
            "reg_jorgensen_mean": _C("3.39 × 10¹", 3.39e1),
            "reg_non_private": _C("2.31 × 10⁻³", 2.31e-3),
        }),
        ("25.00", {
            "unreg_pdp_op": _C("1.44 × 10⁻¹", 1.44e-1, True),
            "unreg_jorgensen_max": _C("1.81 × 10⁻²", 1.81e-2),
            "unreg_jorgensen_mean": _C("3.27 × 10⁻¹", 3.27e-1),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("1.07 × 10¹", 1.07e1, True),
            "reg_jorgensen_max": _C("1.31 × 10¹", 1.31e1),
            "reg_jorgensen_mean": _C("2.39 × 10¹", 2.39e1),
            "reg_non_private": _C("2.33 × 10⁻³", 2.33e-3),
        }),
        ("50.00", {
            "unreg_pdp_op": _C("2.28 × 10⁻²", 2.28e-2, True),
            "unreg_jorgensen_max": _C("2.82 × 10⁻²", 2.82e-2),
            "unreg_jorgensen_mean": _C("4.92 × 10⁻²", 4.92e-2),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("3.06", 3.06, True),
            "reg_jorgensen_max": _C("3.83", 3.83),
            "reg_jorgensen_mean": _C("6.95", 6.95),
            "reg_non_private": _C("2.37 × 10⁻³", 2.37e-3),
        }),
        ("75.00", {
            "unreg_pdp_op": _C("9.35 × 10⁻³", 9.35e-3, True),
            "unreg_jorgensen_max": _C("1.12 × 10⁻²", 1.12e-2),
            "unreg_jorgensen_mean": _C("1.81 × 10⁻²", 1.81e-2),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("1.56", 1.56, True),
            "reg_jorgensen_max": _C("1.95", 1.95),
            "reg_jorgensen_mean": _C("3.56", 3.56),
            "reg_non_private": _C("2.39 × 10⁻³", 2.39e-3),
        }),
        ("100.00", {
            "unreg_pdp_op": _C("5.82 × 10⁻³", 5.82e-3, True),
            "unreg_jorgensen_max": _C("6.61 × 10⁻³", 6.61e-3),
            "unreg_jorgensen_mean": _C("1.01 × 10⁻²", 1.01e-2),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("1.01", 1.01, True),
            "reg_jorgensen_max": _C("1.26", 1.26),
            "reg_jorgensen_mean": _C("2.28", 2.28),
            "reg_non_private": _C("2.40 × 10⁻³", 2.40e-3),
        }),
        ("200.00", {
            "unreg_pdp_op": _C("3.09 × 10⁻³", 3.09e-3, True),
            "unreg_jorgensen_max": _C("3.25 × 10⁻³", 3.25e-3),
            "unreg_jorgensen_mean": _C("3.92 × 10⁻³", 3.92e-3),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("3.97 × 10⁻¹", 3.97e-1, True),
            "reg_jorgensen_max": _C("4.97 × 10⁻¹", 4.97e-1),
            "reg_jorgensen_mean": _C("9.02 × 10⁻¹", 9.02e-1),
            "reg_non_private": _C("2.42 × 10⁻³", 2.42e-3),
        }),
        ("300.00", {
            "unreg_pdp_op": _C("2.68 × 10⁻³", 2.68e-3, True),
            "unreg_jorgensen_max": _C("2.76 × 10⁻³", 2.76e-3),
            "unreg_jorgensen_mean": _C("3.04 × 10⁻³", 3.04e-3),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("2.42 × 10⁻¹", 2.42e-1, True),
            "reg_jorgensen_max": _C("3.02 × 10⁻¹", 3.02e-1),
            "reg_jorgensen_mean": _C("5.46 × 10⁻¹", 5.46e-1),
            "reg_non_private": _C("2.42 × 10⁻³", 2.42e-3),
        }),
        ("400.00", {
            "unreg_pdp_op": _C("2.56 × 10⁻³", 2.56e-3, True),
            "unreg_jorgensen_max": _C("2.60 × 10⁻³", 2.60e-3),
            "unreg_jorgensen_mean": _C("2.76 × 10⁻³", 2.76e-3),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("1.75 × 10⁻¹", 1.75e-1, True),
            "reg_jorgensen_max": _C("2.16 × 10⁻¹", 2.16e-1),
            "reg_jorgensen_mean": _C("3.92 × 10⁻¹", 3.92e-1),
            "reg_non_private": _C("2.42 × 10⁻³", 2.42e-3),
        }),
        ("500.00", {
            "unreg_pdp_op": _C("2.51 × 10⁻³", 2.51e-3, True),
            "unreg_jorgensen_max": _C("2.54 × 10⁻³", 2.54e-3),
            "unreg_jorgensen_mean": _C("2.62 × 10⁻³", 2.62e-3),
            "unreg_non_private": _C("5.73 × 10⁻³²", 5.73e-32),
            "reg_pdp_op": _C("1.36 × 10⁻¹", 1.36e-1, True),
            "reg_jorgensen_max": _C("1.70 × 10⁻¹", 1.70e-1),
            "reg_jorgensen_mean": _C("3.06 × 10⁻¹", 3.06e-1),
            "reg_non_private": _C("2.43 × 10⁻³", 2.43e-3),
        }),
    ),
)

# Table 4: paper.tex line 528, \label{tab:insurance_4_2_1_plevel_34_43_23}
_TABLE_4 = PublishedTable(
    number=4,
    label="tab:insurance_4_2_1_plevel_34_43_23",
    tex_line=528,
    caption=(
        "Lower loss compared to Jorgensen et al. on the MedicalCost dataset, keeping ε_c = 0.01, "
        "ε_m = 0.2, ε_l=1.0, f_c = 0.34, f_m = 0.43, f_l = 0.23."
    ),
    dataset="medical_cost",
    param="lambda",
    param_label="Regularization parameter Lambda (λ)",
    statistic="mean",
    fixed={"eps_c": 0.01, "eps_m": 0.2, "eps_l": 1.0, "f_c": 0.34, "f_m": 0.43, "f_l": 0.23},
    columns=(
        "unreg_pdp_op",
        "unreg_jorgensen_max",
        "unreg_jorgensen_mean",
        "unreg_non_private",
        "reg_pdp_op",
        "reg_jorgensen_max",
        "reg_jorgensen_mean",
        "reg_non_private",
    ),
    rows=(
        ("0.01", {
            "unreg_pdp_op": _C("1.19 × 10⁵", 1.19e5, True),
            "unreg_jorgensen_max": _C("1.50 × 10⁵", 1.50e5),
            "unreg_jorgensen_mean": _C("2.87 × 10⁵", 2.87e5),
            "unreg_non_private": _C("9.43 × 10⁻³", 9.43e-3),
            "reg_pdp_op": _C("1.22 × 10⁵", 1.22e5, True),
            "reg_jorgensen_max": _C("1.52 × 10⁵", 1.52e5),
            "reg_jorgensen_mean": _C("2.93 × 10⁵", 2.93e5),
            "reg_non_private": _C("1.08 × 10⁻²", 1.08e-2),
        }),
        ("0.05", {
            "unreg_pdp_op": _C("1.03 × 10³", 1.03e3, True),
            "unreg_jorgensen_max": _C("1.26 × 10³", 1.26e3),
            "unreg_jorgensen_mean": _C("2.43 × 10³", 2.43e3),
            "unreg_non_private": _C("9.43 × 10⁻³", 9.43e-3),
            "reg_pdp_op": _C("1.16 × 10³", 1.16e3, True),
            "reg_jorgensen_max": _C("1.42 × 10³", 1.42e3),
            "reg_jorgensen_mean": _C("2.75 × 10³", 2.75e3),
            "reg_non_private": _C("1.51 × 10⁻²", 1.51e-2),
        }),
        ("0.10", {
            "unreg_pdp_op": _C("1.34 × 10²", 1.34e2, True),
            "unreg_jorgensen_max": _C("1.66 × 10²", 1.66e2),
            "unreg_jorgensen_mean": _C("3.14 × 10²", 3.14e2),
            "unreg_non_private": _C("9.43 × 10⁻³", 9.43e-3),
            "reg_pdp_op": _C("1.70 × 10²", 1.70e2, True),
            "reg_jorgensen_max": _C("2.11 × 10²", 2.11e2),
            "reg_jorgensen_mean": _C("4.00 × 10²", 4.00e2),
            "reg_non_private": _C("1.90 × 10⁻²", 1.90e-2),
        }),
        ("0.50", {
            "unreg_pdp_op": _C("1.30", 1.30, True),
            "unreg_jorgensen_max": _C("1.67", 1.67),
            "unreg_jorgensen_mean": _C("3.10", 3.10),
            "unreg_non_private": _C("9.43 × 10⁻³", 9.43e-3),
            "reg_pdp_op": _C("3.03", 3.03, True),
            "reg_jorgensen_max": _C("3.80", 3.80),
            "reg_jorgensen_mean": _C("7.19", 7.19),
            "reg_non_private": _C("3.46 × 10⁻²", 3.46e-2),
        }),
        ("0.60", {
            "unreg_pdp_op": _C("8.10 × 10⁻¹", 8.10e-1, True),
            "unreg_jorgensen_max": _C("9.89 × 10⁻¹", 9.89e-1),
            "unreg_jorgensen_mean": _C("1.85", 1.85),
            "unreg_non_private": _C("9.43 × 10⁻³", 9.43e-3),
            "reg_pdp_op": _C("2.02", 2.02, True),
            "reg_jorgensen_max": _C("2.50", 2.50),
            "reg_jorgensen_mean": _C("4.76", 4.76),
            "reg_non_private": _C("3.67 × 10⁻²", 3.67e-2),
        }),
        ("0.70", {
            "unreg_pdp_op": _C("5.29 × 10⁻¹", 5.29e-1, True),
            "unreg_jorgensen_max": _C("6.55 × 10⁻¹", 6.55e-1),
            "unreg_jorgensen_mean": _C("1.23", 1.23),
            "unreg_non_private": _C("9.43 × 10⁻³", 9.43e-3),
            "reg_pdp_op": _C("1.47", 1.47, True),
            "reg_jorgensen_max": _C("1.80", 1.80),
            "reg_jorgensen_mean": _C("3.43", 3.43),
            "reg_non_private": _C("3.86 × 10⁻²", 3.86e-2),
        }),
        ("0.80", {
            "unreg_pdp_op": _C("3.78 × 10⁻¹", 3.78e-1, True),
            "unreg_jorgensen_max": _C("4.65 × 10⁻¹", 4.65e-1),
            "unreg_jorgensen_mean": _C("8.71 × 10⁻¹", 8.71e-1),
            "unreg_non_private": _C("9.43 × 10⁻³", 9.43e-3),
            "reg_pdp_op": _C("1.11", 1.11, True),
            "reg_jorgensen_max": _C("1.39", 1.39),
            "reg_jorgensen_mean": _C("2.63", 2.63),
            "reg_non_private": _C("4.02 × 10⁻²", 4.02e-2),
        }),
        ("0.90", {
            "unreg_pdp_op": _C("2.78 × 10⁻¹", 2.78e-1, True),
            "unreg_jorgensen_max": _C("3.42 × 10⁻¹", 3.42e-1),
            "unreg_jorgensen_mean": _C("6.30 × 10⁻¹", 6.30e-1),
            "unreg_non_private": _C("9.43 × 10⁻³", 9.43e-3),
            "reg_pdp_op": _C("8.79 × 10⁻¹", 8.79e-1, True),
            "reg_jorgensen_max": _C("1.08", 1.08),
            "reg_jorgensen_mean": _C("2.03", 2.03),
            "reg_non_private": _C("4.17 × 10⁻²", 4.17e-2),
        }),
        ("1.00", {
            "unreg_pdp_op": _C("2.15 × 10⁻¹", 2.15e-1, True),
            "unreg_jorgensen_max": _C("2.61 × 10⁻¹", 2.61e-1),
            "unreg_jorgensen_mean": _C("4.76 × 10⁻¹", 4.76e-1),
            "unreg_non_private": _C("9.43 × 10⁻³", 9.43e-3),
            "reg_pdp_op": _C("7.12 × 10⁻¹", 7.12e-1, True),
            "reg_jorgensen_max": _C("8.70 × 10⁻¹", 8.70e-1),
            "reg_jorgensen_mean": _C("1.62", 1.62),
            "reg_non_private": _C("4.30 × 10⁻²", 4.30e-2),
        }),
        ("2.00", {
            "unreg_pdp_op": _C("6.80 × 10⁻²", 6.80e-2, True),
            "unreg_jorgensen_max": _C("7.53 × 10⁻²", 7.53e-2),
            "unreg_jorgensen_mean": _C("1.06 × 10⁻¹", 1.06e-1),
            "unreg_non_private": _C("9.43 × 10⁻³", 9.43e-3),
            "reg_pdp_op": _C("2.26 × 10⁻¹", 2.26e-1, True),
            "reg_jorgensen_max": _C("2.65 × 10⁻¹", 2.65e-1),
            "reg_jorgensen_mean": _C("4.59 × 10⁻¹", 4.59e-1),
            "reg_non_private": _C("5.19 × 10⁻²", 5.19e-2),
        }),
        ("3.00", {
            "unreg_pdp_op": _C("5.52 × 10⁻²", 5.52e-2, True),
            "unreg_jorgensen_max": _C("5.72 × 10⁻²", 5.72e-2),
            "unreg_jorgensen_mean": _C("6.87 × 10⁻²", 6.87e-2),
            "unreg_non_private": _C("9.43 × 10⁻³", 9.43e-3),
            "reg_pdp_op": _C("1.39 × 10⁻¹", 1.39e-1, True),
            "reg_jorgensen_max": _C("1.59 × 10⁻¹", 1.59e-1),
            "reg_jorgensen_mean": _C("2.52 × 10⁻¹", 2.52e-1),
            "reg_non_private": _C("5.69 × 10⁻²", 5.69e-2),
        }),
        ("5.00", {
            "unreg_pdp_op": _C("5.54 × 10⁻²", 5.54e-2, True),
            "unreg_jorgensen_max": _C("5.61 × 10⁻²", 5.61e-2),
            "unreg_jorgensen_mean": _C("5.89 × 10⁻²", 5.89e-2),
            "unreg_non_private": _C("9.43 × 10⁻³", 9.43e-3),
            "reg_pdp_op": _C("9.65 × 10⁻²", 9.65e-2, True),
            "reg_jorgensen_max": _C("1.05 × 10⁻¹", 1.05e-1),
            "reg_jorgensen_mean": _C("1.43 × 10⁻¹", 1.43e-1),
            "reg_non_private": _C("6.27 × 10⁻²", 6.27e-2),
        }),
    ),
)

# Table 5: paper.tex line 961, \label{tab:impact_epsc_syn_4_1_plevel_34_43_23}
_TABLE_5 = PublishedTable(
    number=5,
    label="tab:impact_epsc_syn_4_1_plevel_34_43_23",
    tex_line=961,
    caption=(
        "Lower loss compared to standard DP on the synthetic dataset, while varying ε_c (privacy "
        "level of the conservative users), keeping f_c=0.54, f_m=0.37, ε_m = 0.5 (same parameters "
        "as shown in Jorgensen et al.) and λ = 100."
    ),
    dataset="synthetic",
    param="eps_c",
    param_label="Privacy level of Conservatives (ε_c)",
    statistic="mean",
    fixed={"f_c": 0.54, "f_m": 0.37, "eps_m": 0.5, "lambda": 100.0},
    columns=(
        "unreg_pdp_op",
        "unreg_non_personalized",
        "reg_pdp_op",
        "reg_non_personalized",
    ),
    rows=(
        ("0.01", {
            "unreg_pdp_op": _C("1.44 × 10⁻²", 1.44e-2, True),
            "unreg_non_personalized": _C("3.38", 3.38),
            "reg_pdp_op": _C("1.15", 1.15, True),
            "reg_non_personalized": _C("1.05 × 10³", 1.05e3),
        }),
        ("0.05", {
            "unreg_pdp_op": _C("1.41 × 10⁻²", 1.41e-2, True),
            "unreg_non_personalized": _C("2.09 × 10⁻¹", 2.09e-1),
            "reg_pdp_op": _C("1.05", 1.05, True),
            "reg_non_personalized": _C("6.08 × 10¹", 6.08e1),
        }),
        ("0.10", {
            "unreg_pdp_op": _C("1.39 × 10⁻²", 1.39e-2, True),
            "unreg_non_personalized": _C("4.76 × 10⁻²", 4.76e-2),
            "reg_pdp_op": _C("1.00", 1.00, True),
            "reg_non_personalized": _C("1.16 × 10¹", 1.16e1),
        }),
        ("0.20", {
            "unreg_pdp_op": _C("1.41 × 10⁻²", 1.41e-2, True),
            "unreg_non_personalized": _C("3.40 × 10⁻²", 3.40e-2),
            "reg_pdp_op": _C("1.03", 1.03, True),
            "reg_non_personalized": _C("7.21", 7.21),
        }),
        ("0.30", {
            "unreg_pdp_op": _C("1.34 × 10⁻²", 1.34e-2, True),
            "unreg_non_personalized": _C("2.08 × 10⁻²", 2.08e-2),
            "reg_pdp_op": _C("8.74 × 10⁻¹", 8.74e-1, True),
            "reg_non_personalized": _C("1.20", 1.20),
        }),
        ("0.40", {
            "unreg_pdp_op": _C("1.32 × 10⁻²", 1.32e-2, True),
            "unreg_non_personalized": _C("1.65 × 10⁻²", 1.65e-2),
            "reg_pdp_op": _C("8.29 × 10⁻¹", 8.29e-1, True),
            "reg_non_personalized": _C("1.84", 1.84),
        }),
        ("0.50", {
            "unreg_pdp_op": _C("1.29 × 10⁻²", 1.29e-2, True),
            "unreg_non_personalized": _C("1.45 × 10⁻²", 1.45e-2),
            "reg_pdp_op": _C("7.26 × 10⁻¹", 7.26e-1, True),
            "reg_non_personalized": _C("1.20", 1.20),
        }),
    ),
    notes=(
        (
            "The caption states neither eps_l nor d and n; the figures of the same sweep "
            "(fig:syn_jorgensen_epsc, fig:syn_jorgensen_epsc_std) state eps_l = 1.0 and f_l = "
            "0.09."
        ),
    ),
)

# Table 6: paper.tex line 986, \label{tab:impact_epsc_insurance_4_1_plevel_34_43_23}
_TABLE_6 = PublishedTable(
    number=6,
    label="tab:impact_epsc_insurance_4_1_plevel_34_43_23",
    tex_line=986,
    caption=(
        "Lower loss compared to standard DP on the Medical cost dataset while varying ε_c "
        "(privacy level of the conservative users), keeping f_c=0.54, f_m=0.37, ε_m = 0.5 (same "
        "parameters as shown in Jorgensen et al.) and λ = 1(analogous to Table 5)"
    ),
    dataset="medical_cost",
    param="eps_c",
    param_label="Privacy level of Conservatives (ε_c)",
    statistic="mean",
    fixed={"f_c": 0.54, "f_m": 0.37, "eps_m": 0.5, "lambda": 1.0},
    columns=(
        "unreg_pdp_op",
        "unreg_non_personalized",
        "reg_pdp_op",
        "reg_non_personalized",
    ),
    rows=(
        ("0.01", {
            "unreg_pdp_op": _C("2.27 × 10⁻¹", 2.27e-1, True),
            "unreg_non_personalized": _C("2.76 × 10²", 2.76e2),
            "reg_pdp_op": _C("7.43 × 10⁻¹", 7.43e-1, True),
            "reg_non_personalized": _C("9.87 × 10²", 9.87e2),
        }),
        ("0.05", {
            "unreg_pdp_op": _C("2.28 × 10⁻¹", 2.28e-1, True),
            "unreg_non_personalized": _C("2.00 × 10¹", 2.00e1),
            "reg_pdp_op": _C("7.32 × 10⁻¹", 7.32e-1, True),
            "reg_non_personalized": _C("7.19 × 10¹", 7.19e1),
        }),
        ("0.10", {
            "unreg_pdp_op": _C("2.12 × 10⁻¹", 2.12e-1, True),
            "unreg_non_personalized": _C("5.05", 5.05),
            "reg_pdp_op": _C("6.92 × 10⁻¹", 6.92e-1, True),
            "reg_non_personalized": _C("1.80 × 10¹", 1.80e1),
        }),
        ("0.20", {
            "unreg_pdp_op": _C("1.97 × 10⁻¹", 1.97e-1, True),
            "unreg_non_personalized": _C("1.28", 1.28),
            "reg_pdp_op": _C("6.42 × 10⁻¹", 6.42e-1, True),
            "reg_non_personalized": _C("4.54", 4.54),
        }),
        ("0.30", {
            "unreg_pdp_op": _C("1.83 × 10⁻¹", 1.83e-1, True),
            "unreg_non_personalized": _C("5.84 × 10⁻¹", 5.84e-1),
            "reg_pdp_op": _C("5.75 × 10⁻¹", 5.75e-1, True),
            "reg_non_personalized": _C("2.06", 2.06),
        }),
        ("0.40", {
            "unreg_pdp_op": _C("1.66 × 10⁻¹", 1.66e-1, True),
            "unreg_non_personalized": _C("3.48 × 10⁻¹", 3.48e-1),
            "reg_pdp_op": _C("5.26 × 10⁻¹", 5.26e-1, True),
            "reg_non_personalized": _C("1.17", 1.17),
        }),
        ("0.50", {
            "unreg_pdp_op": _C("1.55 × 10⁻¹", 1.55e-1, True),
            "unreg_non_personalized": _C("2.33 × 10⁻¹", 2.33e-1),
            "reg_pdp_op": _C("4.90 × 10⁻¹", 4.90e-1, True),
            "reg_non_personalized": _C("7.61 × 10⁻¹", 7.61e-1),
        }),
    ),
    notes=(
        (
            "The caption does not state eps_l; the figures of the same sweep "
            "(fig:insurance_jorgensen_epsc, fig:insurance_jorgensen_epsc_std) state eps_l = 1.0 "
            "and f_l = 0.09."
        ),
    ),
)

# Table 7: paper.tex line 1013, \label{tab:impact_epsm_syn_4_1_plevel_34_43_23}
_TABLE_7 = PublishedTable(
    number=7,
    label="tab:impact_epsm_syn_4_1_plevel_34_43_23",
    tex_line=1013,
    caption=(
        "Lower loss compared to standard DP on the synthetic dataset, while varying ε_m (privacy "
        "level of the pragmatists), keeping f_c=0.54, f_m=0.37, ε_c = 0.01 (same parameters as "
        "shown in Jorgensen et al.) and λ = 100."
    ),
    dataset="synthetic",
    param="eps_m",
    param_label="Privacy level of pragmatists (ε_m)",
    statistic="mean",
    fixed={"f_c": 0.54, "f_m": 0.37, "eps_c": 0.01, "lambda": 100.0},
    columns=(
        "unreg_pdp_op",
        "unreg_non_personalized",
        "reg_pdp_op",
        "reg_non_personalized",
    ),
    rows=(
        ("0.05", {
            "unreg_pdp_op": _C("2.11 × 10⁻²", 2.11e-2, True),
            "unreg_non_personalized": _C("9.68", 9.68),
            "reg_pdp_op": _C("3.23", 3.23, True),
            "reg_non_personalized": _C("2.95 × 10³", 2.95e3),
        }),
        ("0.10", {
            "unreg_pdp_op": _C("1.88 × 10⁻²", 1.88e-2, True),
            "unreg_non_personalized": _C("5.76", 5.76),
            "reg_pdp_op": _C("2.55", 2.55, True),
            "reg_non_personalized": _C("1.76 × 10³", 1.76e3),
        }),
        ("0.15", {
            "unreg_pdp_op": _C("1.89 × 10⁻²", 1.89e-2, True),
            "unreg_non_personalized": _C("8.46", 8.46),
            "reg_pdp_op": _C("2.56", 2.56, True),
            "reg_non_personalized": _C("2.60 × 10³", 2.60e3),
        }),
        ("0.20", {
            "unreg_pdp_op": _C("1.79 × 10⁻²", 1.79e-2, True),
            "unreg_non_personalized": _C("4.84", 4.84),
            "reg_pdp_op": _C("2.25", 2.25, True),
            "reg_non_personalized": _C("1.49 × 10³", 1.49e3),
        }),
        ("0.25", {
            "unreg_pdp_op": _C("1.66 × 10⁻²", 1.66e-2, True),
            "unreg_non_personalized": _C("3.17", 3.17),
            "reg_pdp_op": _C("1.83", 1.83, True),
            "reg_non_personalized": _C("9.78 × 10²", 9.78e2),
        }),
        ("0.30", {
            "unreg_pdp_op": _C("1.57 × 10⁻²", 1.57e-2, True),
            "unreg_non_personalized": _C("1.48", 1.48),
            "reg_pdp_op": _C("1.53", 1.53, True),
            "reg_non_personalized": _C("4.52 × 10²", 4.52e2),
        }),
        ("0.35", {
            "unreg_pdp_op": _C("1.58 × 10⁻²", 1.58e-2, True),
            "unreg_non_personalized": _C("6.45 × 10⁻¹", 6.45e-1),
            "reg_pdp_op": _C("1.61", 1.61, True),
            "reg_non_personalized": _C("1.97 × 10²", 1.97e2),
        }),
        ("0.40", {
            "unreg_pdp_op": _C("1.48 × 10⁻²", 1.48e-2, True),
            "unreg_non_personalized": _C("2.44", 2.44),
            "reg_pdp_op": _C("1.33", 1.33, True),
            "reg_non_personalized": _C("7.56 × 10²", 7.56e2),
        }),
        ("0.45", {
            "unreg_pdp_op": _C("1.47 × 10⁻²", 1.47e-2, True),
            "unreg_non_personalized": _C("3.21", 3.21),
            "reg_pdp_op": _C("1.25", 1.25, True),
            "reg_non_personalized": _C("9.86 × 10²", 9.86e2),
        }),
        ("0.50", {
            "unreg_pdp_op": _C("1.44 × 10⁻²", 1.44e-2, True),
            "unreg_non_personalized": _C("3.38", 3.38),
            "reg_pdp_op": _C("1.15", 1.15, True),
            "reg_non_personalized": _C("1.05 × 10³", 1.05e3),
        }),
    ),
    notes=(
        (
            "The caption states neither eps_l nor d and n; the figures of the same sweep "
            "(fig:syn_jorgensen_epsm, fig:syn_jorgensen_epsm_std) state eps_l = 1.0 and f_l = "
            "0.09."
        ),
    ),
)

# Table 8: paper.tex line 1041, \label{tab:impact_epsm_insurance_4_1_plevel_34_43_23}
_TABLE_8 = PublishedTable(
    number=8,
    label="tab:impact_epsm_insurance_4_1_plevel_34_43_23",
    tex_line=1041,
    caption=(
        "Lower loss compared to standard DP on the Medical cost dataset, while varying ε_m "
        "(privacy level of the pragmatists), keeping f_c=0.54, f_m=0.37, ε_c = 0.01 (same "
        "parameters as shown in Jorgensen et al.) and λ = 1. (analogous to Table 7)"
    ),
    dataset="medical_cost",
    param="eps_m",
    param_label="Privacy level of Conservatives (ε_m)",
    statistic="mean",
    fixed={"f_c": 0.54, "f_m": 0.37, "eps_c": 0.01, "lambda": 1.0},
    columns=(
        "unreg_pdp_op",
        "unreg_non_personalized",
        "reg_pdp_op",
        "reg_non_personalized",
    ),
    rows=(
        ("0.05", {
            "unreg_pdp_op": _C("5.66 × 10⁻¹", 5.66e-1, True),
            "unreg_non_personalized": _C("4.99 × 10²", 4.99e2),
            "reg_pdp_op": _C("1.94", 1.94, True),
            "reg_non_personalized": _C("1.75 × 10³", 1.75e3),
        }),
        ("0.10", {
            "unreg_pdp_op": _C("5.18 × 10⁻¹", 5.18e-1, True),
            "unreg_non_personalized": _C("4.99 × 10²", 4.99e2),
            "reg_pdp_op": _C("1.76", 1.76, True),
            "reg_non_personalized": _C("1.78 × 10³", 1.78e3),
        }),
        ("0.15", {
            "unreg_pdp_op": _C("4.50 × 10⁻¹", 4.50e-1, True),
            "unreg_non_personalized": _C("5.02 × 10²", 5.02e2),
            "reg_pdp_op": _C("1.55", 1.55, True),
            "reg_non_personalized": _C("1.76 × 10³", 1.76e3),
        }),
        ("0.20", {
            "unreg_pdp_op": _C("4.00 × 10⁻¹", 4.00e-1, True),
            "unreg_non_personalized": _C("4.81 × 10²", 4.81e2),
            "reg_pdp_op": _C("1.38", 1.38, True),
            "reg_non_personalized": _C("1.71 × 10³", 1.71e3),
        }),
        ("0.25", {
            "unreg_pdp_op": _C("3.60 × 10⁻¹", 3.60e-1, True),
            "unreg_non_personalized": _C("4.80 × 10²", 4.80e2),
            "reg_pdp_op": _C("1.22", 1.22, True),
            "reg_non_personalized": _C("1.70 × 10³", 1.70e3),
        }),
        ("0.30", {
            "unreg_pdp_op": _C("3.27 × 10⁻¹", 3.27e-1, True),
            "unreg_non_personalized": _C("3.94 × 10²", 3.94e2),
            "reg_pdp_op": _C("1.10", 1.10, True),
            "reg_non_personalized": _C("1.43 × 10³", 1.43e3),
        }),
        ("0.35", {
            "unreg_pdp_op": _C("2.85 × 10⁻¹", 2.85e-1, True),
            "unreg_non_personalized": _C("4.82 × 10²", 4.82e2),
            "reg_pdp_op": _C("9.75 × 10⁻¹", 9.75e-1, True),
            "reg_non_personalized": _C("1.75 × 10³", 1.75e3),
        }),
        ("0.40", {
            "unreg_pdp_op": _C("2.69 × 10⁻¹", 2.69e-1, True),
            "unreg_non_personalized": _C("4.83 × 10²", 4.83e2),
            "reg_pdp_op": _C("9.05 × 10⁻¹", 9.05e-1, True),
            "reg_non_personalized": _C("1.71 × 10³", 1.71e3),
        }),
        ("0.45", {
            "unreg_pdp_op": _C("2.53 × 10⁻¹", 2.53e-1, True),
            "unreg_non_personalized": _C("4.36 × 10²", 4.36e2),
            "reg_pdp_op": _C("8.28 × 10⁻¹", 8.28e-1, True),
            "reg_non_personalized": _C("1.61 × 10³", 1.61e3),
        }),
        ("0.50", {
            "unreg_pdp_op": _C("2.27 × 10⁻¹", 2.27e-1, True),
            "unreg_non_personalized": _C("2.76 × 10²", 2.76e2),
            "reg_pdp_op": _C("7.43 × 10⁻¹", 7.43e-1, True),
            "reg_non_personalized": _C("9.87 × 10²", 9.87e2),
        }),
    ),
    notes=(
        (
            "The first column is headed 'Privacy level of Conservatives (eps_m)', but eps_m is "
            "the pragmatists' level (the caption and Table 7 say so)."
        ),
        (
            "The caption does not state eps_l; the figures of the same sweep "
            "(fig:insurance_jorgensen_epsm, fig:insurance_jorgensen_epsm_std) state eps_l = 1.0 "
            "and f_l = 0.09."
        ),
    ),
)

# Table 9: paper.tex line 1071, \label{tab:impact_fc_syn_4_1_plevel_34_43_23}
_TABLE_9 = PublishedTable(
    number=9,
    label="tab:impact_fc_syn_4_1_plevel_34_43_23",
    tex_line=1071,
    caption=(
        "Lower loss compared to standard DP on the synthetic dataset, while varying f_c (fraction "
        "of conservative users) for f_m=0.37, f_l = 1 - f_c - f_m, ε_c=0.01, ε_m=0.2, ε_l=1.0, λ "
        "= 100"
    ),
    dataset="synthetic",
    param="f_c",
    param_label="Fraction of Conservative Users (f_c)",
    statistic="mean",
    fixed={"f_m": 0.37, "eps_c": 0.01, "eps_m": 0.2, "eps_l": 1.0, "lambda": 100.0},
    columns=(
        "unreg_pdp_op",
        "unreg_non_personalized",
        "reg_pdp_op",
        "reg_non_personalized",
    ),
    rows=(
        ("0.1", {
            "unreg_pdp_op": _C("9.02 × 10⁻³", 9.02e-3, True),
            "unreg_non_personalized": _C("7.87 × 10⁻¹", 7.87e-1),
            "reg_pdp_op": _C("4.91 × 10⁻¹", 4.91e-1, True),
            "reg_non_personalized": _C("2.43 × 10²", 2.43e2),
        }),
        ("0.2", {
            "unreg_pdp_op": _C("9.41 × 10⁻³", 9.41e-3, True),
            "unreg_non_personalized": _C("3.80 × 10⁻¹", 3.80e-1),
            "reg_pdp_op": _C("6.51 × 10⁻¹", 6.51e-1, True),
            "reg_non_personalized": _C("1.14 × 10²", 1.14e2),
        }),
        ("0.3", {
            "unreg_pdp_op": _C("1.02 × 10⁻²", 1.02e-2, True),
            "unreg_non_personalized": _C("4.56", 4.56),
            "reg_pdp_op": _C("8.76 × 10⁻¹", 8.76e-1, True),
            "reg_non_personalized": _C("1.41 × 10³", 1.41e3),
        }),
        ("0.4", {
            "unreg_pdp_op": _C("1.14 × 10⁻²", 1.14e-2, True),
            "unreg_non_personalized": _C("3.82", 3.82),
            "reg_pdp_op": _C("1.27", 1.27, True),
            "reg_non_personalized": _C("1.17 × 10³", 1.17e3),
        }),
        ("0.5", {
            "unreg_pdp_op": _C("1.30 × 10⁻²", 1.30e-2, True),
            "unreg_non_personalized": _C("7.00", 7.00),
            "reg_pdp_op": _C("1.75", 1.75, True),
            "reg_non_personalized": _C("2.14 × 10³", 2.14e3),
        }),
        ("0.6", {
            "unreg_pdp_op": _C("1.69 × 10⁻²", 1.69e-2, True),
            "unreg_non_personalized": _C("9.59", 9.59),
            "reg_pdp_op": _C("2.92", 2.92, True),
            "reg_non_personalized": _C("2.90 × 10³", 2.90e3),
        }),
    ),
    notes=(
        "f_l = 1 - f_c - f_m varies with the row.",
    ),
)

# Table 10: paper.tex line 1095, \label{tab:impact_fc_insurance_4_1_plevel_34_43_23}
_TABLE_10 = PublishedTable(
    number=10,
    label="tab:impact_fc_insurance_4_1_plevel_34_43_23",
    tex_line=1095,
    caption=(
        "Lower loss compared to standard DP on the Medical cost dataset, while varying "
        "f_c(fraction of conservative users) f_m = 0.37, f_l = 1 - f_c - f_m, ε_c = 0.01, ε_m = "
        "0.2, ε_l = 1.0, λ = 1."
    ),
    dataset="medical_cost",
    param="f_c",
    param_label="Fraction of Conservative Users (f_c)",
    statistic="mean",
    fixed={"f_m": 0.37, "eps_c": 0.01, "eps_m": 0.2, "eps_l": 1.0, "lambda": 1.0},
    columns=(
        "unreg_pdp_op",
        "unreg_non_personalized",
        "reg_pdp_op",
        "reg_non_personalized",
    ),
    rows=(
        ("0.1", {
            "unreg_pdp_op": _C("1.17 × 10⁻¹", 1.17e-1, True),
            "unreg_non_personalized": _C("4.95 × 10²", 4.95e2),
            "reg_pdp_op": _C("3.47 × 10⁻¹", 3.47e-1, True),
            "reg_non_personalized": _C("1.77 × 10³", 1.77e3),
        }),
        ("0.2", {
            "unreg_pdp_op": _C("1.45 × 10⁻¹", 1.45e-1, True),
            "unreg_non_personalized": _C("4.89 × 10²", 4.89e2),
            "reg_pdp_op": _C("4.46 × 10⁻¹", 4.46e-1, True),
            "reg_non_personalized": _C("1.74 × 10³", 1.74e3),
        }),
        ("0.3", {
            "unreg_pdp_op": _C("1.82 × 10⁻¹", 1.82e-1, True),
            "unreg_non_personalized": _C("5.00 × 10²", 5.00e2),
            "reg_pdp_op": _C("5.78 × 10⁻¹", 5.78e-1, True),
            "reg_non_personalized": _C("1.79 × 10³", 1.79e3),
        }),
        ("0.4", {
            "unreg_pdp_op": _C("2.35 × 10⁻¹", 2.35e-1, True),
            "unreg_non_personalized": _C("4.80 × 10²", 4.80e2),
            "reg_pdp_op": _C("7.71 × 10⁻¹", 7.71e-1, True),
            "reg_non_personalized": _C("1.73 × 10³", 1.73e3),
        }),
        ("0.5", {
            "unreg_pdp_op": _C("3.45 × 10⁻¹", 3.45e-1, True),
            "unreg_non_personalized": _C("4.93 × 10²", 4.93e2),
            "reg_pdp_op": _C("1.16", 1.16, True),
            "reg_non_personalized": _C("1.80 × 10³", 1.80e3),
        }),
        ("0.6", {
            "unreg_pdp_op": _C("5.61 × 10⁻¹", 5.61e-1, True),
            "unreg_non_personalized": _C("4.19 × 10²", 4.19e2),
            "reg_pdp_op": _C("1.92", 1.92, True),
            "reg_non_personalized": _C("1.51 × 10³", 1.51e3),
        }),
    ),
    notes=(
        "f_l = 1 - f_c - f_m varies with the row.",
    ),
)

# Table 11: paper.tex line 1121, \label{tab:impact_n_syn_4_1_plevel_34_43_23}
_TABLE_11 = PublishedTable(
    number=11,
    label="tab:impact_n_syn_4_1_plevel_34_43_23",
    tex_line=1121,
    caption=(
        "Lower loss compared to standard DP on the synthetic dataset, while varying the fraction "
        "of the training set samples we use. For example, here n = 0.3 means that we use a 0.3 "
        "fraction of the training set. We fix f_c = 0.34, f_m = 0.43, f_l = 0.23, ε_c = 0.01, ε_m "
        "= 0.2, ε_l = 1.0 and λ = 100."
    ),
    dataset="synthetic",
    param="training_fraction",
    param_label="Fraction of training samples (n)",
    statistic="mean",
    fixed={
        "f_c": 0.34,
        "f_m": 0.43,
        "f_l": 0.23,
        "eps_c": 0.01,
        "eps_m": 0.2,
        "eps_l": 1.0,
        "lambda": 100.0,
    },
    columns=(
        "unreg_pdp_op",
        "unreg_non_personalized",
        "reg_pdp_op",
        "reg_non_personalized",
    ),
    rows=(
        ("0.1", {
            "unreg_pdp_op": _C("4.28 × 10⁻¹", 4.28e-1, True),
            "unreg_non_personalized": _C("1.22 × 10¹", 1.22e1),
            "reg_pdp_op": _C("1.32 × 10²", 1.32e2, True),
            "reg_non_personalized": _C("3.73 × 10³", 3.73e3),
        }),
        ("0.2", {
            "unreg_pdp_op": _C("1.41 × 10⁻¹", 1.41e-1, True),
            "unreg_non_personalized": _C("1.15 × 10²", 1.15e2),
            "reg_pdp_op": _C("4.02 × 10¹", 4.02e1, True),
            "reg_non_personalized": _C("3.45 × 10⁴", 3.45e4),
        }),
        ("0.3", {
            "unreg_pdp_op": _C("5.01 × 10⁻²", 5.01e-2, True),
            "unreg_non_personalized": _C("8.97", 8.97),
            "reg_pdp_op": _C("1.46 × 10¹", 1.46e1, True),
            "reg_non_personalized": _C("2.89 × 10³", 2.89e3),
        }),
        ("0.4", {
            "unreg_pdp_op": _C("4.64 × 10⁻²", 4.64e-2, True),
            "unreg_non_personalized": _C("2.37", 2.37),
            "reg_pdp_op": _C("1.27 × 10¹", 1.27e1, True),
            "reg_non_personalized": _C("7.24 × 10²", 7.24e2),
        }),
        ("0.5", {
            "unreg_pdp_op": _C("3.49 × 10⁻²", 3.49e-2, True),
            "unreg_non_personalized": _C("2.14 × 10¹", 2.14e1),
            "reg_pdp_op": _C("8.11", 8.11, True),
            "reg_non_personalized": _C("6.61 × 10³", 6.61e3),
        }),
        ("0.6", {
            "unreg_pdp_op": _C("2.12 × 10⁻²", 2.12e-2, True),
            "unreg_non_personalized": _C("1.59 × 10¹", 1.59e1),
            "reg_pdp_op": _C("5.16", 5.16, True),
            "reg_non_personalized": _C("5.06 × 10³", 5.06e3),
        }),
        ("0.7", {
            "unreg_pdp_op": _C("2.00 × 10⁻²", 2.00e-2, True),
            "unreg_non_personalized": _C("7.97", 7.97),
            "reg_pdp_op": _C("4.66", 4.66, True),
            "reg_non_personalized": _C("2.52 × 10³", 2.52e3),
        }),
        ("0.8", {
            "unreg_pdp_op": _C("1.64 × 10⁻²", 1.64e-2, True),
            "unreg_non_personalized": _C("1.03 × 10¹", 1.03e1),
            "reg_pdp_op": _C("3.36", 3.36, True),
            "reg_non_personalized": _C("2.95 × 10³", 2.95e3),
        }),
        ("0.9", {
            "unreg_pdp_op": _C("1.10 × 10⁻²", 1.10e-2, True),
            "unreg_non_personalized": _C("6.36", 6.36),
            "reg_pdp_op": _C("2.52", 2.52, True),
            "reg_non_personalized": _C("1.93 × 10³", 1.93e3),
        }),
        ("1.0", {
            "unreg_pdp_op": _C("1.01 × 10⁻²", 1.01e-2, True),
            "unreg_non_personalized": _C("1.98", 1.98),
            "reg_pdp_op": _C("2.16", 2.16, True),
            "reg_non_personalized": _C("6.17 × 10²", 6.17e2),
        }),
    ),
    notes=(
        (
            "The first column, headed (n), is the fraction of the training set used, not a number "
            "of points."
        ),
    ),
)

# Table 12: paper.tex line 1149, \label{tab:impact_n_insurance_4_1_plevel_34_43_23}
_TABLE_12 = PublishedTable(
    number=12,
    label="tab:impact_n_insurance_4_1_plevel_34_43_23",
    tex_line=1149,
    caption=(
        "Lower loss compared to standard DP on the Medical cost dataset, while varying the number "
        "of samples we use. For example, here n=0.3 means that we use a 0.3 fraction of the "
        "training set. We fix f_c = 0.34, f_m = 0.43, f_l = 0.23, ε_c = 0.01, ε_m = 0.2, ε_l = "
        "1.0 and λ = 1."
    ),
    dataset="medical_cost",
    param="training_fraction",
    param_label="Fraction of training samples (n)",
    statistic="mean",
    fixed={
        "f_c": 0.34,
        "f_m": 0.43,
        "f_l": 0.23,
        "eps_c": 0.01,
        "eps_m": 0.2,
        "eps_l": 1.0,
        "lambda": 1.0,
    },
    columns=(
        "unreg_pdp_op",
        "unreg_non_personalized",
        "reg_pdp_op",
        "reg_non_personalized",
    ),
    rows=(
        ("0.1", {
            "unreg_pdp_op": _C("1.83 × 10¹", 1.83e1, True),
            "unreg_non_personalized": _C("1.45 × 10⁴", 1.45e4),
            "reg_pdp_op": _C("6.64 × 10¹", 6.64e1, True),
            "reg_non_personalized": _C("5.21 × 10⁴", 5.21e4),
        }),
        ("0.2", {
            "unreg_pdp_op": _C("4.63", 4.63, True),
            "unreg_non_personalized": _C("6.62 × 10³", 6.62e3),
            "reg_pdp_op": _C("1.65 × 10¹", 1.65e1, True),
            "reg_non_personalized": _C("2.37 × 10⁴", 2.37e4),
        }),
        ("0.3", {
            "unreg_pdp_op": _C("2.05", 2.05, True),
            "unreg_non_personalized": _C("5.23 × 10³", 5.23e3),
            "reg_pdp_op": _C("7.29", 7.29, True),
            "reg_non_personalized": _C("1.85 × 10⁴", 1.85e4),
        }),
        ("0.4", {
            "unreg_pdp_op": _C("1.21", 1.21, True),
            "unreg_non_personalized": _C("1.60 × 10³", 1.60e3),
            "reg_pdp_op": _C("4.28", 4.28, True),
            "reg_non_personalized": _C("5.77 × 10³", 5.77e3),
        }),
        ("0.5", {
            "unreg_pdp_op": _C("7.85 × 10⁻¹", 7.85e-1, True),
            "unreg_non_personalized": _C("1.96 × 10³", 1.96e3),
            "reg_pdp_op": _C("2.75", 2.75, True),
            "reg_non_personalized": _C("6.98 × 10³", 6.98e3),
        }),
        ("0.6", {
            "unreg_pdp_op": _C("5.40 × 10⁻¹", 5.40e-1, True),
            "unreg_non_personalized": _C("1.36 × 10³", 1.36e3),
            "reg_pdp_op": _C("1.84", 1.84, True),
            "reg_non_personalized": _C("4.91 × 10³", 4.91e3),
        }),
        ("0.7", {
            "unreg_pdp_op": _C("4.02 × 10⁻¹", 4.02e-1, True),
            "unreg_non_personalized": _C("9.64 × 10²", 9.64e2),
            "reg_pdp_op": _C("1.38", 1.38, True),
            "reg_non_personalized": _C("3.47 × 10³", 3.47e3),
        }),
        ("0.8", {
            "unreg_pdp_op": _C("3.16 × 10⁻¹", 3.16e-1, True),
            "unreg_non_personalized": _C("7.26 × 10²", 7.26e2),
            "reg_pdp_op": _C("1.06", 1.06, True),
            "reg_non_personalized": _C("2.60 × 10³", 2.60e3),
        }),
        ("0.9", {
            "unreg_pdp_op": _C("2.53 × 10⁻¹", 2.53e-1, True),
            "unreg_non_personalized": _C("6.15 × 10²", 6.15e2),
            "reg_pdp_op": _C("8.56 × 10⁻¹", 8.56e-1, True),
            "reg_non_personalized": _C("2.24 × 10³", 2.24e3),
        }),
        ("1.0", {
            "unreg_pdp_op": _C("2.14 × 10⁻¹", 2.14e-1, True),
            "unreg_non_personalized": _C("3.82 × 10²", 3.82e2),
            "reg_pdp_op": _C("6.99 × 10⁻¹", 6.99e-1, True),
            "reg_non_personalized": _C("1.36 × 10³", 1.36e3),
        }),
    ),
    notes=(
        (
            "The first column, headed (n), is the fraction of the training set used, not a number "
            "of points."
        ),
    ),
)

# Table 13: paper.tex line 1361, \label{tab:stddev_syn_4_2_2_plevel_34_43_23}
_TABLE_13 = PublishedTable(
    number=13,
    label="tab:stddev_syn_4_2_2_plevel_34_43_23",
    tex_line=1361,
    caption=(
        "Improvements in variability of the test loss: Standard deviation of our algorithm is "
        "always lower, results on synthetic dataset with d = 30, n = 100), while varying the "
        "regularization parameter λ, keeping ε_c=0.01, ε_m = 0.2, ε_l=1.0, f_c = 0.34, f_m = "
        "0.43."
    ),
    dataset="synthetic",
    param="lambda",
    param_label="Regularization parameter Lambda (λ)",
    statistic="std",
    fixed={"d": 30, "n": 100, "eps_c": 0.01, "eps_m": 0.2, "eps_l": 1.0, "f_c": 0.34, "f_m": 0.43},
    columns=(
        "unreg_pdp_op",
        "unreg_jorgensen_max",
        "unreg_jorgensen_mean",
        "reg_pdp_op",
        "reg_jorgensen_max",
        "reg_jorgensen_mean",
    ),
    rows=(
        ("1.00", {
            "unreg_pdp_op": _C("9.69 × 10²", 9.69e2, True),
            "unreg_jorgensen_max": _C("1.34 × 10³", 1.34e3),
            "unreg_jorgensen_mean": _C("2.19 × 10³", 2.19e3),
            "reg_pdp_op": _C("1.53 × 10³", 1.53e3, True),
            "reg_jorgensen_max": _C("2.01 × 10³", 2.01e3),
            "reg_jorgensen_mean": _C("3.47 × 10³", 3.47e3),
        }),
        ("3.00", {
            "unreg_pdp_op": _C("4.33 × 10¹", 4.33e1, True),
            "unreg_jorgensen_max": _C("5.63 × 10¹", 5.63e1),
            "unreg_jorgensen_mean": _C("9.98 × 10¹", 9.98e1),
            "reg_pdp_op": _C("1.45 × 10²", 1.45e2, True),
            "reg_jorgensen_max": _C("1.99 × 10²", 1.99e2),
            "reg_jorgensen_mean": _C("3.39 × 10²", 3.39e2),
        }),
        ("5.00", {
            "unreg_pdp_op": _C("1.13 × 10¹", 1.13e1, True),
            "unreg_jorgensen_max": _C("1.41 × 10¹", 1.41e1),
            "unreg_jorgensen_mean": _C("2.52 × 10¹", 2.52e1),
            "reg_pdp_op": _C("5.65 × 10¹", 5.65e1, True),
            "reg_jorgensen_max": _C("7.69 × 10¹", 7.69e1),
            "reg_jorgensen_mean": _C("1.30 × 10²", 1.30e2),
        }),
        ("7.00", {
            "unreg_pdp_op": _C("4.43", 4.43, True),
            "unreg_jorgensen_max": _C("5.50", 5.50),
            "unreg_jorgensen_mean": _C("1.02 × 10¹", 1.02e1),
            "reg_pdp_op": _C("3.15 × 10¹", 3.15e1, True),
            "reg_jorgensen_max": _C("4.20 × 10¹", 4.20e1),
            "reg_jorgensen_mean": _C("7.14 × 10¹", 7.14e1),
        }),
        ("10.00", {
            "unreg_pdp_op": _C("1.74", 1.74, True),
            "unreg_jorgensen_max": _C("2.18", 2.18),
            "unreg_jorgensen_mean": _C("4.09", 4.09),
            "reg_pdp_op": _C("1.72 × 10¹", 1.72e1, True),
            "reg_jorgensen_max": _C("2.32 × 10¹", 2.32e1),
            "reg_jorgensen_mean": _C("3.98 × 10¹", 3.98e1),
        }),
        ("15.00", {
            "unreg_pdp_op": _C("6.14 × 10⁻¹", 6.14e-1, True),
            "unreg_jorgensen_max": _C("7.69 × 10⁻¹", 7.69e-1),
            "unreg_jorgensen_mean": _C("1.30", 1.30),
            "reg_pdp_op": _C("8.73", 8.73, True),
            "reg_jorgensen_max": _C("1.20 × 10¹", 1.20e1),
            "reg_jorgensen_mean": _C("2.03 × 10¹", 2.03e1),
        }),
        ("20.00", {
            "unreg_pdp_op": _C("2.88 × 10⁻¹", 2.88e-1, True),
            "unreg_jorgensen_max": _C("3.66 × 10⁻¹", 3.66e-1),
            "unreg_jorgensen_mean": _C("6.44 × 10⁻¹", 6.44e-1),
            "reg_pdp_op": _C("5.52", 5.52, True),
            "reg_jorgensen_max": _C("7.43", 7.43),
            "reg_jorgensen_mean": _C("1.29 × 10¹", 1.29e1),
        }),
        ("25.00", {
            "unreg_pdp_op": _C("1.59 × 10⁻¹", 1.59e-1, True),
            "unreg_jorgensen_max": _C("2.15 × 10⁻¹", 2.15e-1),
            "unreg_jorgensen_mean": _C("3.79 × 10⁻¹", 3.79e-1),
            "reg_pdp_op": _C("3.91", 3.91, True),
            "reg_jorgensen_max": _C("5.22", 5.22),
            "reg_jorgensen_mean": _C("9.15", 9.15),
        }),
        ("50.00", {
            "unreg_pdp_op": _C("2.37 × 10⁻²", 2.37e-2, True),
            "unreg_jorgensen_max": _C("3.10 × 10⁻²", 3.10e-2),
            "unreg_jorgensen_mean": _C("5.50 × 10⁻²", 5.50e-2),
            "reg_pdp_op": _C("1.13", 1.13, True),
            "reg_jorgensen_max": _C("1.53", 1.53),
            "reg_jorgensen_mean": _C("2.62", 2.62),
        }),
        ("75.00", {
            "unreg_pdp_op": _C("8.54 × 10⁻³", 8.54e-3, True),
            "unreg_jorgensen_max": _C("1.11 × 10⁻²", 1.11e-2),
            "unreg_jorgensen_mean": _C("1.88 × 10⁻²", 1.88e-2),
            "reg_pdp_op": _C("5.73 × 10⁻¹", 5.73e-1, True),
            "reg_jorgensen_max": _C("7.85 × 10⁻¹", 7.85e-1),
            "reg_jorgensen_mean": _C("1.34", 1.34),
        }),
        ("100.00", {
            "unreg_pdp_op": _C("4.70 × 10⁻³", 4.70e-3, True),
            "unreg_jorgensen_max": _C("5.64 × 10⁻³", 5.64e-3),
            "unreg_jorgensen_mean": _C("9.85 × 10⁻³", 9.85e-3),
            "reg_pdp_op": _C("3.72 × 10⁻¹", 3.72e-1, True),
            "reg_jorgensen_max": _C("5.08 × 10⁻¹", 5.08e-1),
            "reg_jorgensen_mean": _C("8.75 × 10⁻¹", 8.75e-1),
        }),
        ("200.00", {
            "unreg_pdp_op": _C("1.33 × 10⁻³", 1.33e-3, True),
            "unreg_jorgensen_max": _C("1.56 × 10⁻³", 1.56e-3),
            "unreg_jorgensen_mean": _C("2.40 × 10⁻³", 2.40e-3),
            "reg_pdp_op": _C("1.45 × 10⁻¹", 1.45e-1, True),
            "reg_jorgensen_max": _C("1.99 × 10⁻¹", 1.99e-1),
            "reg_jorgensen_mean": _C("3.41 × 10⁻¹", 3.41e-1),
        }),
        ("300.00", {
            "unreg_pdp_op": _C("7.59 × 10⁻⁴", 7.59e-4, True),
            "unreg_jorgensen_max": _C("8.62 × 10⁻⁴", 8.62e-4),
            "unreg_jorgensen_mean": _C("1.26 × 10⁻³", 1.26e-3),
            "reg_pdp_op": _C("8.77 × 10⁻²", 8.77e-2, True),
            "reg_jorgensen_max": _C("1.21 × 10⁻¹", 1.21e-1),
            "reg_jorgensen_mean": _C("2.07 × 10⁻¹", 2.07e-1),
        }),
        ("400.00", {
            "unreg_pdp_op": _C("5.41 × 10⁻⁴", 5.41e-4, True),
            "unreg_jorgensen_max": _C("6.14 × 10⁻⁴", 6.14e-4),
            "unreg_jorgensen_mean": _C("8.72 × 10⁻⁴", 8.72e-4),
            "reg_pdp_op": _C("6.38 × 10⁻²", 6.38e-2, True),
            "reg_jorgensen_max": _C("8.48 × 10⁻²", 8.48e-2),
            "reg_jorgensen_mean": _C("1.48 × 10⁻¹", 1.48e-1),
        }),
        ("500.00", {
            "unreg_pdp_op": _C("4.23 × 10⁻⁴", 4.23e-4, True),
            "unreg_jorgensen_max": _C("4.79 × 10⁻⁴", 4.79e-4),
            "unreg_jorgensen_mean": _C("6.45 × 10⁻⁴", 6.45e-4),
            "reg_pdp_op": _C("4.92 × 10⁻²", 4.92e-2, True),
            "reg_jorgensen_max": _C("6.74 × 10⁻²", 6.74e-2),
            "reg_jorgensen_mean": _C("1.16 × 10⁻¹", 1.16e-1),
        }),
    ),
    notes=(
        "The caption does not state f_l (1 - f_c - f_m = 0.23).",
    ),
)

# Table 14: paper.tex line 1396, \label{tab:insurance_4_2_2_plevel_34_43_23}
_TABLE_14 = PublishedTable(
    number=14,
    label="tab:insurance_4_2_2_plevel_34_43_23",
    tex_line=1396,
    caption=(
        "Improvements in variability of the test loss: Standard deviation of our algorithm is "
        "always lower, results on Medical cost dataset, while varying the regularization "
        "parameter λ, keeping ε_c=0.01, ε_m = 0.2, ε_l=1.0, f_c = 0.34, f_m = 0.43."
    ),
    dataset="medical_cost",
    param="lambda",
    param_label="Regularization parameter Lambda (λ)",
    statistic="std",
    fixed={"eps_c": 0.01, "eps_m": 0.2, "eps_l": 1.0, "f_c": 0.34, "f_m": 0.43},
    columns=(
        "unreg_pdp_op",
        "unreg_jorgensen_max",
        "unreg_jorgensen_mean",
        "reg_pdp_op",
        "reg_jorgensen_max",
        "reg_jorgensen_mean",
    ),
    rows=(
        ("0.01", {
            "unreg_pdp_op": _C("1.25 × 10⁵", 1.25e5, True),
            "unreg_jorgensen_max": _C("1.58 × 10⁵", 1.58e5),
            "unreg_jorgensen_mean": _C("3.12 × 10⁵", 3.12e5),
            "reg_pdp_op": _C("1.25 × 10⁵", 1.25e5, True),
            "reg_jorgensen_max": _C("1.56 × 10⁵", 1.56e5),
            "reg_jorgensen_mean": _C("3.01 × 10⁵", 3.01e5),
        }),
        ("0.05", {
            "unreg_pdp_op": _C("1.08 × 10³", 1.08e3, True),
            "unreg_jorgensen_max": _C("1.32 × 10³", 1.32e3),
            "unreg_jorgensen_mean": _C("2.60 × 10³", 2.60e3),
            "reg_pdp_op": _C("1.13 × 10³", 1.13e3, True),
            "reg_jorgensen_max": _C("1.37 × 10³", 1.37e3),
            "reg_jorgensen_mean": _C("2.76 × 10³", 2.76e3),
        }),
        ("0.10", {
            "unreg_pdp_op": _C("1.38 × 10²", 1.38e2, True),
            "unreg_jorgensen_max": _C("1.75 × 10²", 1.75e2),
            "unreg_jorgensen_mean": _C("3.28 × 10²", 3.28e2),
            "reg_pdp_op": _C("1.54 × 10²", 1.54e2, True),
            "reg_jorgensen_max": _C("1.96 × 10²", 1.96e2),
            "reg_jorgensen_mean": _C("3.75 × 10²", 3.75e2),
        }),
        ("0.50", {
            "unreg_pdp_op": _C("1.35", 1.35, True),
            "unreg_jorgensen_max": _C("1.78", 1.78),
            "unreg_jorgensen_mean": _C("3.26", 3.26),
            "reg_pdp_op": _C("2.10", 2.10, True),
            "reg_jorgensen_max": _C("2.73", 2.73),
            "reg_jorgensen_mean": _C("4.99", 4.99),
        }),
        ("0.60", {
            "unreg_pdp_op": _C("8.33 × 10⁻¹", 8.33e-1, True),
            "unreg_jorgensen_max": _C("1.02", 1.02),
            "unreg_jorgensen_mean": _C("1.96", 1.96),
            "reg_pdp_op": _C("1.36", 1.36, True),
            "reg_jorgensen_max": _C("1.63", 1.63),
            "reg_jorgensen_mean": _C("3.21", 3.21),
        }),
        ("0.70", {
            "unreg_pdp_op": _C("5.31 × 10⁻¹", 5.31e-1, True),
            "unreg_jorgensen_max": _C("6.89 × 10⁻¹", 6.89e-1),
            "unreg_jorgensen_mean": _C("1.26", 1.26),
            "reg_pdp_op": _C("9.54 × 10⁻¹", 9.54e-1, True),
            "reg_jorgensen_max": _C("1.16", 1.16),
            "reg_jorgensen_mean": _C("2.25", 2.25),
        }),
        ("0.80", {
            "unreg_pdp_op": _C("3.64 × 10⁻¹", 3.64e-1, True),
            "unreg_jorgensen_max": _C("4.66 × 10⁻¹", 4.66e-1),
            "unreg_jorgensen_mean": _C("8.96 × 10⁻¹", 8.96e-1),
            "reg_pdp_op": _C("6.93 × 10⁻¹", 6.93e-1, True),
            "reg_jorgensen_max": _C("9.05 × 10⁻¹", 9.05e-1),
            "reg_jorgensen_mean": _C("1.73", 1.73),
        }),
        ("0.90", {
            "unreg_pdp_op": _C("2.67 × 10⁻¹", 2.67e-1, True),
            "unreg_jorgensen_max": _C("3.43 × 10⁻¹", 3.43e-1),
            "unreg_jorgensen_mean": _C("6.46 × 10⁻¹", 6.46e-1),
            "reg_pdp_op": _C("5.39 × 10⁻¹", 5.39e-1, True),
            "reg_jorgensen_max": _C("6.82 × 10⁻¹", 6.82e-1),
            "reg_jorgensen_mean": _C("1.28", 1.28),
        }),
        ("1.00", {
            "unreg_pdp_op": _C("1.98 × 10⁻¹", 1.98e-1, True),
            "unreg_jorgensen_max": _C("2.45 × 10⁻¹", 2.45e-1),
            "unreg_jorgensen_mean": _C("4.71 × 10⁻¹", 4.71e-1),
            "reg_pdp_op": _C("4.35 × 10⁻¹", 4.35e-1, True),
            "reg_jorgensen_max": _C("5.27 × 10⁻¹", 5.27e-1),
            "reg_jorgensen_mean": _C("1.00", 1.00),
        }),
        ("2.00", {
            "unreg_pdp_op": _C("3.96 × 10⁻²", 3.96e-2, True),
            "unreg_jorgensen_max": _C("5.00 × 10⁻²", 5.00e-2),
            "unreg_jorgensen_mean": _C("8.04 × 10⁻²", 8.04e-2),
            "reg_pdp_op": _C("1.06 × 10⁻¹", 1.06e-1, True),
            "reg_jorgensen_max": _C("1.28 × 10⁻¹", 1.28e-1),
            "reg_jorgensen_mean": _C("2.43 × 10⁻¹", 2.43e-1),
        }),
        ("3.00", {
            "unreg_pdp_op": _C("2.11 × 10⁻²", 2.11e-2, True),
            "unreg_jorgensen_max": _C("2.33 × 10⁻²", 2.33e-2),
            "unreg_jorgensen_mean": _C("3.84 × 10⁻²", 3.84e-2),
            "reg_pdp_op": _C("4.80 × 10⁻²", 4.80e-2, True),
            "reg_jorgensen_max": _C("6.15 × 10⁻²", 6.15e-2),
            "reg_jorgensen_mean": _C("1.17 × 10⁻¹", 1.17e-1),
        }),
        ("5.00", {
            "unreg_pdp_op": _C("1.11 × 10⁻²", 1.11e-2, True),
            "unreg_jorgensen_max": _C("1.27 × 10⁻²", 1.27e-2),
            "unreg_jorgensen_mean": _C("1.78 × 10⁻²", 1.78e-2),
            "reg_pdp_op": _C("2.02 × 10⁻²", 2.02e-2, True),
            "reg_jorgensen_max": _C("2.50 × 10⁻²", 2.50e-2),
            "reg_jorgensen_mean": _C("4.77 × 10⁻²", 4.77e-2),
        }),
    ),
    notes=(
        "The caption does not state f_l (1 - f_c - f_m = 0.23).",
    ),
)


TABLES = MappingProxyType({t.number: t for t in (
    _TABLE_1, _TABLE_2, _TABLE_3, _TABLE_4, _TABLE_5, _TABLE_6, _TABLE_7,
    _TABLE_8, _TABLE_9, _TABLE_10, _TABLE_11, _TABLE_12, _TABLE_13, _TABLE_14,
)})
"""Table number (1..14) -> :class:`PublishedTable`."""


def table_spec(k) -> PublishedTable:
    """The transcription of Table ``k``.

    Parameters
    ----------
    k : int
        Table number, 1..14 (order of appearance in the paper's LaTeX source).

    Returns
    -------
    PublishedTable

    Raises
    ------
    TypeError
        If ``k`` is not an integer.
    ValueError
        If ``k`` is outside ``[1, 14]``.
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer table number, got {type(k).__name__}")
    if not 1 <= int(k) <= N_TABLES:
        raise ValueError(f"k = {int(k)} is outside the allowed range [1, {N_TABLES}]")
    return TABLES[int(k)]


def table_number(label: str) -> int:
    """The number (1..14) of the table with LaTeX label ``label``."""
    for number, table in TABLES.items():
        if table.label == label:
            return number
    known = ", ".join(t.label for t in TABLES.values())
    raise ValueError(f"label = {label!r} is not a table label of the paper; allowed: {known}")


def caption(k) -> str:
    """The caption of Table ``k`` as plain text."""
    return table_spec(k).caption


_WHAT = ("value", "text", "bold")


def published_table(k, what: str = "value") -> pd.DataFrame:
    """Table ``k`` as printed, one row per printed row.

    Parameters
    ----------
    k : int
        Table number, 1..14.
    what : {"value", "text", "bold"}
        ``"value"``: the printed numbers as floats; ``"text"``: the printed strings
        (``"8.54 × 10²"``); ``"bold"``: whether each cell is printed in bold.

    Returns
    -------
    pandas.DataFrame
        Indexed by the swept parameter (float; the index is named after it, e.g.
        ``"lambda"``), with the table's columns in printed order.  A new frame on
        every call.
    """
    table = table_spec(k)
    if what not in _WHAT:
        raise ValueError(f"what = {what!r} is not one of the allowed values {_WHAT}")
    index = pd.Index([float(p) for p, _ in table.rows], name=table.param)
    data = [[getattr(cells[c], what) for c in table.columns] for _, cells in table.rows]
    dtype = {"value": float, "text": object, "bold": bool}[what]
    return pd.DataFrame(data, index=index, columns=list(table.columns), dtype=dtype)


def published_cells(k) -> pd.DataFrame:
    """Table ``k`` in long form, one line per printed cell.

    Returns
    -------
    pandas.DataFrame
        Columns ``table, param, param_value, column, text, value, bold`` where
        ``param`` is the row's parameter as printed (``"1.00"``) and
        ``param_value`` the same as a float; rows in printed order (row by row,
        left to right).
    """
    table = table_spec(k)
    records = [
        (table.number, p, float(p), c, cells[c].text, cells[c].value, cells[c].bold)
        for p, cells in table.rows
        for c in table.columns
    ]
    return pd.DataFrame(
        records, columns=["table", "param", "param_value", "column", "text", "value", "bold"]
    )


def bold_cells(k) -> list:
    """The cells of Table ``k`` printed in bold, as ``(param as printed, column)`` pairs."""
    table = table_spec(k)
    return [(p, c) for p, cells in table.rows for c in table.columns if cells[c].bold]


def published(target: str):
    """Published values of a reproduction target of the command line, or ``None``.

    Parameters
    ----------
    target : str
        ``"table-1"`` ... ``"table-14"`` or ``"figure-1"`` ... ``"figure-18"`` (the
        targets of ``python -m pdp_lib reproduce``).

    Returns
    -------
    pandas.DataFrame or None
        For a table, :func:`published_cells` of it (columns include ``param`` as
        printed, ``column`` and ``value``); ``None`` for a figure, whose values the
        paper does not print.
    """
    if not isinstance(target, str):
        raise TypeError(f"target must be a string, got {type(target).__name__}")
    kind, _, number = target.partition("-")
    if kind in ("table", "figure") and number.isdigit():
        k = int(number)
        if kind == "table":
            return published_cells(k)
        if 1 <= k <= 18:
            return None
        raise ValueError(
            f"target = {target!r}: figure number {k} is outside the allowed range [1, 18]"
        )
    raise ValueError(
        f"target = {target!r} is not a target; allowed: 'table-1' ... 'table-14', "
        f"'figure-1' ... 'figure-18'"
    )
