r"""The test loss over the runs of output perturbation, exactly: a mixture over centres of noise.

Each run of an output-perturbation mechanism releases :math:`\bar\theta_m + Z` with one of ``R``
equally likely centres (one for PDP-OP and the non-personalized baseline, one per sampling mask
for Jorgensen et al.) and :math:`Z \propto \exp(-\eta_m\|z\|)`.  :class:`LossMixture` holds what
the exact moments of the loss over such runs need (theorem *thm-exact-loss-moments* of the
book's chapter *Exact loss moments*, combined over the centres), up to the fourth central moment,
which fixes the Monte Carlo error of a standard deviation over runs
(:meth:`LossMixture.std_error`); :class:`LossPolynomial` is the mean and the variance as
polynomials in a scaling ``u`` of the noise.  Used by the bands of the standard-deviation targets
(:mod:`pdp_lib.experiments.rebuild`) and by the explanation of the published cells that miss
their bands (:mod:`pdp_lib.replication.misses`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from .moments import QuadraticLoss
from .validation import check_count

__all__ = ["LossMixture", "LossPolynomial", "loss_mixture"]


@functools.lru_cache(maxsize=1024)
def _rising(d: int, k: int) -> float:
    """``d (d+1) ... (d+k-1)``: ``E R^k`` for ``R ~ Gamma(d, rate 1)`` (Remark 3.1), and ``1`` for ``k = 0``.

    Kept per ``(d, k)``, as :func:`_chi_even` is: the moments of every mixture ask for the same few."""
    return float(np.prod(np.arange(d, d + k, dtype=float))) if k else 1.0


@functools.lru_cache(maxsize=1024)
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
        value, grad = loss.value_and_half_gradient_unchecked(loss.checked_theta(th))
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
