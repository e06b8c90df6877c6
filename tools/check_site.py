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
   Every page is laid out again at 390 px (a phone; headless Chromium's window is at least 500 px
   wide, so the page is shown in a frame 390 px wide) and at both widths, with every collapsed
   solution opened: no display equation is cut (by its own box or any box around it) or runs past
   the text column, none scrolls with anything but its own box, and at most
   ``MAX_SCROLLING_DISPLAYS`` of the site's displays scroll sideways inside their own box (none at
   1280 px); no table is cut or runs past the column (on a phone a wide one scrolls in its box);
   no table caption scrolls away with its table (each scrolling box is scrolled to its end and the
   caption must not move) or is wider than what the reader sees; no number in scientific notation
   (``8.54 × 10²``, kept on one line by ``_static/numbers.js``) spans two lines; and at 1280 px no page
   is taller than ``MAX_PAGE_HEIGHT``.

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
    host = _phone_host(page, width, height) if width < MIN_WINDOW else None
    try:
        with tempfile.TemporaryDirectory() as profile:
            cmd = [
                exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--hide-scrollbars", f"--user-data-dir={profile}", f"--window-size={max(width, MIN_WINDOW)},{height}",
                "--virtual-time-budget=15000", f"--screenshot={out}", (host or page).resolve().as_uri(),
            ]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    finally:
        if host:
            host.unlink()
    if host:
        _crop(out, width)


MIN_WINDOW = 500
"""Headless Chromium's narrowest window (CSS px): a narrower ``--window-size`` is widened to it, so a phone
(390 px) is laid out in a frame of the phone's width inside a page of this width (``_phone_host``)."""


def _phone_host(page: Path, width: int, height: int) -> Path:
    """A page beside ``page`` that shows it in a frame ``width`` px wide (the layout script inside reports to it)."""
    host = page.with_name(f".layout-host-{page.name}")
    frame = html_lib.escape(page.name, quote=True)
    host.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>frame</title>"
        "<style>html, body { margin: 0; } iframe { border: 0; display: block; }</style></head><body>"
        f'<iframe src="{frame}" style="width: {width}px; height: {height}px"></iframe><script>'
        'addEventListener("message", function (e) { if (typeof e.data === "string") document.title = e.data; });'
        "</script></body></html>", encoding="utf-8")
    return host


def _crop(png: Path, width: int) -> None:
    """Cut a screenshot taken through ``_phone_host`` to the frame's width."""
    from PIL import Image
    with Image.open(png) as img:
        cut = img.crop((0, 0, min(width, img.width), img.height))
    cut.save(png)


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
  if (!"__ANCHOR__") {  // open every collapsed box (a solution), as a reader does, to measure what it shows
    document.querySelectorAll(".admonition.toggle-hidden").forEach(function (a) {
      a.classList.remove("toggle-hidden");
    });
  }
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
  // numbers in scientific notation (kept on one line by _static/numbers.js): any that spans two lines
  var numbers = document.querySelectorAll("article .pdp-number"), broken_numbers = [];
  numbers.forEach(function (s) {
    var lines = {};
    Array.prototype.forEach.call(s.getClientRects(), function (r) { lines[Math.round(r.top)] = true; });
    if (Object.keys(lines).length > 1) broken_numbers.push(snippet(s, 30));
  });
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
  // where each display equation, table and table caption is drawn, and the boxes that may cut or scroll it
  // (the verdicts are Python's: display_states, table_states, caption_problems)
  var cs = getComputedStyle(column), cr = column.getBoundingClientRect();
  var text_column = [cr.left + parseFloat(cs.paddingLeft), cr.right - parseFloat(cs.paddingRight)];
  var geometry = [];
  displays.forEach(function (m) {
    // what it draws: the union of the boxes of everything inside its mjx-math (a line of a broken display may
    // lie outside the mjx-math's own box)
    var range = document.createRange();
    range.selectNodeContents(m.querySelector("mjx-math") || m);
    var g = range.getBoundingClientRect(), own = (m.querySelector("mjx-math") || m).getBoundingClientRect();
    g = {left: Math.min(g.left, own.left), right: Math.max(g.right, own.right),
         top: Math.min(g.top, own.top), bottom: Math.max(g.bottom, own.bottom)};
    if (!own.width && !own.height) return;   // not shown (a collapsed box)
    var box = m.closest("[id]"), eqno = m.closest("div.math") && m.closest("div.math").querySelector(".eqno");
    geometry.push({name: (eqno ? "(" + eqno.textContent.replace(/[^\\d.]/g, "") + ") " : "") +
                         (box ? "in #" + box.id : "") + ": " + snippet(m, 50),
                   left: g.left, right: g.right, top: g.top, bottom: g.bottom, boxes: boxes(m, column)});
  });
  var table_geometry = [];
  document.querySelectorAll("article table").forEach(function (t) {
    var r = t.getBoundingClientRect();
    if (!r.width && !r.height) return;
    var head = t.querySelector("caption .caption-number") || t.querySelector("th, td");
    table_geometry.push({name: t.id || ("starting " + JSON.stringify(head ? snippet(head, 40) : "")),
                         left: r.left, right: r.left + Math.max(r.width, t.scrollWidth), boxes: boxes(t, column)});
  });
  var captions = [];
  document.querySelectorAll("article table > caption").forEach(function (c) {
    var before = c.getBoundingClientRect(), moved = 0, scrolled = [];
    // scroll every box around the caption that scrolls sideways to its far end: does the caption go with it?
    for (var a = c.parentElement; a && a !== column; a = a.parentElement) {
      var o = getComputedStyle(a).overflowX;
      if ((o === "auto" || o === "scroll") && a.scrollWidth > a.clientWidth + 1) {
        var keep = a.scrollLeft;
        a.scrollLeft = a.scrollWidth;
        var after = c.getBoundingClientRect();
        if (Math.abs(after.left - before.left) > moved) moved = Math.abs(after.left - before.left);
        scrolled.push(describe(a));
        a.scrollLeft = keep;
      }
    }
    captions.push({name: (c.parentElement.id ? c.parentElement.id + ", " : "") + snippet(c, 40),
                   left: before.left, right: before.right, moved: moved, scrolled: scrolled,
                   boxes: boxes(c.parentElement, column)});
  });
  document.title = "LAYOUT " + JSON.stringify({tables: tables, column: column.clientWidth, wide: wide,
                                                code: code, images: images, math: math,
                                                displays: displays.length, math_sources: sources,
                                                viewport: document.documentElement.clientWidth,
                                                text_column: text_column, display_geometry: geometry,
                                                table_geometry: table_geometry, captions: captions,
                                                height: document.documentElement.scrollHeight,
                                                numbers: numbers.length, broken_numbers: broken_numbers});
  if (window.parent !== window) window.parent.postMessage(document.title, "*");   // laid out in a phone's frame
}
function snippet(el, n) { return (el.textContent || "").replace(/\\s+/g, " ").trim().slice(0, n); }
function describe(a) {
  return a.tagName.toLowerCase() + (a.id ? "#" + a.id : "") +
         (typeof a.className === "string" && a.className ? "." + a.className.trim().split(/\\s+/)[0] : "");
}
// el and its ancestors below stop that may cut or scroll what el draws (overflow other than visible), innermost
// first, with their visible (client) area; own: the display's own box (its mjx-container or div.math wrapper)
function boxes(el, stop) {
  var out = [];
  for (var a = el; a && a !== stop; a = a.parentElement) {
    var s = getComputedStyle(a);
    if (s.display === "inline" || s.display === "contents") continue;
    if (s.overflowX === "visible" && s.overflowY === "visible") continue;
    var r = a.getBoundingClientRect(), left = r.left + a.clientLeft, top = r.top + a.clientTop;
    out.push({what: describe(a), overflow_x: s.overflowX, overflow_y: s.overflowY,
              left: left, right: left + a.clientWidth, top: top, bottom: top + a.clientHeight,
              own: a.matches("mjx-container, div.math")});
  }
  return out;
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
    host = _phone_host(copy, width, 1200) if width < MIN_WINDOW else None
    try:
        with tempfile.TemporaryDirectory() as profile:
            dom = subprocess.run(_chromium_args(profile, max(width, MIN_WINDOW), 1200)
                                 + ["--dump-dom", (host or copy).resolve().as_uri()],
                                 check=True, capture_output=True, text=True, timeout=120).stdout
    finally:
        copy.unlink()
        if host:
            host.unlink()
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


LAYOUT_WIDTHS = (1280, 390)
"""The widths at which ``--layout`` lays out every page: a desktop's and a phone's (CSS px)."""

MAX_SCROLLING_DISPLAYS = {1280: 0, 390: 5}
"""At most this many display equations of the whole site may scroll sideways inside their own box at each width
(the rest fit the text column); none may be cut or run past the column at any width."""

MAX_PAGE_HEIGHT = 40_000
"""Tallest a page may be at 1280 px (CSS px, its collapsed cells collapsed): about 45 screens of a laptop; a
taller chapter is split into pages."""

_TOLERANCE = 1.0
"""Pixels by which a drawing may pass a box's edge (rounding) before it counts as passing it."""


def overflow_state(item: dict, column: tuple[float, float]) -> dict:
    """How a display, a table or a caption is shown: inside the text column, scrolled, cut or past the column.

    Parameters
    ----------
    item : dict
        As the layout script reports it: ``left``/``right`` (and for a display ``top``/``bottom``) of what it
        draws (a display's glyphs, a table's whole width, a caption's box), in CSS px of the viewport, and
        ``boxes``: the boxes around it that cut or scroll what overflows them (CSS ``overflow`` other than
        ``visible``), innermost first, each with ``what``, ``overflow_x``, ``overflow_y``, its visible
        (client) area ``left``/``right``/``top``/``bottom`` and ``own`` (a display's own box).
    column : (float, float)
        The text column's left and right edges (the article's content box).

    Returns
    -------
    dict
        ``state``: ``"fits"``, ``"scrolls"`` (wider than a box that scrolls sideways, whose visible area lies in
        the column: a reader scrolls that box to see it all), ``"clipped"`` (a part cut off by a box that
        hides what overflows it, or out of reach of a scroll: left of a box's start, or above or below a
        display's box) or ``"past the column"`` (its visible part passes the text column's edge);
        ``box`` (the box it scrolls in or is cut by), ``own`` (that box is the display's own), and ``why``.
    """
    left, right = item["left"], item["right"]
    top, bottom = item.get("top"), item.get("bottom")
    vis = [left, right, top, bottom]
    scroller, cut = None, None
    for b in item["boxes"]:
        wider = vis[1] > b["right"] + _TOLERANCE or vis[0] < b["left"] - _TOLERANCE
        taller = top is not None and (vis[3] > b["bottom"] + _TOLERANCE or vis[2] < b["top"] - _TOLERANCE)
        if wider:
            if b["overflow_x"] in ("auto", "scroll") and vis[0] >= b["left"] - _TOLERANCE:
                scroller = scroller or b
            elif cut is None:
                hidden = max(vis[1] - b["right"], 0) + max(b["left"] - vis[0], 0)
                cut = (b, f"{hidden:.0f} px of its {right - left:.0f} px cut off by {b['what']} "
                          f"(overflow-x: {b['overflow_x']})")
        if taller and cut is None:
            hidden = max(vis[3] - b["bottom"], 0) + max(b["top"] - vis[2], 0)
            cut = (b, f"{hidden:.0f} px of its {bottom - top:.0f} px height cut off or scrolled up and down by "
                      f"{b['what']} (overflow-y: {b['overflow_y']})")
        vis = [max(vis[0], b["left"]), min(vis[1], b["right"]),
               None if top is None else max(vis[2], b["top"]), None if top is None else min(vis[3], b["bottom"])]
    if cut is not None:
        return {"state": "clipped", "box": cut[0]["what"], "own": cut[0].get("own", False), "why": cut[1]}
    if vis[1] > column[1] + _TOLERANCE or vis[0] < column[0] - _TOLERANCE:
        past = max(vis[1] - column[1], column[0] - vis[0])
        return {"state": "past the column", "box": None, "own": False,
                "why": f"{past:.0f} px past the text column ({column[1] - column[0]:.0f} px wide)"}
    if scroller is not None:
        return {"state": "scrolls", "box": scroller["what"], "own": scroller.get("own", False),
                "why": f"{right - left:.0f} px scrolling in {scroller['right'] - scroller['left']:.0f} px of "
                       f"{scroller['what']}"}
    return {"state": "fits", "box": None, "own": False, "why": ""}


def display_table_caption_problems(report: dict) -> tuple[dict, list[str], list[str]]:
    """The display equations, tables and table captions of one page's layout report, judged at its width.

    Returns
    -------
    (dict, list of str, list of str)
        Counts, problems (a display cut or past the column, or scrolling outside its own box; a table cut or
        past the column; a caption that scrolls away with its table, or is cut or runs past the column) and
        the displays that scroll inside their own box (allowed: ``MAX_SCROLLING_DISPLAYS`` bounds them).
    """
    column = tuple(report["text_column"])
    problems, scrolling = [], []
    for d in report["display_geometry"]:
        st = overflow_state(d, column)
        if st["state"] == "scrolls" and st["own"]:
            scrolling.append(f"display equation {d['name']}: {st['why']}")
        elif st["state"] == "scrolls":
            problems.append(f"display equation {d['name']}: scrolls with {st['box']}, not in its own box "
                            f"({st['why']})")
        elif st["state"] != "fits":
            problems.append(f"display equation {d['name']}: {st['state']}, {st['why']}")
    tables_scrolling = 0
    for t in report["table_geometry"]:
        st = overflow_state(t, column)
        tables_scrolling += st["state"] == "scrolls"
        if st["state"] in ("clipped", "past the column"):
            problems.append(f"table {t['name']}: {st['state']}, {st['why']}")
    for c in report["captions"]:
        if c["moved"] > _TOLERANCE:
            problems.append(f"table caption {c['name']!r}: scrolls away with its table "
                            f"({c['moved']:.0f} px with {', '.join(c['scrolled'])})")
            continue
        st = overflow_state(c, column)
        if st["state"] != "fits":
            problems.append(f"table caption {c['name']!r}: {st['state']}, {st['why']}")
    counts = {"displays": len(report["display_geometry"]), "displays scrolling in their box": len(scrolling),
              "table captions": len(report["captions"]), "tables scrolling": tables_scrolling}
    return counts, problems, scrolling


def scrolling_verdict(width: int, scrolling: list[str]) -> list[str]:
    """A problem when more display equations of the site scroll inside their box at ``width`` px than allowed."""
    allowed = MAX_SCROLLING_DISPLAYS.get(width, 0)
    if len(scrolling) <= allowed:
        return []
    return [f"at {width} px {len(scrolling)} display equation(s) scroll sideways inside their box "
            f"(at most {allowed}): " + "; ".join(scrolling)]


def layout_problems(page: Path, width: int = 1280) -> tuple[dict, list[str], list[str]]:
    """Tables, code boxes, figures, display equations and table captions of ``page`` laid out at ``width`` px:
    ``(counts, problems, displays scrolling inside their box)`` (``judge_layout``)."""
    report = _layout_report(page, width)
    if report is None:
        return {}, [f"{page.name}: the layout script did not run"], []
    return judge_layout(page, report, width)


def judge_layout(page: Path, report: dict, width: int) -> tuple[dict, list[str], list[str]]:
    """The verdict on one page's layout report at ``width`` px.

    At every width: no display equation cut, run past the text column or scrolling with anything but its own
    box, no table cut or past the column, no table caption that scrolls away with its table or is cut
    (``display_table_caption_problems``), no number in scientific notation over two lines. At 1280 px besides: no page taller than ``MAX_PAGE_HEIGHT``, no table
    wider than the column, no code box that scrolls, no display wider than its box, every figure numbered and drawn at ``MIN_DPI`` or more (on a
    phone a table and a code box may scroll, and a figure is drawn smaller, at a higher dpi).

    Returns
    -------
    (dict, list of str, list of str)
        Counts, problems (each naming the page, the width and the item) and the displays that scroll
        inside their own box (each naming the page and the width).
    """
    where = f"{page.name} at {width} px"
    problems = []
    desktop = width >= 1280
    if desktop:
        problems += [f"{where}: table {w}" for w in report["wide"]]
        problems += [f"{where}: code box {c}" for c in report["code"]]
        problems += [f"{where}: display equation {m}" for m in report["math"]]
    problems += [f"{where}: the number {n} spans two lines" for n in report["broken_numbers"]]
    if desktop and report["height"] > MAX_PAGE_HEIGHT:
        problems.append(f"{where}: the page is {report['height']} px tall (at most {MAX_PAGE_HEIGHT}): split it")
    if report["math_sources"] and not report["displays"]:
        problems.append(f"{where}: {report['math_sources']} math block(s) but no display typeset by MathJax")
    dpis = []
    for img in report["images"] if desktop else []:
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
    counts = {"tables": report["tables"], "display equations": report["displays"], "numbers": report["numbers"]}
    if desktop:
        counts.update({"figures": len(report["images"]), "least dpi": round(min(dpis)) if dpis else None,
                       "height": report["height"]})
    found, found_problems, scrolling = display_table_caption_problems(report)
    counts.update({k: v for k, v in found.items() if k not in ("displays",)})
    problems += [f"{where}: {p}" for p in found_problems]
    return counts, problems, [f"{where}: {d}" for d in scrolling]


def anchor_screenshot(page: Path, anchor: str, out: Path, width: int, height: int) -> None:
    """A screenshot of ``page`` from the element with id ``anchor`` on (what precedes it hidden)."""
    copy = _with_script(page, anchor)
    host = _phone_host(copy, width, height) if width < MIN_WINDOW else None
    try:
        with tempfile.TemporaryDirectory() as profile:
            subprocess.run(_chromium_args(profile, max(width, MIN_WINDOW), height)
                           + [f"--screenshot={out}", (host or copy).resolve().as_uri()],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    finally:
        copy.unlink()
        if host:
            host.unlink()
    if host:
        _crop(out, width)


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
                    help="lay out every page of the site at 1280 and 390 px (Chromium): tables and their captions, "
                         "code boxes, figures, display equations")
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
        pages = []
        for page in site_pages(root):
            if _REDIRECT.match(page.read_text(encoding="utf-8", errors="replace")):
                print(f"{page.relative_to(root)}: a redirect, nothing to lay out")
            else:
                pages.append(page)
        for width in LAYOUT_WIDTHS:
            scrolling, totals, before = [], {}, len(problems)
            for page in pages:
                counts, found, scrolls = layout_problems(page, width)
                problems += found
                scrolling += scrolls
                for key in ("display equations", "tables", "table captions", "tables scrolling", "numbers"):
                    totals[key] = totals.get(key, 0) + (counts.get(key) or 0)
                print(f"{page.relative_to(root)} at {width} px: {counts}, {len(found)} layout problem(s)")
            for s in scrolling:
                print(f"  scrolls inside its box: {s}")
            problems += scrolling_verdict(width, scrolling)
            print(f"at {width} px: {len(pages)} pages, {totals['display equations']} display equations "
                  f"({len(scrolling)} scrolling inside their box, at most {MAX_SCROLLING_DISPLAYS.get(width, 0)}), "
                  f"{totals['tables']} tables ({totals['tables scrolling']} scrolling), "
                  f"{totals['table captions']} table captions, {totals['numbers']} numbers in scientific notation "
                  f"kept on one line, {len(problems) - before} layout problem(s)")
    n_pages = len(site_pages(root))
    return check_pdf.verdict(problems, f"{n_pages} pages",
                             f"site OK: {n_pages} pages, every internal link and anchor resolves, no problem "
                             "markers, every figure's image has an alt text, no link's text shows raw LaTeX")


if __name__ == "__main__":
    sys.exit(main())
