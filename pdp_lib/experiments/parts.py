"""PDP-OP's expected test loss split into its bias part and its noise part, along a target's sweep.

By Theorem *thm-exact-loss-moments* (the book's chapter *Exact loss moments*), the test loss
of ``theta_bar + Z`` has, over the noise,

    mean  = L(theta_bar) + (d + 1) tr(A) / eta**2                     (bias part + noise part)
    var   = 4 (d + 1) ||g||**2 / eta**2                              (linear part)
          + 2 (d + 1) ((tr A)**2 + (d + 3) tr(A**2)) / eta**4         (quadratic part)

with ``g`` the half-gradient of the loss at ``theta_bar``.  :func:`loss_parts` evaluates the
four parts for PDP-OP (Algorithm 1: weights ``eps / sum(eps)``, ``eta`` of Theorem 3.1) at every
point of a target's sweep, on the draw whose values the book reports (replicate 0), so that
the reading of each rebuilt table can say which part shapes it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..mechanisms.output_perturbation import calibrate, weighted_ridge
from ..moments import QuadraticLoss
from .draws import draw_data, draw_profile, training_points
from .settings import SEED
from .targets import get_target

__all__ = ["loss_parts"]


def loss_parts(target: str, kind: str = "unreg", *, seed: int = SEED, bound: str = "paper") -> pd.DataFrame:
    """The parts of PDP-OP's exact loss moments at every point of ``target``'s sweep.

    Parameters
    ----------
    target : str
        A name of :data:`pdp_lib.experiments.TARGET_NAMES`.
    kind : {"unreg", "reg"}, default "unreg"
        The unregularized test loss (test MSE) or the regularized one (plus ``lam ||theta||^2``).
    seed : int, default the book's
        Root of the draws (:func:`pdp_lib.experiments.draw_data`); replicate 0, whose values
        :func:`pdp_lib.experiments.reproduce` reports, is used.
    bound : {"paper", "sharp"}, default "paper"
        The norm bound PDP-OP is calibrated with (``B(lambda)`` or ``B*(lambda)``).

    Returns
    -------
    pandas.DataFrame
        Indexed by the sweep's labels (as printed), columns ``bias`` (``L(theta_bar)``),
        ``noise`` (``(d + 1) tr A / eta**2``), ``mean`` (their sum), ``var_linear``,
        ``var_quadratic`` and ``std`` (the square root of their sum), and ``eta``.

    Raises
    ------
    ValueError
        If ``kind`` or ``bound`` is not one of the allowed values.
    """
    if kind not in ("unreg", "reg"):
        raise ValueError(f"kind = {kind!r} is not one of the allowed values ('unreg', 'reg')")
    if bound not in ("paper", "sharp"):
        raise ValueError(f"bound = {bound!r} is not one of the allowed values ('paper', 'sharp')")
    spec = get_target(target)
    draw = draw_data(spec.dataset, seed)
    rows = []
    for value in spec.sweep_values:
        profile, fraction, lam = spec.point(value)
        X, y = training_points(draw, fraction)
        eps = draw_profile(draw, profile, X.shape[0])
        cal = calibrate(eps, lam, X.shape[1], None if bound == "paper" else "sharp")
        theta_bar = weighted_ridge(X, y, cal.weights, lam)
        loss = QuadraticLoss(draw.X_test, draw.y_test, lam if kind == "reg" else 0.0)
        d, eta = X.shape[1], float(cal.eta)
        bias = float(loss.value(theta_bar))
        noise = (d + 1) * loss.trace / eta**2
        g = loss.half_gradient(theta_bar)
        var_linear = 4.0 * (d + 1) * float(g @ g) / eta**2
        var_quadratic = 2.0 * (d + 1) * (loss.trace**2 + (d + 3) * loss.trace_sq) / eta**4
        rows.append((bias, float(noise), bias + float(noise), var_linear, float(var_quadratic),
                     float(np.sqrt(var_linear + var_quadratic)), eta))
    frame = pd.DataFrame(rows, index=pd.Index(spec.param_labels, name="param"),
                         columns=["bias", "noise", "mean", "var_linear", "var_quadratic", "std", "eta"])
    return frame
