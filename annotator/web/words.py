"""Stored values in a task's own words on the admin's HTML pages: the Jinja filters `words` and `field_words`.

`{{ value|words(task, field) }}` says a label, gold or agreement value as the task type says it
(TaskType.label_words: Match / No match / Undecided, For / Against, Less redundant: alpha);
`{{ field|field_words(task) }}` says a field's name. Templates never spell a type's codes themselves, and
exports, the API and the CLI keep the stored values.
"""
from __future__ import annotations

from typing import Any

from flask import Flask

from annotator.tasks import TaskType


def value_words(value: Any, task: TaskType, field: str) -> str:
    return task.label_words(field, value)


def field_words(field: str, task: TaskType) -> str:
    return task.field_words(field)


def is_numeric(value: Any) -> bool:
    """A count or a measure (drawn right-aligned, never wrapped): a number that is not a truth value."""
    import numbers

    import numpy as np
    return isinstance(value, numbers.Number) and not isinstance(value, (bool, np.bool_))


def init_app(app: Flask) -> None:
    app.jinja_env.filters["words"] = value_words
    app.jinja_env.filters["field_words"] = field_words
    app.jinja_env.tests["numeric"] = is_numeric
