"""Deprecated: ``pdp_lib.experiments.specs`` is now :mod:`pdp_lib.experiments.targets`; this name will be removed."""

from ..deprecation import warn_moved as _warn_moved

from .targets import *  # noqa: F401,F403 - the moved public names
from .targets import __all__  # noqa: F401

_warn_moved("pdp_lib.experiments.specs", "pdp_lib.experiments.targets")
