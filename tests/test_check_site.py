"""Negative controls for ``tools/check_site.py``'s static checks of the built site.

Each check is run on a tiny site written to a temporary folder: it must fire on the bad page and stay
silent on the good one, so that a check that stopped looking would fail here, not pass on the book.
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tools")]

import check_site  # noqa: E402

PNG = "../_images/3f2a9c.png"
GOOD_FIGURE = (f'<figure class="align-default" id="fig-a"><img alt="A line chart of the loss against lambda." '
               f'src="{PNG}" /><figcaption><p><span class="caption-number">Fig. 1.1 </span>Caption</p>'
               '</figcaption></figure>')


def page(body: str) -> str:
    return f"<!DOCTYPE html><html><head><title>t</title></head><body>{body}</body></html>"


def site(tmp_path: Path, body: str) -> Path:
    """A site of one chapter page holding ``body``, the image it shows and the pages it links."""
    (tmp_path / "book").mkdir()
    (tmp_path / "_images").mkdir()
    (tmp_path / "_images" / "3f2a9c.png").write_bytes(b"\x89PNG")
    (tmp_path / "index.html").write_text(page('<a href="book/chapter.html">Chapter</a>'), encoding="utf-8")
    (tmp_path / "book" / "other.html").write_text(page('<h1 id="top">Other</h1>'), encoding="utf-8")
    (tmp_path / "searchindex.js").write_text("Search.setIndex({})", encoding="utf-8")
    heading = '<h1><span class="section-number">1. </span>Chapter</h1>'
    (tmp_path / "book" / "chapter.html").write_text(page(heading + body + GOOD_FIGURE.replace("fig-a", "fig-z")),
                                                    encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("img", [
    f'<img src="{PNG}" />',                                     # no alt at all
    f'<img alt="" src="{PNG}" />',                              # empty
    f'<img alt="  " src="{PNG}" />',                            # blank
    f'<img alt="{PNG}" src="{PNG}" />',                         # the path (Sphinx's default)
    f'<img alt="3f2a9c.png" src="{PNG}" />',                    # the file name
    f'<img alt="3f2a9c" src="{PNG}" />',                        # the file name's stem
    f'<img alt="comparison.svg" src="{PNG}" />',                # another file name
    f'<img alt="Figure and/or plot" src="{PNG}" />',            # a slash
])
def test_an_image_in_a_figure_without_a_real_alt_text_fails(tmp_path, img):
    for wrap in ('<figure id="fig-a">{}</figure>', '<div class="figure align-center" id="fig-a">{}</div>',
                 '<figure id="fig-a"><div class="cell_output"><p>{}</p></div></figure>'):
        problems = check_site.figure_and_link_problems(page(wrap.format(img)))
        assert len(problems) == 1 and problems[0].startswith("figure fig-a: image"), problems
    root = site(tmp_path, f'<figure id="fig-a">{img}</figure>')
    found = check_site.check_figures_and_links(root)
    assert found and all(p.startswith("book/chapter.html: figure fig-a: image") for p in found)
    assert check_site.main(["--html", str(root)]) == 1


def test_a_described_image_and_an_image_outside_a_figure_pass(tmp_path):
    body = GOOD_FIGURE + f'<p><img alt="{PNG}" src="{PNG}" /></p>'     # outside a figure: not checked
    assert check_site.figure_and_link_problems(page(body)) == []
    root = site(tmp_path, body + '<p><a href="other.html#top">Other</a></p>')
    assert check_site.check_figures_and_links(root) == []
    assert check_site.check_links(root) == []
    assert check_site.main(["--html", str(root)]) == 0


def test_a_figure_after_a_closed_figure_is_still_checked_and_text_after_it_is_not():
    body = (GOOD_FIGURE + f'<figure id="fig-b"><img alt="" src="{PNG}" /></figure>'
            f'<p><img alt="" src="{PNG}" /></p>')
    assert check_site.figure_and_link_problems(page(body)) == ["figure fig-b: image has no alt text"]


@pytest.mark.parametrize("text", [
    "Under (\\varepsilon_i, \\delta): Gaussian statistics",
    "Under $(\\varepsilon_i, \\delta)$: Gaussian statistics",
    "the bound <em>\\bar\\theta</em>",
    "costs $5",
])
def test_a_link_whose_text_shows_raw_latex_fails(tmp_path, text):
    link = f'<a class="reference internal" href="#sec-x"><span class="std std-ref">{text}</span></a>'
    problems = check_site.figure_and_link_problems(page(f'<p id="sec-x">{link}</p>'))
    assert len(problems) == 1 and problems[0].startswith("link to #sec-x: its text shows raw LaTeX"), problems
    root = site(tmp_path, f'<h2 id="sec-x">X</h2><p>{link}</p>')
    assert [p.split(":")[0] for p in check_site.check_figures_and_links(root)] == ["book/chapter.html"]
    assert check_site.main(["--html", str(root)]) == 1


def test_plain_link_text_and_typeset_math_in_a_link_pass():
    body = ('<p id="sec-x"><a href="#sec-x">Under (ε_i, δ): Gaussian statistics and a private ridge</a> '
            '<a href="#sec-x">Calibrating PDP-OP for <span class="math notranslate nohighlight">'
            '\\((\\varepsilon_i, \\delta)\\)</span></a> <a href="#sec-x">costs 5 dollars, 5\\6</a></p>')
    assert check_site.figure_and_link_problems(page(body)) == []


@pytest.mark.parametrize("href", ["missing.html", "missing.html#top", "../_images/missing.png", "sub/other.html"])
def test_a_local_link_to_a_missing_file_fails(tmp_path, href):
    root = site(tmp_path, f'<p><a href="{href}">Somewhere</a></p>')
    assert check_site.check_links(root) == [f"book/chapter.html: broken link {href}"]
    assert check_site.main(["--html", str(root)]) == 1


@pytest.mark.parametrize("href", ["other.html", "other.html#top", "#here", "../index.html", "https://example.org/x",
                                  "mailto:someone@example.org"])
def test_links_to_existing_files_anchors_and_other_sites_pass(tmp_path, href):
    root = site(tmp_path, f'<p id="here"><a href="{href}">Somewhere</a></p>')
    assert check_site.check_links(root) == []


def test_a_site_without_any_figure_fails_the_alt_text_check(tmp_path):
    root = site(tmp_path, "<p>No figure here.</p>")
    (root / "book" / "chapter.html").write_text(page('<h1><span class="section-number">1. </span>Chapter</h1>'
                                                     '<p><span class="caption-number">Table 1.1 </span></p>'),
                                                encoding="utf-8")
    assert check_site.figure_and_link_counts(root)[0] == 0
    assert check_site.main(["--html", str(root)]) == 1


# The layout verdicts (tools/check_site.py --layout) on fake layout reports, as the layout script writes them
# from Chromium: a text column from 16 to 374 px (a phone, 390 px wide).

COLUMN = (16.0, 374.0)


def box(left, right, overflow="hidden", own=False, what="div.math", top=0.0, bottom=100.0):
    return {"what": what, "overflow_x": overflow, "overflow_y": overflow, "left": left, "right": right,
            "top": top, "bottom": bottom, "own": own}


def display(left, right, *boxes, top=10.0, bottom=50.0, name="(2.1) in #equation-eq-x: A=..."):
    return {"name": name, "left": left, "right": right, "top": top, "bottom": bottom, "boxes": list(boxes)}


OWN = box(16, 374, "auto", own=True, what="mjx-container.MathJax")
WRAPPER = box(16, 374, "hidden", own=True)


def report(displays=(), tables=(), captions=()):
    return {"text_column": list(COLUMN), "display_geometry": list(displays), "table_geometry": list(tables),
            "captions": list(captions), "wide": [], "code": [], "math": [], "math_sources": 1, "displays": 1,
            "images": [], "tables": len(tables), "height": 2_000,
            "numbers": 0, "broken_numbers": []}


def test_a_display_that_fits_its_column_is_fine():
    assert check_site.overflow_state(display(20, 300, OWN, WRAPPER), COLUMN)["state"] == "fits"
    counts, problems, scrolling = check_site.display_table_caption_problems(report([display(20, 300, OWN, WRAPPER)]))
    assert (problems, scrolling) == ([], []) and counts["displays scrolling in their box"] == 0


def test_a_display_wider_than_its_scrolling_box_scrolls_and_is_counted_not_failed():
    d = display(16, 600, OWN, WRAPPER)
    st = check_site.overflow_state(d, COLUMN)
    assert st["state"] == "scrolls" and st["own"] and st["box"] == "mjx-container.MathJax"
    counts, problems, scrolling = check_site.display_table_caption_problems(report([d]))
    assert problems == [] and len(scrolling) == 1 and scrolling[0].startswith("display equation (2.1)")
    assert counts["displays scrolling in their box"] == 1


@pytest.mark.parametrize("d", [
    display(16, 600, box(16, 374, "visible", own=True, what="mjx-container.MathJax"), WRAPPER),  # cut by div.math
    display(16, 600, box(16, 600, "auto", own=True, what="mjx-container.MathJax"), WRAPPER),   # its box is cut
    display(-15, 300, OWN, WRAPPER),                           # a line left of its scrolling box: out of reach
    display(16, 300, OWN, WRAPPER, top=-30, bottom=50),        # taller than its box, which hides the overflow
])
def test_a_cut_display_fails(d):
    d["boxes"] = [b for b in d["boxes"] if b["overflow_x"] != "visible"]
    assert check_site.overflow_state(d, COLUMN)["state"] == "clipped"
    counts, problems, scrolling = check_site.display_table_caption_problems(report([d]))
    assert len(problems) == 1 and problems[0].startswith("display equation (2.1) in #equation-eq-x: A=...: clipped")
    assert scrolling == []


def test_a_display_past_the_text_column_fails():
    for d in (display(16, 500),                                          # nothing cuts it: it runs past
              display(16, 500, box(16, 500, "auto", own=True, what="mjx-container.MathJax"))):  # its box does
        st = check_site.overflow_state(d, COLUMN)
        assert st["state"] == "past the column" and "126 px past the text column" in st["why"]
        problems = check_site.display_table_caption_problems(report([d]))[1]
        assert len(problems) == 1 and "past the column" in problems[0]


def test_a_display_that_scrolls_with_another_box_than_its_own_fails():
    d = display(16, 600, box(16, 374, "auto", what="div.output"))
    problems = check_site.display_table_caption_problems(report([d]))[1]
    assert len(problems) == 1 and "scrolls with div.output, not in its own box" in problems[0]


def test_the_number_of_scrolling_displays_is_bounded_at_each_width():
    assert check_site.scrolling_verdict(1280, []) == []
    assert check_site.scrolling_verdict(1280, ["x at 1280 px: display equation (7.1)"])[0].startswith(
        "at 1280 px 1 display equation(s) scroll sideways inside their box (at most 0)")
    allowed = check_site.MAX_SCROLLING_DISPLAYS[390]
    assert allowed <= 5   # the bound: at most five displays scroll on a phone
    assert check_site.scrolling_verdict(390, ["d"] * allowed) == []
    assert "(at most %d)" % allowed in check_site.scrolling_verdict(390, ["d"] * (allowed + 1))[0]


def table(left, right, *boxes, name="tab-x"):
    return {"name": name, "left": left, "right": right, "boxes": list(boxes)}


def test_a_wide_table_that_scrolls_in_a_box_inside_the_column_passes_and_one_that_does_not_fails():
    scroller = box(16, 374, "auto", what="div.pst-scrollable-table-container")
    counts, problems, _ = check_site.display_table_caption_problems(report(tables=[table(16, 700, scroller),
                                                                                   table(16, 300)]))
    assert problems == [] and counts["tables scrolling"] == 1
    for bad in (table(16, 700), table(16, 700, box(16, 374, "hidden", what="div.output")),
                table(16, 700, box(16, 700, "auto", what="div.pst-scrollable-table-container"))):
        problems = check_site.display_table_caption_problems(report(tables=[bad]))[1]
        assert len(problems) == 1 and problems[0].startswith("table tab-x: "), problems


def caption(left, right, moved=0.0, *boxes, name="tab-x, Table 15.1 The benchmark's tables"):
    return {"name": name, "left": left, "right": right, "moved": moved,
            "scrolled": ["div.pst-scrollable-table-container"] if moved else [], "boxes": list(boxes)}


def test_a_caption_that_scrolls_away_with_its_table_fails():
    scroller = box(16, 374, "auto", what="div.pst-scrollable-table-container")
    problems = check_site.display_table_caption_problems(report(captions=[caption(16, 700, 185.0, scroller)]))[1]
    assert problems == ["table caption \"tab-x, Table 15.1 The benchmark's tables\": scrolls away with its table "
                        "(185 px with div.pst-scrollable-table-container)"]


@pytest.mark.parametrize("c", [
    caption(16, 500),                                                                     # past the column
    caption(16, 500, 0.0, box(16, 374, "auto", what="div.pst-scrollable-table-container")),   # wider than its box
    caption(16, 500, 0.0, box(16, 374, "hidden", what="table.table")),                       # cut mid-word
])
def test_a_caption_wider_than_what_the_reader_sees_fails(c):
    problems = check_site.display_table_caption_problems(report(captions=[c]))[1]
    assert len(problems) == 1 and problems[0].startswith("table caption"), problems


def test_a_caption_that_stays_while_its_table_scrolls_passes():
    scroller = box(16, 374, "auto", what="div.pst-scrollable-table-container")
    counts, problems, _ = check_site.display_table_caption_problems(report(captions=[caption(16, 374, 0.0, scroller)]))
    assert problems == [] and counts["table captions"] == 1


def test_judge_layout_names_the_page_and_width_and_keeps_the_desktop_checks_at_1280(tmp_path):
    page = tmp_path / "chapter.html"
    bad = report([display(16, 500)])
    bad["code"] = ["700 px in 684 px: x = 1"]
    counts, problems, _ = check_site.judge_layout(page, bad, 1280)
    assert any(p.startswith("chapter.html at 1280 px: code box 700 px") for p in problems)
    assert any(p.startswith("chapter.html at 1280 px: display equation (2.1)") and "past the column" in p
               for p in problems)
    counts, problems, _ = check_site.judge_layout(page, bad, 390)   # on a phone a code box may scroll
    assert len(problems) == 1 and problems[0].startswith("chapter.html at 390 px: display equation (2.1)")
    good = report([display(20, 300, OWN, WRAPPER)])
    assert check_site.judge_layout(page, good, 390)[1] == []
    tall = {**good, "height": check_site.MAX_PAGE_HEIGHT + 1}
    assert check_site.judge_layout(page, {**good, "height": check_site.MAX_PAGE_HEIGHT}, 1280)[1] == []
    assert check_site.judge_layout(page, tall, 1280)[1] == [
        f"chapter.html at 1280 px: the page is {check_site.MAX_PAGE_HEIGHT + 1} px tall (at most 40000): split it"]
    assert check_site.judge_layout(page, tall, 390)[1] == []        # a phone's page is taller by nature
    broken = {**good, "numbers": 3, "broken_numbers": ["8.54 × 10²"]}
    assert check_site.judge_layout(page, broken, 390)[1] == ["chapter.html at 390 px: the number 8.54 × 10² spans two lines"]
