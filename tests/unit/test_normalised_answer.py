"""Every HIT type declares its answer keys, and the shared hook refuses anything else before `labels`."""
from __future__ import annotations

import math

import pytest

from annotator.core.jsonsafe import JSONBodyError, JSONValueError, check_value, loads, nesting_depth
from annotator.tasks import TASK_TYPES, AnswerError


@pytest.mark.parametrize("name", sorted(TASK_TYPES))
def test_every_type_declares_its_answer_keys(name):
    assert TASK_TYPES[name].answer_keys, f"{name} declares no answer_keys: unknown keys would be stored"


@pytest.mark.parametrize("name", sorted(TASK_TYPES))
def test_an_extra_key_is_refused_by_every_type(name):
    task = TASK_TYPES[name]
    answer = {key: None for key in task.answer_keys or ()} | {"extra": "x" * 1000}
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
