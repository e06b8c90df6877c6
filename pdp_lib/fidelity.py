"""Deprecated: ``pdp_lib.fidelity`` moved to :mod:`pdp_lib.replication.misses`; this name will be removed.

Import from there instead (``from pdp_lib.replication import misses``).
"""

from .deprecation import warn_moved as _warn_moved

from .replication.misses import *  # noqa: F401,F403 - the moved public names

from .replication import misses as _misses
__all__ = list(_misses.__all__)

_warn_moved("pdp_lib.fidelity", "pdp_lib.replication.misses")
