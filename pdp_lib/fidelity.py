"""Deprecated: ``pdp_lib.fidelity`` moved to :mod:`pdp_lib.replication.misses`; this name will be removed.

Import from there instead (``from pdp_lib.replication import misses``).
"""

import warnings as _warnings

from .replication.misses import *  # noqa: F401,F403 - the moved public names

from .replication import misses as _misses
__all__ = list(_misses.__all__)

_warnings.warn("pdp_lib.fidelity is deprecated: import pdp_lib.replication.misses instead",
               DeprecationWarning, stacklevel=2)
