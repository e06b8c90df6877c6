r"""The Gaussian mechanism's privacy profile and its inverse: the least noise for a pair of levels.

For :math:`N(\cdot, \sigma^2 I)` on centres :math:`\Delta` apart, :math:`\mu = \Delta/\sigma` and whatever
:math:`d`, :math:`\delta(\varepsilon') = \Phi(\mu/2 - \varepsilon'/\mu) - e^{\varepsilon'}\Phi(-\mu/2 -
\varepsilon'/\mu)` (Balle & Wang, ICML 2018) (:func:`gaussian_privacy_profile`); it grows with :math:`\mu`, so the
largest :math:`\mu` that meets a target :math:`(\varepsilon, \delta)` is found by bisection
(:func:`largest_gaussian_mu`, :func:`tolerated_gaussian_mus` for every level at once): the weights
:math:`\mu^*(\varepsilon_i, \delta)` of every Gaussian mechanism in the library.  The ℓ2 and Laplace mechanisms'
profiles are :mod:`pdp_lib.curves`'; :data:`SAFETY` is the margin every inverse of both modules keeps.

Derived in the book's chapter *PDP-OP under approximate DP* (``book/approximate.ipynb``).
"""

from __future__ import annotations

import hashlib

import numpy as np
from scipy import special

from .validation import check_epsilons, check_fraction, check_positive

__all__ = ["SAFETY", "check_eps_prime", "gaussian_privacy_profile", "tolerated_gaussian_mus", "largest_gaussian_mu"]

SAFETY = 1e-8
"""The inverses aim at ``delta (1 - SAFETY)``: rounding and quadrature error stay on the safe side."""


def check_eps_prime(eps_prime) -> float:
    """A profile's argument ``eps_prime``: finite and ``>= 0``, else refused naming the range."""
    x = float(eps_prime)
    if not np.isfinite(x) or x < 0:
        raise ValueError(f"eps_prime = {eps_prime!r} is outside the allowed range [0, inf)")
    return x


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
    e = check_eps_prime(eps_prime)
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
    key = (hashlib.blake2b(eps.tobytes(), digest_size=16).digest(), eps.size, delta)
    if key not in _RECENT:
        # each level's root is found on its own (every step is elementwise), so once per distinct level: the
        # same bits as on every entry
        levels, where = np.unique(eps, return_inverse=True)
        mus = _bisect_mus(levels, delta * (1.0 - SAFETY))
        _check_profile_precision(levels, mus, delta, eps)
        _RECENT[key] = mus[where]
        while len(_RECENT) > _RECENT_SIZE:
            _RECENT.pop(next(iter(_RECENT)))
    return _RECENT[key].copy()


_RECENT: dict = {}
"""The last few results of :func:`tolerated_gaussian_mus`, keyed on a digest of the levels' bits and ``delta``: a
release, its calibration and its audit ask for the same levels' ``mu*`` several times."""
_RECENT_SIZE = 4


def _bisect_mus(eps: np.ndarray, target: float) -> np.ndarray:
    """The bisection of :func:`tolerated_gaussian_mus` on ``log mu``, elementwise: the lower ends of the final
    brackets of ``delta(eps_i; mu) > target``."""
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


def _check_profile_precision(eps: np.ndarray, mus: np.ndarray, delta: float, given=None) -> None:
    r"""Refuse levels whose :math:`\delta(\varepsilon; \mu^*)` double precision cannot resolve to within ``SAFETY / 4``.

    The profile is :math:`e^{L_1}(1 - e^{D})` with :math:`D = L_2 - L_1` the difference of two logarithms of
    magnitude about :math:`|L_1| + |L_2|`, each computed within a few units of the last place: a relative error of
    about :math:`16u(|L_1| + |L_2| + \varepsilon)/|D|` in the profile, ``u = 2**-53``.  For tiny levels with a tiny
    ``delta`` the two terms cancel and that error exceeds the bisection's margin, so the returned ``mu*`` could give
    more than ``delta``: refused rather than computed.
    """
    log_first = special.log_ndtr(mus / 2.0 - eps / mus)
    log_second = eps + special.log_ndtr(-mus / 2.0 - eps / mus)
    gap = np.abs(log_second - log_first)
    with np.errstate(divide="ignore", invalid="ignore"):
        error = 16 * 2.0**-53 * (np.abs(log_first) + np.abs(log_second) + eps) / gap
    bad = ~(error <= SAFETY / 4)
    if bad.any():
        # the first entry of the levels as given (``given``; ``eps`` when None) at a level refused
        given = eps if given is None else given
        i = int(np.flatnonzero(np.isin(given, eps[bad]))[0])
        raise ValueError(f"epsilons[{i}] = {float(given[i])!r} with delta = {delta!r} is outside the range where "
                         f"mu*(epsilon, delta) is computed safely in double precision: the Gaussian profile's two "
                         f"terms cancel; raise delta or the level")


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
