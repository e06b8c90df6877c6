r"""Objective perturbation, personalized by re-weighting, on a ball: point ``i`` gets ``epsilon_i``-DP (pure).

The release minimizes the weighted ridge objective of eq. (2) plus a random linear term, over the ball
:math:`\|\theta\| \le R`:

.. math::

    \hat\theta = \arg\min_{\|\theta\| \le R}\ \tfrac12\sum_i w_i (x_i^\top\theta - y_i)^2
    + \tfrac\Lambda2\|\theta\|^2 + b^\top\theta, \qquad \nu(b) \propto e^{-\eta\|b\|},

with :math:`w_i = \varepsilon_i/S`, :math:`S = \sum_j\varepsilon_j`, and :math:`\Lambda \ge \lambda` (Chaudhuri,
Monteleoni & Sarwate, JMLR 2011, Algorithm 2; on a bounded set as Kifer, Smith & Thakurta, COLT 2012).  The
noise :math:`\nu` is the ℓ2-Laplace law of PDP-OP (Remark 3.1).

**Why a ball.**  The proof needs the loss's gradient bounded on the parameter set, and the squared loss's gradient
grows without bound in :math:`\theta`.  On the ball and the domain (:math:`x \in [0, 1]^d`, :math:`y \in [-1, 1]`),
replacing point ``i`` moves the data gradient by at most :math:`w_i G` with
:math:`G = \sqrt d(\sqrt d R + 2)` (:func:`pdp_lib.mechanisms.noisy_gd.gd_sensitivity`, the same bound), and each
point's Hessian :math:`w_i x_i x_i^\top` has rank one and norm at most :math:`w_i d`.

**Privacy** (the book's chapter *Beyond output perturbation*, proposition *prop-objective-privacy*): with
:math:`H = \sum_i w_i x_i x_i^\top + \Lambda I`, an output inside the ball comes from the single noise
:math:`b = c - H\theta` (:math:`c = \sum_i w_i y_i x_i`) and an output on the sphere from the half-line
:math:`b = c - (H + \nu I)\theta`, :math:`\nu \ge 0`.  Changing variables, the ratio of the output's densities
between neighbours is at most :math:`e^{\eta w_i G}` from the noise times :math:`1 + w_i d/\Lambda` from the
Jacobian (a rank-one change of :math:`\det` inside, of :math:`\det(M)\,\theta^\top M^{-1}\theta` on the sphere,
both bounded by the Cauchy--Schwarz inequality; half the logarithm of the published bound, which treats the change
as rank two).  Since :math:`\log(1 + \varepsilon a)/\varepsilon` decreases in :math:`\varepsilon`, the choice

.. math::

    \eta = \frac{S}{G}\Big(1 - \frac{\log(1 + \varepsilon_\min d/(S\Lambda))}{\varepsilon_\min}\Big)

gives every point its :math:`\varepsilon_i`: the smallest level pays the largest share of its budget for the
Jacobian, and :math:`\Lambda` is raised above :math:`\lambda` until that share is at most ``share`` (1/2 by
default, as in the published rule's fallback).  The weights :math:`w_i \propto \varepsilon_i` make both terms
proportional to each level, as in PDP-OP; with the Jacobian's term they are not the weights that maximize
:math:`\eta` (weights that make every point's bound tight allow a few percent more when :math:`\Lambda` is raised).

**Floating point.**  The release is a continuous law pushed through a minimization; no floating-point sampler and
solver reproduce it exactly, and the noise's low bits and the solver's rounding are outside the proof.  So this
module releases only when asked with ``sampler="float"`` (exact over the reals only), the explicit opt-in of
OpenDP's floating-point-unsafe mechanisms; every other release of the library is exact by default.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..bounds import norm_bound
from ..validation import check_fraction, check_positive, check_problem, check_rng
from .noisy_gd import check_radius, gd_sensitivity
from .output_perturbation import sample_l2_laplace_unchecked

__all__ = ["ObjectiveCalibration", "objective_calibration", "constrained_ridge", "objective_perturbation",
           "objective_draws", "check_objective_sampler", "public_lambda", "SHARE", "into_ball",
           "exact_norm_at_most", "exact_norms_at_most"]

SHARE = 0.5
"""The largest share of the smallest level that the Jacobian term may take before the ridge is raised."""

_NEWTON_STEPS = 60
_SMALLEST_LEVEL = 2.0 ** -1000
_SMALLEST_RADIUS = 1e-100


@dataclass(frozen=True)
class ObjectiveCalibration:
    """The public parameters of one release.

    Attributes
    ----------
    eta : float
        The rate of the noise :math:`\\nu(b) \\propto e^{-\\eta\\|b\\|}`.
    ridge : float
        ``Lambda >= lambda``, the ridge the release minimizes with.
    radius : float
        ``R``, the ball.
    jacobian_share : float
        :math:`\\log(1 + \\varepsilon_\\min d/(S\\Lambda))/\\varepsilon_\\min`, the share of every level spent on
        the Jacobian (at most, reached by the smallest level).
    """

    eta: float
    ridge: float
    radius: float
    jacobian_share: float


def objective_calibration(total: float, eps_min: float, lam: float, d: int, radius: float,
                          share: float = SHARE) -> ObjectiveCalibration:
    r"""The noise and the ridge for levels summing to ``total`` with smallest ``eps_min`` (module docstring).

    ``Lambda = lam`` when the Jacobian's share at ``lam`` is at most ``share``; otherwise the ``Lambda`` at which it
    equals ``share``, :math:`d\varepsilon_\min/(S(e^{\rho\varepsilon_\min} - 1))`.
    """
    total, eps_min = check_positive(total, "total"), check_positive(eps_min, "eps_min")
    lam, radius = check_positive(lam, "lam"), check_positive(radius, "radius")
    share = check_fraction(share, "share", closed_low=False, closed_high=False)
    if not eps_min >= _SMALLEST_LEVEL:
        raise ValueError(f"min(epsilons) = {eps_min!r} is outside the allowed range [2**-1000, inf) of objective "
                         f"perturbation: the Jacobian's share of a smaller level is not computed to double precision")

    def spent(ridge: float) -> float:
        return math.log1p(eps_min / total * (d / ridge)) / eps_min

    ridge = lam
    if not spent(lam) <= share:
        ridge = d / total / (math.expm1(share * eps_min) / eps_min)       # no product that underflows
        ridge = max(ridge, math.nextafter(lam, math.inf))
    jacobian = spent(ridge) if math.isfinite(ridge) else math.nan
    eta = total * (1.0 - jacobian) / gd_sensitivity(radius, d)
    if not (eta > 0 and math.isfinite(eta) and math.isfinite(ridge)):
        raise ValueError(f"the noise cannot be drawn: the levels sum to {total!r}, far too little for any use "
                         f"(eta = {eta!r}, ridge = {ridge!r})")
    return ObjectiveCalibration(eta=eta, ridge=ridge, radius=radius, jacobian_share=jacobian)


def public_lambda(grid, epsilons, d: int, share: float = SHARE) -> float:
    r"""The smallest ``lambda`` of ``grid`` whose noise bound is at most 1: a rule that reads no data.

    Inside the ball the release is :math:`\bar\theta_\Lambda - H^{-1}b` and :math:`\|H^{-1}b\| \le \|b\|/\Lambda`,
    with :math:`E\|b\|^2 = d(d+1)/\eta^2` (Remark 3.1).  The rule keeps the values of the grid at which
    :math:`d(d+1)/(\eta\Lambda)^2 \le 1`, with the ball :math:`B(\lambda)`, and takes the smallest (the largest
    of the grid if none passes): the criterion of PDP-OP's pruned rule (:func:`pdp_lib.tuning.pruned_lambda`)
    applied to this mechanism's noise, with every point's level.  It reads the grid, the levels and ``d`` only, so
    it spends nothing.  Compared in the book's chapter *Beyond output perturbation*.
    """
    from ..validation import check_epsilons
    from .lambda_grid import check_grid

    lams, eps = check_grid(grid), check_epsilons(epsilons)
    total, eps_min = math.fsum(eps), float(eps.min())
    kept = []
    for lam in np.sort(lams):
        cal = objective_calibration(total, eps_min, float(lam), d, norm_bound(float(lam), d), share)
        if d * (d + 1) / (cal.eta * cal.ridge) ** 2 <= 1.0:
            kept.append(float(lam))
    return kept[0] if kept else float(np.max(lams))


def constrained_ridge(H, g, radius: float) -> np.ndarray:
    r"""``argmin_{||theta|| <= R} theta' H theta / 2 - g' theta`` for positive definite ``H``; ``g`` of shape ``(k, d)``.

    Inside the ball the minimizer is :math:`H^{-1}g`; otherwise :math:`(H + \nu I)^{-1} g` with the :math:`\nu > 0`
    at which its norm is ``R``, found by Newton's method on :math:`1/\|(H + \nu I)^{-1} g\| - 1/R` (concave and
    increasing in :math:`\nu`, so Newton's iterates from 0 rise monotonically to the root; Moré & Sorensen 1983),
    for every row at once in the eigenbasis of ``H``.  Every returned row lies in the ball exactly, on every machine
    (:func:`into_ball`: its norm is checked in rational arithmetic, not in floating point).
    """
    h, Q = np.linalg.eigh(np.asarray(H, dtype=float))
    g = np.atleast_2d(np.asarray(g, dtype=float))
    gt = g @ Q
    nu = np.zeros(gt.shape[0])
    for _ in range(_NEWTON_STEPS):
        p = gt / (h + nu[:, None])
        norm = np.sqrt(np.sum(p * p, axis=1))
        outside = norm > radius
        if not np.any(outside):
            break
        slope = np.sum(p * p / (h + nu[:, None]), axis=1) / norm ** 3
        step = (1.0 / radius - 1.0 / norm) / slope
        nu = np.where(outside, nu + np.maximum(step, 0.0), nu)
    theta = (gt / (h + nu[:, None])) @ Q.T
    return into_ball(theta, radius)


_BALL_MARGIN = 2.0 ** -30
"""Rows whose floating-point norm is within this relative margin of ``R`` are checked exactly.  A norm computed in
floating point (any order, any kernel) has a relative error of at most about ``(d/2 + 1) 2**-53``, below ``2**-30``
for every ``d < 2**22``, so the rows outside this margin are inside the ball whatever kernel computed the norm."""


def exact_norm_at_most(row, radius: float) -> bool:
    """Whether ``||row||_2 <= radius`` exactly: the squares of the doubles summed as rationals, no rounding at all."""
    return sum(Fraction(float(v)) ** 2 for v in row) <= Fraction(float(radius)) ** 2


_SPLIT = 2.0 ** 27 + 1.0
_SAFE = (2.0 ** -400, 2.0 ** 400)
"""Magnitudes for which Dekker's product below is exact (no overflow in the split, no underflow in the error)."""


def _exact_squares(values: np.ndarray) -> tuple:
    """``(p, e)`` with ``p + e == values**2`` exactly, elementwise: Dekker's product (Dekker 1971), each operation one
    correctly rounded IEEE operation, exact when every nonzero ``|value|`` lies in :data:`_SAFE`."""
    c = _SPLIT * values
    hi = c - (c - values)
    lo = values - hi
    p = values * values
    e = lo * lo - (((p - hi * hi) - lo * hi) - hi * lo)
    return p, e


def exact_norms_at_most(rows, radius: float) -> np.ndarray:
    """:func:`exact_norm_at_most` for every row of ``rows`` at once, with the same answers (exact, not rounded).

    Each square is split exactly into two doubles (:func:`_exact_squares`) and ``math.fsum`` adds them and
    ``-R**2`` (split likewise) with one rounding at the end, which keeps the exact sum's sign (a nonzero sum of
    doubles is at least the smallest subnormal): the row is inside exactly when that sum is at most 0.  A row with
    a nonzero coordinate outside :data:`_SAFE` (or a radius outside it) is checked in rationals instead.
    """
    rows = np.atleast_2d(np.asarray(rows, dtype=float))
    radius = check_positive(radius, "radius")
    if not np.all(np.isfinite(rows)):
        raise ValueError("rows: a row with a non-finite coordinate has no norm to compare")
    size = np.abs(rows)
    safe = np.all((size == 0.0) | ((size >= _SAFE[0]) & (size <= _SAFE[1])), axis=1)
    if not _SAFE[0] <= radius <= _SAFE[1]:
        safe[:] = False
    out = np.empty(rows.shape[0], dtype=bool)
    if np.any(safe):
        p, e = _exact_squares(rows[safe])
        rp, re = _exact_squares(np.array([radius]))
        terms = np.concatenate([p, e, np.full((p.shape[0], 1), -rp[0]), np.full((p.shape[0], 1), -re[0])], axis=1)
        out[safe] = [math.fsum(t) <= 0.0 for t in terms.tolist()]
    for i in np.flatnonzero(~safe):
        out[i] = exact_norm_at_most(rows[i], radius)
    return out


def into_ball(theta, radius: float) -> np.ndarray:
    r"""The rows of ``theta`` with :math:`\|\theta\|_2 \le R` *exactly*, whatever BLAS computed them.

    A row whose floating-point norm exceeds ``R`` is first rescaled onto the sphere (``R / ||theta||``, in floating
    point; a row whose squares overflow is scaled by its largest coordinate first); then every row whose norm is
    within :data:`_BALL_MARGIN` of ``R`` is checked exactly (:func:`exact_norms_at_most`) and, while it is outside,
    each of its coordinates moves one unit in the last place towards zero, which lowers the norm strictly.  What is
    exact: the returned doubles satisfy ``sum(theta_j**2) <= R**2`` as real numbers, on every machine.  A row whose
    computed norm is at most ``R`` is returned unchanged (a row exactly inside whose computed norm rounds above ``R``
    is rescaled like the others).  A row with a non-finite coordinate lies in no ball and is returned as it is, for
    the caller to refuse (:func:`objective_draws` does).  ``R`` must lie in ``[2**-400, 2**400]``, where the squares
    near the sphere are normal doubles and the computed norm is within the margin of the exact one.
    """
    radius = check_positive(radius, "radius")
    if not _SAFE[0] <= radius <= _SAFE[1]:
        raise ValueError(f"radius = {radius!r} is outside [2**-400, 2**400], where the ball's exact check holds")
    theta = np.array(theta, dtype=float, copy=True)
    with np.errstate(over="ignore", invalid="ignore"):
        norm = np.linalg.norm(theta, axis=1)
    finite = np.all(np.isfinite(theta), axis=1)
    big = finite & ~np.isfinite(norm)                        # finite coordinates whose squares overflow
    if np.any(big):
        top = np.max(np.abs(theta[big]), axis=1)
        norm[big] = top * np.linalg.norm(theta[big] / top[:, None], axis=1)
    outside = finite & (norm > radius)
    theta[outside] *= (radius / norm[outside])[:, None]
    near = np.flatnonzero(finite & (norm > radius * (1.0 - _BALL_MARGIN)))
    while near.size:
        out = ~exact_norms_at_most(theta[near], radius)
        near = near[out]
        theta[near] = np.nextafter(theta[near], 0.0)
    return theta


def objective_draws(A, c, cal: ObjectiveCalibration, gen: np.random.Generator, draws: int) -> np.ndarray:
    """``draws`` independent releases from the weighted statistics ``A``, ``c``, vectorized: ``(draws, d)``.

    One release is :func:`objective_perturbation` with ``sampler="float"`` (the same ``gen`` gives the same draw).
    """
    A, c = np.asarray(A, dtype=float), np.asarray(c, dtype=float)
    d = c.size
    b = sample_l2_laplace_unchecked(cal.eta, d, draws, gen)
    with np.errstate(over="ignore", invalid="ignore"):
        theta = constrained_ridge(A + cal.ridge * np.eye(d), c - b, cal.radius)
    if not np.all(np.isfinite(theta)):
        raise ValueError(f"the noise overflowed (eta = {cal.eta!r}): the levels are far too small for any use; "
                         f"nothing was released")
    return theta


def check_objective_sampler(sampler) -> str:
    """Only ``sampler="float"``: objective perturbation has no release exact in floating point (module docstring)."""
    if sampler != "float":
        raise ValueError(f"sampler = {sampler!r} is not allowed for objective perturbation: it has no release that "
                         f"is exact in floating point; pass sampler='float' to accept one exact over the reals only")
    return sampler


def objective_perturbation(X, y, epsilons, lam, rng=None, *, radius=None, share: float = SHARE,
                           sampler=None) -> np.ndarray:
    r"""Personalized objective perturbation: point ``i`` gets ``epsilon_i``-DP; returns :math:`\hat\theta`.

    Parameters
    ----------
    X, y, epsilons : array-like
        The problem, in the domain (:func:`pdp_lib.pdp_op`).
    lam : float
        ``lambda > 0``; the release uses the ridge ``Lambda >= lambda`` of :func:`objective_calibration`.
    rng : None, int or numpy.random.Generator
        The noise's source.
    radius : None or float
        ``R > 0``, public; ``None``: the paper's :math:`B(\lambda)`, which holds the weighted ridge solution.
    share : float, default 0.5
        In ``(0, 1)``: the largest share of the smallest level the Jacobian may take.
    sampler : "float"
        Required, and only ``"float"``: the release is exact over the reals only (module docstring).

    Returns
    -------
    numpy.ndarray of shape (d,)
    """
    check_objective_sampler(sampler)
    return release_arrays(X, y, epsilons, lam, rng, radius, share)[0]


def release_arrays(X, y, epsilons, lam, rng, radius, share) -> tuple:
    """``(theta_hat, calibration)``: one release, the sampler already accepted."""
    X, y, eps, lam = check_problem(X, y, epsilons, lam)
    d = X.shape[1]
    radius = norm_bound(lam, d) if radius is None else check_positive(radius, "radius")
    check_radius(float(radius), d, "lam")
    if not radius >= _SMALLEST_RADIUS:
        raise ValueError(f"the ball's radius {radius!r} is outside the allowed range [1e-100, 1e100 / sqrt(d)]: "
                         f"its norms would underflow; lower lam or give a larger radius")
    cal = objective_calibration(math.fsum(eps), float(eps.min()), lam, d, float(radius), share)
    w = eps / eps.sum()
    A, c = (X * w[:, None]).T @ X, (X * w[:, None]).T @ y
    return objective_draws(A, c, cal, check_rng(rng), 1)[0], cal
