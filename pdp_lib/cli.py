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

    python -m pdp_lib fit DATA --label COL --epsilon COL --lam L [--bounds FILE] [--bound paper|sharp]
                               [--intercept] [--ignore COL ...] [--clip] [--chunk-rows N] [--seed S]
                               [--sampler exact|float] [--mechanism output|ssp|gd|objective] [--delta D] [--steps T]
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

import argparse
import importlib.util
import os
import sys
from contextlib import contextmanager
from pathlib import Path

from .experiments import settings

__all__ = ["main", "build_parser"]

_TARGETS_HELP = ("table-1 ... table-14 | figure-1 ... figure-18 | all (the paper's 14 tables and 18 figures) | "
                 "beyond-1 ... beyond-7 | beyond (the chapter 'Does personalization pay?': PDP-OP with the "
                 "sharp bound, the best public threshold, oracle thresholds, the diabetes data; and "
                 "tuning-1, tuning-2: the chapter 'Choosing λ')")


class _Exit(Exception):
    def __init__(self, status: int, message: str = ""):
        super().__init__(message)
        self.status = status
        self.message = message


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and status 2 (no usage dump)."""

    def error(self, message):  # noqa: D401 - argparse API
        raise _Exit(2, f"{self.prog}: error: {message}")

    def exit(self, status=0, message=None):
        raise _Exit(status, (message or "").rstrip("\n"))


def _int_at_least(name, minimum):
    """An argparse type: an integer ``>= minimum``, refused with a message naming ``name`` and the range."""
    def convert(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} = {text!r} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{name} = {value} is outside the allowed range [{minimum}, inf)")
        return value
    return convert


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m pdp_lib``."""
    parser = _Parser(prog="python -m pdp_lib",
                     description="Rebuild the tables and figures of 'Personalized Differential "
                                 "Privacy for Ridge Regression' (PDP-OP), or fit PDP-OP on your own data.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    rep = sub.add_parser("reproduce", help="rebuild a table or figure of the paper",
                         description="Rebuild a table or figure of the paper, beside its published values.")
    rep.add_argument("target", metavar="TARGET", help=_TARGETS_HELP)
    rep.add_argument("--runs", type=_int_at_least("--runs", 1), default=10_000,
                     help="runs of the mechanisms per cell (default 10000, as in the paper)")
    rep.add_argument("--seed", type=_int_at_least("--seed", 0), default=settings.SEED,
                     help=f"root seed of every draw (default {settings.SEED}, the book's)")
    rep.add_argument("--replicates", type=_int_at_least("--replicates", 1), default=1,
                     help="independent draws of what the paper drew at random (synthetic data, "
                          "privacy profile, Jorgensen masks) for the 2.5%%/97.5%% range "
                          f"(default 1: no range; the book's tables use {settings.REPLICATES})")
    rep.add_argument("--replicate-runs", type=_int_at_least("--replicate-runs", 1), default=None,
                     help=f"runs per cell in replicate draws 1, 2, ... (default {settings.REPLICATE_RUNS} "
                          "or --runs if smaller, as in the book; the draw reported always uses --runs)")
    rep.add_argument("--paper-runs", type=_int_at_least("--paper-runs", 0), default=settings.PAPER_RUNS,
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
    _add_fit(sub)
    _add_compare(sub)
    _add_predict(sub)
    return parser


def _positive_float(name):
    """An argparse type: a finite number ``> 0``, refused with a message naming ``name`` and the range."""
    def convert(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} = {text!r} is not a number") from None
        if not (value > 0 and value < float("inf")):
            raise argparse.ArgumentTypeError(f"{name} = {value!r} is outside the allowed range (0, inf)")
        return value
    return convert


def _add_fit(sub) -> None:
    from .mechanisms.registry import MECHANISMS, help_text

    fit = sub.add_parser("fit", help="fit PDP-OP on your own CSV or Parquet table",
                         description="Fit PDP-OP on a table with a privacy level per row, reading it in chunks "
                                     "(any number of rows), and write the model as JSON.")
    _add_data_options(fit)
    fit.add_argument("--lam", required=True, type=_lam_or_rule,
                     help="the ridge parameter, > 0; with --mechanism ssp and --delta also 'public' (the public ridge "
                          "of the book's chapter 'Beyond output perturbation', which reads no data) or 'auto' "
                          "(AdaSSP's ridge, chosen privately from its own release)")
    fit.add_argument("--bound", choices=settings.BOUNDS, default="paper",
                     help="'paper' (default): B(lambda) of Theorem 3.1; 'sharp': B*(lambda), less noise")
    fit.add_argument("--seed", type=_int_at_least("--seed", 0), default=None,
                     help="seed of the privacy noise (default: fresh entropy); the model never records it")
    fit.add_argument("--sampler", choices=("exact", "float"), default="exact",
                     help="'exact' (default): the lattice release, whose guarantee covers every rounding; "
                          "'float': the double-precision sampler, whose guarantee holds over the reals only: the "
                          "last bits of its output can reveal the estimate before noise (Mironov, CCS 2012)")
    fit.add_argument("--mechanism", choices=MECHANISMS, default=MECHANISMS[0], help=help_text())
    fit.add_argument("--delta", type=_open_fraction("--delta"), default=None,
                     help="with --mechanism ssp or gd: every row gets (epsilon_i, delta)-DP, the noise Gaussian and "
                          "the sums weighted by mu*(epsilon_i, delta); required by gd")
    fit.add_argument("--steps", type=_int_at_least("--steps", 1), default=None,
                     help="with --mechanism gd: the number of gradient steps (default 20, at most 100,000)")
    fit.add_argument("--scheduler", metavar="ADDRESS", default=None,
                     help="compute the sums on this Dask cluster (e.g. tcp://host:8786), one task per partition; "
                          "the noise is drawn here")
    fit.add_argument("--out", metavar="MODEL", required=True, help="the model file to write (JSON)")


def _lam_or_rule(text):
    """``--lam``: a number > 0, or the rule 'public' or 'auto' (checked against the mechanism in ``_fit``)."""
    if text in ("public", "auto"):
        return text
    return _positive_float("--lam")(text)


def _open_fraction(name):
    def convert(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} = {text!r} is not a number in (0, 1)") from None
        if not 0 < value < 1:
            raise argparse.ArgumentTypeError(f"{name} = {text!r} is outside the allowed range (0, 1)")
        return value
    return convert


def _lam_list(text):
    """An argparse type: comma-separated values of ``lambda``, each finite and ``> 0``, distinct."""
    convert = _positive_float("--lams")
    values = [convert(part) for part in text.split(",")]
    if len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"--lams = {text!r} repeats a value")
    return values


def _add_data_options(cmd) -> None:
    cmd.add_argument("data", metavar="DATA", help="a CSV or Parquet file, a folder of them, or a glob")
    cmd.add_argument("--label", required=True, metavar="COL", help="the label's column")
    cmd.add_argument("--epsilon", required=True, metavar="COL", help="the column of privacy levels (each in (0, 100]; public)")
    cmd.add_argument("--bounds", metavar="FILE", default=None,
                     help="public bounds (TOML: [label] and [features.<name>], each with lower and upper); "
                          "without it every other column is a feature already in [0, 1] and the label in [-1, 1]")
    cmd.add_argument("--clip", action="store_true",
                     help="clamp values outside their bounds instead of refusing them (the number of rows clamped "
                          "goes to standard error for the operator, marked as not private, never to the model)")
    cmd.add_argument("--levels-as-given", action="store_true",
                     help="take a level column that looks like percentages (whole numbers from 1 to 100 with the "
                          "largest at least 20, or a largest level of 100) as it is, without the warning")
    cmd.add_argument("--intercept", action="store_true",
                     help="fit an intercept: a constant feature 1 appended to every row (inside the domain, so the "
                          "guarantee holds with d + 1 features), penalized by lambda like every coefficient (unlike "
                          "scikit-learn's: the guarantee's proof uses strong convexity in every direction); the model "
                          "file holds it as 'intercept'")
    cmd.add_argument("--ignore", metavar="COL", action="append", default=[],
                     help="a column to leave out on purpose (repeat for several); any other column that is "
                          "neither a declared feature, the label nor the level is refused")
    cmd.add_argument("--chunk-rows", type=_int_at_least("--chunk-rows", 1), default=None,
                     help="rows read at a time (default 200000; not with --scheduler, where a file is a partition)")


def _add_compare(sub) -> None:
    cmp = sub.add_parser("compare", help="compare PDP-OP with the book's baselines on your own table",
                         description="Split a table into training and test rows, and write every mechanism's exact "
                                     "expected test loss over a grid of lambda (CSV, Markdown, PNG).")
    _add_data_options(cmp)
    cmp.add_argument("--test-fraction", type=float, default=0.2, help="share of test rows, in (0, 1) (default 0.2)")
    cmp.add_argument("--lams", type=_lam_list, default=None,
                     help="comma-separated values of lambda (default: the book's grid 0.01 ... 1000)")
    cmp.add_argument("--masks", type=_int_at_least("--masks", 2), default=50,
                     help="Jorgensen et al.'s sampling masks per threshold (default 50)")
    cmp.add_argument("--delta", type=_open_fraction("--delta"), default=None,
                     help="in (0, 1): also the mechanisms under (epsilon_i, delta) (Gaussian SSP at the public "
                          "ridge, AdaSSP, noisy gradient descent) and the private mean under delta")
    cmp.add_argument("--draws", type=_int_at_least("--draws", 2), default=200,
                     help="releases of SSP and of objective perturbation per lambda, for their Monte Carlo means "
                          "(default 200)")
    cmp.add_argument("--seed", type=_int_at_least("--seed", 0), default=0,
                     help="names the split, the sampling masks and the Monte Carlo releases (default 0)")
    cmp.add_argument("--out", metavar="DIR", required=True,
                     help="folder for comparison.csv, comparison.md and comparison.png (created if missing)")


def _bounds(args):
    """The public bounds: the ``--bounds`` file, else the domain's (features in [0, 1], label in [-1, 1])."""
    import dataclasses

    from .io import public_bounds

    if args.bounds is None:
        bounds = public_bounds.domain_bounds(args.data, args.label, args.epsilon)
    else:
        bounds = public_bounds.read_bounds(args.bounds)
    return dataclasses.replace(bounds, intercept=bool(args.intercept))


def _add_predict(sub) -> None:
    pred = sub.add_parser("predict", help="predict the label, in its own units, with a model file",
                          description="Predict the label of every row of a table with a model written by fit, in "
                                      "the label's own units (post-processing: no privacy cost).")
    pred.add_argument("model", metavar="MODEL", help="a model file written by python -m pdp_lib fit")
    pred.add_argument("data", metavar="DATA", help="a CSV, TSV or Parquet file, a folder of them, or a glob")
    pred.add_argument("--chunk-rows", type=_int_at_least("--chunk-rows", 1), default=None,
                      help="rows read at a time (default 200000)")
    pred.add_argument("--out", metavar="FILE", required=True, help="the predictions (CSV, one column 'prediction')")
    pred.add_argument("--clip", action="store_true",
                      help="clamp a feature outside the model's bounds to them instead of refusing the row")
    pred.add_argument("--clip-predictions", action="store_true",
                      help="clamp each prediction to the label's bounds (a prediction outside them is extrapolation)")


def _predict(args) -> int:
    from .io import model_file, tables

    _check_out_file("predict", args.out)
    _refuse_overwriting("predict", [args.out], args)
    _check_optional(args)
    with _refusing("predict"):
        model = model_file.read_model(args.model)
        rows = model_file.predict_file(model, args.data, args.out, chunk_rows=args.chunk_rows or tables.CHUNK_ROWS,
                                      clip=args.clip, clip_predictions=args.clip_predictions)
    print(f"predicted {rows} rows in the label's units; wrote {args.out}")
    return 0


@contextmanager
def _refusing(command: str):
    """A ``ValueError`` or ``OSError`` inside exits with status 2 and one line naming ``command``."""
    try:
        yield
    except (ValueError, OSError) as exc:
        raise _Exit(2, f"python -m pdp_lib {command}: error: {exc}") from None


def _sums_rows(sums) -> int:
    """The training rows behind ``sums`` (streamed sums or compare's)."""
    return sums.plain.rows if hasattr(sums, "plain") else sums.rows


def _warn_noise(release) -> None:
    """Warn, on standard error, when the release is, or may be, mostly noise (:mod:`pdp_lib.mechanisms.noise_energy`).

    Advisory: a criterion that cannot be computed (AdaSSP's ridge of 0 has no bound) says nothing, and nothing
    here can fail the command after the model file is written.
    """
    from .mechanisms.noise_energy import noise_warning

    try:
        energy = release.noise_energy()
        text = None if energy is None else noise_warning(release.theta, energy, exact=release.exact_energy)
    except Exception:                                     # noqa: BLE001 - advisory: never fails the command
        return
    if text is not None:
        print(f"warning: {text}", file=sys.stderr)


def _warn_percentages(args, sums) -> None:
    """Warn, on standard error, when the level column looks like percentages
    (:func:`pdp_lib.io.tables.look_like_percentages`): before any noise is drawn or any file written."""
    import numpy as np

    from .io.tables import look_like_percentages

    if hasattr(sums, "levels"):                          # compare: the distinct levels of the training rows
        levels = np.asarray(sums.levels, dtype=float)
        low, high, whole = float(levels.min()), float(levels.max()), bool(np.all(levels == np.floor(levels)))
    else:
        low, high, whole = sums.level_min, sums.level_max, sums.levels_whole
    if not args.levels_as_given and _sums_rows(sums) and look_like_percentages(low, high, whole):
        print(f"warning: the levels in column {args.epsilon!r} look like percentages (from {low:g} to "
              f"{high:g}): a level of {high:g} promises almost no privacy; if they are "
              f"percentages, divide the column by 100; to take them as they are, pass --levels-as-given",
              file=sys.stderr)


def _report_clipped(args, sums) -> None:
    """After ``--clip``, tell the operator (on standard error) how many rows were clamped.

    The count is computed from the private rows: moving one row across its bounds changes it with
    certainty, so it is never written to the model file or to standard output.
    """
    if args.clip:
        print(f"not private, for the operator only: --clip clamped {sums.clipped} row(s); this count depends "
              "on the private rows and is not released", file=sys.stderr)


def _check_out_file(command: str, out: str) -> None:
    """Refuse an ``--out`` file that cannot be written, before any row is read."""
    if os.path.isdir(out):
        raise _Exit(2, f"python -m pdp_lib {command}: error: --out {out!r} is a folder; give the name of a file")
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        raise _Exit(2, f"python -m pdp_lib {command}: error: cannot write --out {out!r}: "
                       f"no writable folder {folder!r} for it")


def _inputs(args) -> list:
    """Every file the command will read: the data files, ``--bounds`` and the model (those that exist)."""
    from .io import tables

    found = []
    if getattr(args, "data", None) is not None:
        try:
            found += [Path(f) for f in tables.data_files(args.data)]
        except (OSError, ValueError):
            pass                                         # refused with its own message when read
    for name in ("bounds", "model"):
        value = getattr(args, name, None)
        if value is not None and os.path.isfile(value):
            found.append(Path(value))
    return found


def _refuse_overwriting(command: str, outputs, args) -> None:
    """Refuse, before any row is read, an output that is one of the files the command reads.

    Compared as files, not names: the same device and inode (:func:`os.path.samefile`), so a hard link, a
    symbolic link or another spelling of the path is caught too.  Nothing is written.
    """
    for out in outputs:
        out = Path(out)
        if not out.exists():
            continue                                     # a file that does not exist yet is read by no one
        for source in _inputs(args):
            if os.path.samefile(out, source):
                flag = "--out" if command != "compare" else f"--out (its {out.name})"
                raise _Exit(2, f"python -m pdp_lib {command}: error: {flag} {str(out)!r} is {str(source)!r}, a file "
                               f"this command reads: it would be overwritten; write the output elsewhere")


def _check_out_folder(command: str, out: Path) -> None:
    """Refuse an ``--out`` folder that is a file, or that cannot be created or written, before any row is read."""
    if out.exists() and not out.is_dir():
        raise _Exit(2, f"python -m pdp_lib {command}: error: --out {str(out)!r} is a file, not a folder")
    nearest = out if out.exists() else next((p for p in out.absolute().parents if p.exists()), None)
    if nearest is None or not os.access(nearest, os.W_OK):
        raise _Exit(2, f"python -m pdp_lib {command}: error: cannot write --out {str(out)!r}: no writable folder")


def _compare(args) -> int:
    from pathlib import Path

    from tqdm import tqdm

    from .io import comparison, tables
    from .tuning import DEFAULT_GRID

    out = Path(args.out)
    _check_out_folder("compare", out)
    _refuse_overwriting("compare", [out / name for name in ("comparison.csv", "comparison.md", "comparison.png")],
                        args)

    _check_optional(args)
    from .replication import rendering

    with _refusing("compare"):
        bounds = _bounds(args)
        with tqdm(unit=" rows", desc="compare", file=sys.stderr) as bar:
            sums = comparison.compare_sums(args.data, bounds, args.label, args.epsilon,
                                           test_fraction=args.test_fraction, seed=args.seed, masks=args.masks,
                                           clip=args.clip, chunk_rows=args.chunk_rows or tables.CHUNK_ROWS,
                                           progress=bar.update, ignore=args.ignore, delta=args.delta)
        _warn_percentages(args, sums)
        table = comparison.expected_losses(sums, args.lams or DEFAULT_GRID, draws=args.draws, seed=args.seed)
        out.mkdir(parents=True, exist_ok=True)          # only once every row has been read and checked
        # every output says its units and that it is not private (comparison.NOTE)
        table.assign(units="squared scaled label ([-1, 1]); not private: reads the test rows").to_csv(
            out / "comparison.csv", index=False, lineterminator="\n")
        se_note = ("A value followed by ± is a Monte Carlo mean over releases; the ± gives one standard error of that "
                   "mean, as a percentage of the loss.\n\n") if (table["se"] > 0).any() else ""
        (out / "comparison.md").write_text(rendering.comparison_markdown(table, comparison.OWN_RIDGE) + "\n\n"
                                           + se_note + comparison.NOTE
                                           + "\n", encoding="utf-8")
        drawn = importlib.util.find_spec("matplotlib") is not None
        if drawn:
            fig = rendering.comparison_figure(table, title=f"{Path(str(args.data)).name}: {sums.plain.rows} "
                                                           f"training, {sums.test.rows} test rows", note=comparison.NOTE)
            fig.savefig(out / "comparison.png", dpi=150)
        else:
            print("comparison.png not drawn: it needs matplotlib: pip install 'pdp_lib[plot]'", file=sys.stderr)

    _report_clipped(args, sums)
    print(f"compared on {sums.plain.rows} training and {sums.test.rows} test rows; "
          f"wrote {out / 'comparison.csv'}, comparison.md{' and comparison.png' if drawn else ''}. {comparison.NOTE}")
    verdict = comparison.private_mean_verdict(table)
    if verdict is not None:
        print(verdict)
    return 0


def _require(module: str, extra: str, what: str) -> None:
    """Refuse, in one line naming the extra to install, when an optional dependency is missing."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise _Exit(2, f"python -m pdp_lib: error: {what} needs {module}, which is not installed: "
                       f"pip install 'pdp_lib[{extra}]'")


def _check_optional(args) -> None:
    """Every optional dependency the command will need, checked before any row is read."""
    from .io import tables

    if getattr(args, "scheduler", None) is not None:
        _require("dask", "cluster", "--scheduler")
        _require("distributed", "cluster", "--scheduler")
        if args.chunk_rows is not None:
            raise _Exit(2, "python -m pdp_lib fit: error: --chunk-rows sets the rows read at a time here; with "
                           "--scheduler every file is one partition: leave --chunk-rows out")
    try:
        files = tables.data_files(args.data)
    except (OSError, ValueError):
        return                                           # refused with its own message below
    if tables.file_kind(files[0]) == "parquet":
        _require("pyarrow", "parquet", "reading Parquet")


def _cluster_sums(args, bounds):
    """The sums on the Dask cluster at ``--scheduler`` (:mod:`pdp_lib.io.dask_fit`), one partition per file."""
    import dask.dataframe as dd
    from distributed import Client

    from .io import dask_fit, tables

    files = tables.data_files(args.data)
    names = [str(f) for f in files]
    columns, allowed = tables.table_columns(bounds, args.label, args.epsilon, args.ignore)
    for path in files:                                   # the header of every file, before the cluster runs
        tables.check_columns(path, tables.header(path), columns, allowed)
    if tables.file_kind(files[0]) == "parquet":
        frame = dd.read_parquet(names, split_row_groups=False)
    else:   # every field as text: the partition's task refuses a field that is not a number, by file and line
        frame = dd.read_csv(names, blocksize=None, dtype=object,
                            sep="\t" if tables.file_kind(files[0]) == "tsv" else ",")
    with Client(args.scheduler) as client:
        return dask_fit.dask_sums(frame, bounds, args.label, args.epsilon, clip=args.clip, client=client,
                                  sources=files, delta=args.delta)


def _fit(args) -> int:
    from .io import model_file, streaming
    from .io.tables import CHUNK_ROWS
    from .mechanisms.registry import check_combination, fit_message, fit_sums, fit_warnings

    _check_out_file("fit", args.out)
    _refuse_overwriting("fit", [args.out], args)
    try:
        check_combination(args.mechanism, delta=args.delta, steps=args.steps, sampler=args.sampler, lam=args.lam,
                          bound=None if args.bound == "paper" else args.bound, flags=True)
    except ValueError as exc:
        raise _Exit(2, f"python -m pdp_lib fit: error: {exc}") from None
    _check_optional(args)
    with _refusing("fit"):
        bounds = _bounds(args)
        if args.scheduler is None:
            sums = streaming.accumulate(args.data, bounds, args.label, args.epsilon, clip=args.clip,
                                        chunk_rows=args.chunk_rows or CHUNK_ROWS, ignore=args.ignore,
                                        delta=args.delta)
        else:
            sums = _cluster_sums(args, bounds)
        _warn_percentages(args, sums)
        B = "sharp" if args.bound == "sharp" else None
        release = fit_sums(sums, args.lam, B=B, rng=args.seed, sampler=args.sampler, mechanism=args.mechanism,
                           delta=args.delta, steps=args.steps)
        model_file.write_model(model_file.model_record(release, bounds, sums, args.sampler), args.out)

    _report_clipped(args, sums)
    _warn_noise(release)
    print(f"fitted on {sums.rows} rows{fit_message(release)}; model written to {args.out}")
    for text in fit_warnings(release):
        print(f"warning: {text}", file=sys.stderr)
    return 0


def _targets(name: str):
    from .experiments import BEYOND_TARGET_NAMES, PAPER_TARGET_NAMES, TARGET_NAMES

    if name == "all":
        return list(PAPER_TARGET_NAMES)
    from .experiments.tuning_costs import TUNING_TARGETS

    if name == "beyond":
        return list(BEYOND_TARGET_NAMES) + list(TUNING_TARGETS)
    if name in TARGET_NAMES or name in TUNING_TARGETS:
        return [name]
    raise _Exit(2, f"python -m pdp_lib reproduce: error: unknown TARGET {name!r}; "
                   f"allowed: {_TARGETS_HELP}")


def _render(tables: dict, fmt: str, with_target: bool) -> str:
    import pandas as pd  # noqa: PLC0415 - only when rendering

    from .experiments import OUTPUT_COLUMNS, to_markdown

    from .experiments.tuning_costs import TUNING_TARGETS, tuning_markdown

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
        return _fit(args)
    if args.command == "compare":
        return _compare(args)
    if args.command == "predict":
        return _predict(args)
    names = _targets(args.target)
    if args.out is not None:  # fail before the computation, not after it
        _check_out_file("reproduce", args.out)
    from .experiments import reproduce_many
    from .experiments.tuning_costs import TUNING_TARGETS, tuning_costs_table

    registry = [name for name in names if name not in TUNING_TARGETS]
    if len(registry) < len(names) and (args.runs < 2 or args.replicate_runs is not None):
        raise _Exit(2, "python -m pdp_lib reproduce: error: the tuning targets take --runs 2 or more (draws of "
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
            raise _Exit(2, f"python -m pdp_lib reproduce: error: cannot write --out {args.out!r}: "
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
    except _Exit as exc:
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
