r"""Exact moments of the test losses of output perturbation, over the privacy noise.

Output perturbation releases :math:`\hat\theta = \bar\theta + Z` where ``Z`` has density
proportional to :math:`\exp(-\eta\|z\|_2)` (Algorithm 1 of the paper; Remark 3.1: ``Z = R U``
with ``R ~ Gamma(d, 1/eta)`` and ``U`` uniform on the unit sphere, independent).  Both test
losses of Section 4 ("Metrics") are quadratic in :math:`\theta`,

.. math::

    L(\theta) = \frac1N \|X\theta - y\|_2^2 + p\,\|\theta\|_2^2
    \qquad (p = 0 \text{ unregularized},\; p = \lambda \text{ regularized}),

so :math:`L(\bar\theta + Z) = L(\bar\theta) + 2 g^\top Z + Z^\top A Z` with
:math:`A = X^\top X / N + p I` and :math:`g = A\bar\theta - X^\top y / N`, and its mean and
variance over the noise have closed forms:

.. math::

    \mathbb E\, L &= L(\bar\theta) + \frac{(d+1)\operatorname{tr} A}{\eta^2}, \\
    \operatorname{Var} L &= \frac{4 (d+1) \|g\|_2^2}{\eta^2}
        + \frac{2 (d+1)\left(\operatorname{tr}(A)^2 + (d+3)\operatorname{tr}(A^2)\right)}{\eta^4}.

Both terms of the variance are non-negative, so nothing cancels even for losses of order
``1e12``.  These make the PDP-OP and non-personalized cells of every table exact (no Monte
Carlo), and Rao-Blackwellize the Jorgensen baseline over its noise.  Derived step by step
(lemmas *lem-noise-moments*, *lem-quadratic-form-sphere*, theorem *thm-exact-loss-moments*)
in the book's chapter *Exact loss moments* (``book/moments.ipynb``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .validation import as_float_array, first_bad_index, format_index, check_dimension

__all__ = [
    "LossMoments",
    "QuadraticLoss",
    "l2_laplace_norm_moments",
    "sphere_quadratic_form_moments",
    "loss_moments",
]


def _check_eta(eta, name: str = "eta") -> np.ndarray:
    """``eta > 0`` (``inf`` allowed: no noise); returns a float array (scalar or 1-D)."""
    arr = as_float_array(eta, name)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a scalar or 1-D, got shape {arr.shape}")
    bad = np.isnan(arr) | (arr <= 0)
    if bad.any():
        idx = first_bad_index(np.atleast_1d(bad))
        val = np.atleast_1d(arr)[idx]
        where = f"{name}[{format_index(idx)}]" if arr.ndim else name
        raise ValueError(f"{where} = {val!r} is outside the allowed range (0, inf] (inf: no noise)")
    return arr


def l2_laplace_norm_moments(eta, d):
    r"""Second and fourth moments of :math:`\|Z\|_2` for the density :math:`\propto e^{-\eta\|z\|_2}`.

    By Remark 3.1 of the paper :math:`\|Z\|_2 \sim \mathrm{Gamma}(d, \text{rate } \eta)`, so
    :math:`\mathbb E\|Z\|^k = \Gamma(d+k) / (\Gamma(d)\,\eta^k)`:

    .. math::

        \mathbb E\|Z\|_2^2 = \frac{d(d+1)}{\eta^2}, \qquad
        \mathbb E\|Z\|_2^4 = \frac{d(d+1)(d+2)(d+3)}{\eta^4}.

    Lemma *lem-noise-moments* of the book's chapter *Exact loss moments* (``book/moments.ipynb``).

    Parameters
    ----------
    eta : float or array-like of shape (R,)
        Noise parameter(s), ``> 0``; ``inf`` means no noise (both moments 0).
    d : int
        Dimension, ``>= 1``.

    Returns
    -------
    m2, m4 : numpy.ndarray
        Same shape as ``eta``.
    """
    eta = _check_eta(eta)
    d = check_dimension(d)
    s2 = 1.0 / eta**2
    m2 = d * (d + 1) * s2
    m4 = d * (d + 1) * (d + 2) * (d + 3) * s2**2
    return m2, m4


def _check_symmetric(A, name: str = "A") -> np.ndarray:
    arr = as_float_array(A, name)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] < 1:
        raise ValueError(f"{name} must be a square (d, d) matrix with d >= 1, got shape {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = first_bad_index(bad)
        raise ValueError(f"{name}[{format_index(idx)}] = {arr[idx]!r} is outside the allowed range (-inf, inf)")
    scale = max(float(np.max(np.abs(arr))), 1.0)
    asym = np.abs(arr - arr.T) > 1e-12 * scale
    if asym.any():
        i, j = first_bad_index(asym)
        raise ValueError(f"{name} must be symmetric: {name}[{i}, {j}] = {arr[i, j]!r} but "
                         f"{name}[{j}, {i}] = {arr[j, i]!r}")
    return arr


def sphere_quadratic_form_moments(A):
    r"""Mean and second moment of :math:`u^\top A u` for ``u`` uniform on the unit sphere.

    For symmetric ``A`` of size ``d``:

    .. math::

        \mathbb E[u^\top A u] = \frac{\operatorname{tr} A}{d}, \qquad
        \mathbb E[(u^\top A u)^2] = \frac{\operatorname{tr}(A)^2 + 2\operatorname{tr}(A^2)}{d(d+2)}.

    Lemma *lem-quadratic-form-sphere* of the book's chapter *Exact loss moments*
    (``book/moments.ipynb``), proved there from Isserlis' theorem for a Gaussian vector.

    Parameters
    ----------
    A : array-like of shape (d, d)
        Symmetric, finite.

    Returns
    -------
    first, second : float
    """
    A = _check_symmetric(A)
    d = A.shape[0]
    tr = float(np.trace(A))
    tr2 = float(np.sum(A * A))  # tr(A^2) = sum_ij A_ij^2 for symmetric A
    return tr / d, (tr * tr + 2.0 * tr2) / (d * (d + 2))


@dataclass(frozen=True)
class LossMoments:
    """Mean and variance of a test loss over the privacy noise.

    Attributes
    ----------
    mean, var : numpy.ndarray
        One value per estimate (shape ``()`` for a single ``theta_bar``, ``(R,)`` for a batch).
    """

    mean: np.ndarray
    var: np.ndarray

    @property
    def std(self) -> np.ndarray:
        """Standard deviation ``sqrt(var)``."""
        return np.sqrt(self.var)


class QuadraticLoss:
    r"""A test loss :math:`L(\theta) = \frac1N\|X\theta - y\|_2^2 + p\|\theta\|_2^2` (Section 4, "Metrics").

    ``penalty = 0`` gives the unregularized test loss (test MSE), ``penalty = lam`` the
    regularized one.  The form stores :math:`A = X^\top X/N + pI` through its traces
    :math:`\operatorname{tr}A` and :math:`\operatorname{tr}(A^2)`, which are all the moments need
    (theorem *thm-exact-loss-moments* of ``book/moments.ipynb``).  Values and gradients are
    computed from residuals, never from the expanded quadratic, so that a near-exact fit
    (a loss of ``1e-32``) is not lost to cancellation.

    Parameters
    ----------
    X_test : array-like of shape (N, d)
        Test features (any finite values).
    y_test : array-like of shape (N,)
        Test labels (finite).
    penalty : float, default 0
        ``p >= 0``, finite.
    """

    def __init__(self, X_test, y_test, penalty=0.0):
        X = as_float_array(X_test, "X_test")
        y = as_float_array(y_test, "y_test")
        if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
            raise ValueError(f"X_test must be 2-D of shape (N, d) with N, d >= 1, got shape {X.shape}")
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y_test must be 1-D with {X.shape[0]} entries (the rows of X_test), "
                             f"got shape {y.shape}")
        for arr, name in ((X, "X_test"), (y, "y_test")):
            bad = ~np.isfinite(arr)
            if bad.any():
                idx = first_bad_index(bad)
                raise ValueError(f"{name}[{format_index(idx)}] = {arr[idx]!r} is outside the allowed "
                                 f"range (-inf, inf)")
        p = as_float_array(penalty, "penalty")
        if p.ndim != 0 or not np.isfinite(p) or p < 0:
            raise ValueError(f"penalty = {penalty!r} is outside the allowed range [0, inf)")
        self._init(X, y, float(p), None)

    def _init(self, X, y, penalty, gram):
        self.X = X
        self.y = y
        self.n_test, self.d = X.shape
        self.penalty = penalty
        self.X.setflags(write=False)
        self.y.setflags(write=False)
        if gram is None:
            gram = X.T @ X / self.n_test
            gram.setflags(write=False)
        self._gram = gram  # X^T X / N, without the penalty
        tr0 = float(np.trace(gram))
        tr0_sq = float(np.sum(gram * gram))
        d = self.d
        self.trace = tr0 + penalty * d
        self.trace_sq = tr0_sq + 2.0 * penalty * tr0 + penalty**2 * d

    def with_penalty(self, penalty) -> "QuadraticLoss":
        """The same test set with another penalty (reuses ``X^T X / N``)."""
        p = as_float_array(penalty, "penalty")
        if p.ndim != 0 or not np.isfinite(p) or p < 0:
            raise ValueError(f"penalty = {penalty!r} is outside the allowed range [0, inf)")
        new = object.__new__(QuadraticLoss)
        new._init(self.X, self.y, float(p), self._gram)
        return new

    @property
    def matrix(self) -> np.ndarray:
        """``A = X^T X / N + p I`` (a new array)."""
        return self._gram + self.penalty * np.eye(self.d)

    def checked_theta(self, theta) -> np.ndarray:
        """``theta`` as a float array of shape ``(d,)`` or ``(R, d)``, finite; ``ValueError`` naming the first
        entry outside the domain otherwise (what every public method checks)."""
        th = as_float_array(theta, "theta")
        if th.ndim not in (1, 2) or th.shape[-1] != self.d:
            raise ValueError(f"theta must have shape (d,) or (R, d) with d = {self.d}, got {th.shape}")
        bad = ~np.isfinite(th)
        if bad.any():
            idx = first_bad_index(bad)
            raise ValueError(f"theta[{format_index(idx)}] = {th[idx]!r} is outside the allowed range (-inf, inf)")
        return th

    def value_and_half_gradient_unchecked(self, th: np.ndarray, gradient: bool = True):
        """``(L(theta), g)`` for a ``theta`` :meth:`checked_theta` has returned (``g`` is None unless
        ``gradient``): the fast path of :meth:`value`, :meth:`half_gradient` and :meth:`moments`."""
        resid = th @ self.X.T - self.y  # (R, N) or (N,)
        value = np.mean(resid * resid, axis=-1)
        if self.penalty:
            value = value + self.penalty * np.sum(th * th, axis=-1)
        if not gradient:
            return value, None
        grad = resid @ self.X / self.n_test  # half-gradient: A theta - X^T y / N (p = 0 part)
        if self.penalty:
            grad = grad + self.penalty * th
        return value, grad

    def value(self, theta) -> np.ndarray:
        """``L(theta)``; shape ``()`` for ``theta`` of shape ``(d,)``, ``(R,)`` for ``(R, d)``."""
        return self.value_and_half_gradient_unchecked(self.checked_theta(theta), gradient=False)[0]

    def half_gradient(self, theta) -> np.ndarray:
        r"""``g = A theta - X^T y / N`` (half the gradient of ``L``); same leading shape as ``theta``."""
        return self.value_and_half_gradient_unchecked(self.checked_theta(theta))[1]

    def moments(self, theta_bar, eta) -> LossMoments:
        r"""Exact mean and variance of ``L(theta_bar + Z)``, ``Z ~ exp(-eta ||z||)``.

        Theorem *thm-exact-loss-moments* (``book/moments.ipynb``):
        ``E L = L(theta_bar) + (d+1) tr(A) / eta^2`` and
        ``Var L = 4 (d+1) ||g||^2 / eta^2 + 2 (d+1) (tr(A)^2 + (d+3) tr(A^2)) / eta^4``.

        Parameters
        ----------
        theta_bar : array-like of shape (d,) or (R, d)
            Centre(s) of the noise (e.g. the weighted ridge solution of eq. (2)).
        eta : float or array-like of shape (R,)
            Noise parameter(s), ``> 0``; ``inf`` means no noise.

        Returns
        -------
        LossMoments
        """
        th = self.checked_theta(theta_bar)
        eta = _check_eta(eta)
        if eta.ndim == 1 and (th.ndim != 2 or eta.shape[0] != th.shape[0]):
            raise ValueError(f"eta has shape {eta.shape} but theta_bar has shape {th.shape}; "
                             f"a 1-D eta needs one value per row of theta_bar")
        return self.moments_unchecked(th, eta)

    def gaussian_moments(self, theta_bar, sigma) -> LossMoments:
        r"""Exact mean and variance of ``L(theta_bar + Z)``, ``Z ~ N(0, sigma^2 I)``.

        ``L(theta_bar + Z) = L(theta_bar) + 2 g^T Z + Z^T A Z``, so
        ``E L = L(theta_bar) + sigma^2 tr(A)`` and ``Var L = 4 sigma^2 ||g||^2 + 2 sigma^4 tr(A^2)``
        (the odd moments of ``Z`` vanish).  For the personalized Gaussian mechanism of the book's
        chapter *PDP-OP under approximate DP* (:mod:`pdp_lib.mechanisms.gaussian`).

        Parameters
        ----------
        theta_bar : array-like of shape (d,) or (R, d)
        sigma : float
            ``>= 0``, finite.

        Returns
        -------
        LossMoments
        """
        th = self.checked_theta(theta_bar)
        s = as_float_array(sigma, "sigma")
        if s.ndim != 0 or not np.isfinite(s) or s < 0:
            raise ValueError(f"sigma = {sigma!r} is outside the allowed range [0, inf)")
        value, grad = self.value_and_half_gradient_unchecked(th)
        s2 = float(s) ** 2
        mean = value + s2 * self.trace
        var = 4.0 * s2 * np.sum(grad * grad, axis=-1) + 2.0 * s2 * s2 * self.trace_sq
        return LossMoments(mean=np.asarray(mean, dtype=float), var=np.asarray(var, dtype=float))

    def moments_unchecked(self, th: np.ndarray, eta: np.ndarray) -> LossMoments:
        """:meth:`moments` for a ``theta_bar`` :meth:`checked_theta` has returned and an array ``eta``."""
        value, grad = self.value_and_half_gradient_unchecked(th)
        return self.moments_from_parts(value, grad, eta)

    def moments_from_parts(self, value, grad, eta) -> LossMoments:
        """Moments from ``L(theta_bar)`` and ``g`` already computed (shared residuals)."""
        d = self.d
        s2 = 1.0 / eta**2  # E||Z||^2 / (d (d+1)); 0 when eta = inf
        mean = value + (d + 1) * s2 * self.trace
        var = (4.0 * (d + 1) * s2 * np.sum(grad * grad, axis=-1)
               + 2.0 * (d + 1) * s2 * s2 * (self.trace**2 + (d + 3) * self.trace_sq))
        return LossMoments(mean=np.asarray(mean, dtype=float), var=np.asarray(var, dtype=float))


def loss_moments(theta_bar, eta, X_test, y_test, penalty=0.0) -> LossMoments:
    r"""Exact mean and variance over the noise of the test loss of ``theta_bar + Z``.

    Convenience wrapper of :meth:`QuadraticLoss.moments`: ``penalty = 0`` for the
    unregularized test loss (test MSE), ``penalty = lam`` for the regularized one
    (Section 4, "Metrics").  Theorem *thm-exact-loss-moments* of the book's chapter
    *Exact loss moments* (``book/moments.ipynb``).

    Parameters
    ----------
    theta_bar : array-like of shape (d,) or (R, d)
    eta : float or array-like of shape (R,)
        ``> 0``; ``inf`` for no noise.
    X_test : array-like of shape (N, d)
    y_test : array-like of shape (N,)
    penalty : float, default 0

    Returns
    -------
    LossMoments
    """
    return QuadraticLoss(X_test, y_test, penalty).moments(theta_bar, eta)
