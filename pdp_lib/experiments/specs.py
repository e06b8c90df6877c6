"""Deprecated: ``pdp_lib.experiments.specs`` is now :mod:`pdp_lib.experiments.targets`; this name will be removed."""

import warnings as _warnings

from .targets import *  # noqa: F401,F403 - the moved public names
from .targets import __all__  # noqa: F401

_warnings.warn("pdp_lib.experiments.specs is deprecated: import pdp_lib.experiments.targets instead",
               DeprecationWarning, stacklevel=2)
