"""A converted answer posted through the JSON API of a declared project, as a client of the switched type will.

The bridges' tests check a converted answer with the declared engine's check directly; this posts it as the API
takes it (`POST /projects/SLUG/next`, then `POST /assignments/ID/submit`) to a declared project of the definition
holding the API answer shapes' items (tests/data/api_answer_shapes/), and reads the vote back in a fresh session.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Label
from tests.support.api_answer_shapes import fresh_project
from tests.support.declared_projects import make_declared_project

Convert = Callable[[Any, dict[str, Any]], dict[str, Any]]   # (today's answer, item payload) -> the definition's


def submit_converted(setup: dict[str, Any], definition: Path, answer: Any, convert: Convert,
                     client_for: Callable[[str], FlaskClient]
                     ) -> tuple[int, list[tuple[str, str, str]], Any, dict[str, Any]]:
    """(status, the vote's label rows sorted, the stored answer, the item's payload) of `answer` converted and
    submitted through the API of a declared project of `definition` holding the set-up's items, leased first as
    the set-up says."""
    built_in = fresh_project(setup)
    payloads = db.session.scalars(select(Item.payload).where(Item.project_id == built_in.id).order_by(Item.position))
    declared = make_declared_project("shapes-declared", definition, items=[dict(p) for p in payloads], k=3)
    client = client_for("shape-annotator")
    leased = client.post(f"/api/v1/projects/{declared.slug}/next").get_json()["assignment"]
    assert leased["item"]["id"] == setup["item"]
    payload = dict(db.session.get_one(Assignment, int(leased["id"])).item.payload)
    response = client.post(f"/api/v1/assignments/{leased['id']}/submit", json={"answer": convert(answer, payload)})
    db.session.remove()
    rows = sorted((label.unit, label.field, label.value) for label in
                  db.session.scalars(select(Label).where(Label.assignment_id == int(leased["id"]))))
    stored = db.session.get_one(Assignment, int(leased["id"])).answer
    db.session.remove()
    return response.status_code, rows, stored, payload
