r"""Privacy audits of PDP-OP: worst neighbours, exact privacy loss, black-box tests.

Three tools, all beyond the paper, that check its privacy claims (Theorem A.4,
Lemma A.5, Theorems 3.1 and 3.2) from the outside:

* **Worst neighbour.**  For a dataset ``D`` and a slot ``i``, search the domain
  ``x' in [0,1]^d``, ``y' in [-1,1]`` for the replacement that moves the weighted
  ridge solution of eq. (2) the most.  Replacing one point is a rank-one
  downdate followed by a rank-one update of the matrix
  ``H = sum_j w_j x_j x_j^T + lam I``, so every candidate costs ``O(d^2)``
  (Sherman--Morrison); the search runs a projected gradient ascent vectorized
  over all slots and many starts, and :func:`worst_neighbour` polishes one slot
  with ``scipy.optimize`` (L-BFGS-B, multi-start).  Every search starts from the
  records of :func:`vertex_lower_bound` and only accepts improvements, so it can
  never report less than that certified lower bound on the supremum.
* **Exact privacy loss.**  For output perturbation with a fixed ``eta`` the
  privacy loss between ``D`` and ``D'`` is exactly
  ``eta * ||theta_bar(D) - theta_bar(D')||`` (the supremum of the log density
  ratio; attained along the direction of the difference).
  :func:`realized_privacy_loss` reports it per point against ``epsilon_i``.
* **Black-box audit.**  Sample the mechanism on ``D`` and ``D'``, build a
  threshold test on a held-out half, and turn its error rates into a
  Clopper--Pearson lower bound on ``epsilon`` (Clopper and Pearson 1934;
  Jagielski et al. 2020).

Derived and used in the book's chapters *Sensitivity of the weighted ridge
solution* (``book/sensitivity.ipynb``), *Privacy of PDP-OP* (``book/privacy.ipynb``)
and *What the guarantee does not cover* (``book/limits.ipynb``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from .bounds import sensitivity_bound
from .mechanism import _weighted_ridge, calibrate, sample_l2_laplace, weighted_ridge
from .validation import (
    check_count,
    check_epsilons,
    check_features,
    check_finite,
    check_fraction,
    check_labels,
    check_positive,
    check_rng,
    check_weights,
)

__all__ = [
    "NormSearch",
    "largest_norm_dataset",
    "unregularized_solution",
    "ReplacementGeometry",
    "WorstNeighbour",
    "worst_neighbour",
    "worst_neighbours",
    "vertex_lower_bound",
    "RealizedLoss",
    "realized_privacy_loss",
    "log_density_ratio",
    "sample_mechanism",
    "projection_scores",
    "likelihood_ratio_scores",
    "clopper_pearson",
    "epsilon_lower_bound",
    "AuditResult",
    "threshold_audit",
    "jorgensen_log_density",
]


# --------------------------------------------------------------------------- Lemma A.1
@dataclass(frozen=True)
class NormSearch:
    """A dataset found by :func:`largest_norm_dataset`.

    Attributes
    ----------
    norm : float
        ``||theta_bar||`` of the dataset, recomputed with the library's solver.
    X, y, weights : numpy.ndarray
        The dataset (in the domain) and its weights.
    """

    norm: float
    X: np.ndarray
    y: np.ndarray
    weights: np.ndarray


def largest_norm_dataset(lam, d, n=2, n_starts=6, rng=None) -> NormSearch:
    r"""Search the domain for the dataset with the largest ``||theta_bar||`` (checks Lemma A.1).

    Maximizes ``||theta_bar||`` of eq. (2) jointly over ``n`` points
    ``x_j in [0,1]^d``, labels ``y_j in [-1,1]`` and the weights (written
    ``w_j = a_j / sum a`` with ``a_j in [0.01, 1]``) with L-BFGS-B from
    ``n_starts`` random starts.  The search knows nothing about the answer; the
    book's chapter *Sensitivity of the weighted ridge solution*
    (``book/sensitivity.ipynb``) compares what it finds with Lemma A.1 and with
    :func:`pdp_lib.bounds.sharp_norm_bound`.

    Parameters
    ----------
    lam : float
        ``lambda > 0``.
    d, n : int
        Dimension and number of points.
    n_starts : int
    rng : None, int or numpy.random.Generator

    Returns
    -------
    NormSearch
    """
    lam = check_positive(lam, "lam")
    d = check_count(d, "d")
    n = check_count(n, "n")
    n_starts = check_count(n_starts, "n_starts")
    gen = check_rng(rng)
    bounds = [(0.0, 1.0)] * (n * d) + [(-1.0, 1.0)] * n + [(0.01, 1.0)] * n

    def unpack(z):
        X = z[: n * d].reshape(n, d)
        y = z[n * d: n * d + n]
        a = z[n * d + n:]
        return X, y, a / a.sum()

    def neg(z):  # minus the log of the norm: scale-free, so the tolerances mean the same for every lam
        X, y, w = unpack(z)
        return -float(np.log(np.linalg.norm(_weighted_ridge(X, y, w, lam)) + 1e-300))

    best = None
    for _ in range(n_starts):
        z0 = np.array([gen.uniform(lo, hi) for lo, hi in bounds])
        res = optimize.minimize(neg, z0, method="L-BFGS-B", bounds=bounds,
                                options={"ftol": 1e-14, "gtol": 1e-10})
        if best is None or res.fun < best.fun:
            best = res
    X, y, w = unpack(np.clip(best.x, [b[0] for b in bounds], [b[1] for b in bounds]))
    return NormSearch(norm=float(np.linalg.norm(weighted_ridge(X, y, w, lam))), X=X, y=y, weights=w)


def unregularized_solution(X, y, weights) -> np.ndarray:
    r"""The ``theta_bar_0`` of Assumption 3.1: the least-norm minimizer of the unregularized weighted loss.

    The loss is ``sum_i w_i (y_i - theta^T x_i)^2``.

    When ``X^T W X`` is singular (for example one-hot blocks plus an intercept, as
    in the Medical Cost data) the minimizers form an affine subspace with
    unbounded norms; the one of least norm, ``(W^{1/2} X)^+ W^{1/2} y``, is the
    only reading of Assumption 3.1 that can hold, and every minimizer ``theta_0``
    satisfies ``||theta_bar_lam|| <= ||theta_0||`` anyway (proved in the book's
    chapter *Privacy of PDP-OP*, ``book/privacy.ipynb``).  Computed with
    ``numpy.linalg.lstsq``.

    Returns
    -------
    numpy.ndarray of shape (d,)
    """
    X = check_features(X)
    n, _ = X.shape
    y = check_labels(y, n)
    w = check_weights(weights, n)
    sw = np.sqrt(w)
    return np.linalg.lstsq(X * sw[:, None], y * sw, rcond=None)[0]


# --------------------------------------------------------------------------- geometry
class ReplacementGeometry:
    r"""The weighted ridge solution of eq. (2) with one point replaced, in ``O(d^2)`` per candidate.

    Write ``H = sum_j w_j x_j x_j^T + lam I`` and ``b = sum_j w_j y_j x_j`` for the
    dataset ``D``, so ``theta_bar = H^{-1} b``.  Removing point ``i`` leaves
    ``K_i = H - w_i x_i x_i^T`` (still ``>= lam I``) and
    ``theta_i^- = K_i^{-1} (b - w_i y_i x_i)``.  Putting a record ``(u, v)`` into
    slot ``i`` gives, by the Sherman--Morrison formula,

    .. math::

        \bar\theta(D_{i \leftarrow (u,v)}) = \theta_i^- + \varphi_i(u, v),\qquad
        \varphi_i(u, v) = \frac{w_i\, K_i^{-1} u\, (v - u^\top \theta_i^-)}
                               {1 + w_i\, u^\top K_i^{-1} u},

    and ``theta_bar(D) - theta_bar(D') = phi_i(x_i, y_i) - phi_i(u, v)``.  The
    map ``phi_i`` is affine in ``v`` for fixed ``u``, so the norm of a difference
    is convex in the labels and its maximum over ``[-1, 1]`` sits at ``v = +-1``.
    Derived in the book's chapter *Sensitivity of the weighted ridge solution*
    (``book/sensitivity.ipynb``).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Features in ``[0, 1]``.
    y : array-like of shape (n,)
        Labels in ``[-1, 1]``.
    weights : array-like of shape (n,)
        Non-negative weights summing to one.
    lam : float
        ``lambda > 0``.
    indices : array-like of int, optional
        Slots to prepare (all by default).

    Attributes
    ----------
    theta_bar : numpy.ndarray of shape (d,)
    indices : numpy.ndarray of shape (m,)
    K_inv : numpy.ndarray of shape (m, d, d)
        ``K_i^{-1}`` for each prepared slot.
    theta_minus : numpy.ndarray of shape (m, d)
        ``theta_i^-``, the solution without point ``i``.
    own_shift : numpy.ndarray of shape (m, d)
        ``phi_i(x_i, y_i) = theta_bar - theta_i^-``.
    """

    def __init__(self, X, y, weights, lam, indices=None):
        X = check_features(X)
        n, d = X.shape
        y = check_labels(y, n)
        w = check_weights(weights, n)
        lam = check_positive(lam, "lam")
        self.X, self.y, self.w, self.lam = X, y, w, lam
        self.n, self.d = n, d
        self.indices = _check_indices(indices, n)
        Xw = X * w[:, None]
        H = Xw.T @ X + lam * np.eye(d)
        b = Xw.T @ y
        self.theta_bar = np.linalg.solve(H, b)
        idx = self.indices
        xi, wi, yi = X[idx], w[idx], y[idx]
        K = H[None, :, :] - wi[:, None, None] * xi[:, :, None] * xi[:, None, :]
        self.K_inv = np.linalg.inv(K)
        self.K_inv = 0.5 * (self.K_inv + np.swapaxes(self.K_inv, 1, 2))
        rhs = b[None, :] - (wi * yi)[:, None] * xi
        self.theta_minus = np.einsum("mjk,mk->mj", self.K_inv, rhs)
        self.own_shift = self.theta_bar[None, :] - self.theta_minus

    def phi(self, U, V, slots=None) -> np.ndarray:
        r"""``phi_i(u, v)`` of eq. (2) with slot ``i`` replaced, for many candidates at once.

        ``U`` has shape ``(m, d)`` or ``(m, s, d)``, ``V`` shape ``(m,)`` or ``(m, s)``.
        The leading axis runs over the prepared slots, or over ``slots`` (positions
        into :attr:`indices`) when given.
        """
        U, V, squeeze = self._candidates(U, V)
        P, tm, w = self._slot_arrays(slots)
        ph, _ = _phi_and_vjp(P, tm, w, U, V, None)
        return ph[:, 0] if squeeze else ph

    def replaced(self, U, V, slots=None) -> np.ndarray:
        """``theta_bar`` of the dataset with slot ``i`` replaced by ``(u, v)``; shapes as in :meth:`phi`."""
        U, V, squeeze = self._candidates(U, V)
        P, tm, w = self._slot_arrays(slots)
        ph, _ = _phi_and_vjp(P, tm, w, U, V, None)
        out = tm + ph
        return out[:, 0] if squeeze else out

    @staticmethod
    def _candidates(U, V):
        U = np.asarray(U, dtype=float)
        V = np.asarray(V, dtype=float)
        squeeze = U.ndim == 2
        if squeeze:
            U, V = U[:, None, :], V[:, None]
        return U, V, squeeze

    def _slot_arrays(self, slots):
        pos = np.arange(len(self.indices)) if slots is None else np.atleast_1d(np.asarray(slots))
        P = self.K_inv[pos][:, None, :, :]
        tm = self.theta_minus[pos][:, None, :]
        w = self.w[self.indices[pos]][:, None]
        return P, tm, w


def _matvec(P, U):
    # P: (m, 1, ..., d, d) broadcast against U: (m, s, ..., d)
    return np.squeeze(P @ U[..., None], axis=-1)


def _check_indices(indices, n: int) -> np.ndarray:
    if indices is None:
        return np.arange(n)
    arr = np.atleast_1d(np.asarray(indices))
    if arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"indices must be a non-empty 1-D array of integers, got {indices!r}")
    bad = (arr < 0) | (arr >= n)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"indices[{k}] = {int(arr[k])} is outside the allowed range [0, {n - 1}]")
    return arr.astype(int)


def _phi_and_vjp(P, tm, w, U, v, r):
    """``phi(u, v)`` and the vector-Jacobian product ``(d phi / d u)^T r``.

    Shapes: ``P`` (m, 1, d, d), ``tm`` (m, 1, d), ``w`` (m, 1), ``U`` (m, s, d),
    ``v`` (m, s) or broadcastable, ``r`` (m, s, d) or None (then only ``phi``).
    """
    p = _matvec(P, U)
    q = np.sum(U * p, axis=-1)
    s = v - np.sum(U * tm, axis=-1)
    den = 1.0 + w * q
    phi = (w * s / den)[..., None] * p
    if r is None:
        return phi, None
    Pr = _matvec(P, r)
    pr = np.sum(p * r, axis=-1)
    vjp = (w / den)[..., None] * (s[..., None] * Pr
                                  - pr[..., None] * (tm + (2.0 * w * s / den)[..., None] * p))
    return phi, vjp


# --------------------------------------------------------------------------- search
def _ascent(objective, Z0, n_iter: int, lower: float = 0.0, upper: float = 1.0):
    """Projected gradient ascent on the box, vectorized over problems, with per-problem backtracking.

    ``objective(Z) -> (f, grad)`` for ``Z`` of shape ``(m, s, k)``.  Steps are taken along the
    normalized gradient with a per-problem length ``t`` that doubles after a success and halves
    after a failure; a step is accepted only if it increases ``f`` (monotone ascent).
    """
    Z = np.clip(Z0, lower, upper)
    f, g = objective(Z)
    t = np.full(f.shape, 0.25)
    for _ in range(n_iter):
        gn = np.linalg.norm(g, axis=-1)
        direction = g / np.where(gn > 0, gn, 1.0)[..., None]
        Zn = np.clip(Z + t[..., None] * direction, lower, upper)
        fn, gnew = objective(Zn)
        ok = fn > f
        Z = np.where(ok[..., None], Zn, Z)
        f = np.where(ok, fn, f)
        g = np.where(ok[..., None], gnew, g)
        t = np.where(ok, np.minimum(2.0 * t, 1.0), 0.5 * t)
        t = np.maximum(t, 1e-12)
    return Z, f


def _starts(gen, m: int, s: int, d: int, anchor=None) -> np.ndarray:
    """Start points in ``[0,1]^d``: a quarter random vertices, the rest uniform; the anchor first."""
    Z = gen.random((m, s, d))
    n_vert = s // 4
    if n_vert:
        Z[:, 1:1 + n_vert] = (gen.random((m, n_vert, d)) < 0.5).astype(float)
    Z[:, 0] = 1.0  # the all-ones vertex: the largest feature vector of the domain
    if anchor is not None and s > 1 + n_vert:
        Z[:, 1 + n_vert] = anchor
    return Z


@dataclass(frozen=True)
class WorstNeighbour:
    r"""The worst replacement found for each slot.

    Attributes
    ----------
    indices : numpy.ndarray of shape (m,)
        Slots searched.
    distance : numpy.ndarray of shape (m,)
        ``||theta_bar(D_a) - theta_bar(D_b)||`` for the records found, recomputed
        with the library's solver on the modified datasets (not from the search's
        own formulas).
    x_a, y_a : numpy.ndarray
        First record of the pair (the slot's own record unless ``pair=True``).
    x_b, y_b : numpy.ndarray
        The replacement record (shapes ``(m, d)`` and ``(m,)``).
    pair : bool
        Whether both records were free (privacy of slot ``i`` given the others)
        or the first was the slot's own record (local sensitivity at ``D``).
    """

    indices: np.ndarray
    distance: np.ndarray
    x_a: np.ndarray
    y_a: np.ndarray
    x_b: np.ndarray
    y_b: np.ndarray
    pair: bool


def _search(geom: ReplacementGeometry, n_starts: int, n_iter: int, gen, pair: bool):
    """Best records for every prepared slot (vectorized projected ascent); returns arrays."""
    m, d = len(geom.indices), geom.d
    P = geom.K_inv[:, None, :, :]
    tm = geom.theta_minus[:, None, :]
    w = geom.w[geom.indices][:, None]
    own_x = geom.X[geom.indices]
    if not pair:
        signs = np.repeat([1.0, -1.0], n_starts)[None, :]  # (1, 2s)
        c = geom.own_shift[:, None, :]

        def objective(U):
            phi, _ = _phi_and_vjp(P, tm, w, U, signs, None)
            r = c - phi
            _, vjp = _phi_and_vjp(P, tm, w, U, signs, r)
            return np.sum(r * r, axis=-1), -2.0 * vjp

        U0 = np.concatenate([_starts(gen, m, n_starts, d, own_x)] * 2, axis=1)
        U, f = _ascent(objective, U0, n_iter)
        best = np.argmax(f, axis=1)
        rows = np.arange(m)
        xb, yb = U[rows, best], signs[0, best]
        return own_x.copy(), geom.y[geom.indices].copy(), xb, yb
    # both records free: labels at the corners (+,+), (+,-), (-,-) (the fourth is a swap)
    pairs = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]])
    va = np.repeat(pairs[:, 0], n_starts)[None, :]
    vb = np.repeat(pairs[:, 1], n_starts)[None, :]

    def objective(Z):
        A, Bm = Z[..., :d], Z[..., d:]
        pa, _ = _phi_and_vjp(P, tm, w, A, va, None)
        pb, _ = _phi_and_vjp(P, tm, w, Bm, vb, None)
        r = pa - pb
        _, ga = _phi_and_vjp(P, tm, w, A, va, r)
        _, gb = _phi_and_vjp(P, tm, w, Bm, vb, r)
        return np.sum(r * r, axis=-1), np.concatenate([2.0 * ga, -2.0 * gb], axis=-1)

    k = 3 * n_starts
    A0 = np.concatenate([_starts(gen, m, n_starts, d, own_x) for _ in range(3)], axis=1)
    B0 = gen.random((m, k, d))
    B0[:, ::n_starts] = 0.0  # the zero record: phi = 0
    # the (+, -) block starts from both records at the all-ones vertex: the pair of vertex_lower_bound,
    # so the monotone ascent can never end below that certified lower bound
    B0[:, n_starts] = 1.0
    Z, f = _ascent(objective, np.concatenate([A0, B0], axis=-1), n_iter)
    best = np.argmax(f, axis=1)
    rows = np.arange(m)
    return Z[rows, best, :d], va[0, best], Z[rows, best, d:], vb[0, best]


def _verified_distance(geom: ReplacementGeometry, xa, ya, xb, yb) -> np.ndarray:
    """Distances recomputed by solving eq. (2) on the two modified datasets."""
    out = np.empty(len(geom.indices))
    for k, i in enumerate(geom.indices):
        Xa, Ya = geom.X.copy(), geom.y.copy()
        Xa[i], Ya[i] = xa[k], ya[k]
        Xb, Yb = geom.X.copy(), geom.y.copy()
        Xb[i], Yb[i] = xb[k], yb[k]
        out[k] = np.linalg.norm(_weighted_ridge(Xa, Ya, geom.w, geom.lam)
                                - _weighted_ridge(Xb, Yb, geom.w, geom.lam))
    return out


def vertex_lower_bound(X, y, weights, lam, *, indices=None, pair=False) -> np.ndarray:
    r"""The distance moved by explicit records at the all-ones vertex: a certified lower bound on the worst case.

    For each slot ``i`` (all by default) and the all-ones vertex ``1`` of the cube,

    * ``pair=False``: ``max_{v = +-1} ||theta_bar(D) - theta_bar(D_{i <- (1, v)})||``, a lower
      bound on the local sensitivity ``sup_{D'} ||theta_bar(D) - theta_bar(D')||`` at ``D``;
    * ``pair=True``: ``||theta_bar(D_{i <- (1, +1)}) - theta_bar(D_{i <- (1, -1)})||``, a lower
      bound on the largest distance between two datasets that differ only in slot ``i``.

    Both are distances of records in the domain, so the supremum (and Theorem A.4's bound) is
    at least as large.  :func:`worst_neighbours` and :func:`worst_neighbour` start from exactly
    these records and accept only improvements, so a search that reports less than this value
    is broken: checks of the search compare it with this value from below, and with Theorem A.4
    from above.  Computed with :class:`ReplacementGeometry` (eq. (2) with one point replaced).

    Parameters
    ----------
    X, y, weights, lam
        As in :func:`pdp_lib.weighted_ridge`.
    indices : array-like of int, optional
        Slots (all by default).
    pair : bool, default False

    Returns
    -------
    numpy.ndarray of shape (m,)
    """
    geom = ReplacementGeometry(X, y, weights, lam, indices)
    m, d = len(geom.indices), geom.d
    U = np.ones((m, 2, d))
    V = np.tile([1.0, -1.0], (m, 1))
    theta = geom.replaced(U, V)                                        # (m, 2, d)
    if pair:
        return np.linalg.norm(theta[:, 0] - theta[:, 1], axis=-1)
    return np.max(np.linalg.norm(theta - geom.theta_bar[None, None, :], axis=-1), axis=1)


def worst_neighbours(X, y, weights, lam, *, indices=None, pair=False, n_starts=8, n_iter=150,
                     rng=None) -> WorstNeighbour:
    r"""Worst replacement of each slot, found by a vectorized multi-start projected gradient ascent.

    For every slot ``i`` (all by default) maximize
    ``||theta_bar(D) - theta_bar(D_{i <- (x', y')})||`` over ``x' in [0,1]^d`` and
    ``y' in {-1, +1}`` (the maximum over ``y' in [-1, 1]`` is at an end point, see
    :class:`ReplacementGeometry`).  With ``pair=True`` both records of slot ``i``
    are free: the search maximizes ``||theta_bar(D_{i <- a}) - theta_bar(D_{i <- b})||``,
    the quantity that governs the privacy of whoever occupies slot ``i`` given
    the other ``n - 1`` records.  The result is a lower bound on the true
    maximum (a local search), and an upper bound is Theorem A.4.  The starts include
    the records of :func:`vertex_lower_bound` and the ascent only accepts
    improvements, so the result is never below that value (up to rounding).

    Parameters
    ----------
    X, y, weights, lam
        As in :func:`pdp_lib.weighted_ridge`.
    indices : array-like of int, optional
        Slots to search (all by default).
    pair : bool, default False
        Free both records of the slot.
    n_starts : int, default 8
        Starts per label sign (a quarter random vertices, the rest uniform, plus
        the all-ones vertex and the slot's own features; with ``pair=True`` also the
        origin and the pair of :func:`vertex_lower_bound`).
    n_iter : int, default 150
        Ascent iterations.
    rng : None, int or numpy.random.Generator
        Source of the random starts.

    Returns
    -------
    WorstNeighbour
    """
    geom = ReplacementGeometry(X, y, weights, lam, indices)
    n_starts = check_count(n_starts, "n_starts")
    n_iter = check_count(n_iter, "n_iter", minimum=0)
    gen = check_rng(rng)
    xa, ya, xb, yb = _search(geom, n_starts, n_iter, gen, bool(pair))
    dist = _verified_distance(geom, xa, ya, xb, yb)
    return WorstNeighbour(indices=geom.indices.copy(), distance=dist, x_a=xa, y_a=ya,
                          x_b=xb, y_b=yb, pair=bool(pair))


def worst_neighbour(X, y, weights, lam, i, *, pair=False, n_starts=8, n_iter=100,
                    rng=None) -> WorstNeighbour:
    r"""Worst replacement of one slot ``i``: vectorized ascent, then ``scipy.optimize`` polishing.

    Runs :func:`worst_neighbours` for slot ``i`` and polishes its best candidate
    for each label sign (each pair of signs when ``pair=True``) with L-BFGS-B on
    the box ``[0,1]^d`` (analytic gradients), starting also from ``n_starts``
    fresh uniform points.  Returns the best pair found, its distance recomputed
    with the library's solver.

    Parameters
    ----------
    X, y, weights, lam
        As in :func:`pdp_lib.weighted_ridge`.
    i : int
        The slot, ``0 <= i < n``.
    pair, n_starts, n_iter, rng
        As in :func:`worst_neighbours`.

    Returns
    -------
    WorstNeighbour
        With arrays of length one.
    """
    X = check_features(X)
    n, d = X.shape
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
        raise TypeError(f"i must be an integer, got {type(i).__name__}")
    if not 0 <= int(i) < n:
        raise ValueError(f"i = {int(i)} is outside the allowed range [0, {n - 1}]")
    gen = check_rng(rng)
    coarse = worst_neighbours(X, y, weights, lam, indices=[int(i)], pair=pair, n_starts=n_starts,
                              n_iter=n_iter, rng=gen)
    geom = ReplacementGeometry(X, y, weights, lam, [int(i)])
    P, tm, w = geom.K_inv[0], geom.theta_minus[0], geom.w[int(i)]
    c = geom.own_shift[0]

    def phi_vjp(u, v, r):
        ph, vjp = _phi_and_vjp(P[None, None], tm[None, None], np.array([[w]]), u[None, None],
                               np.array([[v]]), None if r is None else r[None, None])
        return ph[0, 0], (None if vjp is None else vjp[0, 0])

    best = (coarse.distance[0] ** 2, coarse.x_a[0], coarse.y_a[0], coarse.x_b[0], coarse.y_b[0])
    bounds = [(0.0, 1.0)] * (2 * d if pair else d)
    if not pair:
        for v in (1.0, -1.0):
            def negf(u, v=v):
                ph, _ = phi_vjp(u, v, None)
                r = c - ph
                _, vjp = phi_vjp(u, v, r)
                return -float(r @ r), 2.0 * vjp
            starts = [coarse.x_b[0]] + list(gen.random((n_starts, d)))
            for u0 in starts:
                res = optimize.minimize(negf, u0, jac=True, method="L-BFGS-B", bounds=bounds)
                if -res.fun > best[0]:
                    best = (-res.fun, geom.X[int(i)].copy(), geom.y[int(i)], np.clip(res.x, 0, 1), v)
    else:
        for va, vb in ((1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)):
            def negf(z, va=va, vb=vb):
                a, b = z[:d], z[d:]
                pa, _ = phi_vjp(a, va, None)
                pb, _ = phi_vjp(b, vb, None)
                r = pa - pb
                _, ga = phi_vjp(a, va, r)
                _, gb = phi_vjp(b, vb, r)
                return -float(r @ r), np.concatenate([-2.0 * ga, 2.0 * gb])
            starts = [np.concatenate([coarse.x_a[0], coarse.x_b[0]])] + list(gen.random((n_starts, 2 * d)))
            for z0 in starts:
                res = optimize.minimize(negf, z0, jac=True, method="L-BFGS-B", bounds=bounds)
                if -res.fun > best[0]:
                    z = np.clip(res.x, 0, 1)
                    best = (-res.fun, z[:d], va, z[d:], vb)
    _, xa, ya, xb, yb = best
    xa, ya, xb, yb = (np.atleast_2d(xa), np.atleast_1d(float(ya)), np.atleast_2d(xb),
                      np.atleast_1d(float(yb)))
    dist = _verified_distance(geom, xa, ya, xb, yb)
    return WorstNeighbour(indices=geom.indices.copy(), distance=dist, x_a=xa, y_a=ya, x_b=xb,
                          y_b=yb, pair=bool(pair))


# --------------------------------------------------------------------------- privacy loss
@dataclass(frozen=True)
class RealizedLoss:
    r"""Realized worst-case privacy loss of every point under PDP-OP.

    Attributes
    ----------
    loss : numpy.ndarray of shape (n,)
        ``eta * distance``: the exact privacy loss (Lemma A.5, sharpened) of the
        worst pair found for each slot.
    epsilons : numpy.ndarray of shape (n,)
        The promised levels.
    eta : float
        Noise parameter of the calibration.
    bound : numpy.ndarray of shape (n,)
        ``eta * Delta_i`` with ``Delta_i`` of Theorem A.4 (equals ``epsilons`` up
        to rounding).
    neighbours : WorstNeighbour
        The records found.
    """

    loss: np.ndarray
    epsilons: np.ndarray
    eta: float
    bound: np.ndarray
    neighbours: WorstNeighbour


def realized_privacy_loss(X, y, epsilons, lam, B=None, *, pair=False, n_starts=8, n_iter=150,
                          rng=None) -> RealizedLoss:
    r"""Realized privacy loss of each point of ``D`` under PDP-OP (Theorem 3.1, or 3.2 with ``B``).

    For output perturbation with a fixed ``eta`` the smallest ``epsilon`` for
    which the pair ``(D, D')`` satisfies Definition 2.2 is exactly
    ``eta * ||theta_bar(D) - theta_bar(D')||`` (proved in the book's chapter
    *Privacy of PDP-OP*, ``book/privacy.ipynb``).  This function calibrates the mechanism
    with :func:`pdp_lib.calibrate`, searches each slot's worst replacement with
    :func:`worst_neighbours` and returns ``eta`` times the distance found, beside
    ``epsilon_i``.  ``pair=False``: the neighbours of the dataset at hand;
    ``pair=True``: any two records for slot ``i`` given the others.

    Returns
    -------
    RealizedLoss
    """
    X = check_features(X)
    n, d = X.shape
    y = check_labels(y, n)
    eps = check_epsilons(epsilons, n)
    cal = calibrate(eps, lam, d, B)
    nb = worst_neighbours(X, y, cal.weights, lam, pair=pair, n_starts=n_starts, n_iter=n_iter,
                          rng=rng)
    bound = cal.eta * sensitivity_bound(cal.weights, lam, d, cal.B)
    return RealizedLoss(loss=cal.eta * nb.distance, epsilons=eps, eta=cal.eta, bound=bound,
                        neighbours=nb)


def log_density_ratio(outputs, theta_a, eta_a, theta_b, eta_b=None) -> np.ndarray:
    r"""``log p_a(o) - log p_b(o)`` for the output densities of two runs of output perturbation.

    ``p(o) = c_d(eta) exp(-eta ||o - theta||)`` with ``c_d(eta) = eta^d Gamma(d/2) /
    (2 pi^{d/2} Gamma(d))``, so

    .. math::

        \log\frac{p_a(o)}{p_b(o)} = d \log\frac{\eta_a}{\eta_b}
            - \eta_a \|o - \theta_a\| + \eta_b \|o - \theta_b\|.

    With ``eta_a = eta_b = eta`` (the default) this is at most
    ``eta ||theta_a - theta_b||`` (triangle inequality), with equality on the ray
    ``o = theta_a + t (theta_a - theta_b)``, ``t >= 0``; with ``eta_a != eta_b`` it is
    unbounded above.

    Parameters
    ----------
    outputs : array-like of shape (m, d) or (d,)
    theta_a, theta_b : array-like of shape (d,)
    eta_a : float
    eta_b : float, optional
        Defaults to ``eta_a``.

    Returns
    -------
    numpy.ndarray of shape (m,) or scalar array
    """
    o = check_finite(outputs, "outputs", ndim=(1, 2))
    ta = check_finite(theta_a, "theta_a", ndim=(1,))
    tb = check_finite(theta_b, "theta_b", ndim=(1,))
    if not (o.shape[-1] == ta.shape[0] == tb.shape[0]):
        raise ValueError(f"outputs, theta_a and theta_b must share d, got {o.shape}, {ta.shape}, {tb.shape}")
    eta_a = check_positive(eta_a, "eta_a")
    eta_b = eta_a if eta_b is None else check_positive(eta_b, "eta_b")
    d = ta.shape[0]
    return (d * np.log(eta_a / eta_b) - eta_a * np.linalg.norm(o - ta, axis=-1)
            + eta_b * np.linalg.norm(o - tb, axis=-1))


def sample_mechanism(X, y, epsilons, lam, size, B=None, rng=None) -> np.ndarray:
    r"""``size`` independent outputs of PDP-OP on one dataset (Algorithm 1), vectorized.

    Composes the library's own pieces: :func:`pdp_lib.calibrate`,
    :func:`pdp_lib.weighted_ridge` and :func:`pdp_lib.sample_l2_laplace`, so
    the draws have exactly the distribution of :func:`pdp_lib.pdp_op`
    (``size = 1`` reproduces it draw for draw from the same seed).

    Returns
    -------
    numpy.ndarray of shape (size, d)
    """
    X = check_features(X)
    n, d = X.shape
    y = check_labels(y, n)
    eps = check_epsilons(epsilons, n)
    size = check_count(size, "size")
    cal = calibrate(eps, lam, d, B)
    theta_bar = weighted_ridge(X, y, cal.weights, lam)
    return theta_bar + sample_l2_laplace(cal.eta, d, size=size, rng=rng)


# --------------------------------------------------------------------------- black-box audit
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


# --------------------------------------------------------------------------- sampling baseline
def jorgensen_log_density(outputs, X, y, epsilons, lam, t, B=None) -> np.ndarray:
    r"""Exact log density of Jorgensen et al.'s sample-then-perturb mechanism, by enumerating the samples.

    The mechanism of :func:`pdp_lib.baselines.jorgensen` keeps point ``j`` with
    probability ``pi_j`` (:func:`pdp_lib.baselines.jorgensen_keep_probabilities`)
    and runs output perturbation with uniform weights ``1/k`` and
    ``eta_k = k t / c(lam)`` on the ``k`` kept points.  Its output density is the
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
        As in :func:`pdp_lib.baselines.jorgensen`; ``n <= 16``.
    t : float
        The threshold.
    B : float, optional

    Returns
    -------
    numpy.ndarray of shape (m,)
    """
    from itertools import product

    from scipy.special import gammaln, logsumexp

    from .baselines import jorgensen_keep_probabilities
    from .bounds import noise_scale

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
    c = noise_scale(lam, d, B)
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
        eta = k * t / c
        theta = _weighted_ridge(X[m], y[m], np.full(k, 1.0 / k), lam)
        terms.append(logp + d * np.log(eta) + log_c0 - eta * np.linalg.norm(o - theta, axis=1))
    return logsumexp(np.stack(terms), axis=0)
