"""Helpers for the quality-control tests: answering HITs through the engine as an annotator would."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from annotator.core.extensions import db
from annotator.core.models import Item, Project, User
from annotator.engine import assignment as engine

Answer = Callable[[Item], dict[str, Any]] | dict[str, Any]


def answer_next(user: User, project: Project, answer: Answer):  # type: ignore[no-untyped-def]
    """Lease the annotator's next HIT and submit `answer` (or answer(item)); the SubmitResult, or None."""
    lease = engine.next_for(user, project)
    if lease is None:
        return None
    # The answer functions read the known answer, which the lease does not carry (annotators never see it).
    given = answer(db.session.get(Item, lease.item_id)) if callable(answer) else answer
    return engine.submit(lease.id, user, given)


def vote_on(user: User, project: Project, external_id: str, answer: dict[str, Any]):  # type: ignore[no-untyped-def]
    """A vote on a chosen item, leased by hand (the engine would pick the item itself)."""
    from datetime import timedelta

    from annotator.core.models import Assignment, utcnow
    item = db.session.scalar(db.select(Item).where(Item.project_id == project.id, Item.external_id == external_id))
    lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                       expires_at=utcnow() + timedelta(minutes=5))
    db.session.add(lease)
    db.session.commit()
    return engine.submit(lease.id, user, answer)


def set_quality(project: Project, **values: Any) -> None:
    project.quality = {**(project.quality or {}), **values}
    db.session.commit()


def make_controls(project: Project, *external_ids: str) -> list[Item]:
    items = [db.session.scalar(db.select(Item).where(Item.project_id == project.id, Item.external_id == e))
             for e in external_ids]
    for item in items:
        assert item.reference is not None, item.external_id
        item.is_control = True
    db.session.commit()
    return items


def right_answer(item: Item) -> dict[str, Any]:
    """The known answer of a KPA control item, as an annotator would give it."""
    return {"matches": [kp for kp, label in item.reference.items() if int(label) == 1]}


def wrong_answer(item: Item) -> dict[str, Any]:
    return {"matches": [kp["id"] for kp in item.payload["key_points"] if int(item.reference.get(kp["id"], 0)) != 1]}


@pytest.fixture
def no_controls_by_chance(kpa_project):  # type: ignore[no-untyped-def]
    """The KPA project with no random control draws (rate 0), unless a test sets a rate."""
    def load(**kwargs: Any) -> Project:
        project = kpa_project(**kwargs)
        set_quality(project, control_rate=0.0)
        return project
    return load
