"""Users' tables: reading them with public bounds, the sums PDP-OP needs, and what is computed from them.

``streaming``   public bounds from TOML, chunked CSV/Parquet reading, the two sums of the mechanism
                (``python -m pdp_lib fit``)
``comparison``  the book's comparison of the mechanisms from streamed sums (``python -m pdp_lib compare``)
``dask_fit``    the sums as Dask tasks over partitions (``fit --scheduler``)
"""

from __future__ import annotations

import importlib
from pathlib import Path

_SUBMODULES = tuple(sorted(p.stem for p in Path(__file__).parent.glob("*.py") if p.stem != "__init__"))


def __getattr__(name: str):
    """Import a submodule on first access (PEP 562), as ``pdp_lib`` does for its own."""
    if name in _SUBMODULES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES))
