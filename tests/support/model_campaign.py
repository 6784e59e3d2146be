"""A declared campaign whose annotator model is known from a second implementation, for the model's pages and
export columns.

The campaign is tests/data/dawid_skene/independent_models.json's (60 items, 3 answers, 5 votes each from 7
annotators, two of them spammers; 12 control items with known answers), loaded as a declared campaign of one choice
question and voted through the engine. Its Dawid-Skene seeded with the known answers was computed by plain loops
(make_independent.py beside the file), not by the product's code.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project, User, utcnow
from annotator.engine import assignment as engine
from tests.conftest import DATA, all_rows, put_back
from tests.support.declared_projects import make_declared_project

MODEL = json.loads((DATA / "dawid_skene" / "independent_models.json").read_text(encoding="utf-8"))
SEEDED = MODEL["dawid_skene_seeded"]
DEFINITION = """
name: Sentiment of short texts
k: 5
show:
  - {field: text, as: text, label: Text}
questions:
  - {id: sentiment, kind: choice, prompt: "Which sentiment?", options: [neg, neu, pos], gold: {rule: majority}}
"""
SLUG = "sentiment"


def expected(unit: str) -> tuple[str, str]:
    """(the independent model's label of the unit, its posterior as the pages print it)."""
    label = SEEDED["labels"][unit]
    return label, f"{SEEDED['posteriors'][unit][MODEL['classes'].index(label)]:.3f}"


def vote(project: Project, user: User, external_id: str, value: str) -> None:
    """A vote on a chosen item (the engine would pick the item itself), submitted through the engine."""
    item = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == external_id))
    lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                       expires_at=utcnow() + timedelta(minutes=5))
    db.session.add(lease)
    db.session.commit()
    engine.submit(lease.id, user, {"sentiment": value})


def voted_campaign(make_user: Callable[..., User], run_shared) -> Project:  # type: ignore[no-untyped-def]
    """The campaign voted (and an admin, boss), made once per engine in the run and put back for later tests (as
    tests/unit/test_kept_results.py's project)."""
    def make() -> dict[str, list[dict]]:
        units = sorted({unit for unit, _, _ in MODEL["votes"]})
        project = make_declared_project(SLUG, DEFINITION, [{"id": u, "text": f"Text {u}"} for u in units], k=5)
        for item in db.session.scalars(select(Item).where(Item.project_id == project.id)):
            if item.external_id in MODEL["known"]:
                item.is_control, item.reference = True, {"sentiment": MODEL["known"][item.external_id]}
        db.session.commit()
        users = {name: make_user(name) for name in sorted({coder for _, coder, _ in MODEL["votes"]})}
        make_user("boss", role="admin")
        for unit, coder, value in MODEL["votes"]:
            vote(project, users[coder], unit, value)
        return all_rows()

    rows, made_now = run_shared.get_or_make(f"model-posteriors-{db.engine.dialect.name}", make)
    if not made_now:
        put_back(rows)
    return db.session.scalar(select(Project).where(Project.slug == SLUG))


