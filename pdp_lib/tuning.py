r"""Choosing :math:`\lambda`: a data-free rule and private tuning with personalized budgets.

Neither the paper nor its tables say how to choose :math:`\lambda`; picking the best row of a
swept grid reads the test data, so the guarantee of the published row does not cover the
choice.  This module gives two rules whose privacy is proved, and the pieces of each.  Derived
in the book's chapter *Choosing λ* (``book/tuning.ipynb``).

**The data-free rule** (:func:`data_free_lambda`) minimizes over the grid the bound of
proposition *prop-data-free-bound* on the expected excess risk of PDP-OP,

.. math::

    U(\lambda) = \min(\lambda R^2, 1) + \frac{C_\lambda^2\,(\lambda \sum_i \varepsilon_i^2 + d(d+1))}{S^2},
    \qquad C_\lambda = \frac{2\sqrt d\,(1 + \sqrt d B_\lambda)}{\lambda},\ S = \sum_i \varepsilon_i,

which reads only public quantities: the grid, ``d``, the privacy levels and a public prior
``R``; the bound compares PDP-OP with every ``theta*`` of norm at most ``R``.  It spends no
privacy.  Its quality rests on ``R``.

**Private tuning** (:func:`private_lambda`) adapts the parameter tuning of Chaudhuri,
Monteleoni & Sarwate (JMLR 2011) to per-point budgets (proposition *prop-private-tuning*):

1. a public partition of the points, by their privacy levels only (:func:`public_parts`), into
   one part per candidate :math:`\lambda_k` and a validation part;
2. candidate ``k`` is PDP-OP at :math:`\lambda_k` on its own part, calibrated on that part's
   sum :math:`S_k` with the share :math:`\alpha\varepsilon_i` of each budget;
3. the personalized exponential mechanism (:func:`selection_probabilities`) picks ``k`` with
   probability :math:`\propto \exp(-\sum_{j \in V} u_j \ell_j(k))`, where
   :math:`\ell_j(k) = |y_j - \mathrm{clip}(x_j^\top\hat\theta_k)| \in [0, 2]` and
   :math:`u_j = \alpha\varepsilon_j / 4`, so that validation point ``j`` spends
   :math:`\alpha\varepsilon_j`;
4. with :math:`\alpha = 1` the chosen candidate is released; with :math:`\alpha < 1`, PDP-OP is
   refitted at the chosen :math:`\lambda` on all the points with the shares
   :math:`(1-\alpha)\varepsilon_i`.

Every point lies in exactly one part, so it spends :math:`\alpha\varepsilon_i` on the choice and
:math:`(1-\alpha)\varepsilon_i` on the release: :math:`\varepsilon_i` in all.

The grid and its pruning (:mod:`pdp_lib.mechanisms.lambda_grid`) and the personalized exponential mechanism
(:mod:`pdp_lib.mechanisms.exponential`) are mechanisms' pieces, below this module; their names are re-exported
here.
"""

from __future__ import annotations

import hashlib
import numbers
from dataclasses import dataclass

import numpy as np

from .bounds import noise_scale
from .mechanisms.exponential import (  # noqa: F401 - the selection's names, re-exported
    LOSS_RANGE,
    draw_exponential,
    exact_exponents,
    exact_losses,
    levels_below,
    select,
    select_exact,
    selection_probabilities,
    split_levels,
    validation_losses,
)
from .mechanisms.lambda_grid import DEFAULT_GRID, LambdaChoice, check_bound_choice, check_grid, prune_grid
from .mechanisms.output_perturbation import sample_l2_laplace_unchecked, weighted_ridge_unchecked, calibrate
from .validation import (
    check_dimension,
    check_epsilons,
    check_fraction,
    check_positive,
    check_problem,
    check_rng,
)

__all__ = [
    "LambdaChoice",
    "exact_exponents",
    "exact_losses",
    "levels_below",
    "split_levels",
    "select_exact",
    "draw_exponential",
    "check_grid",
    "data_free_bound",
    "data_free_lambda",
    "public_parts",
    "TuningPlan",
    "tuning_plan",
    "prune_grid",
    "validation_losses",
    "selection_probabilities",
    "select",
    "private_lambda",
    "pruned_lambda",
    "choose_lambda",
    "LOSS_RANGE",
    "DEFAULT_GRID",
]


def _check_prior(R) -> float:
    return check_positive(R, "R")



def data_free_bound(lam, epsilons, d, R, B=None, *, capped: bool = True) -> float:
    r"""The bound :math:`U(\lambda)` on PDP-OP's expected excess risk (prop. *prop-data-free-bound*).

    For points drawn i.i.d. from any distribution on the domain (``x`` in ``[0, 1]^d``, ``y`` in
    ``[-1, 1]``) and any :math:`\theta^*` with :math:`\|\theta^*\| \le R`,

    .. math::

        \mathbb E\,\mathcal R(\hat\theta) - \mathcal R(\theta^*) \le
        \min(\lambda R^2, 1) + \lambda C_\lambda^2 \sum_i w_i^2 + \frac{d(d+1)\,C_\lambda^2}{S^2},

    with :math:`\mathcal R(\theta) = \mathbb E(y - x^\top\theta)^2`.  The first term is the
    ridge bias :math:`\lambda R^2`, capped at 1 because the weighted ridge fits the training points
    no worse than the zero model, whose expected loss :math:`\mathbb E y^2` is at most 1
    (``capped=False``: the uncapped :math:`\lambda R^2`, also a bound, kept to show what the cap
    changes).  Then the
    replace-one stability of the weighted ridge (its sensitivity :math:`w_i C_\lambda` times the
    loss's Lipschitz constant :math:`\lambda C_\lambda`) and the noise part
    :math:`\mathbb E Z^\top\Sigma_x Z \le d(d+1)/\eta^2`.  Derived in the book's chapter
    *Choosing λ*.

    Parameters
    ----------
    lam : float
        ``lambda > 0``.
    epsilons : array-like of shape (n,)
        The public privacy levels.
    d : int
        Number of features.
    R : float
        A public radius ``> 0``, fixed before the data are seen: the bound holds for every
        comparator :math:`\theta^*` of norm at most ``R``.
    B : None or "sharp", optional
        The norm bound of the calibration (:func:`pdp_lib.calibrate`).
    capped : bool, default True
        Cap the bias term at 1, the largest expected loss of the zero model on the domain.

    Returns
    -------
    float
    """
    if not isinstance(capped, (bool, np.bool_)):
        raise TypeError(f"capped must be True or False, got {capped!r}")
    B = check_bound_choice(B)
    eps = check_epsilons(epsilons)
    lam = check_positive(lam, "lam")
    d = check_dimension(d)
    R = _check_prior(R)
    return _bound_value(lam, d, R, B, float(eps.sum()), float(np.sum(eps * eps)), capped)


def _bound_value(lam, d, R, B, S, sum_sq, capped) -> float:
    """:func:`data_free_bound` for checked arguments, ``S = sum(eps)`` and ``sum_sq = sum(eps**2)``."""
    C = noise_scale(lam, d, B)
    bias = min(lam * R * R, 1.0) if capped else lam * R * R
    return float(bias + C * C * (lam * sum_sq + d * (d + 1)) / (S * S))


def data_free_lambda(grid, epsilons, d, R, B=None, *, capped: bool = True) -> float:
    """The grid value minimizing :func:`data_free_bound` (the first in the grid's order, on a tie).

    Reads the grid, ``d``, the privacy levels, ``R`` and ``B``: no data, so it spends no
    privacy.  ``capped``: minimize the capped bound (the default) or the uncapped one.  Derived in
    the book's chapter *Choosing λ*.
    """
    lams = check_grid(grid)
    if not isinstance(capped, (bool, np.bool_)):
        raise TypeError(f"capped must be True or False, got {capped!r}")
    B = check_bound_choice(B)
    eps = check_epsilons(epsilons)
    d = check_dimension(d)
    R = _check_prior(R)
    S, sum_sq = float(eps.sum()), float(np.sum(eps * eps))   # read once: the bound's levels enter as these
    bounds = [_bound_value(check_positive(lam, "lam"), d, R, B, S, sum_sq, capped) for lam in lams]
    return float(lams[int(np.argmin(bounds))])


def public_parts(epsilons, k: int, validation_fraction=None) -> tuple:
    """A partition of the points into ``k`` candidate parts and a validation part, read from the levels alone.

    The points are sorted by privacy level (ties by index).  With ``validation_fraction=None``
    they are dealt round-robin into ``k + 1`` parts, the last being the validation part; with a
    fraction ``v``, every point whose rank ``t`` (from 0) has ``floor((t + 1) v) > floor(t v)``
    goes to the validation part (``floor(n v)`` points spread evenly over the levels) and the
    others are dealt round-robin into the ``k`` candidate parts.  Either way the parts' sums of
    levels are close.  The partition depends on nothing but ``epsilons``, which are public: it
    spends no privacy.

    Returns
    -------
    (list of numpy.ndarray, numpy.ndarray)
        The ``k`` candidate parts and the validation part: sorted index arrays, disjoint,
        non-empty, covering ``0 .. n-1``.
    """
    eps = check_epsilons(epsilons)
    n = eps.size
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or not 1 <= k <= n - 1:
        raise ValueError(f"k = {k!r} is outside the allowed range [1, {n - 1}]: every part needs a point, "
                         f"and the validation part one more")
    order = np.argsort(eps, kind="stable")
    if validation_fraction is not None:
        validation_fraction = check_fraction(validation_fraction, "validation_fraction", closed_low=False,
                                             closed_high=False)
    return _deal(order, int(k), validation_fraction)


def _deal(order, k: int, v, validation: bool = True):
    """:func:`public_parts` from the points' order by level, for a checked ``k`` and ``v`` (None or a float).

    ``validation=False``: the validation part is not formed (None in its place).
    """
    n = order.size
    if v is None:
        parts = [np.sort(order[p::k + 1]) for p in range(k + (1 if validation else 0))]
        return (parts[:-1], parts[-1]) if validation else (parts, None)
    to_val = _to_validation(n, k, v)
    rest = order[~to_val]
    return [np.sort(rest[p::k]) for p in range(k)], (np.sort(order[to_val]) if validation else None)


def _to_validation(n: int, k: int, v: float) -> np.ndarray:
    """Which ranks of the points' order by level :func:`_deal` gives to validation: a share ``v``, spread evenly;
    ``ValueError`` unless it leaves at least one point to validation and one to each of ``k`` candidates."""
    t = np.arange(n)
    to_val = np.floor((t + 1) * v) > np.floor(t * v)
    if not 1 <= to_val.sum() <= n - k:
        raise ValueError(f"validation_fraction = {v!r} leaves {int(to_val.sum())} of {n} points for validation: "
                         f"it must leave at least one, and one for each of the {k} candidates")
    return to_val



def candidate_models(X, y, eps, parts, lams, alpha, B, gen, size):
    """PDP-OP at ``lams[k]`` on ``parts[k]`` with budgets ``alpha * eps``: shape ``(size, K, d)``."""
    d = X.shape[1]
    out = np.empty((size, len(lams), d))
    for k, (idx, lam) in enumerate(zip(parts, lams)):
        cal = calibrate(alpha * eps[idx], lam, d, B)
        theta_bar = weighted_ridge_unchecked(X[idx], y[idx], np.asarray(cal.weights), lam)
        out[:, k] = theta_bar + sample_l2_laplace_unchecked(cal.eta, d, size, gen)
    return out


def private_lambda(X, y, epsilons, grid, *, alpha: float = 1.0, validation_fraction=None, B=None,
                   rng=None, sampler="exact") -> LambdaChoice:
    """Private tuning with personalized budgets (proposition *prop-private-tuning*).

    The grid is first pruned by :func:`prune_grid` (public); the points are split by
    :func:`public_parts` into one part per remaining candidate and a validation part (the
    last); candidate ``k`` is PDP-OP on its part with budgets ``alpha * eps``; the
    personalized exponential mechanism picks one.  Each point spends ``alpha * eps_i``.
    With ``alpha = 1`` release ``choice.models[k]`` for the chosen ``k`` (see
    :func:`choose_lambda`); with ``alpha < 1`` refit PDP-OP at ``choice.lam`` on all the
    points with budgets ``(1 - alpha) * eps``.  With ``sampler="float"`` the candidates are drawn with
    the floating-point sampler and the selection in floating point: the guarantee holds over the real
    numbers only.  With ``sampler="exact"`` each candidate is a lattice release, its levels ``alpha eps_i``
    rounded down (:func:`split_levels`), and the selection is drawn exactly (:func:`select_exact`): the
    guarantee holds for the computed choice (``PersonalizedRidge(lam="auto")``'s default).  Its running
    time is not covered: the number of proposals and the size of the integers depend on the data.

    Parameters
    ----------
    X, y, epsilons : array-like
        The problem, in the domain (:func:`pdp_lib.pdp_op`).
    grid : array-like
        Candidate values of ``lambda``, each in ``(0, inf)``, fixed before the data are seen.
    alpha : float, default 1
        Share of each budget spent on the choice, in ``(0, 1]``.
    validation_fraction : None or float, optional
        The validation part's share of the points, in ``(0, 1)`` (:func:`public_parts`);
        ``None``: an equal share with each candidate.
    B : None or "sharp", optional
        The calibration's norm bound (:func:`pdp_lib.calibrate`): both hold on every part.
    rng : None, int or numpy.random.Generator
        Source of the candidates' noise and of the selection (with ``sampler="exact"``, also a
        :class:`pdp_lib.mechanisms.exact_sampling.RandomBits`).
    sampler : {"exact", "float"}, default "exact"
        As above; ``"float"`` for the experiments, asked for by name.

    Returns
    -------
    LambdaChoice
    """
    from .mechanisms.exact_sampling import RandomBits
    from .mechanisms.lattice import check_sampler
    from .mechanisms.output_perturbation import run_pdp_op

    X, y, eps, _ = check_problem(X, y, epsilons)
    lams = check_grid(grid)
    alpha = check_fraction(alpha, "alpha", closed_low=False)
    B = check_bound_choice(B)
    sampler = check_sampler(sampler)
    if sampler == "exact" and not isinstance(rng, RandomBits):
        rng = RandomBits(None if rng is None else check_rng(rng))
    gen = rng if sampler == "exact" else check_rng(rng)
    plan = tuning_plan(eps, lams, X.shape[1], alpha, validation_fraction, B)
    val = plan.validation
    if sampler == "exact":
        shares = split_levels(eps, alpha)[0]          # alpha eps_i rounded down: never more than the share
        models = np.array([run_pdp_op(X[idx], y[idx], shares[idx], lam, B, gen, sampler="exact")[0]
                           for idx, lam in zip(plan.parts, plan.candidates)])
        k = select_exact(models, X[val], y[val], eps[val], alpha, gen)
    else:
        models = candidate_models(X, y, eps, plan.parts, plan.candidates, alpha, B, gen, 1)[0]
        k = select(validation_losses(models, X[val], y[val]), eps[val], alpha, gen)
    return LambdaChoice(lam=float(plan.candidates[k]), rule="private", spent=alpha * eps,
                        candidates=plan.candidates, index=k, models=models)


@dataclass(frozen=True)
class TuningPlan:
    """The public part of private tuning: the candidates kept and the partition of the points."""

    candidates: np.ndarray
    parts: list
    validation: np.ndarray


def tuning_plan(epsilons, grid, d: int, alpha: float = 1.0, validation_fraction=None, B=None) -> TuningPlan:
    """Candidates and partition of private tuning, from public quantities only.

    At most ``k_max`` candidates fit: ``n - 1`` (every part needs a point), or with a validation
    share ``v``, ``n - floor(n v)``.  The grid is pruned by :func:`prune_grid` with the budget sums
    the released model is actually calibrated on:

    * ``alpha < 1`` (a refit on all the points): ``(1 - alpha) S``; of the values kept, the
      ``k_max`` largest are the candidates;
    * ``alpha = 1`` (a candidate is released): the sums of the candidate parts themselves.  For
      each count ``K`` from 1 to ``k_max`` the points are split into ``K`` candidate parts
      (:func:`public_parts`) and the grid is pruned with the smallest of their sums ``S_K``; the
      candidates are the ``K`` largest values kept for the largest ``K`` that keeps at least
      ``K`` values (the largest grid value alone if none does).  Every candidate then passes the
      pruning at the sum of the part it is trained on.

    Reads the levels, the grid, ``d`` and the settings: nothing private.  Derived in the book's
    chapter *Choosing λ* (algorithm *alg-private-tuning*, step 1).
    """
    eps, candidates, validation_fraction = _plan_candidates(epsilons, grid, d, alpha, validation_fraction, B)
    parts, validation = public_parts(eps, candidates.size, validation_fraction)
    return TuningPlan(candidates=candidates, parts=parts, validation=validation)


def _plan_candidates(epsilons, grid, d, alpha, validation_fraction, B) -> tuple:
    """``(eps, candidates, validation_fraction)`` of :func:`tuning_plan`, checked, without forming the parts."""
    eps = check_epsilons(epsilons)
    lams = check_grid(grid)
    d = check_dimension(d)
    alpha = check_fraction(alpha, "alpha", closed_low=False)
    B = check_bound_choice(B)
    if eps.size < 2:
        raise ValueError(f"epsilons has {eps.size} entries: private tuning needs at least 2 points "
                         f"(a candidate part and a validation part)")
    n = eps.size
    if validation_fraction is None:
        room = n - 1
    else:
        validation_fraction = check_fraction(validation_fraction, "validation_fraction", closed_low=False,
                                             closed_high=False)
        m = int(np.floor(n * validation_fraction))
        if not 1 <= m <= n - 1:
            raise ValueError(f"validation_fraction = {validation_fraction!r} gives {m} of the {n} points to "
                             f"validation: it must leave at least one to validation and one to the candidates")
        room = n - m
    k_max = min(lams.size, room)
    if alpha < 1.0:
        kept = prune_grid(lams, d, (1.0 - alpha) * float(eps.sum()), B)
        candidates = np.sort(kept)[-k_max:]
    else:
        candidates = _self_consistent_candidates(eps, lams, d, k_max, validation_fraction, B)
    return eps, candidates, validation_fraction


def pruned_lambda(grid, epsilons, d: int, validation_fraction=0.5, B=None) -> float:
    """The smallest candidate of private tuning's public plan: a rule that spends nothing.

    :func:`tuning_plan` with ``alpha = 1`` and ``validation_fraction`` keeps the grid values whose
    noise bound passes at the sums of the parts they would be trained on; this rule takes the
    smallest of them, to fit PDP-OP on all the points with the full budgets.  It reads the grid,
    the levels, ``d`` and the settings: no data, so it is 0-DP.  In the chapter *Choosing λ* it is
    the public rule the comparison recommends on the data measured there.
    """
    return float(_plan_candidates(epsilons, grid, d, 1.0, validation_fraction, B)[1].min())


def _self_consistent_candidates(eps, lams, d, k_max, validation_fraction, B) -> np.ndarray:
    """The ``alpha = 1`` candidates of :func:`tuning_plan`: pruned at the sums of their own parts.

    The plan takes the largest count ``k`` of parts whose grid, pruned at the smallest of the ``k`` parts' sums, keeps
    at least ``k`` values, and those values' ``k`` largest; the counts are tried from ``k_max`` down, so the parts of
    the counts below the one it takes are never dealt (at large ``n`` it is often ``k_max``, the first tried).
    """
    noise = np.array([d * (d + 1) * noise_scale(lam, d, B) ** 2 for lam in lams])
    smallest = _smallest_part_sums(eps, k_max, validation_fraction)
    for k in range(k_max, 0, -1):
        kept = np.sort(lams[noise / smallest(k) ** 2 <= 1.0])
        if kept.size >= k:
            return kept[-k:]
    return np.sort(lams)[-1:]


def _smallest_part_sums(eps, k_max: int, validation_fraction):
    """``smallest(k)`` for ``k = 1 .. k_max``: the smallest sum of the levels of the ``k`` candidate parts of
    :func:`public_parts`, dealt when first asked for.

    They read the levels and the plan only, not ``d``, the grid or the bound, so the last few levels' sums are kept,
    keyed on a digest of the levels' bits (the rules of a sweep over ``d`` or the data ask for the same ones again).
    """
    key = (hashlib.blake2b(eps.tobytes(), digest_size=16).digest(), eps.size, validation_fraction)
    if key not in _PART_SUMS:
        order = np.argsort(eps, kind="stable")    # public_parts's order, for every k
        # the ranks dealt to validation do not depend on k (k_max <= the points left to the candidates)
        rest = order if validation_fraction is None else order[~_to_validation(eps.size, k_max,
                                                                              validation_fraction)]
        _PART_SUMS[key] = {"order": order, "rest": rest, "sums": {}}
        while len(_PART_SUMS) > 8:
            _PART_SUMS.pop(next(iter(_PART_SUMS)))
    entry = _PART_SUMS[key]

    def smallest(k: int) -> float:
        if k not in entry["sums"]:
            labels = _deal_labels(entry["order"], entry["rest"], k, validation_fraction)
            entry["sums"][k] = min(_part_sums(eps, labels, k))
        return entry["sums"][k]

    return smallest


_PART_SUMS: dict = {}


def _deal_labels(order, rest, k: int, v) -> np.ndarray:
    """Each point's candidate part under :func:`_deal` (``-1``: the validation part), as an ``int16`` array;
    ``rest``: the points of ``order`` left to the candidates when ``v`` is given."""
    n = order.size
    labels = np.full(n, -1, dtype=np.int16)
    if v is None:
        rank = np.arange(n) % (k + 1)
        labels[order] = np.where(rank < k, rank, -1)
        return labels
    labels[rest] = np.arange(rest.size) % k
    return labels


def _part_sums(eps, labels, k: int) -> list:
    """``float(eps[idx].sum())`` for each part's sorted index array ``idx``: a stable (radix) sort of the labels
    lists each part's points in increasing index, so each sum adds the same numbers in the same order."""
    grouped = eps[np.argsort(labels, kind="stable")]
    ends = np.cumsum(np.bincount(labels + 1, minlength=k + 1))       # the validation part (-1) first
    return [float(np.array(grouped[ends[p]:ends[p + 1]]).sum()) for p in range(k)]


def choose_lambda(X, y, epsilons, grid, rule: str = "private", *, R=None, alpha: float = 1.0,
                  validation_fraction=None, B=None, rng=None, sampler="exact") -> LambdaChoice:
    """Choose ``lambda`` from ``grid`` by a rule whose privacy cost is known.

    ``rule="data-free"``: :func:`data_free_lambda` with the public prior ``R``.  ``rule="pruned"``:
    :func:`pruned_lambda` (``validation_fraction`` names the plan it reads; ``None``: 1/2, as in
    :func:`pruned_lambda` and ``PersonalizedRidge(lam="pruned")``).
    Both are public: ``X`` and ``y`` are checked but not read, and no privacy is spent.
    ``rule="private"``: :func:`private_lambda` with the share ``alpha`` and the ``sampler`` (exact by default;
    ``"float"`` for the experiments).  Derived in the book's chapter *Choosing λ*.

    Returns
    -------
    LambdaChoice
    """
    if rule in ("data-free", "pruned"):
        X, y, eps, _ = check_problem(X, y, epsilons)
        alpha_unused = isinstance(alpha, numbers.Real) and not isinstance(alpha, bool) and float(alpha) == 1.0
        if rule == "data-free" and validation_fraction is not None:
            raise ValueError("validation_fraction applies to rule='private' or 'pruned' only: the data-free "
                             "rule reads no plan")
        if not alpha_unused or rng is not None:
            raise ValueError(f"alpha and rng apply to rule='private' only: the {rule} rule spends nothing and "
                             f"draws nothing")
        lams = check_grid(grid)
        if rule == "pruned":
            if R is not None:
                raise ValueError("R applies to rule='data-free' only: the pruned rule reads no prior")
            v = 0.5 if validation_fraction is None else validation_fraction
            lam = pruned_lambda(lams, eps, X.shape[1], v, B)
            kept = tuning_plan(eps, lams, X.shape[1], 1.0, v, B).candidates
            return LambdaChoice(lam=lam, rule="pruned", spent=np.zeros_like(eps), candidates=kept)
        if R is None:
            raise ValueError("R is required by the data-free rule: a public radius in (0, inf)")
        return LambdaChoice(lam=data_free_lambda(lams, eps, X.shape[1], R, B), rule="data-free",
                            spent=np.zeros_like(eps), candidates=lams)
    if rule == "private":
        if R is not None:
            raise ValueError("R applies to rule='data-free' only: private tuning reads no prior")
        return private_lambda(X, y, epsilons, grid, alpha=alpha, validation_fraction=validation_fraction,
                              B=B, rng=rng, sampler=sampler)
    raise ValueError(f"rule = {rule!r} is not allowed; choose 'data-free', 'pruned' or 'private'")
