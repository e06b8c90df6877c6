r"""The exact privacy loss of output perturbation (Lemma A.5, Theorems 3.1 and 3.2).

For output perturbation with a fixed ``eta`` the privacy loss between ``D`` and ``D'`` is
exactly ``eta * ||theta_bar(D) - theta_bar(D')||`` (the supremum of the log density ratio
:func:`log_density_ratio`; attained along the direction of the difference).
:func:`realized_privacy_loss` reports it per point against ``epsilon_i``, with the worst
neighbours of :mod:`pdp_lib.audit.neighbours`; :func:`worst_pair_datasets` builds the two
datasets of a slot's worst pair.  Derived in the book's chapter *Privacy of
PDP-OP* (``book/privacy.ipynb``) and used in *What the guarantee does not cover*
(``book/limits.ipynb``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..bounds import sensitivity_bound
from ..mechanisms.output_perturbation import calibrate
from ..validation import check_problem, check_finite, check_positive
from .neighbours import WorstNeighbour, worst_neighbours

__all__ = ["RealizedLoss", "realized_privacy_loss", "log_density_ratio", "worst_pair_datasets"]


@dataclass(frozen=True)
class RealizedLoss:
    r"""Realized worst-case privacy loss of every point under PDP-OP.

    Attributes
    ----------
    loss : numpy.ndarray of shape (n,)
        ``eta * distance``: the exact privacy loss (Lemma A.5, sharpened) of the
        worst pair found for each slot.
    epsilons : numpy.ndarray of shape (n,)
        The promised levels.
    eta : float
        Noise parameter of the calibration.
    bound : numpy.ndarray of shape (n,)
        ``eta * Delta_i`` with ``Delta_i`` of Theorem A.4 (equals ``epsilons`` up
        to rounding).
    neighbours : WorstNeighbour
        The records found.
    """

    loss: np.ndarray
    epsilons: np.ndarray
    eta: float
    bound: np.ndarray
    neighbours: WorstNeighbour


def realized_privacy_loss(X, y, epsilons, lam, B=None, *, pair=False, n_starts=8, n_iter=150,
                          rng=None) -> RealizedLoss:
    r"""Realized privacy loss of each point of ``D`` under PDP-OP (Theorem 3.1, or 3.2 with ``B``).

    For output perturbation with a fixed ``eta`` the smallest ``epsilon`` for
    which the pair ``(D, D')`` satisfies Definition 2.2 is exactly
    ``eta * ||theta_bar(D) - theta_bar(D')||`` (proved in the book's chapter
    *Privacy of PDP-OP*, ``book/privacy.ipynb``).  This function calibrates the mechanism
    with :func:`pdp_lib.calibrate`, searches each slot's worst replacement with
    :func:`worst_neighbours` and returns ``eta`` times the distance found, beside
    ``epsilon_i``.  ``pair=False``: the neighbours of the dataset at hand;
    ``pair=True``: any two records for slot ``i`` given the others.

    Returns
    -------
    RealizedLoss
    """
    X, y, eps, _ = check_problem(X, y, epsilons)
    cal = calibrate(eps, lam, X.shape[1], B)
    nb = worst_neighbours(X, y, cal.weights, lam, pair=pair, n_starts=n_starts, n_iter=n_iter,
                          rng=rng)
    bound = cal.eta * sensitivity_bound(cal.weights, lam, X.shape[1], cal.B)
    return RealizedLoss(loss=cal.eta * nb.distance, epsilons=eps, eta=cal.eta, bound=bound,
                        neighbours=nb)


def log_density_ratio(outputs, theta_a, eta_a, theta_b, eta_b=None) -> np.ndarray:
    r"""``log p_a(o) - log p_b(o)`` for the output densities of two runs of output perturbation.

    ``p(o) = c_d(eta) exp(-eta ||o - theta||)`` with ``c_d(eta) = eta^d Gamma(d/2) /
    (2 pi^{d/2} Gamma(d))``, so

    .. math::

        \log\frac{p_a(o)}{p_b(o)} = d \log\frac{\eta_a}{\eta_b}
            - \eta_a \|o - \theta_a\| + \eta_b \|o - \theta_b\|.

    With ``eta_a = eta_b = eta`` (the default) this is at most
    ``eta ||theta_a - theta_b||`` (triangle inequality), with equality on the ray
    ``o = theta_a + t (theta_a - theta_b)``, ``t >= 0``; with ``eta_a != eta_b`` it is
    unbounded above.

    Parameters
    ----------
    outputs : array-like of shape (m, d) or (d,)
    theta_a, theta_b : array-like of shape (d,)
    eta_a : float
    eta_b : float, optional
        Defaults to ``eta_a``.

    Returns
    -------
    numpy.ndarray of shape (m,) or scalar array
    """
    o = check_finite(outputs, "outputs", ndim=(1, 2))
    ta = check_finite(theta_a, "theta_a", ndim=(1,))
    tb = check_finite(theta_b, "theta_b", ndim=(1,))
    if not (o.shape[-1] == ta.shape[0] == tb.shape[0]):
        raise ValueError(f"outputs, theta_a and theta_b must share d, got {o.shape}, {ta.shape}, {tb.shape}")
    eta_a = check_positive(eta_a, "eta_a")
    eta_b = eta_a if eta_b is None else check_positive(eta_b, "eta_b")
    d = ta.shape[0]
    return (d * np.log(eta_a / eta_b) - eta_a * np.linalg.norm(o - ta, axis=-1)
            + eta_b * np.linalg.norm(o - tb, axis=-1))


def worst_pair_datasets(X, y, neighbours: WorstNeighbour, i):
    r"""The two datasets of slot ``i``'s worst pair: ``D`` and ``D'``, each with one record in slot ``i``.

    Used in the book's chapter *Privacy of PDP-OP* (``book/privacy.ipynb``), section *A
    black-box audit*, to audit the pair that a search of :func:`worst_neighbours` with
    ``pair=True`` found: ``D`` puts ``(x_a[i], y_a[i])`` in slot ``i``, ``D'`` puts
    ``(x_b[i], y_b[i])``, and every other slot keeps the data ``(X, y)``.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
    neighbours : WorstNeighbour
        The records found (``pair=True``; with ``pair=False`` the record ``x_a, y_a`` is
        the data's own).
    i : int
        The slot, one of ``neighbours.indices``.

    Returns
    -------
    X_a, y_a, X_b, y_b : numpy.ndarray
        Copies; ``X`` and ``y`` are not modified.
    """
    X_a, y_a = np.array(X, dtype=float), np.array(y, dtype=float)
    found = np.flatnonzero(np.asarray(neighbours.indices) == i)
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or len(found) != 1:
        raise ValueError(f"i = {i!r} is outside the allowed range: one of the slots searched "
                         "(neighbours.indices)")
    k = int(found[0])
    X_b, y_b = X_a.copy(), y_a.copy()
    X_a[i], y_a[i] = neighbours.x_a[k], neighbours.y_a[k]
    X_b[i], y_b[i] = neighbours.x_b[k], neighbours.y_b[k]
    return X_a, y_a, X_b, y_b
