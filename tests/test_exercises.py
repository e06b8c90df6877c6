"""The exercises at the end of the chapters, and their checked solutions (``sphinx-exercise``).

Each chapter of :data:`EXERCISE_CHAPTERS` ends with a section "Exercises" of 2 to 4 exercises, at least
:data:`MIN_EXERCISES` in the book. Read from the chapters' cells, in order:

- every exercise has a label, unique in the book, and exactly one solution in its chapter that refers to
  it, folded (``:class: dropdown``); every solution refers to an exercise of its chapter;
- a gated solution (``solution-start`` ... ``solution-end``, which may hold code cells) is closed
  before the next exercise or solution begins;
- an exercise that asks for a number (its title or statement says *compute*, *calculate*, *evaluate*
  or *how many*, ...) has a gated solution with at least one code cell that asserts, so that nbval
  re-checks the answer whenever the chapter runs;
- a code line of a solution fits the code box of an open solution, which its frame makes narrower
  than the page's (:data:`MAX_SOLUTION_LINE` characters instead of 90).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
EXERCISE_CHAPTERS = ("mechanism", "sensitivity", "privacy", "accuracy", "moments", "personalization")
MIN_EXERCISES = 15
PER_CHAPTER = (2, 4)
# at 1280 px an open solution's code box is 605 px wide; at 12 px a monospace character is about 7.2 px
# wide, so with 8 px of padding on each side 81 characters fit (_static/custom.css)
MAX_SOLUTION_LINE = 80
HEADING = "## Exercises"
# words by which a statement asks for a number
ASKS_FOR_A_NUMBER = re.compile(r"\b(compute|calculate|evaluate|how many|how large|how much)\b", re.I)
_OPENING = re.compile(r"^(`{3,})\{(exercise|solution|solution-start|solution-end)\}[ \t]*(.*)$")
_OPTION = re.compile(r"^:([\w-]+):[ \t]*(.*)$")


@dataclass
class Exercise:
    label: str
    text: str            # title and statement
    cell: int


@dataclass
class Solution:
    target: str
    options: dict
    gated: bool
    cell: int
    code_cells: list = field(default_factory=list)    # the sources of its code cells
    closed: bool = True


def _directives(source: str):
    """The sphinx-exercise directives of one Markdown cell: ``(name, argument, options, body)``."""
    lines = source.splitlines()
    k = 0
    while k < len(lines):
        m = _OPENING.match(lines[k])
        if not m:
            k += 1
            continue
        fence, name, argument = m.group(1), m.group(2), m.group(3).strip()
        k += 1
        options = {}
        while k < len(lines) and (o := _OPTION.match(lines[k])):
            options[o.group(1)] = o.group(2).strip()
            k += 1
        body = []
        while k < len(lines) and lines[k].strip() != fence:
            body.append(lines[k])
            k += 1
        k += 1
        yield name, argument, options, "\n".join(body)


def _asserts(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return any(isinstance(node, ast.Assert) for node in ast.walk(tree))


def read_exercises(cells):
    """Exercises, solutions and structural problems of one chapter, from ``(cell_type, source)`` pairs."""
    exercises, solutions, problems = [], [], []
    open_solution = None
    for index, (kind, source) in enumerate(cells):
        if kind == "code":
            if open_solution is not None:
                open_solution.code_cells.append(source)
            continue
        if kind != "markdown":
            continue
        for name, argument, options, body in _directives(source):
            if name == "solution-end":
                if open_solution is None:
                    problems.append(f"cell {index}: solution-end without solution-start")
                open_solution = None
                continue
            if open_solution is not None:
                problems.append(f"cell {index}: {name} inside the open solution of "
                                f"{open_solution.target!r} (no solution-end before it)")
                open_solution.closed = False
                open_solution = None
            if name == "exercise":
                exercises.append(Exercise(options.get("label", ""), f"{argument}\n{body}", index))
            else:
                solution = Solution(argument, options, name == "solution-start", index)
                solutions.append(solution)
                if solution.gated:
                    open_solution = solution
    if open_solution is not None:
        problems.append(f"the solution of {open_solution.target!r} is never closed")
        open_solution.closed = False
    return exercises, solutions, problems


def exercise_problems(cells) -> list:
    """Everything the module docstring asks of one chapter's exercises, except the counts."""
    exercises, solutions, problems = read_exercises(cells)
    labels = [e.label for e in exercises]
    for e in exercises:
        if not e.label:
            problems.append(f"cell {e.cell}: an exercise without a label")
            continue
        mine = [s for s in solutions if s.target == e.label]
        if len(mine) != 1:
            problems.append(f"{e.label}: {len(mine)} solutions (exactly one expected)")
            continue
        solution = mine[0]
        if solution.options.get("class", "").split() != ["dropdown"]:
            problems.append(f"{e.label}: the solution is not folded (:class: dropdown)")
        if ASKS_FOR_A_NUMBER.search(e.text) and not any(map(_asserts, solution.code_cells)):
            problems.append(f"{e.label}: asks for a number, but no code cell of its solution asserts")
        wide = [line for source in solution.code_cells for line in source.splitlines()
                if len(line) > MAX_SOLUTION_LINE]
        if wide:
            problems.append(f"{e.label}: {len(wide)} code lines longer than {MAX_SOLUTION_LINE} characters")
    problems += [f"cell {s.cell}: a solution of {s.target!r}, which is no exercise of this chapter"
                 for s in solutions if s.target not in labels]
    return problems


def _cells(stem):
    nb = nbformat.read(BOOK / f"{stem}.ipynb", as_version=4)
    return [(cell.cell_type, cell.source) for cell in nb.cells]


# --- the detector, on hand-written chapters -------------------------------------------------------

_EXERCISE = "```{{exercise}} {title}\n:label: {label}\n\n{text}\n```"
_GATED = "```{{solution-start}} {label}\n:class: dropdown\n```\n\nProse."
_END = "```{solution-end}\n```"
_PLAIN = "```{{solution}} {label}\n:class: dropdown\n\nA proof.\n```"


def _good_chapter():
    return [
        ("markdown", HEADING),
        ("markdown", _EXERCISE.format(title="A number", label="ex-a", text="Compute the bound.") + "\n\n"
         + _GATED.format(label="ex-a")),
        ("code", "x = 1 + 1\nassert x == 2"),
        ("markdown", _END),
        ("markdown", _EXERCISE.format(title="A proof", label="ex-b", text="Show that it holds.")),
        ("markdown", _PLAIN.format(label="ex-b")),
    ]


def test_the_reader_on_a_hand_written_chapter():
    exercises, solutions, problems = read_exercises(_good_chapter())
    assert [e.label for e in exercises] == ["ex-a", "ex-b"]
    assert [(s.target, s.gated, s.code_cells) for s in solutions] == [
        ("ex-a", True, ["x = 1 + 1\nassert x == 2"]), ("ex-b", False, [])]
    assert problems == [] and exercise_problems(_good_chapter()) == []


def test_the_detector_finds_a_lost_solution():
    cells = _good_chapter()[:-1]                       # exercise ex-b loses its solution
    assert exercise_problems(cells) == ["ex-b: 0 solutions (exactly one expected)"]


def test_the_detector_finds_a_numerical_answer_that_is_not_asserted():
    cells = _good_chapter()
    cells[2] = ("code", "x = 1 + 1\nprint(x)")
    assert exercise_problems(cells) == ["ex-a: asks for a number, but no code cell of its solution asserts"]
    cells = _good_chapter()
    cells[4] = ("markdown", _EXERCISE.format(title="Another", label="ex-b", text="Compute it."))
    assert exercise_problems(cells) == ["ex-b: asks for a number, but no code cell of its solution asserts"]


def test_the_detector_finds_a_solution_line_too_wide_for_its_box():
    cells = _good_chapter()
    cells[2] = ("code", "x = 1 + 1  # " + "a" * MAX_SOLUTION_LINE + "\nassert x == 2")
    assert exercise_problems(cells) == [f"ex-a: 1 code lines longer than {MAX_SOLUTION_LINE} characters"]


def test_the_detector_finds_broken_structure():
    unclosed = [cell for k, cell in enumerate(_good_chapter()) if k != 3]
    assert any("inside the open solution of 'ex-a'" in p for p in exercise_problems(unclosed))
    unfolded = _good_chapter()
    unfolded[5] = ("markdown", _PLAIN.format(label="ex-b").replace(":class: dropdown\n", ""))
    assert exercise_problems(unfolded) == ["ex-b: the solution is not folded (:class: dropdown)"]
    stray = _good_chapter() + [("markdown", _PLAIN.format(label="ex-c"))]
    assert exercise_problems(stray) == ["cell 6: a solution of 'ex-c', which is no exercise of this chapter"]
    unlabelled = _good_chapter()
    unlabelled[4] = ("markdown", "```{exercise} No label\n\nShow it.\n```")
    assert "cell 4: an exercise without a label" in exercise_problems(unlabelled)


# --- the book ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("stem", EXERCISE_CHAPTERS)
def test_the_chapter_ends_with_its_exercises(stem):
    cells = _cells(stem)
    starts = [k for k, (kind, source) in enumerate(cells) if kind == "markdown" and source.startswith(HEADING)]
    assert len(starts) == 1, f"{stem}: one section {HEADING!r} expected"
    exercises, solutions, _ = read_exercises(cells)
    assert PER_CHAPTER[0] <= len(exercises) <= PER_CHAPTER[1], f"{stem}: {len(exercises)} exercises"
    assert min(item.cell for item in exercises + solutions) > starts[0], f"{stem}: an exercise before {HEADING}"
    later_sections = [k for k, (kind, source) in enumerate(cells[starts[0] + 1:], starts[0] + 1)
                      if kind == "markdown" and re.search(r"^#{1,2} ", source, re.M)]
    assert not later_sections, f"{stem}: a section after the exercises (cells {later_sections})"


@pytest.mark.parametrize("stem", EXERCISE_CHAPTERS)
def test_every_exercise_has_its_checked_solution(stem):
    problems = exercise_problems(_cells(stem))
    assert not problems, f"{stem}:\n" + "\n".join(problems)


def test_the_book_has_enough_exercises_with_unique_labels():
    exercises = [e for stem in EXERCISE_CHAPTERS for e in read_exercises(_cells(stem))[0]]
    labels = [e.label for e in exercises]
    assert len(exercises) >= MIN_EXERCISES
    assert len(set(labels)) == len(labels), "duplicate exercise labels"
    # the rule for numerical answers is not vacuous: most exercises ask for a number
    assert sum(bool(ASKS_FOR_A_NUMBER.search(e.text)) for e in exercises) >= MIN_EXERCISES - 3


def test_exercises_in_other_chapters_are_checked_too():
    others = sorted(p.stem for p in BOOK.glob("*.ipynb") if p.stem not in EXERCISE_CHAPTERS)
    problems = [f"{stem}: {problem}" for stem in others for problem in exercise_problems(_cells(stem))]
    assert not problems, "\n".join(problems)
