"""Numbers as the paper prints them: three significant digits, ``8.54 × 10²``.

Stored notebook outputs use this format, so they survive last-bit differences
between BLAS builds and nbval stays meaningful.
"""

from __future__ import annotations

import math

__all__ = ["sci", "sig"]

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sig(x, digits: int = 3) -> str:
    """``x`` rounded to ``digits`` significant digits, in plain decimal or e-notation."""
    return f"{float(x):.{digits}g}"


def sci(x, digits: int = 3) -> str:
    """``x`` as the paper prints it: ``8.54 × 10²``, ``9.78``, ``5.30 × 10⁻¹``.

    Values in ``[1, 10)`` carry no power of ten, as in the paper's tables.
    """
    x = float(x)
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return str(x)
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    exponent = int(exponent)
    if exponent == 0:
        return mantissa
    return f"{mantissa} × 10{str(exponent).translate(_SUPERSCRIPT)}"
