r"""Test instances for the lemmas of Appendix A.1: strong convexity (Lemma A.3) and Theorem A.4.

:func:`strongly_convex_pair` draws a random pair ``(G, g)`` for which Lemma A.3 applies, and
:func:`minimize_smooth` finds the minimizers the lemma compares; :func:`slot_search` runs the
worst-neighbour search of :mod:`pdp_lib.audit.neighbours` on the slots of one configuration
and returns, next to the distances found, the two bounds they must stay under (Theorem A.4
with ``B(lambda)`` and with ``B*(lambda)``) and the floor they must reach
(:func:`~pdp_lib.audit.neighbours.vertex_lower_bound`).  Used in the book's chapter
*Sensitivity of the weighted ridge solution* (``book/sensitivity.ipynb``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from ..bounds import sensitivity_bound, sharp_norm_bound
from ..validation import check_count, check_data, check_dimension, check_positive, check_rng
from .neighbours import vertex_lower_bound, worst_neighbours

__all__ = ["strongly_convex_pair", "minimize_smooth", "SlotSearch", "slot_search"]


def strongly_convex_pair(rng, d, gamma, convex_g=True):
    r"""A random pair ``(G, g)`` for Lemma A.3: ``G`` is ``gamma``-strongly convex, so is ``G + g``.

    With a random rotation ``Q`` and ``mu = 0`` (``convex_g``) or ``mu = gamma / 2``,

    .. math::

        G(\theta) = \tfrac12 \theta^\top P\theta + q^\top\theta
                    + \sum_{k=1}^3 \log\cosh(a_k^\top\theta),\qquad
        g(\theta) = r^\top\theta + \sum_{k=1}^3 c_k \log(1 + e^{b_k^\top\theta})
                    - \tfrac{\mu}{2}\|\theta\|^2,

    where ``P = Q diag(gamma + mu, gamma + mu + E_2, ...) Q^T`` with exponential ``E_j``
    (mean 2) has smallest eigenvalue exactly ``gamma + mu``.  The ``log cosh`` and softplus
    terms are convex, so ``nabla^2 G >= (gamma + mu) I`` and ``nabla^2 (G + g) >= gamma I``;
    ``g`` is convex when ``mu = 0`` and not convex otherwise.  Derived in the book's chapter
    *Sensitivity of the weighted ridge solution* (``book/sensitivity.ipynb``), section *The
    strong-convexity lemma*.

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        Source of ``Q``, the spectrum, ``q``, ``a``, ``b``, ``r`` and ``c``, drawn in this order.
    d : int
        Dimension, ``>= 1``.
    gamma : float
        Strong-convexity modulus, ``> 0``.
    convex_g : bool, default True

    Returns
    -------
    G, g : callable
        Each maps ``theta`` of shape ``(d,)`` to ``(value, gradient)``.
    """
    gen = check_rng(rng)
    d = check_dimension(d)
    gamma = check_positive(gamma, "gamma")
    Q, _ = np.linalg.qr(gen.normal(size=(d, d)))
    mu = 0.0 if convex_g else 0.5 * gamma
    eig = np.concatenate([[gamma + mu], gamma + mu + gen.exponential(2.0, d - 1)])
    P, q = (Q * eig) @ Q.T, gen.normal(size=d)
    a, b = gen.normal(size=(3, d)), gen.normal(size=(3, d))
    r, c = gen.normal(size=d), gen.exponential(1.0, 3)

    def G(t):
        z = a @ t
        value = 0.5 * t @ P @ t + q @ t + np.sum(np.logaddexp(z, -z) - np.log(2))
        return value, P @ t + q + a.T @ np.tanh(z)

    def g(t):
        z = b @ t
        return (r @ t + np.sum(c * np.logaddexp(0, z)) - 0.5 * mu * t @ t,
                r + b.T @ (c / (1 + np.exp(-z))) - mu * t)

    return G, g


def minimize_smooth(f, d) -> np.ndarray:
    """The minimizer of a smooth function by BFGS from the origin (gradient tolerance ``1e-11``).

    Finds ``theta_1`` and ``theta_2`` of Lemma A.3 on the instances of
    :func:`strongly_convex_pair` in the book's chapter *Sensitivity of the weighted ridge
    solution* (``book/sensitivity.ipynb``), section *The strong-convexity lemma*.

    Parameters
    ----------
    f : callable
        Maps ``theta`` of shape ``(d,)`` to ``(value, gradient)``.
    d : int

    Returns
    -------
    numpy.ndarray of shape (d,)
    """
    res = optimize.minimize(f, np.zeros(check_dimension(d)), jac=True, method="BFGS",
                            options={"gtol": 1e-11})
    return res.x


@dataclass(frozen=True)
class SlotSearch:
    """The worst pairs found for some slots of one dataset, with their bounds and floor.

    Attributes
    ----------
    indices : numpy.ndarray of shape (m,)
        Slots searched.
    distance : numpy.ndarray of shape (m,)
        Largest ``||theta_bar(D_{i <- a}) - theta_bar(D_{i <- b})||`` found (both records free).
    bound : numpy.ndarray of shape (m,)
        Theorem A.4 with ``B(lambda)``.
    bound_sharp : numpy.ndarray of shape (m,)
        Theorem A.4 with the exact supremum ``B*(lambda)``.
    vertex : numpy.ndarray of shape (m,)
        The distance of the pair at the all-ones vertex: the floor of the search.
    """

    indices: np.ndarray
    distance: np.ndarray
    bound: np.ndarray
    bound_sharp: np.ndarray
    vertex: np.ndarray


def slot_search(X, y, weights, lam, n_top, n_random, *, n_starts=6, n_iter=120,
                rng=None) -> SlotSearch:
    r"""Search the ``n_top`` heaviest slots and ``n_random`` others for the worst pair of records.

    The heaviest slots come from a stable sort of the weights (ties broken by index, the same
    on every machine); the others are drawn without replacement from the rest.  Each slot is
    searched by :func:`~pdp_lib.audit.neighbours.worst_neighbours` with both records free.
    The book's chapter *Sensitivity of the weighted ridge solution*
    (``book/sensitivity.ipynb``), section *How close does a real neighbour come to the
    bound?*, asserts that every distance stays under both bounds and reaches the floor.

    Parameters
    ----------
    X, y, weights, lam
        As in :func:`pdp_lib.weighted_ridge`.
    n_top, n_random : int
        Slots searched: ``n_top + n_random <= n``.
    n_starts, n_iter : int
        Passed to :func:`~pdp_lib.audit.neighbours.worst_neighbours`.
    rng : None, int or numpy.random.Generator
        Draws the random slots, then the starts of the search.

    Returns
    -------
    SlotSearch
    """
    X, y, w, lam = check_data(X, y, weights, lam)
    n, d = X.shape
    n_top = check_count(n_top, "n_top", minimum=0)
    n_random = check_count(n_random, "n_random", minimum=0)
    if n_top + n_random > n:
        raise ValueError(f"n_top + n_random = {n_top + n_random} is outside the allowed range: "
                         f"at most n = {n}")
    gen = check_rng(rng)
    order = np.argsort(-w, kind="stable")
    idx = np.concatenate([order[:n_top], gen.choice(order[n_top:], n_random, replace=False)])
    res = worst_neighbours(X, y, w, lam, indices=idx, pair=True, n_starts=n_starts,
                           n_iter=n_iter, rng=gen)
    return SlotSearch(
        indices=idx,
        distance=res.distance,
        bound=sensitivity_bound(w, lam, d)[idx],
        bound_sharp=sensitivity_bound(w, lam, d, B=sharp_norm_bound(lam, d))[idx],
        vertex=vertex_lower_bound(X, y, w, lam, indices=idx, pair=True),
    )
