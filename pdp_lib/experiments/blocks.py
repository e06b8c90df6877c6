"""How the engine cuts its work to fit a memory budget: blocks of runs, tiles, chunks of points.

The Jorgensen Monte Carlo of :func:`pdp_lib.experiments.evaluate_sweep` draws its masks and forms
their Gram matrices in blocks of runs sized from ``memory_budget`` (:func:`block_size`); every
product over runs is made on tiles of ``TILE`` runs aligned on the run index, so that a run's
numbers do not depend on the block it falls in, bit for bit (the rounding of a row of a product can
depend on how many rows it has).  Measured in ``benchmarks/bench_scale.py``; described in the
book's chapter *Exact loss moments*.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import check_count, check_positive

__all__ = ["DEFAULT_MEMORY_BUDGET", "block_size"]

DEFAULT_MEMORY_BUDGET = 512 * 10**6
"""Default ``memory_budget`` of :func:`evaluate_sweep`, in bytes (512 MB)."""

# Shares of the budget: the products x_i x_i^T of the points; the arrays kept for a whole block
# of runs; the uniforms, drawn a few rows at a time.
POINT_SHARE, BLOCK_SHARE, CHUNK_SHARE = 0.25, 0.5, 0.25
TILE = 256                 # runs per matrix product
TILE_BYTES = 32 * 2**20    # float copies of one tile of runs over one chunk of points or test points


def check_memory_budget(memory_budget) -> float:
    """``memory_budget`` as a float: a finite number of bytes ``> 0``.

    ``ValueError`` naming it and the allowed range ``(0, inf)`` otherwise (``TypeError`` if it
    is not a real number), as every argument of :mod:`pdp_lib`.
    """
    return check_positive(memory_budget, "memory_budget")


def rows_within(total: int, bytes_per_row: float, budget: float) -> int:
    """The most rows of ``bytes_per_row`` bytes that fit in ``budget``, clipped to ``[1, total]``."""
    return int(min(total, max(1.0, budget // bytes_per_row)))


def bytes_per_run(n: int, d: int) -> int:
    """Bytes kept for one run (one mask) while its block is processed.

    Its mask over the ``n`` random points (``bool``), and in float64 words the triangle of
    ``X_m^T X_m`` (``d(d+1)/2``), the Gram matrix (``d^2``), a dozen ``d``-vectors (right-hand
    side, diagonal, solution, gradients) and a dozen numbers (kept count, ``eta``, loss values).
    """
    return n + 8 * (d * (d + 1) // 2 + d * d + 12 * d + 12)


@dataclass(frozen=True)
class BlockPlan:
    """How one Jorgensen variant is cut to fit a memory budget (see :func:`block_size`).

    ``runs_per_block`` runs share one Gram stack and one batched solve; within a block the
    uniforms are drawn ``draw_rows`` rows at a time.
    """

    runs_per_block: int
    draw_rows: int


def plan_blocks(runs: int, n: int, d: int, budget: float) -> BlockPlan:
    size = rows_within(runs, bytes_per_run(n, d), BLOCK_SHARE * budget)
    if TILE <= size < runs:
        size -= size % TILE  # whole tiles: no tile is split between two blocks
    return BlockPlan(runs_per_block=size, draw_rows=rows_within(size, 8 * max(n, 1), CHUNK_SHARE * budget))


def block_size(runs, n, d, memory_budget=DEFAULT_MEMORY_BUDGET) -> int:
    """Runs per block of the Jorgensen Monte Carlo in :func:`evaluate_sweep`.

    The budget is shared: a quarter for the products ``x_i x_i^T`` of the points (kept whole
    when they fit, else formed a chunk of points at a time), half for the arrays kept for
    every run of a block (its mask as booleans, Gram matrix, solutions:
    ``n + 8 (d(d+1)/2 + d^2 + 12 d + 12)`` bytes), a quarter for the uniforms, drawn a few
    rows at a time.  This returns the most runs that fit in their half, rounded down to whole
    tiles of ``TILE`` (256) runs when there are more runs than that, at least 1 (a budget too
    small for one run gives blocks of one run, and is then exceeded by the arrays of that run)
    and at most ``runs``.  The blocks are ``[0, s), [s, 2s), ...`` with ``s`` this size: there
    are ``ceil(runs / s)`` of them.  Besides the budget, the products are made in a working set
    of a fixed size (``TILE_BYTES``, 32 MiB: a tile of runs over a chunk of points), so that
    their rounding does not depend on the budget.  Neither the number of test points nor the
    number of ``lambda`` values changes the size.

    Parameters
    ----------
    runs : int
        Number of runs (masks).
    n : int
        Points drawn per mask (those whose keep probability is below 1).
    d : int
        Number of features.
    memory_budget : float, default DEFAULT_MEMORY_BUDGET
        Bytes, finite and ``> 0``.

    Returns
    -------
    int
        In ``[1, runs]``.
    """
    runs = check_count(runs, "runs")
    budget = check_memory_budget(memory_budget)
    return plan_blocks(runs, n, d, budget).runs_per_block


def tile_spans(start: int, rows: int):
    """The tiles of ``TILE`` runs met by the runs ``start, ..., start + rows - 1``.

    Yields ``(in_tile, in_block)``: the slices of those runs within the tile (aligned on the
    run index: tile ``q`` holds runs ``q TILE, ..., (q + 1) TILE - 1``) and within
    ``start, ..., start + rows - 1``.
    """
    stop = start + rows
    for first in range(start - start % TILE, stop, TILE):
        lo, hi = max(start, first), min(stop, first + TILE)
        yield slice(lo - first, hi - first), slice(lo - start, hi - start)


def load_tile(tile: np.ndarray, in_tile: slice, rows: np.ndarray) -> np.ndarray:
    """``rows`` copied into ``tile`` at ``in_tile``, the other rows of the tile zero."""
    if in_tile.start or in_tile.stop < tile.shape[0]:
        tile.fill(0.0)
    tile[in_tile] = rows
    return tile
