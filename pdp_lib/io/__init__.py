"""Users' tables: reading them with public bounds, the sums PDP-OP needs, and what is computed from them.

``streaming``   public bounds from TOML, chunked CSV/Parquet reading, the two sums of the mechanism
                (``python -m pdp_lib fit``)
``comparison``  the book's comparison of the mechanisms from streamed sums (``python -m pdp_lib compare``)
``dask_fit``    the sums as Dask tasks over partitions (``fit --scheduler``)
"""

from __future__ import annotations

from ..lazy import lazy_submodules

_SUBMODULES, __getattr__, __dir__ = lazy_submodules(__name__, __file__)
