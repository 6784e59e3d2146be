"""Registry of HIT types: every module of this package that declares `TASK_TYPE = ...` is one.

Adding a type is a module here, its template `templates/hits/<name>.html` and its file format
(`shared_tasks/<task>/exchange.py`); see the README's recipe. Nothing outside those modules names a type.
"""
from __future__ import annotations

from typing import Any

from annotator.core.plugins import discover, lookup
from annotator.tasks.base import (
    AnswerError,
    Check,
    GoldSummary,
    LabelIn,
    NewItem,
    TaskType,
    checked_settings,
    settings_with_defaults,
)

TASK_TYPES: dict[str, TaskType] = discover(__name__, "TASK_TYPE")


def task_type(name: str) -> TaskType:
    return lookup(TASK_TYPES, name, "task type")


def project_task(project: Any) -> TaskType:
    """The HIT type of a project: the registered one, bound to the project where the type's questions come from
    the project itself (a declared campaign's definition; see TaskType.for_project)."""
    return task_type(project.task_type).for_project(project)


def project_settings(project: Any) -> dict[str, Any]:
    """The project's settings completed with its type's defaults."""
    return project_task(project).settings_of(project)


__all__ = ["TASK_TYPES", "AnswerError", "Check", "GoldSummary", "LabelIn", "NewItem", "TaskType", "checked_settings",
           "project_settings", "project_task", "settings_with_defaults", "task_type"]
