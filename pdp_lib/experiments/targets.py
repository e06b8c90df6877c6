"""The registry of the paper's experiments: every table and figure, read from one data file.

Tables 1-14 (Section 4 and Appendix B) and Figures 1-18 (Section 4.2 and Appendix B.2) are
described once, in ``pdp_lib/data/targets.toml``: dataset, sweep, the values swept (as the
tables print them; a figure uses the values its authors' file holds), the caption's fixed
parameters, the privacy profile, the statistic, the columns, the captions, the notes and
the authors' output file with how to read it.  The file's header documents every field.

This module parses and checks that file (:func:`load_registry`) and gives each target the
:class:`TargetSpec` that :func:`pdp_lib.experiments.reproduce` rebuilds; :mod:`pdp_lib.experiments.published`
(the tables as printed), :mod:`pdp_lib.replication.authors` (the authors' files) and
:func:`pdp_lib.replication.rendering.reference_series` read their parts of the same :data:`REGISTRY`.
Adding a table or figure is one entry in the file (and, for a table, its printed cells in
``published.csv``); no code changes.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, fields, replace
from importlib import resources
from types import MappingProxyType
from typing import Mapping

from ..profiles import DEFAULT_PROFILE, ProfileSpec

__all__ = [
    "METHODS",
    "COLUMNS",
    "BEYOND_METHODS",
    "BEYOND_COLUMNS",
    "PAPER_TARGET_NAMES",
    "BEYOND_TARGET_NAMES",
    "SWEEPS",
    "STATISTICS",
    "TargetSpec",
    "Registry",
    "load_registry",
    "REGISTRY",
    "TARGETS",
    "TARGET_NAMES",
    "get_target",
]

STATISTICS = ("mean", "std")
KINDS = ("table", "figure", "beyond")
PAPER_KINDS = ("table", "figure")
DATASETS = {"table": ("synthetic", "medical_cost"), "figure": ("synthetic", "medical_cost"),
            "beyond": ("synthetic", "medical_cost", "diabetes")}
_PROFILE_FIELDS = tuple(f.name for f in fields(ProfileSpec))
_ENTRY_FIELDS = {
    # field: required for (kinds)
    "kind": KINDS, "number": KINDS, "label": PAPER_KINDS, "tex_line": ("table",), "dataset": KINDS,
    "sweep": KINDS, "params": ("table", "beyond"), "header": ("table",), "fixed": KINDS, "profile": KINDS,
    "statistic": KINDS, "columns": KINDS, "source": (), "sourced": (), "source_note": (),
    "caption": KINDS, "paper_caption": ("table",), "notes": (), "paper_notes": (),
}
_NOTE_KEY = re.compile(r"[a-z0-9_]+")


@dataclass(frozen=True)
class TargetSpec:
    """What one table or figure of the paper reports and how to rebuild it.

    Attributes
    ----------
    name : str
        ``"table-1"`` ... ``"table-14"``, ``"figure-1"`` ... ``"figure-18"``, or a target beyond
        the paper, ``"beyond-1"``, ... (the chapter *Does personalization pay?*).
    dataset : str
        ``"synthetic"`` (d = 30, n = 100, sigma = 0), ``"medical_cost"`` or, beyond the paper,
        ``"diabetes"``.
    sweep : str
        The swept parameter, one of :data:`SWEEPS`: ``"lam"``, ``"eps_c"``, ``"eps_m"``,
        ``"f_c"`` or ``"fraction"`` (of the training set used).
    param_labels : tuple of str
        The swept values as printed in the table's first column (figures: as in the authors' file).
    lam : float or None
        The fixed ``lambda`` when ``sweep != "lam"``.
    profile : ProfileSpec
        The privacy profile; the swept field (if a profile field) is replaced by each value.
    statistic : str
        ``"mean"`` (Tables 1-12, Figures 3-10) or ``"std"`` (Tables 13-14, Figures 1-2, 11-18).
    columns : tuple of str
        Columns in the paper's order, from :data:`COLUMNS`.
    caption : str
        The caption's parameters, in plain text.
    source_csv : str or None
        The authors' output file holding this target's numbers (``pdp_lib/data/reference/``).
    """

    name: str
    dataset: str
    sweep: str
    param_labels: tuple
    lam: float | None
    profile: ProfileSpec
    statistic: str
    columns: tuple
    caption: str
    source_csv: str | None

    @property
    def kind(self) -> str:
        """``"table"``, ``"figure"`` or ``"beyond"``."""
        return self.name.split("-")[0]

    @property
    def sweep_values(self) -> tuple:
        """The swept values as floats (parsed from :attr:`param_labels`)."""
        return tuple(float(p) for p in self.param_labels)

    def point(self, value: float):
        """``(profile, fraction, lam)`` of the sweep point ``value``."""
        profile, fraction, lam = self.profile, 1.0, self.lam
        if self.sweep == "lam":
            lam = value
        elif self.sweep == "fraction":
            fraction = value
        else:
            profile = replace(profile, **{self.sweep: value})
        return profile, fraction, lam


@dataclass(frozen=True)
class Registry:
    """The parsed registry file.

    Attributes
    ----------
    sweeps, methods, columns : tuple of str
        The five sweep names; the paper's methods; its columns ``<loss>_<method>``.
    beyond_methods, beyond_columns : tuple of str
        The methods and columns beyond the paper (sharp calibration, threshold rules, oracles).
    authors : Mapping
        How the authors' files name a column: ``pattern``, ``methods`` (method -> their name)
        and ``non_private`` (loss -> their column).
    files : Mapping[str, Mapping]
        The authors' output files by short name: ``name``, ``dataset`` and ``varies``
        (parameter -> ``column``, ``scale``, ``values``).
    entries : Mapping[str, Mapping]
        Every target's entry by name, with named lists and shared notes resolved.
    targets : Mapping[str, TargetSpec]
        Every target, tables first, each kind by number.
    """

    sweeps: tuple
    methods: tuple
    columns: tuple
    beyond_methods: tuple
    beyond_columns: tuple
    authors: Mapping
    files: Mapping
    entries: Mapping
    targets: Mapping


def _freeze(x):
    if isinstance(x, dict):
        return MappingProxyType({k: _freeze(v) for k, v in x.items()})
    if isinstance(x, list):
        return tuple(_freeze(v) for v in x)
    return x


def _named(value, table: dict, what: str, where: str) -> tuple:
    """A list given inline or by name in ``table``."""
    if isinstance(value, str):
        if value not in table:
            raise ValueError(f"{where}: {what} = {value!r} names no list; allowed: {', '.join(table)}")
        value = table[value]
    if not isinstance(value, list):
        raise ValueError(f"{where}: {what} must be a list or the name of one, got {value!r}")
    return tuple(value)


def _notes(items, shared: dict, where: str) -> tuple:
    out = []
    for item in items:
        if _NOTE_KEY.fullmatch(item):
            if item not in shared:
                raise ValueError(f"{where}: note {item!r} is not a key of [notes]")
            item = shared[item]
        out.append(item)
    return tuple(out)


def _files(data: dict, sweeps: tuple) -> dict:
    files = {}
    for key, f in data.get("files", {}).items():
        varies = {}
        for param, v in f["varies"].items():
            if param not in sweeps:
                raise ValueError(f"file {key}: varies.{param} is not a sweep; allowed: {', '.join(sweeps)}")
            values = _named(v["values"], data["grids"], "values", f"file {key}, varies.{param}")
            varies[param] = {"column": v["column"], "scale": v.get("scale", 1.0), "values": values}
        files[key] = {"name": f["name"], "dataset": f["dataset"], "varies": varies}
    return files


def _entry(raw: dict, data: dict, files: dict, sweeps: tuple, paper_columns: tuple, beyond_columns: tuple) -> dict:
    """One target's entry, checked, with named lists and shared notes resolved."""
    kind, number = raw.get("kind"), raw.get("number")
    if kind not in KINDS or not isinstance(number, int) or number < 1:
        raise ValueError(f"target entry {raw!r}: kind must be one of {KINDS} and number an integer >= 1")
    name = f"{kind}-{number}"
    unknown = sorted(set(raw) - set(_ENTRY_FIELDS))
    missing = [f for f, kinds in _ENTRY_FIELDS.items() if kind in kinds and f not in raw]
    if unknown or missing:
        raise ValueError(f"target {name}: unknown fields {unknown}, missing fields {missing}")
    e = dict(raw, name=name, sourced=raw.get("sourced", True), source=raw.get("source"),
             source_note=raw.get("source_note", ""))
    where = f"target {name}"
    e["columns"] = _named(raw["columns"], data["column_sets"], "columns", where)
    shared = data.get("notes", {})
    e["notes"] = _notes(raw.get("notes", ()), shared, where)
    e["paper_notes"] = _notes(raw.get("paper_notes", ()), shared, where)
    columns = paper_columns + (beyond_columns if kind == "beyond" else ())
    if e["dataset"] not in DATASETS[kind]:
        raise ValueError(f"target {name}: dataset = {e['dataset']!r} is not one of {DATASETS[kind]}")
    if e["sweep"] not in sweeps:
        raise ValueError(f"target {name}: sweep = {e['sweep']!r} is not one of {sweeps}")
    if e["statistic"] not in STATISTICS:
        raise ValueError(f"target {name}: statistic = {e['statistic']!r} is not one of {STATISTICS}")
    if not e["columns"] or len(set(e["columns"])) < len(e["columns"]) or not set(e["columns"]) <= set(columns):
        raise ValueError(f"target {name}: columns {e['columns']} must be distinct names from {columns}")
    unknown = sorted(set(e["fixed"]) - set(sweeps) - set(_PROFILE_FIELDS) - {"d", "n", "f_l"})
    if unknown:
        raise ValueError(f"target {name}: fixed names unknown parameters {unknown}")
    if ("lam" in e["fixed"]) == (e["sweep"] == "lam"):
        raise ValueError(f"target {name}: fixed must state lam exactly when lambda is not swept")
    if e["profile"] not in data["profiles"]:
        raise ValueError(f"target {name}: profile = {e['profile']!r} is not a key of [profiles]")
    if e["source"] is not None:
        f = files.get(e["source"])
        if f is None or f["dataset"] != e["dataset"] or e["sweep"] not in f["varies"]:
            raise ValueError(f"target {name}: source = {e['source']!r} is not a file of dataset "
                             f"{e['dataset']} that varies {e['sweep']}")
    if "params" in raw:
        e["params"] = _named(raw["params"], data["grids"], "params", where)
    elif e["source"] is not None:  # a figure: the values its file holds
        e["params"] = tuple(f"{v:g}" for v in files[e["source"]]["varies"][e["sweep"]]["values"])
    else:
        raise ValueError(f"target {name}: params are missing and there is no source file to take them from")
    return e


def _profile(changes: dict, name: str) -> ProfileSpec:
    bad = sorted(set(changes) - set(_PROFILE_FIELDS))
    if bad:
        raise ValueError(f"profile {name}: {bad} are not fields of ProfileSpec {_PROFILE_FIELDS}")
    return replace(DEFAULT_PROFILE, **changes).validate()


def load_registry(text: str | None = None) -> Registry:
    """Parse and check the registry (``pdp_lib/data/targets.toml`` when ``text`` is None).

    Raises
    ------
    ValueError
        If an entry is incomplete or inconsistent (unknown sweep, column, profile or file, a
        missing field, a fixed lambda where lambda is swept); the message names the target.
    """
    if text is None:
        text = resources.files("pdp_lib").joinpath("data/targets.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    sweeps = tuple(data["sweeps"])
    methods = tuple(data["columns"]["methods"])
    beyond_methods = tuple(data["columns"]["beyond_methods"])
    columns = tuple(f"{loss}_{m}" for loss in data["columns"]["losses"] for m in methods)
    beyond_columns = tuple(f"{loss}_{m}" for loss in data["columns"]["losses"] for m in beyond_methods)
    files = _files(data, sweeps)
    profiles = {name: _profile(changes, name) for name, changes in data["profiles"].items()}
    entries = [_entry(raw, data, files, sweeps, columns, beyond_columns) for raw in data["targets"]]
    entries.sort(key=lambda e: (KINDS.index(e["kind"]), e["number"]))
    names = [e["name"] for e in entries]
    if len(set(names)) < len(names):
        raise ValueError(f"targets named twice: {sorted({n for n in names if names.count(n) > 1})}")
    targets = {e["name"]: TargetSpec(
        name=e["name"], dataset=e["dataset"], sweep=e["sweep"], param_labels=e["params"],
        lam=e["fixed"].get("lam"), profile=profiles[e["profile"]], statistic=e["statistic"],
        columns=e["columns"], caption=e["caption"],
        source_csv=None if e["source"] is None else files[e["source"]]["name"],
    ) for e in entries}
    return Registry(sweeps=sweeps, methods=methods, columns=columns, beyond_methods=beyond_methods,
                    beyond_columns=beyond_columns, authors=_freeze(data["authors"]),
                    files=_freeze(files), entries=_freeze({e["name"]: e for e in entries}),
                    targets=MappingProxyType(targets))


REGISTRY = load_registry()
SWEEPS = REGISTRY.sweeps
METHODS = REGISTRY.methods
COLUMNS = REGISTRY.columns
BEYOND_METHODS = REGISTRY.beyond_methods
BEYOND_COLUMNS = REGISTRY.beyond_columns
TARGETS: dict[str, TargetSpec] = dict(REGISTRY.targets)
TARGET_NAMES = tuple(TARGETS)
PAPER_TARGET_NAMES = tuple(n for n in TARGET_NAMES if TARGETS[n].kind in PAPER_KINDS)   # the `all` group
BEYOND_TARGET_NAMES = tuple(n for n in TARGET_NAMES if TARGETS[n].kind == "beyond")   # the `beyond` group


def get_target(name: str) -> TargetSpec:
    """The specification of ``name`` (``"table-1"`` ... ``"table-14"``, ``"figure-1"`` ... ``"figure-18"``,
    ``"beyond-1"`` ...)."""
    if not isinstance(name, str) or name not in TARGETS:
        last = {kind: max((int(n.split("-")[1]) for n in TARGETS if n.startswith(kind + "-")), default=0)
                for kind in KINDS}
        raise ValueError(f"target = {name!r} is not allowed; choose table-1 ... table-{last['table']} "
                         f"or figure-1 ... figure-{last['figure']} or beyond-1 ... beyond-{last['beyond']}")
    return TARGETS[name]
