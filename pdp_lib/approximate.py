r"""PDP-OP under approximate DP: the exact privacy profile of the ℓ2 mechanism, and a calibration for (ε, δ).

PDP-OP releases :math:`\hat\theta = \bar\theta + Z` with :math:`Z` of density
:math:`\propto e^{-\eta\|z\|}` in :math:`\mathbb R^d`, the ℓ2 mechanism.  For two datasets whose
solutions are :math:`\Delta` apart, the privacy loss of an output :math:`o` is
:math:`L = \eta(\|o - v\| - \|o\|) \in [-a, a]` with :math:`a = \eta\Delta`, and the tightest
:math:`\delta` for a given :math:`\varepsilon'` is the *privacy profile*

.. math::

    \delta(\varepsilon') = \mathbb E_0\bigl[(1 - e^{\varepsilon' - L})_+\bigr]
    = P_0(L > \varepsilon') - e^{\varepsilon'} P_v(L > \varepsilon').

It depends on :math:`(d, a)` only.  Writing :math:`o = R\,U` with :math:`R \sim \mathrm{Gamma}(d, 1)`
(taking :math:`\eta = 1`) and :math:`T = \langle U, v/\Delta\rangle`, whose law is
:math:`(1 + T)/2 \sim \mathrm{Beta}(\frac{d-1}2, \frac{d-1}2)` for :math:`d \ge 2` and
:math:`\pm 1` with probability one half each for :math:`d = 1`, the loss is monotone in
:math:`T` and both probabilities are one-dimensional integrals over :math:`R` of the law of
:math:`T` below a threshold (:func:`l2_privacy_profile`).  For :math:`d = 1` the mechanism is
Laplace's, whose profile is :math:`1 - e^{(\varepsilon' - a)/2}` on :math:`[0, a]`
(:func:`laplace_privacy_profile`).

For PDP-OP, point :math:`i` has :math:`\Delta_i = w_i C_\lambda` and :math:`\eta = S/C_\lambda`, so
:math:`a_i = \eta\Delta_i = \varepsilon_i`: its profile is :math:`\delta(\cdot\,; d, \varepsilon_i)`,
whatever the data, :math:`\lambda` or the other levels (:func:`point_profile`), and
:math:`\delta_i(\varepsilon_i) = 0`, the pure guarantee.  Under :math:`(\varepsilon_i, \delta)` a point
tolerates a larger :math:`a`: :func:`largest_loss_range` finds it, and
:func:`approximate_calibration` the largest :math:`\eta`, the least noise, for which every point
gets :math:`(\varepsilon_i, \delta)`-DP.

Derived for the book's chapters on privacy; the profile follows Joseph, Kulesza & Yu (ICML 2025).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bounds import noise_scale
from .curves import (check_eps_prime, gaussian_privacy_profile, l2_privacy_profile,  # noqa: F401
                     laplace_privacy_profile, largest_gaussian_mu, largest_loss_range)
from .mechanisms.gaussian import gaussian_calibration
from .mechanisms.output_perturbation import weighted_ridge_unchecked, calibrate
from .moments import QuadraticLoss
from .validation import check_dimension, check_epsilons, check_fraction, check_problem

__all__ = [
    "laplace_privacy_profile",
    "l2_privacy_profile",
    "point_profile",
    "largest_loss_range",
    "ApproximateCalibration",
    "approximate_calibration",
    "privacy_curve",
    "MECHANISMS",
    "MechanismLosses",
    "mechanism_losses",
]


def point_profile(eps_prime, d, epsilon_i) -> float:
    r"""Point ``i``'s privacy profile under PDP-OP: :math:`\delta(\varepsilon'; d, \varepsilon_i)`.

    Its loss range is :math:`\eta\Delta_i = \varepsilon_i` for either calibration of
    :func:`pdp_lib.calibrate`, so nothing else enters.
    """
    return l2_privacy_profile(eps_prime, d, epsilon_i)


@dataclass(frozen=True)
class ApproximateCalibration:
    """PDP-OP calibrated so that every point ``i`` gets ``(epsilon_i, delta)``-DP.

    Attributes
    ----------
    eta : float
        The noise parameter: the largest for which every point's profile at ``epsilon_i`` is at most ``delta``.
    pure_eta : float
        The pure calibration's (:func:`pdp_lib.calibrate`).
    binding : int
        The index of the point whose condition holds with equality.
    weights : numpy.ndarray
        ``w_i = epsilon_i / sum(epsilon)``, as in the pure calibration.
    """

    eta: float
    pure_eta: float
    binding: int
    weights: np.ndarray

    @property
    def gain(self) -> float:
        """``eta / pure_eta``: the noise is this many times smaller (its square in the noise part of a loss)."""
        return self.eta / self.pure_eta


def approximate_calibration(epsilons, lam, d, delta, B=None) -> ApproximateCalibration:
    r"""The least noise for which PDP-OP gives every point ``(epsilon_i, delta)``-DP, same weights.

    With the weights of Theorem 3.1, point ``i``'s loss range is :math:`\eta w_i C_\lambda`; it must
    not exceed :math:`a^*(\varepsilon_i, \delta, d)` (:func:`largest_loss_range`), so
    :math:`\eta = \min_i a^*(\varepsilon_i)/(w_i C_\lambda) = \eta_{\text{pure}} \min_i
    a^*(\varepsilon_i)/\varepsilon_i`.  Each distinct level is solved once, by a root search of
    about 0.2 s: a profile with a few levels (the paper's groups) takes a second, one with
    thousands of distinct levels minutes.
    """
    eps = check_epsilons(epsilons)
    d = check_dimension(d)
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    cal = calibrate(eps, lam, d, B)
    levels, inverse = np.unique(eps, return_inverse=True)
    stretch = np.array([largest_loss_range(level, delta, d) / level for level in levels])
    k = int(np.argmin(stretch))
    binding = int(np.flatnonzero(inverse == k)[0])
    return ApproximateCalibration(eta=float(cal.eta * stretch[k]), pure_eta=cal.eta, binding=binding,
                                  weights=np.array(cal.weights))


NOISES = ("l2", "gaussian")


def privacy_curve(eps_prime, epsilons, lam, d, point, *, noise="l2", delta=None, B=None,
                    weighting="optimal") -> np.ndarray:
    r"""Point ``point``'s guaranteed privacy profile under a calibrated mechanism: a bound on :math:`\delta_i(\varepsilon')`.

    The mechanism is calibrated for the whole profile ``epsilons``; on any pair of datasets that
    differ in point ``i`` its outputs are two copies of the noise at most :math:`\Delta_i = w_i
    c_\lambda` apart (Theorem A.4), and the noise's profile grows with the distance, so point
    ``i``'s profile is at most the noise's exact profile (:mod:`pdp_lib.curves`) at the certified
    distance :math:`\Delta_i`.  It is the point's exact profile only where some pair attains
    :math:`\Delta_i`; with ``B(lambda)`` none does (``B*(lambda)`` is smaller):

    - ``noise="l2"``, ``delta=None``: PDP-OP as in the paper, :math:`a_i = \varepsilon_i`;
    - ``noise="l2"`` with ``delta``: PDP-OP calibrated for :math:`(\varepsilon_i, \delta)`
      (:func:`pdp_lib.calibrate` with ``delta`` and ``weighting``);
    - ``noise="gaussian"`` (``delta`` required): the personalized Gaussian mechanism
      (:func:`pdp_lib.mechanisms.gaussian.gaussian_calibration`), :math:`\mu_i = w_i c_\lambda/\sigma`.

    Parameters
    ----------
    eps_prime : float or array-like of float
        Each ``>= 0``.
    epsilons : array-like of shape (n,)
        The privacy levels the mechanism is calibrated for.
    lam : float
        ``lambda > 0``.
    d : int
        ``d >= 1``.
    point : int
        The index ``i`` of the point, ``0 <= i < n``.
    noise : {"l2", "gaussian"}
    delta : None or float
        In ``(0, 1)``; required for the Gaussian noise.
    B : None, "sharp" or float
        As in :func:`pdp_lib.calibrate`.
    weighting : {"optimal", "epsilon"}
        As in :func:`pdp_lib.calibrate`; only with ``delta``.

    Returns
    -------
    numpy.ndarray
        The bound on :math:`\delta_i(\varepsilon')`, the shape of ``eps_prime``.
    """
    eps = check_epsilons(epsilons)
    d = check_dimension(d)
    if not isinstance(noise, str) or noise not in NOISES:
        raise ValueError(f"noise = {noise!r} is not allowed; use 'l2' (PDP-OP) or 'gaussian'")
    if isinstance(point, (bool, np.bool_)) or not isinstance(point, (int, np.integer)):
        raise TypeError(f"point must be an integer index, got {type(point).__name__}")
    if not 0 <= int(point) < eps.size:
        raise ValueError(f"point = {int(point)} is outside the allowed range [0, {eps.size - 1}]")
    grid = np.asarray(eps_prime, dtype=float)
    values = [check_eps_prime(e) for e in grid.ravel()]
    if noise == "gaussian":
        if delta is None:
            raise ValueError("delta is required with noise='gaussian': the Gaussian mechanism has no pure "
                             "guarantee; give delta in (0, 1)")
        cal = gaussian_calibration(eps, lam, d, delta, B, weighting=weighting)
        mu = float(cal.mu[int(point)])
        out = [gaussian_privacy_profile(e, mu) for e in values]
    else:
        if delta is None:   # Theorem 3.1 (or 3.2): eta * Delta_i = eps_i exactly, for every B
            a = float(eps[int(point)])     # (the product of the rounded factors can exceed it)
        else:
            cal = calibrate(eps, lam, d, B, delta=delta, weighting=weighting)
            a = cal.eta * float(cal.weights[int(point)]) * noise_scale(lam, d, cal.B)
        out = [l2_privacy_profile(e, d, a) for e in values]
    return np.array(out).reshape(grid.shape)


@dataclass(frozen=True)
class MechanismLosses:
    """Exact expected test losses of the mechanisms compared under ``(epsilon_i, delta)``.

    Attributes
    ----------
    names : tuple of str
        The mechanisms, in the order of :data:`MECHANISMS`.
    mean : numpy.ndarray of shape (len(names),)
        Each mechanism's expected test loss over its noise.
    noise : numpy.ndarray of shape (len(names),)
        Each mechanism's per-coordinate noise variance ``E[Z_k^2]``: ``(d + 1)/eta^2`` for the ℓ2
        mechanism, ``sigma^2`` for the Gaussian.
    """

    names: tuple
    mean: np.ndarray
    noise: np.ndarray

    def ratio(self, name, to="pdp-op") -> float:
        """``mean[name] / mean[to]``."""
        index = {n: k for k, n in enumerate(self.names)}
        for key in (name, to):
            if key not in index:
                raise ValueError(f"mechanism {key!r} is not one of {self.names}")
        return float(self.mean[index[name]] / self.mean[index[to]])


MECHANISMS = ("pdp-op", "pdp-op (eps, delta), paper's weights", "pdp-op (eps, delta), optimal weights",
              "gaussian, optimal weights", "gaussian, paper's weights", "gaussian at min eps")


def mechanism_losses(X, y, X_test, y_test, epsilons, lam, delta, B=None, penalty=0.0) -> MechanismLosses:
    r"""The expected test loss of each mechanism of :data:`MECHANISMS`, exact (no sampling).

    Each mechanism releases its own weighted ridge solution plus isotropic noise, so its expected
    loss is :math:`L(\bar\theta) + E[Z_k^2] \operatorname{tr} A` (theorem *thm-exact-loss-moments* and
    :meth:`pdp_lib.moments.QuadraticLoss.gaussian_moments`).  The last one is the non-personalized
    Gaussian mechanism: every point at ``min(epsilons)``, equal weights.

    Parameters
    ----------
    X, y : array-like
        Training data in the domain.
    X_test, y_test : array-like
        Test data.
    epsilons : array-like of shape (n,)
    lam : float
    delta : float
        In ``(0, 1)``.
    B : None, "sharp" or float
    penalty : float
        ``0`` for the test MSE, ``lam`` for the regularized test loss.

    Returns
    -------
    MechanismLosses
    """
    X, y, eps, lam = check_problem(X, y, epsilons, lam)
    d = X.shape[1]
    loss = QuadraticLoss(X_test, y_test, penalty)
    ell2 = [calibrate(eps, lam, d, B),
            calibrate(eps, lam, d, B, delta=delta, weighting="epsilon"),
            calibrate(eps, lam, d, B, delta=delta, weighting="optimal")]
    gauss = [gaussian_calibration(eps, lam, d, delta, B, weighting="optimal"),
             gaussian_calibration(eps, lam, d, delta, B, weighting="epsilon"),
             gaussian_calibration(np.full(eps.size, eps.min()), lam, d, delta, B)]
    means, noise = [], []
    for cal in ell2:
        theta = weighted_ridge_unchecked(X, y, np.asarray(cal.weights), lam)
        means.append(float(loss.moments(theta, cal.eta).mean))
        noise.append((d + 1) / cal.eta**2)
    for cal in gauss:
        theta = weighted_ridge_unchecked(X, y, np.asarray(cal.weights), lam)
        means.append(float(loss.gaussian_moments(theta, cal.sigma).mean))
        noise.append(cal.sigma**2)
    return MechanismLosses(names=MECHANISMS, mean=np.array(means), noise=np.array(noise))
