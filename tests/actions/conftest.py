"""Helpers for the domain actions' tests: who acts, and what a fresh session reads back."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from annotator.core.audit import Actor
from annotator.core.extensions import db
from annotator.core.models import AuditEvent, Item, KeptState, Project
from tests.people.conftest import boss  # noqa: F401  # the logged-in admin's client, for the pages' tests


@pytest.fixture
def admin(make_user) -> Actor:  # type: ignore[no-untyped-def]
    """An admin account ("boss") as an action is told who acts: (account id, name)."""
    return make_user("boss", role="admin").id, "boss"


def trail() -> list[tuple[str, str | None, dict]]:
    """Every audit event as (action, project, detail), oldest first, read in a fresh session."""
    db.session.remove()
    return [(e.action, e.project, e.detail) for e in db.session.scalars(select(AuditEvent).order_by(AuditEvent.id))]


def generation(slug: str) -> int:
    """The project's kept-figures generation (0 before any was kept), read in a fresh session."""
    db.session.remove()
    return db.session.scalar(select(KeptState.generation).join(Project, Project.id == KeptState.project_id)
                             .where(Project.slug == slug)) or 0


def start_generation(project: Project, value: int = 5) -> None:
    """Give the project a kept-figures state, as a big project's first computation makes it."""
    db.session.add(KeptState(project_id=project.id, generation=value, claimed_until=None))
    db.session.commit()


def item(project: Project, external_id: str) -> Item:
    found = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == external_id))
    assert found is not None, external_id
    return found


def controls(slug: str) -> set[str]:
    """The project's control items by id, read in a fresh session."""
    db.session.remove()
    return set(db.session.scalars(select(Item.external_id).join(Project)
                                  .where(Project.slug == slug, Item.is_control.is_(True))))
