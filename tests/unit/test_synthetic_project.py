"""bench/synthetic.py, the builder of the big benchmark projects: what it stores is what a campaign would.

Correctness only (no timing: performance is measured by bench/, never by tests). On both engines,
so that the COPY path of PostgreSQL and the executemany path of SQLite are both covered; the chunk
size is made tiny so that rows of every table are written in several chunks.
"""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Label, User
from annotator.engine.invariants import check_project
from bench import synthetic


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(synthetic, "CHUNK", 7)


def count(model, **where) -> int:  # type: ignore[no-untyped-def]
    query = select(func.count()).select_from(model)
    for name, value in where.items():
        query = query.where(getattr(model, name) == value)
    return db.session.scalar(query)


def test_votes_fill_the_project_as_a_finished_campaign_would(kpa_project) -> None:  # type: ignore[no-untyped-def]
    project = kpa_project(k=3)
    imported = count(Item, project_id=project.id)

    built = synthetic.add_votes(project, labels=2000, k=3, crowd_size=5, seed=1)

    assert built.labels >= 2000 and count(Label, project_id=project.id) == built.labels
    assert built.items > 0 and count(Item, project_id=project.id) == imported + built.items
    assert count(Assignment, project_id=project.id) == built.assignments == 3 * built.voted
    assert count(User) == 5
    # k distinct annotators per item, done counts, no lease left, labels exactly as the task type gives them
    checks = check_project(project.slug, complete=True)
    assert [c.name for c in checks if not c.passed] == []


def test_copies_get_new_ids_after_the_last_position(kpa_project) -> None:  # type: ignore[no-untyped-def]
    project = kpa_project()
    first = db.session.scalars(select(Item).where(Item.project_id == project.id).order_by(Item.position)).all()
    last = first[-1].position

    built = synthetic.grow_items(project, len(first) * 2 + 3)

    items = db.session.scalars(select(Item).where(Item.project_id == project.id).order_by(Item.position)).all()
    copies = items[len(first):]
    assert built.items == len(copies) == len(first) + 3
    assert [c.position for c in copies] == list(range(last + 1, last + 1 + len(copies)))
    assert copies[0].external_id == f"{first[0].external_id}~1"
    assert copies[len(first)].external_id == f"{first[0].external_id}~2"
    assert copies[0].payload == first[0].payload and copies[0].done_count == 0
    assert len({i.external_id for i in items}) == len(items)


def test_the_database_can_still_add_rows_after_explicit_ids(kpa_project) -> None:  # type: ignore[no-untyped-def]
    project = kpa_project()
    synthetic.grow_items(project, 40)
    item = Item(project_id=project.id, external_id="new", position=10_000, payload={})
    db.session.add(item)
    db.session.commit()
    assert item.id == db.session.scalar(select(func.max(Item.id)))


def test_a_project_with_votes_is_refused(kpa_project) -> None:  # type: ignore[no-untyped-def]
    project = kpa_project(k=2)
    synthetic.add_votes(project, labels=10, k=2, crowd_size=3)
    with pytest.raises(ValueError, match="already has assignments"):
        synthetic.add_votes(project, labels=10, k=2, crowd_size=3)
