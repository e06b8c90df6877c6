"""Deprecated: ``pdp_lib.reference`` moved to :mod:`pdp_lib.replication.authors`; this name will be removed.

Import from there instead (``from pdp_lib.replication import authors``).
"""

import warnings as _warnings

from .replication.authors import *  # noqa: F401,F403 - the moved public names

from .replication import authors as _authors
__all__ = list(_authors.__all__)

_warnings.warn("pdp_lib.reference is deprecated: import pdp_lib.replication.authors instead",
               DeprecationWarning, stacklevel=2)
