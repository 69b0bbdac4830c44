"""Dependencies for a tool others install: compatible ranges in pyproject.toml, the exact versions CI tests in
constraints.txt (inside those ranges), and every nox session installing with it; the site's plugin and the pytest
plugin registered by entry point."""

from __future__ import annotations

import ast
import tomllib
from importlib.metadata import entry_points

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from .conftest import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
REQUIREMENTS = [Requirement(text) for text in PROJECT["dependencies"] + PROJECT["optional-dependencies"]["test"]]


def pins() -> dict[str, str]:
    found = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: '{line}' is not an exact pin"
            found[canonicalize_name(name)] = version.strip()
    return found


def test_users_get_ranges_not_pins() -> None:
    exact = [str(req) for req in REQUIREMENTS if any(spec.operator in ("==", "===") for spec in req.specifier)]
    assert exact == []
    assert all(req.specifier for req in REQUIREMENTS)  # and a floor: the oldest line tested


def test_ci_pins_every_requirement_inside_its_range() -> None:
    pinned = pins()
    for req in REQUIREMENTS:
        version = pinned.get(canonicalize_name(req.name))
        assert version is not None, f"{req.name} is not pinned in constraints.txt"
        assert req.specifier.contains(version), f"constraints.txt pins {req.name}=={version}, outside {req.specifier}"


def test_every_nox_session_installs_with_the_constraints() -> None:
    tree = ast.parse((ROOT / "noxfile.py").read_text())
    installs = [call for call in ast.walk(tree) if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "install"]
    pip_runs = [call for call in ast.walk(tree) if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "run" and {"pip", "install"} <= {a.value for a in call.args
                                                                    if isinstance(a, ast.Constant)}]
    assert len(installs) >= 7 and pip_runs
    for call in installs + pip_runs:
        assert any(isinstance(arg, ast.Starred) and getattr(arg.value, "id", None) == "PINS" for arg in call.args), \
            f"noxfile.py:{call.lineno} installs without -c constraints.txt"


def test_the_plugins_are_registered_by_entry_point() -> None:
    [site] = [ep for ep in entry_points(group="mkdocs.plugins") if ep.name == "rulepress"]
    assert site.load().__name__ == "RulepressPlugin"
    [tests] = [ep for ep in entry_points(group="pytest11") if ep.name == "rulepress"]
    assert hasattr(tests.load(), "pytest_collect_file")
