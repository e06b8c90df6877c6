"""Compute each rebuilt target once per build: :func:`reproduce_many` with an on-disk cache.

The chapters share targets (*Errata and claims* judges the tables three other chapters
rebuild): :func:`reproduce_cached` stores each target's long table under a key, and the next
chapter to ask for it reads it.  The key fixes the target, every argument of
:func:`reproduce_many` with its defaults (``progress`` aside), the entry format, the code (a
SHA-256 over the path and bytes of every file of ``pdp_lib``, code and data) and the
environment: the versions of Python, NumPy, SciPy, pandas (and its default string dtype) and
scikit-learn (whose wheel holds the diabetes data), NumPy's BLAS and the CPU features its
kernels dispatch on, the machine type and the variables that select floating-point kernels
(``OPENBLAS_*``, ``NPY_*``, ``MKL_*``, ``OMP_NUM_THREADS``).

**Invariant**: an entry stored under a key was computed by exactly the code whose digest is in
the key, and is served only to a process running that code.  ``pdp_lib`` loads its modules on
first use (PEP 562) and reads its data when asked, so a process runs its files as they were at
those moments.  The digest ``D`` is taken when this module is imported; before every read and
every write, the cache checks that no file changed since the process started (a change sets a
file's status-change time from the system clock, and no program can set that time; one second
of margin covers the clocks' granularity), that the files still have digest ``D`` and that
every loaded module's file is still there.  The files were then the same from the start of the
process to the check, so all the process loaded, before or after this module, came from files
with digest ``D``: a read serves that code, and a write, made after the computation, stores
what that code computed.  (Removing a file leaves the others' times alone: the digest sees it
after this module's import, the check of the loaded modules' files before it.  A process forked,
not started afresh, inherits its parent's start with this module, so fork after importing it.)
Otherwise (a file was edited, the process started within a second of an edit, or its start
time cannot be read) the cache is bypassed with a warning: the targets are computed afresh and
nothing is stored, until the process (kernel) is restarted.

**A target is the same whatever it is computed with**, although the key leaves out the other
targets of a call: the missing targets are computed in one call of :func:`reproduce_many`,
which evaluates each configuration (data draw, profile, training subset) once for all the
``lambda`` values and methods the targets ask for, and the engine's numbers for one
``lambda`` and one column do not depend on the other values and columns computed with them,
bit for bit (:func:`pdp_lib.experiments.evaluate_sweep`).

**Entries** (``<key>.entry``): a format line, the SHA-256 of the rest, a JSON header (key, row
index, each column's name and dtype), the columns' raw bytes (strings as fixed-width unicode).
Reading one runs no code, whoever wrote it, and restores dtypes, column order, index, missing
values and floats bit for bit; a damaged, truncated, foreign or mismatching entry is reported
with a warning naming it, recomputed and rewritten.  The checksum detects damage, not forgery:
point ``PDP_LIB_CACHE`` only at a folder others cannot write to.  Beside each table computed with several
replicates, the draws its bands are taken over are stored in the same format (``draws/<key>.entry``, keyed by
:func:`draws_key`), so that :func:`pdp_lib.replication.claim_numbers.draw_values` in another process reads them
(:func:`stored_draws`) instead of evaluating the replicates again; a damaged entry of draws is removed with a
warning, and the draws are evaluated.  The cache lives in
``PDP_LIB_CACHE`` when set (``off`` disables it), else in ``_build/cache`` of the repository
holding ``pdp_lib`` (``make clean`` removes it), else in ``~/.cache/pdp_lib``.  Writes are
atomic, so chapters executed in parallel can share it, and a missing target is computed by one
process at a time: another process that needs it waits on the key's lock file (``locks/<key>.lock``,
``fcntl``; none on systems without it), then reads the entry instead of computing it again.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import platform
import sys
import tempfile
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from .rebuild import reproduce_many

__all__ = ["cache_dir", "cache_key", "draws_key", "reproduce_cached", "stored_draws"]

_PACKAGE = Path(__file__).resolve().parents[1]
_KERNEL_VARIABLES = ("OPENBLAS_", "NPY_", "MKL_", "OMP_NUM_THREADS")
_FORMAT = b"pdp_lib cache entry, format 2\n"
_SLACK = 1.0  # seconds before the start of the process from which a change counts as made after it
_SIGNATURE = inspect.signature(reproduce_many)


def cache_dir() -> Path | None:
    """Where cached tables live (see the module's docstring); ``None`` when caching is off."""
    setting = os.environ.get("PDP_LIB_CACHE")
    if setting is not None:
        return None if setting.strip().lower() == "off" else Path(setting)
    repository = _PACKAGE.parent
    if (repository / "pyproject.toml").is_file():
        return repository / "_build" / "cache"
    return Path.home() / ".cache" / "pdp_lib"


def _process_start() -> float | None:
    """The wall-clock time at which this process started; ``None`` where it cannot be read."""
    if sys.platform.startswith("linux"):
        ticks = int(Path("/proc/self/stat").read_text().rpartition(")")[2].split()[19])
        return time.time() - time.clock_gettime(time.CLOCK_BOOTTIME) + ticks / os.sysconf("SC_CLK_TCK")
    try:
        import psutil  # noqa: PLC0415 - optional, where /proc is not available
    except ImportError:
        return None
    return psutil.Process().create_time()


def _files() -> tuple:
    """``(digest, (newest status-change time, its file), names)`` of the package's files.

    The digest is ``None`` (and the time infinite) when a file vanished while being read.
    """
    digest, newest, names = hashlib.sha256(), (float("-inf"), ""), set()
    for path in sorted(_PACKAGE.rglob("*")):
        name = path.relative_to(_PACKAGE).as_posix()
        if "__pycache__" in name.split("/") or not path.is_file():
            continue
        try:
            data, newest = path.read_bytes(), max(newest, (path.stat().st_ctime, name))
        except FileNotFoundError:
            return None, (float("inf"), name), names
        digest.update(f"{name}\0{len(data)}\0".encode() + data)
        names.add(name)
    return digest.hexdigest(), newest, names


_STARTED = _process_start()
_CODE = _files()[0]  # the digest of the code this process runs, while the files are unchanged


def _stale() -> str | None:
    """Why this process's code may differ from the files of ``pdp_lib``; ``None`` if it cannot."""
    if _STARTED is None:
        return "the start time of this process cannot be read (no /proc, no psutil)"
    digest, (changed, name), names = _files()
    if changed >= _STARTED - _SLACK:
        return (f"{_PACKAGE / name} changed after this process started, so the code in memory may not be "
                f"the code on disk; restart the process (kernel) to use the cache")
    if digest is None or digest != _CODE:
        return f"the files of {_PACKAGE} changed after this process imported pdp_lib"
    for module in list(sys.modules.values()):
        file = Path(getattr(module, "__file__", None) or "/").resolve()
        if file.is_relative_to(_PACKAGE) and file.relative_to(_PACKAGE).as_posix() not in names:
            return f"{file}, which this process loaded, is gone"
    return None


def _environment() -> dict:
    import scipy  # noqa: PLC0415
    import sklearn  # noqa: PLC0415
    from numpy._core._multiarray_umath import __cpu_features__  # noqa: PLC0415

    variables = {k: v for k, v in os.environ.items() if k.startswith(_KERNEL_VARIABLES)}
    blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    return {"python": sys.version, "numpy": np.__version__, "scipy": scipy.__version__,
            "pandas": pd.__version__, "strings": repr(pd.Series(["a"]).dtype), "scikit-learn": sklearn.__version__,
            "blas": [blas.get("name"), blas.get("version")], "machine": platform.machine(),
            "cpu": sorted(k for k, on in __cpu_features__.items() if on), "variables": sorted(variables.items())}


def cache_key(target: str, kwargs: dict) -> str:
    """The hex key of one target's table computed by ``reproduce_many([target], **kwargs)``.

    The keywords are completed with :func:`reproduce_many`'s defaults (``progress`` is left
    out); the code is the digest taken when this module was imported.
    """
    bound = _SIGNATURE.bind([target], **kwargs)
    bound.apply_defaults()
    settings = sorted((k, repr(v)) for k, v in bound.arguments.items() if k not in ("targets", "progress", "draws"))
    payload = {"format": _FORMAT.decode(), "target": target, "kwargs": settings, "code": _CODE,
               "environment": _environment()}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def draws_key(target: str, *, seed, replicates, replicate_runs, split, bound) -> str:
    """The hex key of the draws behind ``target``'s bands (``draws`` of :func:`pdp_lib.experiments.reproduce_many`).

    Replicate ``r`` depends on the target, ``seed``, ``r``, ``replicate_runs``, ``split`` and ``bound`` only (not on
    ``runs``, ``paper_runs`` or ``std_error``, which replicate 0 and the bands' Monte Carlo error read, nor on the
    other targets of the call), besides the code and the environment, which the key holds as :func:`cache_key`'s
    does; ``replicates``, how many there are, is in the key too.
    """
    settings = {"seed": int(seed), "replicates": int(replicates), "replicate_runs": int(replicate_runs),
                "split": str(split), "bound": str(bound)}
    payload = {"format": _FORMAT.decode(), "draws": target, "settings": sorted(settings.items()), "code": _CODE,
               "environment": _environment()}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def stored_draws(target: str, *, seed, replicates, replicate_runs, split, bound="paper"):
    """The draws behind ``target``'s bands that :func:`reproduce_cached` stored when it computed the target, or
    ``None`` (none stored, the cache off, or this process's code possibly not the files': nothing is read then).

    A frame ``param, column, replicate, value`` (``draws`` of :func:`pdp_lib.experiments.reproduce_many`), bit for bit
    what the replicates' sweeps gave; :func:`pdp_lib.replication.claim_numbers.draw_values` reads it instead of
    evaluating those sweeps again in another process.
    """
    directory = cache_dir()
    if directory is None or _stale() is not None:
        return None
    key = draws_key(target, seed=seed, replicates=replicates, replicate_runs=replicate_runs, split=split,
                    bound=bound)
    path = directory / "draws" / f"{key}.entry"
    if not path.is_file():
        return None
    try:
        return _decode(path.read_bytes(), key)
    except _Damaged as damage:         # nothing rewrites it (its table is intact): removed, the draws evaluated
        warnings.warn(f"pdp_lib cache: removing the damaged entry {path} of the draws of {target!r} ({damage}); "
                      f"they are evaluated instead", RuntimeWarning, stacklevel=3)
        path.unlink(missing_ok=True)
        return None


class _Damaged(Exception):
    """An entry that is not a complete, intact entry of this cache for its key."""


def _dtype(dtype) -> dict:
    """A JSON description of a column's (or the labels') dtype; ``TypeError`` if not storable."""
    if isinstance(dtype, pd.StringDtype):
        return {"string": dtype.storage, "na": "NA" if dtype.na_value is pd.NA else "nan"}
    if isinstance(dtype, np.dtype) and dtype.kind in "biufcO":
        return {"object": "str"} if dtype.kind == "O" else {"numpy": dtype.str}
    raise TypeError(f"the cache cannot store a column of dtype {dtype}")


def _pandas_dtype(record: dict):
    if "string" in record:
        return pd.StringDtype(record["string"], na_value=pd.NA if record["na"] == "NA" else np.nan)
    return object if "object" in record else np.dtype(record["numpy"])


def _encode(table: pd.DataFrame, key: str) -> bytes:
    """The bytes of the entry holding ``table`` under ``key`` (see the module's docstring)."""
    index, labels = table.index, list(table.columns)
    if not isinstance(index, pd.RangeIndex) or index.name is not None or table.columns.name is not None \
            or not all(isinstance(c, str) for c in labels) or len(set(labels)) != len(labels) or table.attrs:
        raise TypeError("the cache stores tables with a RangeIndex, unique string labels and no attrs")
    columns, payload = [], []
    for label in labels:
        series = table[label]
        record = {"name": label, "dtype": _dtype(series.dtype)}
        values = series.to_numpy()
        if "numpy" not in record["dtype"]:
            missing = series.isna().to_numpy()
            strings = ["" if m else s for s, m in zip(series.tolist(), missing)]
            if not all(isinstance(s, str) for s in strings) or (missing.any() and "object" in record["dtype"]):
                raise TypeError(f"column {label!r}: the cache stores strings, missing only in string dtypes")
            values = np.array(strings, dtype=f"<U{max(map(len, strings), default=0) or 1}")
            if values.tolist() != strings:
                raise TypeError(f"column {label!r} holds strings ending in NUL characters")
            record["missing"] = bool(missing.any())
            payload.append(missing.tobytes() if record["missing"] else b"")
        record["array"] = values.dtype.str
        columns.append(record)
        payload.append(np.ascontiguousarray(values).tobytes())
    header = {"key": key, "rows": len(table), "index": [index.start, index.stop, index.step],
              "labels": _dtype(table.columns.dtype), "columns": columns}
    body = json.dumps(header, sort_keys=True).encode() + b"\n" + b"".join(payload)
    return _FORMAT + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _decode(data: bytes, key: str) -> pd.DataFrame:
    """The table of an entry's bytes; :class:`_Damaged` if they are not an intact entry for ``key``."""
    if not data.startswith(_FORMAT):
        raise _Damaged("not an entry of this cache (unknown format)")
    checksum, _, body = data[len(_FORMAT):].partition(b"\n")
    if hashlib.sha256(body).hexdigest().encode() != checksum:
        raise _Damaged("checksum mismatch: the entry is truncated or damaged")
    line, _, payload = body.partition(b"\n")
    try:
        header = json.loads(line)
        if header["key"] != key:
            raise _Damaged("the entry belongs to another key")
        rows, index, series, offset = int(header["rows"]), pd.RangeIndex(*header["index"]), {}, 0
        for record in header["columns"]:
            array, dtype = np.dtype(record["array"]), record["dtype"]
            if array.kind not in "biufcU" or ("numpy" in dtype) != (dtype.get("numpy") == array.str):
                raise _Damaged(f"column {record['name']!r} has an unsupported layout")
            missing = None  # views of the payload: np.frombuffer checks the sizes before any copy
            if "numpy" not in dtype and record["missing"]:
                missing, offset = np.frombuffer(payload, dtype=bool, count=rows, offset=offset), offset + rows
            values = np.frombuffer(payload, dtype=array, count=rows, offset=offset)
            offset += rows * array.itemsize
            if "numpy" not in dtype:
                if (values.view(np.dtype("u4").newbyteorder(array.byteorder)) > sys.maxunicode).any():
                    raise _Damaged(f"column {record['name']!r} holds no text")
                values = [None if missing is not None and missing[i] else s for i, s in enumerate(values.tolist())]
            series[record["name"]] = pd.Series(values, index=index, dtype=_pandas_dtype(dtype), copy=True)
        if rows < 0 or offset != len(payload) or len(index) != rows:
            raise _Damaged("the entry's size does not match its header")
        table = pd.DataFrame(series, index=index)
        table.columns = pd.Index(list(series), dtype=_pandas_dtype(header["labels"]))
    except (ValueError, TypeError, KeyError, AttributeError, ImportError) as error:
        raise _Damaged(f"malformed header ({type(error).__name__}: {error})") from error
    return table


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
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
        What ``reproduce_many(targets, **kwargs)`` returns, each table bit for bit the one
        ``reproduce_many([target], **kwargs)`` returns; the targets not in the cache are
        computed and stored.

    Warns
    -----
    RuntimeWarning
        When the cache is bypassed (the files of ``pdp_lib`` may not be the code this process
        runs), and for each damaged entry (recomputed and rewritten).
    """
    targets = list(targets)
    if "draws" in kwargs:
        raise ValueError("draws is not a keyword of reproduce_cached: the cache stores the draws itself")
    directory = cache_dir()
    if directory is None:
        return reproduce_many(targets, **kwargs)
    reason = _stale()
    if reason is not None:
        warnings.warn(f"pdp_lib cache bypassed, nothing read or stored: {reason}", RuntimeWarning, stacklevel=2)
        return reproduce_many(targets, **kwargs)
    keys = {t: cache_key(t, kwargs) for t in targets}
    paths = {t: directory / f"{k}.entry" for t, k in keys.items()}
    found = {t: table for t in targets if (table := _read_entry(t, paths[t], keys[t])) is not None}
    missing = [t for t in targets if t not in found]
    computed = {}
    if missing:
        # one process at a time computes a missing target: another that needs it waits for its entry
        with _locked([directory / "locks" / f"{keys[t]}.lock" for t in missing]):
            found.update({t: table for t in missing if (table := _read_entry(t, paths[t], keys[t])) is not None})
            missing = [t for t in missing if t not in found]
            drawn = {}
            computed = reproduce_many(missing, **kwargs, draws=drawn) if missing else {}
            reason = _stale() if computed else None   # after the computation: the code it ran
            if reason is not None:
                warnings.warn(f"pdp_lib cache: nothing stored: {reason}", RuntimeWarning, stacklevel=2)
            else:
                # first: a stored table's draws are stored too, where draw_values can read them (every column,
                # the paper's bound)
                readable = kwargs.get("columns") is None and drawn.get("settings", {}).get("bound") == "paper"
                for target, frame in (drawn.get("frames", {}) if readable else {}).items():
                    key = draws_key(target, **drawn["settings"])
                    _write(directory / "draws" / f"{key}.entry", _encode(frame, key))
                for target, table in computed.items():
                    _write(paths[target], _encode(table, keys[target]))
    return {t: found[t] if t in found else computed[t] for t in targets}


def _read_entry(target: str, path: Path, key: str):
    """The table stored under ``key``, or ``None`` when there is none or it is damaged (with a warning)."""
    if not path.is_file():
        return None
    try:
        return _decode(path.read_bytes(), key)
    except _Damaged as damage:
        warnings.warn(f"pdp_lib cache: ignoring the entry {path} for {target!r} ({damage}); "
                      f"recomputing and rewriting it", RuntimeWarning, stacklevel=3)
        return None


@contextmanager
def _locked(paths):
    """Hold an exclusive lock on each file of ``paths`` (created if missing), taken in sorted order so that
    two processes never wait on each other; no lock where ``fcntl`` does not exist (Windows)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    handles = []
    try:
        for path in sorted(set(paths)):
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = open(path, "ab")
            handles.append(handle)
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        for handle in reversed(handles):
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()
