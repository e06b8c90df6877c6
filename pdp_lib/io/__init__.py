"""Users' tables: reading them with public bounds, the sums PDP-OP needs, and what is computed from them.

``public_bounds``  the public bounds: a TOML file, or the domain's
``tables``         users' tables read in chunks (CSV, TSV, Parquet), every row checked and mapped into the domain
``streaming``      the sums the mechanisms need, streamed over the rows (``python -m pdp_lib fit``)
``model_file``     the model file: its record and privacy statement, reading and writing it, ``predict``
``comparison``     the book's comparison of the mechanisms from streamed sums (``python -m pdp_lib compare``)
``dask_fit``       the sums as Dask tasks over partitions (``fit --scheduler``)
"""

from __future__ import annotations

from ..lazy import lazy_submodules

_SUBMODULES, __getattr__, __dir__ = lazy_submodules(__name__, __file__)
