"""The release mechanisms, one module each: what a reader's data pass through before anything is published.

``output_perturbation``  PDP-OP (Algorithm 1 of the paper): the weighted ridge, the calibration of
                         Theorems 3.1/3.2 and (epsilon_i, delta), the l2-Laplace sampler
``baselines``            non-personalized output perturbation, Jorgensen et al.'s sampling, non-private fits
``threshold``            uniform DP at the best public threshold, and the (non-private) oracle threshold
``gaussian``             the personalized Gaussian mechanism, point i getting (eps_i, delta)-DP
``private_selection``    private selection from private candidates with personalized budgets

The names most readers need are importable from :mod:`pdp_lib` itself (``pdp_lib.pdp_op``,
``pdp_lib.calibrate``, ...).
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
