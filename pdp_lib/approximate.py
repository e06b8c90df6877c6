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
from scipy import integrate, optimize, special, stats

from .mechanism import calibrate
from .validation import check_dimension, check_epsilons, check_fraction, check_positive

__all__ = [
    "laplace_privacy_profile",
    "l2_privacy_profile",
    "point_profile",
    "largest_loss_range",
    "ApproximateCalibration",
    "approximate_calibration",
]


def _check_eps_prime(eps_prime) -> float:
    x = float(eps_prime)
    if not np.isfinite(x) or x < 0:
        raise ValueError(f"eps_prime = {eps_prime!r} is outside the allowed range [0, inf)")
    return x


def laplace_privacy_profile(eps_prime, a) -> float:
    r"""The privacy profile of the Laplace mechanism whose loss ranges over ``[-a, a]`` (``d = 1``).

    :math:`\delta(\varepsilon') = 1 - e^{(\varepsilon' - a)/2}` for :math:`0 \le \varepsilon' \le a`,
    and 0 beyond.
    """
    e = _check_eps_prime(eps_prime)
    a = check_positive(a, "a")
    return float(-np.expm1((e - a) / 2.0)) if e < a else 0.0


def _t_cdf(t, d: int):
    """``P(T <= t)`` for ``T = <U, e>``, ``U`` uniform on the sphere of R^d (``d >= 2``)."""
    half = (d - 1) / 2.0
    return special.betainc(half, half, (1.0 + np.clip(t, -1.0, 1.0)) / 2.0)


def _probabilities(c: float, d: int, a: float):
    """``(P_0(L > c), P_v(L > c))`` for the ℓ2 mechanism in R^d (``d >= 2``), ``eta = 1``, ``||v|| = a``.

    With ``o = R U`` under ``P_0``: ``L > c`` iff ``T < (a^2 - c^2 - 2Rc) / (2Ra)``; with
    ``o = v + R U`` under ``P_v``: iff ``T < (c^2 - 2Rc - a^2) / (2Ra)`` (which needs ``R > c``).
    """
    gamma = stats.gamma(d)
    upper = gamma.isf(1e-17)
    thresholds = {
        0: lambda r: (a * a - c * c - 2.0 * r * c) / (2.0 * r * a),
        1: lambda r: (c * c - 2.0 * r * c - a * a) / (2.0 * r * a),
    }
    out = []
    for which, lower in ((0, 0.0), (1, c)):
        f = lambda r, t=thresholds[which]: gamma.pdf(r) * float(_t_cdf(t(r), d))      # noqa: E731
        breaks = [x for x in (0.5 * (a - c), 0.5 * (a + c), c, a, d - 1.0) if lower < x < upper]
        value, _ = integrate.quad(f, lower, upper, limit=400, epsabs=1e-15, epsrel=1e-11,
                                  points=sorted(set(breaks)) or None)
        out.append(value)
    return out[0], out[1]


def l2_privacy_profile(eps_prime, d, a) -> float:
    r"""The exact privacy profile :math:`\delta(\varepsilon')` of the ℓ2 mechanism at loss range ``a``.

    Parameters
    ----------
    eps_prime : float
        ``>= 0``.
    d : int
        Dimension, ``>= 1``.
    a : float
        :math:`\eta\Delta > 0`: the noise parameter times the distance between the two centres.

    Returns
    -------
    float
        In ``[0, 1]``; exactly 0 for ``eps_prime >= a``; for ``d = 1``,
        :func:`laplace_privacy_profile`.  Accurate to about ``1e-10`` (adaptive quadrature).
    """
    e = _check_eps_prime(eps_prime)
    d = check_dimension(d)
    a = check_positive(a, "a")
    if e >= a:
        return 0.0
    if d == 1:          # the Laplace mechanism
        return laplace_privacy_profile(e, a)
    p0, pv = _probabilities(e, d, a)
    return float(min(1.0, max(0.0, p0 - np.exp(e) * pv)))


def point_profile(eps_prime, d, epsilon_i) -> float:
    r"""Point ``i``'s privacy profile under PDP-OP: :math:`\delta(\varepsilon'; d, \varepsilon_i)`.

    Its loss range is :math:`\eta\Delta_i = \varepsilon_i` for either calibration of
    :func:`pdp_lib.calibrate`, so nothing else enters.
    """
    return l2_privacy_profile(eps_prime, d, epsilon_i)


def largest_loss_range(epsilon, delta, d) -> float:
    r"""The largest ``a`` with :math:`\delta(\varepsilon; d, a) \le \delta`: how far the pure calibration can stretch.

    The profile grows with ``a`` (a larger range dominates a smaller one), so the answer is found
    by bisection; it is at least ``epsilon`` (where the profile is 0).
    """
    eps = check_positive(epsilon, "epsilon")
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    d = check_dimension(d)
    f = lambda a: l2_privacy_profile(eps, d, a) - delta            # noqa: E731
    hi = 2.0 * eps
    while f(hi) <= 0:
        hi *= 2.0
    return float(optimize.brentq(f, eps, hi, xtol=1e-12 * eps, rtol=1e-12))


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
