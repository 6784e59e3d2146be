"""The kept database's projects (tests/data/before_one_engine, SOURCE.md there) rebuilt in a test's database, and
their votes carried to a declared project of a definition by a bridge's mapping, as a migration will.

`rebuild` puts one kept project back as today's code made it: its users, items (payload, known answer, control
flag), every assignment (status, answer, presentation, exclusion), its label rows, control answers and annotator
states (a blocked annotator stays blocked), all read from rows.json. `migrate` makes the declared project of a
definition beside it: the same items (known answers mapped), the same annotators' assignments with each stored
answer mapped by the bridge (`vote`: payload and built-in answer to the definition's answer and label rows), and
the same annotator states. Gold and agreement of the two can then be compared on the data made before the change.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import AnnotatorState, Assignment, ControlAnswer, Item, Label, Project, User
from annotator.declared.definition import Definition
from annotator.tasks.base import LabelIn
from tests.conftest import DATA

EXPORTS = DATA / "before_one_engine" / "exports"   # what each kept project gave out, by project and step
KEPT_ROWS: dict[str, list[dict[str, Any]]] = json.loads(
    (DATA / "before_one_engine" / "rows.json").read_text(encoding="utf-8"))
Vote = Callable[[dict[str, Any], Any], tuple[dict[str, Any], list[LabelIn]]]


def _when(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _user(name: str) -> User:
    found = db.session.scalar(select(User).where(User.username == name))
    if found is None:
        found = User(username=name, role="annotator")
        db.session.add(found)
        db.session.flush()
    return found


def kept(table: str, slug: str) -> list[dict[str, Any]]:
    """The kept rows of one table that belong to project `slug`."""
    return [row for row in KEPT_ROWS[table]
            if row.get("project") == slug or (isinstance(row.get("item"), list) and row["item"][0] == slug)]


def rebuild(slug: str) -> Project:
    """The kept project `slug` with all its rows, committed."""
    spec = next(row for row in KEPT_ROWS["projects"] if row["slug"] == slug)
    project = Project(slug=slug, name=spec["name"], task_type=spec["task_type"], k=spec["k"],
                      lease_minutes=spec["lease_minutes"], settings=spec["settings"], source=spec["source"],
                      quality=spec["quality"], audience=spec["audience"], archived=spec["archived"])
    db.session.add(project)
    db.session.flush()
    items = _items(project, kept("items", slug), lambda reference: reference)
    assignments: dict[tuple[str, str], Assignment] = {}
    for row in kept("assignments", slug):
        assignment = _assignment(project, items[row["item"][1]], row, row["answer"])
        assignments[(row["item"][1], row["user"])] = assignment
    for row in kept("labels", slug):
        assignment = assignments[(row["item"][1], row["user"])]
        db.session.add(Label(assignment_id=assignment.id, project_id=project.id, item_id=assignment.item_id,
                             user_id=assignment.user_id, unit=row["unit"], field=row["field"], value=row["value"]))
    for row in kept("control_answers", slug):
        assignment = assignments[(row["item"][1], row["user"])]
        db.session.add(ControlAnswer(assignment_id=assignment.id, project_id=project.id, item_id=assignment.item_id,
                                     user_id=assignment.user_id, score=row["score"], quiz_attempt=row["quiz_attempt"]))
    _states(project, slug)
    db.session.commit()
    return project


def migrate(slug: str, new_slug: str, definition: Definition, vote: Vote,
            reference: Callable[[Any], Any] = lambda known: known) -> Project:
    """A declared project of `definition` holding kept project `slug`'s items and votes, each mapped by `vote`."""
    spec = next(row for row in KEPT_ROWS["projects"] if row["slug"] == slug)
    project = Project(slug=new_slug, name=definition.name, task_type="custom", k=spec["k"],
                      lease_minutes=spec["lease_minutes"], guidelines=definition.guidelines, settings={},
                      source={"format": "custom"}, definition=definition.to_data(), quality=spec["quality"])
    db.session.add(project)
    db.session.flush()
    items = _items(project, kept("items", slug), reference)
    for row in kept("assignments", slug):
        item = items[row["item"][1]]
        mapped, rows = (None, []) if row["answer"] is None else vote(dict(item.payload), row["answer"])
        assignment = _assignment(project, item, row, mapped)
        for label in rows:
            db.session.add(Label(assignment_id=assignment.id, project_id=project.id, item_id=item.id,
                                 user_id=assignment.user_id, unit=label.unit, field=label.field,
                                 value=label.value))
    _states(project, slug)
    db.session.commit()
    return project


def _items(project: Project, rows: list[dict[str, Any]], reference: Callable[[Any], Any]) -> dict[str, Item]:
    found = {}
    for row in rows:
        item = Item(project_id=project.id, external_id=row["external_id"], position=row["position"],
                    payload=row["payload"], reference=reference(row["reference"]), done_count=row["done_count"],
                    is_control=row["is_control"], target=row["target"])
        db.session.add(item)
        found[row["external_id"]] = item
    db.session.flush()
    return found


def _assignment(project: Project, item: Item, row: dict[str, Any], answer: Any) -> Assignment:
    assignment = Assignment(project_id=project.id, item_id=item.id, user_id=_user(row["user"]).id,
                            status=row["status"], leased_at=_when(row["leased_at"]),
                            expires_at=_when(row["expires_at"]), submitted_at=_when(row["submitted_at"]),
                            seconds_spent=row["seconds_spent"], answer=answer, presentation=row["presentation"],
                            excluded=row["excluded"])
    db.session.add(assignment)
    db.session.flush()
    return assignment


def _states(project: Project, slug: str) -> None:
    for row in kept("annotator_states", slug):
        db.session.add(AnnotatorState(project_id=project.id, user_id=_user(row["user"]).id,
                                      quiz_status=row["quiz_status"], quiz_attempt=row["quiz_attempt"],
                                      blocked_at=_when(row["blocked_at"]), blocked_reason=row["blocked_reason"],
                                      exempt=row["exempt"]))


def kept_votes(slug: str) -> list[tuple[dict[str, Any], Any, list[tuple[str, str, str]]]]:
    """Every submitted vote of kept project `slug` as (item payload, stored answer, its label rows), read from
    rows.json alone: for the pure mappings, which need no database."""
    payloads = {row["external_id"]: row["payload"] for row in kept("items", slug)}
    rows: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    for label in kept("labels", slug):
        rows.setdefault((label["item"][1], label["user"]), []).append((label["unit"], label["field"], label["value"]))
    return [(payloads[row["item"][1]], row["answer"], rows.get((row["item"][1], row["user"]), []))
            for row in kept("assignments", slug) if row["answer"] is not None]
