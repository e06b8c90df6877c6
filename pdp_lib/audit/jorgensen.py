r"""The exact output density of Jorgensen et al.'s sampling baseline, for audits.

:func:`jorgensen_log_density` enumerates the samples of the mechanism of
:func:`pdp_lib.mechanisms.baselines.jorgensen` (``n <= 16``) and gives its exact log density, so its
privacy loss can be computed exactly.  Used in the book's chapter *What the guarantee does
not cover* (``book/limits.ipynb``).
"""

from __future__ import annotations

from itertools import product

import numpy as np
from scipy.special import gammaln, logsumexp

from ..mechanisms.baselines import jorgensen_eta, jorgensen_keep_probabilities
from ..mechanisms.output_perturbation import _weighted_ridge
from ..validation import check_epsilons, check_features, check_finite, check_labels, check_positive

__all__ = ["jorgensen_log_density"]


def jorgensen_log_density(outputs, X, y, epsilons, lam, t, B=None) -> np.ndarray:
    r"""Exact log density of Jorgensen et al.'s sample-then-perturb mechanism, by enumerating the samples.

    The mechanism of :func:`pdp_lib.mechanisms.baselines.jorgensen` keeps point ``j`` with
    probability ``pi_j`` (:func:`pdp_lib.mechanisms.baselines.jorgensen_keep_probabilities`)
    and runs output perturbation with uniform weights ``1/k`` and
    ``eta_k = k t / c(lam)`` (:func:`pdp_lib.mechanisms.baselines.jorgensen_eta`) on the ``k`` kept points.  Its output density is the
    mixture

    .. math::

        p(o) = \sum_{S \ne \emptyset} \Pr[S]\, c_d(\eta_{|S|})\, e^{-\eta_{|S|} \|o - \bar\theta_S\|},

    plus an atom of mass ``Pr[S = empty]`` at ``0`` (the empty sample returns ``0``)
    that is the same for every dataset of the same privacy levels and is left
    out.  Enumerating all ``2^n`` samples is exact but limited to ``n <= 16``.
    Used in the book's chapter *What the guarantee does not cover*
    (``book/limits.ipynb``).

    Parameters
    ----------
    outputs : array-like of shape (m, d)
    X, y, epsilons, lam
        As in :func:`pdp_lib.mechanisms.baselines.jorgensen`; ``n <= 16``.
    t : float
        The threshold.
    B : float, optional

    Returns
    -------
    numpy.ndarray of shape (m,)
    """
    X = check_features(X)
    n, d = X.shape
    if n > 16:
        raise ValueError(f"n = {n} is outside the allowed range [1, 16] for exact enumeration")
    y = check_labels(y, n)
    eps = check_epsilons(epsilons, n)
    lam = check_positive(lam, "lam")
    t = check_positive(t, "t")
    o = check_finite(outputs, "outputs", ndim=(2,))
    if o.shape[1] != d:
        raise ValueError(f"outputs must have d = {d} columns, got shape {o.shape}")
    pi = jorgensen_keep_probabilities(eps, t)
    # log c_d(eta) = d log eta + log Gamma(d/2) - log 2 - (d/2) log pi - log Gamma(d)
    log_c0 = gammaln(d / 2) - np.log(2.0) - (d / 2) * np.log(np.pi) - gammaln(d)
    terms = []
    for mask in product((False, True), repeat=n):
        m = np.array(mask)
        k = int(m.sum())
        if k == 0:
            continue
        probs = np.where(m, pi, 1.0 - pi)
        if np.any(probs == 0):  # a point kept with probability one cannot be left out
            continue
        logp = float(np.sum(np.log(probs)))
        eta = float(jorgensen_eta(lam, d, k, t, B))
        theta = _weighted_ridge(X[m], y[m], np.full(k, 1.0 / k), lam)
        terms.append(logp + d * np.log(eta) + log_c0 - eta * np.linalg.norm(o - theta, axis=1))
    return logsumexp(np.stack(terms), axis=0)
