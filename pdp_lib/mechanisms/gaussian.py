r"""A personalized Gaussian mechanism: weighted ridge with Gaussian noise, point ``i`` getting ``(epsilon_i, delta)``-DP.

The mechanism releases :math:`\hat\theta = \bar\theta + Z`, :math:`Z \sim N(0, \sigma^2 I_d)`, with
:math:`\bar\theta` the weighted ridge solution of eq. (2).  Point :math:`i`'s sensitivity is at
most :math:`w_i c_\lambda` (Theorem A.4, :func:`pdp_lib.bounds.sensitivity_bound`), so on two
:math:`i`-neighbouring datasets the outputs are Gaussians whose centres are at most
:math:`\mu_i \sigma` apart, :math:`\mu_i = w_i c_\lambda/\sigma`, and the pair is
:math:`(\varepsilon_i, \delta)`-DP iff :math:`\mu_i \le \mu^*(\varepsilon_i, \delta)`, the analytic
Gaussian mechanism's bound (:func:`pdp_lib.curves.tolerated_gaussian_mus`; a smaller distance gives a
smaller profile).  The least noise meeting every point's condition is
:math:`\sigma = c_\lambda \max_i w_i/\mu^*_i`, and the weights that minimise it are
:math:`w_i \propto \mu^*(\varepsilon_i, \delta)` (:func:`pdp_lib.mechanisms.output_perturbation.noise_optimal_weights`),
with :math:`\sigma = c_\lambda / \sum_j \mu^*_j`.  They are not proportional to
:math:`\varepsilon_i`: :math:`\mu^*` grows more slowly than :math:`\varepsilon`.

Derived, with the proof of the per-point guarantee, in the book's chapter *PDP-OP under approximate
DP* (``book/approximate.ipynb``).  The default release is on a lattice, exact in floating point
(``sampler="exact"``, :func:`_run_gaussian_lattice`; chapter *What the guarantee does not cover*, section *A
release that keeps its promise in floating point*).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..bounds import noise_scale, resolve_bound
from ..gaussian_curves import tolerated_gaussian_mus
from .output_perturbation import weighted_ridge_unchecked, check_weighting, noise_optimal_weights
from ..validation import (check_count, check_dimension, check_epsilons, check_fraction, check_positive,
                         check_problem, check_rng)

__all__ = ["GaussianCalibration", "gaussian_calibration", "gaussian_mechanism"]


@dataclass(frozen=True)
class GaussianCalibration:
    """Weights and noise of the personalized Gaussian mechanism.

    Attributes
    ----------
    weights : numpy.ndarray of shape (n,)
        Sum to one: ``mu*_i / sum(mu*)`` (``"optimal"``) or ``epsilon_i / sum(epsilon)`` (``"epsilon"``).
    sigma : float
        The noise's standard deviation per coordinate.
    B : float
        The bound on ``||theta_bar||`` used, as in :func:`pdp_lib.calibrate`.
    delta : float
        Every point gets ``(epsilon_i, delta)``-DP.
    mu : numpy.ndarray of shape (n,)
        ``w_i c / sigma``: point ``i``'s worst distance between centres in units of ``sigma``, at most
        ``mu*(epsilon_i, delta)``.
    """

    weights: np.ndarray
    sigma: float
    B: float
    delta: float
    mu: np.ndarray


def gaussian_calibration(epsilons, lam, d, delta, B=None, *, weighting="optimal") -> GaussianCalibration:
    r"""The least Gaussian noise for which every point gets :math:`(\varepsilon_i, \delta)`-DP.

    Parameters
    ----------
    epsilons : array-like of shape (n,)
        Privacy levels, finite and ``> 0``.
    lam : float
        ``lambda > 0``.
    d : int
        ``d >= 1``.
    delta : float
        In ``(0, 1)``; the Gaussian mechanism has no pure guarantee, so it is required.
    B : None, "sharp" or float, optional
        The norm bound behind the sensitivity, as in :func:`pdp_lib.calibrate`.  ``B(lambda)`` and
        ``B*(lambda)`` bound ``||theta_bar||`` for every weight vector summing to one; a float ``B``
        (Assumption 3.1) must bound the unregularized solution *for the weights this calibration
        uses* (``mu*``-proportional under ``"optimal"``), not for the paper's.
    weighting : {"optimal", "epsilon"}, default "optimal"
        ``"optimal"``: ``w_i \propto mu*(epsilon_i, delta)``, the weights allowing the least noise;
        ``"epsilon"``: the paper's ``w_i \propto epsilon_i``.

    Returns
    -------
    GaussianCalibration
    """
    eps = check_epsilons(epsilons)
    lam = check_positive(lam, "lam")
    d = check_dimension(d)
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    weighting = check_weighting(weighting)
    B_used = resolve_bound(lam, d, B)
    c = noise_scale(lam, d, B_used)
    reach = tolerated_gaussian_mus(eps, delta)
    weights = noise_optimal_weights(reach if weighting == "optimal" else eps)
    sigma = c * float(np.max(weights / reach))
    mu = weights * c / sigma
    mu.setflags(write=False)
    return GaussianCalibration(weights=weights, sigma=float(sigma), B=float(B_used), delta=delta, mu=mu)


def gaussian_mechanism(X, y, epsilons, lam, delta, B=None, rng=None, *, weighting="optimal",
                       sampler="exact") -> np.ndarray:
    r"""The personalized Gaussian mechanism: ``theta_bar + N(0, sigma^2 I)``, point ``i`` ``(epsilon_i, delta)``-DP.

    The same interface as :func:`pdp_lib.pdp_op`, with ``delta`` required.

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
    delta : float
        In ``(0, 1)``.
    B : None, "sharp" or float, optional
        As in :func:`pdp_lib.calibrate`.
    rng : None, int or numpy.random.Generator
        Source of the privacy noise.
    weighting : {"optimal", "epsilon"}, default "optimal"
        As in :func:`gaussian_calibration`; ``"optimal"`` only with ``sampler="exact"``.
    sampler : {"exact", "float"}, default "exact"
        ``"exact"``: the lattice release (:mod:`pdp_lib.mechanisms.lattice`): the sums weighted by
        ``mu*_i``, the centre solved exactly and rounded to the grid of step ``gamma``, plus
        ``gamma round(Z / gamma)`` with ``Z ~ N(0, sigma'^2 I)`` drawn exactly
        (:func:`pdp_lib.mechanisms.exact_rounding.sample_rounded_gaussian`), a function of the Gaussian
        mechanism's output at the rounded centre; ``sigma' = 1/eta'`` of
        :func:`pdp_lib.mechanisms.lattice.lattice_calibration` with the levels ``mu*_i``, above ``sigma`` by
        the grid's and the sums' rounding.  ``"float"``: ``N(0, sigma^2)`` in double precision, exact only over
        the reals.

    Returns
    -------
    numpy.ndarray of shape (d,)
    """
    return run_gaussian(X, y, epsilons, lam, delta, B, rng, weighting=weighting, sampler=sampler)[0]


def run_gaussian(X, y, epsilons, lam, delta, B, rng, rng_name="rng", size=None, weighting="optimal",
                  sampler="exact"):
    """Validate, calibrate and run the mechanism: ``(theta_hat, calibration)``; ``size`` draws share ``theta_bar``."""
    from .lattice import check_sampler

    sampler = check_sampler(sampler)
    X, y, eps, lam = check_problem(X, y, epsilons, lam)
    d = X.shape[1]
    if sampler == "exact":
        return _run_gaussian_lattice(X, y, eps, lam, delta, B, rng, rng_name, size, weighting)
    gen = check_rng(rng, rng_name)
    cal = gaussian_calibration(eps, lam, d, delta, B, weighting=weighting)
    theta_bar = weighted_ridge_unchecked(X, y, np.asarray(cal.weights), lam)
    if size is None:
        return theta_bar + cal.sigma * gen.standard_normal(d), cal
    size = check_count(size, "size", minimum=0)
    return theta_bar + cal.sigma * gen.standard_normal((size, d)), cal


def _run_gaussian_lattice(X, y, eps, lam, delta, B, rng, rng_name, size, weighting):
    r"""The Gaussian mechanism on the lattice, for validated inputs: ``(theta_hat, GaussianCalibration)``.

    With the levels :math:`\mu^*_i`, :func:`pdp_lib.mechanisms.lattice.lattice_calibration` gives
    :math:`\eta' \le (c/M + s/\mu^*_\min)^{-1}`, :math:`M = \sum_j \mu^*_j` and ``s`` the rounding's spread; so
    :math:`\sigma' = 1/\eta'` keeps every point's distance between centres, :math:`w_i c + s` with
    :math:`w_i = \mu^*_i/M`, within :math:`\mu^*_i \sigma'`, and the noise per lattice step has standard
    deviation ``1/t`` with ``t = eta' gamma``.
    """
    import math
    from fractions import Fraction

    from .lattice import release_from_sums, weighted_sums

    if size is not None:
        raise ValueError("size is not allowed with sampler='exact': one release per call")
    if check_weighting(weighting) != "optimal":
        raise ValueError(f"weighting = {weighting!r} is not allowed with sampler='exact', whose calibration uses "
                         f"the optimal weights mu*_i; use weighting='optimal', or sampler='float' and accept its "
                         f"caveat")
    if rng is not None:
        check_rng(rng, rng_name)                      # a bad seed is refused with the argument's name
    cal = gaussian_calibration(eps, lam, X.shape[1], delta, B)
    reach = tolerated_gaussian_mus(eps, cal.delta)
    gram, moment, rounds = weighted_sums(X, y, reach)
    theta, lat, _ = release_from_sums(gram, moment, math.fsum(reach), float(reach.min()), X.shape[0], rounds, lam, B,
                                      rng, law="gaussian")
    exact_sigma = 1 / Fraction(lat.eta)
    sigma = float(exact_sigma)
    if Fraction(sigma) < exact_sigma:
        sigma = math.nextafter(sigma, math.inf)             # the standard deviation used, from above
    mu = np.array(cal.mu) * cal.sigma / sigma               # w_i c / sigma', the rounding's spread aside
    mu.setflags(write=False)
    return theta, GaussianCalibration(weights=cal.weights, sigma=sigma, B=cal.B, delta=cal.delta, mu=mu)
