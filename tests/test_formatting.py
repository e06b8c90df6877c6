"""Tests of the number formatting used in every stored output (the paper's style)."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_lib import sci, sig
from pdp_lib.formatting import decimal_text, tex_grid


@pytest.mark.parametrize("x, expected", [
    (854.3, "8.54 × 10²"),
    (9.78, "9.78"),
    (0.00582, "5.82 × 10⁻³"),
    (9.999, "1.00 × 10¹"),      # rounding carries across a decade
    (0.99999, "1.00"),          # ... and down into [1, 10)
    (1.0, "1.00"),
    (3.81, "3.81"),
    (460000.0, "4.60 × 10⁵"),
    (0.53, "5.30 × 10⁻¹"),
    (1.234e-12, "1.23 × 10⁻¹²"),
    (1.0e10, "1.00 × 10¹⁰"),
    (-854.3, "-8.54 × 10²"),
    (0.0, "0"),
    (np.float64(38.8), "3.88 × 10¹"),
])
def test_sci(x, expected):
    assert sci(x) == expected


def test_sci_digits():
    assert sci(854.3, digits=2) == "8.5 × 10²"
    assert sci(854.3, digits=4) == "8.543 × 10²"


def test_sci_non_finite():
    assert sci(float("inf")) == "inf"
    assert sci(float("nan")) == "nan"


@pytest.mark.parametrize("x, expected", [(854.3, "854"), (9.78, "9.78"), (0.00582, "0.00582"),
                                         (9.999, "10"), (1234567.0, "1.23e+06")])
def test_sig(x, expected):
    assert sig(x) == expected


def test_ratio_and_percent_texts_by_hand():
    from pdp_lib.formatting import count_text, markdown_table, percent_text, ratio_text, signed_percent
    assert [ratio_text(1), ratio_text(3.6), ratio_text(0.26413), ratio_text(241.26)] == ["1.00", "3.60", "0.264", "241"]
    assert ratio_text(1.2e5) == "1.20 × 10⁵" and ratio_text(4.78e-7) == "4.78 × 10⁻⁷"
    assert percent_text(0.0512) == "5.1%" and percent_text(0.283) == "28%"
    assert percent_text(3.5e-10) == "under 0.01%" and percent_text(0.99999) == "over 99.9%"
    assert percent_text(0.931, 1) == "93.1%" and percent_text(1.42, 0) == "142%"
    assert percent_text(0.00486, 2) == "0.49%" and percent_text(0.001, 1) == "0.1%"
    assert percent_text(0.00015, 3) == "0.015%" and percent_text(0.2, 0) == "20%"
    assert signed_percent(-0.00015) == "\u22120.015%" and signed_percent(0.015) == "+1.5%" and signed_percent(0.0) == "+0%"
    assert count_text(100000) == "100,000" and count_text(3.0) == "3"
    with pytest.raises(ValueError, match="n = 2.5"):
        count_text(2.5)
    assert markdown_table(["a", "b"], [["1", "2"], ["x", ""]]) == "| a | b |\n|---|---|\n| 1 | 2 |\n| x |  |"
    with pytest.raises(ValueError, match=r"rows\[0\] has 1 cells"):
        markdown_table(["a", "b"], [["1"]])


# --------------------------------------------------------------------------- printed decimals
@pytest.mark.parametrize("x, places, text", [
    (0.00424, 4, "0.0042"), (0.99999, 2, "1.00"), (0.88, 2, "0.88"), (-0.5, 1, "-0.5"),
    (3.0, 1, "3.0"), (-0.04, 1, "-0.0"), (12.0, 0, "12"), (np.float64(1.25), 1, "1.2")])
def test_decimal_text_by_hand(x, places, text):
    assert decimal_text(x, places) == text


def test_decimal_text_rounds_the_exact_binary_value_half_to_even():
    from decimal import ROUND_HALF_EVEN, Decimal

    rng = np.random.default_rng(77)
    values = np.concatenate([rng.normal(scale=5.0, size=500), np.arange(-40, 41) / 8])
    for places in (0, 1, 2, 4):
        quantum = Decimal(1).scaleb(-places)
        for x in values:
            exact = Decimal(float(x)).quantize(quantum, rounding=ROUND_HALF_EVEN)
            assert decimal_text(x, places) == str(exact), (x, places)


@pytest.mark.parametrize("x, places", [(np.nan, 1), (np.inf, 2), (1.0, -1), (1.0, 1.5), (1.0, True)])
def test_decimal_text_rejects(x, places):
    with pytest.raises(ValueError, match="outside the allowed range"):
        decimal_text(x, places)


@pytest.mark.parametrize("name, values, powers, expected", [
    ("\\delta", (0.01, 0.1), False, "$\\delta \\in \\{0.01, 0.1\\}$"),
    ("\\lambda", (1e-2, 1e-1, 1.0, 10.0, 100.0), True, "$\\lambda \\in \\{10^{-2}, 10^{-1}, 1, 10, 100\\}$"),
    ("\\sigma", (0.05, 0.2, 0.5), True, "$\\sigma \\in \\{0.05, 0.2, 0.5\\}$"),
    ("x", (0.001234, 12345.0), False, "$x \\in \\{0.00123, 1.23e+04\\}$"),
])
def test_tex_grid(name, values, powers, expected):
    assert tex_grid(name, values, powers) == expected
