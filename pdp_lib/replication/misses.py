r"""Why a published cell lies outside its band: the profile statistic each published value implies.

A cell of the paper is one Monte Carlo average over one random draw of the privacy profile (and,
for the synthetic data, of the data).  When a published value falls outside the rebuilt 95%
band, this module asks which value of the *latent statistic of the profile* the published
number implies, and whether one such value explains every cell that shares the paper's draw.

The statistic is the one the noise parameter depends on.  For output perturbation the expected
test loss is, by the exact mean of the chapter *Exact loss moments* (``book/moments.ipynb``,
theorem *thm-exact-loss-moments*; eq. ``eq-mean-loss`` of the book's chapter *PDP-OP against
standard DP*),

.. math::

    \mathbb E_Z\,L(\bar\theta + Z) = L(\bar\theta) + \frac{(d+1)\operatorname{tr}A}{\eta^2},
    \qquad
    \operatorname{Var}_Z L = \frac{4(d+1)\|g\|^2}{\eta^2}
        + \frac{2(d+1)\bigl((\operatorname{tr}A)^2 + (d+3)\operatorname{tr}(A^2)\bigr)}{\eta^4},

and the noise parameter is :math:`\eta = S / c(\lambda)` with :math:`c(\lambda) = 2\sqrt d
(1 + \sqrt d B(\lambda))/\lambda` (Theorem 3.1) and

* :math:`S = \sum_i \varepsilon_i` for PDP-OP (Theorem 3.1; the weights
  :math:`\varepsilon_i / S` move :math:`\bar\theta` too, so :math:`L(\bar\theta)` depends on the
  profile and is carried as an uncertainty);
* :math:`S = n \min_i \varepsilon_i` for the non-personalized baseline (uniform weights:
  :math:`\bar\theta` does not depend on the profile, the inversion is exact);
* :math:`S = k\,t` for Jorgensen et al. with ``k`` kept points and threshold ``t``
  (Section 4.2).  Here the profile also sets the keep probabilities, so only an approximate
  scalar can be inverted: the *expected noise budget* :math:`\kappa = t\,\mathbb E[k] =
  t\sum_i \pi_i`, scaling the noise of every sample while holding the law of the sample at
  a rebuilt draw.  Two profiles with the same :math:`\kappa` still differ in the spread of
  ``k`` and in which points are likely kept; taking the union over the rebuilt profiles carries
  that into the tolerance.

Scaling :math:`\eta` by ``a`` multiplies the noise terms by ``u = 1/a^2``, so every cell is a
polynomial in ``u`` (:class:`LossMixture`): the mean is linear and the variance quadratic;
both are inverted in closed form (:func:`implied_u`).  A published value is printed with three
significant digits and is an average over the paper's 10,000 runs, so it determines the
statistic only up to an interval (:func:`implied_interval`): half a unit of the last printed
digit (:func:`printed_half_unit`) plus the Monte Carlo error at a simultaneous (Bonferroni)
level for the cells judged together (:func:`bonferroni_z`).  One draw explains a set of cells
when their intervals intersect (:func:`common_interval`); how unusual that draw is follows from
the profile's distribution (:func:`statistic_cdf`): a sum of independent uniforms for
:math:`\sum_i\varepsilon_i`, :math:`\mathrm{Beta}(1, n_c)` for the minimum, simulation for
Jorgensen's :math:`\kappa`.

:func:`explain_misses` applies all of this to every cell outside its band and returns a
computed cause for each: a misprint (the authors' own output is inside the band), Table 11
(no source), the printed rounding, one draw of the profile statistic (with its percentile),
or *unexplained*.  Shown in the book's chapter *How much does a number move? Errata and claims*
(``book/errata.ipynb``).
"""

from __future__ import annotations

import functools
from collections import OrderedDict

import numpy as np
import pandas as pd
from scipy import stats

from ..mechanisms.baselines import jorgensen_keep_probabilities, jorgensen_threshold
from ..profiles import ProfileSpec, group_sizes
from ..formatting import printed_half_unit
from ..mixtures import LossMixture, LossPolynomial
from ..validation import check_count, check_positive
from ..experiments.draws import draw_data, draw_profile, mask_seed, training_points
from ..experiments.mixtures import method_mixtures
from ..experiments.targets import get_target
from .authors import disagreements
from .verdicts import band_verdicts

__all__ = [
    "STATISTICS",
    "bonferroni_z",
    "implied_u",
    "implied_interval",
    "common_interval",
    "profile_statistic",
    "sum_eps_moments",
    "statistic_cdf",
    "statistic_support",
    "CAUSES",
    "paper_draws",
    "examine_draws",
    "explain_misses",
]

STATISTICS = {
    "pdp_op": "Σε",
    "non_personalized": "min ε",
    "jorgensen_max": "t·E[k] (t = max)",
    "jorgensen_mean": "t·E[k] (t = mean)",
}
"""The latent profile statistic each private method's noise parameter is proportional to."""


def bonferroni_z(cells: int, level: float = 0.95) -> float:
    """Normal quantile for ``cells`` simultaneous two-sided intervals at family level ``level``.

    ``z = Φ⁻¹(1 - (1 - level) / (2 cells))`` (Bonferroni): with probability at least ``level``
    every one of the ``cells`` Monte Carlo errors lies within ``z`` standard errors, whatever
    their dependence (the unregularized and regularized losses of one run share its noise).
    """
    cells = check_count(cells, "cells")
    level = float(level)
    if not 0 < level < 1:
        raise ValueError(f"level = {level!r} is outside the allowed range (0, 1)")
    return float(stats.norm.ppf(1 - (1 - level) / (2 * cells)))


def implied_u(published, poly: LossPolynomial, statistic: str = "mean") -> float:
    """The noise factor ``u`` at which ``poly`` gives the value ``published``.

    Inverts :class:`LossPolynomial` in closed form: ``u = (P - m0)/m1`` for a mean;
    the larger root of ``v2 u² + v1 u + v0 - P² = 0`` for a standard deviation.  A result
    ``<= 0`` (or NaN) means no noise level reproduces ``published``: it is at or below what the
    centres alone give.

    Returns
    -------
    float
    """
    P = float(published)
    if statistic == "mean":
        return (P - poly.m0) / poly.m1 if poly.m1 > 0 else float("nan")
    if statistic == "std":
        if poly.v2 <= 0:
            return (P * P - poly.v0) / poly.v1 if poly.v1 > 0 else float("nan")
        disc = poly.v1**2 + 4.0 * poly.v2 * (P * P - poly.v0)
        if disc < 0:
            return float("nan")
        return (-poly.v1 + np.sqrt(disc)) / (2.0 * poly.v2)
    raise ValueError(f"statistic = {statistic!r} is not allowed; use 'mean' or 'std'")


def implied_interval(published, mixture: LossMixture, statistic: str, reference: float, *,
                     runs: int, z: float, digits: int = 3) -> tuple:
    r"""The interval of the profile statistic a printed Monte Carlo value is compatible with.

    The statistic scales like the noise parameter, so it is ``reference / sqrt(u)`` at the noise
    factor ``u`` (``reference`` is its value at ``u = 1``, the draw ``mixture`` was built from).
    The printed value ``P`` stands for a true value within ``h`` (:func:`printed_half_unit`), and
    that value is a ``runs``-run estimate with the standard error ``se`` of
    :meth:`LossMixture.std_error` at the ``u`` that ``P`` implies.  So the exact statistic of the
    paper's draw lies in ``[P - h - z se, P + h + z se]``, and the profile statistic in the
    image of that range, ``[reference/sqrt(u(P_hi)), reference/sqrt(u(P_lo))]``
    (:func:`implied_u`).

    Returns
    -------
    (float, float)
        ``(low, high)``; ``high = inf`` when the bottom of the range is reachable without noise;
        ``(nan, nan)`` when even its top is (no noise level reproduces the cell).
    """
    P = float(published)
    reference = check_positive(reference, "reference")
    poly = mixture.polynomial()
    h = printed_half_unit(P, digits)
    u0 = implied_u(P, poly, statistic)
    se = mixture.std_error(u0 if (np.isfinite(u0) and u0 > 0) else 0.0, statistic, runs)
    p_lo, p_hi = P - h - z * se, P + h + z * se
    u_hi = implied_u(p_hi, poly, statistic)
    if not (np.isfinite(u_hi) and u_hi > 0):
        return float("nan"), float("nan")
    u_lo = implied_u(p_lo, poly, statistic) if p_lo > 0 else float("nan")
    high = reference / np.sqrt(u_lo) if (np.isfinite(u_lo) and u_lo > 0) else float("inf")
    return float(reference / np.sqrt(u_hi)), float(high)


def common_interval(intervals) -> tuple:
    """The intersection of closed intervals ``[(low, high), ...]``; ``(nan, nan)`` when empty.

    An interval with a NaN end (a cell no statistic reproduces) makes the intersection empty.
    """
    arr = np.asarray(list(intervals), dtype=float).reshape(-1, 2)
    if len(arr) == 0:
        raise ValueError("intervals is empty; at least one interval is needed")
    if np.isnan(arr).any():
        return float("nan"), float("nan")
    low, high = float(arr[:, 0].max()), float(arr[:, 1].min())
    return (low, high) if low <= high else (float("nan"), float("nan"))


# --------------------------------------------------------------------------- the profile's distribution
def profile_statistic(epsilons, method: str) -> float:
    """The latent statistic of a drawn profile: ``Σε``, ``min ε`` or Jorgensen's ``t Σ π_i``.

    ``method`` is one of :data:`STATISTICS`'s keys.  For Jorgensen et al. the keep
    probabilities ``π_i = (e^{ε_i} - 1)/(e^t - 1)`` (capped at 1; Section 4.2) give the expected
    sample size ``Σ π_i``; ``t`` is the maximum or the mean of the levels.
    """
    eps = np.asarray(epsilons, dtype=float)
    if method == "pdp_op":
        return float(eps.sum())
    if method == "non_personalized":
        return float(eps.min())
    if method in ("jorgensen_max", "jorgensen_mean"):
        t = jorgensen_threshold(eps, method.split("_")[1])
        return float(t * jorgensen_keep_probabilities(eps, t).sum())
    raise ValueError(f"method = {method!r} is not allowed; use one of {tuple(STATISTICS)}")


def sum_eps_moments(spec: ProfileSpec, n: int) -> tuple:
    r"""Mean and standard deviation of :math:`\sum_i\varepsilon_i` under the profile ``spec`` (Section 4).

    ``n_c`` uniforms on :math:`[\varepsilon_c, \varepsilon_m]`, ``n_m`` on
    :math:`[\varepsilon_m, \varepsilon_l]` and ``n_l`` constants :math:`\varepsilon_l`:
    mean :math:`n_c(\varepsilon_c+\varepsilon_m)/2 + n_m(\varepsilon_m+\varepsilon_l)/2 + n_l\varepsilon_l`,
    variance :math:`n_c(\varepsilon_m-\varepsilon_c)^2/12 + n_m(\varepsilon_l-\varepsilon_m)^2/12`.
    """
    n_c, n_m, n_l = group_sizes(n, spec.f_c, spec.f_m)
    mean = n_c * (spec.eps_c + spec.eps_m) / 2 + n_m * (spec.eps_m + spec.eps_l) / 2 + n_l * spec.eps_l
    var = n_c * (spec.eps_m - spec.eps_c) ** 2 / 12 + n_m * (spec.eps_l - spec.eps_m) ** 2 / 12
    return float(mean), float(np.sqrt(var))


def statistic_cdf(x, method: str, spec: ProfileSpec, n: int, *, draws: int = 20_000, rng=None) -> float:
    r"""``P(statistic <= x)`` under the paper's profile distribution ``spec`` for ``n`` points.

    * ``"pdp_op"``: :math:`\sum_i\varepsilon_i`, a sum of independent uniforms (and constants),
      by the normal approximation with the exact mean and variance of :func:`sum_eps_moments`
      (the sum is symmetric, so the first correction is of order :math:`1/n`), and 0 or 1
      outside the sum's support;
    * ``"non_personalized"``: :math:`\min_i\varepsilon_i`, the smallest of the ``n_c``
      conservatives' levels: :math:`(\min_i\varepsilon_i - \varepsilon_c)/(\varepsilon_m -
      \varepsilon_c) \sim \mathrm{Beta}(1, n_c)`, exactly;
    * ``"jorgensen_max"``, ``"jorgensen_mean"``: :math:`t\sum_i\pi_i` (:func:`profile_statistic`)
      has no closed form; its empirical distribution over ``draws`` simulated profiles
      (seed ``rng``, an int, default 0) is used.
    """
    x = float(x)
    n = check_count(n, "n")
    n_c, n_m, n_l = group_sizes(n, spec.f_c, spec.f_m)
    if method == "pdp_op":
        lowest = n_c * spec.eps_c + n_m * spec.eps_m + n_l * spec.eps_l
        highest = n_c * spec.eps_m + n_m * spec.eps_l + n_l * spec.eps_l
        if x < lowest:
            return 0.0
        if x >= highest:
            return 1.0
        mean, sd = sum_eps_moments(spec, n)
        return float(stats.norm.cdf((x - mean) / sd)) if sd > 0 else float(x >= mean)
    if method == "non_personalized":
        if n_c == 0:
            raise ValueError(f"n = {n} and f_c = {spec.f_c} give no conservative; the minimum is then "
                             f"not a Beta order statistic")
        if spec.eps_m == spec.eps_c:  # every conservative gets eps_c: no randomness
            return float(x >= spec.eps_c)
        return float(stats.beta(1, n_c).cdf((x - spec.eps_c) / (spec.eps_m - spec.eps_c)))
    if method in ("jorgensen_max", "jorgensen_mean"):
        sample = _jorgensen_sample(method, spec, n, check_count(draws, "draws"),
                                   0 if rng is None else int(rng))
        return float(np.mean(sample <= x))
    raise ValueError(f"method = {method!r} is not allowed; use one of {tuple(STATISTICS)}")


def statistic_support(method: str, spec: ProfileSpec, n: int) -> tuple:
    """The range ``(low, high)`` the statistic can take under ``spec`` for ``n`` points.

    ``Σε``: every level at the bottom or at the top of its group's interval; ``min ε``:
    ``[ε_c, ε_m]`` (``n_c > 0``); Jorgensen's ``t Σ π_i``: ``(0, inf)`` (no closed form; its
    percentile comes from simulation, which puts a value beyond every simulated profile at 0 or 1).
    """
    n_c, n_m, n_l = group_sizes(check_count(n, "n"), spec.f_c, spec.f_m)
    if method == "pdp_op":
        return (n_c * spec.eps_c + n_m * spec.eps_m + n_l * spec.eps_l,
                n_c * spec.eps_m + n_m * spec.eps_l + n_l * spec.eps_l)
    if method == "non_personalized":
        return (spec.eps_c, spec.eps_m)
    if method in ("jorgensen_max", "jorgensen_mean"):
        return (0.0, float("inf"))
    raise ValueError(f"method = {method!r} is not allowed; use one of {tuple(STATISTICS)}")


@functools.lru_cache(maxsize=32)
def _jorgensen_sample(method: str, spec: ProfileSpec, n: int, draws: int, seed: int) -> np.ndarray:
    """``t Σ π_i`` over ``draws`` profiles drawn as :func:`pdp_lib.privacy_profile` does (vectorized)."""
    gen = np.random.default_rng(seed)
    n_c, n_m, n_l = group_sizes(n, spec.f_c, spec.f_m)
    out = []
    for start in range(0, draws, 1000):
        size = min(1000, draws - start)
        eps = np.concatenate([gen.uniform(spec.eps_c, spec.eps_m, size=(size, n_c)),
                              gen.uniform(spec.eps_m, spec.eps_l, size=(size, n_m)),
                              np.full((size, n_l), float(spec.eps_l))], axis=1)
        t = eps.max(axis=1) if method == "jorgensen_max" else eps.mean(axis=1)
        p = np.where(eps < t[:, None], np.expm1(np.minimum(eps, t[:, None])) / np.expm1(t)[:, None], 1.0)
        out.append(t * p.sum(axis=1))
    return np.concatenate(out)


# --------------------------------------------------------------------------- the paper's draws
CAUSES = ("misprint", "no source (Table 11)", "printed rounding", "one profile draw",
          "one data and profile draw", "synthetic data draw unknown", "unexplained")
"""The causes :func:`explain_misses` assigns, in the order they are tried."""


def _centre(low: float, high: float) -> float:
    """Midpoint of ``[low, high]`` (``low`` when ``high`` is infinite; NaN when empty)."""
    if not np.isfinite(low):
        return float("nan")
    return float(low) if not np.isfinite(high) else 0.5 * (float(low) + float(high))


def _clip(interval, support) -> tuple:
    low, high = max(interval[0], support[0]), min(interval[1], support[1])
    return (low, high) if (np.isfinite(low) and low <= high) else (float("nan"), float("nan"))


def _authors_values() -> dict:
    """``{(table, param, column): (authors' value, rounded to 3 digits)}`` of the misprinted cells."""

    errata = disagreements()
    return {(int(t), float(p), c): (float(r), float(rr)) for t, p, c, r, rr in
            errata[["table", "param_value", "column", "reference", "reference_rounded"]]
            .itertuples(index=False)}


def _key(row) -> tuple:
    return (int(row.table), float(row.param), row.column)


def _point(row):

    spec = get_target(row.target)
    profile, fraction, lam = spec.point(float(row.param))
    return spec, profile, fraction, float(lam)


def _verdicts(results: dict, **rules) -> pd.DataFrame:
    """:func:`pdp_lib.replication.verdicts.band_verdicts` of every table, with ``table``, ``target`` and ``gkey``.

    ``rules`` are :func:`~pdp_lib.replication.verdicts.band_verdicts`' keywords (``rounding``, ``sharpness``).

    ``gkey`` names the paper's profile draw and method of a cell, ``(authors' file, profile,
    training fraction, method)``; ``None`` for machine-zero and non-private cells.
    """

    frames = []
    for target, table in results.items():
        v = band_verdicts(table, **rules)
        v["table"] = int(target.split("-")[1])
        v["target"] = target
        frames.append(v)
    v = pd.concat(frames, ignore_index=True)
    keys = []
    for r in v.itertuples(index=False):
        method = r.column.partition("_")[2]
        if method in STATISTICS and not bool(r.machine_zero):
            spec, profile, fraction, _ = _point(r)
            keys.append((spec.source_csv, profile, fraction, method))
        else:
            keys.append(None)
    v["gkey"] = keys
    return v


def paper_draws(results: dict, *, dataset: str | None = None, methods=None) -> list:
    """The keys of the paper's profile draws behind the published cells of ``results``.

    A key is ``(authors' file, profile, training fraction, method)``: one draw of the profile and
    one private method, shared by every cell of that file, profile and training set (all
    ``lambda``, both losses, means and standard deviations).  ``dataset`` and ``methods`` select
    (``"synthetic"`` or ``"medical_cost"``; a subset of :data:`STATISTICS`).  The keys are what
    :func:`examine_draws` takes as ``groups``.
    """

    files = {get_target(t).source_csv: get_target(t).dataset for t in results}
    keys = [g for g in dict.fromkeys(_verdicts(results)["gkey"]) if g is not None]
    return [g for g in keys if (dataset is None or files[g[0]] == dataset)
            and (methods is None or g[3] in methods)]


_INTERVALS = OrderedDict()
KEPT_GROUPS = 256
"""At most this many groups' intervals are kept (:func:`examine_draws`)."""


def _keep_intervals(key: tuple, value: tuple) -> None:
    """A group's intervals per draw and its training size, kept under ``key`` (the oldest dropped past
    :data:`KEPT_GROUPS`)."""
    _INTERVALS[key] = value
    while len(_INTERVALS) > KEPT_GROUPS:
        _INTERVALS.popitem(last=False)


def examine_draws(results: dict, *, seed: int, replicates: int, groups=None, rows=None,
                  masks: int = 100, runs: int = 10_000, level: float = 0.95) -> pd.DataFrame:
    r"""The value of the latent statistic each of the paper's profile draws implies, and how rare it is.

    A *group* is every published cell of the paper's run that shares one profile draw and one
    method: the same authors' file, profile and training set (so all ``lambda`` and both losses,
    means and standard deviations; a misprinted cell enters with the authors' own value).  Each
    cell implies an interval of the method's statistic (:data:`STATISTICS`,
    :func:`implied_interval`, with the Monte Carlo error at the Bonferroni level of
    :func:`bonferroni_z` for the group's size); one draw explains the group when the intervals
    meet inside the statistic's support (:func:`statistic_support`).

    * Medical Cost (the paper's split and training subsets, reproduced exactly): a cell's
      interval is the union over the ``replicates`` rebuilt profiles, which carries what the
      statistic does not fix (PDP-OP's weights, Jorgensen's sample law);
    * synthetic data (the paper's draw is unknown): the check is made under each of the
      ``replicates`` rebuilt data draws in turn, for the whole group and for the cells of the
      sweep values in ``rows[group key]`` alone.

    A group's intervals are kept in the process, keyed on every input they are computed from (the group,
    ``seed``, ``replicates``, ``masks``, ``runs``, the Bonferroni ``z`` and each cell's loss, statistic,
    ``lambda`` and published value): another call on the same group, as :func:`explain_misses` makes under
    another rule set, reads them back instead of building the mixtures again.

    Parameters
    ----------
    results : dict of str -> pandas.DataFrame
        :func:`pdp_lib.experiments.reproduce_many` tables of some of ``table-1`` ... ``table-14``.
    seed, replicates : int
        The seed and replicates of the bands (the same draws are rebuilt, with the paper's split).
    groups : sequence of group keys, optional
        The groups to examine (``gkey`` of the cells, ``(file, profile, fraction, method)``);
        all by default.
    rows : dict, optional
        ``{group key: set of sweep values}``: the rows checked on their own (synthetic data).
    masks : int, default 100
        Sampling masks per draw for Jorgensen's mixtures.
    runs : int, default 10000
        Runs behind each published value (the paper's).
    level : float, default 0.95
        Family level of the simultaneous Monte Carlo intervals.

    Returns
    -------
    pandas.DataFrame
        One row per group: ``gkey, dataset, method, statistic, tables, cells, z, low, high,
        implied, percentile, draws, row_draws, replicates, explained``.  ``low``/``high`` bound
        the common value (NaN when none; synthetic: over the data draws that explain the group),
        ``implied`` is its centre, ``percentile`` :func:`statistic_cdf` there (synthetic: the
        median over those draws; NaN when the statistic is not random, as the minimum when
        ``eps_c = eps_m``), ``draws`` the data draws that explain the group and
        ``row_draws`` those that explain its ``rows`` (Medical Cost: ``replicates`` or 0).
    """

    seed = check_count(seed, "seed", minimum=0)
    replicates = check_count(replicates, "replicates")
    runs = check_count(runs, "runs")
    verdicts = _verdicts(results)
    authors = _authors_values()
    if groups is None:
        groups = [g for g in dict.fromkeys(verdicts["gkey"]) if g is not None]
    rows = rows or {}
    cache = {}
    out = []
    for gkey in groups:
        _, profile, fraction, method = gkey
        cells = verdicts[np.array([g == gkey for g in verdicts["gkey"]], dtype=bool)]
        if cells.empty:
            raise LookupError(f"no published cell belongs to the group {gkey!r}")
        info = [_point(r) for r in cells.itertuples(index=False)]
        dataset = info[0][0].dataset
        lams = sorted({lam for *_, lam in info})
        values = [authors.get(_key(r), (None, r.paper))[1] for r in cells.itertuples(index=False)]
        z = bonferroni_z(len(cells), level)
        own_row = np.array([float(p) in rows.get(gkey, set()) for p in cells["param"]], dtype=bool)
        asked = tuple((r.column.partition("_")[0], spec.statistic, float(lam), float(val))
                      for r, (spec, _, _, lam), val in zip(cells.itertuples(index=False), info, values))
        key = (gkey, dataset, seed, replicates, masks, runs, float(z), asked)
        if key in _INTERVALS:
            per_draw, n = _INTERVALS[key]
        else:
            per_draw = []
            for rep in range(replicates):
                if (dataset, rep) not in cache:
                    cache[dataset, rep] = draw_data(dataset, seed, rep, vary_split=False)
                draw = cache[dataset, rep]
                X, y = training_points(draw, fraction)
                n = X.shape[0]
                eps = draw_profile(draw, profile, n)
                mix = method_mixtures(method, X, y, draw.X_test, draw.y_test, eps, lams,
                                      masks=masks, rng=mask_seed(draw, profile, n))
                ref = profile_statistic(eps, method)
                per_draw.append([implied_interval(val, mix[kind, lam], statistic, ref, runs=runs, z=z)
                                 for kind, statistic, lam, val in asked])
            per_draw = np.array(per_draw, dtype=float)  # (replicates, cells, 2)
            per_draw.flags.writeable = False
            _keep_intervals(key, (per_draw, n))
        support = statistic_support(method, profile, n)
        fixed = support[0] == support[1]  # e.g. eps_c = eps_m: the minimum is not random
        if dataset == "medical_cost":
            union = np.column_stack([np.nanmin(per_draw[:, :, 0], axis=0),
                                     np.nanmax(per_draw[:, :, 1], axis=0)])
            low, high = _clip(common_interval(union), support)
            implied = _centre(low, high)
            if fixed:
                pct, explained = float("nan"), bool(np.isfinite(implied))
            else:
                pct = statistic_cdf(implied, method, profile, n) if np.isfinite(implied) else float("nan")
                explained = bool(np.isfinite(implied) and 0 < pct < 1)
            n_group = n_row = replicates if explained else 0
        else:
            found, n_row = [], 0
            def plausible(lo, hi):
                if not np.isfinite(lo):
                    return False, float("nan")
                if fixed:
                    return True, float("nan")
                p = statistic_cdf(_centre(lo, hi), method, profile, n)
                return 0 < p < 1, p

            for iv in per_draw:
                lo, hi = _clip(common_interval(iv), support)
                ok, p = plausible(lo, hi)
                if ok:
                    found.append((lo, hi, p))
                if own_row.any():
                    n_row += int(plausible(*_clip(common_interval(iv[own_row]), support))[0])
            n_group = len(found)
            low = min(f[0] for f in found) if found else float("nan")
            high = max(f[1] for f in found) if found else float("nan")
            implied = float(np.median([_centre(f[0], f[1]) for f in found])) if found else float("nan")
            pct = float(np.median([f[2] for f in found])) if (found and not fixed) else float("nan")
            explained = n_group > 0
        out.append({"gkey": gkey, "dataset": dataset, "method": method, "statistic": STATISTICS[method],
                    "tables": ", ".join(str(t) for t in sorted(set(cells["table"]))),
                    "cells": len(cells), "z": z, "low": low, "high": high, "implied": implied,
                    "percentile": pct, "draws": n_group, "row_draws": n_row,
                    "replicates": replicates, "explained": explained})
    columns = ["gkey", "dataset", "method", "statistic", "tables", "cells", "z", "low", "high",
               "implied", "percentile", "draws", "row_draws", "replicates", "explained"]
    return pd.DataFrame(out, columns=columns)


def explain_misses(results: dict, *, seed: int, replicates: int, masks: int = 100,
                   runs: int = 10_000, level: float = 0.95, rounding: bool = True,
                   sharpness: str = "spread") -> tuple:
    r"""A computed cause for every published cell outside its rebuilt band.

    Causes are tried in the order of :data:`CAUSES`:

    1. *misprint*: the cell is one of :func:`pdp_lib.replication.authors.disagreements` and the authors'
       own output for it lies inside the band;
    2. *no source (Table 11)*: none of the authors' files holds Table 11;
    3. *printed rounding*: the printed value's rounding interval (:func:`printed_half_unit`)
       meets the band (a column without randomness has a band of zero width);
    4. the profile draw (:func:`examine_draws` on the cell's group): *one profile draw* (Medical
       Cost: one value of the statistic explains every cell of the paper's draw); *one data and
       profile draw* (synthetic: so it does under at least one rebuilt data draw); *synthetic
       data draw unknown* (synthetic: some rebuilt data draw explains the cells of the miss's
       own row, none the whole group);
    5. otherwise *unexplained*.

    Parameters are those of :func:`examine_draws`, and ``rounding`` and ``sharpness`` those of
    :func:`pdp_lib.replication.verdicts.band_verdicts`: with ``rounding=True`` (the default) a miss is never
    explained by the printed rounding alone, since the verdict already allows for it.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        ``misses``: one row per miss (``table, param, column, paper, value, low, high, ratio,
        outside, sharp, cause, group, statistic``); ``groups``: :func:`examine_draws` of the
        groups holding a miss not explained by 1-3, with a name ``group`` (``G1``, ...) and the
        number of ``misses`` it explains.
    """
    verdicts = _verdicts(results, rounding=rounding, sharpness=sharpness)
    authors = _authors_values()
    miss = verdicts[verdicts["inside"] == 0].copy()
    cause = []
    for row in miss.itertuples(index=False):
        h = printed_half_unit(row.paper)
        k = _key(row)
        if k in authors and row.low <= authors[k][0] <= row.high:
            cause.append("misprint")
        elif row.table == 11:
            cause.append("no source (Table 11)")
        elif row.paper + h >= row.low and row.paper - h <= row.high:
            cause.append("printed rounding")
        else:
            cause.append("")
    miss["cause"] = cause
    miss["group"] = ""
    miss["statistic"] = ""
    open_ = (miss["cause"] == "").to_numpy()
    wanted = [g for g in dict.fromkeys(miss.loc[open_, "gkey"]) if g is not None]
    rows = {g: {float(p) for p, k in zip(miss.loc[open_, "param"], miss.loc[open_, "gkey"]) if k == g}
            for g in wanted}
    groups = examine_draws(results, seed=seed, replicates=replicates, groups=wanted, rows=rows,
                           masks=masks, runs=runs, level=level)
    names, counts = [], []
    for i, g in enumerate(groups.itertuples(index=False), start=1):
        here = open_ & np.array([k == g.gkey for k in miss["gkey"]], dtype=bool)
        if g.dataset == "medical_cost":
            label = "one profile draw" if g.explained else "unexplained"
        else:
            label = ("one data and profile draw" if g.draws else
                     "synthetic data draw unknown" if g.row_draws else "unexplained")
        miss.loc[here, "cause"] = label
        miss.loc[here, "group"] = f"G{i}"
        miss.loc[here, "statistic"] = g.statistic
        names.append(f"G{i}")
        counts.append(int(here.sum()))
    groups.insert(0, "group", names)
    groups.insert(7, "misses", counts)
    miss.loc[miss["cause"] == "", "cause"] = "unexplained"
    out = miss[["table", "param", "column", "paper", "value", "low", "high", "ratio", "outside",
                "sharp", "cause", "group", "statistic"]].reset_index(drop=True)
    return out, groups
