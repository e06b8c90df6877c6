"""``python -m pdp_lib``: see :mod:`pdp_lib.cli`.

Before NumPy loads, the command sets ``OPENBLAS_THREAD_TIMEOUT`` to 16 unless the caller set it:
OpenBLAS's idle threads then wait about 2**16 cycles for new work before they sleep, instead
of the default 2**28.  The engine solves its stacks of ridge systems in its own threads
(:func:`pdp_lib.experiments.engine.batched_ridge`) right after OpenBLAS's threaded products;
with the default, OpenBLAS's idle threads spin on the two cores these solves need.  The value
changes only when an idle thread sleeps, never how a product is split between threads, so the
numbers are the same bit for bit (``tests/test_cli.py``); ``reproduce all --runs 10000`` takes
about 10.7 s instead of 13 s on two cores (``benchmarks/README.md``).  A process that imported
NumPy before this module keeps its own setting.
"""

import os
import sys

os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "16")

from .cli import main  # noqa: E402 - after the variable, which OpenBLAS reads when NumPy loads

if __name__ == "__main__":
    sys.exit(main())
