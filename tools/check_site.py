"""Check the built website as a reader meets it.

Usage (after ``make book``)::

    .venv/bin/python tools/check_site.py [--html _build/html] [--screenshots DIR] [--pages PAGE ...]

1. Every internal link and anchor of every page resolves (files and ``#fragments``).
2. No page shows a Sphinx/MyST problem marker (``problematic`` spans, unresolved
   citations ``[?]``, raw ``{prf:ref}`` / ``{eq}`` roles left as text).
3. The theorem boxes carry numbers, MathJax is served locally (no CDN), the
   search index exists and, with ``--search WORD``, the search page finds pages.
4. With ``--screenshots``: headless Chromium (Debian's ``chromium`` package) renders
   chosen pages at desktop (1280 px) and phone (390 px) widths into PNG files to look
   at, checks that every table of those pages fits the text column at 1280 px (no
   horizontal scroll), and with ``--anchors PAGE#ID ...`` screenshots those places (a
   table, a figure); pages are opened from ``file://`` so nothing leaves the machine.

Exits with status 1 and a list of problems when a check fails.
"""

from __future__ import annotations

import argparse
import html as html_lib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


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


def check_links(root: Path) -> list[str]:
    problems = []
    pages = sorted(p for p in root.rglob("*.html") if "_static" not in p.parts)
    parsed = {p.resolve(): parse(p) for p in pages}
    for page, info in parsed.items():
        for href in info.links:
            parts = urlsplit(href)
            if parts.scheme or href.startswith(("mailto:", "//", "javascript:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.exists():
                problems.append(f"{page.relative_to(root.resolve())}: broken link {href}")
                continue
            if parts.fragment and target.suffix == ".html":
                tinfo = parsed.get(target) or parse(target)
                if unquote(parts.fragment) not in tinfo.ids:
                    problems.append(f"{page.relative_to(root.resolve())}: missing anchor {href}")
        for src in info.scripts:
            if "mathjax" in src.lower() and urlsplit(src).scheme:
                problems.append(f"{page.relative_to(root.resolve())}: MathJax loaded from the network ({src})")
    return problems


MARKERS = [
    (re.compile(r'class="problematic"'), "a Sphinx 'problematic' marker (unresolved reference)"),
    (re.compile(r"\{(prf:ref|eq|ref|cite:p|cite:t|numref)\}`"), "a MyST role left as raw text"),
    (re.compile(r"```\{"), "a MyST directive left as raw text"),
    (re.compile(r"Traceback \(most recent call last\)"), "a Python traceback"),
]


def check_markers(root: Path) -> list[str]:
    problems = []
    for page in sorted(root.rglob("*.html")):
        if "_static" in page.parts or "_sources" in page.parts:
            continue
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
  var column = document.querySelector("article.bd-article") || document.body;
  var wide = [];
  document.querySelectorAll("article table").forEach(function (t) {
    var box = t.closest(".pst-scrollable-table-container") || t.parentElement;
    var room = Math.min(box.clientWidth, column.clientWidth);
    if (t.scrollWidth > room + 1) wide.push((t.id || "(no id)") + ": " + t.scrollWidth + " px in " + room + " px");
  });
  var tables = document.querySelectorAll("article table").length;
  var anchor = "__ANCHOR__";
  if (anchor) {  // bring the anchor to the top of the page: hide everything of the article before it
    var el = document.getElementById(anchor);
    for (var n = el; n && n !== column; n = n.parentElement) {
      for (var s = n.previousElementSibling; s; s = s.previousElementSibling) s.style.display = "none";
    }
  }
  document.title = "LAYOUT " + JSON.stringify({tables: tables, column: column.clientWidth, wide: wide});
});
</script>"""


def _with_script(page: Path, anchor: str = ""):
    """A temporary copy of ``page`` beside it (so that its assets resolve) with the layout script."""
    html = page.read_text(encoding="utf-8")
    copy = page.with_name(f".layout-{page.name}")
    copy.write_text(html.replace("</body>", _LAYOUT_SCRIPT.replace("__ANCHOR__", anchor) + "</body>"),
                    encoding="utf-8")
    return copy


def _chromium_args(profile: str, width: int, height: int) -> list:
    exe = chromium()
    if exe is None:
        raise SystemExit("headless layout checks need Debian's chromium package (apt-get install chromium)")
    return [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
            f"--window-size={width},{height}", "--virtual-time-budget=15000"]


def wide_tables(page: Path, width: int = 1280) -> tuple[int, list[str]]:
    """The tables of ``page`` wider than the text column at ``width`` px: ``(tables, problems)``."""
    copy = _with_script(page)
    try:
        with tempfile.TemporaryDirectory() as profile:
            dom = subprocess.run(_chromium_args(profile, width, 1200) + ["--dump-dom", copy.resolve().as_uri()],
                                 check=True, capture_output=True, text=True, timeout=120).stdout
    finally:
        copy.unlink()
    found = re.search(r"<title>LAYOUT (.*?)</title>", dom, flags=re.S)
    if not found:
        return 0, [f"{page.name}: the layout script did not run"]
    report = json.loads(html_lib.unescape(found.group(1)))
    return report["tables"], [f"{page.name} at {width} px: table {w}" for w in report["wide"]]


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
    ap.add_argument("--anchors", nargs="*", default=[],
                    help="PAGE#ID: also screenshot these places (1280 and 390 px), e.g. a table or a figure")
    args = ap.parse_args(argv)
    root: Path = args.html
    if not (root / "index.html").exists():
        print(f"{root}/index.html not found: run `make book` first", file=sys.stderr)
        return 2
    problems = check_links(root) + check_markers(root)
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
            # at 1280 px every table must fit the text column, with no horizontal scroll
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
    n_pages = len([p for p in root.rglob('*.html') if '_static' not in p.parts])
    if problems:
        print(f"{len(problems)} problem(s) in {n_pages} pages:")
        for p in problems:
            print(f"- {p}")
        return 1
    print(f"site OK: {n_pages} pages, every internal link and anchor resolves, no problem markers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
