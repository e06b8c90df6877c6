"""What each rule for choosing lambda costs: PDP-OP's expected test loss under it, exact where possible.

For one data draw and one privacy profile, :func:`rule_losses` gives the expected unregularized
test loss of PDP-OP when ``lambda`` is chosen

* by the non-private oracle (the best grid value for the expected test loss itself, what the
  paper's tables implicitly do; it reads the test data and is not private);
* by the data-free rule (:func:`pdp_lib.tuning.data_free_lambda`), for each prior ``R``;
* as a fixed default;
* by the public rules that read the tuning plan's candidates (:func:`pdp_lib.tuning.tuning_plan`,
  public) and fit on all the points with the full budgets: the smallest candidate, and a uniform
  pick among them (its expected loss is the candidates' mean);
* as the constant predictor 0 (no model);
* by the data-free rule with the radius the domain defends, ``R = 1/sqrt(d)``;
* by private selection from private candidates (:mod:`pdp_lib.mechanisms.private_selection`), by Monte Carlo
  over ``noise_draws`` whole runs;
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
from ..mechanisms import exponential
from ..mechanisms.output_perturbation import weighted_ridge_unchecked, calibrate
from ..moments import QuadraticLoss
from ..mechanisms.private_selection import round_models, run_selection
from ..profiles import DEFAULT_PROFILE
from ..validation import check_count, check_epsilons, check_fraction, check_problem, check_rng
from ..datasets import make_synthetic, train_test_split
from ..profiles import privacy_profile
from .draws import SPLIT_SEED, TEST_SIZE, mixture_seed, profile_draws, seed_sequence
from .settings import SEED
from .targets import get_target

__all__ = ["RuleLosses", "rule_losses", "rule_label", "cost_draws", "cost_summary", "DATASETS", "PRIORS",
           "FIXED", "SETTINGS", "DRAWS", "NOISE_DRAWS", "TUNING_TARGETS", "tuning_profile",
           "tuning_costs_table", "tuning_markdown", "cost_by_n", "SIZES", "SIZE_DRAWS",
           "SIZE_NOISE_DRAWS", "PUBLIC_RULES", "SELECTION_RULE"]


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
    selection : tuple
        Private selection from private candidates (:func:`pdp_lib.mechanisms.private_selection.private_selection`):
        ``(expected loss, Monte Carlo standard error, mean lambda released, probability of the zero model)``.
    public : dict
        ``"smallest kept"`` -> ``(lambda, expected loss)``; ``"uniform kept"`` -> ``(mean lambda, expected
        loss)``; ``"zero"`` -> ``(nan, loss of the constant predictor 0)``; ``"domain radius"`` -> ``(lambda,
        expected loss)`` of the data-free rule with ``R = 1/sqrt(d)``.
    """

    grid: np.ndarray
    exact: np.ndarray
    oracle: float
    data_free: dict
    fixed: dict
    private: dict
    public: dict
    selection: tuple


def _exact_losses(X, y, budgets, lams, loss, B):
    """PDP-OP's exact expected test loss at each of ``lams`` (full budgets ``budgets``, all the points).

    The weighted ridge's Gram matrix ``X^T W X`` and ``X^T W y`` are formed once and shared by every
    ``lambda`` whose calibration has the same weights (the weights ``eps_i / S`` do not depend on
    ``lambda``): each ``lambda`` then adds itself to the diagonal and is solved as in
    :func:`pdp_lib.mechanisms.output_perturbation.weighted_ridge_unchecked`, with the same numbers.
    """
    d = X.shape[1]
    out = np.empty(len(lams))
    weights = gram = None
    for j, lam in enumerate(lams):
        cal = calibrate(budgets, lam, d, B)
        w = np.asarray(cal.weights)
        if weights is None or not np.array_equal(w, weights):
            weights = w
            Xw = X * w[:, None]
            gram, b = Xw.T @ X, Xw.T @ y
        A = gram.copy()
        A[np.diag_indices(d)] += lam
        c = np.linalg.cholesky(A)
        theta_bar = np.linalg.solve(c.T, np.linalg.solve(c, b))
        out[j] = float(loss.moments(theta_bar, cal.eta).mean)
    return out


_BLOCK = 2**24
"""Validation losses held at once by :func:`_private_loss` (draws x candidates x points), about 128 MB."""

_CHUNK = 2**17
"""Validation losses computed at once inside a block (about 1 MB): the block's draws are scored in
chunks that stay in the processor's cache."""


def _selection_chunks(models, X_val, y_val, eps_val, alpha):
    """The selection probabilities of a block of candidates ``(size, K, d)``: shape ``(size, K)``.

    :func:`pdp_lib.tuning.selection_probabilities` of :func:`pdp_lib.tuning.validation_losses`, a
    chunk of draws at a time (every draw is scored on its own, so the numbers are those of the
    whole block at once).
    """
    size, K = models.shape[:2]
    step = max(1, _CHUNK // (K * X_val.shape[0]))
    # the checks of selection_probabilities, made once for the block (scored_probabilities refuses a NaN loss):
    # labels in the domain's [-1, 1] keep every loss in [0, 2] (stricter than the checked path, which refuses a
    # label outside only where a loss leaves [0, 2])
    models, X_val, y_val = (np.asarray(a, dtype=float) for a in (models, X_val, y_val))
    if not np.all(np.abs(y_val) <= 1.0):
        raise ValueError("the validation labels must lie in the allowed range [-1, 1]")
    u = exponential.selection_rates(check_epsilons(eps_val, X_val.shape[0], name="epsilons_val"),
                                    check_fraction(alpha, "alpha", closed_low=False))
    return np.concatenate([exponential.scored_probabilities(models[s:s + step], X_val, y_val, u)
                           for s in range(0, size, step)])


def _loss_values(loss, models):
    """``loss.value(models.reshape(-1, d))`` for a block of candidates ``(size, K, d)``: shape ``(size * K,)``.

    The same arithmetic as :meth:`pdp_lib.moments.QuadraticLoss.value` (one product with the test
    points for the whole block, then the mean squared residual of each model), without the
    gradient it also computes, and with the residuals squared and averaged a chunk of models at a
    time (a loss with a penalty: :meth:`~pdp_lib.moments.QuadraticLoss.value` itself).
    """
    th = models.reshape(-1, models.shape[-1])
    if loss.penalty:
        return loss.value(th)
    resid = th @ loss.X.T
    out = np.empty(th.shape[0])
    step = max(1, _CHUNK // loss.n_test)
    for s in range(0, th.shape[0], step):
        r = resid[s:s + step]
        r -= loss.y
        out[s:s + step] = np.mean(r * r, axis=-1)
    return out


def _private_loss(X, y, eps, lams, setting, loss, B, gen, draws, plan=None):
    """Expected loss, its Monte Carlo error, the mean selection probabilities and the candidates.

    The noise draws are taken in blocks of at most ``_BLOCK // (K m)`` (``K`` candidates, ``m``
    validation points), so that memory stays bounded at any ``n``; inside a block the draws are
    scored a cache-sized chunk at a time.  ``plan``: the setting's :func:`pdp_lib.tuning.tuning_plan`,
    if already made (None: made here).
    """
    alpha, fraction = setting
    if plan is None:
        plan = _tuning.tuning_plan(eps, lams, X.shape[1], alpha, fraction, B)
    val = plan.validation
    X_val, y_val, eps_val = X[val], y[val], eps[val]
    block = max(1, _BLOCK // (plan.candidates.size * val.size))
    refit = None if alpha == 1.0 else _exact_losses(X, y, (1.0 - alpha) * eps, plan.candidates, loss, B)
    per_draw, p_sum = [], 0.0
    for start in range(0, draws, block):
        size = min(block, draws - start)
        models = _tuning.candidate_models(X, y, eps, plan.parts, plan.candidates, alpha, B, gen, size)
        p = _selection_chunks(models, X_val, y_val, eps_val, alpha)
        if refit is None:
            values = _loss_values(loss, models).reshape(size, -1)
            per_draw.append(np.sum(p * values, axis=1))
        else:
            per_draw.append(p @ refit)
        p_sum = p_sum + p.sum(axis=0)
    per_draw = np.concatenate(per_draw)
    return (float(per_draw.mean()), float(per_draw.std(ddof=1) / np.sqrt(draws)), p_sum / draws,
            plan.candidates)


def _selection_loss(X, y, eps, lams, loss, B, gen, runs, rho=0.5):
    """Private selection's expected loss by Monte Carlo over ``runs`` whole runs of it, vectorized.

    Each run repeats rounds until a candidate passes or the run stops (probability ``1/K`` after a
    failed round, ``K`` the round's candidates), exactly as
    :func:`pdp_lib.mechanisms.private_selection.private_selection` does.
    """
    lams, centres, etas = round_models(X, y, eps, lams, rho, B)
    released, index = run_selection(X, y, eps, lams, centres, etas, rho, 1.0 / lams.size, gen, runs)
    chosen = np.where(index >= 0, lams[np.maximum(index, 0)], np.nan)
    values = loss.value(released)
    zero = np.isnan(chosen)
    mean_lam = float(np.mean(chosen[~zero])) if (~zero).any() else float("nan")
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(runs)), mean_lam, float(zero.mean())


def _domain_radius(X, y, eps, lams, loss, B, exact_at=None):
    """The data-free rule with ``R = 1/sqrt(d)``: the largest ball whose every model predicts in ``[-1, 1]``
    on ``[0, 1]^d``, a prior the domain alone defends.  ``exact_at``: ``lambda ->`` its exact expected loss,
    if known (None: :func:`_exact_losses`)."""
    lam = _tuning.data_free_lambda(lams, eps, X.shape[1], 1.0 / np.sqrt(X.shape[1]), B)
    if exact_at is not None:
        return lam, exact_at(lam)
    return lam, float(_exact_losses(X, y, eps, [lam], loss, B)[0])


def rule_losses(X, y, epsilons, X_test, y_test, grid, *, priors=(1.0,), fixed=(1.0,), settings=((1.0, None),),
                B=None, noise_draws: int = 2000, rng=None, plan=(1.0, 0.5), selection_runs=None) -> RuleLosses:
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
    selection_runs : None or int
        Whole runs behind private selection's expected loss (``None``: ``noise_draws``; ``0``: private
        selection is not measured, and ``selection`` is None).
    plan : (float, float or None)
        The ``(alpha, validation_fraction)`` of the tuning plan whose candidates the public rules
        read (the default of ``PersonalizedRidge(lam="auto")``).

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
    # a value of the grid: its loss is already in exact (the same computation); another: computed
    at_grid = {float(lam): float(v) for lam, v in zip(lams, exact)}

    def exact_at(lam):
        lam = float(lam)
        return at_grid[lam] if lam in at_grid else float(_exact_losses(X, y, eps, [lam], loss, B)[0])

    data_free = {}
    for R in priors:
        lam = _tuning.data_free_lambda(lams, eps, d, R, B)
        data_free[float(R)] = (lam, exact_at(lam))
    fixed_losses = {float(lam): exact_at(lam) for lam in fixed}
    plans = {}

    def plan_of(alpha, fraction):     # public, made once per setting
        if (alpha, fraction) not in plans:
            plans[alpha, fraction] = _tuning.tuning_plan(eps, lams, d, alpha, fraction, B)
        return plans[alpha, fraction]

    private = {setting: _private_loss(X, y, eps, lams, setting, loss, B, gen, draws, plan_of(*setting))
               for setting in settings}
    kept = plan_of(*plan).candidates
    at_kept = exact[[int(np.flatnonzero(lams == lam)[0]) for lam in kept]]   # kept: grid values
    public = {"smallest kept": (float(kept.min()), float(at_kept[np.argmin(kept)])),   # PUBLIC_RULES
              "uniform kept": (float(kept.mean()), float(at_kept.mean())),
              "zero": (float("nan"), float(loss.value(np.zeros(d)))),
              "domain radius": _domain_radius(X, y, eps, lams, loss, B, exact_at)}
    runs = draws if selection_runs is None else check_count(selection_runs, "selection_runs", minimum=0)
    if runs == 1:
        raise ValueError("selection_runs = 1 is outside the allowed range: 0 (not measured) or at least 2")
    selection = _selection_loss(X, y, eps, lams, loss, B, gen, runs) if runs else None
    return RuleLosses(grid=lams, exact=exact, oracle=float(exact.min()), data_free=data_free,
                      fixed=fixed_losses, private=private, public=public, selection=selection)


def _value_text(x) -> str:
    x = float(x)
    return count_text(int(x)) if x.is_integer() else sig(x)


def rule_label(kind: str, setting) -> str:
    """A rule's name in the chapter's table: ``"data-free, R = 1"``, ``"private, α = 0.5, v = 0.5"``."""
    if kind == "data_free":
        return f"data-free, R = {_value_text(setting)}"
    if kind == "fixed":
        return f"fixed λ = {_value_text(setting)}"
    if kind == "public":
        return {"smallest kept": "smallest kept λ", "uniform kept": "uniform kept λ",
                "zero": "constant 0", "domain radius": "data-free, R = 1/√d"}[setting]
    alpha, fraction = setting
    part = "equal parts" if fraction is None else f"v = {_value_text(fraction)}"
    return f"private, α = {_value_text(alpha)}, {part}"


def cost_draws(datasets, replicates: int, grid, *, spec=None, priors=(1.0,), fixed=(1.0,),
               settings=((1.0, None),), noise_draws: int = 2000, seed: int = SEED, B=None,
               selection_runs=None) -> pd.DataFrame:
    """Each rule's expected test loss over the oracle's, for ``replicates`` draws of each dataset.

    Draw ``r`` of a dataset is :func:`pdp_lib.experiments.draw_data` (its split redrawn for
    ``r > 0``, the synthetic data redrawn) with the privacy levels of
    :func:`pdp_lib.experiments.draw_profile` for ``spec`` (the paper's default profile when
    None); the candidates' noise comes from a stream named by the draw.  ``B``: the calibration's
    norm bound, None or ``"sharp"``.  ``selection_runs``: whole runs behind private selection's
    expected loss (``None``: ``noise_draws``).

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
                          settings=settings, B=B, noise_draws=noise_draws, rng=gen,
                          selection_runs=selection_runs)
        rows.extend((dataset, r, *row) for row in _rows(res))
    return pd.DataFrame(rows, columns=["dataset", "replicate", "rule", "lam", "ratio", "se", "candidates"])


def cost_by_n(sizes, replicates: int, grid, *, d: int = 30, spec=None, priors=(1.0,), fixed=(1.0,),
              settings=((1.0, 0.5),), noise_draws: int = 400, seed: int = SEED, B=None,
              selection_runs: int = 0) -> pd.DataFrame:
    """:func:`cost_draws` on the paper's synthetic data (``sigma = 0``) at each total size ``n``.

    Draw ``r`` at size ``n`` is :func:`pdp_lib.make_synthetic` ``(n, d)`` from the stream
    ``(9, n, r, 0)`` of ``seed``, split 80/20 as the paper's data are, with the levels of ``spec``
    from the stream ``(9, n, r, 1)`` and the candidates' noise from ``(9, n, r, 2)``.  Private selection
    is measured only with ``selection_runs`` > 0 (:func:`rule_losses`).

    Returns
    -------
    pandas.DataFrame
        :func:`cost_draws`'s columns, with ``dataset`` replaced by ``n``.
    """
    spec = DEFAULT_PROFILE if spec is None else spec
    rows = []
    for n in sizes:
        n = check_count(n, "n", minimum=10)
        for r in range(check_count(replicates, "replicates")):
            streams = [np.random.default_rng(seed_sequence(seed, 9, n, r, part)) for part in range(3)]
            data = make_synthetic(n, d, sigma=0.0, rng=streams[0])
            X, X_test, y, y_test = train_test_split(data.X, data.y, test_size=TEST_SIZE, seed=SPLIT_SEED)
            eps = privacy_profile(X.shape[0], spec, rng=streams[1])
            res = rule_losses(X, y, eps, X_test, y_test, grid, priors=priors, fixed=fixed, settings=settings,
                              B=B, noise_draws=noise_draws, rng=streams[2],
                              selection_runs=selection_runs)
            rows.extend((n, r, *row) for row in _rows(res))
    return pd.DataFrame(rows, columns=["n", "replicate", "rule", "lam", "ratio", "se", "candidates"])


def _rows(res: RuleLosses):
    """``(rule, lam, ratio, se, candidates)`` for each rule of one draw, the oracle first."""
    yield "oracle", float(res.grid[int(np.argmin(res.exact))]), res.oracle, 0.0, res.grid.size
    for R, (lam, loss) in res.data_free.items():
        yield rule_label("data_free", R), lam, loss / res.oracle, 0.0, 1
    for lam, loss in res.fixed.items():
        yield rule_label("fixed", lam), lam, loss / res.oracle, 0.0, 1
    for name, (lam, loss) in res.public.items():
        yield rule_label("public", name), lam, loss / res.oracle, 0.0, 1
    for setting, (loss, se, p, cands) in res.private.items():
        yield rule_label("private", setting), float(p @ cands), loss / res.oracle, se / res.oracle, cands.size
    if res.selection is not None:
        loss, se, lam, _ = res.selection
        yield SELECTION_RULE, lam, loss / res.oracle, se / res.oracle, res.grid.size


def cost_summary(draws: pd.DataFrame, by: str = "dataset") -> pd.DataFrame:
    """Mean ratio and its range over the draws (``low``, ``high``; ``worst`` = ``high``), per ``by`` and rule.

    The range of ``k`` exchangeable draws holds a new draw with probability ``(k - 1) / (k + 1)``
    (19/21, about 90%, for 20 draws): that, not a nominal level, is the band's coverage.
    """
    ratios = draws[draws["rule"] != "oracle"]
    grouped = ratios.groupby([by, "rule"], sort=False)["ratio"]
    return pd.DataFrame({"mean": grouped.mean(), "low": grouped.min(), "high": grouped.max(),
                         "worst": grouped.max()}).reset_index()


# The comparison of the chapter *Choosing λ*, written once: the chapter and the command line's
# targets tuning-1 (the paper's default profile, Tables 1-4) and tuning-2 (Jorgensen et al.'s,
# Tables 5-8) read these.
DATASETS = ("medical_cost", "diabetes", "synthetic")
PRIORS = (0.25, 0.5, 1.0, 2.0)
FIXED = (1.0, 1000.0)
SETTINGS = ((1.0, None), (1.0, 0.5), (0.5, 0.5), (0.25, 0.5))
PUBLIC_RULES = ("smallest kept", "uniform kept", "zero", "domain radius")
SELECTION_RULE = "private selection"
"""The name of private selection from private candidates in the tables (:func:`rule_losses` always measures it)."""
"""The public rules :func:`rule_losses` always measures (``RuleLosses.public``)."""
DRAWS, NOISE_DRAWS = 20, 4000
SIZES, SIZE_DRAWS, SIZE_NOISE_DRAWS = (1_000, 3_000, 10_000, 100_000), 20, 100
"""The synthetic data's total sizes of :func:`cost_by_n` in the chapter *Choosing λ*, the draws at
each size and the candidates' noise draws behind private tuning's value."""
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
    PDP-OP's expected test loss under the rule over the oracle's, ``low`` and ``high`` the smallest
    and the largest draw (equal to ``value`` with one draw), ``paper`` empty (the paper has no
    such table).
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
             f"the oracle lambda, mean [smallest, largest] over draws, {profile} profile")
    return f"{title}\n\n" + markdown_table(["rule", *datasets], rows) + "\n"
