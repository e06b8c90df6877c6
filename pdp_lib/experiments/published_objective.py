r"""Objective perturbation as published (Chaudhuri, Monteleoni & Sarwate, JMLR 2011, Algorithm 2), for comparison.

The published algorithm is non-personalized: every one of the ``n`` points gets ``epsilon``-DP.  For a loss whose
Hessian has rank one and norm at most ``c`` it sets

.. math::

    \varepsilon' = \varepsilon - \log\Big(1 + \frac{2c}{n\Lambda} + \frac{c^2}{n^2\Lambda^2}\Big), \qquad
    \Delta = 0 \text{ if } \varepsilon' > 0, \text{ else } \Delta = \frac{c}{n(e^{\varepsilon/4} - 1)} - \Lambda,\
    \varepsilon' = \varepsilon/2,

draws :math:`b \propto e^{-\varepsilon'\|b\|/G}` (``G`` the bound on the change of a point's gradient; 2 in the
paper, whose gradients have norm at most 1) and minimizes :math:`\frac1n\sum_i\ell_i + \frac{\Lambda + \Delta}2
\|\theta\|^2 + \frac1n b^\top\theta`, here over the ball of radius ``R`` (Kifer, Smith & Thakurta, COLT 2012).  On
the paper's domain the squared loss has ``c = d`` and, on the ball, :math:`G = \sqrt d(\sqrt d R + 2)`.

In the library's scale (weights :math:`1/n`, noise :math:`b/n`) that is :func:`pdp_lib.mechanisms.objective
.objective_draws` with :math:`\eta = n\varepsilon'/G` and ridge :math:`\Lambda + \Delta`; the personalized
calibration at equal levels differs only in the Jacobian's term, :math:`\log(1 + d/(n\Lambda))`, half the published
logarithm (the book's proposition *prop-objective-privacy*).  Compared in the book's chapter *Beyond output
perturbation* (``book/beyond.ipynb``).
"""

from __future__ import annotations

import math

from ..mechanisms.noisy_gd import gd_sensitivity
from ..mechanisms.objective import ObjectiveCalibration

__all__ = ["published_objective_calibration"]


def published_objective_calibration(epsilon: float, n: int, lam: float, d: int, radius: float) -> ObjectiveCalibration:
    """The published calibration at level ``epsilon`` for ``n`` points, in the library's scale (module docstring)."""
    c = d
    ratio = c / (n * lam)
    eps_prime, ridge = epsilon - math.log(1 + 2 * ratio + ratio * ratio), lam
    if eps_prime <= 0:
        ridge = c / (n * math.expm1(epsilon / 4))
        eps_prime = epsilon / 2
    spent = (epsilon - eps_prime) / epsilon
    return ObjectiveCalibration(eta=n * eps_prime / gd_sensitivity(radius, d), ridge=ridge, radius=radius,
                                jacobian_share=spent)
