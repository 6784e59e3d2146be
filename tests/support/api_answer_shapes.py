"""The answers the JSON API takes today for each built-in HIT type, and what it stores from them, posted for real.

tests/data/api_answer_shapes/<type>.json (README.md there) lists, per project set-up, answers the API accepts and
answers it refuses. `run_case` posts one through the API to a fresh project of that set-up, as a client does
(`POST /projects/SLUG/next`, then `POST /assignments/ID/submit`), and gives back what happened: for an accepted
answer, the status, the answer the API echoes, the label rows the vote stored (read back in a fresh session) and
how the item was shown (`presentation`, where the type draws one); for a refused one, the status and the error
message. tests/web/test_api_answer_shapes.py compares that with the files; fill.py beside the files wrote those
fields from today's code once.
"""
from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Label, Project
from annotator.declared import TYPE_NAME as DECLARED_TYPE
from annotator.lookups.formats import file_format
from tests.conftest import DATA, load_project

SHAPES = DATA / "api_answer_shapes"
TYPES = ("kp_match", "kp_match_check", "kp_set_compare", "emphasis", "stance_premise", "cloze")
SLUG = "shapes"
# What the fixtures say happened, filled in from today's code (fill.py); the rest of a case is its input.
ACCEPTED_RESULT = ("status", "stored_answer", "labels", "presentation")
REFUSED_RESULT = ("status", "error")


def shapes_of(task: str) -> dict[str, Any]:
    return json.loads((SHAPES / f"{task}.json").read_text(encoding="utf-8"))


def declared_project(setup: dict[str, Any]) -> Project:
    """The set-up's project imported as a declared project of its shared task's definition (k = 3), for the formats
    that make one on request (`declared`: docs/one-engine.md, "The switch, step by step")."""
    return load_project(setup["format"], DATA / setup["path"], SLUG, k=3, declared=True, **setup["options"])


def fresh_project(setup: dict[str, Any]) -> Project:
    """The set-up's project, imported as `flask import` does (k = 3), of the built-in type the shapes were recorded
    on: a format whose new projects are declared by default (`declared`: docs/one-engine.md) is asked for the built-in
    type while it exists; a format whose type is gone (its `task` the declared type) makes its declared project."""
    fmt = file_format(setup["format"])
    asks = fmt.task != DECLARED_TYPE and any(o.name == "declared" for o in fmt.import_options)
    built_in = {"declared": False} if asks else {}
    return load_project(setup["format"], DATA / setup["path"], SLUG, k=3, **built_in, **setup["options"])


def first_item_payload(setup: dict[str, Any]) -> dict[str, Any]:
    """The payload of the item the API leased first in the set-up, in a fresh project imported as the files were.

    Imported once per set-up, engine and process (a copy each time): the bridge tests ask for it in each of their
    checks of one answer, and an import of the KPA files took 0.1-0.2 s. The import itself is `run_case`'s, which
    imports a fresh project for every case."""
    key = (db.engine.dialect.name, json.dumps(setup, sort_keys=True))
    if key not in _FIRST_PAYLOADS:
        project = fresh_project(setup)
        _FIRST_PAYLOADS[key] = dict(db.session.scalars(select(Item.payload).where(
            Item.project_id == project.id, Item.external_id == setup["item"])).one())
    return copy.deepcopy(_FIRST_PAYLOADS[key])


_FIRST_PAYLOADS: dict[tuple[str, str], dict[str, Any]] = {}   # (engine, set-up as JSON) -> the payload


def row_triples(rows: Sequence[Any]) -> list[tuple[str, str, str]]:
    """Label rows (stored, checked or mapped) as sorted (unit, field, value) triples, to compare one with another."""
    return sorted((row.unit, row.field, row.value) for row in rows)


def _lease(client: FlaskClient, item: str) -> int:
    response = client.post(f"/api/v1/projects/{SLUG}/next")
    assert response.status_code == 200, response.get_data(as_text=True)
    assignment = response.get_json()["assignment"]
    assert assignment["item"]["id"] == item, f"the API leased {assignment['item']['id']}, not {item}"
    return int(assignment["id"])


def _submit(client: FlaskClient, assignment: int, case: dict[str, Any]) -> Any:
    body = case["body"] if "body" in case else json.dumps({"answer": case["answer"]})
    return client.post(f"/api/v1/assignments/{assignment}/submit", data=body, content_type="application/json")


def _stored(assignment: int) -> tuple[list[list[str]], Any, Any]:
    """(label rows as [unit, field, value], sorted; the stored answer; the presentation), in a fresh session."""
    db.session.remove()
    rows = sorted([label.unit, label.field, label.value] for label in
                  db.session.scalars(select(Label).where(Label.assignment_id == assignment)))
    stored = db.session.get_one(Assignment, assignment)
    answer, presentation = stored.answer, stored.presentation
    db.session.remove()
    return rows, answer, presentation


def run_case(setup: dict[str, Any], kind: str, case: dict[str, Any],
             client_for: Callable[[str], FlaskClient],
             make: Callable[[dict[str, Any]], Project] = fresh_project) -> dict[str, Any]:
    """Post one case of the set-up (`kind` "accepted" or "refused") to a fresh project of it, made here in the
    empty database, by an annotator of its own (`annotator`, default "shape-annotator": the name seeds how a
    pairwise item is shown); what happened, by `ACCEPTED_RESULT` or `REFUSED_RESULT`. A refused answer must leave
    the lease as it was: no vote, no label row. `make` makes the project (default: of the built-in type)."""
    make(setup)
    client = client_for(case.get("annotator", "shape-annotator"))
    assignment = _lease(client, setup["item"])
    response = _submit(client, assignment, case)
    body = response.get_json(silent=True) or {}
    rows, answer, presentation = _stored(assignment)
    if kind == "accepted":
        assert answer == body.get("assignment", {}).get("answer"), "the API echoes the answer it stored"
        return {"status": response.status_code, "stored_answer": answer, "labels": rows, "presentation": presentation}
    db.session.remove()
    lease = db.session.get_one(Assignment, assignment)
    assert (lease.status, lease.answer, lease.submitted_at, rows) == ("leased", None, None, []), \
        "a refused answer changed the lease or stored labels"
    db.session.remove()
    return {"status": response.status_code, "error": body.get("error")}


def expected(kind: str, case: dict[str, Any]) -> dict[str, Any]:
    """What the fixture says the case gives (`run_case`'s shape)."""
    return {key: case.get(key) for key in (ACCEPTED_RESULT if kind == "accepted" else REFUSED_RESULT)}


def setup_path(task: str) -> Path:
    return SHAPES / f"{task}.json"
