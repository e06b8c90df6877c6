r"""Black-box audits of a whole privacy profile: simultaneous lower confidence bounds on ``delta(eps')``.

Derived in the book's chapter *PDP-OP under approximate DP* (``book/approximate.ipynb``),
section "Auditing the whole curve".  For two neighbouring datasets ``D``, ``D'`` and any event
``S`` fixed before sampling, :math:`(\varepsilon', \delta)`-DP implies

.. math::

    \delta \ge P[M(D) \in S] - e^{\varepsilon'}\, P[M(D') \in S].

The events audited here are :math:`S_t = \{o : s(o) > t\}` for a score ``s`` fixed in advance
(the log likelihood ratio :math:`\log p_D(o) - \log p_{D'}(o)` of the *claimed* mechanism gives
the best events, :math:`S_{\varepsilon'}` for :math:`\delta(\varepsilon')`) and thresholds ``t``
fixed in advance.  A Clopper--Pearson lower bound on :math:`P[M(D) \in S_t]` and an upper bound
on :math:`P[M(D') \in S_t]` (Clopper and Pearson 1934), each at level ``alpha / (2 K)`` for ``K``
thresholds, hold together with probability at least ``1 - alpha`` (Bonferroni); on that event
every

.. math::

    \underline\delta(\varepsilon') = \max_t\,\bigl(\underline p_D(t)
        - e^{\varepsilon'}\, \overline p_{D'}(t)\bigr)

is below :math:`\delta(\varepsilon')`, for every :math:`\varepsilon'` at once, whatever the
mechanism truly does: the score and the thresholds only choose the events.  The cost of the
simultaneous guarantee grows with the number of events, not with the number of
:math:`\varepsilon'` audited (:func:`delta_lower_bounds`).  :func:`audit_privacy_profile` sets the
bounds beside a claimed exact profile: a bound above it refutes the claim (Delta-Siege, Lokna et
al., CCS 2023; Nasr et al., USENIX Security 2023).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import check_finite, check_fraction
from .blackbox import clopper_pearson

__all__ = ["DeltaLowerBounds", "delta_lower_bounds", "ProfileAudit", "audit_privacy_profile"]

_SLACK = 1e-12      # a bound above the exact curve by less than this is rounding, not evidence


def _check_increasing(value, name: str, nonnegative: bool) -> np.ndarray:
    """A 1-D, finite, strictly increasing grid (non-negative when asked); a float copy."""
    arr = check_finite(value, name, ndim=(1,))
    if nonnegative and np.any(arr < 0):
        i = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(f"{name}[{i}] = {float(arr[i])!r} is outside the allowed range [0, inf)")
    steps = np.diff(arr)
    if np.any(steps <= 0):
        i = int(np.flatnonzero(steps <= 0)[0]) + 1
        raise ValueError(f"{name} must be strictly increasing, but {name}[{i}] = {float(arr[i])!r} "
                         f"follows {float(arr[i - 1])!r}")
    return arr


def _exceedances(scores: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """``#{scores > t}`` for every ``t`` in ``thresholds``: one sort and one ``searchsorted``."""
    return scores.size - np.searchsorted(np.sort(scores), thresholds, side="right")


@dataclass(frozen=True)
class DeltaLowerBounds:
    r"""Outcome of :func:`delta_lower_bounds`.

    Attributes
    ----------
    eps_grid : numpy.ndarray of shape (m,)
        The values :math:`\varepsilon'` audited.
    lower : numpy.ndarray of shape (m,)
        The simultaneous lower confidence bounds on :math:`\delta(\varepsilon')`, clipped below at
        0 (a negative bound says nothing: every :math:`\delta` is at least 0).  Non-increasing in
        :math:`\varepsilon'`, like every privacy profile.
    thresholds : numpy.ndarray of shape (K,)
        The thresholds ``t`` of the events ``{score > t}``.
    event : numpy.ndarray of int, shape (m,)
        Index into ``thresholds`` of the event that gives each bound (``-1`` where the bound is
        clipped to 0).
    count_d, count_dprime : numpy.ndarray of int, shape (K,)
        How many scores of ``M(D)``, of ``M(D')``, exceed each threshold.
    n_d, n_dprime : int
        Sample sizes.
    p_d_lower, p_dprime_upper : numpy.ndarray of shape (K,)
        Clopper--Pearson bounds on ``P[M(D) in S_t]`` (lower) and ``P[M(D') in S_t]`` (upper),
        each at level ``alpha / (2 K)``.
    alpha : float
        All ``m`` bounds hold together with probability at least ``1 - alpha``.
    """

    eps_grid: np.ndarray
    lower: np.ndarray
    thresholds: np.ndarray
    event: np.ndarray
    count_d: np.ndarray
    count_dprime: np.ndarray
    n_d: int
    n_dprime: int
    p_d_lower: np.ndarray
    p_dprime_upper: np.ndarray
    alpha: float


def delta_lower_bounds(scores_d, scores_dprime, eps_grid, alpha=0.05, thresholds=None) -> DeltaLowerBounds:
    r"""Simultaneous Clopper--Pearson lower bounds on the privacy profile :math:`\delta(\varepsilon')`.

    For every threshold ``t`` the event is :math:`S_t = \{\text{score} > t\}`; its frequency among
    the outputs of ``M(D)`` gives a lower bound :math:`\underline p_D(t)`, among those of
    ``M(D')`` an upper bound :math:`\overline p_{D'}(t)`, each exact (Clopper--Pearson) at level
    ``alpha / (2 K)`` with ``K`` thresholds.  The bound at :math:`\varepsilon'` is the best event's,
    :math:`\max_t (\underline p_D(t) - e^{\varepsilon'} \overline p_{D'}(t))`, clipped below at 0.
    All ``2 K`` one-sided bounds hold together with probability at least ``1 - alpha``, and on that
    event every reported bound is at most :math:`\delta(\varepsilon')`.

    The guarantee needs the scores to be those of independent outputs, the score function and the
    thresholds fixed before sampling; it holds whatever the mechanism truly does.  With the log
    likelihood ratio :math:`\log p_D(o) - \log p_{D'}(o)` of the claimed mechanism as the score and
    the default thresholds ``t = eps'``, the event at :math:`\varepsilon'` is the claimed
    mechanism's optimal one, which attains :math:`\delta(\varepsilon')` when the claim is true.

    Parameters
    ----------
    scores_d, scores_dprime : array-like of shape (n_d,), (n_dprime,)
        Scores of independent outputs of the mechanism on ``D`` and on ``D'`` (at least one
        each, finite); larger scores point to ``D``.
    eps_grid : array-like of shape (m,)
        The :math:`\varepsilon'` audited: finite, ``>= 0``, strictly increasing, ``m >= 1``.
    alpha : float, default 0.05
        In ``(0, 1)``: one minus the simultaneous confidence level.
    thresholds : array-like of shape (K,), optional
        The thresholds of the events, finite and strictly increasing, chosen before sampling;
        defaults to ``eps_grid``.  Every one is counted in the Bonferroni split, and every bound
        uses the best of them.

    Returns
    -------
    DeltaLowerBounds

    Raises
    ------
    ValueError
        For an argument outside its range, naming it.
    """
    sd = check_finite(scores_d, "scores_d", ndim=(1,))
    sp = check_finite(scores_dprime, "scores_dprime", ndim=(1,))
    grid = _check_increasing(eps_grid, "eps_grid", nonnegative=True)
    alpha = check_fraction(alpha, "alpha", closed_low=False, closed_high=False)
    ts = grid.copy() if thresholds is None else _check_increasing(thresholds, "thresholds", nonnegative=False)
    level = alpha / (2 * ts.size)
    k_d, k_p = _exceedances(sd, ts), _exceedances(sp, ts)
    p_lo = np.atleast_1d(clopper_pearson(k_d, sd.size, level, "lower"))
    p_hi = np.atleast_1d(clopper_pearson(k_p, sp.size, level, "upper"))
    with np.errstate(over="ignore"):
        # (m, K): the bound of every event at every eps'; exp overflows to inf for a huge eps',
        # and p_hi > 0 always (the upper bound of 0 successes is positive), so the bound is -inf
        candidates = p_lo[None, :] - np.exp(grid)[:, None] * p_hi[None, :]
    best = np.argmax(candidates, axis=1)
    raw = candidates[np.arange(grid.size), best]
    positive = raw > 0
    return DeltaLowerBounds(eps_grid=grid, lower=np.where(positive, raw, 0.0), thresholds=ts,
                            event=np.where(positive, best, -1), count_d=k_d, count_dprime=k_p,
                            n_d=int(sd.size), n_dprime=int(sp.size), p_d_lower=p_lo,
                            p_dprime_upper=p_hi, alpha=alpha)


@dataclass(frozen=True)
class ProfileAudit:
    r"""Outcome of :func:`audit_privacy_profile`: the lower bounds beside the claimed exact profile.

    Attributes
    ----------
    bounds : DeltaLowerBounds
        The simultaneous lower bounds.
    exact : numpy.ndarray of shape (m,)
        The claimed :math:`\delta(\varepsilon')` on ``bounds.eps_grid``.
    exceeds : bool
        Whether some lower bound is above the claimed curve (by more than ``1e-12``): the claim
        is refuted at confidence ``1 - alpha``.
    best_ratio : float
        The largest ``lower / exact`` over the ``eps'`` with ``exact > 0`` (NaN if there is none):
        how close the audit comes to the curve.
    best_eps : float
        The :math:`\varepsilon'` at which ``best_ratio`` is reached (NaN if there is none).
    """

    bounds: DeltaLowerBounds
    exact: np.ndarray
    exceeds: bool
    best_ratio: float
    best_eps: float

    @property
    def ratio(self) -> np.ndarray:
        """``lower / exact`` on the grid, NaN where the exact ``delta`` is 0."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.exact > 0, self.bounds.lower / self.exact, np.nan)


def audit_privacy_profile(scores_d, scores_dprime, eps_grid, exact, alpha=0.05, thresholds=None) -> ProfileAudit:
    r"""Audit a claimed privacy profile: :func:`delta_lower_bounds` set beside the exact curve.

    Parameters
    ----------
    scores_d, scores_dprime, eps_grid, alpha, thresholds
        As in :func:`delta_lower_bounds`.
    exact : array-like of shape (m,) or callable
        The claimed :math:`\delta(\varepsilon')` on ``eps_grid`` (each in ``[0, 1]``), or a function
        of one :math:`\varepsilon'` returning it, such as
        ``lambda e: pdp_lib.approximate.l2_privacy_profile(e, d, a)``.

    Returns
    -------
    ProfileAudit

    Raises
    ------
    ValueError
        For an argument outside its range, naming it.
    """
    bounds = delta_lower_bounds(scores_d, scores_dprime, eps_grid, alpha, thresholds)
    grid = bounds.eps_grid
    if callable(exact):
        exact = [float(exact(float(e))) for e in grid]
    ex = check_finite(exact, "exact", ndim=(1,))
    if ex.shape != grid.shape:
        raise ValueError(f"exact must have one value per eps_grid entry ({grid.size}), got shape {ex.shape}")
    bad = (ex < 0) | (ex > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"exact[{i}] = {float(ex[i])!r} is outside the allowed range [0, 1]")
    exceeds = bool(np.any(bounds.lower > ex + _SLACK))
    live = ex > 0
    if live.any():
        ratios = np.where(live, bounds.lower / np.where(live, ex, 1.0), -np.inf)
        i = int(np.argmax(ratios))
        best_ratio, best_eps = float(ratios[i]), float(grid[i])
    else:
        best_ratio = best_eps = float("nan")
    return ProfileAudit(bounds=bounds, exact=ex, exceeds=exceeds, best_ratio=best_ratio, best_eps=best_eps)
