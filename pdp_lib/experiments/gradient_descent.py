r"""Full-batch noisy gradient descent with clipping, personalized two ways, in floating point: for the comparison.

Both variants run ``T`` steps of projected gradient descent on the weighted ridge objective from
:math:`\theta_0 = 0`, on the ball of radius ``R`` (:mod:`pdp_lib.mechanisms.noisy_gd`), each point's gradient
:math:`g_i = (x_i^\top\theta - y_i)x_i` clipped to a norm, and Gaussian noise on each step's sum; both give point
``i`` its :math:`\mu^*_i = \mu^*(\varepsilon_i, \delta)` by the composition of Gaussian DP over the ``T`` steps.

``"weights"``   re-weighting, as PDP-OP: :math:`\sum_i w_i\,\mathrm{clip}_C(g_i)`, :math:`w_i = \mu^*_i/M`,
                :math:`\sigma = \sqrt T\min(2C, G)/M`;
``"clipping"``  individualized clipping (Boenisch, Mühl, Dziedzic, Rinberg & Papernot, NeurIPS 2023):
                :math:`\frac1n\sum_i \mathrm{clip}_{C_i}(g_i)`, :math:`C_i = C\mu^*_i\,\overline{1/\mu^*}`
                (their parametrization, :math:`C_i = C\bar\sigma/\sigma_i` with the noise multipliers
                :math:`\sigma_i \propto 1/\mu^*_i` and :math:`\bar\sigma` their mean over the points: ``C`` is the
                clipping norm of a point at the harmonic mean of the :math:`\mu^*_i`),
                :math:`\sigma = \frac{\sqrt T}{n}\max_i \min(2C_i, G)/\mu^*_i`.

Replacing point ``i`` moves its clipped gradient by at most :math:`\min(2C_i, G)`: clipping is the projection on a
ball, which is 1-Lipschitz, so the unclipped bound ``G`` of :func:`pdp_lib.mechanisms.noisy_gd.gd_sensitivity`
still holds, and two vectors of norm at most :math:`C_i` are at most :math:`2C_i` apart.  ``clip=None`` clips
nothing (``C`` infinite): the first variant is then :func:`pdp_lib.mechanisms.noisy_gd.noisy_gd`, the second is
standard DP at the smallest level.  At equal levels the two variants coincide.  Floating point, exact only over the
reals: an experiment, not a release.  Compared in the book's chapter *Beyond output perturbation*
(``book/beyond.ipynb``).
"""

from __future__ import annotations

import math

import numpy as np

from ..gaussian_curves import tolerated_gaussian_mus
from ..mechanisms.noisy_gd import MAX_STEPS, STEPS, check_gd_settings, gd_sensitivity, project_rows
from ..validation import check_count, check_fraction, check_positive, check_problem, check_rng

__all__ = ["gd_draws", "PERSONALIZATIONS", "pure_gd_rate", "pure_gd_draws", "clipped_pure_gd_draws"]

PERSONALIZATIONS = ("weights", "clipping")


def gd_draws(X, y, epsilons, lam: float, delta: float, gen, draws: int, *, personalization: str = "weights",
             clip=None, steps: int = STEPS, radius=None, step_size=None, batch: int = 100) -> np.ndarray:
    """``draws`` independent runs, vectorized (``batch`` at a time): the final iterates, shape ``(draws, d)``."""
    X, y, eps, lam = check_problem(X, y, epsilons, lam)
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    if personalization not in PERSONALIZATIONS:
        raise ValueError(f"personalization = {personalization!r} is not allowed; use one of {PERSONALIZATIONS}")
    n, d = X.shape
    steps, radius, step_size = check_gd_settings(lam, d, steps, radius, step_size)
    reach = tolerated_gaussian_mus(eps, delta)
    G, C = gd_sensitivity(radius, d), math.inf if clip is None else check_positive(clip, "clip")
    if personalization == "weights":
        weights, norms = reach / reach.sum(), np.full(n, C)
        sigma = math.sqrt(steps) * min(2 * C, G) / reach.sum()
    else:
        weights, norms = np.full(n, 1 / n), C * reach * np.mean(1 / reach)
        sigma = math.sqrt(steps) * float(np.max(np.minimum(2 * norms, G) / reach)) / n
    row_norms = np.linalg.norm(X, axis=1)
    clipped = bool(np.any(np.isfinite(norms)))
    out = []
    for start in range(0, draws, batch):
        theta = np.zeros((min(batch, draws - start), d))
        for _ in range(steps):
            # the step's weighted, clipped gradient r * min(1, C_i / max(|r| ||x_i||, 1e-300)) * w, in place, each
            # product the same as written out (multiplication commutes, bit for bit); unclipped, the factor is
            # min(1, inf) = 1 exactly and is left out
            residual = theta @ X.T                                               # (runs, n)
            residual -= y
            if clipped:
                scale = np.abs(residual)
                scale *= row_norms
                np.maximum(scale, 1e-300, out=scale)
                np.divide(norms, scale, out=scale)
                np.minimum(1.0, scale, out=scale)
                residual *= scale
            residual *= weights
            grad = residual @ X + sigma * gen.standard_normal(theta.shape)
            theta = theta - step_size * (grad + lam * theta)
            theta = project_rows(theta, radius)
        out.append(theta)
    return np.vstack(out)


def pure_gd_rate(total: float, d: int, steps: int, radius: float, clip=None) -> float:
    r"""The rate :math:`\eta = S/(T G)` of each step's ℓ2-Laplace noise in noisy gradient descent under pure DP.

    Re-weighted as PDP-OP (:math:`w_i = \varepsilon_i/S`, :math:`S = \sum_j \varepsilon_j`) and unclipped: on the
    ball of radius ``radius`` and the domain, replacing point ``i`` moves a step's data gradient by at most
    :math:`w_i G` (:func:`pdp_lib.mechanisms.noisy_gd.gd_sensitivity`: ``G`` per unit of weight), so a step whose
    noise has density :math:`\propto e^{-\eta\|z\|}` costs it at most :math:`\eta w_i G = \varepsilon_i/T`, and ``steps`` = ``T``
    steps, composed (the sum of pure losses, adaptive or not), cost :math:`\varepsilon_i`.  The projection, the
    ridge term and the step are post-processing.  Neighbouring tables replace a row's features and label and keep
    its level, public as everywhere in the library, so the weights and ``S`` are the same in both.

    ``clip``: each point's gradient clipped to the norm ``C`` (:func:`clipped_pure_gd_draws`), which moves by at most
    :math:`\min(2C, G)` when the point is replaced (module docstring): :math:`\eta = S/(T\min(2C, G))`."""
    total = check_positive(total, "total")
    d = check_count(d, "d")
    steps = _check_pure_steps(steps)
    radius = check_positive(radius, "radius")
    moved = gd_sensitivity(radius, d)
    if clip is not None:
        moved = min(2.0 * check_positive(clip, "clip"), moved)
    return float(total) / (steps * moved)


def _check_pure_steps(steps) -> int:
    steps = check_count(steps, "steps")
    if steps > MAX_STEPS:
        raise ValueError(f"steps = {steps} is outside the allowed range [1, {MAX_STEPS}]: under pure DP the noise "
                         f"grows like the steps")
    return steps


def _penalty_and_start(lam: float, d: int, draws: int, radius: float, open_intercept, start) -> tuple:
    """The penalty on each coefficient (``lam``; 0 on the last, the intercept, when ``open_intercept``) and the first
    iterate of each run (``start`` projected onto the ball, or 0), each checked and refused by name."""
    if not isinstance(open_intercept, bool):
        raise ValueError(f"open_intercept = {open_intercept!r} is not allowed; use True or False")
    penalty = np.full(d, lam)
    if open_intercept:
        penalty[-1] = 0.0
    first = np.zeros((draws, d))
    if start is not None:
        start = np.asarray(start, dtype=float)
        if start.shape not in ((d,), (draws, d)) or not np.all(np.isfinite(start)):
            raise ValueError(f"start has shape {start.shape}: it must be finite, of shape ({d},) or ({draws}, {d})")
        first = project_rows(first + start, radius)
    return penalty, first


def pure_gd_draws(A, b, total: float, lam: float, gen, draws: int, *, steps: int = STEPS, radius=None,
                  step_size=None, noise: bool = True, open_intercept: bool = False, start=None) -> np.ndarray:
    """``draws`` runs of noisy gradient descent under pure DP (:func:`pure_gd_rate`) from the statistics weighted by
    the levels, ``A`` = ``sum_i eps_i x_i x_i^T`` and ``b`` = ``sum_i eps_i y_i x_i`` with ``total`` =
    ``sum_i eps_i``, vectorized: the final iterates, shape ``(draws, d)``.  The same steps, ball and defaults as
    :func:`pdp_lib.mechanisms.noisy_gd.noisy_gd` (from 0, step ``1/(d + lam)``, radius ``B(lam)``), with ℓ2-Laplace
    noise instead of Gaussian.  Floating point, exact only over the reals: an experiment, not a release (the
    benchmark of the book's chapter *Which mechanism, which λ*).  ``gen``: None, an int seed or a Generator.
    ``noise=False``: the same steps without noise (``gen`` unused), the iterate the noise perturbs.
    ``open_intercept=True``: the last coefficient, the intercept, is not penalized (the penalty ``lam`` on the others
    only), so the steps tend to the ridge that does not shrink the intercept towards 0.  The penalty reads no data, so
    the privacy is the same: each step's data gradient, the only part that reads a row, gets the same noise.
    ``start``: the first iterate, one row for every run or one row per run, projected onto the ball (it must be
    public, or released by a mechanism whose cost is counted apart); None: 0."""
    from ..mechanisms.output_perturbation import sample_l2_laplace_unchecked

    total = check_positive(total, "total")
    draws = check_count(draws, "draws")
    A, b = np.asarray(A, dtype=float), np.asarray(b, dtype=float)
    if b.ndim != 1 or A.shape != (b.size, b.size):
        raise ValueError(f"A has shape {A.shape} and b {b.shape}: A must be (d, d) and b (d,)")
    A, b = A / total, b / total
    d = b.size
    steps = _check_pure_steps(steps)
    steps, radius, step_size = check_gd_settings(lam, d, steps, radius, step_size)
    eta = pure_gd_rate(total, d, steps, radius)
    gen = check_rng(gen) if noise else None
    penalty, theta = _penalty_and_start(lam, d, draws, radius, open_intercept, start)
    for _ in range(steps):
        grad = theta @ A - b + (sample_l2_laplace_unchecked(eta, d, draws, gen) if noise else 0.0)
        theta = theta - step_size * (grad + penalty * theta)
        theta = project_rows(theta, radius)
    return theta


def clipped_pure_gd_draws(X, y, epsilons, lam: float, gen, draws: int, *, clip: float, steps: int = STEPS,
                          radius=None, step_size=None, open_intercept: bool = False, start=None, noise: bool = True,
                          batch: int = 100) -> np.ndarray:
    r"""``draws`` runs of clipped, re-weighted noisy gradient descent under pure DP, from the rows: the final
    iterates, shape ``(draws, d)``.

    Each step releases :math:`\sum_i w_i\,\mathrm{clip}_C(g_i)`, :math:`w_i = \varepsilon_i/S`,
    :math:`g_i = (x_i^\top\theta - y_i)x_i`, with ℓ2-Laplace noise of rate :math:`\eta = S/(T\min(2C, G))`
    (:func:`pure_gd_rate` with ``clip``): replacing point ``i`` moves the sum by at most :math:`w_i\min(2C, G)`, so
    each step costs it :math:`\varepsilon_i/T` and the ``T`` steps :math:`\varepsilon_i` (basic composition).  The
    steps, ball and defaults otherwise as :func:`pure_gd_draws` (``open_intercept``: the last coefficient
    unpenalized; ``start``: the first iterate, one row or one per run, projected onto the ball).  A clip at or above
    every gradient's norm leaves the steps those of :func:`pure_gd_draws` on the same data, with less noise when
    :math:`2C < G`.  ``X`` holds the intercept's column of ones, if any, last.  ``noise=False``: the steps without
    noise (``gen`` unused).  Floating point, exact only over the reals: an experiment, not a release (the benchmark
    of the book's chapter *Which mechanism, which λ*).  ``batch``: the runs computed at once (memory ``batch * n``)."""
    from ..mechanisms.output_perturbation import sample_l2_laplace_unchecked

    X, y, eps, lam = check_problem(X, y, epsilons, lam)
    draws = check_count(draws, "draws")
    batch = check_count(batch, "batch")
    clip = check_positive(clip, "clip")
    n, d = X.shape
    steps = _check_pure_steps(steps)
    steps, radius, step_size = check_gd_settings(lam, d, steps, radius, step_size)
    total = float(eps.sum())
    eta = pure_gd_rate(total, d, steps, radius, clip)
    gen = check_rng(gen) if noise else None
    penalty, first = _penalty_and_start(lam, d, draws, radius, open_intercept, start)
    weights, row_norms = eps / total, np.linalg.norm(X, axis=1)
    # clip_C(r x) = clip(r, -c, c) x with c = C / ||x||: one pass over the residuals (a row of zeros is never clipped)
    reach = np.divide(clip, row_norms, out=np.full(n, np.inf), where=row_norms > 0)
    out = []
    for lo in range(0, draws, batch):
        theta = first[lo:lo + batch]
        for _ in range(steps):
            residual = theta @ X.T                                               # (runs, n)
            residual -= y
            np.clip(residual, -reach, reach, out=residual)
            residual *= weights
            grad = residual @ X
            if noise:
                grad = grad + sample_l2_laplace_unchecked(eta, d, theta.shape[0], gen)
            theta = project_rows(theta - step_size * (grad + penalty * theta), radius)
        out.append(theta)
    return np.vstack(out)
