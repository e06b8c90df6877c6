"""The command line's shared pieces: its parser and exit, its argument types, and the checks every command makes
before it reads a row (outputs that can be written and are not inputs, optional dependencies installed)."""

from __future__ import annotations

import argparse
import os
from contextlib import contextmanager
from pathlib import Path

__all__ = ["Exit", "Parser", "int_at_least", "positive_float", "open_fraction", "lam_or_rule", "lam_list", "refusing",
           "check_out_file", "check_out_folder", "inputs", "refuse_overwriting", "require", "check_optional"]


class Exit(Exception):
    def __init__(self, status: int, message: str = ""):
        super().__init__(message)
        self.status = status
        self.message = message


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and status 2 (no usage dump)."""

    def error(self, message):  # noqa: D401 - argparse API
        raise Exit(2, f"{self.prog}: error: {message}")

    def exit(self, status=0, message=None):
        raise Exit(status, (message or "").rstrip("\n"))


def _number_type(name, parse, kind, inside, allowed, *, show_text=False):
    """An argparse type: ``parse(text)``, refused unless it parses (as ``kind``, "an integer") and ``inside(value)``,
    with a message naming ``name``, the value (or the text as given, ``show_text``) and the ``allowed`` range."""
    def convert(text):
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} = {text!r} is not {kind}") from None
        if not inside(value):
            shown = text if show_text else value
            raise argparse.ArgumentTypeError(f"{name} = {shown!r} is outside the allowed range {allowed}")
        return value
    return convert


def int_at_least(name, minimum):
    """An argparse type: an integer ``>= minimum``, refused with a message naming ``name`` and the range."""
    return _number_type(name, int, "an integer", lambda value: value >= minimum, f"[{minimum}, inf)")


def positive_float(name):
    """An argparse type: a finite number ``> 0``, refused with a message naming ``name`` and the range."""
    return _number_type(name, float, "a number", lambda value: 0 < value < float("inf"), "(0, inf)")


def open_fraction(name):
    """An argparse type: a number in ``(0, 1)``, refused with a message naming ``name`` and the range."""
    return _number_type(name, float, "a number in (0, 1)", lambda value: 0 < value < 1, "(0, 1)", show_text=True)


def lam_or_rule(text):
    """``--lam``: a number > 0, or the rule 'public' or 'auto' (checked against the mechanism in ``fit``)."""
    if text in ("public", "auto"):
        return text
    return positive_float("--lam")(text)


def lam_list(text):
    """An argparse type: comma-separated values of ``lambda``, each finite and ``> 0``, distinct."""
    convert = positive_float("--lams")
    values = [convert(part) for part in text.split(",")]
    if len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"--lams = {text!r} repeats a value")
    return values


@contextmanager
def refusing(command: str):
    """A ``ValueError`` or ``OSError`` inside exits with status 2 and one line naming ``command``."""
    try:
        yield
    except (ValueError, OSError) as exc:
        raise Exit(2, f"python -m pdp_lib {command}: error: {exc}") from None


def check_out_file(command: str, out: str) -> None:
    """Refuse an ``--out`` file that cannot be written, before any row is read."""
    if os.path.isdir(out):
        raise Exit(2, f"python -m pdp_lib {command}: error: --out {out!r} is a folder; give the name of a file")
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        raise Exit(2, f"python -m pdp_lib {command}: error: cannot write --out {out!r}: "
                       f"no writable folder {folder!r} for it")


def inputs(args) -> list:
    """Every file the command will read: the data files, ``--bounds`` and the model (those that exist)."""
    from ..io import tables

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


def refuse_overwriting(command: str, outputs, args) -> None:
    """Refuse, before any row is read, an output that is one of the files the command reads.

    Compared as files, not names: the same device and inode (:func:`os.path.samefile`), so a hard link, a
    symbolic link or another spelling of the path is caught too.  Nothing is written.
    """
    for out in outputs:
        out = Path(out)
        if not out.exists():
            continue                                     # a file that does not exist yet is read by no one
        for source in inputs(args):
            if os.path.samefile(out, source):
                flag = "--out" if command != "compare" else f"--out (its {out.name})"
                raise Exit(2, f"python -m pdp_lib {command}: error: {flag} {str(out)!r} is {str(source)!r}, a file "
                               f"this command reads: it would be overwritten; write the output elsewhere")


def check_out_folder(command: str, out: Path) -> None:
    """Refuse an ``--out`` folder that is a file, or that cannot be created or written, before any row is read."""
    if out.exists() and not out.is_dir():
        raise Exit(2, f"python -m pdp_lib {command}: error: --out {str(out)!r} is a file, not a folder")
    nearest = out if out.exists() else next((p for p in out.absolute().parents if p.exists()), None)
    if nearest is None or not os.access(nearest, os.W_OK):
        raise Exit(2, f"python -m pdp_lib {command}: error: cannot write --out {str(out)!r}: no writable folder")


def require(module: str, extra: str, what: str) -> None:
    """Refuse, in one line naming the extra to install, when an optional dependency is missing."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise Exit(2, f"python -m pdp_lib: error: {what} needs {module}, which is not installed: "
                       f"pip install 'pdp_lib[{extra}]'")


def check_optional(args) -> None:
    """Every optional dependency the command will need, checked before any row is read."""
    from ..io import tables

    if getattr(args, "scheduler", None) is not None:
        require("dask", "cluster", "--scheduler")
        require("distributed", "cluster", "--scheduler")
        if args.chunk_rows is not None:
            raise Exit(2, "python -m pdp_lib fit: error: --chunk-rows sets the rows read at a time here; with "
                           "--scheduler every file is one partition: leave --chunk-rows out")
    try:
        files = tables.data_files(args.data)
    except (OSError, ValueError):
        return                                           # refused with its own message below
    if tables.file_kind(files[0]) == "parquet":
        require("pyarrow", "parquet", "reading Parquet")
