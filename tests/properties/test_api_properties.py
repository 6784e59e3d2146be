"""Property: any JSON body sent to the submit endpoint is stored as a valid vote (201), or refused
with a 4xx JSON error that says why, and then nothing is stored; never a 500 (both engines)."""
from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Label
from annotator.engine import assignment as engine

LEAVES = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
JSON = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                        max_size=4), max_leaves=12)
KEY_POINTS = st.lists(st.sampled_from(["kp_1_0", "kp_1_1", "kp_1_2", "kp_1_9", "x\x00"]), max_size=3)
ANSWERS = st.fixed_dictionaries({"matches": KEY_POINTS | JSON}, optional={"extra": JSON}) | JSON
BODIES = st.fixed_dictionaries({"answer": ANSWERS}) | JSON


@given(body=BODIES)
@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_any_submit_body_is_stored_whole_or_refused_with_nothing_stored(make_user, api_client, kpa_project, body):
    if db.session.scalar(select(func.count()).select_from(Assignment)) == 0:  # once per test, not per example
        project = kpa_project()
        engine.next_for(make_user("ann"), project)
        db.session.commit()
    lease = db.session.scalar(select(Assignment).order_by(Assignment.id.desc()))
    before = db.session.scalar(select(func.count()).select_from(Label))
    raw = json.dumps(body, allow_nan=True)
    response = api_client("ann").post(f"/api/v1/assignments/{lease.id}/submit", data=raw,
                                      content_type="application/json")
    assert response.status_code in (200, 201, 400, 422), response.get_data(as_text=True)[:300]
    assert response.is_json
    if response.status_code >= 400:
        assert response.get_json()["error"]
        assert db.session.scalar(select(func.count()).select_from(Label)) == before
    elif response.status_code == 201:  # stored: lease the next HIT for the following examples
        stored = db.session.get(Assignment, lease.id)
        assert stored.answer == response.get_json()["assignment"]["answer"]
        user = stored.user
        engine.next_for(user, stored.item.project)
