"""Deprecated: ``pdp_lib.paper`` moved to :mod:`pdp_lib.experiments.published`; this name will be removed.

Import from there instead (``from pdp_lib.experiments import published``).
"""

from .deprecation import warn_moved as _warn_moved

from .experiments.published import *  # noqa: F401,F403 - the moved public names

from .experiments import published as _published
__all__ = list(_published.__all__)

_warn_moved("pdp_lib.paper", "pdp_lib.experiments.published")
