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
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .bounds import noise_scale
from .mechanisms.output_perturbation import _sample_l2_laplace, _weighted_ridge, calibrate
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

DEFAULT_GRID = (0.01, 0.05, 0.1, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 100.0, 300.0, 1000.0)
"""The candidates of ``PersonalizedRidge(lam="auto")`` when none are given: the grid of the paper's Tables 2
and 4 continued to ``10^3``, the grid on which the chapter *Choosing λ* measures what each rule costs."""

LOSS_RANGE = 2.0
"""Range of a validation loss :math:`|y - \\mathrm{clip}(x^\\top\\theta)|` with ``y`` in ``[-1, 1]``."""


@dataclass(frozen=True)
class LambdaChoice:
    """A chosen :math:`\\lambda` and what choosing it cost.

    Attributes
    ----------
    lam : float
        The chosen value.
    rule : str
        ``"data-free"``, ``"pruned"`` or ``"private"``.
    spent : numpy.ndarray of shape (n,)
        The privacy each point spent on the choice: 0 for the public rules, ``alpha * eps_i``
        for private tuning (the release spends the rest).
    candidates : numpy.ndarray
        The grid values the rule chose among (the plan's candidates for the pruned rule and
        private tuning).
    index : int or None
        Private tuning: the position of ``lam`` in ``candidates``.
    models : numpy.ndarray or None
        Private tuning: the candidate models, one row per candidate.  They are private outputs,
        covered by the guarantee (proposition *prop-private-tuning*).

    Notes
    -----
    The selection's distribution over the candidates is deliberately not returned: given the
    candidates it is a fixed function of the validation points, so releasing it would spend no
    noise on them and void their guarantee.  Only the draw from it is released.
    """

    lam: float
    rule: str
    spent: np.ndarray
    candidates: np.ndarray
    index: int | None = None
    models: np.ndarray | None = None


def check_grid(grid, name: str = "grid") -> np.ndarray:
    """A grid of ``lambda`` values as a new float array: non-empty, distinct, each finite and ``> 0``.

    A ``TypeError`` naming the argument when it is not a sequence of real numbers (a string, a
    mapping, ``None``, booleans, complex numbers), a ``ValueError`` naming the argument and the
    allowed range when a value is outside ``(0, inf)``, the grid is empty or a value repeats.
    Nothing is converted silently, and the caller's grid is never changed.
    """
    if isinstance(grid, (str, bytes)) or not isinstance(grid, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a sequence of real numbers (a list, a tuple or an array: an order), "
                        f"got {type(grid).__name__}")
    values = list(grid)
    if not values:
        raise ValueError(f"{name} is empty: give at least one lambda value in (0, inf)")
    arr = np.array([check_positive(v, f"{name}[{i}]") for i, v in enumerate(values)])
    if np.unique(arr).size != arr.size:
        raise ValueError(f"{name} repeats a value: give each lambda once")
    return arr


def _check_prior(R) -> float:
    return check_positive(R, "R")


def _check_bound_choice(B):
    """``B`` of a rule for choosing lambda: None (``B(lambda)``) or ``"sharp"`` (``B*(lambda)``).

    Both hold on every dataset of the domain, which the proofs of the chapter *Choosing λ* need
    (on every part of a partition too); a user's number (Theorem 3.2) is refused.
    """
    if B is None or (isinstance(B, str) and B == "sharp"):
        return B
    raise ValueError(f"B = {B!r} is not allowed when choosing lambda: None (the paper's B(lambda)) or 'sharp' "
                     f"(the exact supremum B*(lambda)), which hold on every dataset of the domain")


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
    B = _check_bound_choice(B)
    eps = check_epsilons(epsilons)
    lam = check_positive(lam, "lam")
    d = check_dimension(d)
    R = _check_prior(R)
    C = noise_scale(lam, d, B)
    S = float(eps.sum())
    bias = min(lam * R * R, 1.0) if capped else lam * R * R
    return float(bias + C * C * (lam * float(np.sum(eps * eps)) + d * (d + 1)) / (S * S))


def data_free_lambda(grid, epsilons, d, R, B=None, *, capped: bool = True) -> float:
    """The grid value minimizing :func:`data_free_bound` (the first in the grid's order, on a tie).

    Reads the grid, ``d``, the privacy levels, ``R`` and ``B``: no data, so it spends no
    privacy.  ``capped``: minimize the capped bound (the default) or the uncapped one.  Derived in
    the book's chapter *Choosing λ*.
    """
    lams = check_grid(grid)
    bounds = [data_free_bound(lam, epsilons, d, R, B, capped=capped) for lam in lams]
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
    if validation_fraction is None:
        parts = [np.sort(order[p::k + 1]) for p in range(int(k) + 1)]
        return parts[:-1], parts[-1]
    v = check_fraction(validation_fraction, "validation_fraction", closed_low=False, closed_high=False)
    t = np.arange(n)
    to_val = np.floor((t + 1) * v) > np.floor(t * v)
    if not 1 <= to_val.sum() <= n - k:
        raise ValueError(f"validation_fraction = {v!r} leaves {int(to_val.sum())} of {n} points for validation: "
                         f"it must leave at least one, and one for each of the {k} candidates")
    rest = order[~to_val]
    return [np.sort(rest[p::k]) for p in range(int(k))], np.sort(order[to_val])


def prune_grid(grid, d: int, release_sums, B=None) -> np.ndarray:
    r"""The grid values whose public noise bound does not exceed the label range's square.

    Keeps :math:`\lambda` when :math:`d(d+1)C_\lambda^2 / S_\lambda^2 \le 1`, where
    :math:`S_\lambda` is the budget sum of the model released at :math:`\lambda`
    (``release_sums``: one number, or one per grid value): its noise part alone,
    :math:`\mathbb E Z^\top\Sigma_x Z \le d(d+1)/\eta^2`, may then stay below the loss of
    predicting 0, which is at most 1.  :math:`C_\lambda` uses the calibration's bound ``B``
    (None or ``"sharp"``).  If no value is kept, the largest is.  Reads only public quantities.
    """
    lams = check_grid(grid)
    d = check_dimension(d)
    B = _check_bound_choice(B)
    sums = np.broadcast_to(np.asarray(release_sums, dtype=float), lams.shape)
    noise = np.array([d * (d + 1) * noise_scale(lam, d, B) ** 2 for lam in lams]) / sums**2
    keep = noise <= 1.0
    return lams[keep] if keep.any() else lams[[int(np.argmax(lams))]]


def validation_losses(models, X_val, y_val) -> np.ndarray:
    r""":math:`\ell_j(k) = |y_j - \mathrm{clip}(x_j^\top\hat\theta_k, -1, 1)|`, shape ``(..., K, m)``.

    Each loss lies in ``[0, 2]`` (:data:`LOSS_RANGE`) whatever the model, because the prediction
    is clipped to the label range (public post-processing of the model).
    """
    pred = np.clip(np.asarray(models, dtype=float) @ np.asarray(X_val, dtype=float).T, -1.0, 1.0)
    return np.abs(np.asarray(y_val, dtype=float) - pred)


def selection_probabilities(losses, epsilons_val, alpha: float = 1.0) -> np.ndarray:
    r"""The personalized exponential mechanism's distribution over the candidates.

    .. math::

        P(k) = \frac{\exp(-\sum_j u_j \ell_j(k))}{\sum_{k'} \exp(-\sum_j u_j \ell_j(k'))},
        \qquad u_j = \frac{\alpha\,\varepsilon_j}{2 L},\ L = 2,

    computed in a numerically stable way.  Changing one validation point ``j`` moves every
    exponent by at most :math:`u_j L`, so every probability by a factor of at most
    :math:`e^{2u_jL} = e^{\alpha\varepsilon_j}` (proposition *prop-private-tuning*).

    Parameters
    ----------
    losses : array-like of shape (..., K, m)
        :func:`validation_losses`, each in ``[0, 2]``.
    epsilons_val : array-like of shape (m,)
        The validation points' privacy levels.
    alpha : float, default 1
        The share of each budget spent on the selection, in ``(0, 1]``.

    Returns
    -------
    numpy.ndarray of shape (..., K)
    """
    ell = np.asarray(losses, dtype=float)
    if np.any(~np.isfinite(ell)) or np.any(ell < 0) or np.any(ell > LOSS_RANGE):
        raise ValueError(f"losses must lie in the allowed range [0, {LOSS_RANGE}]")
    eps = check_epsilons(epsilons_val, ell.shape[-1], name="epsilons_val")
    alpha = check_fraction(alpha, "alpha", closed_low=False)
    u = alpha * eps / (2.0 * LOSS_RANGE)
    score = -(ell @ u)
    score -= score.max(axis=-1, keepdims=True)
    p = np.exp(score)
    return p / p.sum(axis=-1, keepdims=True)


def select(losses, epsilons_val, alpha: float = 1.0, rng=None, size=None):
    """Draw the chosen candidate from :func:`selection_probabilities`: what private tuning releases.

    Parameters
    ----------
    losses, epsilons_val, alpha
        As in :func:`selection_probabilities` (``losses`` of shape ``(K, m)``).
    rng : None, int or numpy.random.Generator
    size : None or int
        ``None``: one index; an int: that many independent draws (for audits).

    Returns
    -------
    int or numpy.ndarray of int

    Notes
    -----
    The guarantee is proved over the real numbers.  In floating point a probability whose
    exponent falls about 745 below the largest underflows to 0, and then a neighbour can make
    possible an outcome that was impossible: pure DP fails at that level, as for the noise sampler
    (book chapter *What the guarantee does not cover*).  At the levels and grids of the book the
    exponents differ by far less.
    """
    p = selection_probabilities(losses, epsilons_val, alpha)
    gen = check_rng(rng)
    if size is None:
        return int(gen.choice(p.size, p=p))
    return gen.choice(p.size, size=size, p=p)


def exact_exponents(models, X_val, y_val, epsilons_val, alpha) -> list:
    r"""The exponential mechanism's exponents, exactly: :math:`x_k = q_k - \min_{k'} q_{k'}` as Fractions.

    :math:`q_k = \sum_j u_j \ell_j(k)` with :math:`u_j = \alpha\varepsilon_j/(2L)` and
    :math:`\ell_j(k) = |y_j - \mathrm{clip}(x_j^\top\hat\theta_k, -1, 1)|`, as in
    :func:`selection_probabilities`, but in integer arithmetic: every double is a dyadic rational, so
    after a common power-of-two scaling the dot products, the clip, the absolute values and the weighted
    sum are integers, with no rounding.  A neighbour moves each :math:`q_k` by at most
    :math:`u_j L = \alpha\varepsilon_j/2`, exactly.
    """
    from fractions import Fraction

    _, ell, scale = exact_losses(models, X_val, y_val)
    ui, su = _integers(np.asarray(epsilons_val, dtype=float))
    a = Fraction(float(alpha)) / (2 * Fraction(LOSS_RANGE))      # u_j = a eps_j, exactly
    q = ui.dot(ell)                                             # su scale q_k / a
    low = min(q)
    return [a * Fraction(int(v - low), su * scale) for v in q]


def _integers(values) -> tuple:
    """Doubles as integers over one power of two, exactly: ``(array of int, scale)``.

    ``v = m 2**k`` with ``m = frexp(v)[0] 2**53`` an exact 54-bit integer (subnormals included); every ``m`` is
    shifted to the smallest ``k``, whose power of two is the scale.
    """
    v = np.asarray(values, dtype=float)
    mant, expo = np.frexp(v.ravel())
    m = (mant * 2.0**53).astype(np.int64)                      # exact: at most 53 significant bits
    k = expo.astype(np.int64) - 53
    low = int(k[m != 0].min()) if np.any(m != 0) else 0
    ints = [int(a) << int(b) for a, b in zip(m, np.maximum(k - low, 0))]     # a zero's shift is any
    if low >= 0:
        return np.array([a << low for a in ints], dtype=object).reshape(v.shape), 1
    return np.array(ints, dtype=object).reshape(v.shape), 1 << -low


def levels_below(exact) -> np.ndarray:
    """For each rational, the largest double at most it: levels that never spend more than the exact share.

    ``exact`` is a sequence of :class:`fractions.Fraction`; the doubles are returned as an array.
    """
    import math
    from fractions import Fraction

    out = np.array([float(q) for q in exact])
    for j, q in enumerate(exact):
        if Fraction(out[j]) > q:
            out[j] = math.nextafter(out[j], -math.inf)
    return out


def split_levels(epsilons, share) -> tuple:
    """``(first, rest)``: doubles with ``first_i <= share eps_i`` and ``rest_i <= (1 - share) eps_i``, exactly.

    ``share`` is taken as the rational its double is; both parts are rounded down, so a mechanism spending
    at most ``share eps_i`` (the candidates at ``first``, or the selection's exact weights) followed by one at
    ``rest`` spends at most ``eps_i`` on point ``i`` (sequential composition), with no rounding upward.
    """
    from fractions import Fraction

    a = Fraction(float(share))
    eps = [Fraction(float(e)) for e in np.ravel(epsilons)]
    return levels_below([a * e for e in eps]), levels_below([(1 - a) * e for e in eps])


def exact_losses(models, X, y) -> tuple:
    r"""``(|y_j|, |y_j - clip(x_j^T theta_k, -1, 1)|, scale)``: integers of shapes ``(m,)``, ``(m, K)``, exactly.

    Both are the integers times ``1/scale``, a power of two: every double is a dyadic rational, so the dot
    products, the clip and the absolute values need no rounding.  ``models`` of shape ``(K, d)``.
    """
    Xi, sx = _integers(X)
    Ti, st = _integers(np.atleast_2d(models))
    yi, sy = _integers(y)
    D = sx * st
    clipped = np.minimum(np.maximum(Xi.dot(Ti.T), -D), D)      # D clip(x_j . theta_k)
    return np.abs(yi) * D, np.abs(yi[:, None] * D - clipped * sy), sy * D


def select_exact(models, X_val, y_val, epsilons_val, alpha, bits) -> int:
    """The personalized exponential mechanism drawn exactly: :func:`exact_exponents` and exact coins.

    Propose ``k`` uniformly, accept it with probability ``exp(-x_k)`` (an exact Bernoulli coin,
    :func:`pdp_lib.mechanisms.exact_sampling.bernoulli_exp`), else propose again: the accepted ``k`` has
    probability proportional to ``exp(-x_k)``, that of :func:`selection_probabilities`, with no rounding.
    At most ``K`` proposals are expected, as the best candidate has ``x_k = 0``.
    """
    return draw_exponential(exact_exponents(models, X_val, y_val, epsilons_val, alpha), bits)


def draw_exponential(exponents, bits) -> int:
    """An index ``k`` with probability proportional to ``exp(-x_k)``, exactly, for rationals ``x_k >= 0``, one 0."""
    from .mechanisms.exact_sampling import bernoulli_exp

    while True:
        k = bits.below(len(exponents))
        if bernoulli_exp(exponents[k], bits):
            return k


def _candidate_models(X, y, eps, parts, lams, alpha, B, gen, size):
    """PDP-OP at ``lams[k]`` on ``parts[k]`` with budgets ``alpha * eps``: shape ``(size, K, d)``."""
    d = X.shape[1]
    out = np.empty((size, len(lams), d))
    for k, (idx, lam) in enumerate(zip(parts, lams)):
        cal = calibrate(alpha * eps[idx], lam, d, B)
        theta_bar = _weighted_ridge(X[idx], y[idx], np.asarray(cal.weights), lam)
        out[:, k] = theta_bar + _sample_l2_laplace(cal.eta, d, size, gen)
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
    from .mechanisms.output_perturbation import _run_pdp_op

    X, y, eps, _ = check_problem(X, y, epsilons)
    lams = check_grid(grid)
    alpha = check_fraction(alpha, "alpha", closed_low=False)
    B = _check_bound_choice(B)
    sampler = check_sampler(sampler)
    if sampler == "exact" and not isinstance(rng, RandomBits):
        rng = RandomBits(None if rng is None else check_rng(rng))
    gen = rng if sampler == "exact" else check_rng(rng)
    plan = tuning_plan(eps, lams, X.shape[1], alpha, validation_fraction, B)
    val = plan.validation
    if sampler == "exact":
        shares = split_levels(eps, alpha)[0]          # alpha eps_i rounded down: never more than the share
        models = np.array([_run_pdp_op(X[idx], y[idx], shares[idx], lam, B, gen, sampler="exact")[0]
                           for idx, lam in zip(plan.parts, plan.candidates)])
        k = select_exact(models, X[val], y[val], eps[val], alpha, gen)
    else:
        models = _candidate_models(X, y, eps, plan.parts, plan.candidates, alpha, B, gen, 1)[0]
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
    eps = check_epsilons(epsilons)
    lams = check_grid(grid)
    d = check_dimension(d)
    alpha = check_fraction(alpha, "alpha", closed_low=False)
    B = _check_bound_choice(B)
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
    parts, validation = public_parts(eps, candidates.size, validation_fraction)
    return TuningPlan(candidates=candidates, parts=parts, validation=validation)


def pruned_lambda(grid, epsilons, d: int, validation_fraction=0.5, B=None) -> float:
    """The smallest candidate of private tuning's public plan: a rule that spends nothing.

    :func:`tuning_plan` with ``alpha = 1`` and ``validation_fraction`` keeps the grid values whose
    noise bound passes at the sums of the parts they would be trained on; this rule takes the
    smallest of them, to fit PDP-OP on all the points with the full budgets.  It reads the grid,
    the levels, ``d`` and the settings: no data, so it is 0-DP.  In the chapter *Choosing λ* it is
    the public rule the comparison recommends on the data measured there.
    """
    return float(tuning_plan(epsilons, grid, d, 1.0, validation_fraction, B).candidates.min())


def _self_consistent_candidates(eps, lams, d, k_max, validation_fraction, B) -> np.ndarray:
    """The ``alpha = 1`` candidates of :func:`tuning_plan`: pruned at the sums of their own parts."""
    noise = np.array([d * (d + 1) * noise_scale(lam, d, B) ** 2 for lam in lams])
    best = np.sort(lams)[-1:]
    for k in range(1, k_max + 1):
        parts, _ = public_parts(eps, k, validation_fraction)
        smallest = min(float(eps[idx].sum()) for idx in parts)
        kept = np.sort(lams[noise / smallest**2 <= 1.0])
        if kept.size >= k:
            best = kept[-k:]
    return best


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
