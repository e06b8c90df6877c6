r"""The book's comparison on a user's table of any size: every mechanism's expected test loss from streamed sums.

The mechanisms of the book's table chapters all release a weighted ridge solution plus the noise
of Algorithm 1, so each expected test loss is :math:`L(\bar\theta) + (d+1)\operatorname{tr}A/\eta^2`
(theorem *thm-exact-loss-moments*, chapter *Exact loss moments*), and every quantity in it is a sum
over rows:

* PDP-OP, with ``B(lambda)`` and with ``B*(lambda)``: :math:`\sum_i \varepsilon_i x_i x_i^\top`,
  :math:`\sum_i \varepsilon_i y_i x_i`, :math:`\sum_i \varepsilon_i`;
* standard DP at :math:`\min_i \varepsilon_i` and the non-private ridge fit: the unweighted sums;
* the best public threshold (chapter *Does personalization pay?*): the unweighted sums over the
  rows at or above it;
* Jorgensen et al.'s sampling at the maximum and at the mean level: the unweighted sums over the
  rows each sampling mask keeps, for ``masks`` masks; the expected loss given a mask is exact, and
  the average over masks is a Rao-Blackwellized Monte Carlo estimate with its standard error;
* the test rows: :math:`\sum x x^\top`, :math:`\sum y x`, :math:`\sum y^2`.

:func:`compare_sums` reads the data twice in chunks (the levels first, which fix the threshold and
Jorgensen's keep probabilities, then every row), and :func:`expected_losses` evaluates every
mechanism on a ``lambda`` grid from the sums alone: exactly, or for Jorgensen's sampling and for the mechanisms
beyond output perturbation (:data:`METHODS`), as a Monte Carlo mean with its standard error.  Which rows are test rows depends on the seed and
each row's values only (:func:`row_uniforms`), so the same rows give the same split whatever the
files, their order, the chunks or the rows' order (identical rows fall on the same side).  Which rows
a mask keeps comes from uniform draws in blocks of :data:`BLOCK` rows named by the seed, the file and
the block, so that it does not depend on the chunk size.

Behind ``python -m pdp_lib fit`` and ``compare`` (:mod:`pdp_lib.cli`); the mechanism is Algorithm 1 as
derived in the book's chapter *The PDP-OP mechanism* (``book/mechanism.ipynb``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..mechanisms import private_mean
from ..mechanisms.baselines import jorgensen_keep_probabilities
from ..bounds import noise_scale
from .public_bounds import Bounds
from .streaming import mix64
from .tables import check_values, chunks, data_files, numbers, table_columns
from ..validation import check_count, check_fraction

__all__ = ["METHODS", "BASELINES", "DELTA_METHODS", "OWN_RIDGE", "CHOSEN", "PRIVATE_MEANS", "NOT_PRIVATE", "private_mean_verdict", "NOTE", "BLOCK", "CompareSums", "compare_sums", "expected_losses", "private_mean_loss", "group_mean_loss", "group_rows", "PUBLIC_COLUMN", "test_losses", "checked_losses", "gaussian_public_ridge", "train_levels", "training_rows",
           "uniforms", "row_uniforms"]

METHODS = ("pdp_op", "pdp_op_sharp", "non_personalized", "threshold_public", "jorgensen_max", "jorgensen_mean",
           "ssp", "objective", "private_mean", "auto", "ssp_gaussian", "adassp", "gd", "private_mean_delta",
           "auto_delta", "non_private", "mean", "midpoint")
"""The mechanisms compared, and two predictors that fit no model: ``mean`` predicts the training rows' mean label
for every row (it reads the training labels: not private), ``midpoint`` the middle of the label's public bounds
(0 in the scaled units: no data, no privacy cost).  A private model worth releasing has a lower test loss than
both.  Beyond the paper (the book's chapter *Beyond output perturbation*), all pure DP with the levels as they
are: ``ssp``, sufficient-statistics perturbation (:mod:`pdp_lib.mechanisms.ssp`), and ``objective``, objective
perturbation (:mod:`pdp_lib.mechanisms.objective`), each a Monte Carlo mean over ``draws`` releases with its
standard error; and ``private_mean``, the constant predictor at the re-weighted mean label released with Laplace
noise of scale ``2 / sum(eps)``, exact: the simplest private release, which on the book's data beats every
regression released under pure DP.  With ``delta`` (``compare --delta D``), every row getting
``(epsilon_i, delta)``-DP from sums weighted by ``mu*(epsilon_i, delta)``: ``ssp_gaussian``,
Gaussian SSP at the public ridge, and ``adassp``, AdaSSP at its private ridge (:mod:`pdp_lib.mechanisms.adassp`;
both choose their own ridge, so their loss is the same at every ``lambda``), ``gd``, noisy gradient descent with its
default settings at each ``lambda`` (:mod:`pdp_lib.mechanisms.noisy_gd`), Monte Carlo means; and
``private_mean_delta``, the private mean with Gaussian noise of standard deviation ``2 / sum(mu*)``, exact.
``auto`` and ``auto_delta`` (with ``--intercept`` only): what ``fit --mechanism auto --intercept`` releases without
and with ``delta`` when it is fitted on the training rows, as every row here is (its choice reads the training rows'
levels, so near its threshold it can differ from a fit on the whole table): the row of the release
:func:`pdp_lib.mechanisms.automatic.choose` picks, SSP at its public ridge (from the same draws as the ``ssp`` row)
or Gaussian SSP at the public ridge, else the private mean; the same loss at every ``lambda``."""

BASELINES = ("non_personalized", "threshold_public", "jorgensen_max", "jorgensen_mean", "non_private", "mean",
             "midpoint")
"""The rows of :data:`METHODS` that are not a mechanism of :data:`pdp_lib.mechanisms.registry.REGISTRY` (whose
entries name their own rows, :attr:`pdp_lib.mechanisms.registry.Mechanism.compare_rows`): the paper's baselines
and the predictors that release no private model."""

DELTA_METHODS = ("ssp_gaussian", "adassp", "gd", "private_mean_delta", "auto_delta")
"""The methods of :data:`METHODS` that ``expected_losses`` gives only for sums with ``delta``."""

OWN_RIDGE = ("ssp_gaussian", "adassp", "auto", "auto_delta")
"""The rows of :data:`METHODS` that choose their own ridge: one loss, whatever the ``lambda`` column."""

CHOSEN = ("auto", "auto_delta")
"""The rows that repeat another row's loss (the release ``auto`` chooses): not a regression of their own."""

PRIVATE_MEANS = ("private_mean", "private_mean_delta")
"""The private constant predictors, against which every private regression is held."""

PUBLIC_COLUMN = ("group_means", "group_means_delta")
"""The rows ``compare --group COL`` adds: the private means per group of a binary feature taken to be public
(:func:`group_rows`), whose guarantee does not cover that column; :func:`private_mean_verdict` holds no regression
against them, nor them against the mean."""

NOT_PRIVATE = ("non_private", "mean", "midpoint")
"""The rows of :data:`METHODS` that release no private model (the midpoint spends nothing and fits nothing)."""


def private_mean_verdict(table) -> str | None:
    """Lines saying, for each guarantee, when no private regression clearly beats its private mean; else ``None``.

    ``table`` is :func:`expected_losses`'s.  Pure-DP regressions (every row but :data:`PRIVATE_MEANS`,
    :data:`NOT_PRIVATE`, :data:`DELTA_METHODS`, :data:`CHOSEN` and :data:`PUBLIC_COLUMN`) are held against
    ``private_mean``, the ``(epsilon_i, delta)`` ones
    (:data:`DELTA_METHODS` but the mean) against ``private_mean_delta``: each against the mean of its own guarantee.
    A regression clearly beats the mean when its loss plus two of its Monte Carlo standard errors is below the
    mean's (exact) loss; a line is written when none does, naming the best regression and the mean.
    """
    lines = []
    delta_models = tuple(m for m in DELTA_METHODS if m not in PRIVATE_MEANS + CHOSEN)
    pure = ~table["method"].isin(PRIVATE_MEANS + NOT_PRIVATE + DELTA_METHODS + CHOSEN + PUBLIC_COLUMN)
    for mean, models, guarantee in (("private_mean", table[pure], "pure DP"),
                                    ("private_mean_delta", table[table["method"].isin(delta_models)],
                                     "(epsilon_i, delta)-DP")):
        means = table[table["method"] == mean]
        if means.empty or models.empty:
            continue
        mean_loss = float(means["loss"].min())
        if ((models["loss"] + 2.0 * models["se"]) < mean_loss).any():
            continue
        row = models.loc[models["loss"].idxmin()]
        where = "at its own ridge" if row["method"] in OWN_RIDGE else f"at lambda = {float(row['lam']):.3g}"
        lines.append(f"Under {guarantee}, no private regression clearly beats the private mean ({mean}, expected "
                     f"test loss {mean_loss:.3g}): the best, {row['method']} {where}, has {float(row['loss']):.3g}; "
                     f"release the private mean, or get more rows or higher levels.")
    return "\n".join(lines) or None


NOTE = ("Losses are mean squared errors on the test rows in the scaled label units (the label mapped to [-1, 1] by "
        "its public bounds; multiply by ((upper - lower) / 2)^2 for the label's own units). This comparison reads "
        "the test rows and the training labels: it is not private, and only the fitted models are.")
"""What every output of ``compare`` says about its units and its privacy."""
BLOCK = 4096
_MASK_ROWS = 8 * BLOCK   # rows whose mask draws are held at once
_SPLIT, _MASKS, _RELEASES, _GAUSSIAN = 0, 1, 2, 3


def uniforms(seed: int, tag: int, file_index: int, start: int, rows: int, width: int = 1) -> np.ndarray:
    """Uniform draws ``(width, rows)`` for rows ``start .. start + rows - 1`` (0-based) of a file.

    Drawn in blocks of :data:`BLOCK` rows, each from ``SeedSequence(seed, spawn_key=(tag, file, block))``,
    so that a row's draws do not depend on how the file is cut into chunks.
    """
    if rows == 0:
        return np.empty((width, 0))
    first, last = start // BLOCK, (start + rows - 1) // BLOCK
    blocks = [np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(tag, file_index, b))).random((width, BLOCK))
              for b in range(first, last + 1)]
    joined = np.concatenate(blocks, axis=1)
    offset = start - first * BLOCK
    return joined[:, offset:offset + rows]


def row_uniforms(columns, seed: int) -> np.ndarray:
    """A uniform in ``[0, 1)`` for each row, from the seed and the row's values only.

    Each value's IEEE 754 bits (``-0.0`` read as ``0.0``) are folded into a 64-bit state column by column
    with SplitMix64's finalizer, keyed by ``SeedSequence(seed)``; the top 53 bits of the mixed state give
    the uniform.  A row keeps its draw whatever file, position or chunk it is read in.

    Parameters
    ----------
    columns : sequence of numpy.ndarray
        The row's values, one array of shape ``(n,)`` per column, in a fixed order.
    seed : int
    """
    keys = np.random.SeedSequence([seed, _SPLIT]).generate_state(2, np.uint64)
    state = np.full(len(columns[0]), keys[0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j, column in enumerate(columns):
            bits = (np.asarray(column, dtype=np.float64) + 0.0).view(np.uint64)
            state = mix64((state + np.uint64(j + 1) * np.uint64(0x9E3779B97F4A7C15)) ^ bits)
        return (mix64(state ^ keys[1]) >> np.uint64(11)).astype(np.float64) * 2.0**-53


def _read_chunk(frame, columns, path, first, bounds, clip, seed, fraction):
    """One chunk checked and mapped, ``(X, y, eps, rows clipped)``, and its test rows: a public coin from each
    row's values as read (the features, label and level), parsed once for both."""
    values = numbers(frame[columns], path, first)
    return (*check_values(values, columns, path, first, bounds, clip),
            row_uniforms(list(values.T), seed) < fraction)


def train_levels(source, bounds: Bounds, label: str, epsilon: str, *, test_fraction: float, seed: int,
                 chunk_rows: int, clip: bool = False, allowed=None) -> tuple:
    """First pass: the distinct levels of the training rows, sorted, and each one's number of rows.

    Every row is read, checked and mapped (the split depends on its values, :func:`row_uniforms`), so a
    bad row stops the command before the second pass.  The levels are held as two arrays (8 bytes a row
    at most while reading, however many levels are distinct), not as a dictionary: a continuous level
    column of ``10**7`` rows fits in about 0.2 GB.
    """
    parts = []
    columns = list(bounds.features) + [label, epsilon]
    for path in data_files(source):
        for first, frame in chunks(path, columns, chunk_rows, allowed):
            _, _, eps, _, test = _read_chunk(frame, columns, path, first, bounds, clip, seed, test_fraction)
            parts.append(eps[~test])
    levels = np.concatenate(parts) if parts else np.empty(0)
    if levels.size == 0:
        raise ValueError(f"{source}: no training rows (test_fraction = {test_fraction!r})")
    return np.unique(levels, return_counts=True)


def _threshold(levels: np.ndarray, counts: np.ndarray) -> float:
    """:func:`pdp_lib.mechanisms.threshold.best_public_threshold` from the levels' counts (levels sorted)."""
    kept = np.cumsum(counts[::-1])[::-1]
    return float(levels[int(np.argmax(levels * kept))])


@dataclass
class _Part:
    """Unweighted sums over some rows: ``X^T X``, ``X^T y``, ``y^T y``, ``sum y`` and the count."""

    gram: np.ndarray
    moment: np.ndarray
    yy: float = 0.0
    rows: int = 0
    ysum: float = 0.0

    @classmethod
    def zeros(cls, d):
        return cls(np.zeros((d, d)), np.zeros(d))

    def add(self, X, y, w=None):
        Xw = X if w is None else X * w[:, None]
        self.gram += Xw.T @ X
        self.moment += Xw.T @ y
        self.yy += float(y @ y) if w is None else float((w * y) @ y)
        self.ysum += float(np.sum(y)) if w is None else float(w @ y)
        self.rows += X.shape[0]


@dataclass
class CompareSums:
    """Everything :func:`expected_losses` needs, summed over the rows (see the module docstring)."""

    d: int
    levels: np.ndarray
    counts: np.ndarray
    threshold: float
    jorgensen_t: dict
    weighted: _Part
    plain: _Part
    kept: _Part
    masks: dict
    test: _Part
    eps_total: float = 0.0
    clipped: int = 0
    delta: float | None = None
    gaussian: _Part | None = None      # the training rows weighted by mu*(eps_i, delta), with delta
    mu_total: float = 0.0
    intercept: bool = False            # the bounds' intercept: its feature 1 is the last coordinate
    mu_min: float = 0.0


def training_rows(source, bounds: Bounds, label: str, epsilon: str, *, test_fraction: float = 0.2, seed: int = 0,
                  clip: bool = False, chunk_rows: int = 200_000) -> tuple:
    """The training rows of :func:`compare_sums`'s split, held in memory: ``(X, y, eps)`` as its sums read them
    (mapped into the domain, the intercept's column last when ``bounds.intercept``), in the files' order.  For an
    experiment that needs the rows themselves (a per-row clip), on a table that fits in memory."""
    fraction = check_fraction(test_fraction, "test_fraction", closed_low=False, closed_high=False)
    columns, allowed = table_columns(bounds, label, epsilon, ())
    parts = []
    for path in data_files(source):
        for first, frame in chunks(path, columns, check_count(chunk_rows, "chunk_rows"), allowed):
            X, y, eps, _, test = _read_chunk(frame, columns, path, first, bounds, clip, seed, fraction)
            parts.append((X[~test], y[~test], eps[~test]))
    if not parts or sum(part[1].size for part in parts) == 0:
        raise ValueError(f"{source}: no training rows (test_fraction = {fraction!r})")
    return tuple(np.concatenate(column) for column in zip(*parts))


def compare_sums(source, bounds: Bounds, label: str, epsilon: str, *, test_fraction: float = 0.2, seed: int = 0,
                 masks: int = 50, clip: bool = False, chunk_rows: int = 200_000, progress=None,
                 ignore=(), delta=None) -> CompareSums:
    """Read ``source`` twice in chunks and return the sums of every mechanism of :data:`METHODS`.

    Parameters
    ----------
    source : str or Path
        A CSV or Parquet file, a folder of them, or a glob.
    bounds : pdp_lib.io.public_bounds.Bounds
    label, epsilon : str
    test_fraction : float
        In ``(0, 1)``: each row is a test row with this probability (a public coin, by ``seed``).
    seed : int
        Names the split and the sampling masks.
    masks : int
        Jorgensen et al.'s sampling masks per threshold, ``>= 2``.
    clip : bool
        As in :func:`pdp_lib.io.streaming.accumulate`.
    chunk_rows : int
    progress : callable, optional
        Called with the number of rows read after each chunk of the second pass.
    ignore : sequence of str
        As in :func:`pdp_lib.io.streaming.accumulate`.
    delta : None or float
        In ``(0, 1)``: also the sums weighted by ``mu*(epsilon_i, delta)``, for the mechanisms under
        ``delta`` of :data:`METHODS`.
    """
    fraction = check_fraction(test_fraction, "test_fraction", closed_low=False, closed_high=False)
    if delta is not None:
        delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    masks = check_count(masks, "masks", minimum=2)
    chunk_rows = check_count(chunk_rows, "chunk_rows")
    columns, allowed = table_columns(bounds, label, epsilon, ignore)
    levels, n_levels = train_levels(source, bounds, label, epsilon, test_fraction=fraction, seed=seed,
                                    chunk_rows=chunk_rows, clip=clip, allowed=allowed)
    n_levels = n_levels.astype(float)
    d = bounds.d
    ts = {"max": float(levels[-1]), "mean": float(levels @ n_levels / n_levels.sum())}
    sums = CompareSums(d=d, levels=levels, counts=n_levels, threshold=_threshold(levels, n_levels), jorgensen_t=ts,
                       weighted=_Part.zeros(d), plain=_Part.zeros(d), kept=_Part.zeros(d),
                       masks={k: [_Part.zeros(d) for _ in range(masks)] for k in ts}, test=_Part.zeros(d),
                       intercept=bool(bounds.intercept))
    mus = None
    if delta is not None:
        from ..gaussian_curves import tolerated_gaussian_mus

        mus = tolerated_gaussian_mus(levels, delta)          # once per distinct level (levels sorted)
        sums.delta, sums.gaussian, sums.mu_min = delta, _Part.zeros(d), float(mus.min())
    for k, path in enumerate(data_files(source)):
        for first, frame in chunks(path, columns, chunk_rows, allowed):
            X, y, eps, changed, test = _read_chunk(frame, columns, path, first, bounds, clip, seed, fraction)
            sums.clipped += changed
            sums.test.add(X[test], y[test])
            X, y, eps = X[~test], y[~test], eps[~test]
            sums.weighted.add(X, y, eps)
            sums.eps_total += float(eps.sum())
            if mus is not None:                   # mu* of each training row's level, from the first pass's levels
                mu = mus[np.searchsorted(levels, eps)]
                sums.gaussian.add(X, y, mu)
                sums.mu_total += float(mu.sum())
            sums.plain.add(X, y)
            keep = eps >= sums.threshold
            sums.kept.add(X[keep], y[keep])
            # the masks' uniforms a slice of rows at a time: 2 * masks rows of draws for a whole chunk would
            # take 160 MB at the defaults (50 masks, 200,000 rows); a slice's draws are the chunk's own
            done = 0
            for lo in range(0, test.size, _MASK_ROWS):
                train = ~test[lo:lo + _MASK_ROWS]
                u = uniforms(seed, _MASKS, k, first - 1 + lo, train.size, width=2 * masks)[:, train]
                rows = slice(done, done + u.shape[1])
                done += u.shape[1]
                for j, (kind, t) in enumerate(ts.items()):
                    p = jorgensen_keep_probabilities(eps[rows], t)
                    for m, part in enumerate(sums.masks[kind]):
                        kept = u[j * masks + m] < p
                        part.add(X[rows][kept], y[rows][kept])
            if progress is not None:
                progress(test.size)
    if sums.test.rows == 0:
        raise ValueError(f"{source}: no test rows (test_fraction = {fraction!r})")
    return sums


def _ridge(part: _Part, weight_total: float, lam: float) -> np.ndarray:
    A = part.gram / weight_total
    A[np.diag_indices(A.shape[0])] += lam
    c = np.linalg.cholesky(A)
    return np.linalg.solve(c.T, np.linalg.solve(c, part.moment / weight_total))


def _ridges(parts: list, lam: float) -> np.ndarray:
    """:func:`_ridge` of each part, with its count of rows as its weights' total, at once: each matrix is factored
    and solved by the same LAPACK routines on the same numbers as :func:`_ridge`'s, so each row is its answer bit
    for bit (``tests/test_comparison.py``)."""
    if not parts:
        return np.empty((0, 0))
    totals = np.array([float(part.rows) for part in parts])
    A = np.array([part.gram for part in parts]) / totals[:, None, None]
    diagonal = np.arange(A.shape[1])
    A[:, diagonal, diagonal] += lam
    c = np.linalg.cholesky(A)
    z = np.linalg.solve(c, (np.array([part.moment for part in parts]) / totals[:, None])[..., None])
    return np.linalg.solve(c.transpose(0, 2, 1), z)[..., 0]


def _test_loss(test: _Part, theta: np.ndarray, eta: float) -> float:
    """Exact expected unregularized test loss of ``theta + Z``, ``Z ~ exp(-eta ||z||)`` (``eta = inf``: none)."""
    N = test.rows
    value = (theta @ test.gram @ theta - 2.0 * theta @ test.moment + test.yy) / N
    noise = 0.0 if np.isinf(eta) else (test.gram.shape[0] + 1) * np.trace(test.gram) / N / eta**2
    return float(max(value, 0.0) + noise)


def _constant_loss(test: _Part, value: float) -> float:
    """The test loss of predicting ``value`` for every test row."""
    return float(max((test.yy - 2.0 * value * test.ysum) / test.rows + value**2, 0.0))


def _test_losses(test: _Part, thetas: np.ndarray) -> np.ndarray:
    """The unregularized test loss of each row of ``thetas`` (no noise added)."""
    quad = np.einsum("ri,ij,rj->r", thetas, test.gram, thetas)
    return np.maximum((quad - 2.0 * thetas @ test.moment + test.yy) / test.rows, 0.0)


_BATCH = 100   # Monte Carlo releases drawn at once


def _monte_carlo(sums: CompareSums, lams: list, draws: int, seed: int) -> list:
    """``(lam, method, loss, se)`` rows of SSP and objective perturbation: means over ``draws`` releases."""
    from ..bounds import norm_bound
    from ..mechanisms import objective

    d, total, eps_min = sums.d, sums.eps_total, float(sums.levels[0])
    A, c = sums.weighted.gram / total, sums.weighted.moment / total
    gen = _release_stream(seed)
    losses = _ssp_losses(sums, lams, draws, gen)
    rows = []
    for lam in lams:
        values = losses[lam]
        rows.append((lam, "ssp", float(values.mean()), float(values.std(ddof=1) / np.sqrt(draws))))
        radius = norm_bound(lam, d)
        cal_o = objective.objective_calibration(total, eps_min, lam, d, radius)
        values = np.concatenate([_test_losses(sums.test, objective.objective_draws(A, c, cal_o, gen, min(_BATCH,
                                 draws - start))) for start in range(0, draws, _BATCH)])
        rows.append((lam, "objective", float(values.mean()), float(values.std(ddof=1) / np.sqrt(draws))))
    return rows


def _release_stream(seed: int) -> np.random.Generator:
    """The stream of the pure releases' Monte Carlo: SSP's noise first, then objective perturbation's."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_RELEASES,)))


def _ssp_losses(sums: CompareSums, lams: list, draws: int, gen) -> dict:
    """SSP's test losses of ``draws`` releases at each ``lambda``: the same noise solved at every ``lambda``, drawn
    from ``gen`` in batches whatever ``lams`` are (so one ``lambda``'s losses do not depend on the others)."""
    from ..mechanisms import ssp
    from ..mechanisms.output_perturbation import sample_l2_laplace

    d, total = sums.d, sums.eps_total
    A, c = sums.weighted.gram / total, sums.weighted.moment / total
    cal, p = ssp.ssp_calibration(total, float(sums.levels[0]), d), d * (d + 1) // 2
    losses = {lam: [] for lam in lams}
    for start in range(0, draws, _BATCH):
        size = min(_BATCH, draws - start)
        gram_noise = sample_l2_laplace(cal.eta_gram, p, size, gen)
        thetas = ssp.noisy_solutions(A, c, gram_noise, sample_l2_laplace(cal.eta_moment, d, size, gen), lams)
        for lam, theta in zip(lams, thetas):
            losses[lam].append(_test_losses(sums.test, theta))
    return {lam: np.concatenate(v) for lam, v in losses.items()}


def private_mean_loss(sums: CompareSums, *, gaussian: bool = False, noise: bool = True) -> float:
    """The private mean's expected test loss, exact: the rows ``private_mean`` and (``gaussian=True``)
    ``private_mean_delta`` of :func:`expected_losses`.  ``noise=False``: without the noise's variance, the loss of
    the weighted mean label itself (the same split and weights)."""
    if gaussian:
        M = sums.mu_total
        return _constant_loss(sums.test, sums.gaussian.ysum / M) + (
            private_mean.noise_variance(M, gaussian=True) if noise else 0.0)
    total = sums.eps_total
    return _constant_loss(sums.test, sums.weighted.ysum / total) + (
        private_mean.noise_variance(total, gaussian=False) if noise else 0.0)


def group_mean_loss(sums: CompareSums, column: int, *, gaussian: bool = False, noise: bool = True) -> float:
    r"""The expected test loss of the private means per group of a public binary feature, exact
    (:func:`pdp_lib.mechanisms.group_means.group_means`, its rows grouped by feature ``column``).

    ``column`` indexes a feature whose every value, on the training and the test rows, is 0 or 1 (the caller checks
    it), and the sums need the intercept (``sums.intercept``: its feature 1 is the last), so that the group of the
    ones has level sum :math:`S_1` = the weighted Gram matrix's entry (``column``, intercept), weighted label sum
    the weighted moment's entry ``column``, and the zeros the rest.  Group :math:`g` predicts its weighted mean
    label :math:`m_g`; over the noise the test loss is the constant predictors' plus each group's noise variance
    (:func:`pdp_lib.mechanisms.private_mean.noise_variance` of :math:`S_g`) times its share of the test rows.  A
    group with no training row predicts 0, the label range's midpoint, and spends nothing.  ``gaussian=True``: the
    weights :math:`\mu^*(\varepsilon_i, \delta)` and Gaussian noise (``sums`` computed with ``delta``).
    ``noise=False``: without the noises' variances, the loss of the groups' weighted mean labels themselves.
    The zeros' sums are the whole's minus the ones': a group whose level sum is within the sums' rounding of 0
    (levels far apart, :math:`4(n + 1)2^{-52}S`) is refused rather than computed from noise.

    A column with a value strictly between 0 and 1 on a training or test row is refused: its sum of squares is then
    below its sum (:math:`x^2 < x`), while the sums of 0s and 1s are integers, exact in doubles.
    """
    if not sums.intercept:
        raise ValueError("group_mean_loss needs the sums of a model with the intercept (bounds with intercept=true)")
    column = check_count(column, "column", minimum=0)
    if not column < sums.d - 1:
        raise ValueError(f"column = {column} is outside the allowed range [0, {sums.d - 2}] (a feature, not the "
                         f"intercept)")
    if gaussian and sums.gaussian is None:
        raise ValueError("gaussian=True needs the sums computed with delta")
    for name, part in (("training", sums.plain), ("test", sums.test)):
        if part.gram[column, column] != part.gram[column, -1]:
            raise ValueError(f"column = {column}: a {name} row's value is strictly between 0 and 1; the groups need "
                             f"a binary column (every value 0 or 1 in the domain)")
    part, total = (sums.gaussian, sums.mu_total) if gaussian else (sums.weighted, sums.eps_total)
    test, rows = sums.test, sums.plain.gram[column, -1]
    ones = (part.gram[column, -1], part.moment[column], test.gram[column, -1], test.moment[column], rows)
    zeros = (total - ones[0], part.ysum - ones[1], test.rows - ones[2], test.ysum - ones[3], sums.plain.rows - rows)
    slack = 4.0 * (sums.plain.rows + 1) * 2.0**-52 * total     # the sums' rounding, bounded on the safe side
    loss = test.yy
    for level_sum, label_sum, test_rows, test_label_sum, train_rows in (ones, zeros):
        if train_rows == 0:
            continue                                   # predicts 0: adds nothing to the sum of squares
        if level_sum <= slack:
            raise ValueError(f"column = {column}: a group's level sum ({level_sum:.3g}) is within the sums' rounding "
                             f"({slack:.3g}) of 0; its loss cannot be computed from them")
        m = label_sum / level_sum
        spread = private_mean.noise_variance(level_sum, gaussian=gaussian) if noise else 0.0
        loss += test_rows * (m * m + spread) - 2.0 * m * test_label_sum
    return float(max(loss / test.rows, 0.0))


def group_rows(sums: CompareSums, column: int, lams) -> pd.DataFrame:
    """The rows of ``compare --group``: ``group_means`` (and ``group_means_delta`` when the sums hold ``delta``) at
    each of ``lams``, the exact expected loss of :func:`group_mean_loss` (the same on every row, no ``lambda``),
    in :func:`expected_losses`'s columns."""
    rows = [(float(lam), name, group_mean_loss(sums, column, gaussian=gaussian), 0.0)
            for lam in lams for name, gaussian in (("group_means", False), ("group_means_delta", True))
            if not gaussian or sums.gaussian is not None]
    return pd.DataFrame(rows, columns=["lam", "method", "loss", "se"])


def test_losses(sums: CompareSums, thetas) -> np.ndarray:
    """The unregularized test loss of each row of ``thetas`` (models, shape ``(r, d)``, no noise added), from the
    test rows' sums."""
    return _test_losses(sums.test, np.asarray(thetas, dtype=float))


def checked_losses(sums: CompareSums, lams: list, draws: int, seed: int, *, gaussian: bool = False) -> dict:
    """The test losses of ``draws`` checked releases of SSP with the intercept
    (:mod:`pdp_lib.mechanisms.checked_ssp`) at each ``lambda``: from the same noise as the ``ssp`` row (pure) or
    the ``ssp_gaussian`` row (``gaussian=True``, the Gaussian noise of ``sums.gaussian``), the bootstrap from a
    stream of its own.  ``{lam: (losses, share of releases that kept the regression)}``."""
    from ..mechanisms import checked_ssp, ssp

    d = sums.d
    if gaussian:
        M = sums.mu_total
        A, c = sums.gaussian.gram / M, sums.gaussian.moment / M
        cal = _gaussian_ssp_calibration(sums)
        law = checked_ssp.NoiseLaw("gaussian", cal.sigma_gram, cal.sigma_moment)
        gen = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_GAUSSIAN,)))
    else:
        total = sums.eps_total
        A, c = sums.weighted.gram / total, sums.weighted.moment / total
        cal = ssp.ssp_calibration(total, float(sums.levels[0]), d)
        law = checked_ssp.NoiseLaw("l2-laplace", cal.eta_gram, cal.eta_moment)
        gen = _release_stream(seed)
    boot = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(checked_ssp.CHECK_STREAM,)))
    out = {lam: ([], []) for lam in lams}
    for start in range(0, draws, _BATCH):
        size = min(_BATCH, draws - start)
        gram_noise, moment_noise = law.draw(size, d, gen)
        A_hat = ssp.symmetric_stack(A, gram_noise)
        thetas, gains = checked_ssp.checked_solutions(A_hat, c + moment_noise, lams, law, boot)
        for lam, theta, gain in zip(lams, thetas, gains):
            out[lam][0].append(_test_losses(sums.test, theta))
            out[lam][1].append(gain > 0.0)
    return {lam: (np.concatenate(v), float(np.concatenate(k).mean())) for lam, (v, k) in out.items()}


def _auto_rows(sums: CompareSums, lams: list, rows: list, draws: int, seed: int, known: dict) -> list:
    """The rows of :data:`CHOSEN`: the loss of the release :func:`pdp_lib.mechanisms.automatic.choose` picks from the
    training rows' levels: the private mean's row, or SSP's checked release (:func:`checked_losses`, from the same
    noise as the ``ssp`` or ``ssp_gaussian`` row, or ``known[lam, gaussian]`` where given); none without the
    intercept, which ``mechanism="auto"`` needs."""
    from ..mechanisms.automatic import choose

    if not sums.intercept:
        return []
    loss = {(lam, method): (value, se) for lam, method, value, se in rows}

    def checked(lam, gaussian):
        values = known.get((lam, gaussian))
        if values is None:
            values, _ = checked_losses(sums, [lam], draws, seed, gaussian=gaussian)[lam]
        return float(values.mean()), float(values.std(ddof=1) / np.sqrt(draws))

    choice = choose(sums.eps_total, float(sums.levels[0]), sums.d)
    pick = loss[lams[0], "private_mean"] if choice.mechanism == "mean" else checked(choice.lam, False)
    out = [(lam, "auto", *pick) for lam in lams]
    if sums.gaussian is not None:
        choice = choose(sums.eps_total, float(sums.levels[0]), sums.d, sums.delta)
        if choice.mechanism == "mean":
            pick = loss[lams[0], "private_mean_delta"]
        else:
            pick = checked(gaussian_public_ridge(sums), True)
        out += [(lam, "auto_delta", *pick) for lam in lams]
    return out


def gaussian_public_ridge(sums: CompareSums) -> float:
    """Gaussian SSP's public ridge for the sums weighted by ``mu*`` (:func:`pdp_lib.mechanisms.adassp.ridge_rule`
    with the eigenvalue's bound at 0): it reads no data."""
    from ..mechanisms import adassp

    return float(adassp.ridge_rule(0.0, _gaussian_ssp_calibration(sums).sigma_gram, 0.0, sums.d, sums.delta))


def _gaussian_ssp_calibration(sums: CompareSums):
    """Gaussian SSP's noise for the sums weighted by ``mu*``: AdaSSP's calibration with the shares ``(0.5, 0.5, 0)``
    (no eigenvalue released)."""
    from ..mechanisms import adassp

    return adassp.adassp_calibration(sums.mu_total, sums.mu_min, sums.d, sums.delta,
                                     adassp.check_shares((0.5, 0.5, 0.0)))


def _gaussian_monte_carlo(sums: CompareSums, lams: list, draws: int, seed: int) -> list:
    """``(lam, method, loss, se)`` rows of the mechanisms under ``delta``: Gaussian SSP at the public ridge, AdaSSP
    and noisy gradient descent, each a mean over ``draws`` releases; and the private mean under ``delta``, exact."""
    from ..bounds import norm_bound
    from ..mechanisms import adassp, noisy_gd, ssp

    d, M, delta, test = sums.d, sums.mu_total, sums.delta, sums.test
    A, c = sums.gaussian.gram / M, sums.gaussian.moment / M
    gen = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_GAUSSIAN,)))
    cal = _gaussian_ssp_calibration(sums)
    ridge = gaussian_public_ridge(sums)                                          # public: reads no data
    losses, p = [], d * (d + 1) // 2
    for start in range(0, draws, _BATCH):
        size = min(_BATCH, draws - start)
        gram_noise = cal.sigma_gram * gen.standard_normal((size, p))
        thetas = ssp.noisy_solutions(A, c, gram_noise, cal.sigma_moment * gen.standard_normal((size, d)), [ridge])
        losses.append(_test_losses(test, thetas[0]))
    g_loss = np.concatenate(losses)
    cal_a = adassp.adassp_calibration(M, sums.mu_min, d, delta)
    thetas, _ = adassp.adassp_draws(A, c, float(np.linalg.eigvalsh(A)[0]),
                                    (cal_a.sigma_gram, cal_a.sigma_moment, cal_a.sigma_eigen), delta, gen, draws)
    a_loss = _test_losses(test, thetas)
    pm = private_mean_loss(sums, gaussian=True)
    rows = []
    for lam in lams:
        radius = norm_bound(lam, d)
        cal_g = noisy_gd.gd_calibration(M, sums.mu_min, d, delta, noisy_gd.STEPS, radius, 1.0 / (d + lam))
        gd_loss = _test_losses(test, noisy_gd.noisy_gd_draws(A, c, lam, cal_g, gen, draws))
        for method, values in (("ssp_gaussian", g_loss), ("adassp", a_loss), ("gd", gd_loss)):
            rows.append((lam, method, float(values.mean()), float(values.std(ddof=1) / np.sqrt(draws))))
        rows.append((lam, "private_mean_delta", pm, 0.0))
    return rows


def expected_losses(sums: CompareSums, lams, *, draws: int = 200, seed: int = 0, checked: dict | None = None) -> pd.DataFrame:
    """Every mechanism's expected unregularized test loss at each ``lambda``, from the sums alone.

    ``draws`` (``>= 2``) releases of SSP and of objective perturbation per ``lambda``, from the random stream
    named by ``seed``; every other loss is exact or (Jorgensen's) a mean over masks.  ``checked``, optional:
    ``{(lam, gaussian): losses}`` of :func:`checked_losses` with the same ``sums``, ``draws`` and ``seed``, which
    the rows of ``mechanism="auto"`` read where they hold its ``lambda`` instead of drawing the same releases again.

    Returns
    -------
    pandas.DataFrame
        Columns ``lam, method, loss, se`` (``se``: the Monte Carlo standard error over Jorgensen's
        masks or the releases, 0 where the loss is exact), the rows of each ``lambda`` in the order of
        :data:`METHODS`.
    """
    draws = check_count(draws, "draws", minimum=2)
    lams = [float(v) for v in lams]
    rows = []
    # levels far too small overflow the noise's part: refused below, in one line, not as NumPy's warnings
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        d, n = sums.d, sums.plain.rows
        for lam in lams:
            c, c_sharp = noise_scale(lam, d), noise_scale(lam, d, "sharp")
            theta = _ridge(sums.weighted, sums.eps_total, lam)
            rows.append((lam, "pdp_op", _test_loss(sums.test, theta, sums.eps_total / c), 0.0))
            rows.append((lam, "pdp_op_sharp", _test_loss(sums.test, theta, sums.eps_total / c_sharp), 0.0))
            plain = _ridge(sums.plain, n, lam)
            rows.append((lam, "non_personalized", _test_loss(sums.test, plain, n * sums.levels[0] / c), 0.0))
            kept = _ridge(sums.kept, sums.kept.rows, lam)
            rows.append((lam, "threshold_public", _test_loss(sums.test, kept, sums.kept.rows * sums.threshold / c), 0.0))
            for kind, t in sums.jorgensen_t.items():
                parts = sums.masks[kind]
                thetas = iter(_ridges([part for part in parts if part.rows], lam))
                values = np.array([_test_loss(sums.test, next(thetas), part.rows * t / c)
                                   if part.rows else _test_loss(sums.test, np.zeros(d), np.inf) for part in parts])
                rows.append((lam, f"jorgensen_{kind}", float(values.mean()), float(values.std(ddof=1) / np.sqrt(values.size))))
            rows.append((lam, "private_mean", private_mean_loss(sums), 0.0))        # Laplace(2 / S) noise
            rows.append((lam, "non_private", _test_loss(sums.test, plain, np.inf), 0.0))
            rows.append((lam, "mean", _constant_loss(sums.test, sums.plain.ysum / n), 0.0))   # the training mean
            rows.append((lam, "midpoint", _constant_loss(sums.test, 0.0), 0.0))
        _check_finite(rows, sums)                # before the releases: levels that overflow are refused here
        rows += _monte_carlo(sums, lams, draws, seed)
        if sums.gaussian is not None:
            rows += _gaussian_monte_carlo(sums, lams, draws, seed)
        rows += _auto_rows(sums, lams, rows, draws, seed, checked or {})
        _check_finite(rows, sums)
    order = {m: j for j, m in enumerate(METHODS)}
    rows.sort(key=lambda row: (lams.index(row[0]), order[row[1]]))
    return pd.DataFrame(rows, columns=["lam", "method", "loss", "se"])


def _check_finite(rows: list, sums: CompareSums) -> None:
    """Refuse, in one line naming the first, losses that overflow."""
    bad = next((row for row in rows if not np.isfinite(row[2])), None)
    if bad is not None:
        raise ValueError(f"the expected test loss of {bad[1]} at lambda = {bad[0]!r} overflows: the "
                         f"levels sum to {sums.eps_total!r} over the training rows, far too little for any use")
