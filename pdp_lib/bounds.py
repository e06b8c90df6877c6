"""Deterministic bounds of the privacy analysis (paper, Appendix A.1).

Derived step by step in the book's chapter *Sensitivity and privacy*; the
mechanism (:mod:`pdp_lib.mechanism`) calibrates its noise from these bounds.
"""

from __future__ import annotations

import numpy as np

from .validation import check_dimension, check_epsilons, check_positive, check_weights

__all__ = ["norm_bound", "sensitivity_bound", "noise_scale"]


def norm_bound(lam, d) -> float:
    r"""The bound :math:`B(\lambda) = \min(1/\sqrt{\lambda}, \sqrt{d}/\lambda)` on :math:`\|\bar\theta\|_2`.

    Lemma A.1 (both parts) of the paper: for any data in the domain
    (``x_i in [0,1]^d``, ``y_i in [-1,1]``) and any weights summing to one, the
    weighted ridge solution of eq. (2) satisfies
    ``||theta_bar|| <= 1/sqrt(lam)`` and ``||theta_bar|| <= sqrt(d)/lam``.
    The two bounds cross at ``lam = d``.

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
    return min(1.0 / np.sqrt(lam), np.sqrt(d) / lam)


def noise_scale(lam, d, B=None) -> float:
    r"""The factor :math:`c = 2\sqrt{d}\,(1 + \sqrt{d} B)/\lambda` of Theorem A.4.

    The per-point :math:`\ell_2`-sensitivity of :math:`\bar\theta` is at most
    ``w_i * c`` (Theorem A.4), so ``eta = sum(epsilon) / c`` gives every point
    ``eta * w_i * c = epsilon_i`` (Theorems 3.1 and 3.2).  ``B`` defaults to
    :func:`norm_bound` (Theorem 3.1); an explicit ``B`` gives Theorem 3.2.
    """
    lam = check_positive(lam, "lam")
    d = check_dimension(d)
    B = norm_bound(lam, d) if B is None else check_positive(B, "B")
    return 2.0 * np.sqrt(d) * (1.0 + np.sqrt(d) * B) / lam


def sensitivity_bound(weights, lam, d, B=None) -> np.ndarray:
    r"""Per-point sensitivity bound :math:`\Delta_i \le 2\sqrt{d}\,w_i(\sqrt{d}B + 1)/\lambda`.

    Theorem A.4 of the paper: for ``i``-neighbouring datasets ``D, D'`` in the
    domain, ``||theta_bar(D) - theta_bar(D')||_2 <= Delta_i``.

    Parameters
    ----------
    weights : array-like of shape (n,)
        Loss weights, non-negative, summing to one.
    lam : float
        Regularization parameter, ``lam > 0``.
    d : int
        Feature dimension.
    B : float, optional
        Bound on ``||theta_bar||``; :func:`norm_bound` when omitted.

    Returns
    -------
    numpy.ndarray of shape (n,)
    """
    w = check_weights(weights)
    return w * noise_scale(lam, d, B)
