"""What each rule for choosing lambda costs: PDP-OP's expected test loss under it, exact where possible.

For one data draw and one privacy profile, :func:`rule_losses` gives the expected unregularized
test loss of PDP-OP when ``lambda`` is chosen

* by the non-private oracle (the best grid value for the expected test loss itself, what the
  paper's tables implicitly do; it reads the test data and is not private);
* by the data-free rule (:func:`pdp_lib.tuning.data_free_lambda`), for each prior ``R``;
* as a fixed default;
* by private tuning (:func:`pdp_lib.tuning.private_lambda`) for each share ``alpha``.

Every loss but private tuning's is exact (:func:`pdp_lib.loss_moments`).  Private tuning's is
exact given the selection probabilities, which are averaged over ``noise_draws`` draws of the
candidates' noise (Rao-Blackwellized: the exact distribution over the grid for each draw, never a
sampled choice); for ``alpha = 1``, where the chosen candidate is released, the loss of each
candidate is averaged over the same draws.  Derived in the book's chapter *Choosing λ*.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import tuning as _tuning
from ..formatting import count_text, markdown_table, ratio_text, sig
from ..mechanism import _weighted_ridge, calibrate
from ..moments import QuadraticLoss
from ..profiles import DEFAULT_PROFILE
from ..validation import check_count, check_problem, check_rng
from .draws import mixture_seed, profile_draws
from .settings import SEED
from .targets import get_target

__all__ = ["RuleLosses", "rule_losses", "rule_label", "cost_draws", "cost_summary", "DATASETS", "PRIORS",
           "FIXED", "SETTINGS", "DRAWS", "NOISE_DRAWS", "TUNING_TARGETS", "tuning_profile",
           "tuning_costs_table", "tuning_markdown"]


@dataclass(frozen=True)
class RuleLosses:
    """Expected test loss of PDP-OP under each rule (see :func:`rule_losses`).

    Attributes
    ----------
    grid : numpy.ndarray
    exact : numpy.ndarray
        PDP-OP's exact expected test loss at each grid value, full budgets, all points.
    oracle : float
        Its minimum over the grid (not private).
    data_free : dict
        Prior ``R`` -> ``(lambda chosen, expected loss)``.
    fixed : dict
        Default ``lambda`` -> expected loss.
    private : dict
        ``(alpha, validation_fraction)`` -> ``(expected loss, Monte Carlo standard error, probabilities over the candidates,
        candidates)``.
    """

    grid: np.ndarray
    exact: np.ndarray
    oracle: float
    data_free: dict
    fixed: dict
    private: dict


def _exact_losses(X, y, budgets, lams, loss, B):
    d = X.shape[1]
    out = np.empty(len(lams))
    for j, lam in enumerate(lams):
        cal = calibrate(budgets, lam, d, B)
        theta_bar = _weighted_ridge(X, y, np.asarray(cal.weights), lam)
        out[j] = float(loss.moments(theta_bar, cal.eta).mean)
    return out


def _private_loss(X, y, eps, lams, setting, loss, B, gen, draws):
    """Expected loss, its Monte Carlo error, the mean selection probabilities and the candidates."""
    alpha, fraction = setting
    plan = _tuning.tuning_plan(eps, lams, X.shape[1], alpha, fraction, B)
    models = _tuning._candidate_models(X, y, eps, plan.parts, plan.candidates, alpha, B, gen, draws)
    val = plan.validation
    p = _tuning.selection_probabilities(_tuning.validation_losses(models, X[val], y[val]), eps[val], alpha)
    if alpha == 1.0:
        values = loss.value(models.reshape(-1, X.shape[1])).reshape(draws, -1)
        per_draw = np.sum(p * values, axis=1)
    else:
        per_draw = p @ _exact_losses(X, y, (1.0 - alpha) * eps, plan.candidates, loss, B)
    return (float(per_draw.mean()), float(per_draw.std(ddof=1) / np.sqrt(draws)), p.mean(axis=0),
            plan.candidates)


def rule_losses(X, y, epsilons, X_test, y_test, grid, *, priors=(1.0,), fixed=(1.0,), settings=((1.0, None),),
                B=None, noise_draws: int = 2000, rng=None) -> RuleLosses:
    """PDP-OP's expected unregularized test loss under each rule for choosing ``lambda``.

    Parameters
    ----------
    X, y, epsilons : array-like
        Training points and their privacy levels (the domain of :func:`pdp_lib.pdp_op`).
    X_test, y_test : array-like
        Test points.
    grid : array-like
        The public grid of ``lambda`` values.
    priors : sequence of float
        Public bounds ``R`` on ``||theta*||`` for the data-free rule.
    fixed : sequence of float
        Default values of ``lambda``.
    settings : sequence of (float, float or None)
        Private tuning's ``(alpha, validation_fraction)``: the share of each budget spent on the
        choice, in ``(0, 1]``, and the validation part's share of the points (``None``: equal parts).
    B : None or "sharp"
        The calibration's norm bound (a rule for choosing lambda refuses a user's number).
    noise_draws : int
        Draws of the candidates' noise behind private tuning's selection probabilities.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    RuleLosses
    """
    X, y, eps, _ = check_problem(X, y, epsilons)
    lams = _tuning.check_grid(grid)
    draws = check_count(noise_draws, "noise_draws", minimum=2)
    gen = check_rng(rng)
    loss = QuadraticLoss(X_test, y_test)
    exact = _exact_losses(X, y, eps, lams, loss, B)
    d = X.shape[1]
    data_free = {}
    for R in priors:
        lam = _tuning.data_free_lambda(lams, eps, d, R, B)
        data_free[float(R)] = (lam, float(_exact_losses(X, y, eps, [lam], loss, B)[0]))
    fixed_losses = {float(lam): float(_exact_losses(X, y, eps, [lam], loss, B)[0]) for lam in fixed}
    private = {setting: _private_loss(X, y, eps, lams, setting, loss, B, gen, draws) for setting in settings}
    return RuleLosses(grid=lams, exact=exact, oracle=float(exact.min()), data_free=data_free,
                      fixed=fixed_losses, private=private)


def _value_text(x) -> str:
    x = float(x)
    return count_text(int(x)) if x.is_integer() else sig(x)


def rule_label(kind: str, setting) -> str:
    """A rule's name in the chapter's table: ``"data-free, R = 1"``, ``"private, α = 0.5, v = 0.5"``."""
    if kind == "data_free":
        return f"data-free, R = {_value_text(setting)}"
    if kind == "fixed":
        return f"fixed λ = {_value_text(setting)}"
    alpha, fraction = setting
    part = "equal parts" if fraction is None else f"v = {_value_text(fraction)}"
    return f"private, α = {_value_text(alpha)}, {part}"


def cost_draws(datasets, replicates: int, grid, *, spec=None, priors=(1.0,), fixed=(1.0,),
               settings=((1.0, None),), noise_draws: int = 2000, seed: int = SEED, B=None) -> pd.DataFrame:
    """Each rule's expected test loss over the oracle's, for ``replicates`` draws of each dataset.

    Draw ``r`` of a dataset is :func:`pdp_lib.experiments.draw_data` (its split redrawn for
    ``r > 0``, the synthetic data redrawn) with the privacy levels of
    :func:`pdp_lib.experiments.draw_profile` for ``spec`` (the paper's default profile when
    None); the candidates' noise comes from a stream named by the draw.  ``B``: the calibration's
    norm bound, None or ``"sharp"``.

    Returns
    -------
    pandas.DataFrame
        One row per dataset, draw and rule: ``dataset, replicate, rule, lam`` (for private tuning,
        the mean chosen lambda), ``ratio``, ``se`` (the Monte Carlo standard error of the ratio, 0
        where it is exact) and ``candidates`` (the values private tuning chose among, 1 for the
        other rules), plus a row per draw for the oracle's own loss (``rule = "oracle"``,
        ``ratio`` its loss, ``lam`` the oracle lambda).
    """
    spec = DEFAULT_PROFILE if spec is None else spec
    rows = []
    for dataset, r, draw, X, y, eps in profile_draws(datasets, replicates, spec, seed):
        gen = np.random.default_rng(mixture_seed(draw, spec, X.shape[0]).spawn(1)[0])
        res = rule_losses(X, y, eps, draw.X_test, draw.y_test, grid, priors=priors, fixed=fixed,
                          settings=settings, B=B, noise_draws=noise_draws, rng=gen)
        best = float(res.grid[int(np.argmin(res.exact))])
        rows.append((dataset, r, "oracle", best, res.oracle, 0.0, res.grid.size))
        for R, (lam, loss) in res.data_free.items():
            rows.append((dataset, r, rule_label("data_free", R), lam, loss / res.oracle, 0.0, 1))
        for lam, loss in res.fixed.items():
            rows.append((dataset, r, rule_label("fixed", lam), lam, loss / res.oracle, 0.0, 1))
        for setting, (loss, se, p, cands) in res.private.items():
            rows.append((dataset, r, rule_label("private", setting), float(p @ cands),
                         loss / res.oracle, se / res.oracle, cands.size))
    return pd.DataFrame(rows, columns=["dataset", "replicate", "rule", "lam", "ratio", "se", "candidates"])


def cost_summary(draws: pd.DataFrame) -> pd.DataFrame:
    """Mean ratio, its 95% band over draws and its largest value, per dataset and rule.

    The band runs from the 2.5% to the 97.5% quantile of the draws (linear interpolation: with 20
    draws, close to their range).
    """
    ratios = draws[draws["rule"] != "oracle"]
    grouped = ratios.groupby(["dataset", "rule"], sort=False)["ratio"]
    return pd.DataFrame({"mean": grouped.mean(), "low": grouped.quantile(0.025),
                         "high": grouped.quantile(0.975), "worst": grouped.max()}).reset_index()


# The comparison of the chapter *Choosing λ*, written once: the chapter and the command line's
# targets tuning-1 (the paper's default profile, Tables 1-4) and tuning-2 (Jorgensen et al.'s,
# Tables 5-8) read these.
DATASETS = ("medical_cost", "diabetes", "synthetic")
PRIORS = (0.25, 0.5, 1.0, 2.0)
FIXED = (1.0, 1000.0)
SETTINGS = ((1.0, None), (1.0, 0.5), (0.5, 0.5), (0.25, 0.5))
DRAWS, NOISE_DRAWS = 20, 4000
TUNING_TARGETS = {"tuning-1": ("default", "table-1"), "tuning-2": ("Jorgensen's", "table-6")}
"""Target name -> (profile name, a table of the paper whose profile it uses)."""


def tuning_profile(target: str):
    """The privacy profile of a tuning target: that of Tables 1-4 or of Tables 5-8 (at eps_c = 0.01)."""
    if target not in TUNING_TARGETS:
        raise ValueError(f"target = {target!r} is not allowed; choose one of {tuple(TUNING_TARGETS)}")
    return get_target(TUNING_TARGETS[target][1]).profile


def tuning_costs_table(target: str, *, draws: int = DRAWS, noise_draws: int = NOISE_DRAWS, seed: int = SEED,
                       B=None) -> pd.DataFrame:
    """A tuning target as a long table in the command line's format (``param, column, value, low, high, paper``).

    ``param`` is the rule, ``column`` the dataset, ``value`` the mean over ``draws`` draws of
    PDP-OP's expected test loss under the rule over the oracle's, ``low`` and ``high`` the 2.5% and
    97.5% quantiles over the draws (equal to ``value`` with one draw), ``paper`` empty (the paper
    has no such table).
    """
    spec = tuning_profile(target)
    draws_table = cost_draws(DATASETS, draws, _tuning.DEFAULT_GRID, spec=spec, priors=PRIORS, fixed=FIXED,
                             settings=SETTINGS, noise_draws=noise_draws, seed=seed, B=B)
    summary = cost_summary(draws_table)
    return pd.DataFrame({"param": summary["rule"], "column": summary["dataset"], "value": summary["mean"],
                         "low": summary["low"], "high": summary["high"], "paper": np.nan})


def tuning_markdown(target: str, table: pd.DataFrame) -> str:
    """A tuning target's long table as a Markdown table: one row per rule, one column per dataset."""
    rules = list(dict.fromkeys(table["param"]))
    datasets = list(dict.fromkeys(table["column"]))
    cell = {(r.param, r.column): f"{ratio_text(r.value)} [{ratio_text(r.low)}, {ratio_text(r.high)}]"
            for r in table.itertuples()}
    rows = [[rule, *(cell[rule, d] for d in datasets)] for rule in rules]
    profile = TUNING_TARGETS[target][0]
    title = (f"**{target}**: PDP-OP's expected test loss under each rule for choosing lambda over its loss at "
             f"the oracle lambda, mean [2.5%, 97.5%] over draws, {profile} profile")
    return f"{title}\n\n" + markdown_table(["rule", *datasets], rows) + "\n"
