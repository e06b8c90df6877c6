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
