r"""Replacement geometry and the worst-neighbour search (Theorem A.4, Lemma A.5).

For a dataset ``D`` and a slot ``i``, search the domain ``x' in [0,1]^d``, ``y' in [-1,1]``
for the replacement that moves the weighted ridge solution of eq. (2) the most.  Replacing
one point is a rank-one downdate followed by a rank-one update of the matrix
``H = sum_j w_j x_j x_j^T + lam I``, so every candidate costs ``O(d^2)`` (Sherman--Morrison,
:class:`ReplacementGeometry`); the search runs a projected gradient ascent vectorized over
all slots and many starts (:func:`worst_neighbours`), and :func:`worst_neighbour` polishes
one slot with ``scipy.optimize`` (L-BFGS-B, multi-start).  Every search starts from the
records of :func:`vertex_lower_bound` and only accepts improvements, so it can never report
less than that certified lower bound on the supremum.  Derived in the book's chapter
*Sensitivity of the weighted ridge solution* (``book/sensitivity.ipynb``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from ..mechanisms.output_perturbation import weighted_ridge_unchecked
from ..validation import check_data, check_count, check_features, check_rng

__all__ = ["ReplacementGeometry", "WorstNeighbour", "worst_neighbour", "worst_neighbours", "vertex_lower_bound"]


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
        X, y, w, lam = check_data(X, y, weights, lam)
        n, d = X.shape
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

    def replaced(self, U, V, slots=None) -> np.ndarray:
        r"""``theta_bar`` of the dataset with slot ``i`` replaced by ``(u, v)``, for many candidates at once.

        ``U`` has shape ``(m, d)`` or ``(m, s, d)``, ``V`` shape ``(m,)`` or ``(m, s)``.
        The leading axis runs over the prepared slots, or over ``slots`` (positions
        into :attr:`indices`) when given.
        """
        U, V, squeeze = self._candidates(U, V)
        P, tm, w = self._slot_arrays(slots)
        ph, _ = phi_and_vjp(P, tm, w, U, V, None)
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


def phi_and_vjp(P, tm, w, U, v, r):
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
    P, tm, w = geom._slot_arrays(None)
    own_x = geom.X[geom.indices]
    if not pair:
        signs = np.repeat([1.0, -1.0], n_starts)[None, :]  # (1, 2s)
        c = geom.own_shift[:, None, :]

        def objective(U):
            phi, _ = phi_and_vjp(P, tm, w, U, signs, None)
            r = c - phi
            _, vjp = phi_and_vjp(P, tm, w, U, signs, r)
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
        pa, _ = phi_and_vjp(P, tm, w, A, va, None)
        pb, _ = phi_and_vjp(P, tm, w, Bm, vb, None)
        r = pa - pb
        _, ga = phi_and_vjp(P, tm, w, A, va, r)
        _, gb = phi_and_vjp(P, tm, w, Bm, vb, r)
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
        out[k] = np.linalg.norm(weighted_ridge_unchecked(Xa, Ya, geom.w, geom.lam)
                                - weighted_ridge_unchecked(Xb, Yb, geom.w, geom.lam))
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
        ph, vjp = phi_and_vjp(P[None, None], tm[None, None], np.array([[w]]), u[None, None],
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
