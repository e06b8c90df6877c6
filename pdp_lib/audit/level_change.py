r"""The privacy loss of a change of one slot's level, the record unchanged.

Definition 2.2 compares datasets that differ in one point's data under one fixed profile.  If
the level of slot ``i`` changes from ``epsilon_i`` to ``epsilon_i'`` and its record stays, the
calibration of Theorem 3.1 changes every weight and the noise parameter ``eta``: the two output
distributions differ in their centres ``theta_bar`` and in their spread, and their log density
ratio (:func:`pdp_lib.audit.log_density_ratio`) is unbounded.  :func:`level_change_loss`
estimates, from draws of the mechanism under both profiles, the ``delta(epsilon)`` of
``(epsilon, delta)``-DP and the probability that the loss exceeds ``epsilon``, on a grid of
``epsilon``.  Derived in the book's chapter *What the guarantee does not cover*
(``book/limits.ipynb``), section *Privacy levels are public and belong to slots*.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..mechanisms.output_perturbation import calibrate, weighted_ridge
from ..validation import check_epsilons, check_positive, check_rng
from .blackbox import sample_mechanism
from .privacy_loss import log_density_ratio

__all__ = ["LevelChange", "level_change_loss"]


@dataclass(frozen=True)
class LevelChange:
    r"""Outcome of :func:`level_change_loss`.

    Attributes
    ----------
    eta : tuple of float
        The noise parameter before and after the change.
    grid : numpy.ndarray of shape (k,)
        The levels ``epsilon`` at which the loss is measured.
    delta : numpy.ndarray of shape (k,)
        Monte Carlo estimate of ``delta(epsilon) = E[(1 - exp(epsilon - L))_+]`` for the loss
        ``L = log p_D / p_D'`` under ``D``, the larger of the two directions.
    exceed : numpy.ndarray of shape (k,)
        Monte Carlo estimate of ``P[L > epsilon]``, the larger of the two directions.
    max_loss : float
        The largest ``|L|`` among the draws.
    eta_part : float
        ``sqrt(d) (eta - eta') / eta``: the part of the loss due to the change of spread.
    centre_part : float
        ``eta' ||theta_bar - theta_bar'||``: the bound on the part due to the shift of the
        centre.
    """

    eta: tuple
    grid: np.ndarray
    delta: np.ndarray
    exceed: np.ndarray
    max_loss: float
    eta_part: float
    centre_part: float

    def at(self, key: str, epsilon: float):
        """The value of the array ``key`` (``"delta"`` or ``"exceed"``) at the grid point nearest
        to ``epsilon`` on a logarithmic scale."""
        if key not in ("delta", "exceed"):
            raise ValueError(f"key = {key!r} is not allowed; use 'delta' or 'exceed'")
        epsilon = check_positive(epsilon, "epsilon")
        return getattr(self, key)[np.argmin(np.abs(np.log(self.grid / epsilon)))]


def level_change_loss(X, y, epsilons, i, new_epsilon, lam, size, rng=None,
                      grid=None) -> LevelChange:
    r"""The privacy loss of changing slot ``i``'s level to ``new_epsilon``, the data unchanged.

    Derived in the book's chapter *What the guarantee does not cover* (``book/limits.ipynb``),
    section *Privacy levels are public and belong to slots*.  Draws ``size`` outputs of PDP-OP
    (Theorem 3.1's calibration) under the profile ``epsilons`` and then ``size`` under the
    profile with ``epsilon_i`` replaced by ``new_epsilon``, both from one generator, and
    evaluates the exact log density ratio of the two output distributions at the draws:

    .. math::

        \delta(\varepsilon) = \mathbb E_{o \sim p_D}\bigl[(1 - e^{\varepsilon - L(o)})_+\bigr],
        \qquad L = \log\frac{p_D}{p_{D'}},

    and ``P[L > epsilon]``, each the larger of the two directions ``D -> D'`` and
    ``D' -> D``.  The loss splits into a change of spread, at most
    ``sqrt(d) (eta - eta') / eta`` in the reported :attr:`LevelChange.eta_part`, and a shift
    of the centre, at most ``eta' ||theta_bar - theta_bar'||``.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
    epsilons : array-like of shape (n,)
        The profile before the change.
    i : int
        The slot whose level changes, ``0 <= i < n``.
    new_epsilon : float
        Its level after the change, ``> 0``.
    lam : float
        ``lam > 0``.
    size : int
        Draws per profile.
    rng : None, int or numpy.random.Generator
    grid : array-like of float, optional
        Levels ``epsilon > 0`` at which to measure; 41 points spaced evenly on a log scale
        from ``1e-4`` to ``1`` by default.

    Returns
    -------
    LevelChange
    """
    eps = check_epsilons(epsilons)
    n = len(eps)
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < n:
        raise ValueError(f"i = {i!r} is outside the allowed range: an integer in [0, {n})")
    eps2 = eps.copy()
    eps2[i] = check_positive(new_epsilon, "new_epsilon")
    grid = np.geomspace(1e-4, 1.0, 41) if grid is None else np.asarray(grid, dtype=float)
    if grid.ndim != 1 or not np.all(grid > 0):
        raise ValueError("grid is outside the allowed range: a 1-d array of levels > 0")
    gen = check_rng(rng)
    d = np.shape(X)[1]
    c1, c2 = calibrate(eps, lam, d), calibrate(eps2, lam, d)
    t1 = weighted_ridge(X, y, c1.weights, lam)
    t2 = weighted_ridge(X, y, c2.weights, lam)
    o1 = sample_mechanism(X, y, eps, lam, size, rng=gen)
    o2 = sample_mechanism(X, y, eps2, lam, size, rng=gen)
    L1 = log_density_ratio(o1, t1, c1.eta, t2, c2.eta)      # log p_D / p_D' under D
    L2 = log_density_ratio(o2, t2, c2.eta, t1, c1.eta)      # log p_D' / p_D under D'
    delta = np.array([max(np.mean(np.clip(1 - np.exp(e - L1), 0, None)),
                          np.mean(np.clip(1 - np.exp(e - L2), 0, None))) for e in grid])
    exceed = np.array([max(np.mean(L1 > e), np.mean(L2 > e)) for e in grid])
    return LevelChange(eta=(c1.eta, c2.eta), grid=grid, delta=delta, exceed=exceed,
                       max_loss=max(np.abs(L1).max(), np.abs(L2).max()),
                       eta_part=np.sqrt(d) * (c1.eta - c2.eta) / c1.eta,
                       centre_part=c2.eta * np.linalg.norm(t1 - t2))
