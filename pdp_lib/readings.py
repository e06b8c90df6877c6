"""Deprecated: ``pdp_lib.readings`` moved to :mod:`pdp_lib.replication.readings`; this name will be removed.

Import from there instead (``from pdp_lib.replication import readings``).
"""

import warnings as _warnings

from .replication.readings import *  # noqa: F401,F403 - the moved public names

from .replication import readings as _readings
__all__ = list(_readings.__all__)

_warnings.warn("pdp_lib.readings is deprecated: import pdp_lib.replication.readings instead",
               DeprecationWarning, stacklevel=2)
