"""Deprecated: ``pdp_lib.reference`` moved to :mod:`pdp_lib.replication.authors`; this name will be removed.

Import from there instead (``from pdp_lib.replication import authors``).
"""

from .deprecation import warn_moved as _warn_moved

from .replication.authors import *  # noqa: F401,F403 - the moved public names

from .replication import authors as _authors
__all__ = list(_authors.__all__)

_warn_moved("pdp_lib.reference", "pdp_lib.replication.authors")
