"""The command line: ``python -m pdp_lib reproduce TARGET [options]`` and ``python -m pdp_lib fit DATA [options]``.

::

    python -m pdp_lib reproduce TARGET [--runs N] [--seed S] [--replicates K]
                                       [--replicate-runs R] [--paper-runs P] [--split paper|redraw]
                                       [--bound paper|sharp]
                                       [--format csv|markdown] [--out FILE]
    TARGET: table-1 ... table-14 | figure-1 ... figure-18 | all | beyond-1 ... beyond-7 | tuning-1 | tuning-2
            | beyond

The band options default to what the book uses (:mod:`pdp_lib.experiments.settings`): seed
2024, 100 runs per replicate draw, the Monte Carlo error of the paper's 10,000-run averages,
and the paper's Medical Cost split, so ``reproduce table-4 --replicates 40`` prints the band of
the book's Table 4.

``--format csv`` (the default) writes a long table with the header
``param,column,value,low,high,paper`` (one row per cell, as :func:`pdp_lib.experiments.reproduce`
returns it); for ``all`` every row is preceded by a ``target`` column so that the rows of the
32 targets stay apart.  ``--format markdown``
writes one Markdown table per target.  A progress bar goes to stderr; the table goes to
stdout or ``FILE``.  Bad arguments exit with status 2 and a one-line message.

``tuning-1`` and ``tuning-2`` (in the ``beyond`` group) are the tables of the chapter *Choosing λ*:
PDP-OP's expected test loss under each rule for choosing ``lambda`` over the oracle's, one row per
rule (``param``) and dataset (``column``), under the paper's default profile and Jorgensen et al.'s
(:func:`pdp_lib.experiments.tuning_costs.tuning_costs_table`).  For them ``--replicates`` is the
number of draws of each dataset (the chapter uses 20), ``--runs`` the draws of the candidates'
noise, ``--bound`` the calibration; the splits are redrawn with every draw.

The backend is :func:`pdp_lib.experiments.reproduce_many`; the engine is derived in the
book's chapter *Exact loss moments* (``book/moments.ipynb``).

::

    python -m pdp_lib fit DATA --label COL --epsilon COL [--lam L] [--bounds FILE] [--bound paper|sharp]
                               [--intercept] [--ignore COL ...] [--clip] [--chunk-rows N] [--seed S]
                               [--sampler exact|float] [--mechanism output|ssp|gd|objective|mean|auto] [--delta D]
                               [--steps T]
                               [--scheduler ADDRESS]
                               --out MODEL
    python -m pdp_lib compare DATA --label COL --epsilon COL [--bounds FILE] [--intercept] [--ignore COL ...]
                                   [--clip] [--test-fraction F] [--lams L1,L2,...] [--masks M] [--delta D] [--draws N]
                                   [--seed S] --out DIR
    python -m pdp_lib predict MODEL DATA --out FILE

fits PDP-OP on a CSV or Parquet table (a file, a folder of parts or a glob) read in chunks, with
public bounds from a TOML file (:mod:`pdp_lib.io.public_bounds`), and writes the model as JSON: the
estimate and its columns, ``lambda``, ``B`` and ``eta``, and the privacy statement (the guarantee, the
neighbouring relation, what is public, the theorem and its paper, the floating-point status, a summary
of the public levels whose size does not depend on the number of rows, the bounds); no row, no seed,
nothing else computed from the private rows.  A row outside its bounds, a missing value or a level
that is missing, not positive or above 100 is refused with the file, the row and the column (status
2); ``--clip`` clamps out-of-range values instead and tells the operator, on standard error and
marked as not private, how many rows it changed.  With ``--scheduler`` the sums run as tasks on a Dask cluster
(:mod:`pdp_lib.io.dask_fit`), one per partition, and the noise is drawn here.  ``compare`` splits the
rows into training and test rows and writes every mechanism's exact expected test loss over a grid
of ``lambda`` (:mod:`pdp_lib.io.comparison`) as ``comparison.csv``, ``comparison.md`` and
``comparison.png`` in ``DIR``, each saying that its losses are in the scaled label's units and that the
comparison is not private (it reads the test rows), with the training mean's loss beside the
mechanisms'.  ``predict`` maps a model back to the label's units for every row of a table.
"""

from __future__ import annotations

import os
import sys

from ..experiments import settings
from .options import Exit, Parser, check_out_file, int_at_least
from .own_data import add_compare, add_fit, add_predict, compare, fit, predict

__all__ = ["main", "build_parser"]

_TARGETS_HELP = ("table-1 ... table-14 | figure-1 ... figure-18 | all (the paper's 14 tables and 18 figures) | "
                 "beyond-1 ... beyond-7 | beyond (the chapter 'Does personalization pay?': PDP-OP with the "
                 "sharp bound, the best public threshold, oracle thresholds, the diabetes data; and "
                 "tuning-1, tuning-2: the chapter 'Choosing λ')")

def build_parser() -> Parser:
    """The argument parser of ``python -m pdp_lib``."""
    parser = Parser(prog="python -m pdp_lib",
                     description="Rebuild the tables and figures of 'Personalized Differential "
                                 "Privacy for Ridge Regression' (PDP-OP), or fit PDP-OP on your own data.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    rep = sub.add_parser("reproduce", help="rebuild a table or figure of the paper",
                         description="Rebuild a table or figure of the paper, beside its published values.")
    rep.add_argument("target", metavar="TARGET", help=_TARGETS_HELP)
    rep.add_argument("--runs", type=int_at_least("--runs", 1), default=10_000,
                     help="runs of the mechanisms per cell (default 10000, as in the paper)")
    rep.add_argument("--seed", type=int_at_least("--seed", 0), default=settings.SEED,
                     help=f"root seed of every draw (default {settings.SEED}, the book's)")
    rep.add_argument("--replicates", type=int_at_least("--replicates", 1), default=1,
                     help="independent draws of what the paper drew at random (synthetic data, "
                          "privacy profile, Jorgensen masks) for the 2.5%%/97.5%% range "
                          f"(default 1: no range; the book's tables use {settings.REPLICATES})")
    rep.add_argument("--replicate-runs", type=int_at_least("--replicate-runs", 1), default=None,
                     help=f"runs per cell in replicate draws 1, 2, ... (default {settings.REPLICATE_RUNS} "
                          "or --runs if smaller, as in the book; the draw reported always uses --runs)")
    rep.add_argument("--paper-runs", type=int_at_least("--paper-runs", 0), default=settings.PAPER_RUNS,
                     help="runs behind each published average, whose Monte Carlo error the range "
                          f"includes (default {settings.PAPER_RUNS}, the paper's; 0 leaves it out)")
    rep.add_argument("--split", choices=settings.SPLITS, default=settings.SPLIT,
                     help="'paper' (default, as in the book): every replicate keeps the paper's "
                          "Medical Cost split (random_state=21); 'redraw': replicates redraw it")
    rep.add_argument("--bound", choices=settings.BOUNDS, default="paper",
                     help="norm bound of every private mechanism: 'paper' (default), the B(lambda) of "
                          "Lemma A.1 the published numbers used, or 'sharp', its exact supremum "
                          "B*(lambda): the same privacy with less noise")
    rep.add_argument("--format", choices=("csv", "markdown"), default="csv",
                     help="output format (default csv)")
    rep.add_argument("--out", metavar="FILE", default=None, help="write to FILE instead of stdout")
    add_fit(sub)
    add_compare(sub)
    add_predict(sub)
    return parser



def _targets(name: str):
    from ..experiments import BEYOND_TARGET_NAMES, PAPER_TARGET_NAMES, TARGET_NAMES

    if name == "all":
        return list(PAPER_TARGET_NAMES)
    from ..experiments.tuning_costs import TUNING_TARGETS

    if name == "beyond":
        return list(BEYOND_TARGET_NAMES) + list(TUNING_TARGETS)
    if name in TARGET_NAMES or name in TUNING_TARGETS:
        return [name]
    raise Exit(2, f"python -m pdp_lib reproduce: error: unknown TARGET {name!r}; "
                   f"allowed: {_TARGETS_HELP}")


def _render(tables: dict, fmt: str, with_target: bool) -> str:
    import pandas as pd  # noqa: PLC0415 - only when rendering

    from ..experiments import OUTPUT_COLUMNS, to_markdown

    from ..experiments.tuning_costs import TUNING_TARGETS, tuning_markdown

    if fmt == "markdown":
        return "\n".join((tuning_markdown if name in TUNING_TARGETS else to_markdown)(name, table)
                         for name, table in tables.items())
    frames = [table.loc[:, list(OUTPUT_COLUMNS)].assign(target=name) for name, table in tables.items()]
    long = pd.concat(frames, ignore_index=True)
    columns = (["target"] if with_target else []) + list(OUTPUT_COLUMNS)
    return long.to_csv(columns=columns, index=False, lineterminator="\n")   # floats as repr, NaN empty


def _run(argv) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "fit":
        return fit(args)
    if args.command == "compare":
        return compare(args)
    if args.command == "predict":
        return predict(args)
    names = _targets(args.target)
    if args.out is not None:  # fail before the computation, not after it
        check_out_file("reproduce", args.out)
    from ..experiments import reproduce_many
    from ..experiments.tuning_costs import TUNING_TARGETS, tuning_costs_table

    registry = [name for name in names if name not in TUNING_TARGETS]
    if len(registry) < len(names) and (args.runs < 2 or args.replicate_runs is not None):
        raise Exit(2, "python -m pdp_lib reproduce: error: the tuning targets take --runs 2 or more (draws of "
                       "the candidates' noise) and no --replicate-runs")
    tables = reproduce_many(registry, runs=args.runs, seed=args.seed, replicates=args.replicates,
                            replicate_runs=args.replicate_runs, paper_runs=args.paper_runs or None,
                            split=args.split, bound=args.bound, progress=True) if registry else {}
    for name in (n for n in names if n in TUNING_TARGETS):
        tables[name] = tuning_costs_table(name, draws=args.replicates, noise_draws=args.runs,
                                          seed=args.seed, B="sharp" if args.bound == "sharp" else None)
    text = _render(tables, args.format, with_target=args.target in ("all", "beyond"))
    if args.out is None:
        sys.stdout.write(text)
    else:
        try:
            tmp = f"{args.out}.partial"
            with open(tmp, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
            os.replace(tmp, args.out)  # the file appears complete or not at all
        except OSError as exc:
            raise Exit(2, f"python -m pdp_lib reproduce: error: cannot write --out {args.out!r}: "
                           f"{exc.strerror}") from None
    return 0


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 on success, 2 on bad arguments, 1 on an unexpected error).

    An unexpected error is reported in one line naming its type, not as a traceback (``PDP_LIB_TRACEBACK=1`` shows
    it).  The commands write their files last: ``fit`` one model file, ``predict`` a temporary file renamed at the
    end, ``compare`` its three files one after another (an error while writing them can leave the first).
    """
    try:
        return _run(sys.argv[1:] if argv is None else list(argv))
    except Exit as exc:
        if exc.message:
            stream = sys.stdout if exc.status == 0 else sys.stderr
            print(exc.message.splitlines()[0] if exc.status else exc.message, file=stream)
        return exc.status
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:                              # noqa: BLE001 - one line, whatever went wrong
        if os.environ.get("PDP_LIB_TRACEBACK"):
            raise
        text = " ".join(str(exc).split()) or "no message"
        print(f"python -m pdp_lib: internal error: {type(exc).__name__}: {text} (set PDP_LIB_TRACEBACK=1 for the "
              f"traceback)", file=sys.stderr)
        return 1

