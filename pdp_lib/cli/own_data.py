"""The commands on a user's own table: ``fit`` (a model file), ``compare`` (every mechanism's expected test loss)
and ``predict`` (the label in its own units); the mechanisms are the registry's
(:mod:`pdp_lib.mechanisms.registry`)."""

from __future__ import annotations

import importlib.util
import sys

from ..experiments import settings
from .options import (
    Exit,
    check_optional,
    check_out_file,
    check_out_folder,
    int_at_least,
    lam_list,
    lam_or_rule,
    open_fraction,
    refuse_overwriting,
    refusing,
)

__all__ = ["add_fit", "add_compare", "add_predict", "fit", "compare", "predict"]


def add_fit(sub) -> None:
    from ..mechanisms.registry import MECHANISMS, help_text

    fit = sub.add_parser("fit", help="fit PDP-OP on your own CSV or Parquet table",
                         description="Fit PDP-OP on a table with a privacy level per row, reading it in chunks "
                                     "(any number of rows), and write the model as JSON.")
    _add_data_options(fit)
    fit.add_argument("--lam", default=None, type=lam_or_rule,
                     help="the ridge parameter, > 0, required except with --mechanism mean or auto (which take none); "
                          "with --mechanism ssp and --delta also 'public' (the public ridge of the book's chapter "
                          "'Beyond output perturbation', which reads no data) or 'auto' (AdaSSP's ridge, chosen "
                          "privately from its own release)")
    fit.add_argument("--bound", choices=settings.BOUNDS, default="paper",
                     help="'paper' (default): B(lambda) of Theorem 3.1; 'sharp': B*(lambda), less noise")
    fit.add_argument("--seed", type=int_at_least("--seed", 0), default=None,
                     help="seed of the privacy noise (default: fresh entropy); the model never records it")
    fit.add_argument("--sampler", choices=("exact", "float"), default="exact",
                     help="'exact' (default): the lattice release, whose guarantee covers every rounding; "
                          "'float': the double-precision sampler, whose guarantee holds over the reals only: the "
                          "last bits of its output can reveal the estimate before noise (Mironov, CCS 2012)")
    fit.add_argument("--mechanism", choices=MECHANISMS, default=MECHANISMS[0], help=help_text())
    fit.add_argument("--delta", type=open_fraction("--delta"), default=None,
                     help="with --mechanism ssp or gd: every row gets (epsilon_i, delta)-DP, the noise Gaussian and "
                          "the sums weighted by mu*(epsilon_i, delta); required by gd")
    fit.add_argument("--steps", type=int_at_least("--steps", 1), default=None,
                     help="with --mechanism gd: the number of gradient steps (default 20, at most 100,000)")
    fit.add_argument("--scheduler", metavar="ADDRESS", default=None,
                     help="compute the sums on this Dask cluster (e.g. tcp://host:8786), one task per partition; "
                          "the noise is drawn here")
    fit.add_argument("--out", metavar="MODEL", required=True, help="the model file to write (JSON)")


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
    cmd.add_argument("--chunk-rows", type=int_at_least("--chunk-rows", 1), default=None,
                     help="rows read at a time (default 200000; not with --scheduler, where a file is a partition)")


def add_compare(sub) -> None:
    cmp = sub.add_parser("compare", help="compare PDP-OP with the book's baselines on your own table",
                         description="Split a table into training and test rows, and write every mechanism's exact "
                                     "expected test loss over a grid of lambda (CSV, Markdown, PNG).")
    _add_data_options(cmp)
    cmp.add_argument("--test-fraction", type=float, default=0.2, help="share of test rows, in (0, 1) (default 0.2)")
    cmp.add_argument("--lams", type=lam_list, default=None,
                     help="comma-separated values of lambda (default: the book's grid 0.01 ... 1000)")
    cmp.add_argument("--masks", type=int_at_least("--masks", 2), default=50,
                     help="Jorgensen et al.'s sampling masks per threshold (default 50)")
    cmp.add_argument("--delta", type=open_fraction("--delta"), default=None,
                     help="in (0, 1): also the mechanisms under (epsilon_i, delta) (Gaussian SSP at the public "
                          "ridge, AdaSSP, noisy gradient descent) and the private mean under delta")
    cmp.add_argument("--draws", type=int_at_least("--draws", 2), default=200,
                     help="releases of SSP and of objective perturbation per lambda, for their Monte Carlo means "
                          "(default 200)")
    cmp.add_argument("--seed", type=int_at_least("--seed", 0), default=0,
                     help="names the split, the sampling masks and the Monte Carlo releases (default 0)")
    cmp.add_argument("--group", metavar="COL", default=None,
                     help="a binary feature (every value 0 or 1 once mapped by the bounds) that is public: adds the "
                          "private means per group of it (pdp_lib.group_means), whose guarantee does not cover that "
                          "column; needs --intercept")
    cmp.add_argument("--out", metavar="DIR", required=True,
                     help="folder for comparison.csv, comparison.md and comparison.png (created if missing)")


def _bounds(args):
    """The public bounds: the ``--bounds`` file, else the domain's (features in [0, 1], label in [-1, 1])."""
    import dataclasses

    from ..io import public_bounds

    if args.bounds is None:
        bounds = public_bounds.domain_bounds(args.data, args.label, args.epsilon)
    else:
        bounds = public_bounds.read_bounds(args.bounds)
    return dataclasses.replace(bounds, intercept=bool(args.intercept))


def add_predict(sub) -> None:
    pred = sub.add_parser("predict", help="predict the label, in its own units, with a model file",
                          description="Predict the label of every row of a table with a model written by fit, in "
                                      "the label's own units (post-processing: no privacy cost).")
    pred.add_argument("model", metavar="MODEL", help="a model file written by python -m pdp_lib fit")
    pred.add_argument("data", metavar="DATA", help="a CSV, TSV or Parquet file, a folder of them, or a glob")
    pred.add_argument("--chunk-rows", type=int_at_least("--chunk-rows", 1), default=None,
                      help="rows read at a time (default 200000)")
    pred.add_argument("--out", metavar="FILE", required=True, help="the predictions (CSV, one column 'prediction')")
    pred.add_argument("--clip", action="store_true",
                      help="clamp a feature outside the model's bounds to them instead of refusing the row")
    pred.add_argument("--clip-predictions", action="store_true",
                      help="clamp each prediction to the label's bounds (a prediction outside them is extrapolation)")


def predict(args) -> int:
    from ..io import model_file, tables

    check_out_file("predict", args.out)
    refuse_overwriting("predict", [args.out], args)
    check_optional(args)
    with refusing("predict"):
        model = model_file.read_model(args.model)
        rows = model_file.predict_file(model, args.data, args.out, chunk_rows=args.chunk_rows or tables.CHUNK_ROWS,
                                      clip=args.clip, clip_predictions=args.clip_predictions)
    print(f"predicted {rows} rows in the label's units; wrote {args.out}")
    return 0


def _sums_rows(sums) -> int:
    """The training rows behind ``sums`` (streamed sums or compare's)."""
    return sums.plain.rows if hasattr(sums, "plain") else sums.rows


def _warn_noise(release) -> None:
    """Warn, on standard error, when the release is, or may be, mostly noise (:mod:`pdp_lib.mechanisms.noise_energy`).

    Advisory: a criterion that cannot be computed (AdaSSP's ridge of 0 has no bound) says nothing, and nothing
    here can fail the command after the model file is written.
    """
    from ..mechanisms.noise_energy import noise_warning

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

    from ..io.tables import look_like_percentages

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


def compare(args) -> int:
    from pathlib import Path

    from tqdm import tqdm

    from ..io import comparison, tables
    from ..tuning import DEFAULT_GRID

    out = Path(args.out)
    check_out_folder("compare", out)
    refuse_overwriting("compare", [out / name for name in ("comparison.csv", "comparison.md", "comparison.png")],
                        args)

    check_optional(args)
    from ..replication import comparison_report

    with refusing("compare"):
        bounds = _bounds(args)
        group = _group_column(args, bounds)
        with tqdm(unit=" rows", desc="compare", file=sys.stderr) as bar:
            sums = comparison.compare_sums(args.data, bounds, args.label, args.epsilon,
                                           test_fraction=args.test_fraction, seed=args.seed, masks=args.masks,
                                           clip=args.clip, chunk_rows=args.chunk_rows or tables.CHUNK_ROWS,
                                           progress=bar.update, ignore=args.ignore, delta=args.delta)
        _warn_percentages(args, sums)
        extra = None
        if group is not None:             # before the Monte Carlo: a column that is not binary is refused now
            try:
                extra = comparison.group_rows(sums, group, args.lams or DEFAULT_GRID)
            except ValueError as exc:
                raise ValueError(f"--group {args.group!r}: {exc}") from None
        table = comparison.expected_losses(sums, args.lams or DEFAULT_GRID, draws=args.draws, seed=args.seed)
        if extra is not None:
            import pandas as pd

            table = pd.concat([table, extra], ignore_index=True)
        out.mkdir(parents=True, exist_ok=True)          # only once every row has been read and checked
        # every output says its units and that it is not private (comparison.NOTE)
        table.assign(units="squared scaled label ([-1, 1]); not private: reads the test rows").to_csv(
            out / "comparison.csv", index=False, lineterminator="\n")
        se_note = ("A value followed by ± is a Monte Carlo mean over releases; the ± gives one standard error of that "
                   "mean, as a percentage of the loss.\n\n") if (table["se"] > 0).any() else ""
        (out / "comparison.md").write_text(comparison_report.comparison_markdown(table, comparison.OWN_RIDGE)
                                           + "\n\n" + se_note + comparison.NOTE
                                           + "\n", encoding="utf-8")
        drawn = importlib.util.find_spec("matplotlib") is not None
        if drawn:
            title = f"{Path(str(args.data)).name}: {sums.plain.rows} training, {sums.test.rows} test rows"
            fig = comparison_report.comparison_figure(table, title=title, note=comparison.NOTE)
            fig.savefig(out / "comparison.png", dpi=150)
        else:
            print("comparison.png not drawn: it needs matplotlib: pip install 'pdp_lib[plot]'", file=sys.stderr)

    _report_clipped(args, sums)
    print(f"compared on {sums.plain.rows} training and {sums.test.rows} test rows; "
          f"wrote {out / 'comparison.csv'}, comparison.md{' and comparison.png' if drawn else ''}. {comparison.NOTE}")
    verdict = comparison.private_mean_verdict(table)
    if verdict is not None:
        print(verdict)
    if group is not None:
        print(f"The rows {' and '.join(m for m in comparison.PUBLIC_COLUMN if m in set(table['method']))} take "
              f"{args.group!r} to be public: their guarantee covers the label and the other features, not that "
              f"column.")
    return 0


def _group_column(args, bounds):
    """The index of ``--group``'s feature in the bounds, or ``None``; refused before any row is read when it is not
    a feature or ``--intercept`` is missing."""
    if args.group is None:
        return None
    if args.group not in bounds.features:
        raise ValueError(f"--group {args.group!r} is not a feature of the bounds; use one of "
                         f"{', '.join(bounds.features)}")
    if not args.intercept:
        raise ValueError("--group needs --intercept: the private means per group are read off a model with the "
                         "intercept")
    return bounds.features.index(args.group)


def _cluster_sums(args, bounds):
    """The sums on the Dask cluster at ``--scheduler`` (:mod:`pdp_lib.io.dask_fit`), one partition per file."""
    import dask.dataframe as dd
    from distributed import Client

    from ..io import dask_fit, tables

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


def fit(args) -> int:
    from ..io import model_file, streaming
    from ..io.tables import CHUNK_ROWS
    from ..mechanisms.registry import check_combination, fit_message, fit_sums, fit_warnings

    check_out_file("fit", args.out)
    refuse_overwriting("fit", [args.out], args)
    try:
        check_combination(args.mechanism, delta=args.delta, steps=args.steps, sampler=args.sampler, lam=args.lam,
                          bound=None if args.bound == "paper" else args.bound, intercept=args.intercept, flags=True)
    except ValueError as exc:
        raise Exit(2, f"python -m pdp_lib fit: error: {exc}") from None
    check_optional(args)
    with refusing("fit"):
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
                           delta=args.delta, steps=args.steps, intercept=bounds.intercept)
        model_file.write_model(model_file.model_record(release, bounds, sums, args.sampler), args.out)

    _report_clipped(args, sums)
    _warn_noise(release)
    print(f"fitted on {sums.rows} rows{fit_message(release)}; model written to {args.out}")
    for text in fit_warnings(release):
        print(f"warning: {text}", file=sys.stderr)
    return 0


