"""``fit --mechanism auto`` against the mechanism it selects, on 10^6 streamed rows (d = 12 and an intercept); by hand.

    .venv/bin/python benchmarks/bench_auto.py                 # 10^6 rows, 3 paired repetitions
    .venv/bin/python benchmarks/bench_auto.py --rows 200000 --repeat 1

Two tables of the same rows (written once as Parquet in parts of 10^6 rows by ``bench_streaming.write_parts``),
one with the paper's three groups of levels (``sum(eps) / d^2`` far above the threshold: ``auto`` selects SSP at its
public ridge) and one with every level divided by 1,000 (far below: the private mean).  For each, ``python -m
pdp_lib fit --mechanism auto --intercept`` and the same command with the mechanism it selected given by hand
(``--mechanism ssp --lam <its ridge>``, or ``--mechanism mean``), each in a fresh interpreter, alternately, with the
same seed; the ratio of the medians.  The two model files must hold the same estimate.  Nothing depends on wall time.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_streaming import write_parts  # noqa: E402


def _fit(folder: Path, out: Path, extra: list) -> float:
    args = [sys.executable, "-m", "pdp_lib", "fit", str(folder), "--label", "y", "--epsilon", "eps", "--intercept",
            "--seed", "7", "--out", str(out), *extra]
    t0 = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "groups"
        base.mkdir()
        write_parts(base, args.rows)
        small = Path(tmp) / "small"
        small.mkdir()
        for part in sorted(base.glob("*.parquet")):
            table = pq.read_table(part)
            eps = table.column("eps").to_numpy() / 1000.0
            pq.write_table(table.set_column(table.schema.get_field_index("eps"), "eps", [eps]), small / part.name)
        print(f"| levels | rows | auto chose | auto (s) | the chosen mechanism by hand (s) | ratio |")
        print("|---|---|---|---|---|---|")
        for name, folder in (("the paper's groups", base), ("the groups / 1000", small)):
            out_auto, out_hand = Path(tmp) / "auto.json", Path(tmp) / "hand.json"
            _fit(folder, out_auto, ["--mechanism", "auto"])                       # warm the file cache
            record = json.loads(out_auto.read_text())
            chose = record["mechanism"]
            hand = ["--mechanism", chose] + (["--lam", repr(record["lam"])] if chose == "ssp" else [])
            times = {"auto": [], "hand": []}
            for _ in range(args.repeat):
                times["auto"].append(_fit(folder, out_auto, ["--mechanism", "auto"]))
                times["hand"].append(_fit(folder, out_hand, hand))
            a, h = json.loads(out_auto.read_text()), json.loads(out_hand.read_text())
            assert (a["coef"], a["intercept"]) == (h["coef"], h["intercept"]), "auto and its choice differ"
            ta, th = statistics.median(times["auto"]), statistics.median(times["hand"])
            print(f"| {name} | {args.rows:,} | {chose} | {ta:.2f} | {th:.2f} | {ta / th:.2f} |")


if __name__ == "__main__":
    main()
