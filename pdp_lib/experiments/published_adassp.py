r"""Wang's AdaSSP as published (UAI 2018, Algorithm 2; the google-research ``dp_regression`` baseline), for comparison.

The published algorithm is non-personalized: every point gets ``(epsilon, delta)``-DP, for neighbours that add or
remove a point with :math:`\|x\| \le \mathcal X` and :math:`|y| \le \mathcal Y`.  With
:math:`s = \sqrt{\log(6/\delta)}/(\varepsilon/3)` it adds Gaussian noise of standard deviations
:math:`s\mathcal X^2` to the upper triangle of :math:`X^\top X` (mirrored), :math:`s\mathcal X\mathcal Y` to
:math:`X^\top y` and :math:`s\mathcal X^2` to :math:`\max(0, \lambda_\min(X^\top X))`, takes the ridge of
:func:`pdp_lib.mechanisms.adassp.ridge_rule` and solves with the pseudo-inverse.  The public bounds are those of the
paper's domain, :math:`\mathcal X = \sqrt d` and :math:`\mathcal Y = 1` (the published code reads them from the
data, which is not private).

Floating point throughout, vectorized over draws: an experiment, not a release (the library's release of the
personalized form is :func:`pdp_lib.mechanisms.adassp.adassp`).  Compared in the book's chapter *Beyond output
perturbation* (``book/beyond.ipynb``).
"""

from __future__ import annotations

import math

import numpy as np

from ..mechanisms.adassp import FAILURE, adassp_draws

__all__ = ["published_scales", "published_adassp_draws"]


def published_scales(d: int, epsilon: float, delta: float, bounds=None) -> tuple:
    r"""``(sigma_A, sigma_b, sigma_e)`` of the published algorithm, in the scale of :math:`X^\top X`.

    ``bounds = (X_bound, Y_bound)``, by default ``(sqrt(d), 1)``.
    """
    bx, by = bounds if bounds is not None else (math.sqrt(d), 1.0)
    s = math.sqrt(math.log(6 / delta)) / (epsilon / 3)
    return s * bx * bx, s * bx * by, s * bx * bx


def published_adassp_draws(X, y, epsilon: float, delta: float, gen, draws: int, *, bounds=None,
                           failure: float = FAILURE) -> tuple:
    """``draws`` independent runs of the published AdaSSP on ``(X, y)``: ``(thetas of shape (draws, d), lams)``."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    gram, moment = X.T @ X, X.T @ y
    eigen = max(0.0, float(np.linalg.eigvalsh(gram)[0]))
    sigmas = published_scales(X.shape[1], epsilon, delta, bounds)
    return adassp_draws(gram, moment, eigen, sigmas, delta, gen, draws, failure, solve="pinv")
