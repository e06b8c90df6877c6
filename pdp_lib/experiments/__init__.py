"""The experiments of Section 4 and Appendix B: one vectorized engine, every target as data.

``targets``    the registry of targets: what each of Tables 1-14, Figures 1-18 and the targets beyond
               the paper reports (dataset, sweep, lambda, profile, statistic, columns, caption,
               the authors' CSV), read from ``pdp_lib/data/targets.toml``
``published``  the published values of Tables 1-14, printed beside the rebuilt ones
``draws``      the seeded draws: data, split, training subset, privacy profile, masks
``engine``     exact moments for PDP-OP / non-personalized, Rao-Blackwellized Monte Carlo
               for Jorgensen et al., for a whole lambda grid at once
``rebuild``    plan, evaluate and assemble any set of targets: ``reproduce``, ``reproduce_many``
               (the command line's backend)
``cache``      each target computed once per build: reproduce_many with an on-disk cache
``parts``      PDP-OP's exact loss split into bias and noise parts along a sweep
``mixtures``   each private method's loss over runs as an exact mixture (fourth moments included)
``settings``   the book's seed, runs and band settings, which are the command line's defaults

Derived and measured in the book's chapter *Exact loss moments* (``book/moments.ipynb``).
"""

from __future__ import annotations

import importlib

# Public name -> the module that defines it, imported on first use (PEP 562) so that the
# command line can read ``settings`` without paying for the engine.
_EXPORTS = {
    **dict.fromkeys(("DATASETS", "DataDraw", "draw_data", "draw_profile", "mask_seed", "mixture_seed",
                     "seed_sequence", "training_points"), "draws"),
    "method_mixtures": "mixtures",
    "loss_parts": "parts",
    **dict.fromkeys(("cache_dir", "reproduce_cached"), "cache"),
    **dict.fromkeys(("SweepResult", "batched_ridge", "evaluate_sweep", "jorgensen_masks"), "engine"),
    **dict.fromkeys(("OUTPUT_COLUMNS", "published_values", "reproduce", "reproduce_many", "to_markdown"),
                    "rebuild"),
    **dict.fromkeys(("COLUMNS", "METHODS", "SWEEPS", "TARGET_NAMES", "TARGETS", "TargetSpec", "get_target",
                     "BEYOND_METHODS", "BEYOND_COLUMNS", "PAPER_TARGET_NAMES", "BEYOND_TARGET_NAMES"), "targets"),
}

__all__ = list(_EXPORTS)




def __getattr__(name: str):
    """Import the module behind a public name on first access (PEP 562)."""
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
