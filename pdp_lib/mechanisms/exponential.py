r"""The personalized exponential mechanism over candidate models, in floating point and exactly.

Each candidate ``k`` is scored by its validation losses :math:`\ell_j(k) = |y_j - \mathrm{clip}(x_j^\top
\hat\theta_k, -1, 1)|` (:func:`validation_losses`), and drawn with probability proportional to
:math:`\exp(-\sum_j u_j \ell_j(k))`, :math:`u_j = \alpha\varepsilon_j / (2L)` (:func:`selection_probabilities`,
:func:`select`); :func:`select_exact` draws the same law in integer arithmetic with exact coins, as the exact
releases need.  :func:`split_levels` splits each level into two parts that never spend more than the level.
Derived in the book's chapter *Choosing λ* (proposition *prop-private-tuning*).
"""

from __future__ import annotations

import numpy as np

from ..validation import check_epsilons, check_fraction, check_rng

__all__ = ["LOSS_RANGE", "validation_losses", "selection_probabilities", "selection_rates", "scored_probabilities",
           "select", "exact_exponents",
           "dyadic_integers", "levels_below", "split_levels", "exact_losses", "select_exact", "draw_exponential"]

LOSS_RANGE = 2.0
"""Range of a validation loss :math:`|y - \\mathrm{clip}(x^\\top\\theta)|` with ``y`` in ``[-1, 1]``."""



def validation_losses(models, X_val, y_val) -> np.ndarray:
    r""":math:`\ell_j(k) = |y_j - \mathrm{clip}(x_j^\top\hat\theta_k, -1, 1)|`, shape ``(..., K, m)``.

    Each loss lies in ``[0, 2]`` (:data:`LOSS_RANGE`) whatever the model, because the prediction
    is clipped to the label range (public post-processing of the model).
    """
    return _validation_losses(np.asarray(models, dtype=float), np.asarray(X_val, dtype=float),
                              np.asarray(y_val, dtype=float))


def _validation_losses(models: np.ndarray, X_val: np.ndarray, y_val: np.ndarray) -> np.ndarray:
    """:func:`validation_losses` of float arrays, formed in place in the product's array where the result has the
    product's shape (the same floats); otherwise (a scalar product, labels that broadcast it) as written."""
    out = models @ X_val.T
    if not isinstance(out, np.ndarray) or out.ndim == 0 or np.broadcast_shapes(out.shape, y_val.shape) != out.shape:
        return np.abs(y_val - np.clip(out, -1.0, 1.0))
    np.clip(out, -1.0, 1.0, out=out)
    np.subtract(y_val, out, out=out)
    return np.abs(out, out=out)


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
    return _probabilities(ell, selection_rates(eps, alpha))


def selection_rates(epsilons_val: np.ndarray, alpha: float) -> np.ndarray:
    r"""The rates :math:`u_j = \alpha\varepsilon_j / (2L)` of :func:`selection_probabilities`, for checked levels
    and ``alpha``."""
    return alpha * epsilons_val / (2.0 * LOSS_RANGE)


def _probabilities(losses: np.ndarray, u: np.ndarray) -> np.ndarray:
    """:func:`selection_probabilities` of float losses in ``[0, LOSS_RANGE]`` and rates ``u``
    (:func:`selection_rates`), unchecked."""
    score = -(losses @ u)
    score -= score.max(axis=-1, keepdims=True)
    p = np.exp(score)
    return p / p.sum(axis=-1, keepdims=True)


def scored_probabilities(models: np.ndarray, X_val: np.ndarray, y_val: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``selection_probabilities(validation_losses(models, X_val, y_val), ...)`` without the passes over the losses
    that check them, for float arrays: ``y_val`` in ``[-1, 1]`` (the caller checks it, once for many calls) and
    ``u`` from :func:`selection_rates`.  A clipped prediction and such a label are at most 2 apart, and 2 is a
    double, so every loss lies in ``[0, LOSS_RANGE]`` unless the prediction is NaN (a product of finite numbers
    can overflow to ``inf - inf``): a NaN loss makes its row of probabilities NaN, and that is refused here, as the
    checked function refuses the loss.  Otherwise the same floats as the checked functions."""
    p = _probabilities(_validation_losses(models, X_val, y_val), u)
    if np.isnan(p).any():
        raise ValueError(f"losses must lie in the allowed range [0, {LOSS_RANGE}]")
    return p


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
    ui, su = dyadic_integers(np.asarray(epsilons_val, dtype=float))
    a = Fraction(float(alpha)) / (2 * Fraction(LOSS_RANGE))      # u_j = a eps_j, exactly
    q = ui.dot(ell)                                             # su scale q_k / a
    low = min(q)
    return [a * Fraction(int(v - low), su * scale) for v in q]


def dyadic_integers(values) -> tuple:
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
    Xi, sx = dyadic_integers(X)
    Ti, st = dyadic_integers(np.atleast_2d(models))
    yi, sy = dyadic_integers(y)
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
    from .exact_sampling import bernoulli_exp

    while True:
        k = bits.below(len(exponents))
        if bernoulli_exp(exponents[k], bits):
            return k
