"""Finding the modules and packages that declare a plug-in: a HIT type, a shared task.

Why: the registries used to list their members by name, so adding one meant editing shared code. Now a module
declares what it is with one module-level constant (`TASK_TYPE = ...` in annotator/tasks/<type>.py,
`SHARED_TASK = ...` in annotator/shared_tasks/<task>/__init__.py) and is found by looking, so adding one touches
only its own files and no shared file names it.
"""
from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from collections.abc import Mapping
from typing import Any, TypeVar

T = TypeVar("T")


def discover(package: str, attribute: str, in_subpackages: bool = False) -> dict[str, Any]:
    """`{declaration.name: declaration}` for every module of `package` that defines `attribute` (with
    `in_subpackages`: every subpackage, by its `__init__`), in name order, so that menus and listings are stable.

    A subpackage's declaration learns its package (`package` field) when it has one to fill. Two declarations with
    one name are a programming error and stop the app from starting, with both places named.
    """
    found: list[tuple[str, Any]] = []
    for info in sorted(pkgutil.iter_modules(importlib.import_module(package).__path__), key=lambda i: i.name):
        if info.ispkg != in_subpackages:
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        declared = getattr(module, attribute, None)
        if declared is None:
            continue
        if dataclasses.is_dataclass(declared) and getattr(declared, "package", None) == "":
            declared = dataclasses.replace(declared, package=module.__name__)  # type: ignore[type-var]
        found.append((f"{module.__name__}.{attribute}", declared))
    return unique(attribute, found)


def unique(what: str, declarations: list[tuple[str, Any]]) -> dict[str, Any]:
    """{name: declaration} in name order from (where it is declared, declaration) pairs; a RuntimeError naming
    both places when two share a name."""
    found: dict[str, Any] = {}
    where: dict[str, str] = {}
    for place, declared in declarations:
        if declared.name in found:
            raise RuntimeError(f"{place} and {where[declared.name]} both declare the {what} {declared.name!r}; "
                               "names must differ")
        found[declared.name] = declared
        where[declared.name] = place
    return dict(sorted(found.items()))


def lookup(registry: Mapping[str, T], name: str, what: str) -> T:
    """The registered declaration `name`, or a KeyError that lists the known ones."""
    try:
        return registry[name]
    except KeyError:
        raise KeyError(f"unknown {what} {name!r}; known: {', '.join(sorted(registry))}") from None
