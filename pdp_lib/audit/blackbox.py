r"""Black-box audits: Clopper--Pearson lower bounds on ``epsilon`` from samples of the mechanism.

Sample the mechanism on ``D`` and ``D'`` (:func:`sample_mechanism`), score the outputs
(:func:`projection_scores`, :func:`likelihood_ratio_scores`), build a threshold test on a
held-out half and turn its error rates into a Clopper--Pearson lower bound on ``epsilon``
(:func:`threshold_audit`; Clopper and Pearson 1934; Jagielski et al. 2020);
:func:`audit_pair` runs both tests on one pair of datasets.  Used in the book's chapters
*Privacy of PDP-OP* (``book/privacy.ipynb``) and *What the guarantee does not cover*
(``book/limits.ipynb``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..mechanisms.output_perturbation import run_pdp_op, calibrate, weighted_ridge
from ..validation import check_count, check_finite, check_fraction, check_rng
from .privacy_loss import log_density_ratio

__all__ = ["sample_mechanism", "projection_scores", "likelihood_ratio_scores", "clopper_pearson",
           "epsilon_lower_bound", "AuditResult", "threshold_audit", "PairAudit", "audit_pair"]


def sample_mechanism(X, y, epsilons, lam, size, B=None, rng=None) -> np.ndarray:
    r"""``size`` independent outputs of PDP-OP on one dataset (Algorithm 1), vectorized.

    Runs the library's one assembly of Algorithm 1 (the one behind :func:`pdp_lib.pdp_op`:
    :func:`pdp_lib.calibrate`, the weighted ridge of eq. (2), then ``size`` draws of
    :func:`pdp_lib.sample_l2_laplace` around it), so the draws have exactly the distribution
    of :func:`pdp_lib.pdp_op` with ``sampler="float"`` (``size = 1`` reproduces it draw for draw from the same seed):
    the floating-point sampler, asked for explicitly, whose law over the reals the audit tests.

    Returns
    -------
    numpy.ndarray of shape (size, d)
    """
    size = check_count(size, "size")
    return run_pdp_op(X, y, epsilons, lam, B, rng, size=size, sampler="float")[0]


def projection_scores(outputs, theta_a, theta_b) -> np.ndarray:
    r"""Score ``e^T (o - (theta_a + theta_b)/2)`` with ``e`` the unit vector from ``theta_b`` to ``theta_a``.

    Large scores point to ``theta_a``.  The test only uses the direction of the
    difference, the natural statistic of an auditor who knows the two candidate
    datasets.
    """
    o = check_finite(outputs, "outputs", ndim=(2,))
    ta = check_finite(theta_a, "theta_a", ndim=(1,))
    tb = check_finite(theta_b, "theta_b", ndim=(1,))
    diff = ta - tb
    nrm = np.linalg.norm(diff)
    if nrm == 0:
        raise ValueError("theta_a and theta_b coincide: no direction to project on")
    return (o - 0.5 * (ta + tb)) @ (diff / nrm)


def likelihood_ratio_scores(outputs, theta_a, theta_b, eta) -> np.ndarray:
    """The log likelihood ratio ``eta (||o - theta_b|| - ||o - theta_a||)``: the Neyman--Pearson statistic."""
    return log_density_ratio(outputs, theta_a, eta, theta_b, eta)


def clopper_pearson(k, n, alpha=0.05, side="upper"):
    r"""Exact one-sided Clopper--Pearson bound for a binomial proportion (Clopper and Pearson 1934).

    ``side="upper"``: the ``p_hi`` with ``P[Bin(n, p_hi) <= k] = alpha``
    (``1`` when ``k = n``), i.e. the ``1 - alpha`` quantile of ``Beta(k + 1, n - k)``;
    ``side="lower"``: the ``p_lo`` with ``P[Bin(n, p_lo) >= k] = alpha`` (``0`` when
    ``k = 0``), the ``alpha`` quantile of ``Beta(k, n - k + 1)``.  Each covers the
    true proportion with probability at least ``1 - alpha``.

    Parameters
    ----------
    k : int or array of int
        Successes, ``0 <= k <= n``.
    n : int
        Trials, ``n >= 1``.
    alpha : float
        In ``(0, 1)``.
    side : {'upper', 'lower'}

    Returns
    -------
    float or numpy.ndarray
    """
    n = check_count(n, "n")
    alpha = check_fraction(alpha, "alpha", closed_low=False, closed_high=False)
    k_arr = np.asarray(k)
    if not np.issubdtype(k_arr.dtype, np.integer):
        raise TypeError(f"k must be an integer count, got dtype {k_arr.dtype}")
    bad = (k_arr < 0) | (k_arr > n)
    if np.any(bad):
        first = int(np.flatnonzero(np.ravel(bad))[0])
        raise ValueError(f"k[{first}] = {int(np.ravel(k_arr)[first])} is outside the allowed range [0, {n}]")
    kf = k_arr.astype(float)
    if side == "upper":
        out = np.where(k_arr >= n, 1.0, stats.beta.ppf(1.0 - alpha, kf + 1.0, np.maximum(n - kf, 1e-300)))
    elif side == "lower":
        out = np.where(k_arr <= 0, 0.0, stats.beta.ppf(alpha, np.maximum(kf, 1e-300), n - kf + 1.0))
    else:
        raise ValueError(f"side = {side!r} is not allowed; use 'upper' or 'lower'")
    return float(out) if np.ndim(out) == 0 else out


def epsilon_lower_bound(true_positives, n_positive, false_positives, n_negative, alpha=0.05):
    r"""Lower confidence bound on ``epsilon`` from the error counts of one test.

    A test that says "``D``" on the event ``O`` has true positive rate
    ``TPR = P[M(D) in O]`` and false positive rate ``FPR = P[M(D') in O]``;
    ``epsilon``-DP (Definition 2.2, applied to ``O`` and to its complement) forces

    .. math::

        \varepsilon \ge \log\frac{TPR}{FPR},\qquad
        \varepsilon \ge \log\frac{1 - FPR}{1 - TPR}.

    Replacing ``TPR`` by its Clopper--Pearson lower bound and ``FPR`` by its
    upper bound, each at level ``alpha / 2``, gives a bound that holds with
    probability at least ``1 - alpha`` (Jagielski et al. 2020).  Returns
    ``max(0, ...)``: a negative value carries no information.

    Returns
    -------
    float
    """
    tpr_lo = clopper_pearson(true_positives, n_positive, alpha / 2, "lower")
    fpr_hi = clopper_pearson(false_positives, n_negative, alpha / 2, "upper")
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.log(tpr_lo) - np.log(fpr_hi)
        b = np.log1p(-fpr_hi) - np.log1p(-tpr_lo)
    out = np.maximum(np.maximum(a, b), 0.0)
    out = np.where(np.isnan(out), 0.0, out)
    return float(out) if np.ndim(out) == 0 else out


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`threshold_audit`.

    Attributes
    ----------
    epsilon_lower : float
        Clopper--Pearson lower bound on ``epsilon`` (confidence ``1 - alpha``),
        computed on the evaluation half only.
    threshold : float
        The threshold chosen on the selection half.
    tpr, fpr : float
        Empirical rates of the test on the evaluation half.
    n_eval : int
        Draws per dataset in the evaluation half.
    alpha : float
    """

    epsilon_lower: float
    threshold: float
    tpr: float
    fpr: float
    n_eval: int
    alpha: float


def threshold_audit(scores_d, scores_dprime, alpha=0.05, n_thresholds=400) -> AuditResult:
    r"""Black-box audit: the best threshold test on scores of ``M(D)`` versus ``M(D')``.

    The first half of each sample chooses the threshold ``tau`` (among
    ``n_thresholds`` quantiles of the pooled scores) that maximizes the bound of
    :func:`epsilon_lower_bound` on that half, at the Bonferroni level
    ``alpha / n_thresholds`` so that thresholds with well-estimated rates win;
    the second half, untouched by the
    choice, evaluates the test "``score > tau`` means ``D``" and gives the
    reported lower bound.  Choosing on one half and certifying on the other
    keeps the Clopper--Pearson confidence level valid.

    Parameters
    ----------
    scores_d, scores_dprime : array-like of shape (m,)
        Scores of independent outputs of the mechanism on ``D`` and on ``D'``;
        larger scores should point to ``D``.
    alpha : float, default 0.05
        One minus the confidence level.
    n_thresholds : int, default 400

    Returns
    -------
    AuditResult
    """
    sd = check_finite(scores_d, "scores_d", ndim=(1,))
    sp = check_finite(scores_dprime, "scores_dprime", ndim=(1,))
    alpha = check_fraction(alpha, "alpha", closed_low=False, closed_high=False)
    n_thresholds = check_count(n_thresholds, "n_thresholds")
    if len(sd) < 4 or len(sp) < 4:
        raise ValueError("need at least 4 scores per dataset")
    hd, hp = len(sd) // 2, len(sp) // 2
    sel_d, ev_d = np.sort(sd[:hd]), sd[hd:]
    sel_p, ev_p = np.sort(sp[:hp]), sp[hp:]
    pooled = np.concatenate([sel_d, sel_p])
    taus = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, n_thresholds)))
    tp = hd - np.searchsorted(sel_d, taus, side="right")
    fp = hp - np.searchsorted(sel_p, taus, side="right")
    # a Bonferroni-corrected level on the selection half favours thresholds whose rates are
    # well estimated (without it the maximum over thresholds drifts to lucky far tails)
    sel_eps = epsilon_lower_bound(tp, hd, fp, hp, alpha / len(taus))
    tau = float(taus[int(np.argmax(sel_eps))])
    n_d, n_p = len(ev_d), len(ev_p)
    tp_e = int(np.sum(ev_d > tau))
    fp_e = int(np.sum(ev_p > tau))
    eps_lo = epsilon_lower_bound(tp_e, n_d, fp_e, n_p, alpha)
    return AuditResult(epsilon_lower=eps_lo, threshold=tau, tpr=tp_e / n_d, fpr=fp_e / n_p,
                       n_eval=min(n_d, n_p), alpha=alpha)


@dataclass(frozen=True)
class PairAudit:
    """Outcome of :func:`audit_pair`: the exact privacy loss of a pair and two audits of it.

    Attributes
    ----------
    exact : float
        ``eta * ||theta_bar(D) - theta_bar(D')||``, the exact privacy loss of the pair
        (Lemma A.5, sharpened).
    projection : AuditResult
        The threshold audit on :func:`projection_scores`.
    likelihood_ratio : AuditResult
        The threshold audit on :func:`likelihood_ratio_scores`.
    """

    exact: float
    projection: AuditResult
    likelihood_ratio: AuditResult


def audit_pair(X_a, y_a, X_b, y_b, epsilons, lam, size, rng=None) -> PairAudit:
    r"""Black-box audits of PDP-OP on two datasets ``D = (X_a, y_a)`` and ``D' = (X_b, y_b)``.

    Derived in the book's chapter *Privacy of PDP-OP* (``book/privacy.ipynb``), section
    *A black-box audit*: calibrate with the profile ``epsilons`` (Theorem 3.1), draw ``size``
    outputs of the mechanism on ``D`` and then ``size`` on ``D'`` (:func:`sample_mechanism`,
    in this order, from one generator), and run :func:`threshold_audit` on the
    :func:`projection_scores` and on the :func:`likelihood_ratio_scores` of the draws.  Each
    audit's lower bound is at most the exact loss of the pair, up to its confidence level.

    Parameters
    ----------
    X_a, X_b : array-like of shape (n, d)
    y_a, y_b : array-like of shape (n,)
        Two datasets that differ in one slot.
    epsilons : array-like of shape (n,)
        The privacy profile, the same for both.
    lam : float
        ``lam > 0``.
    size : int
        Draws per dataset (half choose each test's threshold, half certify).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    PairAudit
    """
    gen = check_rng(rng)
    cal = calibrate(epsilons, lam, np.shape(X_a)[1])
    ta = weighted_ridge(X_a, y_a, cal.weights, lam)
    tb = weighted_ridge(X_b, y_b, cal.weights, lam)
    sa = sample_mechanism(X_a, y_a, epsilons, lam, size, rng=gen)
    sb = sample_mechanism(X_b, y_b, epsilons, lam, size, rng=gen)
    projection = threshold_audit(projection_scores(sa, ta, tb), projection_scores(sb, ta, tb))
    likelihood = threshold_audit(likelihood_ratio_scores(sa, ta, tb, cal.eta),
                                 likelihood_ratio_scores(sb, ta, tb, cal.eta))
    return PairAudit(exact=cal.eta * np.linalg.norm(ta - tb), projection=projection,
                     likelihood_ratio=likelihood)
