"""The chapters' code reads like the rest of the book (the README's rules for a chapter's cells).

- Numbers are formatted by :mod:`pdp_lib.formatting` only: no format specification in an
  f-string (``{x:.3g}``), no ``%`` formatting, no ``str.format``, ``format(x, spec)``,
  ``round(x, n)`` or ``float_format`` in a chapter, and no format specification in a
  ``{glue:text}`` role of its prose (the number is glued as its text).
- Tables are built by :func:`pdp_lib.formatting.markdown_table` (or a pandas frame), never by
  hand from ``"| ... |"`` strings.
- Facts are glued through :func:`pdp_lib.replication.rendering.glue_facts` only.
- A cell shows one idea: at most :data:`MAX_CELL_LINES` lines, each fitting the site's code box
  (:data:`MAX_LINE_LENGTH` characters).

Each rule is checked by parsing the cells' Python, so strings that merely contain a brace or a
bar (LaTeX, say) are not mistaken for code.
"""

import ast
import re
from pathlib import Path

import nbformat
import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
CHAPTERS = sorted(BOOK.glob("*.ipynb"))
MAX_CELL_LINES = 20
MAX_LINE_LENGTH = 90   # the code box of the 1280 px layout holds about 90 characters of code
_GLUE_ROLE = re.compile(r"\{glue(?::text)?\}(?:``\s*([^`]+?)\s*``|`([^`]+)`)")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$|\|\s*:?-{3,}", re.MULTILINE)


def _code_cells(path):
    for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type == "code":
            yield index, cell.source


def _strings(node):
    """The literal text of a string constant or of an f-string's literal parts."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.JoinedStr):
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                yield part.value


def _rounds_or_formats(call: ast.Call) -> str:
    """What a call does to a number's printed digits by itself, or ``""``.

    ``format(x, spec)``, ``round(x, n)``, ``x.round(n)``, ``np.round(x, n)``, ``np.around``,
    NumPy's ``format_float_*`` and a ``float_format=`` argument; ``round(x)`` (to an integer, an
    exponent say) is not one.
    """
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    on_numpy = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
        and func.value.id in ("np", "numpy")
    places = len(call.args) > (0 if isinstance(func, ast.Attribute) and not on_numpy else 1) \
        or any(k.arg == "decimals" for k in call.keywords)
    if name == "format" and isinstance(func, ast.Name) and len(call.args) > 1:
        return "format() with a specification"
    if name in ("round", "around") and places:
        return "rounding"
    if name.startswith("format_float_") or name in ("set_printoptions", "array2string"):
        return name
    if name == "set_option" and any(isinstance(a, ast.Constant) and str(a.value).startswith("display.")
                                    for a in call.args):
        return "a pandas display option"
    if any(k.arg in ("float_format", "precision") for k in call.keywords):
        return "a precision argument"
    return ""


def _glued_float_of_sig(call: ast.Call) -> bool:
    """``glue_facts(x=float(sig(v)))``: a number rounded to text and made a float again."""
    if not (isinstance(call.func, ast.Name) and call.func.id == "glue_facts"):
        return False
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float"
               and node.args and isinstance(node.args[0], ast.Call)
               and isinstance(node.args[0].func, ast.Name) and node.args[0].func.id == "sig"
               for node in ast.walk(call))


def glue_role_problems(markdown: str) -> list:
    """``{glue:text}`` (or ``{glue}``) roles that carry a format specification (``name:.3g``).

    A number is glued as its text, formatted by :mod:`pdp_lib.formatting` from the exact value;
    a specification in the role would format it a second time (and round it twice).
    """
    # "doc::name" names a fact glued in another document: its "::" is not a specification
    roles = [a or b for a, b in _GLUE_ROLE.findall(markdown)]
    return [f"{{glue:text}}`{role}`" for role in roles if ":" in role.rpartition("::")[2]]


def code_problems(source: str) -> list:
    """The rule breaks in one cell's Python source (see the module docstring)."""
    problems = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            problems.append(f"line {node.lineno}: format specification in an f-string")
        elif (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)
              and isinstance(node.left, (ast.Constant, ast.JoinedStr))
              and isinstance(getattr(node.left, "value", ""), str)):
            problems.append(f"line {node.lineno}: %-formatting")
        elif isinstance(node, ast.Attribute) and node.attr == "format":
            problems.append(f"line {node.lineno}: a .format method (str.format, a Styler's)")
        elif isinstance(node, ast.Call) and _rounds_or_formats(node):
            problems.append(f"line {node.lineno}: {_rounds_or_formats(node)} outside formatting")
        elif isinstance(node, ast.Call) and _glued_float_of_sig(node):
            problems.append(f"line {node.lineno}: float(sig(...)) glued: glue the text sig gives")
        elif isinstance(node, ast.ImportFrom) and node.module == "myst_nb":
            problems.append(f"line {node.lineno}: glue imported directly (use rendering.glue_facts)")
        if isinstance(node, (ast.Constant, ast.JoinedStr)):
            if any(_TABLE_ROW.search(text) for text in _strings(node)):
                problems.append(f"line {node.lineno}: a Markdown table built by hand")
    lines = source.splitlines()
    if len(lines) > MAX_CELL_LINES:
        problems.append(f"{len(lines)} lines (at most {MAX_CELL_LINES})")
    problems += [f"line {k}: {len(line)} characters (at most {MAX_LINE_LENGTH})"
                 for k, line in enumerate(lines, 1) if len(line) > MAX_LINE_LENGTH]
    return problems


def test_the_detector():
    assert code_problems("x = 1\nprint(f'{x:.3g}')") == ["line 2: format specification in an f-string"]
    assert code_problems("print('%.2f' % 3.0)") == ["line 1: %-formatting"]
    assert code_problems("print('{}'.format(3))") == ["line 1: a .format method (str.format, a Styler's)"]
    assert code_problems("rows = ['| a | b |', '|---|---|']") != []
    assert code_problems("from myst_nb import glue") != []
    assert code_problems("\n".join(["x = 1"] * (MAX_CELL_LINES + 1))) == [
        f"{MAX_CELL_LINES + 1} lines (at most {MAX_CELL_LINES})"]
    # not problems: LaTeX braces, a bar in a sentence, doubled braces, sig() inside an f-string
    assert code_problems("s = f'$10^{{{k}}}$ and |x| = {sig(x)}'") == []
    assert code_problems("glue_facts(a=1, b=Markdown(f'$\\\\delta = {sig(d)}$'))") == []
    for call in ("format(x, '.3g')", "fmt.format(x)", "round(x, 2)", "x.round(2)", "np.round(x, 2)",
                 "np.around(x, decimals=1)", "np.format_float_positional(x)", "df.to_string(float_format=f)",
                 "df.round(decimals=2)", "list(map('{:.2f}'.format, xs))", "df.style.format(precision=2)",
                 "pd.set_option('display.precision', 3)", "np.set_printoptions(precision=3)",
                 "np.array2string(x, precision=2)", "glue_facts(a=float(sig(x)))"):
        assert code_problems(f"y = {call}") != [], call
    for call in ("round(np.log10(p))", "np.round(x)", "np.around(x)", "same = float(sig(v)) == p"):
        assert code_problems(f"k = {call}") == [], call


def test_the_glue_role_detector():
    assert glue_role_problems("at most {glue:text}`runs:,d` runs, {glue}`x:.2g`") == [
        "{glue:text}`runs:,d`", "{glue:text}`x:.2g`"]
    assert glue_role_problems("{glue:text}`runs` runs and {glue:md}`t2_min:myst`") == []
    assert glue_role_problems("{glue:text}`other::runs` and {glue:text}``x:.2g``") == ["{glue:text}`x:.2g`"]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_cells_follow_the_rules(path):
    bad = [f"{path.name} cell {index}: {problem}"
           for index, source in _code_cells(path) for problem in code_problems(source)]
    assert not bad, "\n".join(bad)
    cells = nbformat.read(path, as_version=4).cells
    bad = [f"{path.name} cell {index}: {role}" for index, cell in enumerate(cells)
           if cell.cell_type == "markdown" for role in glue_role_problems(cell.source)]
    assert not bad, "format specifications in glue roles:\n" + "\n".join(bad)
