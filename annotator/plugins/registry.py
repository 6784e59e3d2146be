"""Registry of shared tasks: every folder under annotator/shared_tasks/ whose `__init__.py` declares
`SHARED_TASK = SharedTask(...)` (shared_task.py) is one, found by looking (core/plugins.py).

The per-kind registries read it: annotator/lookups/formats.py (`FORMATS`) and scorers.py (`SCORERS`),
shared_tasks/dataset_stats.py (`STATS`), annotator/declared/named_rules.py (the named rules) and bridge_base.py (the
bridges), and the web and command-line set-up (blueprints, commands). So adding a shared task is one folder, and no
shared file names it.

Why a package of its own, below the declared engine: the engine reads the named rules and bridges the shared tasks
declare, and the shared tasks' folders build on the engine; with the registry in shared_tasks/ the engine imported
a layer above it. The folders are found by their package's name, not imported by this module's code.
"""
from __future__ import annotations

from typing import Any

from annotator.core.plugins import discover, lookup, unique
from annotator.plugins.shared_task import SharedTask

PLUG_INS = "annotator.shared_tasks"   # the package whose folders are the shared tasks

SHARED_TASKS: dict[str, SharedTask] = discover(PLUG_INS, "SHARED_TASK", in_subpackages=True)


def shared_task(name: str) -> SharedTask:
    return lookup(SHARED_TASKS, name, "shared task")


def declared(what: str, pairs: list[tuple[SharedTask, Any]]) -> dict[str, Any]:
    """{declaration.name: declaration} of what the shared tasks declare, in name order; a name two of them
    declare stops the app from starting, with both tasks named."""
    return unique(what, [(f"shared task {task.name!r}", item) for task, item in pairs])


__all__ = ["SHARED_TASKS", "SharedTask", "declared", "shared_task"]
