"""The PDF's helpers: the Sphinx extension ``_ext/book_pdf.py`` and the checks of ``tools/check_pdf.py``."""

import json
import sys
from pathlib import Path

import pytest
from docutils import nodes
from sphinx import addnodes

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "_ext"), str(ROOT / "tools")]

import book_pdf
import check_pdf


def _cell(*children):
    return nodes.entry("", nodes.paragraph("", "", *children))


def _html(text):
    return nodes.raw("", text, format="html")


def _table(rows):
    tgroup = nodes.tgroup(cols=len(rows[0]))
    tgroup += [nodes.colspec(colwidth=1) for _ in rows[0]]
    body = nodes.tbody()
    for row in rows:
        body += nodes.row("", *[_cell(nodes.Text(text)) for text in row])
    tgroup += body
    return nodes.table("", tgroup)


# --- _ext/book_pdf.py ----------------------------------------------------------------------------

def test_html_fragments_of_a_cell_become_latex():
    assert book_pdf.html_to_latex("<br>") == book_pdf.LINE_BREAK
    assert book_pdf.html_to_latex("<br/>") == book_pdf.LINE_BREAK
    assert book_pdf.html_to_latex("<small>") == book_pdf.SMALL_OPEN
    assert book_pdf.html_to_latex("</small>") == book_pdf.SMALL_CLOSE
    assert book_pdf.html_to_latex("<sup>") is None


def test_a_rebuilt_cell_keeps_its_two_lines():
    # the cell the rendering writes: **rebuilt**<br><small>published ✓</small>
    entry = _cell(nodes.strong("", "1.17 × 10⁵"), _html("<br>"), _html("<small>"), nodes.Text("1.19 × 10⁵ ✓"),
                  _html("</small>"))
    table = nodes.table("", nodes.tgroup("", nodes.tbody("", nodes.row("", entry))))
    assert book_pdf.convert_cell_html(table) == 3
    raws = [n for n in table.findall(nodes.raw)]
    assert [r["format"] for r in raws] == ["latex"] * 3
    assert [r.astext() for r in raws] == [book_pdf.LINE_BREAK, book_pdf.SMALL_OPEN, book_pdf.SMALL_CLOSE]


def test_an_unbalanced_small_is_left_alone_and_html_outside_tables_too():
    entry = _cell(nodes.Text("a"), _html("<br>"), _html("<small>"), nodes.Text("b"))
    outside = nodes.paragraph("", "", _html("<br>"))
    tree = nodes.section("", nodes.table("", nodes.tgroup("", nodes.tbody("", nodes.row("", entry)))), outside)
    assert book_pdf.convert_cell_html(tree) == 1  # the <br>, not the lone <small>
    assert outside[0]["format"] == "html"


def test_hidden_inputs_are_left_out_and_their_outputs_kept():
    def cell(tags):
        return nodes.container("", nodes.container("", classes=["cell_input"]),
                               nodes.container("", classes=["cell_output"]), classes=["cell", *tags])

    tree = nodes.section("", cell(["tag_hide-input"]), cell([]))
    assert book_pdf.drop_hidden_inputs(tree) == 1
    hidden, shown = tree.children
    assert [c["classes"] for c in hidden.children] == [["cell_output"]]
    assert len(shown.children) == 2


def test_a_proof_reads_as_in_a_book():
    proof = nodes.admonition("", nodes.paragraph("", "Proof. Trivially."), classes=["proof", "proof"])
    tree = nodes.section("", proof)
    assert book_pdf.typeset_proofs(tree) == 1
    block = tree[0]
    assert isinstance(block, nodes.container) and block["classes"] == ["proof"]
    paragraph = block[0]
    assert isinstance(paragraph[0], nodes.emphasis) and paragraph[0].astext() == "Proof."
    assert paragraph[1].astext() == " Trivially."
    assert "square" in paragraph[-1].astext()
    titled = nodes.admonition("", nodes.title("", "Note"), nodes.paragraph("", "x"), classes=["proof"])
    assert book_pdf.typeset_proofs(nodes.section("", titled)) == 0


@pytest.mark.parametrize("numbered, depth", [(False, -1), (None, -1), (1, 0), (2, 1), (True, 5), (9, 5)])
def test_secnumdepth_follows_the_toc(numbered, depth):
    assert book_pdf.secnumdepth(numbered) == depth


def test_column_widths_like_tabulary():
    # a table that fits keeps its natural widths
    assert book_pdf.column_widths([[["a"], ["bb"], ["ccc"]]], 80) == [1, 2, 3]
    # one long column takes the room the short ones leave
    widths = book_pdf.column_widths([[["x"], ["y" * 10], ["z " * 100]]], 80)
    assert widths[:2] == [1, 10] and widths[2] == 69
    # no column narrower than its longest word
    widths = book_pdf.column_widths([[["word " * 60], ["identifier_of_twenty"]]], 40)
    assert widths[1] >= 20


def test_only_a_table_taller_than_a_page_becomes_a_longtable():
    short = _table([["a", "b"]] * 5)
    tall = _table([["claim " * 40, "rule " * 40, "verdict " * 40]] * 12)
    tree = nodes.section("", short, tall)
    assert book_pdf.layout_tables(tree) == 1
    assert "longtable" not in short["classes"]
    assert {"longtable", "colwidths-given"} <= set(tall["classes"])
    assert all(c["colwidth"] >= 1 for c in tall.findall(nodes.colspec))


def test_cell_lines_split_at_line_breaks_and_paragraphs():
    entry = nodes.entry("", nodes.paragraph("", "", nodes.Text("first"), nodes.raw("", book_pdf.LINE_BREAK,
                                                                                      format="latex"),
                                            nodes.Text("second")),
                        nodes.paragraph("", "third"))
    assert book_pdf._cell_lines(entry) == ["first", "second", "third"]


class _Part:
    def __init__(self, caption, numbered, files):
        self.caption, self.numbered, self._files = caption, numbered, files

    def files(self):
        return self._files


class _SiteMap:
    def __init__(self, parts):
        self.parts = parts

    def __getitem__(self, docname):
        return type("Doc", (), {"subtrees": self.parts})()


def test_the_book_gets_the_site_structure():
    def chapter(name):
        return addnodes.start_of_file("", nodes.section("", nodes.title("", name)), docname=name)

    top = nodes.section("", nodes.title("", "The book"), nodes.paragraph("", "Welcome."),
                        nodes.section("", nodes.title("", "How to read it")),
                        nodes.compound("", chapter("a"), chapter("b"), classes=["toctree-wrapper"]),
                        nodes.compound("", chapter("refs"), classes=["toctree-wrapper"]))
    tree = nodes.document(None, None)
    tree += top
    site = _SiteMap([_Part("Part one", 1, ["a", "b"]), _Part("Back matter", False, ["refs"])])
    done = book_pdf.structure_book(tree, site, "intro")
    assert len(done) == 3
    intro = top[2]
    assert isinstance(intro, nodes.section) and intro[0].astext() == "The book"
    assert [type(c) for c in intro.children[1:]] == [nodes.paragraph, nodes.section]
    assert top[1].astext().strip() == r"\setcounter{secnumdepth}{-1}"
    latex = [r.astext().strip() for r in tree.findall(nodes.raw)]
    assert latex[1:] == ["\\part{Part one}\n\\setcounter{secnumdepth}{0}",
                         "\\part{Back matter}\n\\setcounter{secnumdepth}{-1}"]


def test_a_part_caption_is_escaped():
    assert book_pdf._escape("50% & $x_1$") == r"50\% \& \$x\_1\$"


# --- tools/check_pdf.py --------------------------------------------------------------------------

def test_every_toc_file_has_a_title():
    files = check_pdf.toc_files()
    assert files[0].name == "intro.md"
    assert all(check_pdf.title_of(path) for path in files)


def test_title_fragments_leave_math_and_markup_out():
    assert check_pdf.title_fragments("How large can $\\bar\\theta$ be?") == ["How large can", "be?"]
    assert check_pdf.title_fragments("Choosing λ") == ["Choosing λ"]
    assert check_pdf.title_fragments("The `pdp_lib` *library*") == ["The pdp_lib library"]


def test_contains_sees_through_line_breaks_and_hyphens():
    text = "the band is 8.54 × 10² wide and non- personalized"
    assert check_pdf.contains(text, "8.54 × 10²")
    assert check_pdf.contains(text, "non-personalized")
    assert not check_pdf.contains(text, "8.55 × 10²")


def _notebook(tmp_path, markdown, glued):
    outputs = [{"output_type": "display_data", "metadata": {"scrapbook": {
        "name": name, "mime_prefix": "application/papermill.record/"}},
        "data": {f"application/papermill.record/{mime}": value for mime, value in bundle.items()}}
        for name, bundle in glued.items()]
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [{"cell_type": "markdown", "metadata": {}, "source": markdown},
                    {"cell_type": "code", "metadata": {}, "source": "", "execution_count": 1,
                     "outputs": outputs}]}
    path = tmp_path / "chapter.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def test_glued_texts_are_formatted_as_myst_nb_formats_them(tmp_path):
    path = _notebook(tmp_path, "# A chapter\n\n{glue:text}`runs:,d` runs; {glue:text}`loss`; "
                               "{glue:text}`share:.1%`.",
                     {"runs": {"text/plain": "10000"}, "loss": {"text/plain": "'8.54 × 10²'"},
                      "share": {"text/plain": "0.256"}})
    assert check_pdf.title_of(path) == "A chapter"
    assert check_pdf.glued_texts(path) == [("runs:,d", "10,000"), ("loss", "8.54 × 10²"), ("share:.1%", "25.6%")]


def test_a_missing_glue_is_an_error(tmp_path):
    path = _notebook(tmp_path, "# T\n\n{glue:text}`nowhere`", {})
    with pytest.raises(LookupError):
        check_pdf.glued_texts(path)


def test_figures_are_counted_in_the_prose_and_in_pasted_markdown(tmp_path):
    figure = "```{glue:figure} f_plot\n:name: fig-f\n\nCaption\n```"
    path = _notebook(tmp_path, f"# T\n\n{figure}\n\n```{{glue:md}} f_figure\n```\n\n{{glue:md}}`g_figure:myst`",
                     {"f_figure": {"text/markdown": figure}, "g_figure": {"text/markdown": figure + "\n" + figure},
                      "unused": {"text/markdown": figure}})
    assert check_pdf.figure_count([path]) == 4


def test_the_log_check_finds_undefined_references(tmp_path):
    log = tmp_path / "book.log"
    log.write_text("LaTeX Warning: Reference `book/x:tab-a' on page 3 undefined on input line 9.\n"
                   "Missing character: There is no ✓ in font DejaVu Serif!\n", encoding="utf-8")
    problems = check_pdf.log_problems(log)
    assert any("book/x:tab-a" in p for p in problems)
    assert any("✓" in p for p in problems)
    log.write_text("Output written on book.xdv (213 pages).\n", encoding="utf-8")
    assert check_pdf.log_problems(log) == []


def test_a_solution_is_unboxed_under_a_heading_that_links_its_exercise():
    from sphinx_exercise.nodes import solution_node

    title = nodes.title("", "", nodes.Text("Solution to"),
                        nodes.reference("", "", nodes.Text(" Exercise 1.1 (By hand)"), refid="ex-hand"))
    solution = solution_node("", title, nodes.paragraph("", "The levels sum to six."), label="sol-hand")
    tree = nodes.section("", solution)
    assert book_pdf.unbox_solutions(tree, {"sol-hand": {"docname": "book/mechanism"}}) == 1
    block = tree[0]
    assert isinstance(block, nodes.container) and block["classes"] == ["solution"]
    assert block[0].astext().strip() == r"\phantomsection\label{book/mechanism:sol-hand}"
    heading = block[1][0]
    assert isinstance(heading, nodes.strong)
    parts = [child.astext() for child in heading.children]
    assert parts == ["Solution to", " ", r"\hyperref[exercise:ex-hand]{", "Exercise 1.1 (By hand)", "}"]
    assert block[2].astext() == "The levels sum to six."


# --- the site's link to the PDF --------------------------------------------------------------------------------------

class _App:
    def __init__(self, root):
        self.outdir = str(root / "html")
        self.config = type("Config", (), {"book_pdf": "book.pdf"})()


def _menu():
    return {"header_buttons": [{"label": "download-buttons", "buttons": []}], "pathto": lambda name, _: f"../{name}"}


def test_no_page_links_a_pdf_the_site_does_not_hold(tmp_path):
    app = _App(tmp_path)
    context = _menu()
    book_pdf.add_pdf_download(app, "intro", "page.html", context, None)
    assert context["header_buttons"][0]["buttons"] == []                  # no PDF built: no link
    (tmp_path / "latex").mkdir()
    (tmp_path / "latex" / "book.pdf").write_bytes(b"%PDF-1.5\n")
    book_pdf.add_pdf_download(app, "intro", "page.html", context, None)
    assert [b["url"] for b in context["header_buttons"][0]["buttons"]] == ["../book.pdf"]


def test_every_page_is_written_again_when_the_pdf_appears_or_goes(tmp_path):
    app = _App(tmp_path)
    env = type("Env", (), {"found_docs": {"a", "b", "c"}})()
    assert book_pdf.relink_when_the_pdf_changes(app, env, {"a"}, set(), set()) == ["b", "c"]   # first build
    assert book_pdf.relink_when_the_pdf_changes(app, env, set(), set(), set()) == []           # nothing changed
    (tmp_path / "latex").mkdir()
    (tmp_path / "latex" / "book.pdf").write_bytes(b"%PDF-1.5\n")
    assert book_pdf.relink_when_the_pdf_changes(app, env, set(), {"b"}, set()) == ["a", "c"]   # the PDF appeared


def test_aux_numbers_read_the_anchor_past_braces_in_a_caption(tmp_path):
    aux = tmp_path / "book.aux"
    aux.write_text(
        "\\newlabel{book/a:fig-x}{{18.1}{289}{loss \\DUrole {pasted-text}{1.02} times the mean's}{figure.18.1}{}}\n"
        "\\newlabel{book/a:tab-y}{{8.1}{127}{Table 1 of the paper}{table.8.1}{}}\n"
        "\\newlabel{equation:book/a:eq-z}{{2.1}{20}{}{equation.2.1}{}}\n"
        "\\newlabel{book/a:sec}{{2}{20}{A section}{section.2}{}}\n", encoding="utf-8")
    assert check_pdf.aux_numbers(aux) == {"book/a:fig-x": ("figure", "18.1"), "book/a:tab-y": ("table", "8.1"),
                                          "book/a:eq-z": ("equation", "2.1")}
