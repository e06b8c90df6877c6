"""The experiments of Section 4 and Appendix B: one vectorized engine, every target as data.

``specs``      what each of Tables 1-14 and Figures 1-18 reports (dataset, sweep, lambda,
               profile, statistic, columns, caption, the authors' CSV) -- as data
``draws``      the seeded draws: data, split, training subset, privacy profile, masks
``engine``     exact moments for PDP-OP / non-personalized, Rao-Blackwellized Monte Carlo
               for Jorgensen et al., for a whole lambda grid at once
``reproduce``  plan, evaluate and assemble any set of targets (the command line's backend)

Derived and measured in the book's chapter *Exact loss moments* (``book/moments.ipynb``).
"""

from .draws import DATASETS, DataDraw, draw_data, draw_profile, mask_seed, seed_sequence, training_points
from .engine import SweepResult, batched_ridge, evaluate_sweep, jorgensen_masks
from .reproduce import OUTPUT_COLUMNS, published_values, reproduce, reproduce_many, to_markdown
from .specs import COLUMNS, METHODS, SWEEPS, TARGET_NAMES, TARGETS, TargetSpec, get_target

__all__ = [
    "COLUMNS",
    "METHODS",
    "SWEEPS",
    "TARGETS",
    "TARGET_NAMES",
    "TargetSpec",
    "get_target",
    "DATASETS",
    "DataDraw",
    "draw_data",
    "draw_profile",
    "training_points",
    "mask_seed",
    "seed_sequence",
    "SweepResult",
    "evaluate_sweep",
    "jorgensen_masks",
    "batched_ridge",
    "OUTPUT_COLUMNS",
    "reproduce",
    "reproduce_many",
    "published_values",
    "to_markdown",
]
