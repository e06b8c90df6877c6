r"""PDP-OP on a Dask cluster: the sums as tasks over the partitions, the noise drawn once on the client.

PDP-OP needs only sums over rows (:mod:`pdp_lib.io.streaming`), so each partition of a
``dask.dataframe`` is checked against the public bounds, mapped into the domain and summed by a
task on a worker (:func:`partition_sums`); the client adds the partitions' sums in partition order,
once every one of them has arrived, and draws the privacy noise itself (:func:`fit_dask`).  A row
outside its bounds, a missing value or a bad level stops the computation with the partition and the
row named.  A worker lost mid-run is the scheduler's business: it recomputes the lost partitions
on another worker or gives up with an error; the client never sums an incomplete set.

Uses ``dask.dataframe`` and ``dask.distributed``, pinned in ``requirements.txt``; no scheduler of
its own.  Behind ``python -m pdp_lib fit --scheduler ADDRESS``; Algorithm 1 as derived in the
book's chapter *The PDP-OP mechanism* (``book/mechanism.ipynb``).
"""

from __future__ import annotations

import dask
import numpy as np

from ..mechanisms.registry import fit_sums
from .public_bounds import Bounds
from .streaming import Sums, gaussian_weights
from .tables import check_chunk

__all__ = ["partition_sums", "submit_sums", "combine_sums", "dask_sums", "fit_dask"]


def partition_sums(frame, index: int, bounds: Bounds, label: str, epsilon: str, clip: bool = False,
                   source=None, delta=None) -> Sums:
    """The sums of one partition (a pandas DataFrame), its rows checked and mapped into the domain.

    Errors name the partition's ``source`` file (a ``Path``: the line of a CSV or TSV file, the row of
    a Parquet file) when the partition is a whole file, else ``partition <index>`` and the row within
    the partition (from 1); and the column.  ``delta``: the sums weighted by ``mu*(eps_i, delta)``, as in
    :func:`pdp_lib.io.streaming.accumulate`.
    """
    place = source if source is not None else f"partition {index}"
    columns = list(bounds.features) + [label, epsilon]
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{place}: column {missing[0]!r} is missing (columns: {list(frame.columns)})")
    sums = Sums.zeros(bounds.d)
    if len(frame):
        X, y, eps, changed = check_chunk(frame[columns], place, 1, bounds, label, epsilon, clip)
        sums.add(X, y, eps, None if delta is None else gaussian_weights(eps, delta, place, 1, epsilon))
        sums.clipped = changed
    return sums


def _tasks(dataframe, bounds, label, epsilon, clip, sources, delta=None) -> list:
    delayed = dataframe.to_delayed()
    if not delayed:
        raise ValueError("the dataframe has no partition")
    if sources is not None and len(sources) != len(delayed):
        raise ValueError(f"{len(sources)} source files for {len(delayed)} partitions: give one partition per file")
    return [dask.delayed(partition_sums)(part, k, bounds, label, epsilon, clip,
                                         None if sources is None else sources[k], delta)
            for k, part in enumerate(delayed)]


def submit_sums(dataframe, bounds: Bounds, label: str, epsilon: str, client, *, clip: bool = False,
                sources=None, delta=None) -> list:
    """Submit one :func:`partition_sums` task per partition to ``client``: the futures, in partition order.

    ``sources``, when given, names each partition's file (one partition per file), for the errors; ``delta`` as in
    :func:`partition_sums`.
    """
    return client.compute(_tasks(dataframe, bounds, label, epsilon, clip, sources, delta))


def combine_sums(results) -> Sums:
    """Add the partitions' sums along a pairwise tree, in partition order; refuses an empty or incomplete set."""
    results = list(results)
    if not results or any(not isinstance(r, Sums) for r in results):
        raise RuntimeError("a partition's sums are missing: refusing a partial sum")
    parts = list(results)
    while len(parts) > 1:              # a pairwise tree: each level adds one rounding to every term
        parts = [a.merge(b) for a, b in zip(parts[0::2], parts[1::2])] + parts[len(parts) - len(parts) % 2:]
    total = parts[0]
    if total.rows == 0:
        raise ValueError("the dataframe has no rows")
    return total


def dask_sums(dataframe, bounds: Bounds, label: str, epsilon: str, *, clip: bool = False, client=None,
              sources=None, delta=None) -> Sums:
    """The sums of every partition of ``dataframe``, computed as Dask tasks, added in partition order.

    Parameters
    ----------
    dataframe : dask.dataframe.DataFrame
    bounds : pdp_lib.io.public_bounds.Bounds
    label, epsilon : str
    clip : bool
        As in :func:`pdp_lib.io.streaming.accumulate`.
    client : distributed.Client, optional
        Compute on this cluster (:func:`submit_sums`, then ``client.gather``, which waits for every
        partition or raises); ``None``: Dask's current scheduler.
    sources : sequence of pathlib.Path, optional
        Each partition's file, when every partition is one whole file: errors then name the file and
        its line (CSV, TSV) or row (Parquet) instead of the partition.
    delta : None or float
        The sums weighted by ``mu*(eps_i, delta)`` (:func:`partition_sums`).

    Returns
    -------
    Sums
    """
    if client is not None:
        return combine_sums(client.gather(submit_sums(dataframe, bounds, label, epsilon, client, clip=clip,
                                                      sources=sources, delta=delta)))
    return combine_sums(dask.compute(*_tasks(dataframe, bounds, label, epsilon, clip, sources, delta)))


def fit_dask(dataframe, label: str, epsilon: str, lam, bounds: Bounds, *, B=None, clip: bool = False, rng=None,
             client=None, sampler: str = "exact"):
    """PDP-OP on a ``dask.dataframe``: ``(theta_hat, sums, release)``, the release a
    :class:`pdp_lib.mechanisms.release.Release`.

    The sums run on the cluster (:func:`dask_sums`); ``theta_bar`` and the noise are computed on
    the client (:func:`pdp_lib.mechanisms.registry.fit_sums`, with its ``sampler``), so the noise never leaves this
    process.
    """
    sums = dask_sums(dataframe, bounds, label, epsilon, clip=clip, client=client)
    release = fit_sums(sums, lam, B=B, rng=rng, sampler=sampler)
    return np.asarray(release.theta), sums, release
