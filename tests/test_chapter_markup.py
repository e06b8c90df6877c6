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
