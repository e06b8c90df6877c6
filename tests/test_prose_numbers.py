"""No hand-typed results in the book's prose.

A number in a chapter's Markdown that a computation produced must be glued from that
computation (myst-nb ``glue`` with ``display=False``, then ``{glue:text}`` or ``{glue:md}``), so
that the build and nbval keep it true.  This test reads the Markdown of every chapter and fails
on a *result-like* number written by hand:

* a decimal (``1.2``, ``0.0011``), a percentage (``16%``, ``$16\\%$``), a factor (``5x``,
  ``5×``, ``six-fold``, ``5 to 150 times``, ``five to twelve times``), a range of such
  numbers (``1-7%``, ``1.2-2.9``), or an approximate value (``\\approx 15``);

outside what is not prose: glue roles, citations and cross-references, code, labels, and the
names of the paper's own results ("Theorem 3.1", "Section 4.2", "Tables 5-12").  Inside math
only percentages, approximations and decimals are looked at, because math holds formulas,
not results.  The paper's own settings (the 95% band, the privacy levels of Section 4, ...)
pass through the explicit list :data:`PAPER_SETTINGS`; every entry says where it comes from.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"

# The paper's own settings and definitions, which are inputs, not results.
PAPER_SETTINGS = {
    "95%": "the band's coverage, a definition (2.5% and 97.5% quantiles)",
    "2.5%": "lower quantile of the 95% band",
    "97.5%": "upper quantile of the 95% band",
    "0.01": "eps_c of the default profile (Section 4, 'Choice of Privacy Budgets')",
    "0.2": "eps_m of the default profile, and the test fraction of the 80/20 split (Section 4)",
    "1.0": "eps_l of the default profile (Section 4)",
    "0.34": "f_c of the default profile (Section 4)",
    "0.43": "f_m of the default profile (Section 4)",
    "0.23": "f_l of the default profile (Section 4)",
    "3.11": "the Python version of the pinned environment",
}

# Names of the paper's results and sections, followed by their numbers: not results.
_RESULT_NAMES = (r"(?:Theorems?|Lemmas?|Sections?|Remarks?|Assumptions?|Tables?|Figures?|Appendix|"
                 r"Appendices|Algorithms?|Corollary|Corollaries|Propositions?|Definitions?|Equations?|"
                 r"Python|Chapters?|Steps?|Parts?|steps?|parts?)")
_REF_NUMBER = r"[A-Z]?\d+(?:\.\d+)*"
_NAMED = re.compile(_RESULT_NAMES + r"\s+" + _REF_NUMBER +
                    r"(?:\s*(?:,|and|or|to|-|–|/)\s*(?:" + _RESULT_NAMES + r"\s+)?" + _REF_NUMBER + r")*")

# What is not prose: removed before the search.
_NOT_PROSE = [
    re.compile(r"^(?:```|~~~|:::).*?^(?:```|~~~|:::)\s*$", re.S | re.M),  # directives and code blocks
    re.compile(r"\{[\w:-]+\}`[^`]*`"),                                     # roles: glue, cite, ref, eq, ...
    re.compile(r"``.*?``|`[^`\n]*`"),                                      # inline code
    re.compile(r"^\([\w-]+\)=\s*$", re.M),                                 # labels
    re.compile(r"\]\([^)]*\)"),                                            # link targets
    re.compile(r"<[^>\n]+>"),                                              # HTML tags
]
_MATH = re.compile(r"\$\$.*?\$\$|\\begin\{(\w+\*?)\}.*?\\end\{\1\}|\$[^$\n]+\$", re.S)

_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?"
_WORD_NUM = (r"(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
             r"forty|fifty|hundred|thousand)")
_PROSE_PATTERNS = [
    ("percentage", re.compile(r"(?<![\w.])" + _NUM + r"(?:\s*(?:-|–|to)\s*" + _NUM + r")?\s*%")),
    ("factor", re.compile(r"(?<![\w.])" + _NUM + r"(?:\s*(?:-|–|to)\s*" + _NUM + r")?\s*(?:x|×)(?![\w])")),
    ("factor", re.compile(r"(?<![\w.])(?:" + _NUM + r"|" + _WORD_NUM + r")(?:\s*(?:-|–|to)\s*(?:" + _NUM +
                          r"|" + _WORD_NUM + r"))?[- ](?:fold|times)\b", re.I)),
    ("decimal", re.compile(r"(?<![\w.,])\d+\.\d+(?![\w.])")),
]
_MATH_PATTERNS = [
    ("percentage", re.compile(r"(?<![\w.])" + _NUM + r"\s*\\?%")),
    ("approximation", re.compile(r"\\(?:approx|sim|simeq)\s*\{?\s*" + _NUM)),
    ("decimal", re.compile(r"(?<![\w.,{])\d+\.\d+(?![\w.])")),
]


def _markdown_sources():
    for path in sorted(BOOK.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "markdown":
                yield f"{path.name} cell {index}", cell.source
    for path in sorted(BOOK.glob("*.md")):
        yield path.name, path.read_text(encoding="utf-8")


def hand_typed_numbers(text: str) -> list[tuple[str, str]]:
    """The result-like numbers of one Markdown text, as ``(kind, text)`` pairs."""
    for pattern in _NOT_PROSE:
        text = pattern.sub(" ", text)
    found = []
    maths = [m.group(0) for m in _MATH.finditer(text)]
    prose = _NAMED.sub(" ", _MATH.sub(" ", text))
    for kind, pattern in _PROSE_PATTERNS:
        for m in pattern.finditer(prose):
            found.append((kind, m.group(0).strip()))
        prose = pattern.sub(" ", prose)
    for math in maths:
        for kind, pattern in _MATH_PATTERNS:
            for m in pattern.finditer(math):
                found.append((kind, m.group(0).strip()))
            math = pattern.sub(" ", math)
    return [(kind, value) for kind, value in found if _normal(value) not in PAPER_SETTINGS]


def _normal(value: str) -> str:
    return value.replace("\\%", "%").replace(" ", "")


@pytest.mark.parametrize("text, expected", [
    ("loose by 1.2-2.9 here", [("decimal", "1.2"), ("decimal", "2.9")]),
    ("it is $16\\%$ of it", [("percentage", "16\\%")]),
    ("moves by 1-7%: there", [("percentage", "1-7%")]),
    ("5 to 150 times too large", [("factor", "5 to 150 times")]),
    ("roughly six-fold.", [("factor", "six-fold")]),
    ("five to twelve times more", [("factor", "five to twelve times")]),
    ("about 100x over", [("factor", "100x")]),
    ("($\\|\\bar\\theta\\| \\approx 15$)", [("approximation", "\\approx 15")]),
    ("Theorems 3.1 and 3.2 of {cite:t}`x`, Section 4.2, Tables 5-12", []),
    ("the 95% band, $\\varepsilon_c = 0.01$", []),
    ("{glue:text}`gain:.1%` and `x = 0.5` and {numref}`fig-3`", []),
    ("```{figure} a.png\n:width: 80.5%\n```\nafter", []),
])
def test_the_detector_on_hand_written_cases(text, expected):
    assert hand_typed_numbers(text) == expected


def test_the_book_has_markdown_to_check():
    sources = list(_markdown_sources())
    assert len(sources) > 50          # every chapter is read, not an empty glob
    assert any("glue:" in text for _, text in sources)


def test_no_hand_typed_result_in_chapter_prose():
    offenders = [f"{where}: {kind} {value!r}" for where, text in _markdown_sources()
                 for kind, value in hand_typed_numbers(text)]
    assert not offenders, ("hand-typed results in the prose (glue them from the cell that computes them, "
                           "or list a paper setting in PAPER_SETTINGS):\n" + "\n".join(offenders))
