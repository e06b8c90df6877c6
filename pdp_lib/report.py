"""Deprecated: ``pdp_lib.report`` moved to :mod:`pdp_lib.replication.rendering` and :mod:`pdp_lib.replication.verdicts`; this name will be removed.

Import from there instead (``from pdp_lib.replication import rendering``).
"""

from .deprecation import warn_moved as _warn_moved

from .replication.rendering import *  # noqa: F401,F403 - the moved public names
from .replication.verdicts import *  # noqa: F401,F403 - the moved public names

from .replication import rendering as _rendering, verdicts as _verdicts
__all__ = list(_rendering.__all__) + list(_verdicts.__all__)

_warn_moved("pdp_lib.report", "pdp_lib.replication.rendering")
