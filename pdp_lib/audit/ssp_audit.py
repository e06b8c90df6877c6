r"""A black-box audit of sufficient-statistics perturbation (:mod:`pdp_lib.mechanisms.ssp`) on one pair of datasets.

The released statistics of ``D`` and ``D'`` are drawn ``size`` times each (the floating-point sampler, vectorized),
scored by their log-likelihood ratio :math:`\eta_A(\|o_A - c'_A\| - \|o_A - c_A\|) + \eta_b(\|o_b - c'_b\| -
\|o_b - c_b\|)`, and the best threshold test on the scores gives a Clopper--Pearson lower bound on the pair's
``epsilon`` (:func:`pdp_lib.audit.blackbox.threshold_audit`).  Beside it, the pair's exact loss
:math:`\eta_A\|c_A - c'_A\| + \eta_b\|c_b - c'_b\|`, which the bound must not exceed.

The scores are rounded to ``decimals`` places first.  Over the reals the ratio takes the values :math:`\pm` the exact
loss on whole regions of outputs; in floating point its last bits there depend on the centre the output was drawn
around, a leak of the floating-point sampler (not of the mechanism over the reals, and not of the library's lattice
release) that an unrounded audit detects as a loss above the level.  Used in the book's chapter *Beyond output
perturbation* (``book/beyond.ipynb``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..mechanisms.output_perturbation import sample_l2_laplace_unchecked
from ..mechanisms.ssp import SHARE, ssp_calibration
from ..validation import check_count, check_problem, check_rng
from .blackbox import AuditResult, threshold_audit

__all__ = ["SSPAudit", "ssp_audit"]


@dataclass(frozen=True)
class SSPAudit:
    """Outcome of :func:`ssp_audit`: the pair's exact loss and the audit's result."""

    exact: float
    audit: AuditResult


def _statistics(X, y, w, d):
    rows, cols = np.triu_indices(d)
    return ((X * w[:, None]).T @ X)[rows, cols], (X * w[:, None]).T @ y


def ssp_audit(X, y, X2, y2, epsilons, size, rng=None, *, share: float = SHARE, decimals=9) -> SSPAudit:
    """Audit SSP on ``D = (X, y)`` and ``D' = (X2, y2)`` (the same levels) with ``size`` releases of each.

    ``decimals=None`` leaves the scores unrounded (module docstring).
    """
    X, y, eps, _ = check_problem(X, y, epsilons)
    X2, y2, _, _ = check_problem(X2, y2, eps)
    size = check_count(size, "size", minimum=2)
    gen = check_rng(rng)
    d = X.shape[1]
    cal = ssp_calibration(float(eps.sum()), float(eps.min()), d, share)
    w = eps / eps.sum()
    first, second = _statistics(X, y, w, d), _statistics(X2, y2, w, d)
    etas, dims = (cal.eta_gram, cal.eta_moment), (d * (d + 1) // 2, d)
    exact = float(sum(e * np.linalg.norm(a - b) for e, a, b in zip(etas, first, second)))
    scores = []
    for centre in (first, second):
        out = [c + sample_l2_laplace_unchecked(e, k, size, gen) for c, e, k in zip(centre, etas, dims)]
        llr = sum(e * (np.linalg.norm(o - b, axis=1) - np.linalg.norm(o - a, axis=1))
                  for e, o, a, b in zip(etas, out, first, second))
        scores.append(llr if decimals is None else np.round(llr, decimals))
    return SSPAudit(exact=exact, audit=threshold_audit(*scores))
