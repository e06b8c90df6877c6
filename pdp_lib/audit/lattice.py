r"""The lattice release audited: which outputs a centre can produce, the exact loss of a pair, black-box draws.

On the lattice the output :math:`y = \gamma j` (``j`` an integer vector) has probability proportional to
:math:`\exp(-t\|j - m\|_2)` from the centre ``m``, positive for every ``j``: no output is ever ruled out.  The
log-likelihood ratio of two centres is :math:`t(\|j - m'\| - \|j - m\|) \le t\|m - m'\|`, with equality at
``j = m``, so :math:`t\|m - m'\|` *is* the pair's exact privacy loss.  Under the rounded law (above ``d = 12``,
or with ``delta``; :func:`pdp_lib.mechanisms.lattice.noise_law`) every output still has positive probability,
and :math:`t\|m - m'\|` bounds the pair's loss (post-processing of the continuous mechanism), approached by
outputs far out along ``m - m'``.  Used in the book's chapter *What the
guarantee does not cover* (``book/limits.ipynb``), section *A release that keeps its promise in floating
point*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..mechanisms.exact_rounding import sample_rounded_l2
from ..mechanisms.exact_sampling import RandomBits, sample_lattice_l2
from ..mechanisms.lattice import (
    LatticeCalibration,
    lattice_calibration,
    lattice_centre,
    noise_law,
    rounds_bound,
    weighted_sums,
)
from ..validation import check_count, check_problem

__all__ = ["LatticePair", "lattice_units", "lattice_reachable", "lattice_draws", "lattice_pair",
           "pair_loss_within"]


def lattice_units(outputs, step_exponent: int) -> np.ndarray:
    """The outputs in units of the step ``2**-g``: exact (a power-of-two scaling), as floats."""
    return np.ldexp(np.asarray(outputs, dtype=float), step_exponent)


def lattice_reachable(outputs, centre, step_exponent: int) -> np.ndarray:
    """Whether each output (rows) can be produced from ``centre`` (lattice units): a grid point, so an
    integer noise ``j - m``, which has positive probability.  The bit-exact search on the lattice."""
    units = lattice_units(outputs, step_exponent)
    integral = np.all(np.floor(units) == units, axis=-1) & np.all(np.abs(units) < 2.0**53, axis=-1)
    noise = units - np.asarray(centre, dtype=float)
    return integral & np.all(np.floor(noise) == noise, axis=-1)


def lattice_draws(centre, rate, step_exponent: int, size: int, rng=None) -> np.ndarray:
    """``size`` releases ``gamma (m + K)`` around the lattice centre ``m``: shape ``(size, d)``.

    ``K`` is drawn from the law the release uses in dimension ``d`` (:func:`pdp_lib.mechanisms.lattice.noise_law`).
    """
    size = check_count(size, "size")
    bits = rng if isinstance(rng, RandomBits) else RandomBits(rng)
    d = len(centre)
    sample = sample_lattice_l2 if noise_law(d) == "lattice" else sample_rounded_l2
    out = np.empty((size, d))
    for r in range(size):
        k = sample(rate, d, bits)
        out[r] = [math.ldexp(float(a + b), -step_exponent) for a, b in zip(centre, k)]
    return out


@dataclass(frozen=True)
class LatticePair:
    """Two neighbouring tables' lattice centres under one calibration.

    Attributes
    ----------
    calibration : LatticeCalibration
    centre_a, centre_b : tuple of int
        ``m`` and ``m'``, in units of the step.
    loss : float
        ``t ||m - m'||``, the pair's exact privacy loss (rounded to a double for display).
    real_loss : float
        ``eta ||theta_bar - theta_bar'||`` of the mechanism over the reals, ``eta`` of Theorem 3.1 or 3.2 and
        the centres computed in floating point (for comparison only).
    """

    calibration: LatticeCalibration
    centre_a: tuple
    centre_b: tuple
    loss: float
    real_loss: float


def lattice_pair(X_a, y_a, X_b, y_b, epsilons, lam, B=None) -> LatticePair:
    """The lattice centres of two tables with the same levels, and their pair's exact loss (a bound on it under the
    rounded law)."""
    from ..mechanisms.output_perturbation import calibrate, weighted_ridge

    X_a, y_a, eps, lam = check_problem(X_a, y_a, epsilons, lam)
    X_b, y_b, _, _ = check_problem(X_b, y_b, epsilons, lam)
    n, d = X_a.shape
    cal = lattice_calibration(math.fsum(eps), float(eps.min()), rounds_bound(n), lam, d, B)
    centres = []
    for X, y in ((X_a, y_a), (X_b, y_b)):
        gram, moment, _ = weighted_sums(X, y, eps)
        centres.append(lattice_centre(gram, moment, math.fsum(eps), lam, cal.step_exponent))
    sq = sum((a - b) ** 2 for a, b in zip(*centres))
    real = calibrate(eps, lam, d, B)
    gap = weighted_ridge(X_a, y_a, real.weights, lam) - weighted_ridge(X_b, y_b, real.weights, lam)
    return LatticePair(calibration=cal, centre_a=centres[0], centre_b=centres[1],
                       loss=float(cal.rate) * math.sqrt(sq), real_loss=real.eta * float(np.linalg.norm(gap)))


def pair_loss_within(pair: LatticePair, epsilon) -> bool:
    """Whether ``t ||m - m'|| <= epsilon``, decided exactly (squares of rationals)."""
    sq = sum((a - b) ** 2 for a, b in zip(pair.centre_a, pair.centre_b))
    return pair.calibration.rate ** 2 * sq <= Fraction(float(epsilon)) ** 2
