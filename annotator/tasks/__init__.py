"""Registry of HIT types: adding a type is one module here plus its template."""
from __future__ import annotations

from .base import AnswerError, LabelIn, NewItem, Setting, TaskType, settings_with_defaults
from .emphasis import Emphasis
from .kp_match import KeyPointMatch

TASK_TYPES: dict[str, TaskType] = {t.name: t for t in (KeyPointMatch(), Emphasis())}


def task_type(name: str) -> TaskType:
    try:
        return TASK_TYPES[name]
    except KeyError:
        raise KeyError(f"unknown task type {name!r}; known: {', '.join(sorted(TASK_TYPES))}") from None


__all__ = ["TASK_TYPES", "AnswerError", "LabelIn", "NewItem", "Setting", "TaskType",
           "settings_with_defaults", "task_type"]
