"""``python -m pdp_lib``: see :mod:`pdp_lib.cli`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
