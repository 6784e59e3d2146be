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


def _modules(package: str, in_subpackages: bool, ending: str) -> list[str]:
    """The modules of `package` whose names end with `ending`, in name order; with `in_subpackages`,
    those of its subpackages instead of its own."""
    names = []
    for info in sorted(pkgutil.iter_modules(importlib.import_module(package).__path__), key=lambda i: i.name):
        if in_subpackages:
            if info.ispkg:
                names += _modules(f"{package}.{info.name}", False, ending)
        elif not info.ispkg and info.name.endswith(ending):
            names.append(f"{package}.{info.name}")
    return names


def discover(package: str, attribute: str, in_subpackages: bool = False, ending: str = "") -> dict[str, Any]:
    """`{declaration.name: declaration}` for every module of `package` that defines `attribute`.

    With `in_subpackages`, the modules of `package`'s subpackages instead of its own, and only those whose
    names end with `ending`: a shared task's folder (`annotator/shared_tasks/<task>/`) holds its formats in
    `exchange.py` / `*_exchange.py` and its scorer in `scorer.py`, and each registry imports only its own
    kind, so the formats registry (whose modules use the scorers) never runs inside the scorers' discovery.
    The registry is in name order, so its order (menus, listings) is stable. Two
    declarations with one name are a programming error and stop the app from starting.
    """
    found: dict[str, Any] = {}
    where: dict[str, str] = {}
    for name in _modules(package, in_subpackages, ending):
        module = importlib.import_module(name)
        declared = getattr(module, attribute, None)
        if declared is None:
            continue
        if declared.name in found:
            raise RuntimeError(f"{module.__name__} and {where[declared.name]} both declare {attribute} "
                               f"{declared.name!r}")
        found[declared.name] = declared
        where[declared.name] = module.__name__
    return dict(sorted(found.items()))


def lookup(registry: dict[str, Any], name: str, what: str) -> Any:
    """The registered declaration `name`, or a KeyError that lists the known ones."""
    try:
        return registry[name]
    except KeyError:
        raise KeyError(f"unknown {what} {name!r}; known: {', '.join(sorted(registry))}") from None
