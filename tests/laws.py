"""A shared check for the tests of exact samplers: a chi-square test of draws against cell probabilities."""

from __future__ import annotations

import numpy as np
from scipy import stats


def chi_square_pvalue(draws, cells, p) -> float:
    """The chi-square p-value of ``draws`` (hashable outcomes) against ``P(cells[j]) = p[j]``.

    Outcomes outside ``cells`` count in one more cell, of the remaining probability; cells expecting fewer than
    5 draws are pooled into one.
    """
    index = {k: j for j, k in enumerate(cells)}
    counts = np.zeros(len(cells) + 1)
    for k in draws:
        counts[index.get(k, len(cells))] += 1
    expected = np.append(p, max(1.0 - p.sum(), 0.0)) * len(draws)
    keep = expected >= 5                               # pool the sparse cells into one
    observed, want = counts[keep], expected[keep]
    if not keep.all():
        observed, want = np.append(observed, counts[~keep].sum()), np.append(want, expected[~keep].sum())
    return stats.chisquare(observed, want).pvalue
