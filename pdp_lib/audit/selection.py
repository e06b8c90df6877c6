"""Audits of private tuning's selection (:mod:`pdp_lib.tuning`): its exact privacy loss over neighbours.

Given the candidate models, which no validation point influences, the selection's output is a
distribution over the grid that :func:`pdp_lib.tuning.selection_probabilities` computes exactly.
A validation point's privacy loss is therefore computable for any neighbour:
:func:`selection_loss` gives it, :func:`worst_selection_neighbour` searches the domain for the
neighbour that maximizes it, and :func:`two_candidate_instance` builds the case where the
bound :math:`\\alpha\\varepsilon_j` is nearly attained.  Derived in the book's chapter
*Choosing λ*.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..tuning import selection_probabilities, validation_losses
from ..validation import check_count, check_rng

__all__ = ["selection_loss", "SelectionSearch", "worst_selection_neighbour", "two_candidate_instance"]


def selection_loss(models, X_val, y_val, eps_val, alpha, j, x_new, y_new) -> float:
    """``max_k |log P_D(k) - log P_D'(k)|`` when validation point ``j`` becomes ``(x_new, y_new)``."""
    p = selection_probabilities(validation_losses(models, X_val, y_val), eps_val, alpha)
    X2, y2 = np.array(X_val, dtype=float), np.array(y_val, dtype=float)
    X2[j], y2[j] = x_new, y_new
    q = selection_probabilities(validation_losses(models, X2, y2), eps_val, alpha)
    return float(np.max(np.abs(np.log(p) - np.log(q))))


@dataclass(frozen=True)
class SelectionSearch:
    """The worst neighbour found for one validation point.

    Attributes
    ----------
    loss : float
        The largest privacy loss found, ``max_k |log P_D(k) - log P_D'(k)|``.
    bound : float
        ``alpha * eps_j``, the proved bound.
    x, y : numpy.ndarray, float
        The replacement record that attains ``loss``.
    tried : int
        Replacement records tried.
    """

    loss: float
    bound: float
    x: np.ndarray
    y: float
    tried: int


def worst_selection_neighbour(models, X_val, y_val, eps_val, alpha, j, *, tries: int = 2000,
                              rng=None) -> SelectionSearch:
    """Search the domain for the replacement of validation point ``j`` that leaks the most.

    The loss vector ``l_j(.)`` depends on the replacement only through the clipped predictions
    ``x^T theta_k`` and the label, so the search tries the labels ``-1, 1`` and a grid in
    between, with features at the cube's vertices that maximize or minimize each candidate's
    prediction, the original features and ``tries`` uniform draws of the cube.
    """
    models = np.asarray(models, dtype=float)
    X_val = np.asarray(X_val, dtype=float)
    tries = check_count(tries, "tries")
    gen = check_rng(rng)
    d = models.shape[1]
    xs = [X_val[j], np.zeros(d), np.ones(d)]
    for theta in models:
        xs += [(theta > 0).astype(float), (theta < 0).astype(float)]
    xs += list(gen.uniform(0.0, 1.0, (tries, d)))
    labels = np.concatenate([[-1.0, 1.0], np.linspace(-1, 1, 21)])
    p = selection_probabilities(validation_losses(models, X_val, y_val), eps_val, alpha)
    best, arg = -1.0, None
    Xc, yc = X_val.copy(), np.array(y_val, dtype=float)
    for x in xs:
        for label in labels:
            Xc[j], yc[j] = x, label
            q = selection_probabilities(validation_losses(models, Xc, yc), eps_val, alpha)
            loss = float(np.max(np.abs(np.log(p) - np.log(q))))
            if loss > best:
                best, arg = loss, (np.array(x), float(label))
    return SelectionSearch(loss=best, bound=float(alpha * np.asarray(eps_val)[j]), x=arg[0], y=arg[1],
                           tried=len(xs) * labels.size)


def two_candidate_instance(eps_j: float, others: int = 50, eps_other: float = 1.0):
    """A case where the selection's privacy loss nearly reaches its bound ``alpha * eps_j``.

    ``d = 1``, two candidate models predicting ``+1`` and ``-1`` at ``x = 1``; the ``others``
    validation points (level ``eps_other``, label ``-1``) make the second candidate much better,
    so the first has a small probability; point 0 (level ``eps_j``, label ``+1``) is the one
    audited, and its neighbour has label ``-1``: its losses go from ``(0, 2)`` to ``(2, 0)``.

    Returns
    -------
    models, X_val, y_val, eps_val, (x_new, y_new)
    """
    models = np.array([[2.0], [-2.0]])
    X_val = np.ones((others + 1, 1))
    y_val = np.concatenate([[1.0], -np.ones(others)])
    eps_val = np.concatenate([[eps_j], np.full(others, eps_other)])
    return models, X_val, y_val, eps_val, (np.ones(1), -1.0)
