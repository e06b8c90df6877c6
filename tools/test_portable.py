"""nbval under other floating-point kernels than this machine's (``make test-portable``).

A reader's laptop or a hosted CI runner uses other BLAS and SIMD kernels, so the last bits of
a dot product or an ``exp`` differ from the machine that wrote the stored outputs.  This tool
re-runs every chapter under nbval with the same pinned wheels but other kernels:

* OpenBLAS's kernel set through ``OPENBLAS_CORETYPE`` (e.g. ``Sandybridge``, ``Haswell``);
* NumPy's SIMD dispatch through ``NPY_DISABLE_CPU_FEATURES`` (NumPy >= 2.4 groups features
  as ``X86_V2/V3/V4``);
* the number of BLAS threads: one in the Sandybridge configuration, as in ``make test`` (whose
  workers take one BLAS thread each, so that they do not compete for the cores), and two in the
  Haswell one, the several threads a reader's notebook uses (with ``OPENBLAS_THREAD_TIMEOUT=16``,
  so that its idle threads sleep instead of spinning on the core the other configuration needs;
  that changes when a thread waits, never how a product is split, so no number).

Each configuration is checked before use: the kernel OpenBLAS reports and NumPy's active SIMD
extensions must differ from the default environment's, or the configuration is not "another
machine" and the tool says so and fails.  Configurations run in parallel, one per core (at
most ``--jobs``), a configuration with several BLAS threads running the chapters of ``THREADED_LAST``
last; each writes its log to ``_build/portable/NAME.log``, with its slowest cells.  ``--interpreter
NAME=PYTHON`` runs configuration NAME under another Python (CI runs the Haswell configuration
under the newest supported Python, in its own environment).  Exit status 0 when every
configuration passes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "_build" / "portable"

# Only core types every x86-64 CPU of the last decade supports (AVX and AVX2 kernels).
_X86 = {
    "sandybridge-sse": {"OPENBLAS_CORETYPE": "Sandybridge",
                        "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR",
                        "OPENBLAS_NUM_THREADS": "1"},
    "haswell-avx2": {"OPENBLAS_CORETYPE": "Haswell",
                     "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
                     "OPENBLAS_NUM_THREADS": "2", "OPENBLAS_THREAD_TIMEOUT": "16"},
}
_COMMON = {"OPENBLAS_NUM_THREADS": "1"}

_PROBE = ("import json, numpy, threadpoolctl;"
          "info = threadpoolctl.threadpool_info();"
          "blas = [i for i in info if i.get('internal_api') == 'openblas'];"
          "from numpy._core._multiarray_umath import __cpu_features__ as f;"
          "print(json.dumps({'blas': blas[0].get('architecture') if blas else None,"
          " 'threads': blas[0].get('num_threads') if blas else None,"
          " 'simd': sorted(k for k, v in f.items() if v)}))")


def _environment(extra: dict) -> dict:
    env = dict(os.environ)
    for key in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES", "OPENBLAS_NUM_THREADS", "OPENBLAS_THREAD_TIMEOUT"):
        env.pop(key, None)
    env.update(extra)
    return env


THREADED_LAST = ("beyond.ipynb", "beyond_iterative.ipynb", "beyond_compared.ipynb")
"""Chapters a configuration with several BLAS threads runs last.  Their cells multiply large matrices, each product
split among the threads; beside the other configuration on two cores one thread often waits for a core, and every
product with it: measured in one run of this tool, their cells took 333 s under the Haswell configuration's two
threads, against 53 s under the Sandybridge configuration's one.  Last, they run once the other configuration has
finished (each log lists its slowest cells, to keep this list true)."""


def chapters(paths, threaded: bool) -> list:
    """The notebooks of ``paths`` (folders expanded, in name order), :data:`THREADED_LAST` moved to the end when
    ``threaded``: the same notebooks whatever the order."""
    found = []
    for path in map(Path, paths):
        found += sorted(str(p) for p in path.glob("*.ipynb")) if path.is_dir() else [str(path)]
    if threaded:
        found.sort(key=lambda p: Path(p).name in THREADED_LAST)       # stable: name order otherwise
    return found


def probe(extra: dict, python: str = sys.executable) -> dict:
    """The OpenBLAS kernel, its thread count and NumPy's active SIMD features under ``extra``."""
    out = subprocess.run([python, "-c", _PROBE], env=_environment(extra), check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout)


def configurations() -> dict:
    """The configurations to test on this machine: name -> environment variables."""
    if platform.machine() in ("x86_64", "AMD64"):
        return {name: {**_COMMON, **cfg} for name, cfg in _X86.items()}
    # elsewhere the kernel switches above do not apply: vary the threads and NumPy's dispatch
    return {"one-thread": dict(_COMMON),
            "one-thread-baseline-simd": {**_COMMON, "NPY_DISABLE_CPU_FEATURES": "ASIMDHP ASIMDDP ASIMDFHM SVE"}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=["book"], help="notebooks or folders (default: book)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="configurations run at once (default: min(2, cores))")
    parser.add_argument("--interpreter", metavar="NAME=PYTHON", action="append", default=[],
                        help="run configuration NAME under another Python (repeatable)")
    args = parser.parse_args(argv)
    pythons = {}
    for item in args.interpreter:
        name, sep, python = item.partition("=")
        if not sep or not python:
            parser.error(f"--interpreter {item!r}: give NAME=PYTHON")
        pythons[name] = python
    default = probe({})
    print(f"default environment: OpenBLAS kernel {default['blas']}, {default['threads']} thread(s), "
          f"{len(default['simd'])} NumPy SIMD features")
    configs = configurations()
    unknown = sorted(set(pythons) - set(configs))
    if unknown:
        parser.error(f"--interpreter names no configuration {unknown[0]!r}; the configurations: {sorted(configs)}")
    for name, extra in configs.items():
        python = pythons.get(name, sys.executable)
        seen = probe(extra, python)
        version = subprocess.run([python, "--version"], check=True, capture_output=True, text=True).stdout.strip()
        print(f"{name}: {version}, OpenBLAS kernel {seen['blas']}, {seen['threads']} thread(s), "
              f"{len(seen['simd'])} NumPy SIMD features")
        if (seen["blas"], seen["threads"], seen["simd"]) == (default["blas"], default["threads"], default["simd"]):
            print(f"{name}: the same kernels as the default environment; not another machine", file=sys.stderr)
            return 1
    LOGS.mkdir(parents=True, exist_ok=True)
    options = ["--nbval", "--nbval-current-env",
               "--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg"), "-p", "no:cacheprovider", "-q", "--durations=40"]
    pending = list(configs.items())
    running, failed = [], []
    start = time.perf_counter()
    while pending or running:
        while pending and len(running) < max(1, args.jobs):
            name, extra = pending.pop(0)
            log = open(LOGS / f"{name}.log", "w")
            # a fresh cache of rebuilt tables (pdp_lib.experiments.cache) per configuration: every
            # table is computed under that configuration's kernels, once, and shared by its chapters
            cache = tempfile.mkdtemp(prefix=f"pdp_cache_{name}_")
            threaded = int(extra.get("OPENBLAS_NUM_THREADS", "1")) > 1
            command = [pythons.get(name, sys.executable), "-m", "pytest", *chapters(args.paths, threaded), *options]
            running.append((name, log, subprocess.Popen(command, cwd=ROOT, env=_environment({**extra, "PDP_LIB_CACHE": cache}),
                                                        stdout=log, stderr=subprocess.STDOUT)))
        for item in list(running):
            name, log, proc = item
            if proc.poll() is not None:
                log.close()
                running.remove(item)
                last = (LOGS / f"{name}.log").read_text().strip().splitlines()[-1:]
                print(f"{name}: {'passed' if proc.returncode == 0 else 'FAILED'} "
                      f"({time.perf_counter() - start:.0f} s) {last[0] if last else ''}")
                if proc.returncode != 0:
                    failed.append(name)
        time.sleep(0.5)
    for name in failed:
        print(f"\n===== {name} ({LOGS / (name + '.log')}) =====")
        print((LOGS / f"{name}.log").read_text()[-20000:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
