"""Specifications of every table and figure of the paper's experiments, as data.

One :class:`TargetSpec` per target ``table-1`` ... ``table-14`` (Section 4 and Appendix B)
and ``figure-1`` ... ``figure-18`` (Section 4.2 and Appendix B.2): the dataset, the swept
parameter and its values (as printed in the table's first column), the fixed ``lambda``,
the privacy profile, the statistic (mean or standard deviation over runs), the columns,
the caption's parameters, and which of the authors' raw output files holds it (their
``csv_outputs``, shipped with :mod:`pdp_lib.reference`), with the values that file swept and
any disagreement between caption, file and printed table.

The figures of ``paper.tex`` carry no data (their ``\\includegraphics`` are empty): their
sweep values are those of the authors' CSV files the plots were made from, and their columns
are those of the matching table (Table 3/4 for losses, Table 13/14 for standard deviations).
Used by :func:`pdp_lib.experiments.reproduce` and shown in the book's table chapters.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..profiles import DEFAULT_PROFILE, ProfileSpec

__all__ = [
    "METHODS",
    "COLUMNS",
    "SWEEPS",
    "TargetSpec",
    "TARGETS",
    "TARGET_NAMES",
    "get_target",
]

METHODS = ("pdp_op", "non_personalized", "jorgensen_max", "jorgensen_mean", "non_private")
COLUMNS = tuple(f"{kind}_{m}" for kind in ("unreg", "reg") for m in METHODS)
SWEEPS = ("lam", "eps_c", "eps_m", "f_c", "fraction")

_NONPERS = ("unreg_pdp_op", "unreg_non_personalized", "reg_pdp_op", "reg_non_personalized")
_JORG = ("unreg_pdp_op", "unreg_jorgensen_max", "unreg_jorgensen_mean", "unreg_non_private",
         "reg_pdp_op", "reg_jorgensen_max", "reg_jorgensen_mean", "reg_non_private")
_JORG_STD = ("unreg_pdp_op", "unreg_jorgensen_max", "unreg_jorgensen_mean",
             "reg_pdp_op", "reg_jorgensen_max", "reg_jorgensen_mean")

# Profiles of Section 4 and Appendix B.
_JORGENSEN_PROFILE = ProfileSpec(f_c=0.54, f_m=0.37, eps_c=0.01, eps_m=0.5, eps_l=1.0)
_FC_PROFILE = ProfileSpec(f_c=0.34, f_m=0.37, eps_c=0.01, eps_m=0.2, eps_l=1.0)  # f_c swept

# Sweep values as printed in the paper's tables.
_LAM_T1 = ("1.00", "3.00", "5.00", "7.00", "10.00", "15.00", "20.00", "25.00", "50.00", "75.00",
           "100.00", "125.00", "150.00", "175.00", "200.00")
_LAM_T3 = ("1.00", "3.00", "5.00", "7.00", "10.00", "15.00", "20.00", "25.00", "50.00", "75.00",
           "100.00", "200.00", "300.00", "400.00", "500.00")
_LAM_MED = ("0.01", "0.05", "0.10", "0.50", "0.60", "0.70", "0.80", "0.90", "1.00", "2.00",
            "3.00", "5.00")
_EPS_C = ("0.01", "0.05", "0.10", "0.20", "0.30", "0.40", "0.50")
_EPS_M = ("0.05", "0.10", "0.15", "0.20", "0.25", "0.30", "0.35", "0.40", "0.45", "0.50")
_F_C = ("0.1", "0.2", "0.3", "0.4", "0.5", "0.6")
_FRAC = ("0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0")

# Grids of the authors' CSV files (what they swept).
_CSV_LAM_SYN = (0.01, 0.1, 0.5, 1, 3, 5, 7, 10, 15, 20, 25, 50, 75, 100, 125, 150, 175, 200,
                300, 400, 500, 1000)
_CSV_LAM_MED = (0.01, 0.05, 0.1, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 2, 3, 5, 7, 10)


def _g(values) -> tuple:
    return tuple(f"{v:g}" for v in values)


_CSV = {
    "syn_lam": "forplots_specific_30_100_plevel_34_43_23_result.csv",
    "med_lam": "forplots_insurance_data_impact_lambda_plevel_34_43_23_affine.csv",
    "syn_eps": "forplots_specific_30_100_eps_c_eps_m.csv",
    "med_eps": "forplots_insurance_data_impact_epsc_epsm_affine.csv",
    "syn_fc": "forplots_specific_30_100_impact_fc.csv",
    "med_fc": "forplots_insurance_data_impact_fc_affine.csv",
    "syn_n": "forplots_specific_30_100_impact_n.csv",
    "med_n": "forplots_insurance_data_impact_n_plevel_34_43_23_affine.csv",
}


@dataclass(frozen=True)
class TargetSpec:
    """What one table or figure of the paper reports and how to rebuild it.

    Attributes
    ----------
    name : str
        ``"table-1"`` ... ``"table-14"``, ``"figure-1"`` ... ``"figure-18"``.
    label : str
        The LaTeX label in ``paper.tex``.
    dataset : str
        ``"synthetic"`` (d = 30, n = 100, sigma = 0) or ``"medical_cost"``.
    sweep : str
        The swept parameter: ``"lam"``, ``"eps_c"``, ``"eps_m"``, ``"f_c"`` or ``"fraction"``
        (fraction of the training set used).
    param_labels : tuple of str
        The swept values as printed in the table's first column (for figures: as in the CSV).
    lam : float or None
        The fixed ``lambda`` when ``sweep != "lam"``.
    profile : ProfileSpec
        The privacy profile; the swept field (if a profile field) is replaced by each value.
    statistic : str
        ``"mean"`` (Tables 1-12, Figures 3-10) or ``"std"`` (Tables 13-14, Figures 1-2, 11-18).
    columns : tuple of str
        Columns in the paper's order, from :data:`COLUMNS`.
    caption : str
        The caption's parameters, in plain text.
    source_csv : str
        The authors' output file holding this target's numbers (README of the reference outputs).
    csv_sweep : tuple of float
        The values of the swept parameter in that file.
    csv_lams : tuple of float
        The ``lambda`` values in that file.
    notes : tuple of str
        Disagreements between caption, CSV and printed values, and reading decisions.
    """

    name: str
    label: str
    dataset: str
    sweep: str
    param_labels: tuple
    lam: float | None
    profile: ProfileSpec
    statistic: str
    columns: tuple
    caption: str
    source_csv: str
    csv_sweep: tuple
    csv_lams: tuple
    notes: tuple = field(default=())

    @property
    def kind(self) -> str:
        """``"table"`` or ``"figure"``."""
        return self.name.split("-")[0]

    @property
    def sweep_values(self) -> tuple:
        """The swept values as floats (parsed from :attr:`param_labels`)."""
        return tuple(float(p) for p in self.param_labels)

    def point(self, value: float):
        """``(profile, fraction, lam)`` of the sweep point ``value``."""
        profile, fraction, lam = self.profile, 1.0, self.lam
        if self.sweep == "lam":
            lam = value
        elif self.sweep == "fraction":
            fraction = value
        else:
            profile = replace(profile, **{self.sweep: value})
        return profile, fraction, lam


def _spec(**kw) -> TargetSpec:
    spec = TargetSpec(**kw)
    assert spec.sweep in SWEEPS and spec.statistic in ("mean", "std")
    assert set(spec.columns) <= set(COLUMNS)
    assert (spec.lam is None) == (spec.sweep == "lam")
    return spec


_DEF = "eps_c = 0.01, eps_m = 0.2, eps_l = 1.0, f_c = 0.34, f_m = 0.43, f_l = 0.23"
_JP = "eps_m = 0.5, eps_l = 1.0, f_c = 0.54, f_m = 0.37, f_l = 0.09"
_JPM = "eps_c = 0.01, eps_l = 1.0, f_c = 0.54, f_m = 0.37, f_l = 0.09"
_FCP = "eps_c = 0.01, eps_m = 0.2, eps_l = 1.0, f_m = 0.37, f_l = 0.63 - f_c"

_EPS_NOTE = ("The authors' script draws one profile per (eps_c, eps_m) pair and visits "
             "(0.01, 0.5) once, so the eps_c = 0.01 row of the eps_c sweep and the eps_m = 0.5 row "
             "of the eps_m sweep are the same numbers; the rebuild shares that draw too.")
_FIG_COLS_LOSS = ("Figure images are not in paper.tex; columns are those of the loss comparison "
                  "with Jorgensen et al. (Tables 3-4), sweep values those of the CSV.")
_FIG_COLS_STD = ("Figure images are not in paper.tex; columns are those of Tables 13-14 "
                 "(standard deviation over runs), sweep values those of the CSV.")
_SYN_N_NOTE = ("The CSV's impact_n file for the synthetic data (lambda in {50, 100}, "
               "N_train_frac = 8 ... 80 points) does not contain Table 11's printed values: "
               "Table 11 comes from another, unpublished run.")

TARGETS: dict[str, TargetSpec] = {}


def _add(spec: TargetSpec) -> None:
    TARGETS[spec.name] = spec


# ----------------------------------------------------------------------------- tables
_add(_spec(
    name="table-1", label="tab:syn_4_1_plevel_34_43_23", dataset="synthetic", sweep="lam",
    param_labels=_LAM_T1, lam=None, profile=DEFAULT_PROFILE, statistic="mean", columns=_NONPERS,
    caption=f"PDP-OP vs standard DP, synthetic data, d = 30, n = 100; {_DEF}.",
    source_csv=_CSV["syn_lam"], csv_sweep=_CSV_LAM_SYN, csv_lams=_CSV_LAM_SYN,
    notes=("Same run as Tables 3 and 13 (one CSV); the CSV also has lambda = 0.01, 0.1, 0.5, "
           "300, 400, 500, 1000, not printed here.",)))
_add(_spec(
    name="table-2", label="tab:insurance_4_1_plevel_34_43_23", dataset="medical_cost", sweep="lam",
    param_labels=_LAM_MED, lam=None, profile=DEFAULT_PROFILE, statistic="mean", columns=_NONPERS,
    caption=f"PDP-OP vs standard DP, Medical Cost data; {_DEF}.",
    source_csv=_CSV["med_lam"], csv_sweep=_CSV_LAM_MED, csv_lams=_CSV_LAM_MED,
    notes=("Same run as Tables 4 and 14; the CSV also has lambda = 7 and 10, not printed.",)))
_add(_spec(
    name="table-3", label="tab:acc_syn_4_2_1_plevel_34_43_23", dataset="synthetic", sweep="lam",
    param_labels=_LAM_T3, lam=None, profile=DEFAULT_PROFILE, statistic="mean", columns=_JORG,
    caption=f"PDP-OP vs Jorgensen et al., synthetic data, d = 30, n = 100; {_DEF}.",
    source_csv=_CSV["syn_lam"], csv_sweep=_CSV_LAM_SYN, csv_lams=_CSV_LAM_SYN,
    notes=("Printed lambda grid differs from Table 1's (125-175 dropped, 300-500 added).",
           "lambda = 25, unregularized Jorgensen max: printed 1.81e-2, the CSV has 1.811e-1 "
           "(exponent typo; as printed it would beat PDP-OP's 1.44e-1 despite the bold face).",
           "Non-private unregularized (the authors' 'type1') is least squares with lambda = 0 "
           "on the full training set: an exact fit of the noiseless synthetic labels, so its "
           "printed 5.73e-32 is floating-point rounding.")))
_add(_spec(
    name="table-4", label="tab:insurance_4_2_1_plevel_34_43_23", dataset="medical_cost", sweep="lam",
    param_labels=_LAM_MED, lam=None, profile=DEFAULT_PROFILE, statistic="mean", columns=_JORG,
    caption=f"PDP-OP vs Jorgensen et al., Medical Cost data; {_DEF}.",
    source_csv=_CSV["med_lam"], csv_sweep=_CSV_LAM_MED, csv_lams=_CSV_LAM_MED,
    notes=("Non-private columns are deterministic given the split (least squares 9.43e-3; "
           "uniform-weight ridge).",)))
_add(_spec(
    name="table-5", label="tab:impact_epsc_syn_4_1_plevel_34_43_23", dataset="synthetic",
    sweep="eps_c", param_labels=_EPS_C, lam=100.0, profile=_JORGENSEN_PROFILE, statistic="mean",
    columns=_NONPERS,
    caption="PDP-OP vs standard DP, synthetic data, varying eps_c; f_c = 0.54, f_m = 0.37, "
            "eps_m = 0.5, lambda = 100.",
    source_csv=_CSV["syn_eps"], csv_sweep=(0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5),
    csv_lams=_CSV_LAM_SYN,
    notes=("eps_c = 0.30, regularized non-personalized: printed 1.20, the CSV has 3.22 "
           "(1.20 is the eps_c = 0.50 value).",
           "eps_c = 0.50 equals eps_m: the conservatives' interval [eps_c, eps_m] is a point.",
           "The CSV's label says plevel_34_43_23 but the script used f_c = 0.54, f_m = 0.37, "
           "as the caption says.", _EPS_NOTE)))
_add(_spec(
    name="table-6", label="tab:impact_epsc_insurance_4_1_plevel_34_43_23", dataset="medical_cost",
    sweep="eps_c", param_labels=_EPS_C, lam=1.0, profile=_JORGENSEN_PROFILE, statistic="mean",
    columns=_NONPERS,
    caption="PDP-OP vs standard DP, Medical Cost data, varying eps_c; f_c = 0.54, f_m = 0.37, "
            "eps_m = 0.5, lambda = 1.",
    source_csv=_CSV["med_eps"], csv_sweep=(0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5),
    csv_lams=_CSV_LAM_MED, notes=(_EPS_NOTE,)))
_add(_spec(
    name="table-7", label="tab:impact_epsm_syn_4_1_plevel_34_43_23", dataset="synthetic",
    sweep="eps_m", param_labels=_EPS_M, lam=100.0, profile=_JORGENSEN_PROFILE, statistic="mean",
    columns=_NONPERS,
    caption="PDP-OP vs standard DP, synthetic data, varying eps_m; f_c = 0.54, f_m = 0.37, "
            "eps_c = 0.01, lambda = 100.",
    source_csv=_CSV["syn_eps"], csv_sweep=tuple(float(v) for v in _EPS_M), csv_lams=_CSV_LAM_SYN,
    notes=("The appendix text says '34 percent of users requiring 0.01 and 23 percent 1', "
           "but the caption (and the script) use f_c = 0.54, f_m = 0.37, f_l = 0.09.", _EPS_NOTE)))
_add(_spec(
    name="table-8", label="tab:impact_epsm_insurance_4_1_plevel_34_43_23", dataset="medical_cost",
    sweep="eps_m", param_labels=_EPS_M, lam=1.0, profile=_JORGENSEN_PROFILE, statistic="mean",
    columns=_NONPERS,
    caption="PDP-OP vs standard DP, Medical Cost data, varying eps_m; f_c = 0.54, f_m = 0.37, "
            "eps_c = 0.01, lambda = 1.",
    source_csv=_CSV["med_eps"], csv_sweep=tuple(float(v) for v in _EPS_M), csv_lams=_CSV_LAM_MED,
    notes=("The first column's header reads 'Privacy level of Conservatives (eps_m)'; the swept "
           "value is eps_m, the pragmatists' level.", _EPS_NOTE)))
_add(_spec(
    name="table-9", label="tab:impact_fc_syn_4_1_plevel_34_43_23", dataset="synthetic",
    sweep="f_c", param_labels=_F_C, lam=100.0, profile=_FC_PROFILE, statistic="mean",
    columns=_NONPERS, caption=f"PDP-OP vs standard DP, synthetic data, varying f_c; {_FCP}, lambda = 100.",
    source_csv=_CSV["syn_fc"], csv_sweep=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6), csv_lams=_CSV_LAM_SYN))
_add(_spec(
    name="table-10", label="tab:impact_fc_insurance_4_1_plevel_34_43_23", dataset="medical_cost",
    sweep="f_c", param_labels=_F_C, lam=1.0, profile=_FC_PROFILE, statistic="mean",
    columns=_NONPERS, caption=f"PDP-OP vs standard DP, Medical Cost data, varying f_c; {_FCP}, lambda = 1.",
    source_csv=_CSV["med_fc"], csv_sweep=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6), csv_lams=_CSV_LAM_MED))
_add(_spec(
    name="table-11", label="tab:impact_n_syn_4_1_plevel_34_43_23", dataset="synthetic",
    sweep="fraction", param_labels=_FRAC, lam=100.0, profile=DEFAULT_PROFILE, statistic="mean",
    columns=_NONPERS,
    caption=f"PDP-OP vs standard DP, synthetic data, varying the fraction of the training set "
            f"used; {_DEF}, lambda = 100.",
    source_csv=_CSV["syn_n"], csv_sweep=(8, 16, 24, 32, 40, 48, 56, 64, 72, 80),
    csv_lams=(50, 100),
    notes=(_SYN_N_NOTE, "The first column is headed 'n' but holds the fraction of the 80 "
           "training points used (the CSV stores the number of points).")))
_add(_spec(
    name="table-12", label="tab:impact_n_insurance_4_1_plevel_34_43_23", dataset="medical_cost",
    sweep="fraction", param_labels=_FRAC, lam=1.0, profile=DEFAULT_PROFILE, statistic="mean",
    columns=_NONPERS,
    caption=f"PDP-OP vs standard DP, Medical Cost data, varying the fraction of the training "
            f"set used; {_DEF}, lambda = 1.",
    source_csv=_CSV["med_n"], csv_sweep=(107, 214, 321, 428, 535, 642, 749, 856, 963, 1070),
    csv_lams=_CSV_LAM_MED,
    notes=("The CSV stores the number of training points (107 ... 1070 of 1070), the table the "
           "fraction.",)))
_add(_spec(
    name="table-13", label="tab:stddev_syn_4_2_2_plevel_34_43_23", dataset="synthetic", sweep="lam",
    param_labels=_LAM_T3, lam=None, profile=DEFAULT_PROFILE, statistic="std", columns=_JORG_STD,
    caption="Standard deviation of the test losses over runs, synthetic data, d = 30, n = 100; "
            "eps_c = 0.01, eps_m = 0.2, eps_l = 1.0, f_c = 0.34, f_m = 0.43.",
    source_csv=_CSV["syn_lam"], csv_sweep=_CSV_LAM_SYN, csv_lams=_CSV_LAM_SYN,
    notes=("Population standard deviation (numpy.std, ddof = 0) over 10,000 runs in the "
           "authors' code; rebuilt as the exact standard deviation over the noise (PDP-OP) and "
           "by the law of total variance over masks and noise (Jorgensen).",)))
_add(_spec(
    name="table-14", label="tab:insurance_4_2_2_plevel_34_43_23", dataset="medical_cost", sweep="lam",
    param_labels=_LAM_MED, lam=None, profile=DEFAULT_PROFILE, statistic="std", columns=_JORG_STD,
    caption="Standard deviation of the test losses over runs, Medical Cost data; eps_c = 0.01, "
            "eps_m = 0.2, eps_l = 1.0, f_c = 0.34, f_m = 0.43.",
    source_csv=_CSV["med_lam"], csv_sweep=_CSV_LAM_MED, csv_lams=_CSV_LAM_MED))

# ----------------------------------------------------------------------------- figures
_add(_spec(
    name="figure-1", label="fig:syn_jorgensen_lambda_std", dataset="synthetic", sweep="lam",
    param_labels=_g(_CSV_LAM_SYN), lam=None, profile=DEFAULT_PROFILE, statistic="std",
    columns=_JORG_STD, caption=f"Standard deviation vs Jorgensen et al., synthetic data, varying lambda; {_DEF}.",
    source_csv=_CSV["syn_lam"], csv_sweep=_CSV_LAM_SYN, csv_lams=_CSV_LAM_SYN, notes=(_FIG_COLS_STD,)))
_add(_spec(
    name="figure-2", label="fig:insurance_jorgensen_lambda_std", dataset="medical_cost", sweep="lam",
    param_labels=_g(_CSV_LAM_MED), lam=None, profile=DEFAULT_PROFILE, statistic="std",
    columns=_JORG_STD, caption=f"Standard deviation vs Jorgensen et al., Medical Cost data, varying lambda; {_DEF}.",
    source_csv=_CSV["med_lam"], csv_sweep=_CSV_LAM_MED, csv_lams=_CSV_LAM_MED, notes=(_FIG_COLS_STD,)))


def _fig(num, label, dataset, sweep, labels, lam, profile, statistic, caption, csv, csv_sweep, notes=()):
    cols = _JORG if statistic == "mean" else _JORG_STD
    base = _FIG_COLS_LOSS if statistic == "mean" else _FIG_COLS_STD
    _add(_spec(name=f"figure-{num}", label=label, dataset=dataset, sweep=sweep, param_labels=labels,
               lam=lam, profile=profile, statistic=statistic, columns=cols, caption=caption,
               source_csv=_CSV[csv], csv_sweep=csv_sweep,
               csv_lams=_CSV_LAM_SYN if dataset == "synthetic" else _CSV_LAM_MED,
               notes=(base,) + tuple(notes)))


_EPSC_V = (0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5)
_EPSM_V = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
_FC_V = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
_FR_V = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
_SYN_LAM50 = ("The synthetic eps sweeps of the figures use lambda = 50 (subfigure captions), "
              "the tables lambda = 100.",)
_EPS_CAPTION_TYPO = ("The caption writes 'eps_c = 1.0' for eps_l.",)

for num, stat in ((3, "mean"), (11, "std")):
    _fig(num, "fig:syn_jorgensen_epsc" + ("_std" if stat == "std" else ""), "synthetic", "eps_c",
         _g(_EPSC_V), 50.0, _JORGENSEN_PROFILE, stat,
         f"vs Jorgensen et al., synthetic data, varying eps_c; {_JP}, lambda = 50.",
         "syn_eps", _EPSC_V, _SYN_LAM50)
for num, stat in ((4, "mean"), (12, "std")):
    _fig(num, "fig:insurance_jorgensen_epsc" + ("_std" if stat == "std" else ""), "medical_cost",
         "eps_c", _g(_EPSC_V), 1.0, _JORGENSEN_PROFILE, stat,
         f"vs Jorgensen et al., Medical Cost data, varying eps_c; {_JP}, lambda = 1.", "med_eps", _EPSC_V)
for num, stat in ((5, "mean"), (13, "std")):
    _fig(num, "fig:syn_jorgensen_epsm" + ("_std" if stat == "std" else ""), "synthetic", "eps_m",
         _g(_EPSM_V), 50.0, _JORGENSEN_PROFILE, stat,
         f"vs Jorgensen et al., synthetic data, varying eps_m; {_JPM}, lambda = 50.",
         "syn_eps", _EPSM_V, _SYN_LAM50)
for num, stat in ((6, "mean"), (14, "std")):
    _fig(num, "fig:insurance_jorgensen_epsm" + ("_std" if stat == "std" else ""), "medical_cost",
         "eps_m", _g(_EPSM_V), 1.0, _JORGENSEN_PROFILE, stat,
         f"vs Jorgensen et al., Medical Cost data, varying eps_m; {_JPM}, lambda = 1.", "med_eps", _EPSM_V)
for num, stat in ((7, "mean"), (15, "std")):
    _fig(num, "fig:syn_jorgensen_fc" + ("_std" if stat == "std" else ""), "synthetic", "f_c",
         _g(_FC_V), 100.0, _FC_PROFILE, stat,
         f"vs Jorgensen et al., synthetic data, varying f_c; {_FCP}, lambda = 100.", "syn_fc", _FC_V)
_fig(8, "fig:insurance_jorgensen_fc", "medical_cost", "f_c", _g(_FC_V), 0.5, _FC_PROFILE, "mean",
     f"vs Jorgensen et al., Medical Cost data, varying f_c; {_FCP}, lambda = 0.5.", "med_fc", _FC_V,
     ("The subfigure captions say lambda = 0.5 while Table 10 and Figure 16 use lambda = 1; the "
      "authors' repository names this plot '..._lambda_0_9.pdf' (lambda = 0.9). The caption's "
      "0.5 is used.",))
_fig(16, "fig:insurance_jorgensen_fc_std", "medical_cost", "f_c", _g(_FC_V), 1.0, _FC_PROFILE, "std",
     f"vs Jorgensen et al., Medical Cost data, varying f_c; {_FCP}, lambda = 1.", "med_fc", _FC_V)
for num, stat in ((9, "mean"), (17, "std")):
    _fig(num, "fig:syn_jorgensen_n" + ("_std" if stat == "std" else ""), "synthetic", "fraction",
         _g(_FR_V), 100.0, DEFAULT_PROFILE, stat,
         f"vs Jorgensen et al., synthetic data, varying the fraction of training points used; "
         f"{_DEF}, lambda = 100.", "syn_n", (8, 16, 24, 32, 40, 48, 56, 64, 72, 80),
         ((_EPS_CAPTION_TYPO if stat == "mean" else ()) + (_SYN_N_NOTE,)))
for num, stat in ((10, "mean"), (18, "std")):
    _fig(num, "fig:insurance_jorgensen_n" + ("_std" if stat == "std" else ""), "medical_cost",
         "fraction", _g(_FR_V), 1.0, DEFAULT_PROFILE, stat,
         f"vs Jorgensen et al., Medical Cost data, varying the fraction of training points used; "
         f"{_DEF}, lambda = 1.", "med_n", (107, 214, 321, 428, 535, 642, 749, 856, 963, 1070),
         _EPS_CAPTION_TYPO if stat == "mean" else ())

TARGET_NAMES = tuple([f"table-{i}" for i in range(1, 15)] + [f"figure-{i}" for i in range(1, 19)])
assert set(TARGET_NAMES) == set(TARGETS)
TARGETS = {name: TARGETS[name] for name in TARGET_NAMES}


def get_target(name: str) -> TargetSpec:
    """The specification of ``name`` (``"table-1"`` ... ``"table-14"``, ``"figure-1"`` ... ``"figure-18"``)."""
    if not isinstance(name, str) or name not in TARGETS:
        raise ValueError(
            f"target = {name!r} is not allowed; choose table-1 ... table-14 or figure-1 ... figure-18"
        )
    return TARGETS[name]
