r"""Private means per group of a public column: one private mean for each value the column takes.

When a column of the table is public (a region, a sex recorded in a public register, a treatment arm assigned by the
analyst), its value for every row may be read without spending anything, and the rows split into public groups.
Each group :math:`g` gets the private mean of its own labels (:func:`pdp_lib.mechanisms.private_mean.private_mean`):

.. math::

    \hat m_g = \sum_{i \in g} \frac{\varepsilon_i}{S_g} y_i + Z_g, \qquad S_g = \sum_{i \in g} \varepsilon_i,

with :math:`Z_g` Laplace of scale :math:`2/S_g` (or, under ``delta``, the weights :math:`\mu^*_i` and Gaussian noise
of standard deviation :math:`2/M_g`).  The model predicts :math:`\hat m_g` for a row of group :math:`g`.

**Privacy, and what it leaves out.**  The neighbouring tables are those that replace one row's label and private
features while keeping its public column (and its level, public as everywhere in the library), as the column is
public: then replacing row :math:`i` moves only its own
group's mean, by at most :math:`2\varepsilon_i/S_g`, so :math:`\hat m_g` gives it :math:`\varepsilon_i`-DP and the
other groups' releases do not read it (parallel composition).  The guarantee says nothing about the public column
itself: it is weaker than the other releases' of the library, which protect the whole row, and it holds only if the
column really is public.

**Use.**  Derived and measured in the book's chapter *Which mechanism, which λ* (section *sec-advice-groups*): on the
benchmark's evaluation tables, with each binary feature public in turn.  Its expected test loss has a closed form
(:func:`pdp_lib.io.comparison.group_mean_loss`).  Tested in ``tests/test_group_means.py``.
"""

from __future__ import annotations

import numpy as np

from ..validation import check_epsilons, check_labels, check_rng
from .exact_sampling import random_bits
from .lattice import check_sampler
from .private_mean import private_mean

__all__ = ["group_means"]


def group_means(groups, y, epsilons, rng=None, *, delta=None, sampler="exact") -> tuple:
    """The private mean of each public group's labels: every point ``epsilon_i``-DP (or ``(epsilon_i, delta)``)
    given the public column (module docstring).

    Parameters
    ----------
    groups : array-like of shape (n,)
        The public column: whole numbers, as integers or floats (a binary feature's 0 and 1, or codes), or
        booleans; any other value is refused.
    y : array-like of shape (n,)
        The labels, in ``[-1, 1]``.
    epsilons : array-like of shape (n,)
        The levels, ``> 0``.
    rng : None, int, numpy.random.Generator or RandomBits
        The noise's source, shared by the groups in order (``None`` with ``sampler="exact"``: the operating
        system's cryptographic source).
    delta : None or float
        ``None``: pure DP.  In ``(0, 1)``: Gaussian noise, each group's weights ``mu*(epsilon_i, delta)``.
    sampler : {"exact", "float"}, default "exact"
        As in :func:`pdp_lib.mechanisms.private_mean.private_mean`, group by group.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The distinct values of ``groups`` in increasing order, and each one's released mean.  A value with no row
        gets no release: predict 0, the label range's midpoint, for it (as
        :func:`pdp_lib.io.comparison.group_mean_loss` assumes), which spends nothing.
    """
    y = check_labels(y)
    eps = check_epsilons(epsilons, y.size)
    groups = np.asarray(groups)
    if groups.shape != y.shape:
        raise ValueError(f"groups has shape {groups.shape}; it must have the labels' shape {y.shape}")
    if np.issubdtype(groups.dtype, np.floating):         # a binary feature read as floats: whole numbers only
        bad = np.flatnonzero(~np.isfinite(groups) | (groups != np.round(groups)))
        if bad.size:
            raise ValueError(f"groups[{bad[0]}] = {float(groups[bad[0]])!r} is not a whole number; a public "
                             f"column's codes are whole numbers (a binary feature's 0 and 1)")
    elif not (np.issubdtype(groups.dtype, np.integer) or groups.dtype == np.bool_):
        raise TypeError(f"groups must hold whole numbers or booleans (a public column's codes), got dtype "
                        f"{groups.dtype}")
    sampler = check_sampler(sampler)
    source = random_bits(rng) if sampler == "exact" else check_rng(rng)   # one stream for every group
    values = np.unique(groups)
    means = np.array([private_mean(y[groups == v], eps[groups == v], source, delta=delta, sampler=sampler)
                      for v in values])
    return values, means
