"""Finding the modules that declare a HIT type, a file format or a scorer.

Why: the registries (`tasks.TASK_TYPES`, `exchange.FORMATS`, `scoring.SCORERS`) used to list their
members by name, so adding a type meant editing shared code. Now a module declares what it is
with one module-level constant (`TASK_TYPE = ...`, `FORMAT = ...`, `SCORER = ...`) and is found by
looking, so adding a type touches only its own modules and no shared file names it.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Any


def discover(package: str, attribute: str) -> dict[str, Any]:
    """`{declaration.name: declaration}` for every module of `package` that defines `attribute`.

    Modules are read in name order, so the registry's order (menus, listings) is stable. Two
    declarations with one name are a programming error and stop the app from starting.
    """
    found: dict[str, Any] = {}
    where: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(importlib.import_module(package).__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{package}.{info.name}")
        declared = getattr(module, attribute, None)
        if declared is None:
            continue
        if declared.name in found:
            raise RuntimeError(f"{module.__name__} and {where[declared.name]} both declare {attribute} "
                               f"{declared.name!r}")
        found[declared.name] = declared
        where[declared.name] = module.__name__
    return found


def lookup(registry: dict[str, Any], name: str, what: str) -> Any:
    """The registered declaration `name`, or a KeyError that lists the known ones."""
    try:
        return registry[name]
    except KeyError:
        raise KeyError(f"unknown {what} {name!r}; known: {', '.join(sorted(registry))}") from None
