"""The dependency lists agree: pyproject.toml's ranges hold for requirements.txt's exact pins."""

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def _pins(path: Path) -> dict:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("-r "):
            continue
        name, sep, version = line.partition("==")
        assert sep and version, f"{path.name}: {line!r} is not an exact pin"
        key = re.sub(r"[-_.]+", "-", name).lower()
        assert key not in pins, f"{path.name}: {name} is pinned twice"
        pins[key] = Version(version)
    return pins


def test_every_library_dependency_is_pinned_inside_its_range():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    pins = _pins(ROOT / "requirements.txt")
    requirements = [Requirement(r) for r in project["project"]["dependencies"]]
    assert {r.name for r in requirements} >= {"numpy", "scipy", "pandas", "scikit-learn"}
    for req in requirements:
        key = re.sub(r"[-_.]+", "-", req.name).lower()
        assert key in pins, f"{req.name} is a dependency of pdp_lib but not pinned in requirements.txt"
        assert pins[key] in req.specifier, f"{req.name}=={pins[key]} is outside {req.specifier}"
    extras = [Requirement(r) for group in project["project"]["optional-dependencies"].values() for r in group]
    assert {r.name for r in extras} >= {"matplotlib", "myst-nb", "ipython"}     # what pdp_lib.replication.rendering imports
    groups = project["project"]["optional-dependencies"]
    for req in extras:
        key = re.sub(r"[-_.]+", "-", req.name).lower()
        if key == "pdp-lib":                                   # an extra made of the package's other extras
            assert req.extras and req.extras <= set(groups) - {"all"}, req
            continue
        assert pins[key] in req.specifier, f"{req.name}=={pins[key]} is outside {req.specifier}"
    assert {"parquet", "cluster", "plot"} <= set(Requirement(groups["all"][0]).extras)
    build = [Requirement(r) for r in project["build-system"]["requires"]]
    for req in build:
        assert pins[req.name] in req.specifier, f"build requirement {req} not met by the pin {pins[req.name]}"


def test_the_lab_requirements_only_add_to_the_book_environment():
    lab_text = (ROOT / "requirements-lab.txt").read_text()
    assert "-r requirements.txt" in lab_text.splitlines()
    lab, book = _pins(ROOT / "requirements-lab.txt"), _pins(ROOT / "requirements.txt")
    assert "jupyterlab" in lab
    assert not set(lab) & set(book), "requirements-lab.txt re-pins a package of requirements.txt"
