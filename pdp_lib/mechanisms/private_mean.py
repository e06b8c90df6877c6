r"""The private mean: the constant predictor at the re-weighted mean label, point ``i`` ``epsilon_i``-DP.

.. math::

    m = \sum_i w_i y_i, \qquad \hat m = m + Z,

with :math:`w_i = \varepsilon_i / S` and Laplace noise of scale :math:`2/S` (:math:`S = \sum_j \varepsilon_j`), or,
under ``delta``, :math:`w_i = \mu^*_i / M` and :math:`Z \sim N(0, (2/M)^2)` (:math:`M = \sum_j \mu^*_j`,
:math:`\mu^*_i = \mu^*(\varepsilon_i, \delta)`, :func:`pdp_lib.curves.tolerated_gaussian_mus`).

**Privacy.**  Replacing point ``i`` (its label in :math:`[-1, 1]`, its level kept) moves ``m`` by at most
:math:`2 w_i`.  The Laplace mechanism's loss is then at most :math:`2 w_i \cdot S/2 = \varepsilon_i`; the
Gaussian's centres are at most :math:`2w_i/(2/M) = \mu^*_i` standard deviations apart, which is
:math:`(\varepsilon_i, \delta)`-DP.  The features play no part: the model predicts :math:`\hat m` for every row.

**Why a library release.**  The book's chapter *Beyond output perturbation* holds every regression against it, and
on the Medical Cost and diabetes data under pure DP it beats them all (``book/beyond.ipynb``, section
*sec-spend-nothing*): a reader who follows that advice releases this.

**Exact in floating point** (``sampler="exact"``, the default).  ``m`` is computed exactly as a rational from the
doubles of the levels and labels, rounded to the grid of step :math:`\gamma = 2^{-g}`, and the noise is
:math:`\gamma\,\mathrm{round}(U/\gamma)` with ``U`` drawn exactly
(:func:`pdp_lib.mechanisms.exact_rounding.sample_rounded_l2` in one dimension, or
:func:`~pdp_lib.mechanisms.exact_rounding.sample_rounded_gaussian`): the released double is a function of the
continuous mechanism's output at the rounded centre, whose sensitivity grows by at most :math:`\gamma`.  So the
rate is :math:`\eta' = 1/(2/S + \gamma/\varepsilon_\min)` (Laplace) and the standard deviation
:math:`\sigma' = 2/M + \gamma/\mu^*_\min` (Gaussian), every quantity rational; :math:`\gamma` is below
:math:`2^{-20}` times the smallest sensitivity, so the noise exceeds the real mechanism's by a relative
:math:`2^{-20}` at most.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..validation import check_epsilons, check_fraction, check_labels, check_rng
from .exact_rounding import sample_rounded_gaussian, sample_rounded_l2
from .exact_sampling import RandomBits, random_bits
from .lattice import (STEP_SLACK, check_release_levels, check_sampler, check_sums_rounds, double_above,
                      grid_step_exponent, power_of_two_at_most, sums_rounding_bound)

__all__ = ["MeanCalibration", "mean_calibration", "private_mean", "SENSITIVITY", "noise_variance",
           "sums_mean_calibration", "mean_from_sums"]


SENSITIVITY = 2
"""Replacing point ``i`` (its label in ``[-1, 1]``, its weight kept) moves ``sum_i w_i y_i`` by at most
``SENSITIVITY w_i``, the label range's width: with weights summing to ``S`` (the levels, or ``mu*_i``), the noise's
scale is ``SENSITIVITY / S``."""


def noise_variance(total: float, *, gaussian: bool) -> float:
    """The variance of the private mean's noise over the reals, for weights summing to ``total``: ``2 (2/S)**2``
    (Laplace of scale ``2/S``) or ``(2/M)**2`` (Gaussian); its expected test loss is the constant predictor's plus
    this."""
    square = SENSITIVITY**2 / np.float64(total) ** 2
    return float(square if gaussian else 2 * SENSITIVITY**2 / np.float64(total) ** 2)


@dataclass(frozen=True)
class MeanCalibration:
    """The public parameters of one release.

    Attributes
    ----------
    scale : float
        The noise's scale: the Laplace scale ``1/eta'`` (pure) or the Gaussian standard deviation ``sigma'``,
        rounded up to a double.
    step_exponent : int or None
        ``g``, the grid's step ``2**-g`` (``None`` for the floating-point sampler).
    rate : fractions.Fraction or None
        The exact sampler's rate per grid step: ``eta' gamma`` (pure) or ``gamma / sigma'`` (Gaussian).
    """

    scale: float
    step_exponent: int | None = None
    rate: Fraction | None = None


def _exact_sum(values) -> Fraction:
    from .exponential import dyadic_integers    # doubles as integers over one power of two, exactly

    ints, scale = dyadic_integers(np.asarray(values, dtype=float))
    return Fraction(sum(int(v) for v in ints), scale)


def mean_calibration(levels, *, exact: bool = True) -> MeanCalibration:
    r"""The noise for the weights ``levels`` (the levels, or ``mu*_i`` under ``delta``): module docstring.

    ``exact=False``: over the reals, scale :math:`2/S` (or :math:`2/M`).  ``exact=True``: the grid's step and the
    rational rate of the exact release.
    """
    levels = np.asarray(levels, dtype=float)
    total, smallest = _exact_sum(levels), Fraction(float(levels.min()))
    if not exact:
        return MeanCalibration(scale=SENSITIVITY / float(total))
    check_release_levels(float(total), float(smallest))
    return _on_the_grid(total, smallest, Fraction(0))


def _on_the_grid(total: Fraction, smallest: Fraction, charge: Fraction) -> MeanCalibration:
    """The grid's step and the exact release's noise: spread ``2/total + (charge + gamma)/smallest``, the Laplace
    scale ``1/eta'`` or the Gaussian's ``sigma'``, exactly; ``charge`` bounds twice the centre's computing error."""
    g = grid_step_exponent(SENSITIVITY * smallest / total * STEP_SLACK)
    gamma = power_of_two_at_most(-g)
    spread = SENSITIVITY / total + (charge + gamma) / smallest
    return MeanCalibration(scale=double_above(spread), step_exponent=g, rate=gamma / spread)


def _draw_on_grid(mean: Fraction, cal: MeanCalibration, bits: RandomBits, gaussian: bool) -> float:
    """The exact release: ``mean`` rounded to the grid of step ``2**-g`` plus ``round(U / 2**-g)`` steps of the
    continuous noise ``U`` (Laplace, or Gaussian), as a double."""
    gamma = power_of_two_at_most(-cal.step_exponent)
    (k,) = (sample_rounded_gaussian if gaussian else sample_rounded_l2)(cal.rate, 1, bits)
    return float((round(mean / gamma) + k) * gamma)


def sums_mean_calibration(total: float, weight_min: float, rounds: int) -> MeanCalibration:
    r"""The exact release's noise when its centre comes from streamed sums: :math:`\tilde m/\tilde S`, the sum
    :math:`\tilde m` of the terms :math:`w_i y_i` having met at most ``rounds`` roundings and :math:`\tilde S` the
    weights' sum correctly rounded.

    Each term :math:`|w_i y_i| \le w_i`, so :math:`|\tilde m/\tilde S - \sum_i w_i y_i / S| \le \alpha` with
    :math:`\alpha = \gamma_{r+1} + 2^{-1072}/w_\min` (:func:`pdp_lib.mechanisms.lattice.sums_rounding_bound` in one
    dimension, as for SSP's moment), in each of two neighbouring tables: the computed centres differ by at most
    :math:`2 w_i/S + 2\alpha`, and by :math:`\gamma` more once rounded to the grid.  So the spread is
    :math:`2/S_{lo} + (2\alpha + \gamma)/w_\min` (the Laplace scale, or the Gaussian's standard deviation), with
    :math:`S_{lo} = \tilde S(1 - 2^{-52}) \le S`: every quantity rational and on the safe side.
    """
    check_release_levels(float(total), float(weight_min))
    S_lo = Fraction(float(total)) * (1 - Fraction(1, 1 << 52))
    smallest = Fraction(float(weight_min))
    return _on_the_grid(S_lo, smallest, 2 * sums_rounding_bound(rounds, 1, smallest))


def mean_from_sums(label_sum: float, total: float, weight_min: float, n: int, rounds: int, rng=None, *,
                   gaussian: bool, sampler: str = "exact") -> tuple:
    r"""The private mean from streamed sums: ``(value, calibration)``.

    ``label_sum`` is :math:`\sum_i w_i y_i` as the sums hold it (the intercept's coordinate of
    :class:`pdp_lib.io.streaming.Sums`'s ``moment``, whose feature is exactly 1), ``total`` the weights' sum correctly
    rounded, ``weight_min`` the smallest weight: the levels (pure DP, Laplace noise) or :math:`\mu^*(\varepsilon_i,
    \delta)` (``gaussian=True``).  ``sampler="exact"``: the lattice release calibrated by
    :func:`sums_mean_calibration` for :func:`pdp_lib.mechanisms.lattice.rounds_bound` of ``n`` (so that the noise does
    not depend on the rows' layout; the sums' own ``rounds`` must not exceed it).  ``"float"``: the noise over the
    reals, :math:`2/S` (Laplace scale or standard deviation), added in floating point.
    """
    sampler = check_sampler(sampler)
    if sampler == "float":
        gen = check_rng(rng)
        scale = SENSITIVITY / float(total)
        noise = gen.normal(scale=scale) if gaussian else gen.laplace(scale=scale)
        return float(label_sum) / float(total) + noise, MeanCalibration(scale=scale)
    bound = check_sums_rounds(rounds, n)
    bits = random_bits(rng)
    cal = sums_mean_calibration(total, weight_min, bound)
    return _draw_on_grid(Fraction(float(label_sum)) / Fraction(float(total)), cal, bits, gaussian), cal


def private_mean(y, epsilons, rng=None, *, delta=None, sampler="exact") -> float:
    r"""The re-weighted mean label released with noise: point ``i`` gets ``epsilon_i``-DP (or ``(epsilon_i, delta)``).

    Parameters
    ----------
    y : array-like of shape (n,)
        The labels, in ``[-1, 1]`` (map them with public bounds first, as for :func:`pdp_lib.pdp_op`).
    epsilons : array-like of shape (n,)
        The levels, ``> 0``.
    rng : None, int, numpy.random.Generator or RandomBits
        The noise's source (``None`` with ``sampler="exact"``: the operating system's cryptographic source).
    delta : None or float
        ``None``: pure DP, Laplace noise.  In ``(0, 1)``: Gaussian noise, weights ``mu*(epsilon_i, delta)``.
    sampler : {"exact", "float"}, default "exact"
        ``"exact"``: the release of the module docstring, safe in floating point.  ``"float"``: NumPy's Laplace
        or normal draw added in floating point, exact only over the reals.

    Returns
    -------
    float
        :math:`\hat m`, the prediction for every row.
    """
    y = check_labels(y)
    eps = check_epsilons(epsilons, y.size)
    sampler = check_sampler(sampler)
    weights = eps
    if delta is not None:
        from ..gaussian_curves import tolerated_gaussian_mus

        delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
        weights = tolerated_gaussian_mus(eps, delta)
    if sampler == "float":
        gen = check_rng(rng)
        w = weights / weights.sum()
        scale = mean_calibration(weights, exact=False).scale
        noise = gen.laplace(scale=scale) if delta is None else gen.normal(scale=scale)
        return float(w @ y + noise)
    bits = random_bits(rng)
    mean = _weighted_label_sum(weights, y) / _exact_sum(weights)                        # exactly
    return _draw_on_grid(mean, mean_calibration(weights), bits, delta is not None)


def _weighted_label_sum(weights: np.ndarray, y: np.ndarray) -> Fraction:
    """:math:`\\sum_i w_i y_i` exactly, from the doubles."""
    from .exponential import dyadic_integers

    w_ints, w_scale = dyadic_integers(weights)
    y_ints, y_scale = dyadic_integers(y)
    return Fraction(sum(int(a) * int(b) for a, b in zip(w_ints, y_ints)), w_scale * y_scale)
