r"""The one vectorized engine behind every table and figure (Section 4, Appendix B).

For one dataset draw, one privacy profile and a grid of ``lambda`` values,
:func:`evaluate_sweep` returns, for every column of the paper (unregularized and regularized
test loss of PDP-OP, the non-personalized baseline, Jorgensen et al. with ``t = max`` and
``t = mean``, and the non-private ridge), the mean and the standard deviation of the loss over
``runs`` runs of the mechanism:

* **PDP-OP and non-personalized**: exact.  Both are output perturbation ``theta_bar + Z``, and
  the moments of a quadratic loss over ``Z`` have a closed form (:mod:`pdp_lib.moments`), so
  no Monte Carlo is needed: the reported value is the limit of the paper's average as the
  number of runs grows.
* **Jorgensen et al.**: Monte Carlo over the ``runs`` Bernoulli sampling masks only, drawn
  and reduced in blocks of runs (per-mask Gram matrices ``X^T diag(m) X`` by one matrix product
  per block, one batched LAPACK solve per block and ``lambda``), and *Rao-Blackwellized* over
  the noise: each mask contributes the exact
  conditional mean ``mu(m)`` and variance ``v(m)`` of the loss given the mask.  The mean is
  estimated by the average of ``mu``, with standard error ``sd(mu)/sqrt(runs)``; the standard
  deviation over runs by the law of total variance, ``sqrt(Var_m mu + E_m v)``.  The same
  masks serve every ``lambda`` of the grid and both losses (common random numbers).
* **Non-private**: deterministic; ``unreg`` is least squares (``lambda = 0``, the authors'
  "type1"), ``reg`` the uniform-weight ridge with ``lambda`` (their "type2"); std 0.

The engine composes the mechanism (:func:`pdp_lib.calibrate`, the weighted ridge of eq. (2))
and the baselines' own pieces (Jorgensen's mask sampler and noise parameter
:func:`pdp_lib.baselines.jorgensen_eta`), and is tested against the single-run implementations
of :mod:`pdp_lib.baselines`.  Derived and measured in the book's chapter *Exact loss moments*
(``book/moments.ipynb``).

Memory.  The block size is chosen from ``memory_budget`` (:func:`block_size`), so the peak
memory of the Monte Carlo does not grow with ``runs x n``: for a given seed the masks do not
depend on the block size (the uniforms are consumed in the same row-major order), and the
statistics of several blocks are merged from per-block central moments (:class:`_Moments`).
At the paper's sizes the default budget holds all runs in one block, and the arithmetic is
exactly that of a single block.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..baselines import _draw_masks, jorgensen_eta, jorgensen_keep_probabilities, jorgensen_threshold
from ..mechanism import _weighted_ridge, calibrate
from ..moments import QuadraticLoss
from ..validation import check_count, check_epsilons, check_features, check_labels, check_positive, check_rng
from .beyond import exact_columns, jorgensen_oracle
from .specs import BEYOND_COLUMNS, BEYOND_METHODS, COLUMNS, METHODS

__all__ = ["SweepResult", "evaluate_sweep", "jorgensen_masks", "batched_ridge", "block_size",
           "DEFAULT_MEMORY_BUDGET"]

DEFAULT_MEMORY_BUDGET = 512 * 10**6
"""Default ``memory_budget`` of :func:`evaluate_sweep`, in bytes (512 MB)."""

# Shares of the budget: the products x_i x_i^T of the points; the arrays kept for a whole block
# of runs; the float copies made one chunk at a time (uniforms, masks, test residuals).
_POINT_SHARE, _BLOCK_SHARE, _CHUNK_SHARE = 0.25, 0.5, 0.25


@dataclass(frozen=True)
class SweepResult:
    """Statistics of every column over runs, for a grid of ``lambda`` values.

    Attributes
    ----------
    lams : numpy.ndarray of shape (L,)
    runs : int
        Number of runs (Jorgensen masks) the Monte Carlo columns used.
    mean, std : dict of str -> numpy.ndarray of shape (L,)
        Mean and standard deviation over runs of each column's loss (``COLUMNS`` names).
    mean_se, std_se : dict of str -> numpy.ndarray of shape (L,)
        Monte Carlo standard errors of ``mean`` and ``std`` (0 for exact columns; ``nan``
        when ``runs == 1``).
    naive_se : dict of str -> numpy.ndarray of shape (L,)
        ``std / sqrt(runs)``: the standard error of a plain average over ``runs`` runs, for
        comparison with the Rao-Blackwellized ``mean_se``.
    kept : dict of str -> numpy.ndarray of shape (runs,)
        Number of points kept by each Jorgensen mask (``"jorgensen_max"``, ``"jorgensen_mean"``).
    thresholds : dict of str -> float
        Jorgensen's ``t`` for each variant.
    """

    lams: np.ndarray
    runs: int
    mean: dict
    std: dict
    mean_se: dict
    std_se: dict
    naive_se: dict
    kept: dict
    thresholds: dict

    def statistic(self, column: str, statistic: str) -> np.ndarray:
        """``mean`` or ``std`` of ``column`` over the grid."""
        return (self.mean if statistic == "mean" else self.std)[column]

    def standard_error(self, column: str, statistic: str) -> np.ndarray:
        """Monte Carlo standard error of :meth:`statistic`."""
        return (self.mean_se if statistic == "mean" else self.std_se)[column]


def _check_memory_budget(memory_budget) -> float:
    """``memory_budget`` as a float: a finite number of bytes ``> 0``.

    ``ValueError`` naming it and the allowed range ``(0, inf)`` otherwise (``TypeError`` if it
    is not a real number), as every argument of :mod:`pdp_lib`.
    """
    return check_positive(memory_budget, "memory_budget")


def _rows(total: int, bytes_per_row: float, budget: float) -> int:
    """The most rows of ``bytes_per_row`` bytes that fit in ``budget``, clipped to ``[1, total]``."""
    return int(min(total, max(1.0, budget // bytes_per_row)))


def _bytes_per_run(n: int, d: int, n_lams: int) -> int:
    """Bytes kept for one run (one mask) while its block is processed.

    Its mask over the ``n`` random points (``bool``), and in float64 words the triangle of
    ``X_m^T X_m`` with a partial product (``2 d(d+1)/2``), the Gram matrix (``d^2``), a dozen
    ``d``-vectors (right-hand side, diagonal, solution, gradients) and the conditional
    moments of both losses (``4 n_lams``).
    """
    return n + 8 * (d * (d + 1) + d * d + 12 * d + 4 * n_lams + 4)


@dataclass(frozen=True)
class _Plan:
    """How one Jorgensen variant is cut to fit a memory budget (see :func:`block_size`).

    ``runs_per_block`` runs share one Gram stack and one batched solve; within a block the
    uniforms are drawn ``draw_rows`` rows at a time, the masks enter the Gram matrices
    ``mask_points`` points at a time (as float copies), and the test residuals are formed
    ``residual_rows`` rows at a time.
    """

    runs_per_block: int
    draw_rows: int
    mask_points: int
    residual_rows: int


def _plan(runs: int, n: int, d: int, n_test: int, n_lams: int, budget: float) -> _Plan:
    size = _rows(runs, _bytes_per_run(n, d, n_lams), _BLOCK_SHARE * budget)
    chunk = _CHUNK_SHARE * budget
    return _Plan(runs_per_block=size,
                 draw_rows=_rows(size, 8 * max(n, 1), chunk),
                 mask_points=_rows(max(n, 1), 8 * (size + d), chunk),
                 residual_rows=_rows(size, 8 * (3 * n_test + 4 * d), chunk))


def block_size(runs, n, d, n_test=0, n_lams=1, memory_budget=DEFAULT_MEMORY_BUDGET) -> int:
    """Runs per block of the Jorgensen Monte Carlo in :func:`evaluate_sweep`.

    The budget is shared: a quarter for the products ``x_i x_i^T`` of the points (kept whole
    when they fit, else formed a chunk of points at a time), half for the arrays kept for
    every run of a block (its mask as booleans, Gram matrix, solutions, conditional moments:
    ``n + 8 (2 d^2 + 13 d + 4 n_lams + 4)`` bytes), a quarter for the float copies made one
    chunk at a time within a block (uniforms of a few rows, the masks of a chunk of points,
    the test residuals of a few rows).  This returns the most runs that fit in their half, at
    least 1 (a budget too small for one run gives blocks of one run, and is then exceeded by
    the arrays of that run) and at most ``runs``.  The blocks are ``[0, s), [s, 2s), ...``
    with ``s`` this size: there are ``ceil(runs / s)`` of them.

    Parameters
    ----------
    runs : int
        Number of runs (masks).
    n : int
        Points drawn per mask (those whose keep probability is below 1).
    d : int
        Number of features.
    n_test : int, default 0
        Test points (the residuals of the losses are ``(rows, n_test)``).
    n_lams : int, default 1
        Number of ``lambda`` values.
    memory_budget : float, default DEFAULT_MEMORY_BUDGET
        Bytes, finite and ``> 0``.

    Returns
    -------
    int
        In ``[1, runs]``.
    """
    runs = check_count(runs, "runs")
    budget = _check_memory_budget(memory_budget)
    return _plan(runs, n, d, n_test, n_lams, budget).runs_per_block


def jorgensen_masks(epsilons, t, runs, rng=None, *, memory_budget=DEFAULT_MEMORY_BUDGET) -> np.ndarray:
    """``runs`` independent draws of Jorgensen et al.'s sample, shape ``(runs, n)`` (bool).

    Row ``r`` equals the ``r``-th of ``runs`` successive calls of
    :func:`pdp_lib.baselines.jorgensen_mask` on the same generator: one uniform per point
    whose keep probability is below 1, in index order; the other points are always kept.
    The uniforms are drawn a few rows at a time, as many as fit in ``memory_budget`` bytes
    (the result itself, one byte per entry, is not counted); the masks do not depend on the
    budget.
    """
    p = jorgensen_keep_probabilities(epsilons, t)
    runs = check_count(runs, "runs")
    gen = check_rng(rng)
    rows = _rows(runs, 8 * max(1, p.shape[0]), _check_memory_budget(memory_budget))
    rand = p < 1.0
    masks = np.ones((runs, p.shape[0]), dtype=bool)
    for start in range(0, runs, rows):
        stop = min(start + rows, runs)
        masks[start:stop, rand] = _draw_masks(gen, p[rand], stop - start, rows)
    return masks


class _Points:
    """The training points' share of the per-mask sufficient statistics (eq. (2), ``w = 1/k``).

    For the points drawn at random (``~fixed``): the upper triangles ``P`` of the ``x_i x_i^T``
    (``np.triu_indices`` order, column-major as ``X[:, iu] * X[:, ju]`` is) and the
    ``x_i y_i``; for the always-kept points, their sums.  ``P`` is built once when it fits in a
    quarter of ``memory_budget`` (always at the paper's sizes); otherwise :meth:`products`
    forms it a chunk of points at a time, in a buffer of that size.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, fixed: np.ndarray, memory_budget: float):
        self.d = d = X.shape[1]
        self.T = T = d * (d + 1) // 2
        self._off = np.concatenate(([0], np.cumsum(np.arange(d, 0, -1))))  # row i of the triangle
        share = _POINT_SHARE * memory_budget
        self.chunk = _rows(max(1, X.shape[0]), 8 * T, share)  # points per chunk of products
        Xr, yr = X[~fixed], y[~fixed]
        Xf, yf = X[fixed], y[fixed]
        self.n_random = Xr.shape[0]
        self.n_fixed = Xf.shape[0]
        self.Xry = Xr * yr[:, None]
        self.fixed_b = Xf.T @ yf
        self._XrT = np.ascontiguousarray(Xr.T)  # (d, n_random): the products are formed along rows
        del Xr
        XfT = np.ascontiguousarray(Xf.T)
        self.fixed_tri = np.zeros(T)
        for s in range(0, self.n_fixed, self.chunk):
            part = self._fill(XfT[:, s:s + self.chunk]).sum(axis=0)
            self.fixed_tri = part if s == 0 else self.fixed_tri + part
        whole = 8 * self.n_random * T <= share
        self.P = self._fill(self._XrT) if whole else None
        self._buf = None if whole else np.empty((self.chunk, T), order="F")

    def _fill(self, ZT: np.ndarray, out=None) -> np.ndarray:
        """``Z[:, iu] * Z[:, ju]`` for ``Z = ZT.T``, column-major, one row of the triangle at a time."""
        m = ZT.shape[1]
        out = np.empty((m, self.T), order="F") if out is None else out[:m]
        outT = out.T  # (T, m), each row contiguous
        for i in range(self.d):
            np.multiply(ZT[i], ZT[i:], out=outT[self._off[i]:self._off[i + 1]])
        return out

    def products(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` of ``P`` (at most ``chunk`` of them when ``P`` is streamed)."""
        if self.P is not None:
            return self.P[start:stop]
        return self._fill(self._XrT[:, start:stop], self._buf)


class _MaskedGram:
    """Per-mask sufficient statistics of the kept points: ``X_m^T X_m``, ``X_m^T y_m``, ``k``.

    Built from the always-kept points once and from the random points by matrix products
    ``M @ P`` and ``M @ (x_i y_i)`` (``M`` the 0/1 matrix of a block of masks, as floats,
    ``chunk`` points at a time; ``P`` the upper triangles of the ``x_i x_i^T``, see
    :class:`_Points`), so the cost is one BLAS call per chunk instead of ``R`` Python
    iterations.
    """

    def __init__(self, points: _Points, masks: np.ndarray, chunk: int):
        R = masks.shape[0]
        d = points.d
        iu, ju = np.triu_indices(d)
        pos = np.empty((d, d), dtype=np.intp)  # index of entry (i, j) in the triangle
        pos[iu, ju] = np.arange(iu.size)
        pos[ju, iu] = pos[iu, ju]
        tri, b = np.zeros((R, points.T)), np.zeros((R, d))
        for s in range(0, points.n_random, chunk):
            M = masks[:, s:s + chunk].astype(float)
            if s == 0:
                tri, b = M @ points.products(s, s + chunk), M @ points.Xry[s:s + chunk]
            else:
                tri += M @ points.products(s, s + chunk)
                b += M @ points.Xry[s:s + chunk]
            del M  # before the next chunk's copy is made
        tri += points.fixed_tri
        self.k = masks.sum(axis=1, dtype=float) + points.n_fixed
        self.empty = self.k == 0
        ks = np.where(self.empty, 1.0, self.k)
        tri /= ks[:, None]
        self.G = np.take(tri, pos.ravel(), axis=1).reshape(R, d, d)  # X_m^T X_m / k
        del tri
        b += points.fixed_b
        b /= ks[:, None]
        self.b = b  # X_m^T y_m / k
        self.d = d
        self._diag = self.G[:, np.arange(d), np.arange(d)].copy()

    def ridge(self, lam: float) -> np.ndarray:
        """Uniform-weight ridge on each mask's kept points (eq. (2), ``w = 1/k``); 0 when ``k = 0``."""
        diag = np.arange(self.d)
        # Add lam on the diagonal in place and restore it afterwards (exactly, from a saved
        # copy): saves copying the (R, d, d) stack once per lambda.
        self.G[:, diag, diag] = self._diag + lam
        try:
            theta = np.linalg.solve(self.G, self.b[..., None])[..., 0]
        finally:
            self.G[:, diag, diag] = self._diag
        theta[self.empty] = 0.0
        return theta


def batched_ridge(X, y, masks, lam, *, memory_budget=DEFAULT_MEMORY_BUDGET) -> np.ndarray:
    """Uniform-weight ridge (eq. (2)) on the kept points of each mask: shape ``(R, d)``.

    Row ``r`` solves ``(X_m^T X_m / k + lam I) theta = X_m^T y_m / k`` for the ``k`` points
    kept by ``masks[r]``; an empty mask gives ``theta = 0`` (the minimizer of
    ``lam ||theta||^2``).  The masks are processed in blocks of rows chosen from
    ``memory_budget`` bytes as in :func:`block_size` (``masks`` itself is not counted).
    """
    X = check_features(X)
    y = check_labels(y, X.shape[0])
    masks = np.asarray(masks)
    if masks.ndim != 2 or masks.shape[1] != X.shape[0]:
        raise ValueError(f"masks must have shape (R, {X.shape[0]}), got {masks.shape}")
    if masks.dtype != bool:
        bad = ~((masks == 0) | (masks == 1))
        if bad.any():
            r, i = (int(v) for v in np.argwhere(bad)[0])
            raise ValueError(f"masks[{r}, {i}] = {masks[r, i]!r} is outside the allowed values {{0, 1}}")
    lam = check_positive(lam, "lam")
    budget = _check_memory_budget(memory_budget)
    R, (n, d) = masks.shape[0], X.shape
    points = _Points(X, y, np.zeros(n, dtype=bool), budget)
    plan = _plan(R, n, d, 0, 0, budget)
    theta = np.empty((R, d))
    for start in range(0, R, plan.runs_per_block):
        block = masks[start:start + plan.runs_per_block]
        theta[start:start + block.shape[0]] = _MaskedGram(points, block, min(plan.mask_points, points.chunk)).ridge(lam)
    return theta


def _streams(rng, k: int) -> list:
    """``k`` independent generators: the first ``k`` spawned children of ``rng``.

    A :class:`numpy.random.SeedSequence` is not mutated (its children are built from their
    spawn keys), so the same seed sequence always gives the same streams.
    """
    if isinstance(rng, np.random.SeedSequence):
        return [np.random.default_rng(np.random.SeedSequence(
            rng.entropy, spawn_key=tuple(rng.spawn_key) + (i,), pool_size=rng.pool_size))
            for i in range(k)]
    return check_rng(rng).spawn(k)


def _aggregate(mu: np.ndarray, v: np.ndarray):
    """Mean, total std and their standard errors from conditional moments over R masks."""
    R = mu.shape[0]
    mean = float(mu.mean())
    if R > 1:
        dev2 = (mu - mean) ** 2 * (R / (R - 1))
        var_mu = float(dev2.mean())
        mean_se = float(np.sqrt(var_mu / R))
    else:
        dev2 = np.zeros_like(mu)
        var_mu, mean_se = 0.0, float("nan")
    total = var_mu + float(v.mean())
    std = float(np.sqrt(total))
    if R > 1 and std > 0:
        h = dev2 + v  # per-mask contributions to the total variance
        std_se = float(np.std(h, ddof=1) / np.sqrt(R) / (2.0 * std))
    elif R > 1:
        std_se = 0.0
    else:
        std_se = float("nan")
    return mean, std, mean_se, std_se


@dataclass(frozen=True)
class _Moments:
    r"""Sufficient statistics of :func:`_aggregate` over a set of masks, mergeable across blocks.

    With ``e = mu - mean(mu)`` and ``f = v - mean(v)`` over the set's ``n`` masks: the means
    and the central sums ``m_p = sum e^p`` (``p = 2, 3, 4``), ``f2 = sum f^2``,
    ``c11 = sum e f`` and ``c21 = sum e^2 f``; arrays of any common shape (one entry per loss
    and ``lambda``).  :meth:`merge` combines two sets exactly (pairwise update of Chan, Golub
    and LeVeque, extended to these moments by Pebay, 2008), and :meth:`statistics` reads off
    the four numbers of :func:`_aggregate`.  Section 4.2 (Jorgensen et al.'s baseline); the
    law of total variance of the book's chapter *Exact loss moments*.
    """

    n: int
    mu: np.ndarray
    v: np.ndarray
    m2: np.ndarray
    m3: np.ndarray
    m4: np.ndarray
    f2: np.ndarray
    c11: np.ndarray
    c21: np.ndarray

    @classmethod
    def of(cls, mu: np.ndarray, v: np.ndarray) -> "_Moments":
        """Moments of one block; the masks run along the last axis (two-pass, mean refined once)."""
        mean_mu = mu.mean(axis=-1)
        mean_mu += (mu - mean_mu[..., None]).mean(axis=-1)
        mean_v = v.mean(axis=-1)
        mean_v += (v - mean_v[..., None]).mean(axis=-1)
        e = mu - mean_mu[..., None]
        f = v - mean_v[..., None]
        e2 = e * e
        return cls(mu.shape[-1], mean_mu, mean_v, e2.sum(axis=-1), (e2 * e).sum(axis=-1),
                   (e2 * e2).sum(axis=-1), (f * f).sum(axis=-1), (e * f).sum(axis=-1),
                   (e2 * f).sum(axis=-1))

    def _shifted(self, a, b):
        """Central sums about ``(mean(mu) + a, mean(v) + b)`` instead of the set's own means."""
        n, m2, m3, c11 = self.n, self.m2, self.m3, self.c11
        return (m2 + n * a * a,
                m3 - 3 * a * m2 - n * a**3,
                self.m4 - 4 * a * m3 + 6 * a * a * m2 + n * a**4,
                self.f2 + n * b * b,
                c11 + n * a * b,
                self.c21 - b * m2 - 2 * a * c11 - n * a * a * b)

    def merge(self, other: "_Moments") -> "_Moments":
        """The moments of the union of two disjoint sets of masks."""
        n = self.n + other.n
        dmu = other.mu - self.mu
        dv = other.v - self.v
        wa, wb = other.n / n, self.n / n  # the first set's mean moves by wa * d, the second's by -wb * d
        mine = self._shifted(wa * dmu, wa * dv)
        theirs = other._shifted(-wb * dmu, -wb * dv)
        return _Moments(n, self.mu + wa * dmu, self.v + wa * dv, *(x + y for x, y in zip(mine, theirs)))

    def statistics(self):
        """Mean, total std and their standard errors, as :func:`_aggregate` computes them.

        With ``c = R/(R-1)``: ``Var mu = m2/(R-1)``; the per-mask contributions to the total
        variance are ``h = c e^2 + v``, whose sum of squared deviations is
        ``c^2 (m4 - m2^2/R) + 2 c c21 + f2``.
        """
        R = self.n
        if R < 2:
            nan = np.full_like(self.mu, np.nan)
            return self.mu, np.sqrt(self.v), nan, nan
        c = R / (R - 1)
        var_mu = self.m2 / (R - 1)
        std = np.sqrt(np.maximum(var_mu + self.v, 0.0))
        ss_h = np.maximum(c * c * (self.m4 - self.m2 * self.m2 / R) + 2 * c * self.c21 + self.f2, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            std_se = np.where(std > 0, np.sqrt(ss_h / (R - 1)) / np.sqrt(R) / (2.0 * std), 0.0)
        return self.mu, std, np.sqrt(var_mu / R), std_se


class _PairwiseSum:
    """Merge the :class:`_Moments` of successive blocks pairwise (a binary-counter tree).

    Blocks of equal weight are merged as soon as both exist, so each mask takes part in
    ``O(log(blocks))`` merges and only ``O(log(blocks))`` partial results are kept.
    """

    def __init__(self):
        self._stack = []  # (level, moments), levels strictly decreasing

    def add(self, moments: _Moments) -> None:
        level = 0
        while self._stack and self._stack[-1][0] == level:
            moments = self._stack.pop()[1].merge(moments)
            level += 1
        self._stack.append((level, moments))

    def total(self) -> _Moments:
        out = self._stack.pop()[1]
        while self._stack:
            out = self._stack.pop()[1].merge(out)
        return out


def _block_moments(points, gen, p_random, R, plan, lam_arr, t, B, loss_u, losses_r):
    """Draw the next ``R`` masks; their kept counts and conditional moments ``(mu, v)``.

    Returns ``k`` of shape ``(R,)`` and ``mu, v`` of shape ``(2, L, R)`` (unregularized, then
    regularized loss; one row per ``lambda``).  Exact over the noise given each mask
    (:meth:`pdp_lib.moments.QuadraticLoss.moments`, theorem *thm-exact-loss-moments*).  The
    masks live only while the Gram matrices are built; the test residuals are formed
    ``plan.residual_rows`` rows at a time.
    """
    gram = _MaskedGram(points, _draw_masks(gen, p_random, R, plan.draw_rows),
                       min(plan.mask_points, points.chunk))
    d = points.d
    L = lam_arr.shape[0]
    mu = np.empty((2, L, R))
    var = np.empty((2, L, R))
    for j, lam in enumerate(lam_arr):
        theta = gram.ridge(lam)
        eta = jorgensen_eta(lam, d, gram.k, t, B)
        for s in range(0, R, plan.residual_rows):
            th, et = theta[s:s + plan.residual_rows], eta[s:s + plan.residual_rows]
            value, grad = loss_u._value_and_gradient(th)
            mom_u = loss_u._moments_from_parts(value, grad, et)
            mom_r = losses_r[j]._moments_from_parts(
                value + lam * np.sum(th * th, axis=1), grad + lam * th, et)
            e = s + th.shape[0]
            mu[0, j, s:e], var[0, j, s:e] = mom_u.mean, mom_u.var
            mu[1, j, s:e], var[1, j, s:e] = mom_r.mean, mom_r.var
    return gram.k, mu, var


def _jorgensen_statistics(X, y, p, t, runs, gen, lam_arr, B, loss_u, losses_r, budget):
    """Kept counts and ``(mean, std, mean_se, std_se)``, each ``(2, L)``, of one Jorgensen variant.

    The masks are drawn and reduced in blocks of :func:`block_size` runs.  One block: the
    two-pass formulas of :func:`_aggregate` over all runs.  Several blocks: each is reduced to
    its :class:`_Moments`, merged pairwise.
    """
    fixed = p >= 1.0
    points = _Points(X, y, fixed, budget)
    L = lam_arr.shape[0]
    plan = _plan(runs, points.n_random, points.d, loss_u.n_test, L, budget)
    size = plan.runs_per_block
    kept = np.empty(runs, dtype=int)
    merged = _PairwiseSum()
    for start in range(0, runs, size):
        stop = min(start + size, runs)
        k, mu, var = _block_moments(points, gen, p[~fixed], stop - start, plan, lam_arr, t, B, loss_u, losses_r)
        kept[start:stop] = k
        if size < runs:
            merged.add(_Moments.of(mu, var))
    if size >= runs:
        stats = np.array([[_aggregate(mu[i, j], var[i, j]) for j in range(L)] for i in range(2)])
        return kept, np.moveaxis(stats, -1, 0)
    return kept, merged.total().statistics()


def evaluate_sweep(X_train, y_train, X_test, y_test, epsilons, lams, *, runs=10_000, rng=None,
                   methods=METHODS, B=None, memory_budget=DEFAULT_MEMORY_BUDGET) -> SweepResult:
    """Mean and standard deviation over runs of every column, for each ``lambda`` in ``lams``.

    Parameters
    ----------
    X_train, y_train : array-like
        Training data in the domain (``[0,1]^d`` features, ``[-1,1]`` labels).
    X_test, y_test : array-like
        Test data in the domain.
    epsilons : array-like of shape (n,)
        The privacy profile of the training points.
    lams : sequence of float
        Ridge parameters, each ``> 0``.
    runs : int, default 10000
        Number of runs; only Jorgensen's Monte Carlo over masks uses it.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of the Jorgensen masks: its first two spawned children drive ``t = max`` and
        ``t = mean``, the next two the choice and the estimate of the Jorgensen oracle (a
        SeedSequence is not mutated, so it gives the same masks every time).
    methods : sequence of str
        Subset of ``METHODS`` and, beyond the paper, ``BEYOND_METHODS`` to compute (the others
        are absent from the result): ``pdp_op_sharp``, ``threshold_public`` and
        ``threshold_oracle`` are exact, ``jorgensen_oracle`` Monte Carlo
        (:mod:`pdp_lib.experiments.beyond`).
    B : float, optional
        Public bound of Assumption 3.1 (Theorem 3.2) for every mechanism; ``None`` uses
        ``B(lambda)`` (Theorem 3.1), as the paper's experiments do.
    memory_budget : float, default DEFAULT_MEMORY_BUDGET (512 MB)
        Bytes of working arrays for the Jorgensen Monte Carlo, finite and ``> 0``: the runs
        are drawn and reduced in blocks of :func:`block_size` runs (the rule is there).  A
        budget too small for one run gives blocks of one run.
        The inputs, the result and ``O(n d)`` copies of the training data are not counted.
        The masks do not depend on the budget, and neither do the statistics (up to
        rounding, relative ``1e-12``); at the paper's sizes the default budget holds all
        runs in one block.

    Returns
    -------
    SweepResult

    Raises
    ------
    ValueError
        If an argument is outside its domain (the message names it), e.g. ``memory_budget``
        not a finite number ``> 0``.
    """
    X = check_features(X_train, "X_train")
    n, d = X.shape
    y = check_labels(y_train, n, "y_train")
    Xt = check_features(X_test, "X_test")
    if Xt.shape[1] != d:
        raise ValueError(f"X_test has {Xt.shape[1]} columns but X_train has {d}; they must match")
    yt = check_labels(y_test, Xt.shape[0], "y_test")
    eps = check_epsilons(epsilons, n)
    lam_arr = np.array([check_positive(v, f"lams[{i}]") for i, v in enumerate(np.atleast_1d(lams))])
    runs = check_count(runs, "runs")
    budget = _check_memory_budget(memory_budget)
    unknown = [m for m in methods if m not in METHODS + BEYOND_METHODS]
    if unknown:
        raise ValueError(f"methods contains {unknown[0]!r}; allowed: {METHODS + BEYOND_METHODS}")
    L = lam_arr.shape[0]
    mean = {}
    std = {}
    mean_se = {}
    std_se = {}
    naive_se = {}
    kept = {}
    thresholds = {}

    def store(col, m, s, mse, sse, nse):
        mean[col], std[col], mean_se[col], std_se[col], naive_se[col] = m, s, mse, sse, nse

    zeros = np.zeros(L)
    loss_u = QuadraticLoss(Xt, yt)
    losses_r = [loss_u.with_penalty(lam) for lam in lam_arr]

    # PDP-OP (Theorem 3.1 weights and eta), the non-personalized baseline and, beyond the
    # paper, PDP-OP calibrated with the exact supremum B*: output perturbation, exact moments.
    calibrated = {"pdp_op": (eps, B), "non_personalized": (np.full(n, eps.min()), B),
                  "pdp_op_sharp": (eps, "sharp")}
    for method, (profile, bound) in calibrated.items():
        if method not in methods:
            continue
        out = {kind: (np.empty(L), np.empty(L)) for kind in ("unreg", "reg")}
        for j, lam in enumerate(lam_arr):
            cal = calibrate(profile, lam, d, bound)
            theta_bar = _weighted_ridge(X, y, np.asarray(cal.weights), lam)
            for kind, loss in (("unreg", loss_u), ("reg", losses_r[j])):
                mom = loss._moments(theta_bar, np.asarray(cal.eta))
                out[kind][0][j], out[kind][1][j] = mom.mean, np.sqrt(mom.var)
        for kind in ("unreg", "reg"):
            m, s = out[kind]
            store(f"{kind}_{method}", m, s, zeros.copy(), zeros.copy(), zeros.copy())

    # Jorgensen et al.: Monte Carlo over masks, exact over the noise given the mask.
    jorg = [m for m in ("jorgensen_max", "jorgensen_mean") if m in methods]
    streams = _streams(rng, 4) if (jorg or "jorgensen_oracle" in methods) else []
    if jorg:
        gens = dict(zip(("jorgensen_max", "jorgensen_mean"), streams[:2]))
        for method in jorg:
            t = jorgensen_threshold(eps, method.split("_")[1])
            thresholds[method] = t
            p = jorgensen_keep_probabilities(eps, t)
            kept[method], stats = _jorgensen_statistics(X, y, p, t, runs, gens[method], lam_arr, B,
                                                         loss_u, losses_r, budget)
            for i, kind in enumerate(("unreg", "reg")):
                m, s, mse, sse = (stat[i] for stat in stats)
                store(f"{kind}_{method}", m, s, mse, sse, s / np.sqrt(runs))

    # Beyond the paper: the threshold rules (exact), the Jorgensen oracle.
    rules = [m for m in ("threshold_public", "threshold_oracle") if m in methods]
    for col, (m, s, chosen) in exact_columns(X, y, eps, loss_u, losses_r, lam_arr, rules, B).items():
        store(col, m, s, zeros.copy(), zeros.copy(), zeros.copy())
        thresholds[col] = chosen
    if "jorgensen_oracle" in methods:
        def statistics(t, r, gen):
            p = jorgensen_keep_probabilities(eps, t)
            return _jorgensen_statistics(X, y, p, t, r, gen, lam_arr, B, loss_u, losses_r, budget)[1]

        known = {thresholds[m]: np.array([[mean[f"{k}_{m}"], std[f"{k}_{m}"], mean_se[f"{k}_{m}"], std_se[f"{k}_{m}"]]
                                           for k in ("unreg", "reg")]).transpose(1, 0, 2) for m in jorg}
        stats, chosen = jorgensen_oracle(statistics, eps, runs, streams[2], streams[3], known=known)
        for i, kind in enumerate(("unreg", "reg")):
            m, s, mse, sse = stats[:, i]
            store(f"{kind}_jorgensen_oracle", m, s, mse, sse, s / np.sqrt(runs))
            thresholds[f"{kind}_jorgensen_oracle"] = chosen[i]

    # Non-private: least squares (unreg) and uniform-weight ridge (reg); no randomness.
    if "non_private" in methods:
        theta_ls = np.linalg.lstsq(X, y, rcond=None)[0]
        unreg = np.full(L, float(loss_u.value(theta_ls)))
        reg = np.array([float(losses_r[j].value(_weighted_ridge(X, y, np.full(n, 1.0 / n), lam)))
                        for j, lam in enumerate(lam_arr)])
        store("unreg_non_private", unreg, zeros.copy(), zeros.copy(), zeros.copy(), zeros.copy())
        store("reg_non_private", reg, zeros.copy(), zeros.copy(), zeros.copy(), zeros.copy())

    order = [c for c in COLUMNS + BEYOND_COLUMNS if c in mean]
    return SweepResult(lams=lam_arr, runs=runs, mean={c: mean[c] for c in order},
                       std={c: std[c] for c in order}, mean_se={c: mean_se[c] for c in order},
                       std_se={c: std_se[c] for c in order}, naive_se={c: naive_se[c] for c in order},
                       kept=kept, thresholds=thresholds)
