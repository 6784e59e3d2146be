"""Routing (annotator/engine/routing.py): with a stopping rule, the next item is the least certain one the annotator
may take, each vote writing the item's certainty; and the annotators' co-assignment stays connected where the pick
of old (least loaded, then position) splits it. On both engines.

The certainties expected here are worked out by hand from the rules (docs/declared-stopping.md, "Routing"):
  decided, majority of at most k = 5 over three options: positive, positive (2 against 0, 3 votes left): one more
  vote against still leaves positive ahead, two make a tie, so 2 - 1 = 1 of the 3 votes left may go against it:
  1/3. Positive, negative (a tie): the next vote changes the gold: 0. One vote: a vote against makes a tie: 0.
  confidence, no control items, so every annotator counts with the default accuracy 0.7, uniform priors over three
  options: one vote 0.7; two agreeing 0.7^2 / (0.7^2 + 2 * 0.15^2) = 0.49 / 0.535; a tie has no gold: 0.
"""
from __future__ import annotations

import random

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Project
from annotator.engine import assignment as engine
from tests.support.declared_projects import make_declared_project
from tests.unit.test_co_assignment import groups

BASE = """name: Review sentiment
k: {k}
show: [text]
questions:
  - id: sentiment
    kind: choice
    prompt: What does the review say of the product?
    options: [positive, negative, neutral]
    gold: {{rule: majority}}
"""
DECIDED = "stopping: decided\n"
CONFIDENCE = "stopping: {confidence: 0.95, min_votes: 3}\n"


def reviews(n: int) -> list[dict[str, str]]:
    return [{"id": f"r{i}", "text": f"Review number {i}: it does what it says."} for i in range(n)]


def campaign(slug: str, stopping: str, n: int = 3, k: int = 5) -> Project:
    return make_declared_project(slug, BASE.format(k=k) + stopping, items=reviews(n))


def vote_on(user, project: Project, sentiment: str) -> str:  # type: ignore[no-untyped-def]
    lease = engine.next_for(user, project)
    assert lease is not None
    engine.submit(lease.id, user, {"sentiment": sentiment})
    return str(lease.item.external_id)


def certainties(project_id: int) -> dict[str, float | None]:
    db.session.remove()   # a fresh session: what was written
    return dict(db.session.execute(select(Item.external_id, Item.certainty).where(Item.project_id == project_id)).all())


def test_each_vote_writes_the_items_certainty_under_decided(app, make_user):
    project = campaign("sure-decided", DECIDED, n=1)
    written = []
    for name, answer in zip("abcd", ("positive", "positive", "negative", "positive")):
        vote_on(make_user(name), project, answer)
        written.append(certainties(project.id)["r0"])
    # 1-0: a vote against ties it; 2-0: 1 of 3 votes left may go against; 2-1: a vote against ties it; 3-1: decided
    assert written == [0.0, pytest.approx(1 / 3), 0.0, 2.0]


def test_the_least_certain_item_comes_next_not_the_least_loaded(app, make_user):
    project = campaign("least-certain", DECIDED)
    users = {name: make_user(name) for name in "abcdef"}
    # unvoted items first: a, b, c get one each
    assert {vote_on(users[name], project, "positive") for name in "abc"} == {"r0", "r1", "r2"}
    second = vote_on(users["d"], project, "positive")   # all three at 0: any of them
    assert certainties(project.id)[second] == pytest.approx(1 / 3)   # 2 against 0 now
    # the others are still 0, and a vote against keeps them at 0 (a tie, or two against one with two votes left):
    # the next two votes go to them, not to the item at 1/3, although the pick of old (fewest votes, then position)
    # would give f that item once e's vote made another item's count two
    others = {"r0", "r1", "r2"} - {second}
    assert {vote_on(users[name], project, "negative") for name in "ef"} <= others
    sure = certainties(project.id)
    assert sure[second] == pytest.approx(1 / 3) and [sure[o] for o in sorted(others)] == [0.0, 0.0]


def test_the_confidence_rule_writes_the_posterior_of_the_gold(app, make_user):
    project = campaign("sure-confidence", CONFIDENCE, n=1)
    written = []
    for name, answer in zip("abcd", ("positive", "positive", "negative", "neutral")):
        vote_on(make_user(name), project, answer)
        written.append(certainties(project.id)["r0"])
    # positive, positive, negative: 0.7^2 * 0.15 against 0.15 * 0.15 * 0.7 for negative and 0.15^3 for neutral
    three = 0.7 ** 2 * 0.15 / (0.7 ** 2 * 0.15 + 0.15 * 0.15 * 0.7 + 0.15 ** 3)
    # and neutral next: 0.7^2 * 0.15^2 for positive, 0.15^2 * 0.7 * 0.15 each for negative and neutral
    four = 0.7 ** 2 * 0.15 ** 2 / (0.7 ** 2 * 0.15 ** 2 + 2 * 0.15 ** 3 * 0.7)
    assert written == [pytest.approx(0.7), pytest.approx(0.49 / 0.535), pytest.approx(three), pytest.approx(four)]


def test_an_item_that_takes_no_more_votes_is_routed_last(app, make_user):
    project = campaign("complete", DECIDED, n=1, k=3)
    for name in "ab":
        vote_on(make_user(name), project, "positive")   # 2 of 3 agree: decided, stopped
    assert certainties(project.id) == {"r0": 2.0}
    fixed_k = campaign("at-k", CONFIDENCE, n=1, k=3)
    for name, answer in zip("cde", ("positive", "negative", "neutral")):
        vote_on(make_user(name), fixed_k, answer)       # never confident: complete at k
    assert certainties(fixed_k.id) == {"r0": 2.0}


def round_robin(project: Project, users: list, rng: random.Random,  # type: ignore[type-arg]
                lean: float = 0.7) -> list[tuple[int, int]]:
    """Annotators ask in a fixed order, each answering before the next asks, until nobody gets an item; an answer
    is "positive" with probability `lean`, else another option. The (item, annotator) pairs of the votes stored,
    read back."""
    idle = 0
    while idle < len(users):
        for user in users:
            lease = engine.next_for(user, project)
            if lease is None:
                idle += 1
                continue
            idle = 0
            answer = "positive" if rng.random() < lean else rng.choice(["negative", "neutral"])
            engine.submit(lease.id, user, {"sentiment": answer})
    db.session.remove()
    return [(int(i), int(u)) for i, u in db.session.execute(
        select(Assignment.item_id, Assignment.user_id).where(Assignment.project_id == project.id,
                                                             Assignment.status == SUBMITTED))]


# Campaign sizes where twelve annotators in round-robin split into groups under the pick of old (10 items with
# k = 5: two groups of six; 12 with k = 3: three groups of four), found by simulating it. Answers lean as a crowd's
# (0.7), or all agree (1.0), where the certainties are the same for every item at every step and only the order
# of ties decides: ordering ties by position there splits the annotators on every size below. Not with all agreeing
# under `decided` on 12 items with k = 3: each item stops at two votes and each annotator gives two, so the graph
# is a set of cycles, which no order of ties can be sure to close into one.
CASES = [(n, k, stopping, lean) for n, k in [(10, 5), (12, 3), (14, 4)] for stopping in ("decided", "confidence")
         for lean in (0.7, 1.0) if (n, k, stopping, lean) != (12, 3, "decided", 1.0)]


@pytest.mark.parametrize(("n", "k", "stopping", "lean"), CASES)
def test_twelve_annotators_in_round_robin_stay_connected_with_routing(app, make_user, n, k, stopping, lean):
    rule = DECIDED if stopping == "decided" else CONFIDENCE
    project = campaign(f"routed-{n}-{k}-{stopping}-{lean}", rule, n=n, k=k)
    users = [make_user(f"ann{i}") for i in range(12)]
    pairs = round_robin(project, users, random.Random(n * 100 + k), lean)
    assert len({user for _, user in pairs}) == 12
    assert len(groups(pairs)) == 1, [sorted(g) for g in groups(pairs)]


def test_without_a_rule_the_pick_of_old_is_unchanged_and_splits_them(app, make_user):
    """The routing leaves the pick of a campaign without a stopping rule as it was: least loaded, then position.
    In the same round-robin on 10 items with k = 5 that pick gives two groups of six annotators who never share
    an item (the design's warning); the routing is what avoids it."""
    project = campaign("fixed-round-robin", "", n=10, k=5)
    users = [make_user(f"ann{i}") for i in range(12)]
    pairs = round_robin(project, users, random.Random(7))
    assert len(pairs) == 50
    ids = {u.id: i for i, u in enumerate(users)}
    assert sorted(sorted(ids[u] for u in g) for g in groups(pairs)) == [[0, 2, 4, 6, 8, 10], [1, 3, 5, 7, 9, 11]]
