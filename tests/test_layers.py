"""The package's layers: every import, top-level or inside a function, points down or sideways, never in a cycle.

The layers, bottom to top (README, "The library"): the input domain and number formatting; the
mathematics; the mechanisms and their audits; the experiments; replication and presentation; the
command line.  Read from the source with :mod:`ast`, so a lazy import inside a function counts
like a top-level one.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pdp_lib"

LAYERS = {
    0: ("validation", "formatting", "deprecation", "lazy"),
    1: ("bounds", "curves", "gaussian_curves", "moments", "mixtures", "profiles", "datasets", "losses", "preprocessing"),
    2: ("mechanisms", "estimator", "accuracy", "personalization", "tuning", "approximate", "io", "audit"),
    3: ("experiments",),
    4: ("replication",),
    5: ("cli", "__main__"),
}
FACADE = "pdp_lib"   # the package's __init__ re-exports names of every layer, lazily (PEP 562)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer(module: str) -> int:
    top = module.split(".")[1] if module.count(".") else ""
    for layer, names in LAYERS.items():
        if top in names:
            return layer
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS")


def _imports(path: Path, module: str) -> set:
    """The pdp_lib modules ``module`` imports anywhere in its source."""
    return _imports_of_source(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")


def _imports_of_source(source: str, module: str, is_package: bool) -> set:
    tree = ast.parse(source)
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "pdp_lib"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "pdp_lib":
                continue
            found.add(target)
            for alias in node.names:          # "from . import audit": a submodule, maybe
                candidate = f"{target}.{alias.name}"
                if (PACKAGE.parent / Path(*candidate.split("."))).with_suffix(".py").exists() or \
                        (PACKAGE.parent / Path(*candidate.split("."))).is_dir():
                    found.add(candidate)
    return found - {module}


def _graph() -> dict:
    graph = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        graph[module] = _imports(path, module)
    return graph


def test_every_import_points_down_or_sideways():
    upward = []
    for module, targets in _graph().items():
        if module == FACADE:
            continue
        for target in targets:
            if target != FACADE and _layer(target) > _layer(module):
                upward.append(f"{module} -> {target}")
    assert not upward, "imports that point up a layer: " + "; ".join(sorted(upward))


def test_no_import_cycle_even_a_lazy_one():
    graph = {m: {t for t in ts if t in _graph_keys() and t != FACADE} for m, ts in _graph().items() if m != FACADE}
    # a package's __init__ that re-exports its submodules is part of them, not above them
    state, stack, cycles = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt.startswith(node + ".") or node.startswith(nxt + ".") and _is_package(nxt):
                continue        # a package and its own submodules
            if state.get(nxt) == "open":
                cycles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert not cycles, "import cycles: " + "; ".join(cycles)


def _graph_keys() -> set:
    return {_module_name(p) for p in PACKAGE.rglob("*.py")}


def _is_package(module: str) -> bool:
    return (PACKAGE.parent / Path(*module.split(".")) / "__init__.py").exists()


def test_the_checker_sees_a_lazy_upward_import():
    # the rules above must be able to fail: a function-level import of the command line from the
    # mathematics is found and reported as upward
    source = "def f():\n    from .cli import main\n    return main\n"
    assert "pdp_lib.cli" in _imports_of_source(source, "pdp_lib.bounds", is_package=False)
    assert _layer("pdp_lib.cli") > _layer("pdp_lib.bounds")


def _package_graph(graph: dict) -> dict:
    """The graph between the package's rooms (its top-level modules and subpackages), every import counted."""
    def room(module: str) -> str:
        return module.split(".")[1] if module.count(".") else module

    rooms = {}
    for module, targets in graph.items():
        if module == FACADE:
            continue
        for target in targets - {FACADE}:
            if room(target) != room(module):
                rooms.setdefault(room(module), set()).add(room(target))
    return rooms


def _room_cycles(rooms: dict) -> list:
    cycles = []
    for start in sorted(rooms):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in sorted(rooms.get(node, ())):
                if nxt == start:
                    cycles.append(" -> ".join(path + [start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    return cycles


def test_no_cycle_between_rooms_even_through_lazy_imports():
    # a module-level cycle is caught above; this catches mechanisms -> tuning -> mechanisms through different modules
    cycles = _room_cycles(_package_graph(_graph()))
    assert not cycles, "cycles between the package's rooms: " + "; ".join(cycles)


def test_the_room_check_sees_a_cycle_through_different_modules():
    graph = {"pdp_lib.mechanisms.a": {"pdp_lib.tuning"}, "pdp_lib.tuning": {"pdp_lib.mechanisms.b"},
             "pdp_lib.mechanisms.b": set()}
    assert _room_cycles(_package_graph(graph)) == ["mechanisms -> tuning -> mechanisms", "tuning -> mechanisms -> tuning"]
