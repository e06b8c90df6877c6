r"""Why a published cell lies outside its band: the profile statistic each published value implies.

A cell of the paper is one Monte Carlo average over one random draw of the privacy profile (and,
for the synthetic data, of the data).  When a published value falls outside the rebuilt 95%
band, this module asks which value of the *latent statistic of the profile* the published
number implies, and whether one such value explains every cell that shares the paper's draw.

The statistic is the one the noise parameter depends on.  For output perturbation the expected
test loss is, by the exact mean of the chapter *Exact loss moments* (``book/moments.ipynb``,
theorem *thm-exact-loss-moments*; eq. ``eq-mean-loss`` of the book's chapter *PDP-OP against
standard DP*),

.. math::

    \mathbb E_Z\,L(\bar\theta + Z) = L(\bar\theta) + \frac{(d+1)\operatorname{tr}A}{\eta^2},
    \qquad
    \operatorname{Var}_Z L = \frac{4(d+1)\|g\|^2}{\eta^2}
        + \frac{2(d+1)\bigl((\operatorname{tr}A)^2 + (d+3)\operatorname{tr}(A^2)\bigr)}{\eta^4},

and the noise parameter is :math:`\eta = S / c(\lambda)` with :math:`c(\lambda) = 2\sqrt d
(1 + \sqrt d B(\lambda))/\lambda` (Theorem 3.1) and

* :math:`S = \sum_i \varepsilon_i` for PDP-OP (Theorem 3.1; the weights
  :math:`\varepsilon_i / S` move :math:`\bar\theta` too, so :math:`L(\bar\theta)` depends on the
  profile and is carried as an uncertainty);
* :math:`S = n \min_i \varepsilon_i` for the non-personalized baseline (uniform weights:
  :math:`\bar\theta` does not depend on the profile, the inversion is exact);
* :math:`S = k\,t` for Jorgensen et al. with ``k`` kept points and threshold ``t``
  (Section 4.2).  Here the profile also sets the keep probabilities, so only an approximate
  scalar can be inverted: the *expected noise budget* :math:`\kappa = t\,\mathbb E[k] =
  t\sum_i \pi_i`, scaling the noise of every sample while holding the law of the sample at
  a rebuilt draw.  Two profiles with the same :math:`\kappa` still differ in the spread of
  ``k`` and in which points are likely kept; taking the union over the rebuilt profiles carries
  that into the tolerance.

Scaling :math:`\eta` by ``a`` multiplies the noise terms by ``u = 1/a^2``, so every cell is a
polynomial in ``u`` (:class:`LossMixture`): the mean is linear and the variance quadratic;
both are inverted in closed form (:func:`implied_u`).  A published value is printed with three
significant digits and is an average over the paper's 10,000 runs, so it determines the
statistic only up to an interval (:func:`implied_interval`): half a unit of the last printed
digit (:func:`printed_half_unit`) plus the Monte Carlo error at a simultaneous (Bonferroni)
level for the cells judged together (:func:`bonferroni_z`).  One draw explains a set of cells
when their intervals intersect (:func:`common_interval`); how unusual that draw is follows from
the profile's distribution (:func:`statistic_cdf`): a sum of independent uniforms for
:math:`\sum_i\varepsilon_i`, :math:`\mathrm{Beta}(1, n_c)` for the minimum, simulation for
Jorgensen's :math:`\kappa`.

:func:`explain_misses` applies all of this to every cell outside its band and returns a
computed cause for each: a misprint (the authors' own output is inside the band), Table 11
(no source), the printed rounding, one draw of the profile statistic (with its percentile),
or *unexplained*.  Shown in the book's chapter *How much does a number move? Errata and claims*
(``book/errata.ipynb``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .baselines import jorgensen_keep_probabilities, jorgensen_threshold
from .bounds import noise_scale
from .mechanism import calibrate, weighted_ridge
from .moments import QuadraticLoss
from .profiles import ProfileSpec, group_sizes
from .validation import check_count, check_positive

__all__ = [
    "STATISTICS",
    "printed_half_unit",
    "bonferroni_z",
    "LossMixture",
    "loss_mixture",
    "LossPolynomial",
    "implied_u",
    "implied_interval",
    "common_interval",
    "profile_statistic",
    "sum_eps_moments",
    "statistic_cdf",
    "statistic_support",
    "method_mixtures",
    "CAUSES",
    "paper_draws",
    "examine_draws",
    "explain_misses",
]

STATISTICS = {
    "pdp_op": "Σε",
    "non_personalized": "min ε",
    "jorgensen_max": "t·E[k] (t = max)",
    "jorgensen_mean": "t·E[k] (t = mean)",
}
"""The latent profile statistic each private method's noise parameter is proportional to."""


# --------------------------------------------------------------------------- printed digits
def printed_half_unit(value, digits: int = 3) -> float:
    """Half a unit in the last printed digit of ``value`` shown with ``digits`` significant digits.

    A number printed as ``1.23 × 10⁻²`` stands for any value in ``[1.225, 1.235] × 10⁻²``: the
    half unit is ``0.5 × 10^(e - digits + 1)`` for the decimal exponent ``e`` of the printed
    mantissa (read from the printed text itself, so ``9.996`` rounds to ``1.00 × 10¹`` and gets
    the half unit of ``10.0``).

    Parameters
    ----------
    value : float
        The printed value, finite and ``!= 0``.
    digits : int, default 3
        Significant digits printed (the paper's three).

    Returns
    -------
    float
    """
    value = float(value)
    digits = check_count(digits, "digits")
    if not np.isfinite(value) or value == 0:
        raise ValueError(f"value = {value!r} is outside the allowed range: finite and != 0")
    exponent = int(f"{value:.{digits - 1}e}".split("e")[1])
    return 0.5 * 10.0 ** (exponent - digits + 1)


def bonferroni_z(cells: int, level: float = 0.95) -> float:
    """Normal quantile for ``cells`` simultaneous two-sided intervals at family level ``level``.

    ``z = Φ⁻¹(1 - (1 - level) / (2 cells))`` (Bonferroni): with probability at least ``level``
    every one of the ``cells`` Monte Carlo errors lies within ``z`` standard errors, whatever
    their dependence (the unregularized and regularized losses of one run share its noise).
    """
    cells = check_count(cells, "cells")
    level = float(level)
    if not 0 < level < 1:
        raise ValueError(f"level = {level!r} is outside the allowed range (0, 1)")
    return float(stats.norm.ppf(1 - (1 - level) / (2 * cells)))


# --------------------------------------------------------------------------- the loss over runs
def _rising(d: int, k: int) -> float:
    """``d (d+1) ... (d+k-1)``: ``E R^k`` for ``R ~ Gamma(d, rate 1)`` (Remark 3.1), and ``1`` for ``k = 0``."""
    return float(np.prod(np.arange(d, d + k, dtype=float))) if k else 1.0


def _chi_even(d: int, k: int) -> float:
    """``E ||G||^(2k) = d (d+2) ... (d+2k-2)`` for a standard Gaussian ``G`` in ``R^d``."""
    return float(np.prod(d + 2.0 * np.arange(k))) if k else 1.0


@dataclass(frozen=True)
class LossMixture:
    r"""A test loss over the runs of output perturbation, exactly, with the noise scaled by ``u``.

    Each run draws one of ``R`` equally likely centres :math:`\bar\theta_m` (one for PDP-OP and
    the non-personalized baseline; one per sampling mask for Jorgensen et al.) and releases
    :math:`\bar\theta_m + Z`, :math:`Z = \rho\,U` with :math:`\rho \sim \mathrm{Gamma}(d,
    \text{rate } \eta_m/\sqrt u)` and ``U`` uniform on the sphere (Remark 3.1).  ``u = 1`` is
    the draw the centres and noise parameters come from; scaling every :math:`\eta_m` by
    ``a`` is ``u = 1/a²``.  With :math:`L(\bar\theta + Z) = L_m + 2\rho\,\ell + \rho^2 q`,
    :math:`\ell = g_m^\top U`, :math:`q = U^\top A U`:

    * the mean and variance are polynomials in ``u`` (:meth:`polynomial`), the exact moments of
      theorem *thm-exact-loss-moments* (``book/moments.ipynb``) combined over the centres by
      the law of total variance;
    * the third and fourth central moments (:meth:`central_moments`) follow from the joint
      moments of :math:`(\ell, q)`, computed through a standard Gaussian
      :math:`G = \|G\|\,U`: the cumulants of :math:`G^\top A G` are
      :math:`2^{j-1}(j-1)!\operatorname{tr}A^j` and
      :math:`\mathbb E[(g^\top G)^2 e^{tG^\top AG}] = \mathbb E[e^{tG^\top AG}]\;
      g^\top(I - 2tA)^{-1}g`, so :math:`\mathbb E[(g^\top G)^2 (G^\top AG)^j] = \sum_i
      \binom{j}{i}\mathbb E[(G^\top AG)^i]\,(j-i)!\,2^{j-i} g^\top A^{j-i} g` and
      :math:`\mathbb E(g^\top G)^4 = 3\|g\|^4`; dividing by :math:`\mathbb E\|G\|^{2k}` gives
      the sphere's moments.  They fix the Monte Carlo error of a standard deviation over runs
      (:meth:`std_error`), which the loss's heavy tail makes far larger than the normal
      theory's :math:`s/\sqrt{2R}`.

    Build it with :func:`loss_mixture`.
    """

    d: int
    value: np.ndarray      # L(theta_bar_m), shape (R,)
    inv_eta: np.ndarray    # 1 / eta_m (0: released without noise), shape (R,)
    g0: np.ndarray         # g_m^T g_m
    g1: np.ndarray         # g_m^T A g_m
    g2: np.ndarray         # g_m^T A^2 g_m
    traces: tuple          # tr A, tr A^2, tr A^3, tr A^4

    def _parts(self, u: float):
        """Per centre: mean, and the 2nd, 3rd, 4th central moments over the noise."""
        u = float(u)
        if not (np.isfinite(u) and u >= 0):
            raise ValueError(f"u = {u!r} is outside the allowed range [0, inf)")
        d = self.d
        s = np.sqrt(u) * self.inv_eta                      # scale of rho: E rho^k = rising(d, k) s^k
        t1, t2, t3, t4 = self.traces
        k1, k2, k3, k4 = t1, 2 * t2, 8 * t3, 48 * t4       # cumulants of G^T A G
        m = [1.0, k1, k2 + k1**2, k3 + 3 * k2 * k1 + k1**3,
             k4 + 4 * k3 * k1 + 3 * k2**2 + 6 * k2 * k1**2 + k1**4]
        eq = [m[j] / _chi_even(d, j) for j in range(5)]    # E q^j on the sphere
        h = [self.g0, 2 * self.g1, 8 * self.g2]            # (j)! 2^j g^T A^j g
        el2q = [sum(math.comb(j, i) * m[i] * h[j - i] for i in range(j + 1)) / _chi_even(d, j + 1)
                for j in range(3)]                         # E[l^2 q^j]
        el4 = 3 * self.g0**2 / _chi_even(d, 2)
        r = [_rising(d, k) * s**k for k in range(9)]       # E rho^k
        c = r[2] * eq[1]                                   # E[rho^2 q]: the noise's mean
        var = 4 * r[2] * el2q[0] + (r[4] * eq[2] - c**2)
        third = (r[6] * eq[3] - 3 * c * r[4] * eq[2] + 2 * c**3
                 + 3 * 4 * (r[4] * el2q[1] - c * r[2] * el2q[0]))
        fourth = ((r[8] * eq[4] - 4 * c * r[6] * eq[3] + 6 * c**2 * r[4] * eq[2] - 3 * c**4)
                  + 6 * 4 * (r[6] * el2q[2] - 2 * c * r[4] * el2q[1] + c**2 * r[2] * el2q[0])
                  + 16 * r[4] * el4)
        return self.value + c, var, third, fourth

    def central_moments(self, u: float = 1.0) -> tuple:
        """Mean and 2nd, 3rd, 4th central moments of the loss over runs (centres and noise)."""
        mu_m, v, t, f = self._parts(u)
        mu = float(mu_m.mean())
        dlt = mu_m - mu
        m2 = float(np.mean(v + dlt**2))
        m3 = float(np.mean(t + 3 * dlt * v + dlt**3))
        m4 = float(np.mean(f + 4 * dlt * t + 6 * dlt**2 * v + dlt**4))
        return mu, m2, m3, m4

    def polynomial(self) -> "LossPolynomial":
        """The mean and the variance over runs as polynomials in ``u`` (:class:`LossPolynomial`)."""
        d = self.d
        s2 = self.inv_eta**2
        n = (d + 1) * self.traces[0] * s2
        a = 4.0 * (d + 1) * s2 * self.g0
        b = 2.0 * (d + 1) * s2 * s2 * (self.traces[0] ** 2 + (d + 3) * self.traces[1])
        value = self.value
        cov = float(np.mean((value - value.mean()) * (n - n.mean())))
        return LossPolynomial(m0=float(value.mean()), m1=float(n.mean()), v0=float(value.var()),
                              v1=2.0 * cov + float(a.mean()), v2=float(n.var()) + float(b.mean()))

    def std_error(self, u: float, statistic: str, runs: int) -> float:
        r"""Monte Carlo standard error of the paper's ``runs``-run estimate of ``statistic`` at ``u``.

        A mean: :math:`\sigma/\sqrt R`.  A standard deviation ``s``: by the delta method on the
        sample variance, :math:`\sqrt{\mu_4 - \sigma^4}/(2\sigma\sqrt R)` with the exact
        fourth central moment :math:`\mu_4` (:meth:`central_moments`).
        """
        runs = check_count(runs, "runs")
        _, m2, _, m4 = self.central_moments(u)
        if statistic == "mean":
            return float(np.sqrt(m2 / runs))
        if statistic == "std":
            return float(np.sqrt(max(m4 - m2 * m2, 0.0) / runs) / (2 * np.sqrt(m2))) if m2 > 0 else 0.0
        raise ValueError(f"statistic = {statistic!r} is not allowed; use 'mean' or 'std'")

    def kurtosis(self, u: float = 1.0) -> float:
        """``μ4 / σ⁴`` of the loss over runs (3 for a normal variable)."""
        _, m2, _, m4 = self.central_moments(u)
        return float(m4 / (m2 * m2))


def loss_mixture(loss: QuadraticLoss, theta_bars, etas, *, _parts=None) -> LossMixture:
    """The :class:`LossMixture` of ``loss`` over the centres ``theta_bars`` with noise ``etas``.

    Parameters
    ----------
    loss : pdp_lib.moments.QuadraticLoss
        The test loss (unregularized or regularized).
    theta_bars : array-like of shape (d,) or (R, d)
        One centre (output perturbation) or one per equally likely sampling mask.
    etas : float or array-like of shape (R,)
        Noise parameters, ``> 0``; ``inf`` for a mask released without noise.

    Returns
    -------
    LossMixture
    """
    th = np.atleast_2d(np.asarray(theta_bars, dtype=float))
    eta = np.atleast_1d(np.asarray(etas, dtype=float))
    if eta.shape[0] != th.shape[0]:
        raise ValueError(f"etas has {eta.shape[0]} entries but theta_bars has {th.shape[0]} rows")
    if np.isnan(eta).any() or (eta <= 0).any():
        i = int(np.flatnonzero(np.isnan(eta) | (eta <= 0))[0])
        raise ValueError(f"etas[{i}] = {eta[i]!r} is outside the allowed range (0, inf]")
    A = loss.matrix
    A2 = A @ A
    if _parts is None:  # L(theta) and g = A theta - X^T y / N, from shared residuals
        value, grad = loss._value_and_gradient(loss._theta(th))
    else:
        value, grad = _parts
    value = np.asarray(value, dtype=float)
    grad = np.asarray(grad, dtype=float)
    ga = grad @ A
    traces = (float(np.trace(A)), float(np.trace(A2)), float(np.trace(A2 @ A)), float(np.sum(A2 * A2)))
    return LossMixture(d=loss.d, value=value, inv_eta=1.0 / eta,
                       g0=np.sum(grad * grad, axis=1), g1=np.sum(ga * grad, axis=1),
                       g2=np.sum(ga * ga, axis=1), traces=traces)


@dataclass(frozen=True)
class LossPolynomial:
    r"""Mean and variance of a test loss over runs as polynomials in the noise factor ``u``.

    .. math::

        \text{mean}(u) = m_0 + m_1 u, \qquad \text{var}(u) = v_0 + v_1 u + v_2 u^2 ,

    with, over the centres of a :class:`LossMixture`, :math:`L_m = L(\bar\theta_m)`,
    :math:`n_m = (d+1)\operatorname{tr}A/\eta_m^2`, :math:`a_m = 4(d+1)\|g_m\|^2/\eta_m^2`,
    :math:`b_m = 2(d+1)((\operatorname{tr}A)^2 + (d+3)\operatorname{tr}A^2)/\eta_m^4` (theorem
    *thm-exact-loss-moments*) and the law of total variance: :math:`m_0 = \bar L`,
    :math:`m_1 = \bar n`, :math:`v_0 = \operatorname{Var}L`,
    :math:`v_1 = 2\operatorname{Cov}(L, n) + \bar a`, :math:`v_2 = \operatorname{Var} n + \bar b`
    (averages and population moments over the centres).
    """

    m0: float
    m1: float
    v0: float
    v1: float
    v2: float

    def mean(self, u) -> np.ndarray:
        """``m0 + m1 u``."""
        return self.m0 + self.m1 * np.asarray(u, dtype=float)

    def var(self, u) -> np.ndarray:
        """``v0 + v1 u + v2 u²``."""
        u = np.asarray(u, dtype=float)
        return self.v0 + self.v1 * u + self.v2 * u * u

    def statistic(self, u, statistic: str) -> np.ndarray:
        """``mean(u)`` or ``sqrt(var(u))``."""
        if statistic == "mean":
            return self.mean(u)
        if statistic == "std":
            return np.sqrt(self.var(u))
        raise ValueError(f"statistic = {statistic!r} is not allowed; use 'mean' or 'std'")


def implied_u(published, poly: LossPolynomial, statistic: str = "mean") -> float:
    """The noise factor ``u`` at which ``poly`` gives the value ``published``.

    Inverts :class:`LossPolynomial` in closed form: ``u = (P - m0)/m1`` for a mean;
    the larger root of ``v2 u² + v1 u + v0 - P² = 0`` for a standard deviation.  A result
    ``<= 0`` (or NaN) means no noise level reproduces ``published``: it is at or below what the
    centres alone give.

    Returns
    -------
    float
    """
    P = float(published)
    if statistic == "mean":
        return (P - poly.m0) / poly.m1 if poly.m1 > 0 else float("nan")
    if statistic == "std":
        if poly.v2 <= 0:
            return (P * P - poly.v0) / poly.v1 if poly.v1 > 0 else float("nan")
        disc = poly.v1**2 + 4.0 * poly.v2 * (P * P - poly.v0)
        if disc < 0:
            return float("nan")
        return (-poly.v1 + np.sqrt(disc)) / (2.0 * poly.v2)
    raise ValueError(f"statistic = {statistic!r} is not allowed; use 'mean' or 'std'")


def implied_interval(published, mixture: LossMixture, statistic: str, reference: float, *,
                     runs: int, z: float, digits: int = 3) -> tuple:
    r"""The interval of the profile statistic a printed Monte Carlo value is compatible with.

    The statistic scales like the noise parameter, so it is ``reference / sqrt(u)`` at the noise
    factor ``u`` (``reference`` is its value at ``u = 1``, the draw ``mixture`` was built from).
    The printed value ``P`` stands for a true value within ``h`` (:func:`printed_half_unit`), and
    that value is a ``runs``-run estimate with the standard error ``se`` of
    :meth:`LossMixture.std_error` at the ``u`` that ``P`` implies.  So the exact statistic of the
    paper's draw lies in ``[P - h - z se, P + h + z se]``, and the profile statistic in the
    image of that range, ``[reference/sqrt(u(P_hi)), reference/sqrt(u(P_lo))]``
    (:func:`implied_u`).

    Returns
    -------
    (float, float)
        ``(low, high)``; ``high = inf`` when the bottom of the range is reachable without noise;
        ``(nan, nan)`` when even its top is (no noise level reproduces the cell).
    """
    P = float(published)
    reference = check_positive(reference, "reference")
    poly = mixture.polynomial()
    h = printed_half_unit(P, digits)
    u0 = implied_u(P, poly, statistic)
    se = mixture.std_error(u0 if (np.isfinite(u0) and u0 > 0) else 0.0, statistic, runs)
    p_lo, p_hi = P - h - z * se, P + h + z * se
    u_hi = implied_u(p_hi, poly, statistic)
    if not (np.isfinite(u_hi) and u_hi > 0):
        return float("nan"), float("nan")
    u_lo = implied_u(p_lo, poly, statistic) if p_lo > 0 else float("nan")
    high = reference / np.sqrt(u_lo) if (np.isfinite(u_lo) and u_lo > 0) else float("inf")
    return float(reference / np.sqrt(u_hi)), float(high)


def common_interval(intervals) -> tuple:
    """The intersection of closed intervals ``[(low, high), ...]``; ``(nan, nan)`` when empty.

    An interval with a NaN end (a cell no statistic reproduces) makes the intersection empty.
    """
    arr = np.asarray(list(intervals), dtype=float).reshape(-1, 2)
    if len(arr) == 0:
        raise ValueError("intervals is empty; at least one interval is needed")
    if np.isnan(arr).any():
        return float("nan"), float("nan")
    low, high = float(arr[:, 0].max()), float(arr[:, 1].min())
    return (low, high) if low <= high else (float("nan"), float("nan"))


# --------------------------------------------------------------------------- the profile's distribution
def profile_statistic(epsilons, method: str) -> float:
    """The latent statistic of a drawn profile: ``Σε``, ``min ε`` or Jorgensen's ``t Σ π_i``.

    ``method`` is one of :data:`STATISTICS`'s keys.  For Jorgensen et al. the keep
    probabilities ``π_i = (e^{ε_i} - 1)/(e^t - 1)`` (capped at 1; Section 4.2) give the expected
    sample size ``Σ π_i``; ``t`` is the maximum or the mean of the levels.
    """
    eps = np.asarray(epsilons, dtype=float)
    if method == "pdp_op":
        return float(eps.sum())
    if method == "non_personalized":
        return float(eps.min())
    if method in ("jorgensen_max", "jorgensen_mean"):
        t = jorgensen_threshold(eps, method.split("_")[1])
        return float(t * jorgensen_keep_probabilities(eps, t).sum())
    raise ValueError(f"method = {method!r} is not allowed; use one of {tuple(STATISTICS)}")


def sum_eps_moments(spec: ProfileSpec, n: int) -> tuple:
    r"""Mean and standard deviation of :math:`\sum_i\varepsilon_i` under the profile ``spec`` (Section 4).

    ``n_c`` uniforms on :math:`[\varepsilon_c, \varepsilon_m]`, ``n_m`` on
    :math:`[\varepsilon_m, \varepsilon_l]` and ``n_l`` constants :math:`\varepsilon_l`:
    mean :math:`n_c(\varepsilon_c+\varepsilon_m)/2 + n_m(\varepsilon_m+\varepsilon_l)/2 + n_l\varepsilon_l`,
    variance :math:`n_c(\varepsilon_m-\varepsilon_c)^2/12 + n_m(\varepsilon_l-\varepsilon_m)^2/12`.
    """
    n_c, n_m, n_l = group_sizes(n, spec.f_c, spec.f_m)
    mean = n_c * (spec.eps_c + spec.eps_m) / 2 + n_m * (spec.eps_m + spec.eps_l) / 2 + n_l * spec.eps_l
    var = n_c * (spec.eps_m - spec.eps_c) ** 2 / 12 + n_m * (spec.eps_l - spec.eps_m) ** 2 / 12
    return float(mean), float(np.sqrt(var))


def statistic_cdf(x, method: str, spec: ProfileSpec, n: int, *, draws: int = 20_000, rng=None) -> float:
    r"""``P(statistic <= x)`` under the paper's profile distribution ``spec`` for ``n`` points.

    * ``"pdp_op"``: :math:`\sum_i\varepsilon_i`, a sum of independent uniforms (and constants),
      by the normal approximation with the exact mean and variance of :func:`sum_eps_moments`
      (the sum is symmetric, so the first correction is of order :math:`1/n`), and 0 or 1
      outside the sum's support;
    * ``"non_personalized"``: :math:`\min_i\varepsilon_i`, the smallest of the ``n_c``
      conservatives' levels: :math:`(\min_i\varepsilon_i - \varepsilon_c)/(\varepsilon_m -
      \varepsilon_c) \sim \mathrm{Beta}(1, n_c)`, exactly;
    * ``"jorgensen_max"``, ``"jorgensen_mean"``: :math:`t\sum_i\pi_i` (:func:`profile_statistic`)
      has no closed form; its empirical distribution over ``draws`` simulated profiles
      (seed ``rng``, an int, default 0) is used.
    """
    x = float(x)
    n = check_count(n, "n")
    n_c, n_m, n_l = group_sizes(n, spec.f_c, spec.f_m)
    if method == "pdp_op":
        lowest = n_c * spec.eps_c + n_m * spec.eps_m + n_l * spec.eps_l
        highest = n_c * spec.eps_m + n_m * spec.eps_l + n_l * spec.eps_l
        if x < lowest:
            return 0.0
        if x >= highest:
            return 1.0
        mean, sd = sum_eps_moments(spec, n)
        return float(stats.norm.cdf((x - mean) / sd)) if sd > 0 else float(x >= mean)
    if method == "non_personalized":
        if n_c == 0:
            raise ValueError(f"n = {n} and f_c = {spec.f_c} give no conservative; the minimum is then "
                             f"not a Beta order statistic")
        if spec.eps_m == spec.eps_c:  # every conservative gets eps_c: no randomness
            return float(x >= spec.eps_c)
        return float(stats.beta(1, n_c).cdf((x - spec.eps_c) / (spec.eps_m - spec.eps_c)))
    if method in ("jorgensen_max", "jorgensen_mean"):
        sample = _jorgensen_sample(method, spec, n, check_count(draws, "draws"),
                                   0 if rng is None else int(rng))
        return float(np.mean(sample <= x))
    raise ValueError(f"method = {method!r} is not allowed; use one of {tuple(STATISTICS)}")


def statistic_support(method: str, spec: ProfileSpec, n: int) -> tuple:
    """The range ``(low, high)`` the statistic can take under ``spec`` for ``n`` points.

    ``Σε``: every level at the bottom or at the top of its group's interval; ``min ε``:
    ``[ε_c, ε_m]`` (``n_c > 0``); Jorgensen's ``t Σ π_i``: ``(0, inf)`` (no closed form; its
    percentile comes from simulation, which puts a value beyond every simulated profile at 0 or 1).
    """
    n_c, n_m, n_l = group_sizes(check_count(n, "n"), spec.f_c, spec.f_m)
    if method == "pdp_op":
        return (n_c * spec.eps_c + n_m * spec.eps_m + n_l * spec.eps_l,
                n_c * spec.eps_m + n_m * spec.eps_l + n_l * spec.eps_l)
    if method == "non_personalized":
        return (spec.eps_c, spec.eps_m)
    if method in ("jorgensen_max", "jorgensen_mean"):
        return (0.0, float("inf"))
    raise ValueError(f"method = {method!r} is not allowed; use one of {tuple(STATISTICS)}")


@functools.lru_cache(maxsize=32)
def _jorgensen_sample(method: str, spec: ProfileSpec, n: int, draws: int, seed: int) -> np.ndarray:
    """``t Σ π_i`` over ``draws`` profiles drawn as :func:`pdp_lib.privacy_profile` does (vectorized)."""
    gen = np.random.default_rng(seed)
    n_c, n_m, n_l = group_sizes(n, spec.f_c, spec.f_m)
    out = []
    for start in range(0, draws, 1000):
        size = min(1000, draws - start)
        eps = np.concatenate([gen.uniform(spec.eps_c, spec.eps_m, size=(size, n_c)),
                              gen.uniform(spec.eps_m, spec.eps_l, size=(size, n_m)),
                              np.full((size, n_l), float(spec.eps_l))], axis=1)
        t = eps.max(axis=1) if method == "jorgensen_max" else eps.mean(axis=1)
        p = np.where(eps < t[:, None], np.expm1(np.minimum(eps, t[:, None])) / np.expm1(t)[:, None], 1.0)
        out.append(t * p.sum(axis=1))
    return np.concatenate(out)


# --------------------------------------------------------------------------- one draw, every lambda
def _add_both(out: dict, loss_u: QuadraticLoss, theta: np.ndarray, eta: np.ndarray, lam: float) -> None:
    """Both losses' mixtures at ``lam`` from one residual computation (reg = unreg + lam ||theta||^2)."""
    value, grad = loss_u._value_and_gradient(theta)
    out["unreg", lam] = loss_mixture(loss_u, theta, eta, _parts=(value, grad))
    out["reg", lam] = loss_mixture(loss_u.with_penalty(lam), theta, eta,
                                   _parts=(value + lam * np.sum(theta * theta, axis=1), grad + lam * theta))


def method_mixtures(method: str, X, y, X_test, y_test, epsilons, lams, *, masks: int = 100,
                    rng=None) -> tuple:
    """The :class:`LossMixture` of one private method for one data draw and profile, per ``lambda``.

    Composes the mechanism: PDP-OP and the non-personalized baseline through
    :func:`pdp_lib.calibrate` and :func:`pdp_lib.weighted_ridge` (Theorem 3.1; one centre);
    Jorgensen et al. through :func:`pdp_lib.experiments.jorgensen_masks` and
    :func:`pdp_lib.experiments.batched_ridge` (``masks`` equally likely samples drawn from
    ``rng``, ``eta = k t / c(lambda)``, Section 4.2).

    Returns
    -------
    (dict, float)
        ``{(kind, lam): LossMixture}`` for ``kind`` in ``("unreg", "reg")``, and the profile
        statistic of ``epsilons`` (:func:`profile_statistic`) the mixtures refer to (``u = 1``).
    """
    from .experiments.engine import batched_ridge, jorgensen_masks  # noqa: PLC0415 - no import cycle

    X = np.asarray(X, dtype=float)
    n, d = X.shape
    eps = np.asarray(epsilons, dtype=float)
    loss_u = QuadraticLoss(X_test, y_test)
    out = {}
    if method in ("pdp_op", "non_personalized"):
        profile = eps if method == "pdp_op" else np.full(n, eps.min())
        for lam in lams:
            cal = calibrate(profile, lam, d)
            theta = np.atleast_2d(weighted_ridge(X, y, cal.weights, lam))
            _add_both(out, loss_u, theta, np.atleast_1d(cal.eta), float(lam))
    elif method in ("jorgensen_max", "jorgensen_mean"):
        t = jorgensen_threshold(eps, method.split("_")[1])
        m = jorgensen_masks(eps, t, masks, rng=rng)
        k = m.sum(axis=1)
        for lam in lams:
            theta = batched_ridge(X, y, m, lam)
            eta = np.where(k > 0, k * t / noise_scale(lam, d), np.inf)
            _add_both(out, loss_u, theta, eta, float(lam))
    else:
        raise ValueError(f"method = {method!r} is not allowed; use one of {tuple(STATISTICS)}")
    return out, profile_statistic(eps, method)


# --------------------------------------------------------------------------- the paper's draws
CAUSES = ("misprint", "no source (Table 11)", "printed rounding", "one profile draw",
          "one data and profile draw", "synthetic data draw unknown", "unexplained")
"""The causes :func:`explain_misses` assigns, in the order they are tried."""


def _centre(low: float, high: float) -> float:
    """Midpoint of ``[low, high]`` (``low`` when ``high`` is infinite; NaN when empty)."""
    if not np.isfinite(low):
        return float("nan")
    return float(low) if not np.isfinite(high) else 0.5 * (float(low) + float(high))


def _clip(interval, support) -> tuple:
    low, high = max(interval[0], support[0]), min(interval[1], support[1])
    return (low, high) if (np.isfinite(low) and low <= high) else (float("nan"), float("nan"))


def _authors_values() -> dict:
    """``{(table, param, column): (authors' value, rounded to 3 digits)}`` of the misprinted cells."""
    from .reference import disagreements  # noqa: PLC0415

    errata = disagreements()
    return {(int(t), float(p), c): (float(r), float(rr)) for t, p, c, r, rr in
            errata[["table", "param_value", "column", "reference", "reference_rounded"]]
            .itertuples(index=False)}


def _key(row) -> tuple:
    return (int(row.table), float(row.param), row.column)


def _point(row):
    from .experiments.specs import get_target  # noqa: PLC0415

    spec = get_target(row.target)
    profile, fraction, lam = spec.point(float(row.param))
    return spec, profile, fraction, float(lam)


def _verdicts(results: dict) -> pd.DataFrame:
    """:func:`pdp_lib.report.band_verdicts` of every table, with ``table``, ``target`` and ``gkey``.

    ``gkey`` names the paper's profile draw and method of a cell, ``(authors' file, profile,
    training fraction, method)``; ``None`` for machine-zero and non-private cells.
    """
    from .report import band_verdicts  # noqa: PLC0415

    frames = []
    for target, table in results.items():
        v = band_verdicts(table)
        v["table"] = int(target.split("-")[1])
        v["target"] = target
        frames.append(v)
    v = pd.concat(frames, ignore_index=True)
    keys = []
    for r in v.itertuples(index=False):
        method = r.column.partition("_")[2]
        if method in STATISTICS and not bool(r.machine_zero):
            spec, profile, fraction, _ = _point(r)
            keys.append((spec.source_csv, profile, fraction, method))
        else:
            keys.append(None)
    v["gkey"] = keys
    return v


def paper_draws(results: dict, *, dataset: str | None = None, methods=None) -> list:
    """The keys of the paper's profile draws behind the published cells of ``results``.

    A key is ``(authors' file, profile, training fraction, method)``: one draw of the profile and
    one private method, shared by every cell of that file, profile and training set (all
    ``lambda``, both losses, means and standard deviations).  ``dataset`` and ``methods`` select
    (``"synthetic"`` or ``"medical_cost"``; a subset of :data:`STATISTICS`).  The keys are what
    :func:`examine_draws` takes as ``groups``.
    """
    from .experiments.specs import get_target  # noqa: PLC0415

    files = {get_target(t).source_csv: get_target(t).dataset for t in results}
    keys = [g for g in dict.fromkeys(_verdicts(results)["gkey"]) if g is not None]
    return [g for g in keys if (dataset is None or files[g[0]] == dataset)
            and (methods is None or g[3] in methods)]


def examine_draws(results: dict, *, seed: int, replicates: int, groups=None, rows=None,
                  masks: int = 100, runs: int = 10_000, level: float = 0.95) -> pd.DataFrame:
    r"""The value of the latent statistic each of the paper's profile draws implies, and how rare it is.

    A *group* is every published cell of the paper's run that shares one profile draw and one
    method: the same authors' file, profile and training set (so all ``lambda`` and both losses,
    means and standard deviations; a misprinted cell enters with the authors' own value).  Each
    cell implies an interval of the method's statistic (:data:`STATISTICS`,
    :func:`implied_interval`, with the Monte Carlo error at the Bonferroni level of
    :func:`bonferroni_z` for the group's size); one draw explains the group when the intervals
    meet inside the statistic's support (:func:`statistic_support`).

    * Medical Cost (the paper's split and training subsets, reproduced exactly): a cell's
      interval is the union over the ``replicates`` rebuilt profiles, which carries what the
      statistic does not fix (PDP-OP's weights, Jorgensen's sample law);
    * synthetic data (the paper's draw is unknown): the check is made under each of the
      ``replicates`` rebuilt data draws in turn, for the whole group and for the cells of the
      sweep values in ``rows[group key]`` alone.

    Parameters
    ----------
    results : dict of str -> pandas.DataFrame
        :func:`pdp_lib.experiments.reproduce_many` tables of some of ``table-1`` ... ``table-14``.
    seed, replicates : int
        The seed and replicates of the bands (the same draws are rebuilt, with the paper's split).
    groups : sequence of group keys, optional
        The groups to examine (``gkey`` of the cells, ``(file, profile, fraction, method)``);
        all by default.
    rows : dict, optional
        ``{group key: set of sweep values}``: the rows checked on their own (synthetic data).
    masks : int, default 100
        Sampling masks per draw for Jorgensen's mixtures.
    runs : int, default 10000
        Runs behind each published value (the paper's).
    level : float, default 0.95
        Family level of the simultaneous Monte Carlo intervals.

    Returns
    -------
    pandas.DataFrame
        One row per group: ``gkey, dataset, method, statistic, tables, cells, z, low, high,
        implied, percentile, draws, row_draws, replicates, explained``.  ``low``/``high`` bound
        the common value (NaN when none; synthetic: over the data draws that explain the group),
        ``implied`` is its centre, ``percentile`` :func:`statistic_cdf` there (synthetic: the
        median over those draws; NaN when the statistic is not random, as the minimum when
        ``eps_c = eps_m``), ``draws`` the data draws that explain the group and
        ``row_draws`` those that explain its ``rows`` (Medical Cost: ``replicates`` or 0).
    """
    from .experiments.draws import draw_data, draw_profile, mask_seed, training_points  # noqa: PLC0415

    verdicts = _verdicts(results)
    authors = _authors_values()
    if groups is None:
        groups = [g for g in dict.fromkeys(verdicts["gkey"]) if g is not None]
    rows = rows or {}
    cache = {}
    out = []
    for gkey in groups:
        _, profile, fraction, method = gkey
        cells = verdicts[np.array([g == gkey for g in verdicts["gkey"]], dtype=bool)]
        if cells.empty:
            raise LookupError(f"no published cell belongs to the group {gkey!r}")
        info = [_point(r) for r in cells.itertuples(index=False)]
        dataset = info[0][0].dataset
        lams = sorted({lam for *_, lam in info})
        values = [authors.get(_key(r), (None, r.paper))[1] for r in cells.itertuples(index=False)]
        z = bonferroni_z(len(cells), level)
        own_row = np.array([float(p) in rows.get(gkey, set()) for p in cells["param"]], dtype=bool)
        per_draw = []
        for rep in range(replicates):
            if (dataset, rep) not in cache:
                cache[dataset, rep] = draw_data(dataset, seed, rep, vary_split=False)
            draw = cache[dataset, rep]
            X, y = training_points(draw, fraction)
            n = X.shape[0]
            eps = draw_profile(draw, profile, n)
            mix, ref = method_mixtures(method, X, y, draw.X_test, draw.y_test, eps, lams,
                                       masks=masks, rng=mask_seed(draw, profile, n))
            per_draw.append([implied_interval(val, mix[r.column.partition("_")[0], lam],
                                              spec.statistic, ref, runs=runs, z=z)
                             for r, (spec, _, _, lam), val in
                             zip(cells.itertuples(index=False), info, values)])
        per_draw = np.array(per_draw, dtype=float)  # (replicates, cells, 2)
        support = statistic_support(method, profile, n)
        fixed = support[0] == support[1]  # e.g. eps_c = eps_m: the minimum is not random
        if dataset == "medical_cost":
            union = np.column_stack([np.nanmin(per_draw[:, :, 0], axis=0),
                                     np.nanmax(per_draw[:, :, 1], axis=0)])
            low, high = _clip(common_interval(union), support)
            implied = _centre(low, high)
            if fixed:
                pct, explained = float("nan"), bool(np.isfinite(implied))
            else:
                pct = statistic_cdf(implied, method, profile, n) if np.isfinite(implied) else float("nan")
                explained = bool(np.isfinite(implied) and 0 < pct < 1)
            n_group = n_row = replicates if explained else 0
        else:
            found, n_row = [], 0
            def plausible(lo, hi):
                if not np.isfinite(lo):
                    return False, float("nan")
                if fixed:
                    return True, float("nan")
                p = statistic_cdf(_centre(lo, hi), method, profile, n)
                return 0 < p < 1, p

            for iv in per_draw:
                lo, hi = _clip(common_interval(iv), support)
                ok, p = plausible(lo, hi)
                if ok:
                    found.append((lo, hi, p))
                if own_row.any():
                    n_row += int(plausible(*_clip(common_interval(iv[own_row]), support))[0])
            n_group = len(found)
            low = min(f[0] for f in found) if found else float("nan")
            high = max(f[1] for f in found) if found else float("nan")
            implied = float(np.median([_centre(f[0], f[1]) for f in found])) if found else float("nan")
            pct = float(np.median([f[2] for f in found])) if (found and not fixed) else float("nan")
            explained = n_group > 0
        out.append({"gkey": gkey, "dataset": dataset, "method": method, "statistic": STATISTICS[method],
                    "tables": ", ".join(str(t) for t in sorted(set(cells["table"]))),
                    "cells": len(cells), "z": z, "low": low, "high": high, "implied": implied,
                    "percentile": pct, "draws": n_group, "row_draws": n_row,
                    "replicates": replicates, "explained": explained})
    columns = ["gkey", "dataset", "method", "statistic", "tables", "cells", "z", "low", "high",
               "implied", "percentile", "draws", "row_draws", "replicates", "explained"]
    return pd.DataFrame(out, columns=columns)


def explain_misses(results: dict, *, seed: int, replicates: int, masks: int = 100,
                   runs: int = 10_000, level: float = 0.95) -> tuple:
    r"""A computed cause for every published cell outside its rebuilt band.

    Causes are tried in the order of :data:`CAUSES`:

    1. *misprint*: the cell is one of :func:`pdp_lib.reference.disagreements` and the authors'
       own output for it lies inside the band;
    2. *no source (Table 11)*: none of the authors' files holds Table 11;
    3. *printed rounding*: the printed value's rounding interval (:func:`printed_half_unit`)
       meets the band (a column without randomness has a band of zero width);
    4. the profile draw (:func:`examine_draws` on the cell's group): *one profile draw* (Medical
       Cost: one value of the statistic explains every cell of the paper's draw); *one data and
       profile draw* (synthetic: so it does under at least one rebuilt data draw); *synthetic
       data draw unknown* (synthetic: some rebuilt data draw explains the cells of the miss's
       own row, none the whole group);
    5. otherwise *unexplained*.

    Parameters are those of :func:`examine_draws`.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        ``misses``: one row per miss (``table, param, column, paper, value, low, high, ratio,
        outside, sharp, cause, group, statistic``); ``groups``: :func:`examine_draws` of the
        groups holding a miss not explained by 1-3, with a name ``group`` (``G1``, ...) and the
        number of ``misses`` it explains.
    """
    verdicts = _verdicts(results)
    authors = _authors_values()
    miss = verdicts[verdicts["inside"] == 0].copy()
    cause = []
    for row in miss.itertuples(index=False):
        h = printed_half_unit(row.paper)
        k = _key(row)
        if k in authors and row.low <= authors[k][0] <= row.high:
            cause.append("misprint")
        elif row.table == 11:
            cause.append("no source (Table 11)")
        elif row.paper + h >= row.low and row.paper - h <= row.high:
            cause.append("printed rounding")
        else:
            cause.append("")
    miss["cause"] = cause
    miss["group"] = ""
    miss["statistic"] = ""
    open_ = (miss["cause"] == "").to_numpy()
    wanted = [g for g in dict.fromkeys(miss.loc[open_, "gkey"]) if g is not None]
    rows = {g: {float(p) for p, k in zip(miss.loc[open_, "param"], miss.loc[open_, "gkey"]) if k == g}
            for g in wanted}
    groups = examine_draws(results, seed=seed, replicates=replicates, groups=wanted, rows=rows,
                           masks=masks, runs=runs, level=level)
    names, counts = [], []
    for i, g in enumerate(groups.itertuples(index=False), start=1):
        here = open_ & np.array([k == g.gkey for k in miss["gkey"]], dtype=bool)
        if g.dataset == "medical_cost":
            label = "one profile draw" if g.explained else "unexplained"
        else:
            label = ("one data and profile draw" if g.draws else
                     "synthetic data draw unknown" if g.row_draws else "unexplained")
        miss.loc[here, "cause"] = label
        miss.loc[here, "group"] = f"G{i}"
        miss.loc[here, "statistic"] = g.statistic
        names.append(f"G{i}")
        counts.append(int(here.sum()))
    groups.insert(0, "group", names)
    groups.insert(7, "misses", counts)
    miss.loc[miss["cause"] == "", "cause"] = "unexplained"
    out = miss[["table", "param", "column", "paper", "value", "low", "high", "ratio", "outside",
                "sharp", "cause", "group", "statistic"]].reset_index(drop=True)
    return out, groups
