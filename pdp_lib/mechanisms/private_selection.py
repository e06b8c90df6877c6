r"""Private selection from private candidates, with personalized budgets: every candidate on all the points.

Private tuning (:mod:`pdp_lib.tuning`) trains each candidate on its own part of the points.  The
selection of Liu & Talwar (STOC 2019, Algorithm 1; OpenDP's ``make_select_private_candidate``)
trains every candidate on all of them instead, and pays for it with a factor of two on the
budget.  Derived in the book's chapter *Choosing λ* (algorithm *alg-private-selection*,
proposition *prop-private-selection*).

**One round** :math:`Q` (each point :math:`i` spends :math:`\varepsilon_i/2` on it):

1. draw :math:`\lambda` uniformly from the public grid, pruned first (public) to the values whose noise
   bound at the round's budget sum passes :func:`pdp_lib.tuning.prune_grid`;
2. :math:`\hat\theta` = PDP-OP at :math:`\lambda` on all the points with the levels
   :math:`(1-\rho)\,\varepsilon_i/2`;
3. the score :math:`s = \sum_j u_j\,(|y_j| - |y_j - \mathrm{clip}(x_j^\top\hat\theta)|) + L`, with
   :math:`u_j = \rho\,\varepsilon_j/4` and :math:`L` a standard Laplace draw: each term lies in
   :math:`[-1, 1]`, so point :math:`j` moves :math:`s` by at most :math:`2u_j = \rho\varepsilon_j/2`
   given :math:`\hat\theta`.

**The selection**: repeat :math:`Q`; release :math:`(\lambda, \hat\theta)` of the first round whose
score is positive (the candidate privately beats the zero model); after a round that fails, stop
with probability ``stop`` and release the zero model, which reads no data.  Every point gets
:math:`\varepsilon_i`-DP for the whole procedure (twice the round's :math:`\varepsilon_i/2`).
"""

from __future__ import annotations

import numbers

import numpy as np

from .exact_sampling import RandomBits
from .lattice import check_sampler
from .output_perturbation import sample_l2_laplace_unchecked, weighted_ridge_unchecked, calibrate
from .lambda_grid import LambdaChoice, check_bound_choice, check_grid, prune_grid
from ..validation import check_fraction, check_problem, check_rng

__all__ = ["improvement_terms", "selection_score", "exact_score", "laplace_passes", "round_candidates", "round_models", "run_selection",
           "private_selection", "ROUND_SHARE"]

ROUND_SHARE = 0.5
"""The share of each budget one round spends: the selection as a whole spends twice that."""


def improvement_terms(theta, X, y) -> np.ndarray:
    r""":math:`|y_j| - |y_j - \mathrm{clip}(x_j^\top\theta, -1, 1)|`, each in ``[-1, 1]``; shape ``(..., n)``.

    How much better the clipped prediction of ``theta`` does on point ``j`` than the zero model.
    By the triangle inequality each term is at most :math:`|\mathrm{clip}(x_j^\top\theta)| \le 1` in
    absolute value, whatever ``theta`` and the point.
    """
    from .exponential import _validation_losses     # |y_j - clip(x_j^T theta)|: the validation losses

    y = np.asarray(y, dtype=float)
    losses = _validation_losses(np.asarray(theta, dtype=float), np.asarray(X, dtype=float), y)
    return np.abs(y) - losses


def selection_score(theta, X, y, epsilons, score_share: float) -> np.ndarray:
    r"""The round's score before its Laplace noise: :math:`\sum_j u_j (|y_j| - |y_j - \mathrm{clip}(x_j^\top\theta)|)`.

    With :math:`u_j = \rho\,\varepsilon_j / 4` (``score_share`` :math:`= \rho`): changing point
    ``j`` moves it by at most :math:`2u_j = \rho\varepsilon_j/2`, so with a standard Laplace draw
    added it is :math:`\rho\varepsilon_j/2`-DP for ``j`` given ``theta``.
    """
    u = score_share * np.asarray(epsilons, dtype=float) * ROUND_SHARE / 2.0
    return improvement_terms(theta, X, y) @ u


def round_candidates(grid, model_levels, d: int, B=None) -> np.ndarray:
    """The grid values a round draws from: :func:`pdp_lib.tuning.prune_grid` at the round's model budget sum.

    Public: it reads the grid, ``d``, ``B`` and the levels.  Without it a round could release a model
    whose noise alone costs more than the zero model, and its clipped predictions can still pass the score.
    """
    return prune_grid(grid, d, float(np.sum(model_levels)), B)


def round_models(X, y, eps, grid, rho: float, B=None):
    """A round's candidates (:func:`round_candidates`), their weighted ridge centres and their ``eta``.

    The model of a round is PDP-OP with the levels ``(1 - rho) eps / 2``; ``X, y, eps`` validated.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray)
        The candidates ``(K,)``, the centres ``(K, d)`` and the noise parameters ``(K,)``.
    """
    d = X.shape[1]
    model_levels = (1.0 - rho) * ROUND_SHARE * eps
    lams = round_candidates(grid, model_levels, d, B)
    cals = [calibrate(model_levels, lam, d, B) for lam in lams]
    centres = np.array([weighted_ridge_unchecked(X, y, np.asarray(c.weights), lam) for c, lam in zip(cals, lams)])
    return lams, centres, np.array([c.eta for c in cals])


def run_selection(X, y, eps, lams, centres, etas, rho: float, stop: float, gen, runs: int):
    """``runs`` independent runs of the selection, batched: each repeats rounds until one passes or it stops.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The released models ``(runs, d)`` (zeros for the zero model) and the index of each released
        candidate in ``lams`` (``-1`` for the zero model).
    """
    d = X.shape[1]
    released, index = np.zeros((runs, d)), np.full(runs, -1)
    active = np.arange(runs)
    while active.size:
        k = gen.integers(lams.size, size=active.size)
        theta = centres[k] + sample_l2_laplace_unchecked(1.0, d, active.size, gen) / etas[k][:, None]
        passed = selection_score(theta, X, y, eps, rho) + gen.laplace(size=active.size) > 0
        released[active[passed]], index[active[passed]] = theta[passed], k[passed]
        failed = active[~passed]
        active = failed[gen.random(failed.size) >= stop]
    return released, index


def _check_stop(stop) -> float:
    return check_fraction(stop, "stop", closed_low=False)


def exact_score(theta, X, y, epsilons, score_share: float):
    r""":func:`selection_score` computed exactly, as a :class:`fractions.Fraction` (``theta`` of shape ``(d,)``).

    The terms come from :func:`pdp_lib.tuning.exact_losses` (integers over a power of two) and the weights
    :math:`u_j = \rho\varepsilon_j/4` are exact products of doubles: no rounding anywhere.
    """
    from fractions import Fraction

    from .exponential import dyadic_integers, exact_losses

    absolute, losses, scale = exact_losses(theta, X, y)
    ui, su = dyadic_integers(np.asarray(epsilons, dtype=float))
    total = ui.dot(absolute - losses[:, 0])
    return Fraction(float(score_share)) * Fraction(ROUND_SHARE) / 2 * Fraction(int(total), su * scale)


def laplace_passes(q, bits) -> bool:
    """Whether ``q + L > 0`` for a standard Laplace ``L``, drawn exactly: one coin of the right probability.

    :math:`P(q + L > 0) = 1 - e^{-q}/2` for ``q >= 0`` and :math:`e^{q}/2` for ``q < 0``: a fair bit and, where it
    matters, an exact Bernoulli(:math:`e^{-|q|}`) coin (:func:`pdp_lib.mechanisms.exact_sampling.bernoulli_exp`).
    Only the outcome is used, never ``L``.
    """
    from .exact_sampling import bernoulli_exp

    half = bits.bits(1)
    if q >= 0:
        return half == 0 or not bernoulli_exp(q, bits)
    return half == 1 and bernoulli_exp(-q, bits)


def _run_selection_exact(X, y, eps, lams, rho, stop, B, bits):
    """One run of the selection with lattice releases and exact coins: ``(theta, k)``, ``k = -1`` for zero."""
    from fractions import Fraction

    from .output_perturbation import run_pdp_op

    from .exponential import levels_below

    model_levels = levels_below([(1 - Fraction(float(rho))) * Fraction(ROUND_SHARE) * Fraction(float(e))
                                 for e in eps])        # rounded down: a round spends at most eps_i / 2
    p = Fraction(float(stop))
    while True:
        k = bits.below(lams.size)
        theta = run_pdp_op(X, y, model_levels, float(lams[k]), B, bits, sampler="exact")[0]
        if laplace_passes(exact_score(theta, X, y, eps, rho), bits):
            return theta, k
        if bits.below(p.denominator) < p.numerator:          # stop, with the probability `stop`'s double is
            return np.zeros(X.shape[1]), -1


def private_selection(X, y, epsilons, grid, *, stop=None, score_share: float = 0.5, B=None,
                      rng=None, sampler="exact") -> LambdaChoice:
    """Private selection from private candidates (proposition *prop-private-selection*).

    Parameters
    ----------
    X, y, epsilons : array-like
        The problem, in the domain (:func:`pdp_lib.pdp_op`).
    grid : array-like
        The public candidates for ``lambda``, each in ``(0, inf)``, fixed before the data are seen.
    stop : None or float
        The probability of stopping after a round that fails, in ``(0, 1]``; ``None``: one over
        the number of candidates a round draws from (:func:`round_candidates`).
    score_share : float, default 0.5
        The share ``rho`` of each round's budget spent on the score, in ``(0, 1)``; the model gets
        the rest.
    B : None or "sharp", optional
        The calibration's norm bound.
    rng : None, int or numpy.random.Generator
    sampler : {"exact", "float"}, default "exact"
        ``"exact"``: every round's model is a lattice release, the score is computed exactly
        (:func:`exact_score`), its Laplace test and the stop are exact coins (:func:`laplace_passes`): the
        guarantee holds for the computed output.  ``"float"``: floating-point draws, exact only over the
        reals; for the experiments.

    Returns
    -------
    LambdaChoice
        ``rule = "selection"``; ``candidates`` the values a round draws from
        (:func:`round_candidates`); ``lam`` the released candidate's ``lambda`` (``nan`` when the
        zero model is released), ``models`` its model as one row (zeros for the zero model),
        ``index`` its position in ``candidates`` (None for the zero model), ``spent`` the levels:
        each point spends its whole budget.

    Notes
    -----
    The number of rounds is random, with mean at most ``1 / stop``, and it is not released (nor is the
    running time covered).
    """
    X, y, eps, _ = check_problem(X, y, epsilons)
    lams = check_grid(grid)
    stop = None if stop is None else _check_stop(stop)
    if isinstance(score_share, bool) or not isinstance(score_share, numbers.Real):
        raise TypeError(f"score_share must be a real number, got {type(score_share).__name__}")
    rho = check_fraction(score_share, "score_share", closed_low=False, closed_high=False)
    B = check_bound_choice(B)
    sampler = check_sampler(sampler)
    if sampler == "exact":
        bits = rng if isinstance(rng, RandomBits) else RandomBits(None if rng is None else check_rng(rng))
        lams = round_candidates(lams, (1.0 - rho) * ROUND_SHARE * eps, X.shape[1], B)
        stop = 1.0 / lams.size if stop is None else stop
        theta, k = _run_selection_exact(X, y, eps, lams, rho, stop, B, bits)
        released = theta[None, :]
    else:
        gen = check_rng(rng)
        lams, centres, etas = round_models(X, y, eps, lams, rho, B)
        stop = 1.0 / lams.size if stop is None else stop
        released, index = run_selection(X, y, eps, lams, centres, etas, rho, stop, gen, 1)
        k = int(index[0])
    return LambdaChoice(lam=float(lams[k]) if k >= 0 else float("nan"), rule="selection", spent=eps.copy(),
                        candidates=lams, index=k if k >= 0 else None, models=released)
