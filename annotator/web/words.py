"""Stored values in a task's own words on the admin's HTML pages: the Jinja filters `words` and `field_words`.

`{{ value|words(task, field) }}` says a label, gold or agreement value as the task type says it
(TaskType.label_words: Match / No match / Undecided, For / Against, Less redundant: alpha);
`{{ field|field_words(task) }}` says a field's name, `{{ unit|unit_words(task, field) }}` an agreement unit
(a comparison's players as "alpha vs beta"). Templates never spell a type's codes themselves, and
exports, the API and the CLI keep the stored values.
"""
from __future__ import annotations

import re
from typing import Any

from flask import Flask

from annotator.tasks import TaskType

NUMBER = re.compile(r"[-+−]?\d[\d,]*(\.\d+)?")


def value_words(value: Any, task: TaskType, field: str) -> str:
    return task.label_words(field, value)


def field_words(field: str, task: TaskType) -> str:
    return task.field_words(field)


def unit_words(unit: Any, task: TaskType, field: str) -> str:
    return task.agreement_unit_words(field, str(unit))


def is_number_text(text: Any) -> bool:
    """A value as said is a count or a measure (drawn right-aligned, never wrapped): "12", "-0.333", "1,024"."""
    return isinstance(text, str) and NUMBER.fullmatch(text) is not None


def init_app(app: Flask) -> None:
    app.jinja_env.filters["words"] = value_words
    app.jinja_env.filters["field_words"] = field_words
    app.jinja_env.filters["unit_words"] = unit_words
    app.jinja_env.tests["number_text"] = is_number_text
