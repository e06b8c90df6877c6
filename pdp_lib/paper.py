"""Deprecated: ``pdp_lib.paper`` moved to :mod:`pdp_lib.experiments.published`; this name will be removed.

Import from there instead (``from pdp_lib.experiments import published``).
"""

import warnings as _warnings

from .experiments.published import *  # noqa: F401,F403 - the moved public names

from .experiments import published as _published
__all__ = list(_published.__all__)

_warnings.warn("pdp_lib.paper is deprecated: import pdp_lib.experiments.published instead",
               DeprecationWarning, stacklevel=2)
