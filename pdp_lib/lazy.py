"""Submodules imported on first access (PEP 562): what ``pdp_lib.mechanisms`` and ``pdp_lib.io`` share.

``pdp_lib.mechanisms.threshold`` then works after ``import pdp_lib``, as ``pdp_lib.tuning`` does,
without importing every mechanism up front.
"""

from __future__ import annotations

import importlib
from pathlib import Path

__all__ = ["lazy_submodules"]


def lazy_submodules(package: str, init_file: str):
    """``(names, __getattr__, __dir__)`` for the package ``package`` whose ``__init__.py`` is ``init_file``.

    ``names`` are the modules beside ``init_file``; ``__getattr__`` imports one when it is first
    asked for (the import system then binds it on the package), and raises ``AttributeError`` for
    any other name.
    """
    names = tuple(sorted(p.stem for p in Path(init_file).parent.glob("*.py") if p.stem != "__init__"))

    def __getattr__(name: str):
        if name in names:
            return importlib.import_module(f".{name}", package)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(vars(importlib.import_module(package))) | set(names))

    return names, __getattr__, __dir__
