r"""PDP-OP on a table of any size: the sums the mechanisms need, streamed over the rows.

PDP-OP needs only :math:`G = \sum_i \varepsilon_i x_i x_i^\top`, :math:`b = \sum_i \varepsilon_i y_i x_i`
and :math:`S = \sum_i \varepsilon_i`: with :math:`w_i = \varepsilon_i / S`,
:math:`\bar\theta = (G/S + \lambda I)^{-1} b/S` (eq. (2)), and the noise depends on :math:`S`, ``d``,
``lambda`` and ``B`` only (Theorems 3.1 and 3.2).  Every term is a sum over rows, so the mechanism
streams over any number of rows with no approximation: :func:`accumulate` reads the data in chunks
(:mod:`pdp_lib.io.tables`: CSV, TSV or Parquet, one file, a folder of parts or a glob), checks every row against
the declared public bounds (:mod:`pdp_lib.io.public_bounds`) and maps it into the domain, and adds its share of
the sums; :func:`pdp_lib.mechanisms.registry.fit_sums` draws the noise once.  Peak memory is set by the chunk
size, not by the number of rows.

A row outside its bounds, a missing value, or a privacy level that is missing, not positive or above
:data:`pdp_lib.validation.MAX_LEVEL` is refused with the file, the row and the column; an explicit
``clip=True`` clamps out-of-range values to the bounds instead and counts the rows it changed, for the operator
only: that count depends on the private rows, so it is never released (the model file does not hold it).

The levels are public (the neighbouring relation replaces one row's features and label and keeps every
level), and the model file summarizes them in a size that does not depend on the number of rows or of
distinct levels: their number, sum, minimum, maximum and an order-free digest (:func:`level_digest`).

Behind ``python -m pdp_lib fit`` and ``compare`` (:mod:`pdp_lib.cli`); the mechanism is Algorithm 1 as
derived in the book's chapter *The PDP-OP mechanism* (``book/mechanism.ipynb``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..mechanisms.lattice import merged_rounds, weighted_sums
from ..validation import check_count
from .public_bounds import Bounds
from .tables import CHUNK_ROWS, check_chunk, chunks, data_files, table_columns, where

__all__ = ["Sums", "accumulate", "gaussian_weights", "level_digest", "exact_units", "mix64"]


@dataclass
class Sums:
    """The sums PDP-OP needs, accumulated over rows (every row already mapped into the domain).

    Attributes
    ----------
    gram : numpy.ndarray of shape (d, d)
        ``sum_i eps_i x_i x_i^T``.
    moment : numpy.ndarray of shape (d,)
        ``sum_i eps_i y_i x_i``.
    total : float
        ``sum_i eps_i``, correctly rounded from the exact sum ``exact_total`` (in units of ``2**-1126``), so
        that it, and ``eta``, do not depend on the rows' order, the chunks, the files or the partitions.
    rows : int
    clipped : int
        Rows changed by ``clip=True``: a diagnostic for the operator, computed from the private rows, never
        released.
    level_min, level_max : float
        The smallest and the largest level.
    digest : tuple of two int
        The order-free digest of the levels (:func:`level_digest`), two lanes modulo ``2**64``.
    weight_exact_total, weight_min : int, float
        The sum (exactly, in the units of ``exact_total``) and the smallest of the weights the sums were accumulated
        with: the levels themselves, or ``mu*(eps_i, delta)`` for the Gaussian mechanisms (``add(..., weights=)``).
    levels_whole : bool
        Whether every level is a whole number (public, as the levels are), read by :func:`look_like_percentages`.
    rounds : int
        A bound on the roundings any term meets in ``gram`` and ``moment``, a function of the chunks' and
        partitions' sizes only, at most :func:`pdp_lib.mechanisms.lattice.rounds_bound` of the rows
        (the exact release checks it).
    stack : list
        The partial sums of the chunks added so far, ``(chunks, rounds, gram, moment)``, combined like a binary
        counter.
    """

    gram: np.ndarray
    moment: np.ndarray
    rows: int = 0
    clipped: int = 0
    level_min: float = float("inf")
    level_max: float = float("-inf")
    digest: tuple = (0, 0)
    exact_total: int = 0
    rounds: int = 0
    stack: list = field(default_factory=list, repr=False, compare=False)
    weight_exact_total: int = 0
    weight_min: float = float("inf")
    levels_whole: bool = True

    @classmethod
    def zeros(cls, d: int) -> "Sums":
        """Empty sums in dimension ``d``."""
        return cls(gram=np.zeros((d, d)), moment=np.zeros(d))

    def add(self, X: np.ndarray, y: np.ndarray, eps: np.ndarray, weights=None) -> None:
        """Add rows already in the domain, with their levels ``eps``; ``gram`` and ``moment`` are weighted by
        ``weights`` (default: the levels).

        A chunk's sums are blocks and a pairwise tree (:func:`pdp_lib.mechanisms.lattice.weighted_sums`); the
        chunks' sums are combined like a binary counter (two partial sums of as many chunks are added), so
        ``rounds`` grows like the logarithm of the number of chunks, whatever their size.
        """
        w = eps if weights is None else np.asarray(weights, dtype=float)
        gram, moment, rounds = weighted_sums(X, y, w)
        stack = self.stack
        stack.append((1, rounds, gram, moment))
        while len(stack) > 1 and stack[-1][0] == stack[-2][0]:
            (c, r, g, m), (c2, r2, g2, m2) = stack.pop(), stack.pop()
            stack.append((c + c2, merged_rounds(r, r2), g2 + g, m2 + m))
        _, self.rounds, g, m = stack[-1]
        for _, r, g2, m2 in reversed(stack[:-1]):
            self.rounds, g, m = merged_rounds(self.rounds, r), g2 + g, m2 + m
        self.gram, self.moment = np.array(g), np.array(m)
        self.exact_total += exact_units(eps)
        self.weight_exact_total += exact_units(w)
        if w.size:
            self.weight_min = min(self.weight_min, float(w.min()))
        self.rows += X.shape[0]
        if eps.size:
            self.level_min = min(self.level_min, float(eps.min()))
            self.level_max = max(self.level_max, float(eps.max()))
            self.digest = _add_digests(self.digest, _lanes(eps))
            self.levels_whole = self.levels_whole and bool(np.all(eps == np.floor(eps)))

    def merge(self, other: "Sums") -> "Sums":
        """The sums of two disjoint sets of rows."""
        exact = self.exact_total + other.exact_total
        rounds = merged_rounds(self.rounds, other.rounds)
        gram, moment = self.gram + other.gram, self.moment + other.moment
        return Sums(gram=gram, moment=moment, rounds=rounds, stack=[(1 << 62, rounds, gram, moment)],
                    rows=self.rows + other.rows, clipped=self.clipped + other.clipped,
                    level_min=min(self.level_min, other.level_min), level_max=max(self.level_max, other.level_max),
                    digest=_add_digests(self.digest, other.digest), exact_total=exact,
                    weight_exact_total=self.weight_exact_total + other.weight_exact_total,
                    weight_min=min(self.weight_min, other.weight_min),
                    levels_whole=self.levels_whole and other.levels_whole)

    @property
    def total(self) -> float:
        """``sum_i eps_i``, correctly rounded once from ``exact_total``."""
        return self.exact_total / _UNIT

    @property
    def weight_total(self) -> float:
        """The sum of the weights, correctly rounded once from ``weight_exact_total``."""
        return self.weight_exact_total / _UNIT

    def level_summary(self) -> dict:
        """The public levels in a size that does not depend on ``rows``: count, sum, min, max, digest."""
        return {"rows": int(self.rows), "sum": float(self.total), "min": float(self.level_min),
                "max": float(self.level_max), "digest": _digest_text(self.digest)}

    def theta_bar(self, lam: float) -> np.ndarray:
        """The weighted ridge solution of eq. (2) with ``w_i = eps_i / total``."""
        d = self.moment.size
        A = self.gram / self.total
        A[np.diag_indices(d)] += lam
        c = np.linalg.cholesky(A)
        return np.linalg.solve(c.T, np.linalg.solve(c, self.moment / self.total))


_UNIT = 1 << 1126
"""Levels are summed exactly as integers in units of ``2**-1126``: every positive double is ``M 2**(e - 53)``
with an integer ``M < 2**53`` and ``e >= -1073``."""


def exact_units(values) -> int:
    """The exact sum of nonnegative finite doubles, as an integer in units of ``2**-1126``.

    Each value is split by :func:`numpy.frexp` into a 53-bit integer mantissa and an exponent; the
    mantissas are summed exactly per exponent in two 32-bit halves (``int64`` holds ``2**31`` rows of
    each), and the groups are added as Python integers.  ``exact_units(a) / 2**1126`` is then the
    correctly rounded sum, whatever the order of the values.
    """
    v = np.ascontiguousarray(values, dtype=np.float64).ravel()
    if v.size == 0:
        return 0
    mantissa, exponent = np.frexp(v)
    whole = (mantissa * 2.0 ** 53).astype(np.int64)                # exact: |mantissa| < 1 has 53 bits
    total = 0
    for e in np.unique(exponent).tolist():
        group = whole[exponent == e]
        high = int(np.sum(group >> 32, dtype=np.int64))
        low = int(np.sum(group & 0xFFFFFFFF, dtype=np.int64))
        total += ((high << 32) + low) << (e - 53 + 1126)
    return total


_MASK = (1 << 64) - 1
_LANE_KEYS = (np.uint64(0x243F6A8885A308D3), np.uint64(0x13198A2E03707344))   # the digits of pi, as in Blowfish


def mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer (Steele, Lea & Flood 2014): a bijection of 64-bit words that spreads every bit."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _lanes(eps: np.ndarray) -> tuple:
    """The two digest lanes of a batch of levels: sums modulo ``2**64`` of mixed bit patterns."""
    bits = np.ascontiguousarray(eps, dtype=np.float64).view(np.uint64)
    return tuple(int(np.sum(mix64(bits ^ key), dtype=np.uint64)) for key in _LANE_KEYS)


def _add_digests(a: tuple, b: tuple) -> tuple:
    return ((a[0] + b[0]) & _MASK, (a[1] + b[1]) & _MASK)


def _digest_text(lanes: tuple) -> str:
    return f"{lanes[0]:016x}{lanes[1]:016x}"


def level_digest(epsilons) -> str:
    """An order-free digest of a level column: 32 hexadecimal digits.

    Each level's IEEE 754 bits are mixed by SplitMix64's finalizer under two keys, and each lane is
    summed modulo ``2**64`` (a multiset hash), so the digest depends on the multiset of levels only: not
    on the rows' order, the files' layout, the chunks or the partitions, and it merges by addition.  It
    lets a reader check that a model was fitted with the level column they hold (the levels are public)
    against accidents: another file, a changed, added or lost row.  It is a checksum, not a commitment:
    its lanes are linear sums, so two columns built on purpose to collide can be found (by lattice
    reduction); do not rely on it against someone who chooses the columns.

    Parameters
    ----------
    epsilons : array_like
        The levels, as float64.
    """
    return _digest_text(_lanes(np.asarray(epsilons, dtype=np.float64).ravel()))



def accumulate(source, bounds: Bounds, label: str, epsilon: str, *, clip: bool = False,
               chunk_rows: int = CHUNK_ROWS, progress=None, ignore=(), delta=None) -> Sums:
    """Read ``source`` in chunks, check and map every row, and return the sums.

    Features map to ``[0, 1]`` and the label to ``[-1, 1]`` with the declared bounds (the last
    ``np.clip`` only removes rounding past the end points of a value on its bound).

    Parameters
    ----------
    source : str or Path
        A CSV or Parquet file, a folder of them, or a glob.
    bounds : Bounds
    label, epsilon : str
        The label's column and the privacy levels' column.
    clip : bool
        Clamp out-of-range values to their bounds (counted in ``Sums.clipped``) instead of refusing them.
    chunk_rows : int
        Rows per chunk.
    progress : callable, optional
        Called with the number of rows read after each chunk.
    ignore : sequence of str
        Columns to leave out on purpose.  Any other column that is neither a feature, the label nor the
        level is refused: an undeclared column is usually a slip (a feature left out of the bounds file).
    delta : None or float
        ``None``: the sums are weighted by the levels.  In ``(0, 1)``: by ``mu*(eps_i, delta)``
        (:func:`gaussian_weights`), for the Gaussian mechanisms.

    Returns
    -------
    Sums
    """
    chunk_rows = check_count(chunk_rows, "chunk_rows")
    sums = Sums.zeros(bounds.d)
    columns, allowed = table_columns(bounds, label, epsilon, ignore)
    for path in data_files(source):
        for first, frame in chunks(path, columns, chunk_rows, allowed):
            X, y, eps, changed = check_chunk(frame, path, first, bounds, label, epsilon, clip)
            sums.add(X, y, eps, None if delta is None else gaussian_weights(eps, delta, path, first, epsilon))
            sums.clipped += changed
            if progress is not None:
                progress(X.shape[0])
    if sums.rows == 0:
        raise ValueError(f"{source}: no rows")
    return sums


def gaussian_weights(eps: np.ndarray, delta: float, path=None, first: int = 1, column: str = "epsilon") -> np.ndarray:
    """``mu*(eps_i, delta)`` for every row (:func:`pdp_lib.curves.tolerated_gaussian_mus`), computed once per distinct
    level: the weights of the Gaussian mechanisms, a function of each row's public level alone.

    With ``path``, a level for which ``mu*`` cannot be computed is refused with its file, line (``first`` is the
    chunk's first row, from 1) and ``column``, rather than with its index in the chunk.
    """
    from ..gaussian_curves import tolerated_gaussian_mus

    levels, index = np.unique(eps, return_inverse=True)
    try:
        return tolerated_gaussian_mus(levels, delta)[index]
    except ValueError as exc:
        if path is None:
            raise
        for level in levels:
            try:
                tolerated_gaussian_mus(np.array([level]), delta)
            except ValueError:
                r = int(np.flatnonzero(eps == level)[0])
                reason = str(exc).split(" is outside ", 1)[-1]
                raise ValueError(f"{where(path, first + r)}, column {column!r}: the level {float(level)!r} with "
                                 f"delta = {delta!r} is outside {reason}") from None
        raise
