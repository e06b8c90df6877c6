r"""The exact privacy loss of private selection (:mod:`pdp_lib.mechanisms.private_selection`) in one dimension.

With ``d = 1`` the round's noise is a Laplace variable on the line, and the selection's output
law has a closed form up to one integral per candidate: the zero model with probability
:math:`\gamma(1-p)/(\gamma + (1-\gamma)p)`, and candidate ``k`` at :math:`\theta` with density

.. math::

    \frac{1}{K}\,\frac{\eta_k}{2} e^{-\eta_k|\theta - \bar\theta_k|}\, G(\theta)
    \Big/ \bigl(\gamma + (1-\gamma)\,p\bigr),

where :math:`G(\theta) = P(f(\theta) + L > 0)` is the probability that a round with model
:math:`\theta` passes (``f`` the score before its Laplace draw ``L``), :math:`p` the average of
:math:`G` over a round's candidate and noise, and :math:`\gamma` the stopping probability.
:func:`selection_privacy_loss` computes the largest :math:`|\log|` ratio of these between two
datasets, by quadrature for :math:`p` and on a dense grid of :math:`\theta` for the densities;
:func:`worst_selection_replacement` searches the domain for the replacement of one point that
maximizes it.  Derived in the book's chapter *Choosing λ*.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import integrate

from ..mechanisms.private_selection import round_models, selection_score
from ..validation import check_count, check_rng

__all__ = ["selection_privacy_loss", "SelectionReplacement", "worst_selection_replacement"]


def _log_pass(theta, X, y, eps, rho) -> np.ndarray:
    """``log P(f(theta) + L > 0)`` for a standard Laplace ``L``, on an array of scalar models."""
    f = selection_score(np.asarray(theta, dtype=float)[:, None], X, y, eps, rho)
    # P(L > -f) = 1 - exp(-f)/2 for f >= 0, exp(f)/2 for f < 0
    return np.where(f >= 0, np.log1p(-0.5 * np.exp(-np.abs(f))), f - np.log(2.0))


def _pass_probability(X, y, eps, centres, etas, rho) -> float:
    """The probability ``p`` that a round passes, for ``d = 1``: a quadrature per candidate."""
    kinks = _kinks(X, y)
    p = 0.0
    for c, eta in zip(centres, etas):
        lo, hi = c - 60.0 / eta, c + 60.0 / eta
        pts = np.sort(np.concatenate([[c], kinks[(kinks > lo) & (kinks < hi)]]))[:90]

        def integrand(t, c=c, eta=eta):
            return 0.5 * eta * np.exp(-eta * abs(t - c) + _log_pass(np.array([t]), X, y, eps, rho)[0])

        p += integrate.quad(integrand, lo, hi, points=pts, limit=400, epsabs=1e-13, epsrel=1e-11)[0]
    return p / len(centres)


def _kinks(X, y) -> np.ndarray:
    """The models at which a score term changes slope: ``x_j theta = +-1`` and ``x_j theta = y_j``."""
    x = X[:, 0]
    x = x[x > 0]
    return np.concatenate([1.0 / x, -1.0 / x, y[X[:, 0] > 0] / x])


def _models(a: float, b: float, eta: float, kinks, points: int) -> np.ndarray:
    """Scalar models on which the log-ratio of the output densities is evaluated.

    The log-ratio is piecewise smooth, with breaks at the two centres and at the score's kinks,
    and constant beyond the outermost break: a dense grid over the span of the breaks (and 40 noise
    scales past them), the breaks themselves, and a fine grid around each break.
    """
    breaks = np.concatenate([[a, b], kinks])
    lo, hi = breaks.min() - 40.0 / eta, breaks.max() + 40.0 / eta
    near = (breaks[:, None] + np.linspace(-4.0, 4.0, 81)[None, :] / eta).ravel()
    return np.unique(np.concatenate([np.linspace(lo, hi, points), breaks, near]))


def selection_privacy_loss(X, y, eps, X2, y2, grid, *, stop: float, score_share: float = 0.5, B=None,
                           points: int = 4001) -> float:
    """The largest ``|log|`` ratio of the selection's output laws on two datasets, ``d = 1``.

    Over the zero model's probability and the candidates' densities at the models of
    :func:`_models`: a grid of ``points`` over the span of the centres and the score's kinks, the
    breaks themselves and a fine grid around each.  A grid, so the largest ratio found is a lower
    bound on the supremum, and the search below is a search.
    """
    X, y, eps = np.asarray(X, float), np.asarray(y, float), np.asarray(eps, float)
    X2, y2 = np.asarray(X2, float), np.asarray(y2, float)
    grid = np.asarray(grid, dtype=float)
    _, c1, e1 = round_models(X, y, eps, grid, score_share, B)
    _, c2, e2 = round_models(X2, y2, eps, grid, score_share, B)
    c1, c2 = c1[:, 0], c2[:, 0]
    p1 = _pass_probability(X, y, eps, c1, e1, score_share)
    p2 = _pass_probability(X2, y2, eps, c2, e2, score_share)
    den1, den2 = stop + (1 - stop) * p1, stop + (1 - stop) * p2
    worst = abs(np.log(stop * (1 - p1) / den1) - np.log(stop * (1 - p2) / den2))
    kinks = np.concatenate([_kinks(X, y), _kinks(X2, y2)])
    for a, b, eta in zip(c1, c2, e1):          # the same eta on both: it reads only the levels
        t = _models(a, b, eta, kinks, check_count(points, "points"))
        log1 = -eta * np.abs(t - a) + _log_pass(t, X, y, eps, score_share) - np.log(den1)
        log2 = -eta * np.abs(t - b) + _log_pass(t, X2, y2, eps, score_share) - np.log(den2)
        worst = max(worst, float(np.max(np.abs(log1 - log2))))
    return float(worst)


@dataclass(frozen=True)
class SelectionReplacement:
    """The worst replacement found for one point: its loss, the bound and the replacement."""

    loss: float
    bound: float
    x_new: float
    y_new: float
    tried: int


def worst_selection_replacement(X, y, eps, grid, i, *, stop: float, score_share: float = 0.5, B=None,
                                tries: int = 40, rng=None) -> SelectionReplacement:
    """Search ``(x, y)`` in ``[0, 1] x [-1, 1]`` for the replacement of point ``i`` with the largest loss.

    The corners of the domain first, then uniform draws.  The bound is ``eps[i]``
    (proposition *prop-private-selection*).
    """
    gen = check_rng(rng)
    X, y = np.asarray(X, float), np.asarray(y, float)
    corners = [(xv, yv) for xv in (1e-3, 1.0) for yv in (-1.0, 1.0)]
    cands = corners + [(gen.uniform(1e-3, 1.0), gen.uniform(-1.0, 1.0)) for _ in range(check_count(tries, "tries"))]
    best = (-1.0, None)
    for xv, yv in cands:
        X2, y2 = X.copy(), y.copy()
        X2[i, 0], y2[i] = xv, yv
        loss = selection_privacy_loss(X, y, eps, X2, y2, grid, stop=stop, score_share=score_share, B=B)
        if loss > best[0]:
            best = (loss, (xv, yv))
    return SelectionReplacement(loss=best[0], bound=float(eps[i]), x_new=best[1][0], y_new=best[1][1],
                                tried=len(cands))
