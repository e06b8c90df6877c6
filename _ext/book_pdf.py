"""The book as one PDF (Sphinx's LaTeX builder) and its link from every page of the site.

For the LaTeX builder only, on the one doctree the builder assembles from the whole book:

- a rebuilt table's cell keeps its two lines: the raw-HTML ``<br>`` the cells carry (rebuilt
  value, line break, published value) becomes a LaTeX line break, and ``<small>...</small>``
  a smaller font, where the LaTeX writer would otherwise drop both and run the lines together;
- the input of a cell tagged ``hide-input`` (checks the site folds behind a toggle) is left out,
  its output kept;
- a solution of an exercise (sphinx-exercise) is text under a bold heading rather than a framed
  box, in which a long code cell could not break across pages;
- a table too long for a page may break across pages (a longtable, with column widths from its
  content), where LaTeX's tabulary would run past the page's foot;
- a proof (sphinx-proof) reads as in a printed book, "*Proof.* ... □", not as a box with an
  empty heading;
- the book keeps the site's structure and numbers: the root page becomes an unnumbered first
  chapter under its own title (its sections become sections), every part of ``_toc.yml`` a LaTeX
  part, and a part's chapters are numbered exactly when the part is ``numbered`` in the table of
  contents, so that "Table 8.2" or "Fig. 3.1" reads the same in the PDF as on the site.

For the HTML builder: when ``make pdf`` has built the whole book's PDF (``_build/latex/book.pdf``), the site gets a
copy (``book.pdf`` at its root) and every page's download menu offers it; without it no page links it, so no link is
dead, and every page is written again when the PDF appears or goes.

The LaTeX preamble (fonts for the symbols, the bibliography's heading) is ``bookpdf.sty`` beside
this file, copied into the LaTeX build.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
STYLE = "bookpdf"
"""The LaTeX package of the book's preamble (``bookpdf.sty`` beside this module)."""

_BR = re.compile(r"^\s*<br\s*/?>\s*$", re.IGNORECASE)
_SMALL_OPEN = re.compile(r"^\s*<small>\s*$", re.IGNORECASE)
_SMALL_CLOSE = re.compile(r"^\s*</small>\s*$", re.IGNORECASE)

LINE_BREAK = r"\newline{}"
SMALL_OPEN = r"{\footnotesize{}"
SMALL_CLOSE = "}"


def html_to_latex(html: str) -> str | None:
    """The LaTeX for one raw-HTML fragment of a table cell, or None for one it does not know.

    Parameters
    ----------
    html : str
        The text of a raw node whose format is HTML, such as ``"<br>"``.

    Returns
    -------
    str or None
        ``\\newline{}`` for a line break, an opening ``{\\footnotesize{}`` for ``<small>`` and
        its closing brace for ``</small>``; None for anything else.
    """
    if _BR.match(html):
        return LINE_BREAK
    if _SMALL_OPEN.match(html):
        return SMALL_OPEN
    if _SMALL_CLOSE.match(html):
        return SMALL_CLOSE
    return None


def _is_html(node: nodes.raw) -> bool:
    return "html" in node.get("format", "").split()


def convert_cell_html(tree: nodes.Node) -> int:
    """Turn the raw HTML of every table cell in ``tree`` into LaTeX; return how many were turned.

    A paragraph's ``<small>`` and ``</small>`` are turned together or not at all, so that the
    braces they become always balance; a fragment this does not know is left as it is (the
    LaTeX writer drops raw HTML).

    Parameters
    ----------
    tree : docutils.nodes.Node
        A doctree (or any part of one).

    Returns
    -------
    int
        The number of raw-HTML nodes replaced by raw LaTeX.
    """
    turned = 0
    for entry in list(tree.findall(nodes.entry)):
        for parent in [entry, *entry.findall(nodes.TextElement)]:
            raws = [child for child in parent.children if isinstance(child, nodes.raw) and _is_html(child)]
            latex = [html_to_latex(raw.astext()) for raw in raws]
            if latex.count(SMALL_OPEN) != latex.count(SMALL_CLOSE):
                latex = [None if code in (SMALL_OPEN, SMALL_CLOSE) else code for code in latex]
            for raw, code in zip(raws, latex):
                if code is not None:
                    raw.replace_self(nodes.raw("", code, format="latex"))
                    turned += 1
    return turned


def _cell_lines(entry: nodes.Element) -> list[str]:
    """The lines of a table cell as plain text: paragraphs and LaTeX line breaks end a line.

    Math counts with half its source's length (``\\varepsilon_c`` prints as two characters).
    """
    lines = [""]

    def walk(node):
        if isinstance(node, nodes.raw):
            if node.astext() == LINE_BREAK:
                lines.append("")
        elif isinstance(node, nodes.math):
            lines[-1] += "m" * ((len(node.astext()) + 1) // 2)
        elif isinstance(node, nodes.Text):
            lines[-1] += node.astext().replace("\n", " ")
        else:
            for child in node.children:
                walk(child)
            if isinstance(node, nodes.paragraph) and lines[-1]:
                lines.append("")

    walk(entry)
    return [line.strip() for line in lines if line.strip()] or [""]


def column_widths(cells: list[list[list[str]]], room: int) -> list[int]:
    """Widths in characters for the columns of a table whose cells hold ``cells``, ``room`` in all.

    A table that fits keeps its columns' natural widths (their longest lines). Otherwise every
    column starts as wide as its longest word (up to an equal share of the room) and each further
    character goes to the column where it shortens the table most (:func:`table_height`), or,
    when none does, to the column furthest from its natural width: no column of numbers is
    squeezed to a word per line for the sake of a column of prose.

    Parameters
    ----------
    cells : list of list of list of str
        ``cells[row][column]`` the lines of that cell (:func:`_cell_lines`).
    room : int
        The characters a line of the page holds, less the space between the columns.

    Returns
    -------
    list of int
        One width per column, at least 1.
    """
    ncols = max(len(row) for row in cells)
    natural = [1] * ncols
    longest_word = [1] * ncols
    for row in cells:
        for j, lines in enumerate(row):
            natural[j] = max(natural[j], *(len(line) for line in lines))
            longest_word[j] = max(longest_word[j], *(len(word) for line in lines for word in line.split() or [""]))
    if sum(natural) <= room:
        return natural
    widths = [max(1, min(longest_word[j], natural[j], room // ncols)) for j in range(ncols)]
    height = table_height(cells, widths)
    while sum(widths) < room:
        growable = [j for j in range(ncols) if widths[j] < natural[j]]
        if not growable:
            break
        trials = {j: table_height(cells, widths[:j] + [widths[j] + 1] + widths[j + 1:]) for j in growable}
        best = min(trials.values())
        if best < height:
            j = min((j for j in growable if trials[j] == best), key=lambda j: widths[j] / natural[j])
        else:
            j = min(growable, key=lambda j: widths[j] / natural[j])
        widths[j] += 1
        height = trials[j]
    return widths


def table_height(cells: list[list[list[str]]], widths: list[int]) -> int:
    """The lines a table takes when its columns are ``widths`` characters wide (a rough count)."""
    height = 0
    for row in cells:
        height += max(sum(-(-max(len(line), 1) // widths[j]) for line in lines) for j, lines in enumerate(row))
    return height


LINE_CHARACTERS = 88
"""Characters of a table's text (small DejaVu Serif) that a line of the PDF's text width holds."""
PAGE_LINES = 40
"""Lines of a table beyond which it is set as a longtable, which may break across pages."""


def layout_tables(tree: nodes.Node) -> int:
    """Let every long table break across pages, with column widths from its content; return how many.

    LaTeX's tabulary, which Sphinx uses for a table of up to 30 rows, chooses good column
    widths but cannot break across pages: a table of a few tall rows runs past the page's foot.
    A table whose rough height (:func:`table_height`) exceeds :data:`PAGE_LINES` lines becomes a
    longtable, with the widths tabulary would choose (:func:`column_widths`) given to its columns.

    Parameters
    ----------
    tree : docutils.nodes.Node
        A doctree.

    Returns
    -------
    int
        The number of tables set as longtables.
    """
    done = 0
    for table in list(tree.findall(nodes.table)):
        tgroup = table.next_node(nodes.tgroup)
        if tgroup is None:
            continue
        colspecs = [c for c in tgroup.children if isinstance(c, nodes.colspec)]
        rows = [[_cell_lines(entry) for entry in row.findall(nodes.entry)] for row in tgroup.findall(nodes.row)]
        if not rows or any(len(row) != len(colspecs) for row in rows):
            continue  # merged cells: left to Sphinx
        room = LINE_CHARACTERS - 2 * len(colspecs)
        widths = column_widths(rows, room)
        if table_height(rows, widths) <= PAGE_LINES:
            continue
        for colspec, width in zip(colspecs, widths):
            colspec["colwidth"] = width
        table["classes"] = [c for c in table["classes"] if c != "colwidths-auto"] + ["longtable", "colwidths-given"]
        done += 1
    return done


def drop_hidden_inputs(tree: nodes.Node) -> int:
    """Remove the input of every notebook cell tagged ``hide-input``; return how many were removed.

    Parameters
    ----------
    tree : docutils.nodes.Node
        A doctree with MyST-NB's cell containers (classes ``cell``, ``tag_hide-input``,
        ``cell_input``).

    Returns
    -------
    int
        The number of cell inputs removed.
    """
    removed = 0
    for cell in list(tree.findall(nodes.container)):
        if "tag_hide-input" not in cell.get("classes", []):
            continue
        for child in list(cell.children):
            if isinstance(child, nodes.container) and "cell_input" in child.get("classes", []):
                cell.remove(child)
                removed += 1
    return removed


def typeset_proofs(tree: nodes.Node) -> int:
    """Set every sphinx-proof proof as a book sets one; return how many were set.

    sphinx-proof writes a proof as an admonition without a title, which the LaTeX writer turns
    into a box with an empty heading. Here the proof becomes a plain block (class ``proof``): its
    opening "Proof." in italics, a square at its end.

    Parameters
    ----------
    tree : docutils.nodes.Node
        A doctree with sphinx-proof's proof admonitions (classes ``proof``, no title).

    Returns
    -------
    int
        The number of proofs set.
    """
    done = 0
    for admonition in list(tree.findall(nodes.admonition)):
        if "proof" not in admonition.get("classes", []) or admonition.next_node(nodes.title) is not None:
            continue
        block = nodes.container("", classes=["proof"], ids=list(admonition.get("ids", [])))
        block.extend(admonition.children)
        first = block.next_node(nodes.paragraph)
        if first is not None and first.children and isinstance(first[0], nodes.Text):
            text = first[0].astext()
            if text.startswith("Proof."):
                first.remove(first[0])
                first.insert(0, nodes.Text(text[len("Proof."):]))
                first.insert(0, nodes.emphasis("", "Proof."))
        last = block.children[-1] if block.children else None
        mark = nodes.raw("", r"\nobreak\hfill\ensuremath{\square}", format="latex")
        if isinstance(last, nodes.paragraph):
            last += mark
        else:
            block += nodes.paragraph("", "", mark)
        admonition.replace_self(block)
        done += 1
    return done


def unbox_solutions(tree: nodes.Node, registry: dict) -> int:
    """Set every solution of an exercise (sphinx-exercise) as text under a bold heading; return how many.

    In LaTeX a solution is a framed box, and a code block inside a frame cannot break across
    pages: a solution with a long cell ran past the page's foot. Unboxed, it breaks like the text.
    The label sphinx-exercise gives the solution is kept.

    Parameters
    ----------
    tree : docutils.nodes.Node
        A doctree.
    registry : dict
        sphinx-exercise's registry (``env.sphinx_exercise_registry``): label -> node, with its
        ``docname``.

    Returns
    -------
    int
        The number of solutions unboxed.
    """
    try:
        from sphinx_exercise.nodes import solution_node
    except ImportError:
        return 0
    done = 0
    for node in list(tree.findall(solution_node)):
        title = node.next_node(nodes.title)
        block = nodes.container("", classes=["solution"], ids=list(node.get("ids", [])))
        label = node.get("label", "")
        docname = registry.get(label, {}).get("docname") if label else None
        if docname:
            block += _latex(rf"\phantomsection\label{{{docname}:{label}}}")
        if title is not None:
            heading = nodes.strong("", "", *[c.deepcopy() for c in title.children])
            for ref in list(heading.findall(nodes.reference)):
                # the exercise's label in LaTeX is exercise:<label> (sphinx-exercise's own convention)
                target = ref.get("refid") or ref.get("refuri", "").rpartition("#")[2]
                if target:
                    children = list(ref.children)
                    # a space that opens the link's text ("Solution to| Exercise 1.1") goes before it:
                    # LaTeX drops it inside \hyperref's argument
                    space = []
                    if children and isinstance(children[0], nodes.Text) and children[0].astext()[:1].isspace():
                        children[0] = nodes.Text(children[0].astext().lstrip())
                        space = [nodes.Text(" ")]
                    ref.replace_self([*space, _inline_latex(rf"\hyperref[exercise:{target}]{{"), *children,
                                      _inline_latex("}")])
            block += nodes.paragraph("", "", heading)
        block.extend([child for child in node.children if child is not title])
        node.replace_self(block)
        done += 1
    return done


def _inline_latex(code: str) -> nodes.raw:
    return nodes.raw("", code, format="latex")


def _latex(code: str) -> nodes.raw:
    return nodes.raw("", code + "\n", format="latex")


def _escape(text: str) -> str:
    """``text`` for a LaTeX argument (a part's caption)."""
    special = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
               "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
    return "".join(special.get(c, c) for c in text)


def secnumdepth(numbered) -> int:
    """LaTeX's ``secnumdepth`` for a part whose ``numbered`` option in ``_toc.yml`` is ``numbered``.

    Parameters
    ----------
    numbered : bool or int
        ``False`` (the chapters unnumbered), ``True`` (every level numbered) or a depth
        (``1``: the chapters only; ``2``: chapters and their sections; ...).

    Returns
    -------
    int
        ``-1`` for none, else the depth minus one (``0`` numbers chapters), at most 5.
    """
    if numbered is True:
        return 5
    if not numbered:
        return -1
    return min(int(numbered), 6) - 1


def structure_book(tree: nodes.document, site_map, root_doc: str) -> list[str]:
    """Give the assembled book the site's structure and numbering; return what it did.

    The root document's top section keeps its (skipped) title; everything else in it but the
    table-of-contents wrappers moves into a new section titled like the root page, an unnumbered
    first chapter. Before each part's first chapter come ``\\part{caption}`` and the
    ``secnumdepth`` its ``numbered`` option asks for (:func:`secnumdepth`).

    Parameters
    ----------
    tree : docutils.nodes.document
        The doctree the LaTeX builder assembled (``start_of_file`` nodes mark the chapters).
    site_map : sphinx_external_toc.api.SiteMap or None
        The table of contents (``app.config.external_site_map``).
    root_doc : str
        The root document's name.

    Returns
    -------
    list of str
        One line per change, for the build's log.
    """
    done = []
    top = next((s for s in tree.findall(nodes.section)), None)
    if top is None or site_map is None:
        return done
    title = top.next_node(nodes.title)
    wrappers = [c for c in top.children if isinstance(c, nodes.compound) and "toctree-wrapper" in c["classes"]]
    moved = [c for c in top.children if not isinstance(c, nodes.title) and c not in wrappers]
    if moved and title is not None:
        intro = nodes.section("", ids=[f"{root_doc.replace('/', '-')}-chapter"], names=[])
        intro += nodes.title("", "", *[child.deepcopy() for child in title.children])
        for child in moved:
            top.remove(child)
            intro += child
        at = top.index(title) + 1
        top.insert(at, intro)
        top.insert(at, _latex(r"\setcounter{secnumdepth}{-1}"))
        done.append(f"{root_doc}: an unnumbered first chapter of {len(moved)} elements")
    starts = {node["docname"]: node for node in tree.findall(addnodes.start_of_file)}
    for subtree in site_map[root_doc].subtrees:
        first = next((starts[d] for d in subtree.files() if d in starts), None)
        if first is None:
            continue
        depth = secnumdepth(subtree.numbered)
        caption = subtree.caption
        code = (rf"\part{{{_escape(caption)}}}" + "\n" if caption else "") + rf"\setcounter{{secnumdepth}}{{{depth}}}"
        first.parent.insert(first.parent.index(first), _latex(code))
        done.append(f"part {caption!r}: chapters {'numbered' if depth >= 0 else 'unnumbered'}")
    return done


class LatexBook(SphinxPostTransform):
    """The LaTeX builder's changes to the book (see the module's docstring)."""

    default_priority = 900
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        cells = convert_cell_html(self.document)
        inputs = drop_hidden_inputs(self.document)
        proofs = typeset_proofs(self.document)
        tables = layout_tables(self.document)
        solutions = unbox_solutions(self.document, getattr(self.env, "sphinx_exercise_registry", {}))
        if not any(True for _ in self.document.findall(addnodes.start_of_file)):
            return  # a single document, not the assembled book
        structure = structure_book(self.document, getattr(self.config, "external_site_map", None),
                                   self.config.root_doc)
        logger.info("[book_pdf] %d table-cell HTML fragments as LaTeX, %d hidden cell inputs left out, %d proofs, "
                    "%d long tables, %d solutions; %s", cells, inputs, proofs, tables, solutions,
                    "; ".join(structure))


def copy_style(app) -> None:
    """Copy the preamble's package into the LaTeX build."""
    if app.builder.format == "latex":
        Path(app.outdir).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(HERE / f"{STYLE}.sty", Path(app.outdir) / f"{STYLE}.sty")


def pdf_source(app) -> Path:
    """Where ``make pdf`` leaves the book's PDF: ``<build>/latex/<book_pdf>``."""
    return Path(app.outdir).parent / "latex" / app.config.book_pdf


def add_pdf_download(app, pagename, templatename, context, doctree) -> None:
    """Offer the whole book's PDF in the page's download menu (sphinx-book-theme's header buttons), when ``make pdf``
    has built it: the site never links a PDF it does not hold (:func:`copy_pdf` copies it in)."""
    if not pdf_source(app).exists():
        return
    for button in context.get("header_buttons", []):
        if button.get("label") == "download-buttons":
            button["buttons"].append({
                "type": "link",
                "url": context["pathto"](app.config.book_pdf, 1),
                "text": "book .pdf",
                "tooltip": "Download the whole book as a PDF",
                "icon": "fas fa-book",
                "label": "download-book-pdf-button",
            })


def relink_when_the_pdf_changes(app, env, added, changed, removed) -> list:
    """Every page again when the PDF has appeared or gone since the last build: each page's download menu links it
    only when it exists (Sphinx would otherwise keep the pages it wrote before)."""
    present = pdf_source(app).exists()
    if getattr(env, "book_pdf_present", None) == present:
        return []
    env.book_pdf_present = present
    return sorted(env.found_docs - set(added) - set(changed) - set(removed))


def copy_pdf(app, exception) -> None:
    """Copy the built PDF into the site, when there is one."""
    if exception is not None or app.builder.format != "html":
        return
    source = pdf_source(app)
    if source.exists():
        shutil.copyfile(source, Path(app.outdir) / app.config.book_pdf)
        logger.info("[book_pdf] copied %s into the site", source)
    else:
        logger.info("[book_pdf] no %s yet, so no page links it: `make pdf`, then `make book`, adds it", source)


def setup(app):
    """Register the transform, the preamble's package and the site's link to the PDF."""
    app.add_config_value("book_pdf", "book.pdf", "html")
    app.add_post_transform(LatexBook)
    app.add_latex_package(STYLE)
    app.connect("builder-inited", copy_style)
    # after sphinx-book-theme has built the menu (priority 501)
    app.connect("html-page-context", add_pdf_download, priority=502)
    app.connect("env-get-outdated", relink_when_the_pdf_changes)
    app.connect("build-finished", copy_pdf)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
