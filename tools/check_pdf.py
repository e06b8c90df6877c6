"""Check the book's PDF (``make pdf``) as a reader meets it.

Usage (after ``make pdf``)::

    .venv/bin/python tools/check_pdf.py [--pdf _build/latex/book.pdf] [--chapter book/standard_dp.ipynb]
                                        [--site _build/html]

With ``pdfinfo``, ``pdftotext`` and ``pdfimages`` (Debian's poppler-utils, installed by
``tools/install_tex.sh``):

1. The file is a PDF and its page count lies in :data:`PAGES`.
2. The title of every page of ``_toc.yml`` (the first heading of its notebook or Markdown file,
   read afresh, so that a chapter added to the table of contents is checked too) is in the text.
3. No ``??`` (LaTeX's mark for an unresolved reference) anywhere in the text, and the LaTeX log
   beside the PDF reports no undefined reference or citation and no character missing from a font.
4. Every number the chosen chapter's prose pastes with ``{glue:text}`` (read from the
   notebook's stored outputs and formatted as MyST-NB formats it) is in the text.
5. The number of figures: as many captions "Fig. N.M:" and as many embedded images as the
   chapters' sources hold figures (``{figure}`` and ``{glue:figure}``, also in pasted Markdown).
6. With ``--site``: every table, figure and equation carries the same number in the PDF (LaTeX's
   ``.aux``) as on the site, where the numbers are by chapter ("Table 8.2").

Exits with status 1 and a list of problems when a check fails.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PAGES = (190, 320)
"""The page count the PDF must have: 213 pages with twelve chapters and their exercises; the range
leaves room for a few more chapters and catches a PDF that lost whole chapters or doubled."""

_LABEL_LINE = re.compile(r"^\(([^)]*)\)=\s*$")
_FIGURE = re.compile(r"^(`{3,}|:{3,})\{(glue:figure|figure)\}", re.MULTILINE)
_GLUE_TEXT = re.compile(r"\{glue:text\}`([^`]+)`")
_GLUE_MD = re.compile(r"\{glue:md\}(?:`([^`]+)`| +([^\s`]+))")
_CAPTION = re.compile(r"(?<![\w.])Fig\. (\d+)\.(\d+): ")
_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl"}


# --- the sources -------------------------------------------------------------------------------

def toc_files(toc: Path = ROOT / "_toc.yml") -> list[Path]:
    """The source files of the table of contents, in its order: the root, then every part's chapters.

    Parameters
    ----------
    toc : pathlib.Path
        A ``jb-book`` table of contents.

    Returns
    -------
    list of pathlib.Path
        Each entry's ``.ipynb`` or ``.md`` file (sections nested under a chapter included).
    """
    import yaml

    data = yaml.safe_load(toc.read_text(encoding="utf-8"))
    names = [data["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                names.append(entry["file"])
            for key in ("sections", "chapters"):
                walk(entry.get(key))
            for part in entry.get("parts", []) or []:
                walk(part.get("chapters"))

    for part in data.get("parts", []) or []:
        walk(part.get("chapters"))
    walk(data.get("chapters"))
    files = []
    for name in names:
        for suffix in (".ipynb", ".md"):
            path = toc.parent / f"{name}{suffix}"
            if path.exists():
                files.append(path)
                break
        else:
            raise FileNotFoundError(f"{toc.name}: no .ipynb or .md for {name!r}")
    return files


def markdown_cells(path: Path) -> list[str]:
    """The Markdown of a chapter: its Markdown cells (a notebook) or the whole file."""
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                for c in nb["cells"] if c["cell_type"] == "markdown"]
    return [path.read_text(encoding="utf-8")]


def title_of(path: Path) -> str:
    """The first heading (``# Title``) of a chapter, as written in its source.

    Parameters
    ----------
    path : pathlib.Path
        A chapter's ``.ipynb`` or ``.md`` file.

    Returns
    -------
    str
        The heading's text, without the ``#`` and without a label line ``(name)=`` before it.
    """
    for text in markdown_cells(path):
        for line in text.splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    raise ValueError(f"{path}: no top-level heading")


def title_fragments(title: str) -> list[str]:
    """The parts of a heading that appear verbatim in the PDF's text: math and markup left out.

    Parameters
    ----------
    title : str
        A heading as written in MyST Markdown, e.g. ``How large can $\\bar\\theta$ be?``.

    Returns
    -------
    list of str
        Its plain-text pieces between inline math, without emphasis (``*``) or code marks, each of at
        least two characters.
    """
    pieces = re.split(r"\$[^$]*\$", title)
    cleaned = [re.sub(r"[*`]", "", piece).strip() for piece in pieces]
    return [piece for piece in cleaned if len(piece) >= 2]


def glued_outputs(path: Path) -> dict[str, dict]:
    """Every glued value of a notebook's stored outputs: name -> MIME bundle (without the prefix)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    found = {}
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            meta = output.get("metadata", {}).get("scrapbook")
            if not meta:
                continue
            prefix = meta.get("mime_prefix", "application/papermill.record/")
            found[meta["name"]] = {mime[len(prefix):]: "".join(value) if isinstance(value, list) else value
                                   for mime, value in output.get("data", {}).items() if mime.startswith(prefix)}
    return found


def glued_texts(path: Path) -> list[tuple[str, str]]:
    """What each ``{glue:text}`` role of a chapter's prose prints: ``(role, text)`` pairs.

    The text is MyST-NB's own formatting of the stored ``text/plain`` value with the role's format
    specification (``{glue:text}`runs:,d``` prints ``10,000``).

    Parameters
    ----------
    path : pathlib.Path
        A chapter notebook with stored outputs.

    Returns
    -------
    list of (str, str)
        One pair per role, in the order of the prose.
    """
    from myst_nb.core.variables import format_plain_text

    values = glued_outputs(path)
    pairs = []
    for text in markdown_cells(path):
        for role in _GLUE_TEXT.findall(text):
            key, _, spec = role.rpartition(":") if ":" in role else (role, "", "s")
            if "::" in role:
                continue  # glued in another document
            if key not in values or "text/plain" not in values[key]:
                raise LookupError(f"{path.name}: no stored text/plain for {{glue:text}}`{role}`")
            pairs.append((role, format_plain_text(values[key]["text/plain"], spec or "s")))
    return pairs


def figure_count(paths: list[Path]) -> int:
    """The figures the chapters hold: ``{figure}`` and ``{glue:figure}`` in their Markdown and in the
    Markdown they paste with ``{glue:md}``."""
    count = 0
    for path in paths:
        cells = markdown_cells(path)
        count += sum(len(_FIGURE.findall(text)) for text in cells)
        if path.suffix != ".ipynb":
            continue
        values = glued_outputs(path)
        pasted = {(a or b).split(":")[0] for text in cells for a, b in _GLUE_MD.findall(text)}
        count += sum(len(_FIGURE.findall(values[name].get("text/markdown", ""))) for name in pasted if name in values)
    return count


# --- the PDF -----------------------------------------------------------------------------------

def pdf_pages(pdf: Path) -> int:
    """The page count ``pdfinfo`` reports."""
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, flags=re.MULTILINE).group(1))


def pdf_text(pdf: Path) -> str:
    """The PDF's text (``pdftotext``), ligatures spelled out, every run of white space one space."""
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], check=True, capture_output=True,
                          text=True).stdout
    for ligature, letters in _LIGATURES.items():
        text = text.replace(ligature, letters)
    return re.sub(r"\s+", " ", text)


def pdf_images(pdf: Path) -> int:
    """The images drawn on the PDF's pages (``pdfimages -list``; a soft mask is not an image of its own)."""
    listing = subprocess.run(["pdfimages", "-list", str(pdf)], check=True, capture_output=True, text=True).stdout
    rows = [line.split() for line in listing.splitlines()[2:] if line.strip()]
    return sum(1 for row in rows if len(row) > 2 and row[2] == "image")


def contains(text: str, needle: str) -> bool:
    """Whether ``needle`` is in the PDF's ``text``, up to white space and a line broken at a hyphen."""
    needle = re.sub(r"\s+", " ", needle).strip()
    return (needle in text or needle in text.replace("- ", "-") or needle in text.replace("- ", "")
            or needle.replace(" ", "") in text.replace(" ", ""))


def log_problems(log: Path) -> list[str]:
    """Undefined references or citations and characters missing from a font, in the LaTeX log."""
    if not log.exists():
        return [f"{log}: no LaTeX log beside the PDF"]
    text = log.read_text(encoding="utf-8", errors="replace")
    problems = []
    for pattern, what in ((r"Reference `([^']*)' on page \d+\s*undefined", "undefined reference"),
                          (r"Hyper reference `([^']*)' on\s*page", "undefined hyperlink"),
                          (r"Citation `([^']*)' on page \d+\s*undefined", "undefined citation"),
                          (r"Missing character: There is no (.) ", "character missing from the font")):
        found = sorted(set(re.findall(pattern, text.replace("\n", ""))))
        problems += [f"LaTeX log: {what} {item!r}" for item in found[:10]]
        if len(found) > 10:
            problems.append(f"LaTeX log: ... and {len(found) - 10} more of the kind {what!r}")
    if "There were undefined references" in text:
        problems.append("LaTeX log: there were undefined references")
    return problems


# --- the site ----------------------------------------------------------------------------------

def aux_numbers(aux: Path) -> dict[str, str]:
    """LaTeX's number of every table, figure and equation: ``docname:id`` -> ``"8.2"``."""
    numbers = {}
    # one \newlabel per line: {label}{{number}{page}{caption}{anchor}{}}, the caption free to hold braces of its
    # own (a glued number's \DUrole{pasted-text}{1.02}): the anchor is read from the line's end
    line = r"^\\newlabel\{([^}]*)\}\{\{([^}]*)\}\{[^}]*\}\{.*\}\{(\w+)\.[^{}]*\}\{[^{}]*\}\}$"
    for label, number, anchor in re.findall(line, aux.read_text(encoding="utf-8", errors="replace"), flags=re.M):
        if anchor in ("table", "figure", "equation"):
            numbers[label.removeprefix("equation:")] = (anchor, number)
    return numbers


def site_numbers(html: Path) -> dict[str, tuple[str, str]]:
    """The site's number of every numbered table, figure and equation: ``docname:id`` -> (kind, number)."""
    found = {}
    kinds = {"Table": "table", "Fig.": "figure"}
    for page in sorted((html / "book").glob("*.html")):
        doc = f"book/{page.stem}"
        text = page.read_text(encoding="utf-8", errors="replace")
        for ident, word, number in re.findall(
                r'<(?:table|figure)[^>]*\bid="([^"]+)"[^>]*>.*?<span class="caption-number">(Table|Fig\.) ([\d.]+)',
                text, flags=re.DOTALL):
            found[f"{doc}:{ident}"] = (kinds[word], number)
        for ident, number in re.findall(r'id="equation-([^"]+)"[^>]*>\s*<span class="eqno">\(([\d.]+)\)', text):
            found[f"{doc}:{ident}"] = ("equation", number)
    return found


def numbering_problems(aux: Path, html: Path) -> tuple[int, list[str]]:
    """Tables, figures and equations numbered differently in the PDF and on the site."""
    pdf, site = aux_numbers(aux), site_numbers(html)
    problems = []
    for label, (kind, number) in sorted(site.items()):
        if label not in pdf:
            problems.append(f"{label}: {kind} {number} on the site, not numbered in the PDF")
        elif pdf[label][1] != number:
            problems.append(f"{label}: {kind} {number} on the site, {pdf[label][1]} in the PDF")
    if not site:
        problems.append(f"{html}: no numbered table, figure or equation found on the site")
    return len(site), problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdf", type=Path, default=ROOT / "_build" / "latex" / "book.pdf")
    ap.add_argument("--toc", type=Path, default=ROOT / "_toc.yml")
    ap.add_argument("--chapter", type=Path, action="append", default=None,
                    help="a chapter whose glued numbers must all be in the PDF (default: book/standard_dp.ipynb)")
    ap.add_argument("--site", type=Path, default=None,
                    help="the built site: check that it numbers tables, figures and equations as the PDF does")
    args = ap.parse_args(argv)
    pdf: Path = args.pdf
    if not pdf.exists():
        print(f"{pdf} not found: run `make pdf` first", file=sys.stderr)
        return 2
    problems = []
    if pdf.read_bytes()[:5] != b"%PDF-":
        problems.append(f"{pdf} does not start with %PDF-")
    pages = pdf_pages(pdf)
    if not PAGES[0] <= pages <= PAGES[1]:
        problems.append(f"{pages} pages, expected {PAGES[0]} to {PAGES[1]}")
    text = pdf_text(pdf)

    files = toc_files(args.toc)
    for path in files:
        title = title_of(path)
        missing = [piece for piece in title_fragments(title) if not contains(text, piece)]
        if missing:
            problems.append(f"{path.name}: the title {title!r} is not in the PDF (missing {missing})")
    if "??" in text:
        at = text.index("??")
        problems.append(f"an unresolved reference '??' in the text: ...{text[max(0, at - 60):at + 20]}...")
    problems += log_problems(pdf.with_suffix(".log"))

    glued = 0
    for chapter in args.chapter or [ROOT / "book" / "standard_dp.ipynb"]:
        for role, value in glued_texts(chapter):
            glued += 1
            if not contains(text, value):
                problems.append(f"{chapter.name}: {{glue:text}}`{role}` = {value!r} is not in the PDF")

    expected = figure_count(files)
    captions = sorted(set(_CAPTION.findall(text)), key=lambda m: (int(m[0]), int(m[1])))
    images = pdf_images(pdf)
    if len(captions) != expected:
        problems.append(f"{len(captions)} figure captions 'Fig. N.M:' in the PDF, the sources hold {expected} figures")
    if images != expected:
        problems.append(f"{images} images in the PDF, the sources hold {expected} figures")

    numbered = None
    if args.site:
        numbered, found = numbering_problems(pdf.with_suffix(".aux"), args.site)
        problems += found

    return verdict(problems, str(pdf),
                   f"PDF OK: {pages} pages, the {len(files)} titles of the table of contents, no '??' nor undefined "
                   f"reference, {glued} glued numbers, {expected} figures"
                   + (f", {numbered} tables, figures and equations numbered as on the site" if numbered else ""))


def verdict(problems: list, where: str, ok: str) -> int:
    """Print ``problems`` found in ``where`` one per line and return 1, or print ``ok`` and return 0: the exit
    status of a check (this one and ``check_site``)."""
    if problems:
        print(f"{len(problems)} problem(s) in {where}:")
        for p in problems:
            print(f"- {p}")
        return 1
    print(ok)
    return 0


if __name__ == "__main__":
    sys.exit(main())
