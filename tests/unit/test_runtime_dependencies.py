"""pyproject.toml's dependencies name every distribution the application imports at run time: an install of the
package (`pip install .`) then has every module that annotator/ and config.py import (PyYAML and markdown-it-py
were once missing, installed only through requirements.txt)."""
from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = [*sorted((ROOT / "annotator").rglob("*.py")), ROOT / "config.py"]


def canonical(name: str) -> str:
    """A distribution's name as PEP 503 compares names: PyYAML, pyyaml and py_yaml are one."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared_distributions() -> set[str]:
    """The distributions of [project] dependencies, without versions, extras or markers."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {canonical(re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0])
            for requirement in project["dependencies"]}


def imported_third_party_modules() -> dict[str, str]:
    """Each top-level module outside the standard library and the project that a shipped file imports,
    with the first file (relative to the repository) that imports it."""
    found: dict[str, str] = {}
    for path in SHIPPED:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("annotator", "config"):
                    found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def test_the_scan_finds_the_libraries_the_declared_campaigns_import() -> None:
    # The definitions are YAML and the guidelines Markdown: a scan that missed these would check nothing.
    assert {"yaml", "markdown_it", "flask", "sqlalchemy"} <= set(imported_third_party_modules())


def test_every_imported_module_belongs_to_a_declared_dependency() -> None:
    declared = declared_distributions()
    installed_by = packages_distributions()
    undeclared = {
        module: (first_file, installed_by.get(module, ["no installed distribution provides it"]))
        for module, first_file in imported_third_party_modules().items()
        if not declared & {canonical(dist) for dist in installed_by.get(module, [])}
    }
    assert undeclared == {}
