"""Deprecated: ``pdp_lib.readings`` moved to :mod:`pdp_lib.replication.readings`; this name will be removed.

Import from there instead (``from pdp_lib.replication import readings``).
"""

from .deprecation import warn_moved as _warn_moved

from .replication.readings import *  # noqa: F401,F403 - the moved public names

from .replication import readings as _readings
__all__ = list(_readings.__all__)

_warn_moved("pdp_lib.readings", "pdp_lib.replication.readings")
