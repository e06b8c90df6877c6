"""Each private method's loss over runs as a :class:`pdp_lib.mixtures.LossMixture`, for one draw.

Composes the mechanisms (:func:`pdp_lib.calibrate`, :func:`pdp_lib.weighted_ridge`, and for
Jorgensen et al. the engine's masks and batched ridge) into the exact mixtures of
:mod:`pdp_lib.mixtures`.
"""

from __future__ import annotations

import numpy as np

from ..mechanisms.baselines import jorgensen_threshold
from ..bounds import noise_scale
from ..mechanisms.output_perturbation import calibrate, weighted_ridge
from ..mixtures import loss_mixture
from ..moments import QuadraticLoss
from .engine import batched_ridge, jorgensen_masks

__all__ = ["method_mixtures", "METHODS"]

METHODS = ("pdp_op", "non_personalized", "jorgensen_max", "jorgensen_mean")


def _add_both(out: dict, loss_u: QuadraticLoss, theta: np.ndarray, eta: np.ndarray, lam: float) -> None:
    """Both losses' mixtures at ``lam`` from one residual computation (reg = unreg + lam ||theta||^2)."""
    value, grad = loss_u.value_and_half_gradient_unchecked(theta)
    out["unreg", lam] = loss_mixture(loss_u, theta, eta, _parts=(value, grad))
    out["reg", lam] = loss_mixture(loss_u.with_penalty(lam), theta, eta,
                                   _parts=(value + lam * np.sum(theta * theta, axis=1), grad + lam * theta))


def method_mixtures(method: str, X, y, X_test, y_test, epsilons, lams, *, masks: int = 100, B=None,
                    rng=None) -> dict:
    """The :class:`~pdp_lib.mixtures.LossMixture` of one private method for one data draw and profile, per ``lambda``.

    Composes the mechanism: PDP-OP and the non-personalized baseline through
    :func:`pdp_lib.calibrate` and :func:`pdp_lib.weighted_ridge` (Theorem 3.1; one centre);
    Jorgensen et al. through :func:`pdp_lib.experiments.jorgensen_masks` and
    :func:`pdp_lib.experiments.batched_ridge` (``masks`` equally likely samples drawn from
    ``rng``, ``eta = k t / c(lambda)``, Section 4.2).

    Parameters
    ----------
    method : str
        One of :data:`METHODS`.
    X, y, X_test, y_test : numpy.ndarray
        Training and test data, in the domain.
    epsilons : numpy.ndarray
        The privacy profile.
    lams : sequence of float
    masks : int, default 100
        Jorgensen's sampling masks (the mixture's centres); unused by the other methods.
    B : None, "sharp" or float
        The norm bound every mechanism is calibrated with, as in :func:`pdp_lib.calibrate`.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of Jorgensen's masks.

    Returns
    -------
    dict
        ``{(kind, lam): LossMixture}`` for ``kind`` in ``("unreg", "reg")``.
    """
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    eps = np.asarray(epsilons, dtype=float)
    loss_u = QuadraticLoss(X_test, y_test)
    out = {}
    if method in ("pdp_op", "non_personalized"):
        profile = eps if method == "pdp_op" else np.full(n, eps.min())
        for lam in lams:
            cal = calibrate(profile, lam, d, B)
            theta = np.atleast_2d(weighted_ridge(X, y, cal.weights, lam))
            _add_both(out, loss_u, theta, np.atleast_1d(cal.eta), float(lam))
    elif method in ("jorgensen_max", "jorgensen_mean"):
        t = jorgensen_threshold(eps, method.split("_")[1])
        m = jorgensen_masks(eps, t, masks, rng=rng)
        k = m.sum(axis=1)
        thetas = batched_ridge(X, y, m, [float(v) for v in lams])
        for lam, theta in zip(lams, thetas):
            eta = np.where(k > 0, k * t / noise_scale(lam, d, B), np.inf)
            _add_both(out, loss_u, theta, eta, float(lam))
    else:
        raise ValueError(f"method = {method!r} is not one of the allowed values {METHODS}")
    return out
