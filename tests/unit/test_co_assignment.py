"""Whether the pick keeps annotators' co-assignment connected: every two annotators linked by a chain of items
they shared. Agreement between annotators, Dawid-Skene and the one-coin model compare annotators only through
shared items; two groups who never shared one cannot be put on one scale.

Twelve annotators work in rounds (each round every one of them takes a HIT, then all answer) through a campaign of
12 items with k = 6. The pick of a campaign without a stopping rule (the least loaded item, then the lowest position)
keeps them connected here, though not on every size (tests/unit/test_routing.py shows 10 items with k = 5 split in
two); the routing of a campaign with one (docs/declared-stopping.md) has its own tests there.
"""
from __future__ import annotations

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment
from annotator.engine import assignment as engine
from tests.support.declared_projects import make_declared_project

DEFINITION = """name: Review sentiment
k: 6
show: [text]
questions:
  - id: sentiment
    kind: choice
    prompt: What does the review say of the product?
    options: [positive, negative, neutral]
    gold: {rule: majority}
"""


def groups(pairs: list[tuple[int, int]]) -> list[set[int]]:
    """The connected groups of annotators, items linking everyone who voted on them (a plain union-find)."""
    by_item: dict[int, list[int]] = {}
    for item, user in pairs:
        by_item.setdefault(item, []).append(user)
    parent = {user: user for _, user in pairs}

    def root(user: int) -> int:
        while parent[user] != user:
            user = parent[user]
        return user
    for users in by_item.values():
        for other in users[1:]:
            parent[root(other)] = root(users[0])
    found: dict[int, set[int]] = {}
    for user in parent:
        found.setdefault(root(user), set()).add(user)
    return list(found.values())


def test_twelve_annotators_in_round_robin_stay_connected(app, make_user):
    project = make_declared_project("connected", DEFINITION,
                                    items=[{"id": f"r{n}", "text": f"Review {n}."} for n in range(12)])
    users = [make_user(f"ann{n}") for n in range(12)]
    working = list(users)
    while working:   # each round: everyone still working takes a HIT, then everyone answers
        leases = [(user, engine.next_for(user, project)) for user in working]
        working = [user for user, lease in leases if lease is not None]
        for user, lease in leases:
            if lease is not None:
                engine.submit(lease.id, user, {"sentiment": "positive"})
    db.session.expire_all()
    pairs = [(int(i), int(u)) for i, u in db.session.execute(
        select(Assignment.item_id, Assignment.user_id).where(Assignment.status == SUBMITTED))]
    assert len(pairs) == 12 * 6
    assert len(groups(pairs)) == 1, [sorted(g) for g in groups(pairs)]
