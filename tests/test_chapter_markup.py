"""Markup mistakes the strict build does not catch, checked on the chapters' Markdown.

A backtick fence whose info string holds a backtick (a ``{glue:text}`key``` role in a table
caption, say) is not a fence at all in CommonMark: the directive and everything up to the next
fence render as plain text, silently, under ``-W``.  ``tools/check_site.py`` finds the result on
the built site; this finds the cause before any build.
"""

import re
from pathlib import Path

import nbformat

BOOK = Path(__file__).resolve().parents[1] / "book"
_FENCE = re.compile(r"^(`{3,})(.*)$")


def _markdown():
    for path in sorted(BOOK.glob("*.ipynb")):
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type == "markdown":
                yield f"{path.name} cell {index}", cell.source
    for path in sorted(BOOK.glob("*.md")):
        yield path.name, path.read_text(encoding="utf-8")


def fence_problems(text: str) -> list:
    """Opening backtick fences whose info string contains a backtick."""
    return [line for line in text.splitlines()
            if (m := _FENCE.match(line)) and "`" in m.group(2)]


def test_the_detector():
    assert fence_problems("````{table} Caption with {glue:text}`key`\n:name: t\n````") != []
    assert fence_problems("````{table} Caption with $B^\\star$\n:name: t\n````") == []
    assert fence_problems("```{glue:md} key\n```") == []


def test_no_fence_info_string_holds_a_backtick():
    bad = [f"{where}: {line[:80]}" for where, text in _markdown() for line in fence_problems(text)]
    assert not bad, "a backtick in a fence's info string breaks the directive:\n" + "\n".join(bad)


def caption_problems(text: str) -> list:
    """Directive openings whose argument (a table's caption) runs onto the next line.

    A directive's argument is one line: a caption broken over two lines puts its second line in the
    directive's content, where the table directive then finds text besides its table.
    """
    lines = text.splitlines()
    return [line for line, nxt in zip(lines, lines[1:] + [""])
            if _FENCE.match(line) and re.match(r"`{3,}\{(table|glue:figure|figure)\}", line)
            and nxt.strip() and not nxt.startswith(":")]


def test_the_caption_detector():
    assert caption_problems("````{table} A caption\nthat goes on\n:name: t\n````") != []
    assert caption_problems("````{table} A caption on one line\n:name: t\n\n```{glue:md} k\n```\n````") == []
    assert caption_problems("```{glue:figure} fig\n:name: f\n\nCaption\n```") == []


def test_no_caption_runs_onto_a_second_line():
    bad = [f"{where}: {line[:80]}" for where, text in _markdown() for line in caption_problems(text)]
    assert not bad, "a directive's argument must fit on one line:\n" + "\n".join(bad)


_EXERCISE_OPENING = re.compile(r"^(`{3,})\{(exercise|solution|solution-start|solution-end)\}(.*)$")


def exercise_markup_problems(text: str) -> list:
    """``sphinx-exercise`` directives that the strict build would misread, or accept silently.

    * An exercise's title, like a table's caption, is the directive's argument and must fit on the
      opening line; so must the label a solution refers to, and it is one word: a title or a label
      broken over two lines puts its rest into the directive's content.
    * An exercise carries a ``:label:`` option: its solution refers to it, and an unlabelled exercise
      gets a generated label that changes whenever the cells move.
    * ``solution-end`` takes nothing: its opening line is followed by its closing fence.
    """
    lines = text.splitlines()
    bad = []
    for k, line in enumerate(lines):
        m = _EXERCISE_OPENING.match(line)
        if not m:
            continue
        fence, name, argument = m.group(1), m.group(2), m.group(3).strip()
        following = lines[k + 1:]
        nxt = following[0] if following else ""
        options = []
        for option in following:
            if not option.startswith(":"):
                break
            options.append(option)
        if name == "solution-end":
            if argument or nxt.strip() != fence:
                bad.append(line)
        elif nxt.strip() and not nxt.startswith(":"):
            bad.append(line)                       # the argument runs onto a second line
        elif name == "exercise" and not any(re.match(r":label:\s+\S+\s*$", o) for o in options):
            bad.append(line)                       # an exercise without a label
        elif name != "exercise" and len(argument.split()) != 1:
            bad.append(line)                       # a solution refers to exactly one label
    return bad


def test_the_exercise_markup_detector():
    good = ("```{exercise} A title on one line\n:label: ex-a\n\nCompute it.\n```\n\n"
            "```{solution-start} ex-a\n:class: dropdown\n```\n\nProse.\n\n```{solution-end}\n```\n\n"
            "```{solution} ex-b\n:class: dropdown\n\nA proof.\n```")
    assert exercise_markup_problems(good) == []
    assert exercise_markup_problems("```{exercise} A title\nthat goes on\n:label: ex-a\n```") != []
    assert exercise_markup_problems("```{exercise} No label\n:class: x\n\nText.\n```") != []
    assert exercise_markup_problems("```{solution} ex-a ex-b\n:class: dropdown\n```") != []
    assert exercise_markup_problems("```{solution}\n:class: dropdown\n```") != []
    assert exercise_markup_problems("```{solution-end}\nText.\n```") != []


def test_exercise_directives_are_well_formed():
    bad = [f"{where}: {line[:80]}" for where, text in _markdown() for line in exercise_markup_problems(text)]
    assert not bad, "a malformed exercise or solution directive:\n" + "\n".join(bad)


_LABEL = re.compile(r"^\((sec-[A-Za-z0-9-]+|chap-[A-Za-z0-9-]+)\)=\s*\n#+ (.*)$", re.M)
_BARE_REF = re.compile(r"\{ref\}`([A-Za-z0-9-]+)`")


def _headings() -> dict:
    """Each label of the book and the heading it stands before."""
    return {m.group(1): m.group(2) for _, text in _markdown() for m in _LABEL.finditer(text)}


def test_no_link_shows_raw_latex():
    # a {ref} without its own text shows the heading's source: a heading with math shows raw LaTeX on the site
    headings = _headings()
    assert "sec-adassp" in headings and "$" in headings["sec-adassp"]          # the detector sees one
    bad = [f"{where}: {{ref}}`{label}` -> {headings[label][:60]}" for where, text in _markdown()
           for label in _BARE_REF.findall(text) if "$" in headings.get(label, "")]
    assert not bad, "give these links their own text ({ref}`text <label>`):\n" + "\n".join(bad)


def test_the_introductions_chapter_map_lists_every_chapter_with_its_number():
    import yaml

    toc = yaml.safe_load((BOOK.parent / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc["parts"] if part.get("numbered") for c in part["chapters"]]
    labels = []
    for f in files:
        first = nbformat.read(BOOK.parent / f"{f}.ipynb", as_version=4).cells[0].source
        labels.append(re.match(r"\((chap-[a-z-]+)\)=", first).group(1))
    intro = (BOOK / "intro.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| \{ref\}`(chap-[a-z-]+)` \|", intro, flags=re.M)
    assert [(int(n), label) for n, label in rows] == list(enumerate(labels, start=1))


def test_every_chapters_imports_cell_is_collapsed():
    # the first code cell of a chapter imports its tools: collapsed (hide-input), so the page opens on its subject
    open_cells = []
    for path in sorted(BOOK.glob("*.ipynb")):
        first = next(c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
        if first.source.lstrip().startswith(("import", "from")) and "hide-input" not in first.metadata.get("tags", []):
            open_cells.append(path.name)
    assert not open_cells, f"imports cells not collapsed: {open_cells}"
