r"""Accuracy of PDP-OP (Theorem 3.3): the bound term by term, a sharper bound, and a simulation.

Under Assumption 3.2 (``y_i = x_i^T theta* + N(0, sigma^2)``), with
``A = sum_i w_i x_i x_i^T`` and ``H = A + lam I``,

.. math::

    \hat\theta - \theta^* = \underbrace{-\lambda H^{-1}\theta^*}_{\text{ridge bias}}
      + \underbrace{H^{-1} S}_{\text{label noise}} + \underbrace{Z}_{\text{privacy noise}},
    \qquad S = \sum_i w_i x_i Z_i ,

and Theorem 3.3 bounds the three norms separately, each failing with
probability at most ``delta/2`` (the ridge bias is deterministic):

.. math::

    \|\theta^* - \hat\theta\| \le \frac{\|\theta^*\|}{1 + \lambda_{\min}(A)/\lambda}
      + \frac{1}{\eta}\Big(d + \sqrt{2d/\delta}\Big)
      + \frac{\sigma}{\lambda}\sqrt{2d/\delta}\;\|w\|_2 .

:func:`accuracy_bound` evaluates it as printed; :func:`sharp_accuracy_bound`
replaces each step by its exact or sharper counterpart (exact bias, exact Gamma
quantile, Gaussian concentration with the exact covariance); and
:func:`simulate_accuracy` draws the three terms and the error, vectorized over
runs, with the mechanism's own solver and sampler.  Derived and checked in the
book's chapter *Accuracy of PDP-OP* (``book/accuracy.ipynb``).

Labels drawn under Assumption 3.2 may leave ``[-1, 1]``: the privacy theorems
do not cover such data, and the public mechanism refuses them.  The
simulation therefore calls the mechanism's unchecked internals
(``pdp_lib.mechanisms.output_perturbation.weighted_ridge_unchecked`` and ``sample_l2_laplace_unchecked``) so that the
accuracy statement can be checked on exactly the data it is about.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .bounds import noise_norm_chebyshev, noise_norm_quantile
from .mechanisms.output_perturbation import sample_l2_laplace_unchecked, weighted_ridge_unchecked, calibrate
from .validation import (
    check_count,
    check_features,
    check_finite,
    check_fraction,
    check_positive,
    check_rng,
    check_weights,
)

__all__ = ["AccuracyTerms", "accuracy_bound", "sharp_accuracy_bound", "AccuracyRuns",
           "simulate_accuracy", "accuracy_grid", "terms_sweep", "TERMS"]

TERMS = ("bias", "privacy", "label", "total")
"""The parts of an accuracy bound, in the order of eq. (3.3), and their sum."""


@dataclass(frozen=True)
class AccuracyTerms:
    """The three terms of an accuracy bound (Theorem 3.3).

    Attributes
    ----------
    bias : float
        Ridge bias term (deterministic).
    privacy : float
        Radius for the privacy noise ``||Z||`` (fails with probability <= delta/2).
    label : float
        Radius for the label-noise term (fails with probability <= delta/2).
    """

    bias: float
    privacy: float
    label: float

    @property
    def total(self) -> float:
        """``bias + privacy + label``: holds with probability at least ``1 - delta``."""
        return self.bias + self.privacy + self.label


def _check_sigma(sigma) -> float:
    s = float(sigma)
    if not math.isfinite(s) or s < 0:
        raise ValueError(f"sigma = {s!r} is outside the allowed range [0, inf)")
    return s


def _gram(X, weights, lam):
    X = check_features(X)
    w = check_weights(weights, X.shape[0])
    lam = check_positive(lam, "lam")
    A = (X * w[:, None]).T @ X
    return X, w, lam, A


def accuracy_bound(X, weights, lam, eta, theta_norm, sigma, delta) -> AccuracyTerms:
    r"""Theorem 3.3 as printed: bias, privacy-noise and label-noise terms.

    .. math::

        \frac{\|\theta^*\|}{1 + \lambda_{\min}(A)/\lambda},\qquad
        \frac{1}{\eta}\Big(d + \sqrt{2d/\delta}\Big),\qquad
        \frac{\sigma}{\lambda}\sqrt{2d/\delta}\,\|w\|_2 .

    With probability at least ``1 - delta`` over the label noise and the
    privacy noise, ``||theta* - theta_hat|| <= total``.  Derived step by step in
    the book's chapter *Accuracy of PDP-OP* (``book/accuracy.ipynb``).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Features in ``[0, 1]`` (the proof uses ``||x_i|| <= sqrt(d)``).
    weights : array-like of shape (n,)
        Weights summing to one.
    lam : float
        ``lambda > 0``.
    eta : float
        Noise parameter, ``eta > 0``.
    theta_norm : float
        ``||theta*||``, ``>= 0``.
    sigma : float
        Label-noise standard deviation, ``>= 0``.
    delta : float
        Failure probability, in ``(0, 1)``.

    Returns
    -------
    AccuracyTerms
    """
    X, w, lam, A = _gram(X, weights, lam)
    d = X.shape[1]
    eta = check_positive(eta, "eta")
    tn = float(theta_norm)
    if not math.isfinite(tn) or tn < 0:
        raise ValueError(f"theta_norm = {tn!r} is outside the allowed range [0, inf)")
    sigma = _check_sigma(sigma)
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    lmin = max(float(np.linalg.eigvalsh(A)[0]), 0.0)
    bias = tn / (1.0 + lmin / lam)
    privacy = noise_norm_chebyshev(eta, d, delta)
    label = sigma / lam * math.sqrt(2.0 * d / delta) * float(np.linalg.norm(w))
    return AccuracyTerms(bias=bias, privacy=privacy, label=label)


def sharp_accuracy_bound(X, weights, lam, eta, theta_star, sigma, delta) -> AccuracyTerms:
    r"""Theorem 3.3 with every step sharpened (still a ``1 - delta`` bound).

    * bias: the exact ``||lam H^{-1} theta*||`` instead of
      ``||theta*|| / (1 + lambda_min(A)/lam)``;
    * privacy noise: the exact ``1 - delta/2`` quantile of ``||Z|| ~ Gamma(d, eta)``
      (:func:`pdp_lib.bounds.noise_norm_quantile`) instead of Chebyshev;
    * label noise: ``G = H^{-1} S`` is Gaussian with covariance
      ``C = sigma^2 H^{-1} (sum_i w_i^2 x_i x_i^T) H^{-1}``; the norm is
      1-Lipschitz, so (Gaussian concentration) ``P[||G|| >= sqrt(tr C) + t] <=
      exp(-t^2 / (2 ||C||))`` and the radius ``sqrt(tr C) + sqrt(2 ||C|| log(2/delta))``
      fails with probability at most ``delta/2``; the paper instead divides by
      ``lam`` rather than applying ``H^{-1}`` and uses Markov's inequality on
      ``||S||^2``.

    Parameters
    ----------
    X, weights, lam, eta, sigma, delta
        As in :func:`accuracy_bound`.
    theta_star : array-like of shape (d,)
        The true parameter.

    Returns
    -------
    AccuracyTerms
    """
    X, w, lam, A = _gram(X, weights, lam)
    d = X.shape[1]
    eta = check_positive(eta, "eta")
    ts = check_finite(theta_star, "theta_star", ndim=(1,))
    if ts.shape[0] != d:
        raise ValueError(f"theta_star has {ts.shape[0]} entries but X has d = {d} columns")
    sigma = _check_sigma(sigma)
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    H = A + lam * np.eye(d)
    Hinv = np.linalg.inv(H)
    bias = float(np.linalg.norm(lam * Hinv @ ts))
    privacy = noise_norm_quantile(eta, d, 1.0 - delta / 2.0)
    Sig = sigma**2 * (X * (w**2)[:, None]).T @ X
    C = Hinv @ Sig @ Hinv
    C = 0.5 * (C + C.T)
    ev = np.linalg.eigvalsh(C)
    label = math.sqrt(max(float(ev.sum()), 0.0)) + math.sqrt(2.0 * max(float(ev[-1]), 0.0)
                                                           * math.log(2.0 / delta))
    return AccuracyTerms(bias=bias, privacy=privacy, label=label)


@dataclass(frozen=True)
class AccuracyRuns:
    """Draws of the error decomposition of Theorem 3.3.

    Attributes
    ----------
    error : numpy.ndarray of shape (runs,)
        ``||theta* - theta_hat||``.
    bias : float
        ``||theta_bar_clean - theta*||`` with ``theta_bar_clean`` the solution on
        noiseless labels, ``= ||lam H^{-1} theta*||``.
    privacy : numpy.ndarray of shape (runs,)
        ``||Z||``.
    label : numpy.ndarray of shape (runs,)
        ``||H^{-1} S||``, the label-noise part of ``theta_bar``.
    s_norm : numpy.ndarray of shape (runs,)
        ``||S||``, ``S = sum_i w_i x_i Z_i`` (the quantity Markov's inequality is applied to).
    labels_in_domain : numpy.ndarray of shape (runs,)
        Whether every label of the run lay in ``[-1, 1]``.
    """

    error: np.ndarray
    bias: float
    privacy: np.ndarray
    label: np.ndarray
    s_norm: np.ndarray
    labels_in_domain: np.ndarray


def simulate_accuracy(X, theta_star, weights, lam, eta, sigma, runs, rng=None) -> AccuracyRuns:
    r"""Run PDP-OP ``runs`` times on fresh label noise (Assumption 3.2) and record the error terms.

    Each run draws ``y = X theta* + N(0, sigma^2 I)``, solves eq. (2) with the
    mechanism's solver (all runs at once: the solver takes a matrix of label
    vectors) and adds ``Z`` from the mechanism's sampler.  The features ``X``
    are held fixed (Theorem 3.3 is conditional on them).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Features in ``[0, 1]``.
    theta_star : array-like of shape (d,)
    weights : array-like of shape (n,)
    lam, eta : float
    sigma : float
        ``>= 0``.
    runs : int
        ``>= 1``.
    rng : None, int or numpy.random.Generator
        Label noise and privacy noise come from two generators spawned from it.

    Returns
    -------
    AccuracyRuns
    """
    X, w, lam, _ = _gram(X, weights, lam)
    n, d = X.shape
    ts = check_finite(theta_star, "theta_star", ndim=(1,))
    if ts.shape[0] != d:
        raise ValueError(f"theta_star has {ts.shape[0]} entries but X has d = {d} columns")
    eta = check_positive(eta, "eta")
    sigma = _check_sigma(sigma)
    runs = check_count(runs, "runs")
    gen = check_rng(rng)
    g_label, g_noise = gen.spawn(2)
    clean = X @ ts
    noise = sigma * g_label.standard_normal((n, runs))
    Y = clean[:, None] + noise
    # eq. (2) is linear in the labels: theta_bar = theta_bar(clean) + theta_bar(noise), each
    # solved by the mechanism's solver (all runs at once: it takes a matrix of label vectors)
    theta_clean = weighted_ridge_unchecked(X, clean, w, lam)
    theta_noise = weighted_ridge_unchecked(X, noise, w, lam).T  # (runs, d) = H^{-1} S
    theta_bar = theta_clean[None, :] + theta_noise
    Z = sample_l2_laplace_unchecked(eta, d, runs, g_noise)
    theta_hat = theta_bar + Z
    S = ((X * w[:, None]).T @ noise).T
    return AccuracyRuns(
        error=np.linalg.norm(theta_hat - ts, axis=1),
        bias=float(np.linalg.norm(theta_clean - ts)),
        privacy=np.linalg.norm(Z, axis=1),
        label=np.linalg.norm(theta_noise, axis=1),
        s_norm=np.linalg.norm(S, axis=1),
        labels_in_domain=np.all(np.abs(Y) <= 1.0, axis=0),
    )


def accuracy_grid(X, theta_star, epsilons, lams, sigmas, deltas, runs, rng=None) -> list:
    r"""Theorem 3.3 and its sharpened form against the mechanism, over a grid of settings.

    For every privacy profile, ``lambda`` and ``sigma`` (in this order, each drawing from
    ``rng`` in turn), :func:`simulate_accuracy` runs PDP-OP ``runs`` times; for every
    ``delta`` the runs are compared with :func:`accuracy_bound` and
    :func:`sharp_accuracy_bound`.  The book's chapter *Accuracy of PDP-OP*
    (``book/accuracy.ipynb``), section *The bound against the mechanism*, asserts on the
    returned counts that each bound is exceeded no more often than ``delta`` allows.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Features in ``[0, 1]``, fixed.
    theta_star : array-like of shape (d,)
    epsilons : mapping
        Profile name -> privacy levels of shape ``(n,)``, calibrated with
        :func:`pdp_lib.mechanisms.output_perturbation.calibrate` (Theorem 3.1) for each ``lambda``.
    lams, sigmas, deltas : sequences of float
    runs : int
        Runs per ``(profile, lambda, sigma)``.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    list of dict
        One record per ``(profile, lambda, sigma, delta)``, with the keys ``profile``,
        ``lam``, ``sigma``, ``delta``; ``paper`` and ``sharp`` (the two bounds); ``q`` (the
        empirical ``(1 - delta)``-quantile of the error); ``k_paper``, ``k_sharp`` (runs whose
        error exceeds each bound) and ``f_paper``, ``f_sharp`` (the same as fractions);
        ``in_domain`` (the fraction of runs with every label in ``[-1, 1]``).
    """
    X = check_features(X)
    d = X.shape[1]
    ts = check_finite(theta_star, "theta_star", ndim=(1,))
    runs = check_count(runs, "runs")
    gen = check_rng(rng)
    records = []
    for pname, eps in epsilons.items():
        for lam in lams:
            cal = calibrate(eps, lam, d)
            for sigma in sigmas:
                sim = simulate_accuracy(X, ts, cal.weights, lam, cal.eta, sigma, runs, rng=gen)
                for dl in deltas:
                    paper = accuracy_bound(X, cal.weights, lam, cal.eta, np.linalg.norm(ts),
                                           sigma, dl)
                    sharp = sharp_accuracy_bound(X, cal.weights, lam, cal.eta, ts, sigma, dl)
                    k_paper = int(np.sum(sim.error > paper.total))
                    k_sharp = int(np.sum(sim.error > sharp.total))
                    records.append(dict(profile=pname, lam=lam, sigma=sigma, delta=dl,
                                        paper=paper.total, sharp=sharp.total,
                                        q=np.quantile(sim.error, 1 - dl),
                                        k_paper=k_paper, k_sharp=k_sharp,
                                        f_paper=k_paper / runs, f_sharp=k_sharp / runs,
                                        in_domain=sim.labels_in_domain.mean()))
    return records


def terms_sweep(X, theta_star, epsilons, lams, sigma, delta, runs, rng=None) -> dict:
    r"""Each term of Theorem 3.3 next to the quantity it bounds, over a sweep of ``lambda``.

    For every ``lambda`` (calibrated with :func:`pdp_lib.mechanisms.output_perturbation.calibrate`, Theorem 3.1),
    :func:`simulate_accuracy` runs PDP-OP ``runs`` times, drawing from ``rng`` in turn.  The
    book's chapter *Accuracy of PDP-OP* (``book/accuracy.ipynb``), section *Term by term*,
    asserts that every term is at least its quantity and draws both against ``lambda``.

    Parameters
    ----------
    X : array-like of shape (n, d)
    theta_star : array-like of shape (d,)
    epsilons : array-like of shape (n,)
    lams : sequence of float
    sigma, delta : float
    runs : int
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict of numpy.ndarray of shape (len(lams),)
        For each name in :data:`TERMS`, the term of :func:`accuracy_bound`, and under
        ``"e_" + name`` what it bounds: the exact bias, the empirical
        ``(1 - delta/2)``-quantiles of ``||Z||`` and of ``||H^{-1} S||``, and the empirical
        ``(1 - delta)``-quantile of the error; ``"sharp"``: the total of
        :func:`sharp_accuracy_bound`.
    """
    X = check_features(X)
    d = X.shape[1]
    ts = check_finite(theta_star, "theta_star", ndim=(1,))
    gen = check_rng(rng)
    t = {k: [] for k in (*TERMS, *("e_" + k for k in TERMS), "sharp")}
    for lam in lams:
        cal = calibrate(epsilons, lam, d)
        sim = simulate_accuracy(X, ts, cal.weights, lam, cal.eta, sigma, runs, rng=gen)
        paper = accuracy_bound(X, cal.weights, lam, cal.eta, np.linalg.norm(ts), sigma, delta)
        for k in TERMS:
            t[k].append(getattr(paper, k))
        t["sharp"].append(sharp_accuracy_bound(X, cal.weights, lam, cal.eta, ts, sigma,
                                               delta).total)
        t["e_bias"].append(sim.bias)
        t["e_privacy"].append(np.quantile(sim.privacy, 1 - delta / 2))
        t["e_label"].append(np.quantile(sim.label, 1 - delta / 2))
        t["e_total"].append(np.quantile(sim.error, 1 - delta))
    return {k: np.array(v) for k, v in t.items()}
