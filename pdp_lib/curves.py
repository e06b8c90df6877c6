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
  is a pair of one-dimensional integrals over :math:`R` (:func:`_profile_terms`, which keeps the
  factor :math:`e^{\varepsilon'}` inside the second, so that any finite :math:`\varepsilon'`
  works), elementary for :math:`d = 3` (:func:`_profile_d3`).  It follows Joseph, Kulesza & Yu
  (ICML 2025).
- the **Gaussian mechanism** :math:`N(\cdot, \sigma^2 I)`: :math:`\mu = \Delta/\sigma`, whatever
  :math:`d`, with the closed form :math:`\delta(\varepsilon') = \Phi(\mu/2 - \varepsilon'/\mu) -
  e^{\varepsilon'}\Phi(-\mu/2 - \varepsilon'/\mu)` (Balle & Wang, ICML 2018)
  (:func:`gaussian_privacy_profile`, in :mod:`pdp_lib.gaussian_curves` with its inverse, re-exported here).

Both profiles grow with :math:`a` (resp. :math:`\mu`), so the largest value that still meets a target
:math:`(\varepsilon, \delta)` is found by a root search: :func:`largest_loss_range`,
:func:`largest_gaussian_mu`.  These are what a calibration for :math:`(\varepsilon_i, \delta)` needs.

Derived in the book's chapter *PDP-OP under approximate DP* (``book/approximate.ipynb``).
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
from scipy import integrate, optimize, special
from scipy.special import cython_special as _scalar   # the same routines as the ufuncs, without their per-call cost

from .gaussian_curves import (  # noqa: F401 - the Gaussian profile's names, re-exported
    SAFETY,
    check_eps_prime,
    gaussian_privacy_profile,
    largest_gaussian_mu,
    tolerated_gaussian_mus,
)
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



def laplace_privacy_profile(eps_prime, a) -> float:
    r"""The privacy profile of the Laplace mechanism whose loss ranges over ``[-a, a]`` (``d = 1``).

    :math:`\delta(\varepsilon') = 1 - e^{(\varepsilon' - a)/2}` for :math:`0 \le \varepsilon' \le a`,
    and 0 beyond.
    """
    e = check_eps_prime(eps_prime)
    a = check_positive(a, "a")
    return float(-np.expm1((e - a) / 2.0)) if e < a else 0.0


_QUADRATURE_ERROR = 1e-10   # the largest error estimate of the profile accepted (absolute)
_TAIL = 1e-17               # P(R > end) at the end of the quadrature of P_0 (its part beyond is bounded)
_Q_TAIL = 1e-18             # a bound on the part of e^c P_v left beyond the end of its quadrature (safe side)


def _log_beta_cdf(h: float, x: float) -> float:
    r"""``log I_x(h, h)`` for ``0 < x <= 1/2``, also where :math:`I_x` underflows.

    There it is the series :math:`I_x(h, h) = \frac{x^h (1 - x)^h}{h B(h, h)} \sum_{k \ge 0} t_k`,
    :math:`t_0 = 1`, :math:`t_{k+1} = t_k\,\frac{(2h + k)\,x}{h + 1 + k}` (the hypergeometric series
    :math:`{}_2F_1(2h, 1; h + 1; x)`, DLMF 8.17.8), in logarithms.  The ratio of its terms falls from
    :math:`2hx/(h + 1) < 1` towards :math:`x`, so it converges geometrically; it is summed here
    because ``scipy.special.hyp2f1`` loses all accuracy for large ``h``.
    """
    value = _betainc(h, h, x)
    if value > 1e-280:
        return math.log(value)
    total, term, k = 1.0, 1.0, 0
    while term > 1e-17 * total:
        term *= (2.0 * h + k) * x / (h + 1.0 + k)
        total += term
        k += 1
    return h * (math.log(x) + math.log1p(-x)) - math.log(h) - float(special.betaln(h, h)) + math.log(total)


def _betainc(a, b, x) -> float:
    """``float(scipy.special.betainc(a, b, x))``, several times faster for Python floats.

    ``scipy.special.cython_special.betainc`` calls the very routine of the ufunc's double loop (Boost's
    ``ibeta``, the same compiled function), so the value is the same bit for bit; it only skips the
    ufunc's dispatch, which dominated the quadratures of :func:`_profile_terms`.  Other types (where the
    ufunc might pick another loop) go through the ufunc.
    """
    if type(a) is float and type(b) is float and type(x) is float:
        return _scalar.betainc(a, b, x)
    return float(special.betainc(a, b, x))


@functools.lru_cache(maxsize=None)
def _gamma_end(d: int):
    """``(end, P(R > end))`` with ``P(R > end) = _TAIL`` for ``R ~ Gamma(d, 1)``: where P_0's quadrature stops."""
    end = float(special.gammainccinv(d, _TAIL))
    return end, float(special.gammaincc(d, end))


def _profile_terms(c: float, d: int, a: float):
    r"""``(P_0(L > c), e^c P_v(L > c), error)`` for the ℓ2 mechanism in R^d, ``eta = 1``, ``||v|| = a > c``.

    The integrals of the book's proposition *The profile of a point of PDP-OP* (chapter *PDP-OP under
    approximate DP*, section *The privacy profile of a point*, ``prop-l2-profile``), rewritten so that
    nothing cancels but the final difference.  With :math:`s = a - c > 0` (exact in floating point
    where :math:`a \le 2c`), :math:`m = (a + c)/2` and :math:`h = (d - 1)/2`, the threshold
    :math:`t_0 = (a^2 - c^2 - 2rc)/(2ra)` of :math:`T` under :math:`P_0` and
    :math:`t_1 = (c^2 - 2rc - a^2)/(2ra)` under :math:`P_v` give

    .. math::

        x_0 = \frac{1 + t_0}2 = \frac{s(m + r)}{2ar},\quad 1 - x_0 = \frac{m(2r - s)}{2ar},\qquad
        x_1 = \frac{1 + t_1}2 = \frac{s(r - m)}{2ar},

    so :math:`P_0(L > c) = \int_0^\infty \gamma_d(r)\, I_{\min(1, x_0)}(h, h)\,dr` (:math:`\gamma_d` the
    Gamma(d, 1) density, :math:`I` the regularized incomplete beta function, read through its
    complement where :math:`x_0 > 1/2`), and, :math:`P_v(L > c)` needing :math:`x_1 > 0`, i.e.
    :math:`r > m`, with :math:`r = m + u` and :math:`e^{c - m} = e^{-s/2}`:

    .. math::

        e^c P_v(L > c) = \frac{e^{-s/2}}{\Gamma(d)} \int_0^\infty (m + u)^{d-1} e^{-u}\,
        I_{x_1}(h, h)\,du, \qquad x_1 = \frac{s u}{2a(m + u)} < \frac s{2a} \le \frac12 .

    The factor :math:`e^c` is inside the integrand, in logarithms, so the quadrature's absolute
    tolerance applies to the term that enters the profile, whatever ``c``.  (Computing :math:`P_v`
    and then multiplying by :math:`e^c` let its error grow by :math:`e^c`, beyond the ``1e-10``
    accepted from ``c`` of about 12 on; stopping :math:`P_v`'s integral where :math:`P(R > \cdot)`
    is :math:`10^{-17}` dropped it once ``c`` passed that point; and the thresholds written as
    :math:`t_0, t_1` lost the digits of :math:`a^2 - c^2` when :math:`s` is small.)

    ``error`` bounds the error of ``P_0 - e^c P_v``: the two quadratures' error estimates plus
    :math:`P(R > \text{end})\, I_{x_0(\text{end})}(h, h)` for the part of :math:`P_0` beyond the end
    of its quadrature (:math:`x_0` falls as :math:`r` grows; :math:`P(R > \text{end}) = 10^{-17}`).
    The part of :math:`e^c P_v` beyond the end of its quadrature, below :math:`10^{-18}`
    (:math:`I_{x_1} \le I_{s/(2a)}`, and the log-concave factor is bounded by its tangent), is left
    out: that errs on the safe side (a larger profile).  The tolerances asked of the quadrature are
    below what double precision always reaches, so its warning is replaced by this explicit
    estimate, which :func:`_l2_profile_and_error` checks.

    Parameters
    ----------
    c : float
        ``eps_prime``, ``>= 0``, finite.
    d : int
        ``>= 2``.
    a : float
        ``> c``, finite.

    Returns
    -------
    p0, q, error : float
        :math:`P_0(L > c)`, :math:`e^c P_v(L > c)` and the bound on the error of ``p0 - q``.
    """
    s = a - c
    m = c + 0.5 * s
    h = 0.5 * (d - 1)
    log_norm = float(special.gammaln(d))
    end, tail = _gamma_end(d)

    # the integrands run millions of times in a calibration: the constants are bound once and the
    # scalar routines called directly (the same operations in the same order: the same values, bit for bit)
    s_a, m_a, dm1, half_s = s / a, m / a, d - 1, 0.5 * s
    exp, log = math.exp, math.log
    if all(type(v) is float for v in (h, s, m, s_a, m_a)):      # then every argument below is a Python float
        betainc, betaincc = _scalar.betainc, _scalar.betaincc
    else:
        def betainc(p, q, x):
            return float(special.betainc(p, q, x))

        def betaincc(p, q, x):
            return float(special.betaincc(p, q, x))

    def cdf0(r):                # P(T < t_0(r)), r > 0: falls as r grows
        if 2.0 * r <= s:
            return 1.0
        x = s_a * ((m + r) / (2.0 * r))                # in this order: no overflow or underflow
        return betainc(h, h, x) if x <= 0.5 else betaincc(h, h, m_a * ((2.0 * r - s) / (2.0 * r)))

    def under_p0(r):            # Gamma(d, 1) density at r times P(T < t_0(r)): cdf0 written in, for speed
        if not r > 0.0:
            return 0.0
        density = exp(dm1 * log(r) - r - log_norm)
        if 2.0 * r <= s:
            return density * 1.0
        x = s_a * ((m + r) / (2.0 * r))
        return density * (betainc(h, h, x) if x <= 0.5 else betaincc(h, h, m_a * ((2.0 * r - s) / (2.0 * r))))

    def under_pv(u):            # e^c times the Gamma(d, 1) density at m + u times P(T < t_1(m + u))
        x = s_a * (u / (2.0 * (m + u)))
        if not x > 0.0:
            return 0.0
        value = betainc(h, h, x)                        # _log_beta_cdf(h, x), its common case written in
        log_cdf = log(value) if value > 1e-280 else _log_beta_cdf(h, x)
        return exp(dm1 * log(m + u) - u - half_s - log_norm + log_cdf)

    # the end of e^c P_v's quadrature: for m + u >= 2(d - 1), (m + u)^(d-1) e^(-u) is log-concave with
    # slope <= -1/2, so its integral beyond u is at most twice its value at u
    log_cap = _log_beta_cdf(h, 0.5 * (s / a)) - 0.5 * s - log_norm + math.log(2.0)
    stop = max(1.0, 2.0 * (d - 1) - m)
    while log_cap + (d - 1) * math.log(m + stop) - stop > math.log(_Q_TAIL):
        stop *= 2.0
    # the peak of (m + u)^(d-1-h) u^h e^(-u), near that of the integrand: the positive root of
    # u^2 + (m - d + 1) u - h m = 0, in the form without cancellation
    b, root = m - (d - 1), math.hypot(m - (d - 1), 2.0 * math.sqrt(h * m))
    peak = 2.0 * h * m / (b + root) if b > 0 else 0.5 * (root - b)

    # where a and s are small against 1 the structure of P(T < t_0(r)) sits at r of the order of a, far
    # below the Gamma density's bulk: cut geometrically from there up, so that quad resolves it
    scale = [a * 4.0**k for k in range(12) if a * 4.0**k < 1.0]
    cuts = {0: [0.5 * s, m, d - 1.0] + ([s * m / c] if c > 0 else []) + scale,
            1: [peak, h, d - 1.0 - m] + [x for x in scale if x > s]}
    out, errors = [], []
    for which, f, top in ((0, under_p0, end), (1, under_pv, stop)):
        breaks = []
        for x in sorted(x for x in cuts[which] if 0.0 < x < top):
            if not breaks or x > 1.001 * breaks[-1]:      # points a hair apart make a sliver quad cannot judge
                breaks.append(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", integrate.IntegrationWarning)
            value, error = integrate.quad(f, 0.0, top, limit=400, epsabs=1e-17, epsrel=1e-11, points=breaks or None)
        out.append(value)
        errors.append(error)
    return out[0], out[1], errors[0] + errors[1] + tail * cdf0(end)


def _profile_d3(c: float, a: float) -> float:
    r"""The ℓ2 profile in ``d = 3`` in closed form (validated inputs, ``a > c``).

    For :math:`d = 3`, :math:`h = 1` and :math:`I_x(1, 1) = x`, so the integrals of
    :func:`_profile_terms` are elementary: with :math:`s = a - c` and :math:`m = (a + c)/2`,
    :math:`P_0(L > c) = P(3, s/2) + \frac{s e^{-s/2}}{4a}\bigl(m(1 + s/2) + s^2/4 + s + 2\bigr)` and
    :math:`e^c P_v(L > c) = \frac{s e^{-s/2}}{4a}(m + 2)`, hence

    .. math::

        \delta(c; 3, a) = P(3, s/2) + \frac{s^2 e^{-s/2}\,(2m + s + 4)}{16 a},

    :math:`P(3, \cdot)` the regularized lower incomplete gamma function: a sum of two non-negative
    terms, accurate to a few units of rounding at every ``c`` and ``a``.  The tests check the
    quadrature of :func:`_profile_terms` against it, and both against exact arithmetic.

    Parameters
    ----------
    c : float
        ``eps_prime``, ``>= 0``, finite.
    a : float
        ``> c``, finite.

    Returns
    -------
    float
        :math:`\delta(c; 3, a)`.
    """
    s = a - c
    m = c + 0.5 * s
    # the second term as (s e^{-s/2}) (s/a) (m/8 + s/16 + 1/4): no overflow, whatever a
    return float(special.gammainc(3, 0.5 * s)) + s * math.exp(-0.5 * s) * (s / a) * (0.125 * m + 0.0625 * s + 0.25)


_ROUNDING = 2.0 ** -40
"""The error bound returned with the closed form of ``d = 3``, relative: far above its few units of rounding."""


def _l2_profile_and_error(e: float, d: int, a: float):
    """The ℓ2 profile (validated inputs, ``d >= 2``, ``e < a``) and a bound on its numerical error.

    ``d = 3``: the closed form :func:`_profile_d3`; otherwise the quadratures of :func:`_profile_terms`,
    whose error bound must be at most ``1e-10``, else :class:`ArithmeticError`: the profile could not be
    certified.  That guard has not fired since the quadrature keeps :math:`e^c` inside its integrand
    (sweeps of ``d`` from 2 to 5000, ``e`` from ``5e-324`` to ``1.7e308`` and ``delta`` from ``1e-300``
    to ``1 - 1e-12``; ``tests/test_curves.py`` keeps a part of them).

    Parameters
    ----------
    e : float
        ``eps_prime``, ``>= 0``, finite.
    d : int
        ``>= 2``.
    a : float
        ``> e``, finite.

    Returns
    -------
    value : float
        The profile, in ``[0, 1]``.
    error : float
        A bound on ``|value - delta(e; d, a)|``: the quadrature's (:func:`_profile_terms`) or
        ``2**-40`` of the value for the closed form.
    """
    if d == 3:
        value = _profile_d3(e, a)
        return float(min(1.0, value)), _ROUNDING * value
    p0, q, error = _profile_terms(e, d, a)
    if not error <= _QUADRATURE_ERROR:
        raise ArithmeticError(f"the privacy profile at eps_prime = {e!r}, d = {d}, a = {a!r} could not be "
                              f"computed to {_QUADRATURE_ERROR!r}: the quadrature's error estimate is {error!r}")
    return float(min(1.0, max(0.0, p0 - q))), float(error)


def l2_privacy_profile(eps_prime, d, a) -> float:
    r"""The exact privacy profile :math:`\delta(\varepsilon')` of the ℓ2 mechanism at loss range ``a``.

    Parameters
    ----------
    eps_prime : float
        ``>= 0`` and finite: any such value.
    d : int
        Dimension, ``>= 1``.
    a : float
        :math:`\eta\Delta > 0`: the noise parameter times the distance between the two centres.

    Returns
    -------
    float
        In ``[0, 1]``; exactly 0 for ``eps_prime >= a``; for ``d = 1``,
        :func:`laplace_privacy_profile`; for ``d = 3`` the closed form :func:`_profile_d3`; otherwise
        adaptive quadrature (:func:`_profile_terms`), within its certified error bound of the exact
        value: about ``1e-11`` times the larger of the two probabilities, never above ``1e-10``.

    Notes
    -----
    The formula is the book's proposition *The profile of a point of PDP-OP* (chapter *PDP-OP under
    approximate DP*, ``book/approximate.ipynb``, section *The privacy profile of a point*).
    """
    e = check_eps_prime(eps_prime)
    d = check_dimension(d)
    a = check_positive(a, "a")
    if e >= a:
        return 0.0
    if d == 1:          # the Laplace mechanism
        return laplace_privacy_profile(e, a)
    return _l2_profile_and_error(e, d, a)[0]


_LARGEST = float(np.finfo(float).max)


def largest_loss_range(epsilon, delta, d, *, guess=None) -> float:
    r"""The largest ``a`` with :math:`\delta(\varepsilon; d, a) \le \delta`: how far the pure calibration can stretch.

    Derived in the book's chapter *PDP-OP under approximate DP* (``book/approximate.ipynb``), section
    *Calibrating PDP-OP for* :math:`(\varepsilon_i, \delta)`.  The profile grows with ``a`` (a larger
    range dominates a smaller one, lemma ``lem-profile-grows``), so the answer is found by a root
    search; it is at least ``epsilon`` (where the profile is 0).  The answer errs on the safe side
    four times: the search runs on the profile plus the bound on its numerical error
    (:func:`_l2_profile_and_error`), aims at ``delta (1 - SAFETY)``, returns a point below the root
    by twice the search's tolerance, and checks that point: should the error estimate, which does
    not grow smoothly with ``a``, have put a sign change below it, it steps further down, by
    doubling steps, to a point where the bound holds (at worst the bracket's lower end, where it is
    known to).

    Parameters
    ----------
    epsilon : float
        Finite and ``> 0``: any such value (the profile is computed without cancellation of
        :math:`e^{\varepsilon}`-sized terms, see :func:`_profile_terms`).
    delta : float
        In ``(0, 1)``.  Where ``delta`` is not well above the profile's certified error (about
        ``1e-11`` of :math:`P_0(L > \varepsilon)`, which nears 1/2 for small ``epsilon``: ``delta``
        of ``1e-13`` or less there, ``d = 2`` with ``delta = 1e-15`` at any level), the answer is
        conservative, down to ``epsilon`` itself: safe, at the price of more noise.
    d : int
        ``d >= 1``; ``d = 1`` and ``d = 3`` have closed forms, other dimensions the quadrature.
    guess : float, optional
        A value near the answer (a neighbouring level's, scaled); it only narrows the first
        bracket: a guess that does not bracket the root is widened, then dropped.

    Returns
    -------
    float
        ``a >= epsilon`` with :math:`\delta(\varepsilon; d, a) + \text{error} \le \delta(1 -
        \text{SAFETY})`, as a rule within a relative ``4e-12`` below the root of that bound.
    """
    eps = check_positive(epsilon, "epsilon")
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    d = check_dimension(d)

    target = delta * (1.0 - SAFETY)
    seen = {}          # f at the points already evaluated: brentq evaluates the bracket's ends again

    def f(a):
        if a <= eps:
            return -target
        if d == 1:
            return laplace_privacy_profile(eps, a) - target
        if a not in seen:
            value, error = _l2_profile_and_error(eps, d, a)
            seen[a] = value + error - target
        return seen[a]

    lo, hi = eps, None
    if guess is not None and np.isfinite(guess) and guess > eps:
        for width in (2e-3, 2e-2, 2e-1):
            a, b = max(eps, guess * (1 - width)), guess * (1 + width)
            if np.isfinite(b) and f(a) <= 0 < f(b):
                lo, hi = a, b
                break
    if hi is None:
        hi = min(2.0 * eps, _LARGEST)
        while f(hi) <= 0:
            if hi == _LARGEST:          # never reached: the profile tends to 1 as a grows
                return hi
            hi = min(2.0 * hi, _LARGEST)
    xtol = max(1e-12 * eps, 5e-324)      # positive, even for a subnormal epsilon
    root = optimize.brentq(f, lo, hi, xtol=xtol, rtol=1e-12, maxiter=1000)   # more than 100: f may jump
    step = 2.0 * (xtol + 1e-12 * root)
    a = max(eps, root - step)                  # below the root, whichever side brentq stopped
    while a > lo and f(a) > 0:                 # rare (the estimate is not monotone); f(lo) <= 0 ends it
        step *= 2.0
        a = max(lo, a - step)
    return float(a)


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
