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
   at; pages are opened from ``file://`` so nothing leaves the machine.

Exits with status 1 and a list of problems when a check fails.
"""

from __future__ import annotations

import argparse
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
