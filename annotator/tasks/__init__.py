"""Registry of HIT types: every module of this package that declares `TASK_TYPE = ...` is one.

Adding a type is a module here, its template `templates/hits/<name>.html` and its file format
(`shared_tasks/<task>/exchange.py`); see docs/architecture.md, "Adding a HIT type". Nothing outside those
modules names a type.
"""
from __future__ import annotations

import functools
from typing import Any

from annotator.core.hit_values import AnswerError, LabelIn, NewItem
from annotator.core.plugins import discover, lookup
from annotator.tasks.base import (
    Check,
    GoldSummary,
    TaskType,
    checked_settings,
    settings_with_defaults,
)


@functools.cache
def registered_types() -> dict[str, TaskType]:
    """The registered HIT types, found on first use rather than when this package is imported: the declared type's
    modules read `annotator.tasks.base`, which imports this package first, so finding the types at import time
    made importing any declared module import every type (and, through the shared tasks' formats, the declared
    modules again) before it could finish."""
    return discover(__name__, "TASK_TYPE")


def __getattr__(name: str) -> Any:
    """`TASK_TYPES`, the registry as a mapping (PEP 562: computed when first read)."""
    if name == "TASK_TYPES":
        return registered_types()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def task_type(name: str) -> TaskType:
    return lookup(registered_types(), name, "task type")


def project_task(project: Any) -> TaskType:
    """The HIT type of a project: the registered one, bound to the project where the type's questions come from
    the project itself (a declared campaign's definition; see TaskType.for_project)."""
    return task_type(project.task_type).for_project(project)


def project_settings(project: Any) -> dict[str, Any]:
    """The project's settings completed with its type's defaults."""
    return project_task(project).settings_of(project)


__all__ = ["TASK_TYPES", "AnswerError", "Check", "GoldSummary", "LabelIn", "NewItem", "TaskType", "checked_settings",
           "project_settings", "project_task", "settings_with_defaults", "task_type"]
