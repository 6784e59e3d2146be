"""Numbers in JSON columns read back as the numbers written, on both engines (annotator/core/json_numbers.py).

Found by the property test of track 2 uploads on PostgreSQL: a system's score written 1e308 was stored and read
back as the int 10**308, which is another number. The expected values here are literals, not the module's output.
"""
from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select

from annotator.campaigns.votes_import import ASSIGNMENT_COLUMNS, _bulk_insert
from annotator.core import json_numbers
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Project, ProjectData, utcnow

# every kind of number a system's file or an answer may hold: floats with an exponent in Python's text (the
# ones JSONB wrote as integers), small ones, ints beyond a float's precision, and booleans beside them
NUMBERS = [1e16, -1e16, 1e308, -1.7976931348623157e308, 1.5e300, 123456789012345678.0, 2.5e-300, 1e-05, 0.1,
           9999999999999998.0, 0, 7, -3, 10**30, 12345678901234567890123, True, False]


@pytest.fixture
def project(app: Flask, kpa_project: Any) -> Project:
    """The KPA excerpt as a project: its items' payloads and its data are JSON columns."""
    made: Project = kpa_project()
    return made


def _kinds(value: Any) -> Any:
    """The value with every number paired with its type, so that 1e16 and 10**16 (equal in Python) differ."""
    if isinstance(value, dict):
        return {key: _kinds(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_kinds(item) for item in value]
    return (type(value).__name__, value)


def test_a_float_with_an_exponent_is_written_in_full_with_a_point() -> None:
    assert json_numbers.dumps([1e16, -1e16, 1.5e20]) == \
        "[10000000000000000.0, -10000000000000000.0, 150000000000000000000.0]"


def test_the_full_text_of_a_large_float_is_its_exact_value() -> None:
    text = json_numbers.dumps({"score": 1e308})
    exact = Decimal(1e308)  # the double's exact value, independently of how the module formats it
    assert exact == int(exact) and len(str(int(exact))) == 309
    assert text == '{"score": ' + str(int(exact)) + '.0}'
    assert json.loads(text) == {"score": 1e308}


def test_values_without_such_a_float_are_written_as_json_writes_them() -> None:
    value = {"text": "one e+ two", "e+": [1, 2.5, None, True, "1e+16"], "nested": {"n": 1e15, "m": -0.0}}
    assert json_numbers.dumps(value) == json.dumps(value)


def test_a_string_that_looks_like_a_large_float_stays_a_string() -> None:
    value = ["1e+16", 1e16, {"1e+16": 1e16}]
    assert json_numbers.dumps(value) == '["1e+16", 10000000000000000.0, {"1e+16": 10000000000000000.0}]'


@pytest.mark.parametrize("number", NUMBERS, ids=repr)
def test_a_number_reads_back_as_written(number: Any) -> None:
    assert _kinds(json.loads(json_numbers.dumps([number]))) == [_kinds(number)]


def test_project_data_reads_back_every_number_as_written(app: Flask, project: Project) -> None:
    content = {"predictions": {"arg_1": {f"kp_{n}": score for n, score in enumerate(NUMBERS)}}, "scores": NUMBERS}
    db.session.add(ProjectData(project_id=project.id, name="system", content=content))
    db.session.commit()
    db.session.remove()
    stored = db.session.scalar(select(ProjectData.content).where(ProjectData.name == "system"))
    assert _kinds(stored) == _kinds(content)


def test_an_items_payload_reads_back_a_large_float_as_a_float(app: Flask, project: Project) -> None:
    item = db.session.scalar(select(Item).where(Item.project_id == project.id).order_by(Item.id))
    item_id = item.id
    item.payload = {**item.payload, "weight": 1e16, "big": 10**16}
    db.session.commit()
    db.session.remove()
    payload = db.session.get(Item, item_id).payload
    assert (type(payload["weight"]), payload["weight"]) == (float, 1e16)
    assert (type(payload["big"]), payload["big"]) == (int, 10**16)


def test_a_bulk_inserted_answer_reads_back_a_large_float_as_a_float(app: Flask, project: Project,
                                                                    make_user: Any) -> None:
    """Imported votes go by COPY on PostgreSQL (campaigns/votes_import.py), outside SQLAlchemy's statements: the
    engine's JSON writer reaches them as the connection's writer of psycopg's Jsonb."""
    user_id = make_user("coder").id
    item_id = db.session.scalar(select(Item.id).where(Item.project_id == project.id).order_by(Item.id))
    now = utcnow()
    _bulk_insert(Assignment.__table__, ASSIGNMENT_COLUMNS,
                 [(project.id, item_id, user_id, SUBMITTED, now, now, now, None, {"score": 1e308, "n": 10**20})])
    db.session.commit()
    db.session.remove()
    answer = db.session.scalar(select(Assignment.answer).where(Assignment.user_id == user_id))
    assert _kinds(answer) == {"score": ("float", 1e308), "n": ("int", 10**20)}


def test_negative_zero_reads_back_equal_to_zero(app: Flask, project: Project) -> None:
    """JSONB's numeric has no negative zero (the module's docstring says so): equal, sign not promised."""
    db.session.add(ProjectData(project_id=project.id, name="zero", content=[-0.0]))
    db.session.commit()
    db.session.remove()
    [stored] = db.session.scalar(select(ProjectData.content).where(ProjectData.name == "zero"))
    assert (type(stored), stored) == (float, 0.0)
    if db.engine.dialect.name == "sqlite":
        assert math.copysign(1.0, stored) == -1.0
