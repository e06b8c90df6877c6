r"""The largest norm of the weighted ridge solution over the domain (checks Lemma A.1).

:func:`largest_norm_dataset` searches the domain for the dataset whose weighted ridge
solution of eq. (2) has the largest norm, knowing nothing about the answer;
:func:`unregularized_solution` is the ``theta_bar_0`` of Assumption 3.1.  Used in the
book's chapters *Sensitivity of the weighted ridge solution* (``book/sensitivity.ipynb``)
and *Privacy of PDP-OP* (``book/privacy.ipynb``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from ..mechanisms.output_perturbation import weighted_ridge_unchecked, weighted_ridge
from ..validation import check_data, check_count, check_positive, check_rng

__all__ = ["NormSearch", "largest_norm_dataset", "unregularized_solution"]


@dataclass(frozen=True)
class NormSearch:
    """A dataset found by :func:`largest_norm_dataset`.

    Attributes
    ----------
    norm : float
        ``||theta_bar||`` of the dataset, recomputed with the library's solver.
    X, y, weights : numpy.ndarray
        The dataset (in the domain) and its weights.
    """

    norm: float
    X: np.ndarray
    y: np.ndarray
    weights: np.ndarray


def largest_norm_dataset(lam, d, n=2, n_starts=6, rng=None) -> NormSearch:
    r"""Search the domain for the dataset with the largest ``||theta_bar||`` (checks Lemma A.1).

    Maximizes ``||theta_bar||`` of eq. (2) jointly over ``n`` points
    ``x_j in [0,1]^d``, labels ``y_j in [-1,1]`` and the weights (written
    ``w_j = a_j / sum a`` with ``a_j in [0.01, 1]``) with L-BFGS-B from
    ``n_starts`` random starts.  The search knows nothing about the answer; the
    book's chapter *Sensitivity of the weighted ridge solution*
    (``book/sensitivity.ipynb``) compares what it finds with Lemma A.1 and with
    :func:`pdp_lib.bounds.sharp_norm_bound`.

    Parameters
    ----------
    lam : float
        ``lambda > 0``.
    d, n : int
        Dimension and number of points.
    n_starts : int
    rng : None, int or numpy.random.Generator

    Returns
    -------
    NormSearch
    """
    lam = check_positive(lam, "lam")
    d = check_count(d, "d")
    n = check_count(n, "n")
    n_starts = check_count(n_starts, "n_starts")
    gen = check_rng(rng)
    bounds = [(0.0, 1.0)] * (n * d) + [(-1.0, 1.0)] * n + [(0.01, 1.0)] * n

    def unpack(z):
        X = z[: n * d].reshape(n, d)
        y = z[n * d: n * d + n]
        a = z[n * d + n:]
        return X, y, a / a.sum()

    def neg(z):  # minus the log of the norm: scale-free, so the tolerances mean the same for every lam
        X, y, w = unpack(z)
        return -float(np.log(np.linalg.norm(weighted_ridge_unchecked(X, y, w, lam)) + 1e-300))

    best = None
    for _ in range(n_starts):
        z0 = np.array([gen.uniform(lo, hi) for lo, hi in bounds])
        res = optimize.minimize(neg, z0, method="L-BFGS-B", bounds=bounds,
                                options={"ftol": 1e-14, "gtol": 1e-10})
        if best is None or res.fun < best.fun:
            best = res
    X, y, w = unpack(np.clip(best.x, [b[0] for b in bounds], [b[1] for b in bounds]))
    return NormSearch(norm=float(np.linalg.norm(weighted_ridge(X, y, w, lam))), X=X, y=y, weights=w)


def unregularized_solution(X, y, weights) -> np.ndarray:
    r"""The ``theta_bar_0`` of Assumption 3.1: the least-norm minimizer of the unregularized weighted loss.

    The loss is ``sum_i w_i (y_i - theta^T x_i)^2``.

    When ``X^T W X`` is singular (for example one-hot blocks plus an intercept, as
    in the Medical Cost data) the minimizers form an affine subspace with
    unbounded norms; the one of least norm, ``(W^{1/2} X)^+ W^{1/2} y``, is the
    only reading of Assumption 3.1 that can hold, and every minimizer ``theta_0``
    satisfies ``||theta_bar_lam|| <= ||theta_0||`` anyway (proved in the book's
    chapter *Privacy of PDP-OP*, ``book/privacy.ipynb``).  Computed with
    ``numpy.linalg.lstsq``.

    Returns
    -------
    numpy.ndarray of shape (d,)
    """
    X, y, w, _ = check_data(X, y, weights)
    sw = np.sqrt(w)
    return np.linalg.lstsq(X * sw[:, None], y * sw, rcond=None)[0]
