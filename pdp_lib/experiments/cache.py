"""Compute each rebuilt target once per build: :func:`reproduce_many` with an on-disk cache.

The book's chapters share targets: *Errata and claims* judges all fourteen tables that the
chapters *PDP-OP against standard DP*, *against Jorgensen et al.* and *Variability* rebuild.
:func:`reproduce_cached` stores each target's long table under a key that fixes everything the
numbers depend on, so the second chapter to ask for a target reads the first one's result:

* the target and every keyword of :func:`reproduce_many` (not the other targets computed in
  the same call: they share draws, masks and evaluations, and each target's masks and noise
  come from its own seeded streams, so its numbers are the same whatever it is computed with;
  ``tests/test_cache.py`` checks this);
* the bytes of every file of ``pdp_lib`` (code and data);
* the versions of Python, NumPy, SciPy and pandas, the machine type, and the environment
  variables that select floating-point kernels (``OPENBLAS_*``, ``NPY_*``, ``MKL_*``,
  ``OMP_NUM_THREADS``).

A cached table is therefore the table this code computes in this environment.  The cache lives
in ``PDP_LIB_CACHE`` when that variable is set (``off`` disables it), else in ``_build/cache``
of the repository holding ``pdp_lib`` (removed by ``make clean``), else in
``~/.cache/pdp_lib``.  Writes are atomic, so chapters executed in parallel can share it.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

import pandas as pd

from .reproduce import reproduce_many

__all__ = ["cache_dir", "cache_key", "reproduce_cached"]

_PACKAGE = Path(__file__).resolve().parents[1]
_KERNEL_VARIABLES = ("OPENBLAS_", "NPY_", "MKL_", "OMP_NUM_THREADS")


def cache_dir() -> Path | None:
    """Where cached tables live (see the module's docstring); ``None`` when caching is off."""
    setting = os.environ.get("PDP_LIB_CACHE")
    if setting is not None:
        return None if setting.strip().lower() == "off" else Path(setting)
    repository = _PACKAGE.parent
    if (repository / "pyproject.toml").is_file():
        return repository / "_build" / "cache"
    return Path.home() / ".cache" / "pdp_lib"


@lru_cache(maxsize=1)
def _code_digest() -> str:
    """SHA-256 over the path and bytes of every file of the package (code and data)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in _PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(_PACKAGE)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _environment() -> dict:
    import numpy
    import scipy

    variables = {k: v for k, v in os.environ.items() if k.startswith(_KERNEL_VARIABLES)}
    return {"python": sys.version, "numpy": numpy.__version__, "scipy": scipy.__version__,
            "pandas": pd.__version__, "machine": platform.machine(), "variables": sorted(variables.items())}


def cache_key(target: str, kwargs: dict) -> str:
    """The hex key of one target's table computed by ``reproduce_many([..., target, ...], **kwargs)``."""
    payload = {"target": target, "kwargs": sorted((k, repr(v)) for k, v in kwargs.items()),
               "code": _code_digest(), "environment": _environment()}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _write(path: Path, table: pd.DataFrame) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    os.close(handle)
    try:
        table.to_pickle(temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def reproduce_cached(targets, **kwargs) -> dict:
    """:func:`reproduce_many` that reuses the tables a previous call stored for the same key.

    Parameters
    ----------
    targets : sequence of str
        Target names, as for :func:`reproduce_many`.
    **kwargs
        Every keyword of :func:`reproduce_many` (``progress`` is not part of the key).

    Returns
    -------
    dict of str -> pandas.DataFrame
        What ``reproduce_many(targets, **kwargs)`` returns.  The targets not in the cache are
        computed together in one call and stored.
    """
    targets = list(targets)
    keyed = {k: v for k, v in kwargs.items() if k != "progress"}
    directory = cache_dir()
    if directory is None:
        return reproduce_many(targets, **kwargs)
    paths = {t: directory / f"{cache_key(t, keyed)}.pkl" for t in targets}
    found = {t: pd.read_pickle(p) for t, p in paths.items() if p.is_file()}
    missing = [t for t in targets if t not in found]
    if missing:
        computed = reproduce_many(missing, **kwargs)
        for target, table in computed.items():
            _write(paths[target], table)
        found.update(computed)
    return {t: found[t] for t in targets}
