r"""The exact privacy loss of objective perturbation between two neighbours, at any output.

The release of :mod:`pdp_lib.mechanisms.objective` has a density on the open ball (with respect to volume) and one
on the sphere :math:`\|\theta\| = R` (with respect to surface area), both from the change of variables of the
book's proposition *prop-objective-privacy*.  With :math:`H = A + \Lambda I`, up to the noise's normalizer (the same
for both neighbours):

.. math::

    \log p(\theta) = -\eta\|c - H\theta\| + \log\det H \quad (\|\theta\| < R), \qquad
    \log p(\theta) = \log\int_0^\infty e^{-\eta\|c - (H + \nu I)\theta\|}\,
    \det(H + \nu I)\,\frac{\theta^\top (H + \nu I)^{-1}\theta}{R}\,d\nu \quad (\|\theta\| = R).

A pair's loss at :math:`\theta` is the difference of the two logarithms; the proposition bounds it by
:math:`\varepsilon_i` everywhere, and the tests search for outputs and neighbours that exceed it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate

__all__ = ["objective_log_density", "objective_pair_loss"]


def _log_integrand(nu, h, tt2, u, theta, eta, log_radius):
    """``log`` of the sphere's integrand at each ``nu`` (``u = c - H theta``; ``h`` the eigenvalues of ``H``, ``tt2``
    the squares of ``theta``'s coordinates in its eigenvectors, ``log_radius`` the logarithm of ``R``)."""
    nu = np.atleast_1d(np.asarray(nu, dtype=float))[:, None]
    r = u - nu * theta
    # NumPy's norm along an axis and sum, written out (the same reductions, without their wrappers: quadrature
    # calls this once per point)
    return (-eta * np.sqrt(np.add.reduce(r * r, axis=1)) + np.add.reduce(np.log(h + nu), axis=1)
            + np.log(np.add.reduce(tt2 / (h + nu), axis=1)) - log_radius)


def objective_log_density(theta, A, c, ridge: float, eta: float, radius: float, *, on_sphere: bool) -> tuple:
    """``(log p(theta), error)``: the release's log density at ``theta``, up to the noise's normalizer.

    ``on_sphere=False``: the density inside the ball (closed form, ``error = 0``).  ``on_sphere=True``: the density
    on the sphere, by adaptive quadrature in ``nu``; ``error`` bounds the error of the logarithm from quadrature's
    own error estimate.
    """
    theta, A, c = (np.asarray(v, dtype=float) for v in (theta, A, c))
    H = A + ridge * np.eye(c.size)
    u = c - H @ theta
    if not on_sphere:
        return -eta * float(np.linalg.norm(u)) + float(np.linalg.slogdet(H)[1]), 0.0
    h, Q = np.linalg.eigh(H)
    tt = Q.T @ theta
    tt2, log_radius = tt * tt, math.log(radius)             # the same for every nu: formed once
    scale = eta * radius                                     # the integrand decays like exp(-eta R nu)
    centre = max(float(u @ theta) / radius**2, 0.0)         # where ||u - nu theta|| is smallest
    grid = np.union1d(np.concatenate([[0.0], np.geomspace(1e-6, 200.0, 400) / scale]),
                      centre + np.concatenate([-np.geomspace(1e-6, 200.0, 200)[::-1], [0.0],
                                               np.geomspace(1e-6, 200.0, 200)]) / scale)
    grid = grid[grid >= 0.0]
    logs = _log_integrand(grid, h, tt2, u, theta, eta, log_radius)
    peak, top = float(logs.max()), float(grid[int(np.argmax(logs))])

    def f(v):
        return math.exp(min(_log_integrand(v, h, tt2, u, theta, eta, log_radius)[0] - peak, 700.0))

    parts = [integrate.quad(f, a, b, limit=400, epsabs=0.0, epsrel=1e-11) for a, b in ((0.0, top), (top, np.inf))]
    value, err = sum(p[0] for p in parts), sum(p[1] for p in parts)
    return peak + math.log(value), err / value


def objective_pair_loss(theta, A, c, A2, c2, ridge: float, eta: float, radius: float, *, on_sphere: bool) -> tuple:
    """``(loss, error)``: ``log p(theta) - log p'(theta)`` for the statistics ``(A, c)`` and ``(A2, c2)``."""
    first, e1 = objective_log_density(theta, A, c, ridge, eta, radius, on_sphere=on_sphere)
    second, e2 = objective_log_density(theta, A2, c2, ridge, eta, radius, on_sphere=on_sphere)
    return first - second, e1 + e2
