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
  in blocks of runs (per-mask Gram matrices ``X^T diag(m) X`` by one matrix product per tile
  of runs, one batched LAPACK solve per block and ``lambda``), and *Rao-Blackwellized* over
  the noise: each mask contributes the exact
  conditional mean ``mu(m)`` and variance ``v(m)`` of the loss given the mask.  The mean is
  estimated by the average of ``mu``, with standard error ``sd(mu)/sqrt(runs)``; the standard
  deviation over runs by the law of total variance, ``sqrt(Var_m mu + E_m v)``.  The same
  masks serve every ``lambda`` of the grid and both losses (common random numbers).
* **Non-private**: deterministic; ``unreg`` is least squares (``lambda = 0``, the authors'
  "type1"), ``reg`` the uniform-weight ridge with ``lambda`` (their "type2"); std 0.

The engine composes the mechanism (:func:`pdp_lib.calibrate`, the weighted ridge of eq. (2))
and the baselines' own pieces (Jorgensen's mask sampler and noise parameter
:func:`pdp_lib.mechanisms.baselines.jorgensen_eta`), and is tested against the single-run implementations
of :mod:`pdp_lib.mechanisms.baselines`.  Derived and measured in the book's chapter *Exact loss moments*
(``book/moments.ipynb``).

Memory.  The masks are drawn and turned into Gram matrices in blocks of runs whose size is
chosen from ``memory_budget`` (:func:`block_size`), so the peak memory of the Monte Carlo does
not grow with ``runs x n``; the conditional moments of every run (``4 L runs`` floats, a few
MB) are kept and reduced once, at the end.  The result does not depend on the block size, bit
for bit: the masks are drawn from the uniforms in the same row-major order, and every matrix
product over runs is made on tiles of ``TILE`` runs aligned on the run index (padded with
zeros) and on chunks of points whose size depends on ``d`` alone, so each run's numbers come
from the same products whatever block it falls in (the rounding of a row of a product can
depend on how many rows it has).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..mechanisms.baselines import draw_masks, jorgensen_eta, jorgensen_keep_probabilities, jorgensen_threshold
from ..mechanisms.output_perturbation import weighted_ridge_unchecked, calibrate
from ..moments import QuadraticLoss
from ..validation import check_count, check_epsilons, check_features, check_labels, check_positive, check_rng
from .beyond import exact_columns, jorgensen_oracle
from .blocks import (  # noqa: F401  (bytes_per_run, tile_spans: the memory plan, re-exported for its tests)
    POINT_SHARE, TILE, TILE_BYTES, DEFAULT_MEMORY_BUDGET, bytes_per_run, check_memory_budget, load_tile,
    plan_blocks, rows_within, tile_spans, block_size,
)
from .targets import BEYOND_COLUMNS, BEYOND_METHODS, COLUMNS, METHODS

__all__ = ["SweepResult", "evaluate_sweep", "jorgensen_masks", "batched_ridge", "block_size",
           "DEFAULT_MEMORY_BUDGET"]


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


def jorgensen_masks(epsilons, t, runs, rng=None, *, memory_budget=DEFAULT_MEMORY_BUDGET) -> np.ndarray:
    """``runs`` independent draws of Jorgensen et al.'s sample, shape ``(runs, n)`` (bool).

    Row ``r`` equals the ``r``-th of ``runs`` successive calls of
    :func:`pdp_lib.mechanisms.baselines.jorgensen_mask` on the same generator: one uniform per point
    whose keep probability is below 1, in index order; the other points are always kept.
    The uniforms are drawn a few rows at a time, as many as fit in ``memory_budget`` bytes
    (the result itself, one byte per entry, is not counted); the masks do not depend on the
    budget.
    """
    p = jorgensen_keep_probabilities(epsilons, t)
    runs = check_count(runs, "runs")
    gen = check_rng(rng)
    rows = rows_within(runs, 8 * max(1, p.shape[0]), check_memory_budget(memory_budget))
    rand = p < 1.0
    masks = np.ones((runs, p.shape[0]), dtype=bool)
    for start in range(0, runs, rows):
        stop = min(start + rows, runs)
        masks[start:stop, rand] = draw_masks(gen, p[rand], stop - start, rows)
    return masks


class _Points:
    """The training points' share of the per-mask sufficient statistics (eq. (2), ``w = 1/k``).

    For the points drawn at random (``~fixed``): the upper triangles ``P`` of the ``x_i x_i^T``
    (``np.triu_indices`` order, column-major as ``X[:, iu] * X[:, ju]`` is) and the
    ``x_i y_i``; for the always-kept points, their sums.  The points are taken ``chunk`` at a
    time, a number that does not depend on the budget (a tile of runs over a chunk of points,
    as floats, and the chunk's products fit in ``TILE_BYTES``; all the points when they
    fit, as at the paper's sizes).  ``P`` is built once when it fits in a quarter of
    ``memory_budget`` (always at the paper's sizes); otherwise :meth:`products` forms it a
    chunk at a time, in a buffer.  Either way the products are the same numbers.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, fixed: np.ndarray, memory_budget: float):
        self.d = d = X.shape[1]
        self.T = T = d * (d + 1) // 2
        self._off = np.concatenate(([0], np.cumsum(np.arange(d, 0, -1))))  # row i of the triangle
        self.chunk = rows_within(max(1, X.shape[0]), 8 * (TILE + T), TILE_BYTES)  # points per chunk
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
        whole = 8 * self.n_random * T <= POINT_SHARE * memory_budget
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
    ``M @ P`` and ``M @ (x_i y_i)`` (``M`` the 0/1 matrix of a tile of masks, as floats,
    ``points.chunk`` points at a time; ``P`` the upper triangles of the ``x_i x_i^T``, see
    :class:`_Points`), so the cost is one BLAS call per tile and chunk instead of one Python
    iteration per mask.  ``masks`` are the runs ``start, start + 1, ...``; the tiles are
    aligned on the run index (:func:`tile_spans`), so a run's statistics do not depend on
    ``start`` or on the number of masks.
    """

    def __init__(self, points: _Points, masks: np.ndarray, start: int = 0):
        R = masks.shape[0]
        d = points.d
        iu, ju = np.triu_indices(d)
        pos = np.empty((d, d), dtype=np.intp)  # index of entry (i, j) in the triangle
        pos[iu, ju] = np.arange(iu.size)
        pos[ju, iu] = pos[iu, ju]
        tri, b = np.zeros((R, points.T)), np.zeros((R, d))
        buffer = np.empty((TILE, min(points.chunk, points.n_random)))
        for s in range(0, points.n_random, points.chunk):
            e = min(s + points.chunk, points.n_random)
            P, Xry, tile = points.products(s, e), points.Xry[s:e], buffer[:, :e - s]
            for in_tile, in_block in tile_spans(start, R):
                M = load_tile(tile, in_tile, masks[in_block, s:e])
                if s == 0:
                    tri[in_block], b[in_block] = (M @ P)[in_tile], (M @ Xry)[in_tile]
                else:
                    tri[in_block] += (M @ P)[in_tile]
                    b[in_block] += (M @ Xry)[in_tile]
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
            theta = _solve_stack(self.G, self.b)
        finally:
            self.G[:, diag, diag] = self._diag
        theta[self.empty] = 0.0
        return theta


_SOLVE_THREADS = min(os.cpu_count() or 1, 4)
_SOLVE_MIN_ROWS = 2048   # below this, one call: a thread's overhead would outweigh its share
_solve_pool = None


def _solve_stack(G: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.linalg.solve(G, b[..., None])[..., 0]`` for a stack ``G`` of shape ``(R, d, d)``.

    Large stacks are cut into contiguous parts solved in threads (NumPy's batched solve releases
    the GIL and calls LAPACK once per matrix), so the result is the same bit for bit, each
    matrix being solved by the same routine on the same numbers whatever the parts.
    """
    global _solve_pool
    R = G.shape[0]
    if _SOLVE_THREADS < 2 or R < _SOLVE_MIN_ROWS:
        return np.linalg.solve(G, b[..., None])[..., 0]
    if _solve_pool is None:
        _solve_pool = ThreadPoolExecutor(_SOLVE_THREADS, thread_name_prefix="pdp_lib-solve")
    cuts = np.linspace(0, R, _SOLVE_THREADS + 1).astype(int)
    parts = [_solve_pool.submit(np.linalg.solve, G[lo:hi], b[lo:hi, :, None])
             for lo, hi in zip(cuts[:-1], cuts[1:])]
    return np.concatenate([part.result()[..., 0] for part in parts])


def _test_parts(loss: QuadraticLoss, theta: np.ndarray, start: int):
    """``L(theta)`` and ``g`` (:meth:`pdp_lib.moments.QuadraticLoss.half_gradient`) for each row.

    The unregularized test loss of ``loss`` at the rows of ``theta``, the runs ``start,
    start + 1, ...``: the residuals are formed on tiles of runs aligned on the run index
    (:func:`tile_spans`) and on chunks of test points whose size does not depend on the budget,
    so a run's values do not depend on ``start`` or on the number of rows.  With one chunk
    (all the test points at the paper's sizes) the arithmetic is that of
    :meth:`~pdp_lib.moments.QuadraticLoss.moments`.
    """
    X, y, N = loss.X, loss.y, loss.n_test
    step = rows_within(N, 8 * TILE, TILE_BYTES)  # test points per chunk of residuals
    value, grad = np.empty(theta.shape[0]), np.empty(theta.shape)
    tile, buffer = np.empty((TILE, theta.shape[1])), np.empty((TILE, step))
    for in_tile, in_block in tile_spans(start, theta.shape[0]):
        th = load_tile(tile, in_tile, theta[in_block])
        total = gsum = None
        for s in range(0, N, step):
            Xc = X[s:s + step]
            resid = np.matmul(th, Xc.T, out=buffer[:, :Xc.shape[0]])
            resid -= y[s:s + step]
            g = resid @ Xc
            sq = np.sum(np.multiply(resid, resid, out=resid), axis=-1)
            total, gsum = (sq, g) if total is None else (total + sq, gsum + g)
        value[in_block], grad[in_block] = total[in_tile] / N, gsum[in_tile] / N
    return value, grad


def batched_ridge(X, y, masks, lam, *, memory_budget=DEFAULT_MEMORY_BUDGET) -> np.ndarray:
    """Uniform-weight ridge (eq. (2)) on the kept points of each mask: shape ``(R, d)``.

    ``lam`` may also be a sequence of ``L`` values: the result is then ``(L, R, d)``, each mask's
    Gram matrix formed once for all of them, and row ``j`` is bit for bit what ``lam[j]`` alone gives.

    Row ``r`` solves ``(X_m^T X_m / k + lam I) theta = X_m^T y_m / k`` for the ``k`` points
    kept by ``masks[r]``; an empty mask gives ``theta = 0`` (the minimizer of
    ``lam ||theta||^2``).  The masks are processed in blocks of rows chosen from
    ``memory_budget`` bytes as in :func:`block_size` (``masks`` itself is not counted); the
    result does not depend on the budget, bit for bit.
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
    several = np.ndim(lam) == 1
    lams = [check_positive(v, "lam") for v in (lam if several else [lam])]
    budget = check_memory_budget(memory_budget)
    R, (n, d) = masks.shape[0], X.shape
    points = _Points(X, y, np.zeros(n, dtype=bool), budget)
    size = plan_blocks(R, n, d, budget).runs_per_block
    theta = np.empty((len(lams), R, d))
    for start in range(0, R, size):
        block = masks[start:start + size]
        gram = _MaskedGram(points, block, start)
        for j, v in enumerate(lams):
            theta[j, start:start + block.shape[0]] = gram.ridge(v)
    return theta if several else theta[0]


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


def _jorgensen_statistics(X, y, p, t, runs, gen, lam_arr, B, loss_u, losses_r, budget):
    """Kept counts and ``(mean, std, mean_se, std_se)``, each ``(2, L)``, of one Jorgensen variant.

    The masks are drawn and turned into Gram matrices in blocks of :func:`block_size` runs;
    each run's conditional moments ``(mu, v)`` of both losses (unregularized, then
    regularized; one row per ``lambda``) are exact over the noise given its mask
    (:meth:`pdp_lib.moments.QuadraticLoss.moments`, theorem *thm-exact-loss-moments*) and
    kept for all runs, then reduced once by :func:`_aggregate`.
    """
    fixed = p >= 1.0
    points = _Points(X, y, fixed, budget)
    d, L = points.d, lam_arr.shape[0]
    plan = plan_blocks(runs, points.n_random, d, budget)
    kept = np.empty(runs, dtype=int)
    mu, var = np.empty((2, L, runs)), np.empty((2, L, runs))
    for start in range(0, runs, plan.runs_per_block):
        stop = min(start + plan.runs_per_block, runs)
        gram = _MaskedGram(points, draw_masks(gen, p[~fixed], stop - start, plan.draw_rows), start)
        kept[start:stop] = gram.k
        for j, lam in enumerate(lam_arr):
            theta = gram.ridge(lam)
            eta = jorgensen_eta(lam, d, gram.k, t, B)
            value, grad = _test_parts(loss_u, theta, start)
            mom_u = loss_u.moments_from_parts(value, grad, eta)
            mom_r = losses_r[j].moments_from_parts(value + lam * np.sum(theta * theta, axis=1),
                                                    grad + lam * theta, eta)
            mu[0, j, start:stop], var[0, j, start:stop] = mom_u.mean, mom_u.var
            mu[1, j, start:stop], var[1, j, start:stop] = mom_r.mean, mom_r.var
    stats = np.array([[_aggregate(mu[i, j], var[i, j]) for j in range(L)] for i in range(2)])
    return kept, np.moveaxis(stats, -1, 0)


class _OnDemand(Mapping):
    """A read-only mapping ``{key: f()}`` whose values are computed when read."""

    def __init__(self, functions: dict):
        self._functions = functions

    def __getitem__(self, key):
        return self._functions[key]()

    def __iter__(self):
        return iter(self._functions)

    def __len__(self):
        return len(self._functions)


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
        SeedSequence is not mutated, so it gives the same masks every time).  When the oracle
        chooses ``t = max`` or ``t = mean`` it reports that column's estimate, whether or not
        the column is asked for, so every column is the same whatever else is computed.
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
        The inputs, the result, the conditional moments of every run (``4 L runs`` floats),
        ``O(n d)`` copies of the training data and a fixed working set of 32 MiB for the
        matrix products are not counted.  Neither the masks nor the statistics depend on
        the budget, bit for bit; nor does a ``lambda``'s column depend on the other values
        of ``lams``.

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
    budget = check_memory_budget(memory_budget)
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
            theta_bar = weighted_ridge_unchecked(X, y, np.asarray(cal.weights), lam)
            for kind, loss in (("unreg", loss_u), ("reg", losses_r[j])):
                mom = loss.moments_unchecked(theta_bar, np.asarray(cal.eta))
                out[kind][0][j], out[kind][1][j] = mom.mean, np.sqrt(mom.var)
        for kind in ("unreg", "reg"):
            m, s = out[kind]
            store(f"{kind}_{method}", m, s, zeros.copy(), zeros.copy(), zeros.copy())

    # Jorgensen et al.: Monte Carlo over masks, exact over the noise given the mask.
    paper_variants = ("jorgensen_max", "jorgensen_mean")
    oracle = "jorgensen_oracle" in methods
    streams = _streams(rng, 4) if oracle or any(m in methods for m in paper_variants) else []
    paper_t = {m: jorgensen_threshold(eps, m.split("_")[1]) for m in paper_variants}
    done = {}

    def paper_statistics(method):  # kept counts and statistics of t = max (or mean) on its own stream
        if method not in done:
            t = paper_t[method]
            done[method] = _jorgensen_statistics(X, y, jorgensen_keep_probabilities(eps, t), t, runs,
                                                 streams[paper_variants.index(method)], lam_arr, B,
                                                 loss_u, losses_r, budget)
        return done[method]

    for method in (m for m in paper_variants if m in methods):
        thresholds[method] = paper_t[method]
        kept[method], stats = paper_statistics(method)
        for i, kind in enumerate(("unreg", "reg")):
            m, s, mse, sse = (stat[i] for stat in stats)
            store(f"{kind}_{method}", m, s, mse, sse, s / np.sqrt(runs))

    # Beyond the paper: the threshold rules (exact), the Jorgensen oracle.
    rules = [m for m in ("threshold_public", "threshold_oracle") if m in methods]
    for col, (m, s, chosen) in exact_columns(X, y, eps, loss_u, losses_r, lam_arr, rules, B).items():
        store(col, m, s, zeros.copy(), zeros.copy(), zeros.copy())
        thresholds[col] = chosen
    if oracle:
        def statistics(t, r, gen):
            p = jorgensen_keep_probabilities(eps, t)
            return _jorgensen_statistics(X, y, p, t, r, gen, lam_arr, B, loss_u, losses_r, budget)[1]

        # t = max and t = mean reuse the paper's columns (t = mean's when both are equal)
        known = _OnDemand({paper_t[m]: (lambda m=m: paper_statistics(m)[1]) for m in paper_variants})
        stats, chosen = jorgensen_oracle(statistics, eps, runs, streams[2], streams[3], known=known)
        for i, kind in enumerate(("unreg", "reg")):
            m, s, mse, sse = stats[:, i]
            store(f"{kind}_jorgensen_oracle", m, s, mse, sse, s / np.sqrt(runs))
            thresholds[f"{kind}_jorgensen_oracle"] = chosen[i]

    # Non-private: least squares (unreg) and uniform-weight ridge (reg); no randomness.
    if "non_private" in methods:
        theta_ls = np.linalg.lstsq(X, y, rcond=None)[0]
        unreg = np.full(L, float(loss_u.value(theta_ls)))
        reg = np.array([float(losses_r[j].value(weighted_ridge_unchecked(X, y, np.full(n, 1.0 / n), lam)))
                        for j, lam in enumerate(lam_arr)])
        store("unreg_non_private", unreg, zeros.copy(), zeros.copy(), zeros.copy(), zeros.copy())
        store("reg_non_private", reg, zeros.copy(), zeros.copy(), zeros.copy(), zeros.copy())

    order = [c for c in COLUMNS + BEYOND_COLUMNS if c in mean]
    return SweepResult(lams=lam_arr, runs=runs, mean={c: mean[c] for c in order},
                       std={c: std[c] for c in order}, mean_se={c: mean_se[c] for c in order},
                       std_se={c: std_se[c] for c in order}, naive_se={c: naive_se[c] for c in order},
                       kept=kept, thresholds=thresholds)
