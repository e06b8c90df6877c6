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
* **Jorgensen et al.**: Monte Carlo over the ``runs`` Bernoulli sampling masks only, all
  masks at once (per-mask Gram matrices ``X^T diag(m) X`` by one matrix product, one
  batched LAPACK solve per ``lambda``), and *Rao-Blackwellized* over the noise: each mask contributes the exact
  conditional mean ``mu(m)`` and variance ``v(m)`` of the loss given the mask.  The mean is
  estimated by the average of ``mu``, with standard error ``sd(mu)/sqrt(runs)``; the standard
  deviation over runs by the law of total variance, ``sqrt(Var_m mu + E_m v)``.  The same
  masks serve every ``lambda`` of the grid and both losses (common random numbers).
* **Non-private**: deterministic; ``unreg`` is least squares (``lambda = 0``, the authors'
  "type1"), ``reg`` the uniform-weight ridge with ``lambda`` (their "type2"); std 0.

The engine composes the mechanism (:func:`pdp_lib.calibrate`, the weighted ridge of eq. (2),
:func:`pdp_lib.bounds.noise_scale`) and is tested against the single-run implementations of
:mod:`pdp_lib.baselines`.  Derived and measured in the book's chapter *Exact loss moments*
(``book/moments.ipynb``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..baselines import jorgensen_keep_probabilities, jorgensen_threshold
from ..bounds import noise_scale
from ..mechanism import _weighted_ridge, calibrate
from ..moments import QuadraticLoss
from ..validation import check_count, check_epsilons, check_features, check_labels, check_positive, check_rng
from .specs import COLUMNS, METHODS

__all__ = ["SweepResult", "evaluate_sweep", "jorgensen_masks", "batched_ridge"]


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


def jorgensen_masks(epsilons, t, runs, rng=None) -> np.ndarray:
    """``runs`` independent draws of Jorgensen et al.'s sample, shape ``(runs, n)`` (bool).

    Row ``r`` equals the ``r``-th of ``runs`` successive calls of
    :func:`pdp_lib.baselines.jorgensen_mask` on the same generator: one uniform per point
    whose keep probability is below 1, in index order; the other points are always kept.
    """
    p = jorgensen_keep_probabilities(epsilons, t)
    runs = check_count(runs, "runs")
    gen = check_rng(rng)
    rand = p < 1.0
    masks = np.ones((runs, p.shape[0]), dtype=bool)
    masks[:, rand] = gen.random((runs, int(rand.sum()))) < p[rand]
    return masks


class _MaskedGram:
    """Per-mask sufficient statistics of the kept points: ``X_m^T X_m``, ``X_m^T y_m``, ``k``.

    Built from the always-kept points once and from the random points by one matrix product
    ``M @ P`` (``M`` the ``(R, n_random)`` 0/1 matrix, ``P`` the upper triangles of the
    ``x_i x_i^T``), so the cost is one BLAS call instead of ``R`` Python iterations.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, M: np.ndarray, fixed: np.ndarray):
        R = M.shape[0]
        d = X.shape[1]
        iu, ju = np.triu_indices(d)
        pos = np.empty((d, d), dtype=np.intp)  # index of entry (i, j) in the triangle
        pos[iu, ju] = np.arange(iu.size)
        pos[ju, iu] = pos[iu, ju]
        Xr, yr = X[~fixed], y[~fixed]
        Xf, yf = X[fixed], y[fixed]
        tri = M @ (Xr[:, iu] * Xr[:, ju]) + (Xf[:, iu] * Xf[:, ju]).sum(axis=0)
        self.k = M.sum(axis=1) + fixed.sum()
        self.empty = self.k == 0
        ks = np.where(self.empty, 1.0, self.k)
        self.G = np.take(tri / ks[:, None], pos.ravel(), axis=1).reshape(R, d, d)  # X_m^T X_m / k
        self.b = (M @ (Xr * yr[:, None]) + Xf.T @ yf) / ks[:, None]  # X_m^T y_m / k
        self.d = d
        self._diag = self.G[:, np.arange(d), np.arange(d)].copy()

    @classmethod
    def draw(cls, X, y, p, runs, gen):
        """Draw ``runs`` masks with keep probabilities ``p`` (as :func:`jorgensen_masks`)."""
        fixed = p >= 1.0
        U = gen.random((runs, int((~fixed).sum())))
        M = (U < p[~fixed]).astype(float)
        return cls(X, y, M, fixed)

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


def batched_ridge(X, y, masks, lam) -> np.ndarray:
    """Uniform-weight ridge (eq. (2)) on the kept points of each mask: shape ``(R, d)``.

    Row ``r`` solves ``(X_m^T X_m / k + lam I) theta = X_m^T y_m / k`` for the ``k`` points
    kept by ``masks[r]``; an empty mask gives ``theta = 0`` (the minimizer of
    ``lam ||theta||^2``).
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
    fixed = np.zeros(X.shape[0], dtype=bool)
    return _MaskedGram(X, y, masks.astype(float), fixed).ridge(lam)


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


def evaluate_sweep(X_train, y_train, X_test, y_test, epsilons, lams, *, runs=10_000, rng=None,
                   methods=METHODS, B=None) -> SweepResult:
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
        ``t = mean`` (a SeedSequence is not mutated, so it gives the same masks every time).
    methods : sequence of str
        Subset of ``METHODS`` to compute (the others are absent from the result).
    B : float, optional
        Public bound of Assumption 3.1 (Theorem 3.2) for every mechanism; ``None`` uses
        ``B(lambda)`` (Theorem 3.1), as the paper's experiments do.

    Returns
    -------
    SweepResult
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
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"methods contains {unknown[0]!r}; allowed: {METHODS}")
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

    # PDP-OP (Theorem 3.1 weights and eta) and the non-personalized baseline: exact moments.
    for method in ("pdp_op", "non_personalized"):
        if method not in methods:
            continue
        profile = eps if method == "pdp_op" else np.full(n, eps.min())
        out = {kind: (np.empty(L), np.empty(L)) for kind in ("unreg", "reg")}
        for j, lam in enumerate(lam_arr):
            cal = calibrate(profile, lam, d, B)
            theta_bar = _weighted_ridge(X, y, np.asarray(cal.weights), lam)
            for kind, loss in (("unreg", loss_u), ("reg", losses_r[j])):
                mom = loss._moments(theta_bar, np.asarray(cal.eta))
                out[kind][0][j], out[kind][1][j] = mom.mean, np.sqrt(mom.var)
        for kind in ("unreg", "reg"):
            m, s = out[kind]
            store(f"{kind}_{method}", m, s, zeros.copy(), zeros.copy(), zeros.copy())

    # Jorgensen et al.: Monte Carlo over masks, exact over the noise given the mask.
    jorg = [m for m in ("jorgensen_max", "jorgensen_mean") if m in methods]
    if jorg:
        gens = dict(zip(("jorgensen_max", "jorgensen_mean"), _streams(rng, 2)))
        for method in jorg:
            t = jorgensen_threshold(eps, method.split("_")[1])
            thresholds[method] = t
            p = jorgensen_keep_probabilities(eps, t)
            gram = _MaskedGram.draw(X, y, p, runs, gens[method])
            kept[method] = gram.k.astype(int)
            stats = {kind: np.empty((4, L)) for kind in ("unreg", "reg")}
            for j, lam in enumerate(lam_arr):
                theta = gram.ridge(lam)
                eta = np.where(gram.empty, np.inf, gram.k * t / noise_scale(lam, d, B))
                value, grad = loss_u._value_and_gradient(theta)
                mom_u = loss_u._moments_from_parts(value, grad, eta)
                mom_r = losses_r[j]._moments_from_parts(
                    value + lam * np.sum(theta * theta, axis=1), grad + lam * theta, eta)
                stats["unreg"][:, j] = _aggregate(mom_u.mean, mom_u.var)
                stats["reg"][:, j] = _aggregate(mom_r.mean, mom_r.var)
            for kind in ("unreg", "reg"):
                m, s, mse, sse = stats[kind]
                store(f"{kind}_{method}", m, s, mse, sse, s / np.sqrt(runs))

    # Non-private: least squares (unreg) and uniform-weight ridge (reg); no randomness.
    if "non_private" in methods:
        theta_ls = np.linalg.lstsq(X, y, rcond=None)[0]
        unreg = np.full(L, float(loss_u.value(theta_ls)))
        reg = np.array([float(losses_r[j].value(_weighted_ridge(X, y, np.full(n, 1.0 / n), lam)))
                        for j, lam in enumerate(lam_arr)])
        store("unreg_non_private", unreg, zeros.copy(), zeros.copy(), zeros.copy(), zeros.copy())
        store("reg_non_private", reg, zeros.copy(), zeros.copy(), zeros.copy(), zeros.copy())

    order = [c for c in COLUMNS if c in mean]
    return SweepResult(lams=lam_arr, runs=runs, mean={c: mean[c] for c in order},
                       std={c: std[c] for c in order}, mean_se={c: mean_se[c] for c in order},
                       std_se={c: std_se[c] for c in order}, naive_se={c: naive_se[c] for c in order},
                       kept=kept, thresholds=thresholds)
