"""Many annotators at once with a stopping rule on (`stopping: decided`, docs/declared-stopping.md): the invariants
of test_concurrency.py hold on both engines while items stop early, their open leases are released and late
submits of those leases are refused (409, nothing stored).

The same run as test_concurrency.py (16 annotators, 3 gunicorn workers, double submits, double `next`s, leases
pushed into the past), reusing its servers and clients, on a declared campaign of 40 reviews with k = 5: each
answer says "positive" and "no" four times in five, so most items are decided by their first three or four votes,
and some take all five. Afterwards: no item over its target and each at exactly its target (a stopped item's
target is its votes), nobody twice on an item, no lease left, counters equal to rows, every 201 exactly one
stored vote and every stored vote its 201; the routing (the least certain item next) wrote every item's certainty,
and the annotators stay linked by shared items.

Again with the confidence rule and a prior per group of items (`prior_by`, the reviews in four groups): the same
invariants, and the count table the submits incremented concurrently equals a count of the stored labels.
"""
from __future__ import annotations

import random
from typing import Any

import pytest
from sqlalchemy import select

from annotator.analysis import prior_counts
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Project
from annotator.engine.invariants import check_project
from tests.postgres.test_concurrency import ANNOTATORS, SLUG, _work, server, servers  # noqa: F401 (fixtures)
from tests.support.declared_projects import make_declared_project
from tests.unit.test_co_assignment import groups

pytestmark = pytest.mark.concurrency
K = 5
DEFINITION = f"""name: Review sentiment, stopping when decided
k: {K}
stopping: decided
show: [text]
questions:
  - id: sentiment
    kind: choice
    prompt: What does the review say of the product?
    options: [positive, negative, neutral]
    gold: {{rule: majority}}
  - id: price
    kind: choice
    prompt: Does it mention the price?
    options: ["yes", "no"]
    gold: {{rule: majority}}
"""


class Leaning:
    """Answers as a crowd that mostly agrees: "positive" and "no" four times in five, else another value."""

    def example_answer(self, item: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        return {"sentiment": "positive" if rng.random() < 0.8 else rng.choice(["negative", "neutral"]),
                "price": "no" if rng.random() < 0.8 else "yes"}


@pytest.fixture
def stopping_project(app):  # type: ignore[no-untyped-def]
    make_declared_project(SLUG, DEFINITION, items=[{"id": f"r{n}", "text": f"Review number {n}."} for n in range(40)])


@pytest.fixture
def prior_project(app):  # type: ignore[no-untyped-def]
    definition = DEFINITION.replace("stopping: decided", "stopping: {confidence: 0.9, min_votes: 2, prior_by: text}")
    make_declared_project(SLUG, definition, items=[{"id": f"r{n}", "text": f"Review of kind {n % 4}."}
                                                   for n in range(40)])


def test_invariants_hold_with_items_stopping_early(stopping_project, api_client, server, database_url):  # noqa: F811
    stopped_early(api_client, server, database_url)


def test_invariants_hold_with_a_prior_per_group_and_its_counts_equal_the_labels(prior_project, api_client, server,  # noqa: F811
                                                                                database_url):
    stopped_early(api_client, server, database_url)
    project = db.session.scalars(select(Project).where(Project.slug == SLUG)).one()
    table, labels = prior_counts.table(project.id), prior_counts.counted(project)
    assert table == labels and sum(v for (key, *_), v in labels.items() if key == "") == 2 * sum(
        item.done_count for item in db.session.scalars(select(Item)))   # two questions per vote


def stopped_early(api_client, server, database_url) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    tokens = {f"ann{n}": api_client(f"ann{n}").token for n in range(ANNOTATORS)}
    run = _work(server, tokens, Leaning(), database_url)  # type: ignore[arg-type]
    assert all(s < 500 for s in run.statuses)
    db.session.remove()
    checks = check_project(SLUG, complete=True, sent=run.sent)
    assert [c for c in checks if not c.passed] == [], "\n".join(f"{c.name}: {c.detail}" for c in checks)
    items = db.session.scalars(select(Item)).all()
    stopped = [item for item in items if item.stopped_at is not None]
    assert stopped and all(item.target == item.done_count < K for item in stopped)
    assert all(item.done_count == K for item in items if item.stopped_at is None)
    assert sum(item.done_count for item in items) < K * len(items)   # votes were saved
    # the routing served them (each item's certainty written, 2 once complete) and kept the annotators linked
    assert all(item.certainty == 2.0 for item in items)
    pairs = [(int(i), int(u)) for i, u in db.session.execute(
        select(Assignment.item_id, Assignment.user_id).where(Assignment.status == SUBMITTED))]
    assert len(groups(pairs)) == 1, [sorted(g) for g in groups(pairs)]
