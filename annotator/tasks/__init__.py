"""Registry of HIT types: every module of this package that declares `TASK_TYPE = ...` is one.

Adding a type is a module here, its template `templates/hits/<name>.html` and its file format
(`shared_tasks/<task>/exchange.py`); see the README's recipe. Nothing outside those modules names a type.
"""
from __future__ import annotations

import json
from functools import lru_cache
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
DECLARED = "declared"


def task_type(name: str) -> TaskType:
    return lookup(TASK_TYPES, name, "task type")


def project_task(project: Any) -> TaskType:
    """The HIT type of a project: the registered one, or for a declared campaign the type bound to its definition.

    Bound types are kept per definition (a project's definition is fixed once it has items), so a request
    builds none.
    """
    if project.task_type == DECLARED:
        return _declared(json.dumps(project.definition, sort_keys=True))
    return task_type(project.task_type)


def project_settings(project: Any) -> dict[str, Any]:
    """The project's settings completed with its type's defaults."""
    return settings_with_defaults(project_task(project), project.settings)


@lru_cache(maxsize=128)
def _declared(definition: str) -> TaskType:
    from annotator.declared.definition import definition_from_data
    from annotator.tasks.declared import DeclaredTask
    return DeclaredTask(definition_from_data(json.loads(definition)))


__all__ = ["TASK_TYPES", "AnswerError", "Check", "GoldSummary", "LabelIn", "NewItem", "TaskType", "checked_settings",
           "project_settings", "project_task", "settings_with_defaults", "task_type"]
