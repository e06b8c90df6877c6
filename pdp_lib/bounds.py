"""Deterministic bounds of the privacy and accuracy analysis (paper, Appendix A).

Lemma A.1 (the norm of the weighted ridge solution), Theorem A.4 (per-point
sensitivity) and the noise factor of Theorems 3.1/3.2, the exact supremum that
sharpens Lemma A.1, and the tail quantities of the noise norm used in the proof
of Theorem 3.3.  Derived step by step in the book's chapters *Sensitivity of
the weighted ridge solution* (``book/sensitivity.ipynb``) and *Accuracy of
PDP-OP* (``book/accuracy.ipynb``); the mechanism (:mod:`pdp_lib.mechanisms.output_perturbation`)
calibrates its noise from these bounds.
"""

from __future__ import annotations

import numpy as np

from .validation import check_dimension, check_fraction, check_positive, check_weights

__all__ = [
    "norm_bound",
    "resolve_bound",
    "sensitivity_bound",
    "noise_scale",
    "sharp_norm_bound",
    "noise_norm_chebyshev",
    "noise_norm_quantile",
]


def norm_bound(lam, d) -> float:
    r"""The bound :math:`B(\lambda) = \min(1/\sqrt{\lambda}, \sqrt{d}/\lambda)` on :math:`\|\bar\theta\|_2`.

    Lemmas A.1 and A.2 of the paper (both labelled ``lem:weightedLSoptnorm`` in its source): for any data in the domain
    (``x_i in [0,1]^d``, ``y_i in [-1,1]``) and any weights summing to one, the
    weighted ridge solution of eq. (2) satisfies
    ``||theta_bar|| <= 1/sqrt(lam)`` and ``||theta_bar|| <= sqrt(d)/lam``.
    The two bounds cross at ``lam = d``.  Proved in the book's chapter
    *Sensitivity of the weighted ridge solution* (``book/sensitivity.ipynb``),
    where :func:`sharp_norm_bound` gives the exact supremum.

    Parameters
    ----------
    lam : float
        Regularization parameter, ``lam > 0``.
    d : int
        Feature dimension, ``d >= 1``.

    Returns
    -------
    float
    """
    lam = check_positive(lam, "lam")
    d = check_dimension(d)
    with np.errstate(over="ignore", divide="ignore"):  # subnormal lam: inf, refused by calibrate
        return float(min(1.0 / np.sqrt(lam), np.sqrt(d) / lam))


def resolve_bound(lam, d, B=None) -> float:
    r"""The norm bound a calibration uses: ``B(lambda)``, ``B*(lambda)`` or the user's ``B``.

    Parameters
    ----------
    lam : float
        ``lambda > 0``.
    d : int
        Feature dimension ``d >= 1``.
    B : None, "sharp" or float
        ``None``: the paper's :func:`norm_bound` (Lemma A.1, Theorem 3.1); ``"sharp"``: the
        exact supremum :func:`sharp_norm_bound` over the domain, which is at most half of it
        and keeps every guarantee (book chapter *Sensitivity of the weighted ridge
        solution*); a float: a public bound of Assumption 3.1 (Theorem 3.2), positive and
        finite.

    Returns
    -------
    float
    """
    if isinstance(B, str):
        if B != "sharp":
            raise TypeError(f"B must be a real number or 'sharp', got str {B!r}: use None (the paper's "
                            f"B(lambda)), 'sharp' (the exact supremum B*(lambda)) or a number in (0, inf)")
        return sharp_norm_bound(lam, d)
    return norm_bound(lam, d) if B is None else check_positive(B, "B")


def noise_scale(lam, d, B=None) -> float:
    r"""The factor :math:`c = 2\sqrt{d}\,(1 + \sqrt{d} B)/\lambda` of Theorem A.4.

    The per-point :math:`\ell_2`-sensitivity of :math:`\bar\theta` is at most
    ``w_i * c`` (Theorem A.4), so ``eta = sum(epsilon) / c`` gives every point
    ``eta * w_i * c = epsilon_i`` (Theorems 3.1 and 3.2).  ``B`` defaults to
    :func:`norm_bound` (Theorem 3.1); an explicit ``B`` gives Theorem 3.2.
    Derived in the book's chapters *Sensitivity of the weighted ridge solution*
    (``book/sensitivity.ipynb``) and *Privacy of PDP-OP* (``book/privacy.ipynb``).
    """
    lam = check_positive(lam, "lam")
    d = check_dimension(d)
    B = resolve_bound(lam, d, B)
    with np.errstate(over="ignore", divide="ignore"):  # subnormal lam: inf, refused by calibrate
        return float(2.0 * np.sqrt(d) * (1.0 + np.sqrt(d) * B) / lam)


def sensitivity_bound(weights, lam, d, B=None) -> np.ndarray:
    r"""Per-point sensitivity bound :math:`\Delta_i \le 2\sqrt{d}\,w_i(\sqrt{d}B + 1)/\lambda`.

    Theorem A.4 of the paper: for ``i``-neighbouring datasets ``D, D'`` in the
    domain, ``||theta_bar(D) - theta_bar(D')||_2 <= Delta_i``.  The proof
    (Lemma A.3 applied at ``theta_bar(D)``) only uses ``||theta_bar(D)|| <= B``
    for the first dataset of the pair.  Derived in the book's chapter
    *Sensitivity of the weighted ridge solution* (``book/sensitivity.ipynb``).

    Parameters
    ----------
    weights : array-like of shape (n,)
        Loss weights, non-negative, summing to one.
    lam : float
        Regularization parameter, ``lam > 0``.
    d : int
        Feature dimension.
    B : None, "sharp" or float, optional
        Bound on ``||theta_bar||``: :func:`norm_bound` when omitted, :func:`sharp_norm_bound`
        for ``"sharp"`` (:func:`resolve_bound`).

    Returns
    -------
    numpy.ndarray of shape (n,)
    """
    w = check_weights(weights)
    return w * noise_scale(lam, d, B)


def sharp_norm_bound(lam, d) -> float:
    r"""The exact supremum of :math:`\|\bar\theta\|_2` over the domain (sharpens Lemma A.1).

    .. math::

        B^\star(\lambda) = \sup \|\bar\theta\|_2 =
        \begin{cases} \dfrac{1}{2\sqrt{\lambda}} & \lambda \le d,\\[1ex]
                       \dfrac{\sqrt{d}}{d + \lambda} & \lambda \ge d,\end{cases}

    the supremum running over every ``n``, every weight vector summing to one and
    every dataset with ``x_i in [0,1]^d``, ``y_i in [-1,1]``.  With
    ``M = W^{1/2} X`` and singular values ``s_k <= sqrt(d)``,
    ``||theta_bar|| <= max_k s_k / (s_k^2 + lam) * ||W^{1/2} y||`` and
    ``||W^{1/2} y|| <= 1``; a single point with ``||x|| = min(sqrt(lam), sqrt(d))``
    and ``y = 1`` attains it.  ``B*(lam) <= B(lam) <= 2 B*(lam)``: the paper's
    bound is loose by a factor between 1 and 2 (exactly 2 for ``lam <= d``).
    Proved in the book's chapter *Sensitivity of the weighted ridge solution*
    (``book/sensitivity.ipynb``).

    Parameters
    ----------
    lam : float
        ``lambda > 0``.
    d : int
        ``d >= 1``.

    Returns
    -------
    float
    """
    lam = check_positive(lam, "lam")
    d = check_dimension(d)
    if lam <= d:
        return float(0.5 / np.sqrt(lam))
    return float(np.sqrt(d) / (d + lam))


def noise_norm_chebyshev(eta, d, delta) -> float:
    r"""The radius :math:`(d + \sqrt{2d/\delta})/\eta` that the proof of Theorem 3.3 gives for :math:`\|Z\|`.

    ``||Z|| ~ Gamma(d, rate eta)`` (Remark 3.1) has mean ``d/eta`` and variance
    ``d/eta^2``; Chebyshev's inequality with ``k = sqrt(2/delta)`` standard
    deviations gives ``P[||Z|| >= (d + sqrt(2d/delta))/eta] <= delta/2``
    (Appendix A.2).  Compare :func:`noise_norm_quantile`, the exact value.
    Checked in the book's chapter *Accuracy of PDP-OP* (``book/accuracy.ipynb``).

    Parameters
    ----------
    eta : float
        ``eta > 0``.
    d : int
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
    """
    eta = check_positive(eta, "eta")
    d = check_dimension(d)
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    return float((d + np.sqrt(2.0 * d / delta)) / eta)


def noise_norm_quantile(eta, d, prob) -> float:
    r"""The exact ``prob``-quantile of :math:`\|Z\|_2` for the noise of Algorithm 1.

    ``Z`` has density :math:`\propto e^{-\eta\|z\|_2}` on :math:`\mathbb{R}^d`.

    ``||Z||`` is Gamma with shape ``d`` and scale ``1/eta`` (Remark 3.1), so this
    is ``scipy.stats.gamma.ppf(prob, d, scale=1/eta)``.  At ``prob = 1 - delta/2``
    it is the smallest radius that the proof of Theorem 3.3 could use in place
    of :func:`noise_norm_chebyshev`.

    Parameters
    ----------
    eta : float
        ``eta > 0``.
    d : int
    prob : float
        In ``(0, 1)``.

    Returns
    -------
    float
    """
    eta = check_positive(eta, "eta")
    d = check_dimension(d)
    prob = check_fraction(prob, "prob", closed_low=False, closed_high=False)
    from scipy import stats  # noqa: PLC0415 - scipy.stats costs a second of import time

    return float(stats.gamma.ppf(prob, d, scale=1.0 / eta))
