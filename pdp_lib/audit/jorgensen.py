r"""The exact output density of Jorgensen et al.'s sampling baseline, for audits.

:func:`jorgensen_log_density` enumerates the samples of the mechanism of
:func:`pdp_lib.mechanisms.baselines.jorgensen` (``n <= 16``) and gives its exact log density, so its
privacy loss can be computed exactly.  Used in the book's chapter *What the guarantee does
not cover* (``book/limits.ipynb``).
"""

from __future__ import annotations

import math
from itertools import product

import numpy as np
from scipy.special import gammaln, logsumexp

from ..mechanisms.baselines import jorgensen_eta, jorgensen_keep_probabilities
from ..mechanisms.output_perturbation import weighted_ridge_unchecked
from ..validation import check_epsilons, check_features, check_finite, check_labels, check_positive

__all__ = ["jorgensen_log_density", "jorgensen_lattice_loss"]


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
        theta = weighted_ridge_unchecked(X[m], y[m], np.full(k, 1.0 / k), lam)
        terms.append(logp + d * np.log(eta) + log_c0 - eta * np.linalg.norm(o - theta, axis=1))
    return logsumexp(np.stack(terms), axis=0)


def jorgensen_lattice_loss(X, y, X_other, y_other, epsilons, lam, t, B=None, *, public_lattice=True) -> float:
    r"""The exact privacy loss, over every output, of Jorgensen's *exact* release between two datasets, ``d = 1``.

    The release (:func:`pdp_lib.mechanisms.baselines.jorgensen`, ``sampler="exact"``) keeps each point with its
    probability, then draws the lattice release on the ``k`` kept points: centre ``m_S`` and rate ``r_k`` from the
    library's own calibration (:func:`pdp_lib.mechanisms.lattice.lattice_calibration`,
    :func:`pdp_lib.mechanisms.lattice.lattice_centre`), noise :math:`P(j) = e^{-r_k|j|}/\coth(r_k/2)` on
    :math:`\mathbb{Z}` (the lattice law's normalizer in one dimension), output :math:`2^{-g}(m_S + j)`; the empty
    sample outputs ``0``.  The output's law is the mixture over all :math:`2^n` samples, for both datasets.

    Returns :math:`\sup_o |\log P_D(o)/P_{D'}(o)|`:

    * on every lattice point between the smallest and the largest centre (and a margin of 8 steps of the coarsest
      lattice), by evaluating both mixtures there;
    * beyond them, where every sample's term is :math:`a_S e^{-r_k z}` (the same function of ``z`` under both
      datasets for samples of the same size), by an upper bound within :data:`TAIL_SLACK` of the supremum
      (:func:`_tail_bound`).

    In double precision (log-sum-exp): the result carries a rounding error of order ``1e-14`` besides the tails'
    slack; the tests and the chapter compare it with levels far from it.

    ``public_lattice=True``: one lattice for every sample, :func:`pdp_lib.mechanisms.baselines.jorgensen_step_exponent`
    (the release as it is).  ``False``: each sample's own lattice, from its size (the release as it was before the
    lattice was fixed in advance), evaluated on the finest lattice, and the tails not bounded: a lower bound on that
    release's loss, which is what a negative control needs.

    Parameters
    ----------
    X, y, X_other, y_other : array-like
        Two datasets of the same ``n <= 12`` rows and ``d = 1`` feature, in the domain.
    epsilons : array-like of shape (n,)
        The levels (public, the same for both).
    lam, t : float
        ``lambda`` and the threshold.
    B : None, "sharp" or float
        As in :func:`pdp_lib.calibrate`.
    """
    from ..mechanisms.baselines import jorgensen_step_exponent
    from ..mechanisms.lattice import (lattice_calibration, lattice_centre, rounds_bound, sums_rounding_bound,
                                      weighted_sums)
    from ..validation import check_problem

    X, y, eps, lam = check_problem(X, y, epsilons, lam)
    X2, y2, _, _ = check_problem(X_other, y_other, epsilons, lam)
    n, d = X.shape
    if d != 1 or X2.shape != X.shape or n > 12:
        raise ValueError(f"X and X_other must both have shape (n, 1) with n <= 12, got {X.shape} and {X2.shape}")
    t = check_positive(t, "t")
    pi = jorgensen_keep_probabilities(eps, t)
    g_pub = jorgensen_step_exponent(n, t, lam, d, B)
    samples = []                          # (log prob, size, g, rate, centre under D, centre under D')
    for mask in product((False, True), repeat=n):
        m = np.array(mask)
        k = int(m.sum())
        probs = np.where(m, pi, 1.0 - pi)
        if k == 0 or np.any(probs == 0):
            continue
        levels = np.full(k, t)
        total = math.fsum(levels)
        g = g_pub if public_lattice else None
        cal = lattice_calibration(total, t, rounds_bound(k), lam, d, B, step_exponent=g)
        alpha = sums_rounding_bound(rounds_bound(k), d, t)
        centres = []
        for XX, yy in ((X, y), (X2, y2)):
            gram, moment, _ = weighted_sums(XX[m], yy[m], levels)
            centres.append(lattice_centre(gram, moment, total, lam, cal.step_exponent, alpha=alpha)[0])
        samples.append((float(np.sum(np.log(probs))), k, cal.step_exponent, float(cal.rate), *centres))
    empty = float(np.prod(1.0 - pi))
    G = max(s[2] for s in samples)
    coarse = 1 << (G - min(s[2] for s in samples))
    ends = [c << (G - s[2]) for s in samples for c in s[4:6]] + [0]
    z = np.arange(min(ends) - 8 * coarse, max(ends) + 8 * coarse + 1)

    def log_law(which: int) -> np.ndarray:
        terms = []
        for logp, k, g, rate, *centres in samples:
            step = 1 << (G - g)
            on = z % step == 0
            log_z = np.log(1.0 / np.tanh(rate / 2))
            term = np.full(z.shape, -np.inf)
            term[on] = logp - log_z - rate * np.abs(z[on] // step - centres[which])
            terms.append(term)
        if empty > 0:
            terms.append(np.where(z == 0, np.log(empty), -np.inf))
        return logsumexp(np.stack(terms), axis=0)

    loss = float(np.max(np.abs(log_law(0) - log_law(1))))
    if public_lattice:
        loss = max(loss, _tail_bound(samples, empty, int(z[-1]), 1.0), _tail_bound(samples, empty, int(-z[0]), -1.0))
    return loss


TAIL_SLACK = 1e-4
"""What :func:`jorgensen_lattice_loss` adds for the outputs between its grid points in the tails."""


def _tail_bound(samples, empty: float, start: int, sign: float) -> float:
    r"""An upper bound on :math:`|\log P_D/P_{D'}|` over the lattice points ``sign * z``, ``z >= start``.

    There every sample's term is :math:`a_S e^{-r_k z}` (all centres and the atom at 0 lie before ``start``);
    grouping samples by size, :math:`\log P = \log\sum_k A_k e^{-r_k z}`, whose slope in ``z`` lies in
    :math:`[-r_\max, -r_\min]` for both datasets, so the log-ratio moves by at most :math:`(r_\max - r_\min) h`
    over a step ``h``.  It is evaluated on a grid of step ``h`` with that drift at most :data:`TAIL_SLACK`, out to
    where every size but the slowest-decaying one has fallen below ``2**-60`` of it, and from there its limit
    (the slowest size's coefficients' ratio) bounds the rest within ``(sizes - 1) 2**-59``; in double precision.
    """
    by_size = {}
    for logp, k, g, rate, *centres in samples:
        by_size.setdefault((k, rate), []).append([logp - np.log(1.0 / np.tanh(rate / 2)) + sign * rate * c
                                                  for c in centres])
    keys = sorted(by_size)
    rates = np.array([r for _, r in keys])
    coef = np.array([logsumexp(np.array(by_size[key]), axis=0) for key in keys])     # (sizes, 2): log A_k, log A'_k
    slow = int(np.argmin(rates))
    limit = float(abs(coef[slow, 0] - coef[slow, 1]))
    if rates.size == 1:
        return limit
    spread = float(rates.max() - rates.min())
    gap = float(np.min(np.delete(rates, slow)) - rates[slow])
    # z - start beyond which every other size is below 2**-60 of the slowest one, under both datasets
    lead = float(np.max(np.delete(coef, slow, axis=0) - coef[slow]))
    far = max(0.0, (lead + 60 * np.log(2.0)) / gap)
    h = TAIL_SLACK / spread
    u = np.arange(0.0, far + h, h)
    logs = [logsumexp(coef[:, j][:, None] - rates[:, None] * (start + u)[None, :], axis=0) for j in (0, 1)]
    grid = float(np.max(np.abs(logs[0] - logs[1])))
    return max(grid + TAIL_SLACK, limit + (rates.size - 1) * 2.0 ** -59)
