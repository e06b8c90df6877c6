"""Scikit-learn style estimator around PDP-OP (Algorithm 1).

Derived in the book's chapter *The PDP-OP mechanism*.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from .mechanism import _run_pdp_op
from .validation import check_finite

__all__ = ["PersonalizedRidge"]


class PersonalizedRidge(RegressorMixin, BaseEstimator):
    r"""Ridge regression with personalized differential privacy (PDP-OP).

    ``fit(X, y, epsilons)`` runs Algorithm 1 with the weights and noise of
    Theorem 3.1 (or Theorem 3.2 when ``B`` is given): data point ``i`` gets
    ``epsilons[i]``-personalized DP.  With the same seed, ``coef_`` equals
    :func:`pdp_lib.pdp_op`'s output.

    Parameters
    ----------
    lam : float, default 1.0
        Ridge parameter ``lambda > 0`` of eq. (2).
    B : None, "sharp" or float, default None
        ``None``: the paper's ``B(lambda)`` (Theorem 3.1).  ``"sharp"``: the exact supremum
        ``B*(lambda)`` of ``||theta_bar||`` over the domain, the same guarantee with less
        noise (:func:`pdp_lib.calibrate`).  A float: a public bound on the norm of the least-norm minimizer of the unregularized
        weighted loss (Assumption 3.1, Theorem 3.2), fixed before the data are seen
        and valid for every dataset the estimator may be fitted on, including every
        neighbour of yours; a ``B`` computed from the data voids the guarantee (see
        :func:`pdp_lib.calibrate`).
    random_state : None, int or numpy.random.Generator
        Source of the privacy noise.  An int gives the same noise on every fit.

    Attributes
    ----------
    coef_ : numpy.ndarray of shape (d,)
        The private estimate ``theta_hat``.
    weights_ : numpy.ndarray of shape (n,)
        ``w_i = epsilon_i / sum_j epsilon_j``.
    eta_ : float
        The noise parameter used.
    n_features_in_ : int
        ``d``.

    Notes
    -----
    There is no intercept: append a column of ones to ``X`` (as the paper does
    for the Medical Cost data) to fit an affine model.
    """

    def __init__(self, lam=1.0, B=None, random_state=None):
        self.lam = lam
        self.B = B
        self.random_state = random_state

    def fit(self, X, y, epsilons):
        """Fit by PDP-OP; ``X`` in ``[0,1]^(n x d)``, ``y`` in ``[-1,1]^n``, ``epsilons > 0``."""
        self.coef_, cal = _run_pdp_op(X, y, epsilons, self.lam, self.B, self.random_state,
                                      rng_name="random_state")
        self.weights_ = np.array(cal.weights)
        self.eta_ = cal.eta
        self.n_features_in_ = self.coef_.shape[0]
        return self

    def predict(self, X):
        """Return ``X @ coef_``; ``X`` must be finite with ``n_features_in_`` columns."""
        if not hasattr(self, "coef_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("PersonalizedRidge is not fitted yet; call fit(X, y, epsilons) first")
        A = check_finite(X, "X", ndim=(2,))
        if A.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X must have shape (m, {self.n_features_in_}), got {A.shape}"
            )
        return A @ self.coef_
