"""The warning of a moved module, addressed to the code that asked for it.

A moved module (``pdp_lib.experiments.specs``, say) stays importable for a while and warns when it is
first imported.  Reached as an attribute it is imported by a package's ``__getattr__``
(PEP 562) through :func:`importlib.import_module`, so a plain ``stacklevel`` would blame
``importlib``, and Python's default filters, which show a ``DeprecationWarning`` only when it is
attributed to ``__main__``, would hide it from a notebook or a script.  :func:`warn_moved`
counts the frames up to the first one outside the import machinery and this package's
``__init__``, so the warning names the reader's own line.
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from pathlib import Path

__all__ = ["warn_moved"]

_PACKAGE_INIT = str(Path(__file__).with_name("__init__.py"))
_IMPORTLIB = os.path.dirname(importlib.__file__) + os.sep


def _skipped(filename: str) -> bool:
    """A frame :func:`warnings.warn` itself does not count: CPython's own test, word for word."""
    return "importlib" in filename and "_bootstrap" in filename


def _plumbing(filename: str) -> bool:
    """A frame of the import machinery (``importlib``'s files, frozen or not) or of the package's ``__init__``."""
    return filename.startswith((_IMPORTLIB, "<frozen importlib")) or filename == _PACKAGE_INIT


def _external(frame):
    while frame is not None and _skipped(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def warn_moved(old: str, new: str) -> None:
    """Warn (``DeprecationWarning``) that module ``old`` moved to ``new``, from the importing line.

    Call it at the top level of the moved module.

    Parameters
    ----------
    old, new : str
        The module's former and present dotted names.
    """
    # stacklevel 1 is this function, 2 the moved module, 3 the frame that imported it
    level, frame = 3, _external(sys._getframe(2))
    while frame is not None and _plumbing(frame.f_code.co_filename):
        level, frame = level + 1, _external(frame.f_back)
    warnings.warn(f"{old} is deprecated: import {new} instead", DeprecationWarning, stacklevel=level)
