r"""Noisy gradient descent, personalized by re-weighting: full-batch, Gaussian, point ``i`` ``(eps_i, delta)``-DP.

The weighted ridge objective of eq. (2), :math:`F(\theta) = \tfrac12\sum_i w_i (x_i^\top\theta - y_i)^2 +
\tfrac\lambda2\|\theta\|^2`, is minimized by ``T`` steps of projected gradient descent on the ball
:math:`\|\theta\| \le R` from :math:`\theta_0 = 0`; each step's data gradient is released with Gaussian noise:

.. math::

    \hat g_t = \sum_i w_i (x_i^\top\theta_t - y_i)\,x_i + N(0, \sigma^2 I_d), \qquad
    \theta_{t+1} = \Pi_R\big(\theta_t - \tau(\hat g_t + \lambda\theta_t)\big).

**Sensitivity.**  On the ball and the domain (:math:`x \in [0, 1]^d`, :math:`y \in [-1, 1]`), replacing point
``i`` moves the data gradient by :math:`w_i(r x - r' x')`, with residuals :math:`r = x^\top\theta - y` and
:math:`r' = x'^\top\theta - y'`, and :math:`\|r x - r' x'\| \le G = \sqrt d(\sqrt d R + 2)`.  If ``r`` and
``r'`` have the same sign, each coordinate is a difference of two numbers in :math:`[0, \sqrt d R + 1]`; if
opposite, each coordinate is at most :math:`|r| + |r'| = \theta^\top(x - x') + y' - y \le \sqrt d R + 2` in absolute
value.  The bound is not attained: the tests' brute force over the domain's corners and the sphere finds less.

**Privacy by Gaussian differential privacy.**  Each step is a Gaussian mechanism of distance at most
:math:`w_i G/\sigma` for point ``i``, whatever the earlier (public) iterates; ``T`` such steps, adaptively
composed, are one Gaussian shift of distance at most :math:`\sqrt T w_i G/\sigma` (Dong, Roth & Su 2022, the
composition theorem of Gaussian DP).  With :math:`w_i = \mu^*_i / M`, :math:`M = \sum_j \mu^*_j`, and
:math:`\sigma = G\sqrt T / M`, point ``i`` gets :math:`\mu^*_i`, so :math:`(\varepsilon_i, \delta)`-DP (the
weights are those of the personalized Gaussian mechanism, :mod:`pdp_lib.mechanisms.gaussian`, and minimize the
noise for the same reason).  The projection, the ridge term and the step are post-processing.

**The radius.**  ``R`` defaults to the paper's bound :math:`B(\lambda)` on the weighted ridge solution's norm
(:func:`pdp_lib.bounds.norm_bound`), so the ball holds the minimizer of ``F`` for every dataset.  The step defaults
to :math:`\tau = 1/(d + \lambda)`, the inverse of a public bound on ``F``'s smoothness
(:math:`\lambda_\max(\sum_i w_i x_i x_i^\top) \le d`).

**Exact in floating point** (``sampler="exact"``, the default): the data enter through the sums of
:func:`pdp_lib.mechanisms.lattice.weighted_sums` with the levels :math:`\mu^*_i` (the data gradient is
:math:`A\theta_t - b`); each step's centre :math:`(\tilde G\theta_t - \tilde m)/\tilde S` is computed exactly in
integers and rounded to the grid of step ``gamma``, and the noise is ``gamma round(Z / gamma)`` drawn exactly
(:func:`pdp_lib.mechanisms.exact_rounding.sample_rounded_gaussian`).  Between neighbours a centre moves by at most
:math:`w_i G + 2(\alpha R' + \beta) + \gamma\sqrt d`, with ``alpha``, ``beta`` the sums' proved rounding bounds and
:math:`R'` a bound checked exactly on every iterate's norm, so :math:`\sigma' = \sqrt T\,(G/M + c/\mu^*_\min)` keeps
every point within :math:`\mu^*_i`.

**Clipping.**  This release uses no clipping: the worst-case gradient bound ``G`` calibrates the noise, which lets
the data enter through two sums and the release be exact.  Clipped variants, the re-weighted one with a common
clipping norm and Boenisch, Mühl, Dziedzic, Rinberg & Papernot's individualized clipping (NeurIPS 2023, for
DP-SGD; here full-batch), are drawn in floating point by :mod:`pdp_lib.experiments.gradient_descent` for the
comparison of the book's chapter *Beyond output perturbation* (``book/beyond.ipynb``: proposition
*prop-gd-privacy*).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..bounds import norm_bound
from ..gaussian_curves import tolerated_gaussian_mus
from ..validation import check_count, check_fraction, check_positive, check_problem, check_rng
from .exact_rounding import sample_rounded_gaussian
from .exact_sampling import RandomBits
from .lattice import (STEP_SLACK, check_floating_point, check_release_levels, check_sampler, double_above,
                      grid_step_exponent, power_of_two_at_most, rounds_bound, sqrt_up, sums_rounding_bound,
                      weighted_sums)

__all__ = ["GDCalibration", "gd_sensitivity", "gd_calibration", "noisy_gd", "noisy_gd_draws", "check_radius", "STEPS",
           "MAX_STEPS", "run_lattice", "project_rows"]

STEPS = 20
"""The default number of steps ``T``."""

_RADIUS_SLACK = Fraction(1, 1 << 40)


def gd_sensitivity(radius: float, d: int) -> float:
    r"""``G = sqrt(d) (sqrt(d) R + 2)``: the data gradient's sensitivity per unit of weight on the ball of radius ``R``.

    An upper bound (module docstring), not attained.
    """
    return math.sqrt(d) * (math.sqrt(d) * radius + 2.0)


@dataclass(frozen=True)
class GDCalibration:
    """The public parameters of one run.

    Attributes
    ----------
    delta : float
        Every point gets ``(epsilon_i, delta)``-DP.
    steps : int
        ``T``.
    radius : float
        ``R``, the ball the iterates are projected on.
    step_size : float
        ``tau``.
    sigma : float
        The noise's standard deviation per coordinate and step (``sigma'``, from above, on the lattice).
    step_exponent : int or None
        ``g``, the grid's step ``2**-g`` (``None`` for the floating-point sampler).
    """

    delta: float
    steps: int
    radius: float
    step_size: float
    sigma: float
    step_exponent: int | None = None


def gd_calibration(total: float, mu_min: float, d: int, delta: float, steps: int, radius: float, step_size: float,
                   *, rounds=None) -> GDCalibration:
    r"""The noise for levels ``mu*_i`` summing to ``total`` with smallest ``mu_min``.

    ``rounds=None``: over the reals, :math:`\sigma = G\sqrt T/M`.  With ``rounds`` (the sums' roundings,
    :func:`pdp_lib.mechanisms.lattice.rounds_bound`): the lattice calibration of the module docstring, every
    quantity rational and on the safe side.
    """
    if rounds is None:
        sigma = gd_sensitivity(radius, d) * math.sqrt(steps) / total
        return GDCalibration(delta=delta, steps=steps, radius=radius, step_size=step_size, sigma=sigma)
    check_release_levels(total, mu_min)
    sqrt_d = sqrt_up(Fraction(d))
    R = Fraction(radius) * (1 + _RADIUS_SLACK)
    G = sqrt_d * (sqrt_d * R + 2)
    M_lo = Fraction(float(total)) * (1 - Fraction(1, 1 << 52))
    mu_min_q = Fraction(float(mu_min))
    alpha = sums_rounding_bound(rounds, d, mu_min_q)
    beta = alpha / d * sqrt_d
    g = grid_step_exponent(mu_min_q * G / M_lo * STEP_SLACK / max(1, G))
    gamma = power_of_two_at_most(-g)
    a = G / M_lo + (2 * (alpha * R + beta) + gamma * sqrt_d) / mu_min_q
    sigma = double_above(sqrt_up(a * a * steps))
    return GDCalibration(delta=delta, steps=steps, radius=radius, step_size=step_size, sigma=sigma, step_exponent=g)


def project_rows(theta: np.ndarray, radius: float) -> np.ndarray:
    """Each row of ``theta`` projected on the ball of radius ``radius`` (rows inside it unchanged): the projection of
    the vectorized runs of gradient descent (:func:`noisy_gd_draws`,
    :mod:`pdp_lib.experiments.gradient_descent`)."""
    norms = np.linalg.norm(theta, axis=1, keepdims=True)
    return np.where(norms > radius, theta * (radius / np.maximum(norms, radius)), theta)


def _project(theta: np.ndarray, radius: float) -> np.ndarray:
    norm = float(np.linalg.norm(theta))
    return theta if norm <= radius else theta * (radius / norm)


MAX_STEPS = 100_000
"""The most steps a run may take: the noise grows like the square root of the steps, so more can only add noise."""

_MAX_RADIUS = 1e100


def check_radius(radius: float, d: int, name: str = "radius") -> float:
    """Refuse a ball so large that the iterates' norms overflow (its ``G`` would leave only noise anyway)."""
    if not radius * math.sqrt(d) <= _MAX_RADIUS:
        raise ValueError(f"{name} gives the ball the radius {radius!r}, outside the allowed range (0, 1e100 / sqrt(d)]: "
                         f"the iterates' norms would overflow and the noise would swamp them; raise lam or give a "
                         f"smaller radius")
    return radius


def check_gd_settings(lam, d, steps, radius, step_size) -> tuple:
    steps = check_count(steps, "steps", minimum=1)
    if steps > MAX_STEPS:
        raise ValueError(f"steps = {steps!r} is outside the allowed range [1, {MAX_STEPS}]: the noise grows like the "
                         f"square root of the steps")
    radius = norm_bound(lam, d) if radius is None else check_positive(radius, "radius")
    check_radius(float(radius), d, "lam" if radius is None else "radius")
    step_size = 1.0 / (d + lam) if step_size is None else check_positive(step_size, "step_size")
    return steps, float(radius), float(step_size)


def noisy_gd(X, y, epsilons, lam, delta, rng=None, *, steps: int = STEPS, radius=None, step_size=None,
             sampler="exact") -> np.ndarray:
    r"""Personalized noisy gradient descent: point ``i`` gets ``(epsilon_i, delta)``-DP; returns :math:`\theta_T`.

    Parameters
    ----------
    X, y, epsilons : array-like
        The problem, in the domain (:func:`pdp_lib.pdp_op`).
    lam : float
        ``lambda > 0``.
    delta : float
        In ``(0, 1)``.
    rng : None, int, numpy.random.Generator or RandomBits
        The noise's source (``None`` with ``sampler="exact"``: the operating system's cryptographic source).
    steps : int, default 20
        ``T >= 1``.
    radius : None or float
        ``R > 0``, public; ``None``: the paper's :math:`B(\lambda)`.
    step_size : None or float
        ``tau > 0``; ``None``: :math:`1/(d + \lambda)`.
    sampler : {"exact", "float"}, default "exact"
        ``"exact"``: the lattice release of the module docstring.  ``"float"``: floating point throughout, exact
        only over the reals (for the experiments).

    Returns
    -------
    numpy.ndarray of shape (d,)
    """
    X, y, eps, lam = check_problem(X, y, epsilons, lam)
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    n, d = X.shape
    steps, radius, step_size = check_gd_settings(lam, d, steps, radius, step_size)
    sampler = check_sampler(sampler)
    reach = tolerated_gaussian_mus(eps, delta)
    if sampler == "float":
        gen = check_rng(rng)
        cal = gd_calibration(float(reach.sum()), float(reach.min()), d, delta, steps, radius, step_size)
        w = reach / reach.sum()
        A, b = (X * w[:, None]).T @ X, (X * w[:, None]).T @ y
        return noisy_gd_draws(A, b, lam, cal, gen, 1)[0]
    if rng is not None and not isinstance(rng, RandomBits):
        check_rng(rng)
    bits = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    check_floating_point()
    gram, moment, rounds = weighted_sums(X, y, reach)
    total = math.fsum(reach)
    cal = gd_calibration(total, float(reach.min()), d, delta, steps, radius, step_size, rounds=rounds_bound(n))
    return run_lattice(gram, moment, total, lam, cal, bits)


def run_lattice(gram, moment, total: float, lam: float, cal: GDCalibration, bits: RandomBits) -> np.ndarray:
    """Noisy gradient descent on the lattice from the weighted sums (``bits`` its source of uniform bits): each step's
    centre ``round((G~ theta - m~) / (S~ gamma))`` computed exactly, plus exact Gaussian noise on the grid."""
    from .exponential import dyadic_integers    # doubles as integers over one power of two, exactly

    d = np.asarray(moment).size
    upper = np.triu(np.asarray(gram, dtype=float))
    G_ints, g_scale = dyadic_integers(upper + np.triu(upper, 1).T)
    m_ints, m_scale = dyadic_integers(np.asarray(moment, dtype=float))
    S = Fraction(float(total))
    gamma = power_of_two_at_most(-cal.step_exponent)
    rate = gamma / Fraction(cal.sigma)
    bound = Fraction(cal.radius) * (1 + _RADIUS_SLACK)
    theta = np.zeros(d)
    for _ in range(cal.steps):
        if sum(Fraction(float(v)) ** 2 for v in theta) > bound * bound:          # pragma: no cover - projection
            raise RuntimeError("an iterate left the ball the calibration assumes")
        t_ints, t_scale = dyadic_integers(theta)
        rows = G_ints.dot(t_ints)                                            # (G~ theta) g_scale t_scale
        centre = [round((Fraction(int(r), g_scale * t_scale) - Fraction(int(m), m_scale)) / (S * gamma))
                  for r, m in zip(rows, m_ints)]
        noise = sample_rounded_gaussian(rate, d, bits)
        released = np.array([float((c + k) * gamma) for c, k in zip(centre, noise)])
        theta = _project(theta - cal.step_size * (released + lam * theta), cal.radius)
    return theta


def noisy_gd_draws(A, b, lam: float, cal: GDCalibration, gen, draws: int) -> np.ndarray:
    r"""``draws`` independent runs from exact statistics, in floating point, vectorized: ``(draws, d)``.

    For the experiments: ``A`` and ``b`` are the weighted statistics, ``cal`` the calibration; each step draws the
    noise of every run from ``gen``.  One run is :func:`noisy_gd` with ``sampler="float"``.
    """
    A, b = np.asarray(A, dtype=float), np.asarray(b, dtype=float)
    theta = np.zeros((draws, b.size))
    for _ in range(cal.steps):
        grad = theta @ A - b + cal.sigma * gen.standard_normal(theta.shape)
        theta = theta - cal.step_size * (grad + lam * theta)
        theta = project_rows(theta, cal.radius)
    return theta
