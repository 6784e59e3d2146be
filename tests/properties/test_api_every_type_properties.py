"""Property, for every registered HIT type: any answer sent to the submit endpoint is stored in the type's
canonical form (201; a fresh session reads back what the response echoed, with no key that was not sent, which
the type would not change again, and a valid answer exactly as sent), or refused with a 4xx JSON error that
says why, with no row added or changed anywhere; never a 500 (both engines).

Each type's project comes from its sample data in tests/support/type_data.py (which fails when a registered type
has none). Answers are drawn three ways: any JSON value; the type's own valid
`example_answer` for the leased item; and that answer with one thing changed (a value replaced by any JSON,
a key removed or added, an element of a list or object changed), which reaches the type's own checks.
"""
from __future__ import annotations

import json
import random

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, User
from annotator.engine import assignment as engine
from annotator.tasks import TASK_TYPES, project_task, settings_with_defaults
from tests.conftest import load_project
from tests.support.property_checks import TEXT, row_counts
from tests.support.type_data import type_data

LEAVES = (st.none() | st.booleans() | st.integers() | st.integers(-2**70, 2**70) | st.floats() | TEXT)
JSON = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                    max_leaves=10)


def _changed(value: object, plan: list[int], new_key: str, new_value: object) -> object:
    """`value` with one thing changed, at a depth and place `plan` picks (drawn before the item is known, so
    that what Hypothesis draws never depends on which item was leased)."""
    step, rest = plan[0], plan[1:]
    if isinstance(value, dict) and value and step % 3 == 0 and rest:
        key = sorted(value)[rest[0] % len(value)]
        return {**value, key: _changed(value[key], rest[1:] or [1], new_key, new_value)}
    if isinstance(value, list) and value and step % 3 == 0 and rest:
        index = rest[0] % len(value)
        return [*value[:index], _changed(value[index], rest[1:] or [1], new_key, new_value), *value[index + 1:]]
    if isinstance(value, dict) and value and step % 3 == 1:
        key = sorted(value)[(rest or [0])[0] % len(value)]
        return {k: v for k, v in value.items() if k != key}
    if isinstance(value, dict) and step % 3 == 2:
        return {**value, new_key: new_value}
    if isinstance(value, list) and step % 3 == 1:
        return value[:-1] if value else [new_value]
    if isinstance(value, list) and step % 3 == 2:
        return [*value, new_value]
    return new_value


@pytest.fixture(params=sorted(TASK_TYPES))
def typed_project(request, app):  # type: ignore[no-untyped-def]
    data = type_data(request.param)
    return load_project(data.format, data.path, "p", **{**data.options, "k": 50})


@pytest.fixture
def api_of(api_client):  # type: ignore[no-untyped-def]
    """The API client of an annotator, made (a token issued) at its first example of the test and used by its
    later ones: a token per example was a sixth of the examples' time, and no example is about the token."""
    clients: dict[str, FlaskClient] = {}

    def client(username: str) -> FlaskClient:
        if username not in clients:
            clients[username] = api_client(username)
        return clients[username]
    return client


def _lease(project_id: int) -> Assignment:
    """An open lease of the newest annotator, or of a new one when that one has answered everything."""
    from annotator.core.models import Project
    project = db.session.get(Project, project_id)
    user = db.session.scalar(select(User).order_by(User.id.desc()))
    lease = engine.next_for(user, project) if user is not None else None
    if lease is None:
        user = User(username=f"ann{db.session.query(User).count()}", role="annotator")
        user.set_password("correct horse battery")
        db.session.add(user)
        db.session.commit()
        lease = engine.next_for(user, project)
    db.session.commit()
    return lease


@pytest.mark.parametrize("kind", ["any JSON", "valid", "one change"])
@given(data=st.data())
@settings(max_examples=15, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_any_answer_of_every_type_is_stored_normalised_or_refused_with_nothing_stored(api_of, typed_project, kind,  # type: ignore[no-untyped-def]
                                                                                      data):
    task = project_task(typed_project)
    lease = _lease(typed_project.id)
    assert lease is not None, "the project ran out of HITs: load fewer examples or more items"
    item_settings = settings_with_defaults(task, typed_project.settings)
    shown = task.public_item(lease.item, item_settings, lease.presentation)
    valid = task.example_answer(shown, random.Random(data.draw(st.integers(0, 2**16), label="seed")))
    drawn = data.draw(JSON, label="any JSON")
    plan = data.draw(st.lists(st.integers(0, 2**10), min_size=8, max_size=8), label="where to change")
    new_key = data.draw(TEXT, label="added key")
    answer = {"any JSON": drawn, "valid": valid, "one change": _changed(valid, plan, new_key, drawn)}[kind]
    raw = json.dumps({"answer": answer}, allow_nan=True)
    api = api_of(db.session.get(User, lease.user_id).username)
    before = row_counts()
    response = api.post(f"/api/v1/assignments/{lease.id}/submit", data=raw, content_type="application/json")
    assert response.status_code in (201, 400, 422), response.get_data(as_text=True)[:300]
    assert response.is_json
    after = row_counts()
    stored = db.session.get(Assignment, lease.id)
    if response.status_code != 201:
        event(f"refused ({kind})")
        assert isinstance(response.get_json()["error"], str) and response.get_json()["error"].strip()
        assert after == before and stored.status == "leased" and stored.answer is None
        return
    event(f"stored ({kind})")
    sent = json.loads(raw)["answer"]
    kept = stored.answer
    assert stored.status == "submitted" and kept == response.get_json()["assignment"]["answer"]
    assert set(kept) <= set(sent), "the stored answer holds a key that was not sent"
    # a canonical form: the type finds nothing to change in what it stored
    assert task.normalised_answer(stored.item, kept, item_settings, stored.presentation) == kept
    assert after["labels"] > before["labels"]
    if kind == "valid":
        assert kept == json.loads(json.dumps(valid))
