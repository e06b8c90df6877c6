"""Check the built website as a reader meets it.

Usage (after ``make book``)::

    .venv/bin/python tools/check_site.py [--html _build/html] [--screenshots DIR] [--pages PAGE ...]

1. Every internal link and anchor of every page resolves (files and ``#fragments``).
2. No page shows a Sphinx/MyST problem marker (``problematic`` spans, unresolved
   citations ``[?]``, raw ``{prf:ref}`` / ``{eq}`` roles left as text).
3. Every image inside a figure has an alt text that describes it: not missing or empty, not a
   path or a file name (no ``/``, no ``.png``/``.svg``/``.jpg`` ending, not the image's own file
   name); no link's text shows raw LaTeX (a backslash command such as ``\\varepsilon``, or a
   ``$``) outside the math MathJax typesets.
4. The theorem boxes carry numbers, MathJax is served locally (no CDN), the
   search index exists and, with ``--search WORD``, the search page finds pages.
5. With ``--screenshots``: headless Chromium (Debian's ``chromium`` package) renders
   chosen pages at desktop (1280 px) and phone (390 px) widths into PNG files to look
   at, checks that every table of those pages fits the text column at 1280 px (no
   horizontal scroll), and with ``--anchors PAGE#ID ...`` screenshots those places (a
   table, a figure); pages are opened from ``file://`` so nothing leaves the machine.
6. With ``--layout``: on every page of the site (chapters, landing page, indexes), laid out
   by headless Chromium at 1280 px, no table is wider than the text column, no code box
   scrolls (its lines fit), no display equation typeset by MathJax is wider than the text
   column (its glyphs, not its box, are measured: a cut equation shows no scroll bar), and
   every figure of a chapter has a caption with a number and is
   drawn at ``MIN_DPI`` or more (the PNG's own dpi times the scale at which the page shows
   it), so that its text, drawn at 10.5 pt or more, is at least 80% of the body text's size.

7. Numbers by chapter: on every page of a numbered chapter ("3. Privacy of PDP-OP"), every
   numbered table, figure, equation and theorem block carries the chapter's number ("Table 3.2",
   "Theorem 3.1", "(3.4)").
8. With ``--downloads PAGE``: the site is served over HTTP on 127.0.0.1 and headless Chromium
   opens the page and fetches, through the links of its download menu, the chapter's ``.ipynb``
   and the whole book's PDF; the notebook must parse as a notebook whose title is the chapter's,
   the PDF must start with ``%PDF``, have a page count in ``check_pdf.PAGES`` and be the file
   ``make pdf`` built (``--pdf``).

Exits with status 1 and a list of problems when a check fails.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import html as html_lib
import json
import re
import shutil
import subprocess
import struct
import sys
import tempfile
import threading
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote, urlsplit

import check_pdf


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.scripts: list[str] = []
        self.classes: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a and a["id"]:
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag in ("img",) and a.get("src"):
            self.links.append(a["src"])
        if tag == "script" and a.get("src"):
            self.scripts.append(a["src"])
        if a.get("class"):
            self.classes.extend(a["class"].split())


def parse(path: Path) -> _Collector:
    c = _Collector()
    c.feed(path.read_text(encoding="utf-8", errors="replace"))
    return c


_REDIRECT = re.compile(r'\s*<meta http-equiv="Refresh" content="0; url=[^"]+" />\s*$', re.IGNORECASE)
"""A page that only sends the browser elsewhere (the site's root ``index.html``)."""


def site_pages(root: Path) -> list[Path]:
    """Every page of the built site (not its static files, sources or the layout check's copies)."""
    pages = sorted(p for p in root.rglob("*.html")
                   if not {"_static", "_sources"} & set(p.relative_to(root).parts)
                   and not p.name.startswith(".layout-"))
    if not pages:
        raise SystemExit(f"{root}: no page of a built site (run make book first)")
    return pages


def check_links(root: Path) -> list[str]:
    problems = []
    pages = site_pages(root)
    parsed = {p.resolve(): parse(p) for p in pages}
    for page, info in parsed.items():
        for href in info.links:
            parts = urlsplit(href)
            if parts.scheme or href.startswith(("mailto:", "//", "javascript:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.exists():
                why = " (the book's PDF: `make pdf` builds it and copies it into the site)" \
                    if target.name == PDF_NAME else ""
                problems.append(f"{page.relative_to(root.resolve())}: broken link {href}{why}")
                continue
            if parts.fragment and target.suffix == ".html":
                tinfo = parsed.get(target) or parse(target)
                if unquote(parts.fragment) not in tinfo.ids:
                    problems.append(f"{page.relative_to(root.resolve())}: missing anchor {href}")
        for src in info.scripts:
            if "mathjax" in src.lower() and urlsplit(src).scheme:
                problems.append(f"{page.relative_to(root.resolve())}: MathJax loaded from the network ({src})")
    return problems


PDF_NAME = "book.pdf"
"""The whole book's PDF at the root of the site (``_ext/book_pdf.py`` links it, ``make pdf`` puts it there)."""


MARKERS = [
    (re.compile(r'class="problematic"'), "a Sphinx 'problematic' marker (unresolved reference)"),
    (re.compile(r"\{(prf:ref|eq|ref|cite:p|cite:t|numref)\}`"), "a MyST role left as raw text"),
    (re.compile(r"```\{"), "a MyST directive left as raw text"),
    (re.compile(r"Traceback \(most recent call last\)"), "a Python traceback"),
]


_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_IMAGE_FILE = re.compile(r"\.(png|svg|jpe?g|gif|webp)$", re.IGNORECASE)
_RAW_LATEX = re.compile(r"\\[A-Za-z]+|\$")
"""A backslash command (``\\varepsilon``) or a dollar sign: LaTeX shown as text, not typeset."""


class _FigureAndLinkCollector(HTMLParser):
    """The images inside figures (with their alt text) and the text of every link of a page.

    Text inside an element of class ``math`` is left out of a link's text: MathJax typesets it.
    """

    def __init__(self):
        super().__init__()
        self.stack: list[tuple[str, bool, bool, str]] = []   # (tag, is a figure, is math, id)
        self.images: list[tuple[str, str | None, str]] = []   # (src, alt or None, the figure's id)
        self.link_texts: list[tuple[str, str]] = []           # (href, text)
        self._link: list | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "img":
            figures = [f for f in self.stack if f[1]]
            if figures:
                self.images.append((a.get("src") or "", a.get("alt"), figures[-1][3]))
        if tag == "a":
            self._link = [a.get("href") or "", []]
        if tag not in _VOID:
            figure = tag == "figure" or (tag == "div" and "figure" in classes)
            self.stack.append((tag, figure, "math" in classes, a.get("id") or ""))

    def handle_endtag(self, tag):
        if tag == "a" and self._link is not None:
            self.link_texts.append((self._link[0], re.sub(r"\s+", " ", "".join(self._link[1])).strip()))
            self._link = None
        for k in range(len(self.stack) - 1, -1, -1):
            if self.stack[k][0] == tag:
                del self.stack[k:]
                break

    def handle_data(self, data):
        if self._link is not None and not any(e[2] for e in self.stack):
            self._link[1].append(data)


def alt_problem(src: str, alt: str | None) -> str | None:
    """Why ``alt`` does not describe the image ``src`` (None if it may): missing, empty or a file name."""
    if alt is None or not alt.strip():
        return "has no alt text"
    text = alt.strip()
    name = Path(unquote(urlsplit(src).path)).name
    if "/" in text or _IMAGE_FILE.search(text) or text in (name, Path(name).stem):
        return f"has a file path for alt text ({text[:60]!r})"
    return None


def _figures_and_links(text: str) -> _FigureAndLinkCollector:
    c = _FigureAndLinkCollector()
    c.feed(text)
    c.close()
    return c


def figure_and_link_counts(root: Path) -> tuple[int, int]:
    """How many images inside figures and how many links the pages of the site hold."""
    found = [_figures_and_links(page.read_text(encoding="utf-8", errors="replace")) for page in site_pages(root)]
    return sum(len(c.images) for c in found), sum(len(c.link_texts) for c in found)


def figure_and_link_problems(text: str) -> list[str]:
    """The figures' images without a real alt text and the links whose text shows raw LaTeX, in one page."""
    c = _figures_and_links(text)
    problems = []
    for src, alt, figure in c.images:
        why = alt_problem(src, alt)
        if why:
            problems.append(f"figure {figure or Path(src).name}: image {why}")
    for href, link in c.link_texts:
        if _RAW_LATEX.search(link):
            problems.append(f"link to {href}: its text shows raw LaTeX ({link[:70]!r})")
    return problems


def check_figures_and_links(root: Path) -> list[str]:
    """Every figure's image has an alt text that describes it; no link's text shows raw LaTeX."""
    problems = []
    for page in site_pages(root):
        problems += [f"{page.relative_to(root)}: {p}"
                     for p in figure_and_link_problems(page.read_text(encoding="utf-8", errors="replace"))]
    return problems


def check_markers(root: Path) -> list[str]:
    problems = []
    for page in site_pages(root):
        text = page.read_text(encoding="utf-8", errors="replace")
        for rx, what in MARKERS:
            if rx.search(text):
                problems.append(f"{page.relative_to(root)}: {what}")
        if "proof" in text and re.search(r'class="[^"]*\bproof\b[^"]*"', text):
            # sphinx-proof numbers its boxes "Theorem 3", "Lemma 2", ...; an unnumbered box shows the bare name
            if re.search(r'<span class="caption-number">\s*(Theorem|Lemma|Definition|Algorithm|Remark)\s*</span>', text):
                problems.append(f"{page.relative_to(root)}: an unnumbered theorem box")
    if not (root / "searchindex.js").exists():
        problems.append("searchindex.js is missing: the search page cannot work")
    return problems


_CHAPTER_NUMBER = re.compile(r'<h1>\s*<span class="section-number">(\d+)\.\s*</span>')
_NUMBERED = re.compile(r'<span class="caption-number">\s*(Table|Fig\.|Theorem|Lemma|Definition|Algorithm|Remark|'
                       r'Proposition|Corollary|Assumption|Exercise)\s+([\d.]+)\s*</span>'
                       r'|<span class="eqno">\(([\d.]+)\)')


def chapter_numbering_problems(root: Path) -> tuple[int, list[str]]:
    """Numbered results of a numbered chapter's page that do not carry the chapter's number.

    Returns
    -------
    (int, list of str)
        How many numbered tables, figures, equations and blocks were checked, and the problems.
    """
    checked, problems = 0, []
    for page in sorted((root / "book").glob("*.html")):
        text = page.read_text(encoding="utf-8", errors="replace")
        chapter = _CHAPTER_NUMBER.search(text)
        if chapter is None:
            continue
        for kind, number, equation in _NUMBERED.findall(text):
            number = number or equation
            checked += 1
            if number.split(".")[0] != chapter.group(1) or number.count(".") != 1:
                problems.append(f"{page.relative_to(root)}: {kind or 'equation'} {number} in chapter "
                                f"{chapter.group(1)} (numbers by chapter: {chapter.group(1)}.N)")
    return checked, problems


# Injected into a temporary copy of a chapter page served over HTTP: fetches, through the links
# of the page's download menu, the chapter's source and the book's PDF, and sends each back to
# the server that serves the site, which keeps it for the checks; reports through the title.
_DOWNLOAD_SCRIPT = """<script>
window.addEventListener("load", async function () {
  var report = {};
  var links = document.querySelectorAll(".dropdown-download-buttons a");
  for (var a of links) {
    var label = (a.className.match(/btn-(download-[a-z-]+-button)/) || [])[1] || a.textContent.trim();
    try {
      var response = await fetch(a.href);
      var body = await response.arrayBuffer();
      await fetch("/__upload__/" + label, {method: "POST", body: body});
      report[label] = {href: a.getAttribute("href"), status: response.status, bytes: body.byteLength};
    } catch (e) {
      report[label] = {href: a.getAttribute("href"), error: String(e)};
    }
  }
  document.title = "DOWNLOADS " + JSON.stringify(report);
});
</script>"""


class _SiteHandler(SimpleHTTPRequestHandler):
    """Serves the site; keeps what the page sends to ``/__upload__/<label>`` in ``uploads``."""

    uploads: ClassVar[dict] = {}

    def do_POST(self):
        label = self.path.removeprefix("/__upload__/")
        self.uploads[label] = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def fetch_downloads(root: Path, page: Path) -> tuple[dict, dict]:
    """Open ``page`` from a local HTTP server in headless Chromium and fetch its download links.

    Returns
    -------
    (dict, dict)
        What the page reported per link (label -> href, HTTP status, bytes), and the bytes the
        browser fetched per label.
    """
    handler = type("Handler", (_SiteHandler,), {"uploads": {}})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(root.resolve())))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    copy = _with_script(page, script=_DOWNLOAD_SCRIPT)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/{copy.resolve().relative_to(root.resolve()).as_posix()}"
        with tempfile.TemporaryDirectory() as profile:
            dom = subprocess.run(_chromium_args(profile, 1280, 1200) + ["--dump-dom", url],
                                 check=True, capture_output=True, text=True, timeout=180).stdout
    finally:
        copy.unlink()
        server.shutdown()
        server.server_close()
    found = re.search(r"<title>DOWNLOADS (.*?)</title>", dom, flags=re.DOTALL)
    report = json.loads(html_lib.unescape(found.group(1))) if found else {}
    return report, dict(handler.uploads)


def download_problems(root: Path, rel: str, pdf: Path | None) -> list[str]:
    """The chapter's ``.ipynb`` and the book's PDF, fetched through the download menu of page ``rel``.

    Parameters
    ----------
    root : pathlib.Path
        The built site.
    rel : str
        A chapter's page, relative to ``root`` (``book/privacy.html``).
    pdf : pathlib.Path or None
        The PDF ``make pdf`` built: the one fetched must be the same file (skipped when None or absent).

    Returns
    -------
    list of str
        The problems found.
    """
    page = root / rel
    if not page.exists():
        return [f"{rel}: page not found for the download check"]
    report, uploads = fetch_downloads(root, page)
    problems = []
    source = check_pdf.ROOT / Path(rel).with_suffix(".ipynb")
    wanted = {"download-source-button": ".ipynb", "download-book-pdf-button": "book .pdf"}
    for label, what in wanted.items():
        if label not in report:
            problems.append(f"{rel}: no {what} link in the download menu (found {sorted(report)})")
        elif report[label].get("status") != 200 or label not in uploads:
            problems.append(f"{rel}: fetching the {what} link {report[label].get('href')!r} failed: {report[label]}")
    notebook = uploads.get("download-source-button")
    if notebook is not None:
        try:
            nb = json.loads(notebook.decode("utf-8"))
            if not isinstance(nb.get("cells"), list) or "nbformat" not in nb:
                raise ValueError("no cells or no nbformat")
            with tempfile.TemporaryDirectory() as tmp:
                fetched = Path(tmp) / source.name
                fetched.write_bytes(notebook)
                title = check_pdf.title_of(fetched)
            if source.exists() and title != check_pdf.title_of(source):
                problems.append(f"{rel}: the .ipynb downloaded is titled {title!r}, the chapter "
                                f"{check_pdf.title_of(source)!r}")
            else:
                print(f"{rel}: .ipynb downloaded through its link: a notebook of {len(nb['cells'])} cells, {title!r}")
        except (ValueError, UnicodeDecodeError) as exc:
            problems.append(f"{rel}: the .ipynb downloaded is not a notebook ({exc})")
    book = uploads.get("download-book-pdf-button")
    if book is not None:
        if not book.startswith(b"%PDF-"):
            problems.append(f"{rel}: the book's PDF downloaded does not start with %PDF ({book[:20]!r})")
        else:
            with tempfile.TemporaryDirectory() as tmp:
                fetched = Path(tmp) / PDF_NAME
                fetched.write_bytes(book)
                pages = check_pdf.pdf_pages(fetched)
            low, high = check_pdf.PAGES
            if not low <= pages <= high:
                problems.append(f"{rel}: the book's PDF downloaded has {pages} pages, expected {low} to {high}")
            if pdf is not None and pdf.exists() and hashlib.sha256(book).digest() != hashlib.sha256(
                    pdf.read_bytes()).digest():
                problems.append(f"{rel}: the book's PDF downloaded is not {pdf} (make pdf copies it into the site)")
            print(f"{rel}: book's PDF downloaded through its link: {len(book)} bytes, {pages} pages")
    return problems


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(page: Path, out: Path, width: int, height: int) -> None:
    exe = chromium()
    if exe is None:
        raise SystemExit("headless screenshots need Debian's chromium package (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        cmd = [
            exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--hide-scrollbars", f"--user-data-dir={profile}", f"--window-size={width},{height}",
            "--virtual-time-budget=15000", f"--screenshot={out}", page.resolve().as_uri(),
        ]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)


# Injected into a temporary copy of a page: measures, after layout, every table of the article
# against the text column, and brings an anchor to the top for a screenshot (headless Chromium
# paints nothing when it scrolls); reports through the title.
_LAYOUT_SCRIPT = """<script>
window.addEventListener("load", function () {
  // display math is laid out by MathJax after the page loads: measure once it has typeset
  var typeset = (window.MathJax && MathJax.startup && MathJax.startup.promise) || Promise.resolve();
  typeset.then(measure, measure);
});
function measure() {
  var column = document.querySelector("article.bd-article") || document.body;
  var wide = [];
  document.querySelectorAll("article table").forEach(function (t) {
    var box = t.closest(".pst-scrollable-table-container") || t.parentElement;
    var room = Math.min(box.clientWidth, column.clientWidth);
    if (t.scrollWidth > room + 1) {
      var head = t.querySelector("th, td");
      var name = t.id || ("starting " + JSON.stringify(head ? head.textContent.trim().slice(0, 40) : ""));
      wide.push(name + ": " + t.scrollWidth + " px in " + room + " px");
    }
  });
  var tables = document.querySelectorAll("article table").length;
  var code = [];
  document.querySelectorAll("article div.cell_input pre, article div.highlight pre").forEach(function (p) {
    if (p.scrollWidth > p.clientWidth + 1) {
      var line = p.textContent.split("\\n").reduce(function (a, b) { return b.length > a.length ? b : a; }, "");
      code.push(p.scrollWidth + " px in " + p.clientWidth + " px: " + line.trim().slice(0, 60));
    }
  });
  var images = [];
  document.querySelectorAll("article img").forEach(function (img) {
    if (!/\\.(png|jpe?g|gif|webp)$/i.test(img.getAttribute("src") || "")) return;  // rasters
    var fig = img.closest("figure");
    var cap = fig ? fig.querySelector("figcaption") : null;
    images.push({src: img.getAttribute("src"), natural: img.naturalWidth, shown: img.getBoundingClientRect().width,
                 caption: !!cap, numbered: !!(cap && cap.querySelector(".caption-number")),
                 id: fig ? (fig.id || "") : ""});
  });
  var anchor = "__ANCHOR__";
  if (anchor) {  // bring the anchor to the top of the page: hide everything of the article before it
    var el = document.getElementById(anchor);
    for (var n = el; n && n !== column; n = n.parentElement) {
      for (var s = n.previousElementSibling; s; s = s.previousElementSibling) s.style.display = "none";
    }
  }
  var math = [];
  var sources = document.querySelectorAll("article div.math").length;   // display math in the source
  var displays = document.querySelectorAll('article mjx-container[display="true"]');
  displays.forEach(function (m) {
    var inner = m.querySelector("mjx-math");
    var drawn = inner ? inner.getBoundingClientRect().width : m.scrollWidth;
    var room = Math.min(m.clientWidth, column.clientWidth);
    if (drawn > room + 1) {
      var box = m.closest("[id]");
      math.push(Math.round(drawn) + " px in " + room + " px" + (box ? " (in #" + box.id + ")" : "") + ": " +
                (m.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 50));
    }
  });
  document.title = "LAYOUT " + JSON.stringify({tables: tables, column: column.clientWidth, wide: wide,
                                                code: code, images: images, math: math,
                                                displays: displays.length, math_sources: sources});
}
</script>"""


def _with_script(page: Path, anchor: str = "", script: str | None = None):
    """A temporary copy of ``page`` beside it (so that its assets resolve) with the layout script
    (or ``script``)."""
    html = page.read_text(encoding="utf-8")
    copy = page.with_name(f".layout-{page.name}")
    script = _LAYOUT_SCRIPT.replace("__ANCHOR__", anchor) if script is None else script
    copy.write_text(html.replace("</body>", script + "</body>"), encoding="utf-8")
    return copy


def _chromium_args(profile: str, width: int, height: int) -> list:
    exe = chromium()
    if exe is None:
        raise SystemExit("headless layout checks need Debian's chromium package (apt-get install chromium)")
    return [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
            f"--window-size={width},{height}", "--virtual-time-budget=15000"]


def _layout_report(page: Path, width: int) -> dict | None:
    """What the layout script measured on ``page`` at ``width`` px, or None if it did not run."""
    copy = _with_script(page)
    try:
        with tempfile.TemporaryDirectory() as profile:
            dom = subprocess.run(_chromium_args(profile, width, 1200) + ["--dump-dom", copy.resolve().as_uri()],
                                 check=True, capture_output=True, text=True, timeout=120).stdout
    finally:
        copy.unlink()
    found = re.search(r"<title>LAYOUT (.*?)</title>", dom, flags=re.S)
    return json.loads(html_lib.unescape(found.group(1))) if found else None


def wide_tables(page: Path, width: int = 1280) -> tuple[int, list[str]]:
    """The tables of ``page`` wider than the text column at ``width`` px: ``(tables, problems)``."""
    report = _layout_report(page, width)
    if report is None:
        return 0, [f"{page.name}: the layout script did not run"]
    return report["tables"], [f"{page.name} at {width} px: table {w}" for w in report["wide"]]


MIN_DPI = 85
"""Least dpi at which a figure may be drawn on the page at 1280 px (the PNG's dpi times its scale)."""


def png_dpi(path: Path) -> float | None:
    """The dpi stored in a PNG's ``pHYs`` chunk (matplotlib writes the figure's), or None."""
    data = path.read_bytes()
    at = data.find(b"pHYs")
    if at < 0:
        return None
    per_x, _, unit = struct.unpack(">IIB", data[at + 4:at + 13])
    return per_x * 0.0254 if unit == 1 else None


def layout_problems(page: Path, width: int = 1280) -> tuple[dict, list[str]]:
    """Tables, code boxes and figures of ``page`` laid out at ``width`` px: ``(counts, problems)``."""
    report = _layout_report(page, width)
    if report is None:
        return {}, [f"{page.name}: the layout script did not run"]
    where = f"{page.name} at {width} px"
    problems = [f"{where}: table {w}" for w in report["wide"]]
    problems += [f"{where}: code box {c}" for c in report["code"]]
    problems += [f"{where}: display equation {m}" for m in report["math"]]
    if report["math_sources"] and not report["displays"]:
        problems.append(f"{where}: {report['math_sources']} math block(s) but no display typeset by MathJax")
    dpis = []
    for img in report["images"]:
        file = (page.parent / unquote(img["src"])).resolve()
        name = img["id"] or Path(img["src"]).name
        if not img["numbered"]:
            problems.append(f"{where}: figure {name} has no numbered caption")
        dpi = png_dpi(file) if file.exists() and file.suffix.lower() == ".png" else None
        if dpi is None or not img["natural"]:
            problems.append(f"{where}: figure {name}: no dpi in {file.name} (the book's figures are PNGs "
                            "with the figure's dpi)")
            continue
        drawn = dpi * img["shown"] / img["natural"]
        dpis.append(drawn)
        if drawn < MIN_DPI:
            problems.append(f"{where}: figure {name} drawn at {drawn:.0f} dpi (at least {MIN_DPI})")
    counts = {"tables": report["tables"], "display equations": report["displays"], "figures": len(report["images"]),
              "least dpi": round(min(dpis)) if dpis else None}
    return counts, problems


def anchor_screenshot(page: Path, anchor: str, out: Path, width: int, height: int) -> None:
    """A screenshot of ``page`` from the element with id ``anchor`` on (what precedes it hidden)."""
    copy = _with_script(page, anchor)
    try:
        with tempfile.TemporaryDirectory() as profile:
            subprocess.run(_chromium_args(profile, width, height) + [f"--screenshot={out}", copy.resolve().as_uri()],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    finally:
        copy.unlink()


def search_works(root: Path, query: str) -> str | None:
    """Run the site's own search in headless Chromium; return a problem or None."""
    exe = chromium()
    if exe is None:
        return "the search check needs Debian's chromium package (apt-get install chromium)"
    with tempfile.TemporaryDirectory() as profile:
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
               "--virtual-time-budget=15000", "--dump-dom",
               (root / "search.html").resolve().as_uri() + f"?q={query}"]
        dom = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=120).stdout
    found = re.search(r"found (\d+) page", dom)
    if not found or int(found.group(1)) == 0:
        return f"searching the site for {query!r} found no page"
    print(f"search for {query!r}: {found.group(1)} page(s)")
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--html", default="_build/html", type=Path)
    ap.add_argument("--screenshots", type=Path, default=None, help="folder for PNG screenshots")
    ap.add_argument("--pages", nargs="*", default=["book/intro.html", "book/mechanism.html"],
                    help="pages (relative to --html) to screenshot")
    ap.add_argument("--height", type=int, default=2400, help="screenshot height in pixels")
    ap.add_argument("--search", default=None, help="also run the site's search for this word (Chromium)")
    ap.add_argument("--layout", action="store_true",
                    help="lay out every page of the site at 1280 px (Chromium): tables, code boxes, figures")
    ap.add_argument("--anchors", nargs="*", default=[],
                    help="PAGE#ID: also screenshot these places (1280 and 390 px), e.g. a table or a figure")
    ap.add_argument("--downloads", nargs="*", default=[],
                    help="PAGE: fetch its .ipynb and the book's PDF through its download menu (Chromium, HTTP)")
    ap.add_argument("--pdf", type=Path, default=Path("_build/latex") / PDF_NAME,
                    help="the PDF make pdf built, which the site's copy must equal")
    args = ap.parse_args(argv)
    root: Path = args.html
    if not (root / "index.html").exists():
        print(f"{root}/index.html not found: run `make book` first", file=sys.stderr)
        return 2
    problems = check_links(root) + check_markers(root) + check_figures_and_links(root)
    numbered, found = chapter_numbering_problems(root)
    problems += found
    if not numbered:
        problems.append("no numbered table, figure, equation or block on a numbered chapter's page")
    print(f"{numbered} numbered tables, figures, equations and blocks, each with its chapter's number")
    images, links = figure_and_link_counts(root)
    if not images:
        problems.append("no image inside a figure on any page: the alt text check saw nothing")
    print(f"{images} images inside figures checked for an alt text, {links} link texts for raw LaTeX")
    for rel in args.downloads:
        problems += download_problems(root, rel, args.pdf)
    if args.search:
        problem = search_works(root, args.search)
        if problem:
            problems.append(problem)
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
        for rel in args.pages:
            page = root / rel
            if not page.exists():
                problems.append(f"{rel}: page not found for a screenshot")
                continue
            stem = rel.replace("/", "_").removesuffix(".html")
            for label, width in (("desktop", 1280), ("phone", 390)):
                out = args.screenshots / f"{stem}-{label}.png"
                screenshot(page, out, width, args.height)
                print(f"wrote {out}")
            # at 1280 px every table must fit the text column, with no horizontal scroll (with
            # --layout, every page is measured below, these ones included)
            if not args.layout:
                tables, wide = wide_tables(page)
                problems += wide
                print(f"{rel}: {tables} tables, {tables - len(wide)} inside the text column at 1280 px")
        for spec in args.anchors:
            rel, _, anchor = spec.partition("#")
            stem = rel.replace("/", "_").removesuffix(".html") + "-" + anchor
            for label, width, height in (("desktop", 1280, 1400), ("phone", 390, 1600)):
                out = args.screenshots / f"{stem}-{label}.png"
                anchor_screenshot(root / rel, anchor, out, width, height)
                print(f"wrote {out}")
    if args.layout:
        for page in site_pages(root):
            if _REDIRECT.match(page.read_text(encoding="utf-8", errors="replace")):
                print(f"{page.relative_to(root)}: a redirect, nothing to lay out")
                continue
            counts, found = layout_problems(page)
            problems += found
            print(f"{page.relative_to(root)}: {counts}, {len(found)} layout problem(s)")
    n_pages = len(site_pages(root))
    if problems:
        print(f"{len(problems)} problem(s) in {n_pages} pages:")
        for p in problems:
            print(f"- {p}")
        return 1
    print(f"site OK: {n_pages} pages, every internal link and anchor resolves, no problem markers, every "
          "figure's image has an alt text, no link's text shows raw LaTeX")
    return 0


if __name__ == "__main__":
    sys.exit(main())
