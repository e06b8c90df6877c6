r"""Privacy profiles :math:`\delta(\varepsilon')` of the Laplace, ℓ2 and Gaussian mechanisms, and their inverses.

A mechanism whose outputs on two datasets have densities :math:`p, q` satisfies
:math:`(\varepsilon', \delta)`-DP on that pair iff :math:`\delta \ge \delta(\varepsilon') =
\mathbb E_p[(1 - e^{\varepsilon' - L})_+]`, with :math:`L = \log p/q` the privacy loss.  For the
mechanisms here the profile depends on one number and the dimension:

- the **ℓ2 mechanism** (density :math:`\propto e^{-\eta\|z\|}` in :math:`\mathbb R^d`, PDP-OP's
  noise), on centres :math:`\Delta` apart: :math:`a = \eta\Delta` and :math:`d`
  (:func:`l2_privacy_profile`; :func:`laplace_privacy_profile` for :math:`d = 1`).  Writing
  :math:`o = R\,U` with :math:`R \sim \mathrm{Gamma}(d, 1)` (taking :math:`\eta = 1`) and
  :math:`T = \langle U, v/\Delta\rangle`, whose law is :math:`(1 + T)/2 \sim
  \mathrm{Beta}(\frac{d-1}2, \frac{d-1}2)` for :math:`d \ge 2`, the loss is monotone in :math:`T`,
  and :math:`\delta(\varepsilon') = P_0(L > \varepsilon') - e^{\varepsilon'} P_v(L > \varepsilon')`
  is a one-dimensional integral over :math:`R`.  It follows Joseph, Kulesza & Yu (ICML 2025).
- the **Gaussian mechanism** :math:`N(\cdot, \sigma^2 I)`: :math:`\mu = \Delta/\sigma`, whatever
  :math:`d`, with the closed form :math:`\delta(\varepsilon') = \Phi(\mu/2 - \varepsilon'/\mu) -
  e^{\varepsilon'}\Phi(-\mu/2 - \varepsilon'/\mu)` (Balle & Wang, ICML 2018)
  (:func:`gaussian_privacy_profile`).

Both profiles grow with :math:`a` (resp. :math:`\mu`), so the largest value that still meets a target
:math:`(\varepsilon, \delta)` is found by a root search: :func:`largest_loss_range`,
:func:`largest_gaussian_mu`.  These are what a calibration for :math:`(\varepsilon_i, \delta)` needs.

Derived in the book's chapter *PDP-OP under approximate DP* (``book/approximate.ipynb``).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import integrate, optimize, special

from .validation import check_dimension, check_epsilons, check_fraction, check_positive

__all__ = [
    "laplace_privacy_profile",
    "l2_privacy_profile",
    "largest_loss_range",
    "gaussian_privacy_profile",
    "largest_gaussian_mu",
    "tolerated_loss_ranges",
    "tolerated_gaussian_mus",
    "least_stretch",
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


_QUADRATURE_ERROR = 1e-10   # the largest error estimate of the profile accepted (absolute)


def _probabilities(c: float, d: int, a: float):
    """``(P_0(L > c), P_v(L > c), error)`` for the ℓ2 mechanism in R^d (``d >= 2``), ``eta = 1``, ``||v|| = a``.

    With ``o = R U`` under ``P_0``: ``L > c`` iff ``T < (a^2 - c^2 - 2Rc) / (2Ra)``; with
    ``o = v + R U`` under ``P_v``: iff ``T < (c^2 - 2Rc - a^2) / (2Ra)`` (which needs ``R > c``).
    ``error`` bounds the quadrature's error on ``P_0 - e^c P_v`` (from its error estimates); the
    tolerances asked of the quadrature are below what double precision always reaches, so its
    warning is replaced by this explicit estimate, which :func:`l2_privacy_profile` checks.
    """
    upper = float(special.gammainccinv(d, 1e-17))          # P(R > upper) = 1e-17
    log_norm = float(special.gammaln(d))
    half = (d - 1) / 2.0
    thresholds = {
        0: lambda r: (a * a - c * c - 2.0 * r * c) / (2.0 * r * a),
        1: lambda r: (c * c - 2.0 * r * c - a * a) / (2.0 * r * a),
    }

    def density_times_cdf(r, t):        # Gamma(d, 1) density at r times P(T <= t(r)), on scalars
        x = min(1.0, max(0.0, (1.0 + t(r)) / 2.0))
        return math.exp((d - 1) * math.log(r) - r - log_norm) * float(special.betainc(half, half, x))

    out, errors = [], []
    for which, lower in ((0, 0.0), (1, c)):
        f = lambda r, t=thresholds[which]: density_times_cdf(r, t) if r > 0 else 0.0      # noqa: E731
        breaks = [x for x in (0.5 * (a - c), 0.5 * (a + c), c, a, d - 1.0) if lower < x < upper]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", integrate.IntegrationWarning)
            value, error = integrate.quad(f, lower, upper, limit=400, epsabs=1e-15, epsrel=1e-11,
                                          points=sorted(set(breaks)) or None)
        out.append(value)
        errors.append(error)
    return out[0], out[1], errors[0] + np.exp(c) * errors[1]


def _l2_profile_and_error(e: float, d: int, a: float):
    """The ℓ2 profile (validated inputs, ``d >= 2``, ``e < a``) and the estimate of its quadrature error."""
    p0, pv, error = _probabilities(e, d, a)
    if not error <= _QUADRATURE_ERROR:
        raise ArithmeticError(f"the privacy profile at eps_prime = {e!r}, d = {d}, a = {a!r} could not be "
                              f"computed to {_QUADRATURE_ERROR!r}: the quadrature's error estimate is {error!r}")
    return float(min(1.0, max(0.0, p0 - np.exp(e) * pv))), float(error)


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
    return _l2_profile_and_error(e, d, a)[0]


def largest_loss_range(epsilon, delta, d, *, guess=None) -> float:
    r"""The largest ``a`` with :math:`\delta(\varepsilon; d, a) \le \delta`: how far the pure calibration can stretch.

    The profile grows with ``a`` (a larger range dominates a smaller one), so the answer is found
    by bisection; it is at least ``epsilon`` (where the profile is 0).  The answer errs on the safe
    side three times: the search runs on the profile plus its quadrature error estimate, aims at
    ``delta (1 - SAFETY)``, and returns a point below the root by twice the search's tolerance.
    ``guess``, a value near the answer (a neighbouring level's, scaled), only narrows the first
    bracket: a guess that does not bracket the root is widened, then dropped.
    """
    eps = check_positive(epsilon, "epsilon")
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    d = check_dimension(d)

    target = delta * (1.0 - SAFETY)

    def f(a):
        if a <= eps:
            return -target
        if d == 1:
            return laplace_privacy_profile(eps, a) - target
        value, error = _l2_profile_and_error(eps, d, a)
        return value + error - target

    lo, hi = eps, None
    if guess is not None and np.isfinite(guess) and guess > eps:
        for width in (2e-3, 2e-2, 2e-1):
            a, b = max(eps, guess * (1 - width)), guess * (1 + width)
            if f(a) <= 0 < f(b):
                lo, hi = a, b
                break
    if hi is None:
        hi = 2.0 * eps
        while f(hi) <= 0:
            hi *= 2.0
    xtol = 1e-12 * eps
    root = optimize.brentq(f, lo, hi, xtol=xtol, rtol=1e-12)
    return float(max(eps, root - 2.0 * (xtol + 1e-12 * root)))     # below the root, whichever side brentq stopped


SAFETY = 1e-8
"""The inverses aim at ``delta (1 - SAFETY)``: rounding and quadrature error stay on the safe side."""

EXACT_LEVELS = 64
"""Up to this many distinct levels, :func:`tolerated_loss_ranges` solves each one exactly."""
LATTICE_STEPS = 64
"""Beyond, it uses the lattice of levels ``2**(k / LATTICE_STEPS)``, a ratio of about 1.011 apart."""


_RANGES: dict = {}


def _cached_loss_range(epsilon: float, delta: float, d: int, guess=None) -> float:
    """:func:`largest_loss_range`, remembered; the same level one dimension down, if known, guesses it."""
    key = (float(epsilon), float(delta), int(d))
    if key not in _RANGES:
        below = _RANGES.get((key[0], key[1], key[2] - 1))
        if guess is None and below is not None:
            guess = below * (1.0 + 0.2 / key[2])          # the range grows slowly with d
        _RANGES[key] = largest_loss_range(*key, guess=guess)
    return _RANGES[key]


def _lattice_floor(levels: np.ndarray) -> np.ndarray:
    """The largest lattice level ``2**(k / LATTICE_STEPS)`` at or below each level."""
    k = np.floor(LATTICE_STEPS * np.log2(levels))
    k = np.where(2.0 ** (k / LATTICE_STEPS) > levels, k - 1, k)
    return 2.0 ** (k / LATTICE_STEPS)


def tolerated_loss_ranges(epsilons, delta, d) -> np.ndarray:
    r"""For each point a loss range :math:`r_i` with :math:`\delta(\varepsilon_i; d, r_i) \le \delta`: what a calibration may use.

    With at most :data:`EXACT_LEVELS` distinct levels, :math:`r_i = a^*(\varepsilon_i)`
    (:func:`largest_loss_range`), exactly.  With more (levels drawn from a continuum), each level is
    bounded below by the lattice level :math:`g \le \varepsilon_i` just under it:
    :math:`r_i = \max(\varepsilon_i, a^*(g))`.  Both are at most :math:`a^*(\varepsilon_i)`, because
    :math:`a^*` increases with :math:`\varepsilon` (the profile falls as :math:`\varepsilon'` grows) and
    :math:`a^*(\varepsilon) \ge \varepsilon`, so every point keeps its :math:`(\varepsilon_i,
    \delta)`; the price is a little more noise than the exact ranges would allow.  Results are
    cached, so a lattice is solved once per ``(delta, d)`` (about 430 root searches for levels
    spanning a factor of 100).

    Parameters
    ----------
    epsilons : array-like of shape (n,)
    delta : float
        In ``(0, 1)``.
    d : int
        ``d >= 1``.

    Returns
    -------
    numpy.ndarray of shape (n,)
    """
    eps = check_epsilons(epsilons)
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    d = check_dimension(d)
    levels, inverse = np.unique(eps, return_inverse=True)
    if levels.size <= EXACT_LEVELS:
        ranges = np.array([_cached_loss_range(float(x), delta, d) for x in levels])
    else:
        floors = _lattice_floor(levels)
        solved, stretch = {}, None
        for g in np.unique(floors):              # ascending: each level's stretch guesses the next
            solved[g] = _cached_loss_range(float(g), delta, d, None if stretch is None else g * stretch)
            stretch = solved[g] / g
        ranges = np.maximum(levels, [solved[g] for g in floors])
    return ranges[inverse]


def least_stretch(epsilons, delta, d) -> float:
    r""":math:`\min_i a^*(\varepsilon_i)/\varepsilon_i`, exactly, at any number of levels.

    Starts from the bounds of :func:`tolerated_loss_ranges` and solves the level at the minimum
    exactly until the minimum falls on a level solved exactly: every other ratio is then at least
    its lower bound, which is at least that minimum.  This is how far the paper's calibration
    stretches under :math:`(\varepsilon_i, \delta)` with the paper's weights.

    Parameters
    ----------
    epsilons : array-like of shape (n,)
    delta : float
        In ``(0, 1)``.
    d : int
        ``d >= 1``.

    Returns
    -------
    float
        At least 1.
    """
    eps = check_epsilons(epsilons)
    levels = np.unique(eps)
    ratios = tolerated_loss_ranges(levels, delta, d) / levels
    exact = np.zeros(levels.size, dtype=bool) if levels.size > EXACT_LEVELS else np.ones(levels.size, dtype=bool)
    floors = _lattice_floor(levels)
    while True:
        k = int(np.argmin(ratios))
        if exact[k]:
            return float(ratios[k])
        guess = ratios[k] * levels[k] * levels[k] / floors[k]     # the lattice level's stretch, scaled
        ratios[k] = _cached_loss_range(float(levels[k]), float(delta), int(d), guess) / levels[k]
        exact[k] = True


def gaussian_privacy_profile(eps_prime, mu) -> float:
    r"""The privacy profile of the Gaussian mechanism at :math:`\mu = \Delta/\sigma` (any dimension).

    :math:`\delta(\varepsilon') = \Phi(\mu/2 - \varepsilon'/\mu) - e^{\varepsilon'}\Phi(-\mu/2 - \varepsilon'/\mu)`
    (Balle & Wang, ICML 2018, Theorem 8), computed through :math:`\log\Phi` so that values far
    below machine epsilon keep their relative accuracy.

    Parameters
    ----------
    eps_prime : float
        ``>= 0``.
    mu : float
        ``> 0``: the distance of the two centres over the noise's standard deviation.

    Returns
    -------
    float
        In ``[0, 1)``; decreasing in ``eps_prime``, increasing in ``mu``.
    """
    e = _check_eps_prime(eps_prime)
    mu = check_positive(mu, "mu")
    log_first = special.log_ndtr(mu / 2.0 - e / mu)
    log_second = e + special.log_ndtr(-mu / 2.0 - e / mu)
    if not np.isfinite(log_first):
        return 0.0
    return float(max(0.0, -np.exp(log_first) * np.expm1(log_second - log_first)))


def _gaussian_profiles(eps: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """:func:`gaussian_privacy_profile` on arrays (validated inputs)."""
    log_first = special.log_ndtr(mu / 2.0 - eps / mu)
    log_second = eps + special.log_ndtr(-mu / 2.0 - eps / mu)
    with np.errstate(invalid="ignore"):
        value = -np.exp(log_first) * np.expm1(log_second - log_first)
    return np.where(np.isfinite(log_first), np.maximum(value, 0.0), 0.0)


def tolerated_gaussian_mus(epsilons, delta) -> np.ndarray:
    r""":func:`largest_gaussian_mu` for every level at once: a vectorized bisection on :math:`\log\mu`.

    Aims at ``delta (1 - SAFETY)`` and returns the lower end of the final bracket, within a relative
    ``2**-50`` of that root, so that :math:`\delta(\varepsilon_i; \mu_i) \le \delta` holds for every
    returned :math:`\mu_i` despite rounding (the safe side).

    Parameters
    ----------
    epsilons : array-like of shape (n,)
        Each finite and ``> 0``.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    numpy.ndarray of shape (n,)
    """
    eps = check_epsilons(epsilons)
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    target = delta * (1.0 - SAFETY)
    over = lambda log_mu: _gaussian_profiles(eps, np.exp(log_mu)) > target      # noqa: E731
    hi = np.zeros_like(eps)
    while np.any(~over(hi)):
        hi = np.where(over(hi), hi, hi + 1.0)
    lo = hi - 1.0
    while np.any(over(lo)):
        lo = np.where(over(lo), lo - 1.0, lo)
    for _ in range(52):
        mid = 0.5 * (lo + hi)
        above = over(mid)
        lo, hi = np.where(above, lo, mid), np.where(above, mid, hi)
    return np.exp(lo)


def largest_gaussian_mu(epsilon, delta) -> float:
    r"""The largest :math:`\mu` with :math:`\delta(\varepsilon; \mu) \le \delta`: the analytic Gaussian mechanism.

    A Gaussian mechanism whose centres are at most :math:`\Delta` apart is :math:`(\varepsilon,
    \delta)`-DP iff :math:`\sigma \ge \Delta/\mu^*(\varepsilon, \delta)` (Balle & Wang, ICML 2018):
    the least noise for the pair of levels.  Found by bisection on :math:`\log\mu`
    (:func:`tolerated_gaussian_mus`), to a relative ``2**-50``, on the safe side.

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
    """
    eps = check_positive(epsilon, "epsilon")
    return float(tolerated_gaussian_mus(np.array([eps]), delta)[0])
