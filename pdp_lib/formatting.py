"""Numbers as the paper prints them: three significant digits, ``8.54 × 10²``.

Stored notebook outputs use this format, so they survive last-bit differences
between BLAS builds and nbval stays meaningful.
"""

from __future__ import annotations

import math

__all__ = ["sci", "sig", "ratio_text", "percent_text", "signed_percent", "count_text", "markdown_table",
           "printed_half_unit", "MACHINE_ZERO", "is_machine_zero", "sci_loss", "decimal_text", "tex_grid"]

MACHINE_ZERO = 1e-20
"""A test loss below this is an exact zero up to floating-point rounding.

On data in the domain the test losses of the paper are at least about ``1e-4`` unless they
are mathematically zero (least squares interpolating noiseless labels, the synthetic data's
non-private unregularized loss), where the computed value is rounding noise of order
``1e-32`` that differs between machines.  Such values are shown as ``0`` and never judged
against a band."""

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sig(x, digits: int = 3) -> str:
    """``x`` rounded to ``digits`` significant digits, in plain decimal or e-notation."""
    return f"{float(x):.{digits}g}"


def ratio_text(x: float) -> str:
    """A positive ratio to three significant digits: ``1.00``, ``1.05``, ``241``, ``1.23 × 10⁵``."""
    x = float(x)
    return f"{x:#.3g}".rstrip(".") if 1e-2 <= x < 1e3 else sci(x)


def percent_text(x: float, decimals: int | None = None) -> str:
    """A fraction as a percentage: ``5.1%``, ``28%``, ``under 0.01%``, ``over 99.9%``; ``93.1%``.

    By default (a fraction in ``[0, 1]``) two significant digits below 10%, whole percents above,
    and the ends say only what is certain.  With ``decimals``, exactly that many digits after the
    decimal point, whatever the size (:func:`decimal_text` of ``100 x``): ``percent_text(0.931, 1)``
    is ``93.1%``, ``percent_text(1.42, 0)`` is ``142%``, for a sentence that compares percentages
    printed to the same place.
    """
    if decimals is not None:
        return decimal_text(100 * float(x), decimals) + "%"
    p = 100 * float(x)
    if p < 0.01:
        return "under 0.01%"
    if p > 99.9:
        return "over 99.9%"
    return f"{p:.2g}%" if p < 10 else f"{p:.0f}%"


def signed_percent(x, digits: int = 2) -> str:
    """The fraction ``x`` as a signed percentage to ``digits`` significant digits: ``+1.5%``, ``−0.015%``.

    For a relative difference such as ``a / b - 1``, whose sign is the point; the minus sign is
    the typographic one (U+2212), as in the book's tables.
    """
    text = f"{100 * float(x):+.{digits}g}%"
    return text.replace("-", "\u2212")


def count_text(n) -> str:
    """A count with thousands separators: ``100,000``."""
    if isinstance(n, bool) or not float(n).is_integer():
        raise ValueError(f"n = {n!r} is outside the allowed range: a whole number")
    return f"{int(n):,}"


def markdown_table(header, rows) -> str:
    """A Markdown table from already formatted cells: the header, then one line per row.

    Parameters
    ----------
    header : sequence of str
    rows : iterable of sequences of str
        Each as long as ``header``.

    Raises
    ------
    ValueError
        If a row's length differs from the header's.
    """
    header = [str(h) for h in header]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for k, row in enumerate(rows):
        row = [str(c) for c in row]
        if len(row) != len(header):
            raise ValueError(f"rows[{k}] has {len(row)} cells; the header has {len(header)}")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


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


def is_machine_zero(x) -> bool:
    """Whether the non-negative quantity ``x`` is zero up to rounding (below :data:`MACHINE_ZERO`)."""
    x = float(x)
    return 0 <= x < MACHINE_ZERO


def sci_loss(x, digits: int = 3) -> str:
    """A non-negative loss as :func:`sci` prints it, and ``0`` when it is zero up to rounding.

    What a machine prints below :data:`MACHINE_ZERO` is rounding noise (``1.67 × 10⁻³²`` here,
    ``2.46 × 10⁻³²`` elsewhere); the mathematics fixes only that it is zero.
    """
    return "0" if is_machine_zero(x) else sci(x, digits)


def printed_half_unit(value, digits: int = 3) -> float:
    """Half a unit in the last printed digit of ``value`` shown with ``digits`` significant digits.

    A number printed as ``1.23 × 10⁻²`` stands for any value in ``[1.225, 1.235] × 10⁻²``: the
    half unit is ``0.5 × 10^(e - digits + 1)`` for the decimal exponent ``e`` of the printed
    mantissa (read from the printed text itself, so ``9.996`` rounds to ``1.00 × 10¹`` and gets
    the half unit of ``10.0``).

    Parameters
    ----------
    value : float
        The printed value, finite and ``!= 0``.
    digits : int, default 3
        Significant digits printed (the paper's three).

    Returns
    -------
    float
    """
    value = float(value)
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise ValueError(f"digits = {digits!r} is outside the allowed range: an integer >= 1")
    if not math.isfinite(value) or value == 0:
        raise ValueError(f"value = {value!r} is outside the allowed range: finite and != 0")
    exponent = int(f"{value:.{digits - 1}e}".split("e")[1])
    return 0.5 * 10.0 ** (exponent - digits + 1)


def decimal_text(x, places: int) -> str:
    """``x`` with exactly ``places`` digits after the decimal point: ``0.0042``, ``1.00``, ``-0.5``.

    For the statistics of the Monte Carlo checks, printed to a fixed number of decimals: a
    :math:`z`-score to one decimal (``|z| <= 4`` is what the checks assert), a Kolmogorov-Smirnov
    statistic to four and a :math:`p`-value to two (tables of the book's chapters *The PDP-OP
    mechanism*, ``book/mechanism.ipynb``, and *Exact loss moments*, ``book/moments.ipynb``).
    Rounds the exact binary value half to even; a negative value that rounds to zero keeps its
    sign (``-0.0``).

    Parameters
    ----------
    x : float
        Finite.
    places : int
        Digits after the decimal point, ``>= 0``.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``x`` is not finite or ``places`` is not an integer ``>= 0``.
    """
    if isinstance(places, bool) or not isinstance(places, int) or places < 0:
        raise ValueError(f"places = {places!r} is outside the allowed range: an integer >= 0")
    x = float(x)
    if not math.isfinite(x):
        raise ValueError(f"x = {x!r} is outside the allowed range (-inf, inf)")
    return f"{x:.{places}f}"


def tex_grid(name, values, powers=False) -> str:
    r"""A grid of settings as inline TeX: ``$\lambda \in \{10^{-2}, 10^{-1}, 1, 10\}$``.

    Each value is printed by :func:`sig`, except, with ``powers``, a
    value below one that is an exact power of ten, printed as ``10^{k}``.  The book's
    chapter *Accuracy of PDP-OP* (``book/accuracy.ipynb``) writes its grids into the prose
    this way, from the constants themselves.

    Parameters
    ----------
    name : str
        TeX of the quantity, ``"\\delta"`` say.
    values : sequence of float
    powers : bool, default False

    Returns
    -------
    str
    """
    def one(v):
        e = math.log10(v)
        if powers and v < 1 and abs(e - round(e)) < 1e-12:
            return f"10^{{{round(e)}}}"
        return sig(v)

    return f"${name} \\in \\{{" + ", ".join(one(v) for v in values) + "\\}$"
