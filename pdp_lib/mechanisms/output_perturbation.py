"""The PDP-OP mechanism: weighted ridge, calibration and L2-Laplace noise.

Paper: Algorithm 1 (PDP-OP), eq. (2) (weighted ridge), Remark 3.1 (how to
sample the noise), Theorems 3.1 and 3.2 (how to choose the weights and eta).
Derived in the book's chapter *The PDP-OP mechanism* (``book/mechanism.ipynb``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..bounds import noise_scale, resolve_bound
from ..validation import (
    check_choice,
    check_data,
    check_problem,
    check_count,
    check_dimension,
    check_epsilons,
    check_fraction,
    check_positive,
    check_rng,
)

__all__ = ["Calibration", "calibrate", "noise_optimal_weights", "weighted_ridge", "sample_l2_laplace", "pdp_op"]


@dataclass(frozen=True)
class Calibration:
    """Weights and noise parameter that give point ``i`` ``epsilon_i``-DP.

    Attributes
    ----------
    weights : numpy.ndarray of shape (n,)
        ``w_i = epsilon_i / sum_j epsilon_j`` (Theorems 3.1 and 3.2); with ``delta``, the optimal weights
        ``r_i / sum_j r_j`` of the tolerated loss ranges; sums to one.
    eta : float
        Noise parameter of the density ``prop. to exp(-eta ||z||)``.
    B : float
        The bound on ``||theta_bar||`` used: ``B(lambda)`` for Theorem 3.1,
        ``B*(lambda)`` for the sharp calibration, the user's ``B`` for Theorem 3.2.
    theorem : str
        ``"3.1"``, ``"3.2"`` (a user's ``B``) or ``"3.2 with B*"`` (``B="sharp"``: Theorem 3.2
        with the exact supremum, which bounds ``||theta_bar||`` on every dataset of the domain).
    delta : float or None
        ``None``: the pure guarantee, ``epsilon_i`` for point ``i``.  A number: point ``i`` gets
        ``(epsilon_i, delta)``-DP, read off the exact privacy profile of the ℓ2 mechanism
        (:func:`pdp_lib.curves.largest_loss_range`).
    """

    weights: np.ndarray
    eta: float
    B: float
    theorem: str
    delta: float | None = None


WEIGHTINGS = ("optimal", "epsilon")


def check_weighting(weighting) -> str:
    """Validate the choice of weights under ``(epsilon_i, delta)``: ``"optimal"`` or ``"epsilon"``."""
    return check_choice(weighting, "weighting", WEIGHTINGS, "'optimal' (the least noise) or 'epsilon' "
                                                            "(w_i proportional to epsilon_i, the paper's weights)")


def noise_optimal_weights(reach) -> np.ndarray:
    r"""The weights that allow the least noise when point ``i`` tolerates a loss range ``reach[i]``.

    A point of weight :math:`w_i` has sensitivity :math:`w_i c` (Theorem A.4), and the noise must
    satisfy :math:`w_i c \cdot s \le r_i` for every ``i`` (``s`` the noise's inverse scale: ``eta``
    for the ℓ2 mechanism, ``1/sigma`` for the Gaussian).  The largest ``s`` is
    :math:`\min_i r_i/(w_i c)`, and since :math:`\sum_i w_i = 1`,
    :math:`\min_i r_i / w_i \le \sum_i r_i`, with equality iff :math:`w_i \propto r_i`.  Under pure DP
    :math:`r_i = \varepsilon_i`: the paper's weights (Theorem 3.1).  Derived in the book's chapter
    *PDP-OP under approximate DP* (``book/approximate.ipynb``).

    Parameters
    ----------
    reach : numpy.ndarray of shape (n,)
        Positive.

    Returns
    -------
    numpy.ndarray of shape (n,)
        ``reach / sum(reach)``, read-only.
    """
    total = float(np.sum(reach))
    w = np.asarray(reach, dtype=float) / total
    w.setflags(write=False)
    return w


def calibrate(epsilons, lam, d, B=None, *, delta=None, weighting="optimal") -> Calibration:
    r"""Weights and noise parameter of Theorems 3.1 / 3.2.

    .. math::

        w_i = \frac{\varepsilon_i}{\sum_j \varepsilon_j},\qquad
        \eta = \frac{\lambda}{2\sqrt{d}\,(1 + \sqrt{d}\,B)} \sum_j \varepsilon_j,

    with ``B = B(lambda) = min(1/sqrt(lam), sqrt(d)/lam)`` (Theorem 3.1) when
    ``B`` is None, the exact supremum ``B*(lambda)`` of ``||theta_bar||`` over the domain
    when ``B="sharp"`` (at most half of ``B(lambda)``, so a larger ``eta`` at the same
    privacy), and the given ``B`` otherwise (Theorem 3.2).  Derived in the
    book's chapters *The PDP-OP mechanism* (``book/mechanism.ipynb``), *Sensitivity
    of the weighted ridge solution* (``book/sensitivity.ipynb``) and *Privacy of
    PDP-OP* (``book/privacy.ipynb``).

    Parameters
    ----------
    epsilons : array-like of shape (n,)
        Per-point privacy levels, each finite and ``> 0``.
    lam : float
        Ridge parameter ``lambda > 0``.
    d : int
        Feature dimension ``d >= 1``.
    B : None, "sharp" or float, optional
        ``"sharp"``: calibrate with the exact supremum ``B*(lambda)``
        (:func:`pdp_lib.bounds.sharp_norm_bound`), derived in the book's chapter
        *Sensitivity of the weighted ridge solution*; it bounds ``||theta_bar||`` on every
        dataset of the domain, so Theorem 3.2 applies and the guarantee is kept with less
        noise.  A float: a public bound on the norm of the least-norm minimizer of the
        *unregularized* weighted loss (Assumption 3.1), fixed before the data are
        seen and valid for every dataset the mechanism may be run on, including
        every dataset that differs from yours in one record.  It then bounds
        ``||theta_bar||`` for all of them (ridge shrinks) and Theorem 3.2 applies.
        Do not compute ``B`` from the data you are protecting: a data-dependent
        ``B`` makes the noise scale data-dependent and the privacy loss unbounded,
        and a ``B`` that some neighbouring dataset exceeds voids the guarantee
        (book chapter *Privacy of PDP-OP*).  When no such bound is known, leave
        ``B=None`` (Theorem 3.1), or use ``pdp_lib.bounds.sharp_norm_bound(lam, d)``,
        the exact supremum of ``||theta_bar||`` over the domain.
    delta : None or float, optional
        ``None`` (the default): the pure guarantee of Theorems 3.1 and 3.2.  A number in
        ``(0, 1)``: point ``i`` gets ``(epsilon_i, delta)``-DP instead, from the exact privacy
        profile of the ℓ2 mechanism: it tolerates a loss range ``a*_i >= epsilon_i``
        (:func:`pdp_lib.curves.tolerated_loss_ranges`: exact up to 64 distinct levels, a lattice
        bound from below beyond), so less noise suffices: ``eta`` is at least the pure one.  Every
        finite ``epsilon_i > 0`` and every ``delta`` in ``(0, 1)`` is calibrated; where ``delta`` is
        not well above the error the profile's quadrature certifies (``delta`` of ``1e-13`` or less
        for small levels, ``d = 2`` with ``delta = 1e-15``), ``a*_i`` is conservative, down to
        ``epsilon_i``, the pure calibration's noise (:func:`pdp_lib.curves.largest_loss_range`).  Chapter
        *PDP-OP under approximate DP* (``book/approximate.ipynb``), sections *The privacy profile of a
        point* and *Calibrating PDP-OP for (epsilon_i, delta)*.
    weighting : {"optimal", "epsilon"}, default "optimal"
        With ``delta``: ``"optimal"`` takes ``w_i \propto a*_i``, the weights that allow the least
        noise (:func:`noise_optimal_weights`); ``"epsilon"`` keeps the paper's ``w_i \propto
        epsilon_i`` (the same ``theta_bar`` as the pure mechanism) and scales ``eta`` until the
        tightest point meets its ``(epsilon_i, delta)``.  Both are exact up to 64 distinct levels and
        use the lattice bound of :func:`pdp_lib.curves.tolerated_loss_ranges` beyond
        (:func:`pdp_lib.curves.least_stretch` gives the paper's weights' exact stretch at any number
        of levels).  A float ``B`` must bound the unregularized
        solution for the weights actually used, which ``"optimal"`` changes.  Without ``delta`` both are the paper's
        weights.

    Returns
    -------
    Calibration
    """
    eps = check_epsilons(epsilons)
    lam = check_positive(lam, "lam")
    d = check_dimension(d)
    weighting = check_weighting(weighting)
    if delta is not None:
        delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    theorem = "3.1" if B is None else ("3.2 with B*" if isinstance(B, str) else "3.2")
    B_used = resolve_bound(lam, d, B)
    with np.errstate(over="ignore"):
        total = float(eps.sum())
    if not np.isfinite(total):
        raise ValueError(f"sum(epsilons) = {total!r} is outside the allowed range (0, inf): "
                         f"the privacy levels overflow")
    if delta is None:
        weights = noise_optimal_weights(eps)
        eta = total / noise_scale(lam, d, B_used)
    else:
        from ..curves import tolerated_loss_ranges    # scipy: only under (epsilon, delta)

        reach = tolerated_loss_ranges(eps, delta, d)
        weights = noise_optimal_weights(reach if weighting == "optimal" else eps)
        eta = float(np.min(reach / weights)) / noise_scale(lam, d, B_used)
        # at least the pure eta, as reach >= eps: the two differ below it only by rounding (reach = eps), and the
        # pure eta keeps every point within its reach with either weights (w_i sum(eps) <= reach_i)
        eta = max(eta, total / noise_scale(lam, d, B_used))
    if not (np.isfinite(eta) and eta > 0):
        raise ValueError(f"eta = {float(eta)!r} is outside the allowed range (0, inf): "
                         f"lam = {lam!r} with d = {d} and sum(epsilons) = {total!r} is numerically degenerate")
    return Calibration(weights=weights, eta=float(eta), B=float(B_used), theorem=theorem, delta=delta)


def weighted_ridge(X, y, weights, lam) -> np.ndarray:
    r"""Weighted ridge estimate :math:`\bar\theta` of eq. (2).

    .. math::

        \bar\theta = \arg\min_\theta \sum_i w_i (y_i - \theta^\top x_i)^2
                     + \lambda \|\theta\|_2^2
                   = \Big(\sum_i w_i x_i x_i^\top + \lambda I\Big)^{-1} \sum_i w_i y_i x_i .

    Step 1 of Algorithm 1.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Features in ``[0, 1]``.
    y : array-like of shape (n,)
        Labels in ``[-1, 1]``.
    weights : array-like of shape (n,)
        Non-negative weights summing to one.
    lam : float
        ``lambda > 0``.

    Returns
    -------
    numpy.ndarray of shape (d,)
    """
    X, y, w, lam = check_data(X, y, weights, lam)
    return weighted_ridge_unchecked(X, y, w, lam)


def weighted_ridge_unchecked(X: np.ndarray, y: np.ndarray, w: np.ndarray, lam: float) -> np.ndarray:
    """Unchecked solver of eq. (2) for validated inputs (Cholesky of a SPD system)."""
    d = X.shape[1]
    Xw = X * w[:, None]
    A = Xw.T @ X
    A[np.diag_indices(d)] += lam
    b = Xw.T @ y
    c = np.linalg.cholesky(A)
    return np.linalg.solve(c.T, np.linalg.solve(c, b))


def sample_l2_laplace(eta, d, size=None, rng=None) -> np.ndarray:
    r"""Draw from the density :math:`\nu(z) \propto \exp(-\eta \|z\|_2)` on :math:`\mathbb{R}^d`.

    Remark 3.1: the radius :math:`\|Z\|_2` is Gamma with shape ``d`` and rate
    ``eta`` (scale ``1/eta``) and, given the radius, ``Z`` is uniform on the
    sphere of that radius.  So ``Z = R * U`` with ``R ~ Gamma(d, 1/eta)`` and
    ``U = G / ||G||`` for a standard Gaussian ``G``.  The chapter
    *The PDP-OP mechanism* proves both facts and tests them.

    Parameters
    ----------
    eta : float
        ``eta > 0``.
    d : int
        Dimension ``d >= 1``.
    size : int, optional
        Number of independent draws; ``None`` for a single draw.
    rng : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray
        Shape ``(d,)`` when ``size`` is None, else ``(size, d)``.

    Notes
    -----
    These are double-precision draws, whose least significant bits can reveal the centre
    they are added to: the Notes of :func:`pdp_op` say when and what to do.
    """
    eta = check_positive(eta, "eta")
    d = check_dimension(d)
    gen = check_rng(rng)
    if size is None:
        return sample_l2_laplace_unchecked(eta, d, 1, gen)[0]
    size = check_count(size, "size", minimum=0)
    return sample_l2_laplace_unchecked(eta, d, size, gen)


def sample_l2_laplace_unchecked(eta: float, d: int, size: int, gen: np.random.Generator) -> np.ndarray:
    """``size`` draws of the l2-Laplace law with rate ``eta`` on R^d, for inputs :func:`sample_l2_laplace` has
    checked: a Gamma(d, 1/eta) radius times a uniform direction (Remark 3.1, *The mechanism*)."""
    radius = gen.gamma(shape=d, scale=1.0 / eta, size=size)
    g = gen.standard_normal((size, d))
    norms = np.linalg.norm(g, axis=1)
    # A standard Gaussian vector is zero with probability 0; redraw in that case.
    while np.any(norms == 0):  # pragma: no cover - probability zero
        zero = norms == 0
        g[zero] = gen.standard_normal((int(zero.sum()), d))
        norms = np.linalg.norm(g, axis=1)
    return g * (radius / norms)[:, None]


def pdp_op(X, y, epsilons, lam, B=None, rng=None, *, delta=None, sampler="exact") -> np.ndarray:
    r"""PDP-OP (Algorithm 1) with the calibration of Theorem 3.1 (or 3.2 when ``B`` is given).

    Computes ``theta_bar`` of eq. (2) with ``w_i = epsilon_i / sum_j epsilon_j``
    and returns ``theta_hat = theta_bar + Z``, ``Z ~ exp(-eta ||z||)``.  Point
    ``i`` then enjoys ``epsilon_i``-personalized DP (Definition 2.2).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Features in ``[0, 1]``.
    y : array-like of shape (n,)
        Labels in ``[-1, 1]``.
    epsilons : array-like of shape (n,)
        Privacy levels, finite and ``> 0``.
    lam : float
        ``lambda > 0``.
    B : None, "sharp" or float, optional
        The norm bound, as in :func:`calibrate` (where its choices and their conditions
        are documented once).
    rng : None, int or numpy.random.Generator
        Source of the privacy noise.  With ``sampler="exact"``: the raw bits of a seeded Generator (the same
        noise on every machine), or with ``None`` the operating system's cryptographic source.
    delta : None or float, optional
        ``None``: point ``i`` gets ``epsilon_i``-DP.  A number in ``(0, 1)``: ``(epsilon_i, delta)``-DP
        with the least noise (:func:`calibrate` with ``delta``, its optimal weights).  With
        ``sampler="exact"`` the release weights the sums by the tolerated loss ranges ``r_i`` and draws the
        rounded law in every dimension: a function of the continuous mechanism's output, whose profile
        the ranges were computed for.
    sampler : {"exact", "float"}, default "exact"
        ``"exact"``: the lattice release (:mod:`pdp_lib.mechanisms.lattice`): ``theta_bar`` solved exactly
        from the floating-point sums, rounded to a grid of step ``2**-g``, plus noise drawn exactly on the
        grid; the guarantee holds for the computed release (pure, or ``(epsilon_i, delta)`` with ``delta``).  Its noise parameter ``eta'`` is below ``eta`` by
        the grid's rounding and the sums' rounding bound, both charged to the smallest level
        (:func:`pdp_lib.mechanisms.lattice.lattice_calibration`): by less than ``2**-15`` up to ``10**5`` rows
        with the book's profiles, by more when the smallest level is far below the others.  Any ``d`` (the
        noise law is named by :func:`pdp_lib.mechanisms.lattice.noise_law`; with ``delta``, the rounded law in
        every dimension), levels in ``[2**-1000, inf)`` summing to at most ``2**1000``.  Two releases with the
        same seed share their noise, so their difference is exact: never release two fits made with one seed.
        ``"float"``: the double-precision sampler of the paper's Remark 3.1, whose guarantee holds over the
        reals only (Notes); for experiments and for reproducing the paper.

    Returns
    -------
    numpy.ndarray of shape (d,)
        The private estimate ``theta_hat``.

    Notes
    -----
    With ``sampler="float"`` the privacy guarantee (Theorems 3.1 and 3.2) holds for the mechanism over the
    real numbers only.  The noise is drawn in double precision; floating-point samplers
    can leak through the least significant bits of their output (Mironov, CCS
    2012).  The default ``sampler="exact"`` is the defence: its proof covers every rounding
    (book chapter *What the guarantee does not cover*).  Neither covers the running time: the exact
    release's time depends on the noise drawn, and on the data through the sums and the exact solve.
    """
    return run_pdp_op(X, y, epsilons, lam, B, rng, delta=delta, sampler=sampler)[0]


def run_pdp_op(X, y, epsilons, lam, B, rng, rng_name="rng", size=None, delta=None, sampler="exact"):
    """Validate, calibrate and run Algorithm 1: ``(theta_hat, calibration)``.

    One output of shape ``(d,)``, or with ``size`` (a validated count) ``size`` independent
    outputs of shape ``(size, d)``: one ``theta_bar`` and ``size`` noise draws.  The one
    implementation behind :func:`pdp_op`, :meth:`pdp_lib.PersonalizedRidge.fit` and
    :func:`pdp_lib.audit.sample_mechanism`.  ``sampler="exact"``: the lattice release (one output; its
    calibration's ``eta`` is the lattice's ``eta'``).
    """
    from .lattice import check_sampler

    sampler = check_sampler(sampler)
    X, y, eps, lam = check_problem(X, y, epsilons, lam)
    d = X.shape[1]
    if sampler == "exact":
        return _run_lattice(X, y, eps, lam, B, rng, rng_name, size, delta)
    gen = check_rng(rng, rng_name)
    cal = calibrate(eps, lam, d, B, delta=delta)
    theta_bar = weighted_ridge_unchecked(X, y, np.asarray(cal.weights), lam)
    if size is None:
        return theta_bar + sample_l2_laplace_unchecked(cal.eta, d, 1, gen)[0], cal
    return theta_bar + sample_l2_laplace_unchecked(cal.eta, d, size, gen), cal


def _run_lattice(X, y, eps, lam, B, rng, rng_name, size, delta):
    """The lattice release for validated inputs: ``(theta_hat, Calibration with eta')``."""
    import math

    from .lattice import release_from_sums, weighted_sums

    if size is not None:
        raise ValueError("size is not allowed with sampler='exact': one release per call")
    from .exact_sampling import RandomBits

    if rng is not None and not isinstance(rng, RandomBits):
        check_rng(rng, rng_name)                      # a bad seed is refused with the argument's name
    cal = calibrate(eps, lam, X.shape[1], B, delta=delta)
    levels, law = eps, None
    if delta is not None:
        # (epsilon_i, delta): point i tolerates the loss range r_i of the continuous l2 mechanism (public, from
        # below); the rounded law is a function of that mechanism's output, so r_i plays the level's part
        from ..curves import tolerated_loss_ranges

        levels, law = tolerated_loss_ranges(eps, cal.delta, X.shape[1]), "rounded"
    gram, moment, rounds = weighted_sums(X, y, levels)
    theta, lat, _ = release_from_sums(gram, moment, math.fsum(levels), float(levels.min()), X.shape[0], rounds, lam,
                                      B, rng, law=law)
    return theta, Calibration(weights=cal.weights, eta=lat.eta, B=cal.B, theorem=cal.theorem, delta=cal.delta)
