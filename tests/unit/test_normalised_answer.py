"""Every HIT type declares its answer keys, and the shared hook refuses anything else before `labels`."""
from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from annotator.core.jsonsafe import JSONBodyError, JSONValueError, check_value, loads, nesting_depth
from annotator.declared.definition_reader import definition_from_file
from annotator.tasks import TASK_TYPES, AnswerError
from tests.support.declared_projects import EVERY_KIND

EVERY_KIND_DEFINITION = definition_from_file(EVERY_KIND).to_data()


def as_used(name):
    """The type as a project uses it: a declared campaign's is bound to its definition (here tests/data/declared's)."""
    return TASK_TYPES[name].for_project(SimpleNamespace(task_type=name, definition=EVERY_KIND_DEFINITION))


@pytest.mark.parametrize("name", sorted(TASK_TYPES))
def test_every_type_declares_its_answer_keys(name):
    assert as_used(name).known_answer_keys(), f"{name} declares no answer_keys: unknown keys would be stored"


@pytest.mark.parametrize("name", sorted(TASK_TYPES))
def test_an_extra_key_is_refused_by_every_type(name):
    task = as_used(name)
    answer = {key: None for key in task.known_answer_keys() or ()} | {"extra": "x" * 1000}
    with pytest.raises(AnswerError, match="unknown key"):
        task.normalised_answer(None, answer)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, {"a": [1, math.nan]}, "a\x00b", "\ud800",
                                   {"\x00": 1}])
def test_values_no_database_keeps_are_refused_at_any_depth(value):
    with pytest.raises(JSONValueError):
        check_value({"matches": [value]})


def test_the_refusal_names_the_place():
    with pytest.raises(JSONValueError, match=r"answer\.claims\.x\[1\]"):
        check_value({"claims": {"x": [1, math.inf]}})


def test_nesting_is_measured_without_recursion_and_ignores_brackets_in_strings():
    assert nesting_depth(b"[" * 200_000) == 200_000
    assert nesting_depth(b'{"a": "[[[[\\"[[["}') == 1


def test_loads_refuses_deep_documents_and_constants():
    with pytest.raises(JSONBodyError):
        loads(b"[" * 100 + b"]" * 100, max_depth=32)
    with pytest.raises(JSONValueError):
        loads(b'{"a": NaN}')
    with pytest.raises(JSONBodyError):
        loads(b"\xff\xfe")
