"""Stopping items live (`stopping:` in a definition, annotator/engine/stopping.py): after each counted vote the
engine decides whether the item's votes are enough; a stopped item takes no new lease, its open leases are released
and their late submits refused, and it counts as complete. On both engines.

The campaign: one review, its sentiment asked with three options and a majority of at most k = 5 votes. Three
agreeing votes out of five decide it (the two still to come cannot outvote three); two against one do not (two more
could make it 2 against 3).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event, select

from annotator.analysis.results import labels_frame
from annotator.core.extensions import db
from annotator.core.models import EXPIRED, LEASED, SUBMITTED, Assignment, ControlAnswer, Item, Project, utcnow
from annotator.core.quality_settings import checked_quality
from annotator.engine import assignment as engine
from annotator.engine.invariants import all_passed, check_project
from annotator.quality.blocking import block, exclude_votes
from tests.support.declared_projects import make_declared_project

BASE = """name: Review sentiment
k: 5
show: [text]
questions:
  - id: sentiment
    kind: choice
    prompt: What does the review say of the product?
    options: [positive, negative, neutral]
    gold: {rule: majority}
"""
REVIEWS = [{"id": "r1", "text": "Works exactly as described."}, {"id": "r2", "text": "Broke after two days."}]


def campaign(slug: str, stopping: str = "stopping: decided\n", items: list | None = None) -> Project:
    return make_declared_project(slug, BASE + stopping, items=items or REVIEWS[:1])


def vote(user, project: Project, sentiment: str) -> engine.SubmitResult:
    lease = engine.next_for(user, project)
    assert lease is not None
    return engine.submit(lease.id, user, {"sentiment": sentiment})


def item_row(project_id: int, external_id: str = "r1") -> Item:
    db.session.expire_all()
    return db.session.scalars(select(Item).where(Item.project_id == project_id, Item.external_id == external_id)).one()


def test_three_agreeing_votes_of_five_stop_the_item(app, make_user):
    project = campaign("decided")
    for name in ("a", "b", "c"):
        vote(make_user(name), project, "positive")
    item = item_row(project.id)
    assert (item.done_count, item.target) == (3, 3) and item.stopped_at is not None


def test_two_against_one_do_not_stop_it(app, make_user):
    project = campaign("open")
    for name, sentiment in (("a", "positive"), ("b", "negative"), ("c", "positive")):
        vote(make_user(name), project, sentiment)
    item = item_row(project.id)
    assert (item.done_count, item.target, item.stopped_at) == (3, None, None)


def test_without_the_key_the_item_takes_all_k_votes(app, make_user):
    project = campaign("fixed", stopping="")
    for name in ("a", "b", "c", "d"):
        vote(make_user(name), project, "positive")
    assert engine.next_for(make_user("e"), project) is not None   # a fifth vote is still wanted
    item = item_row(project.id)
    assert (item.done_count, item.target, item.stopped_at) == (4, None, None)


def test_a_stopped_item_takes_no_new_lease(app, make_user):
    project = campaign("no-lease", items=REVIEWS)
    users = [make_user(name) for name in ("a", "b", "c", "d")]
    split = {"a": "positive", "b": "negative", "c": "neutral"}   # r2 stays open: no answer has a majority in sight
    for user in users[:3]:   # each gets both reviews, in the order of their load
        for _ in REVIEWS:
            lease = engine.next_for(user, project)
            answer = "positive" if lease.item.external_id == "r1" else split[user.username]
            engine.submit(lease.id, user, {"sentiment": answer})
    assert item_row(project.id, "r1").target == 3 and item_row(project.id, "r2").target is None
    assert engine.next_for(users[3], project).item.external_id == "r2"


def test_open_leases_are_released_and_their_late_submits_refused_in_words(app, make_user):
    project = campaign("released")
    users = [make_user(name) for name in ("a", "b", "c", "d", "e")]
    leases = [engine.next_for(user, project) for user in users]   # all five slots leased
    for user, lease in zip(users[:3], leases[:3]):
        engine.submit(lease.id, user, {"sentiment": "negative"})
    db.session.expire_all()
    late = db.session.get_one(Assignment, leases[3].id)
    assert late.status == EXPIRED and db.session.get_one(Assignment, leases[4].id).status == EXPIRED
    with pytest.raises(engine.LeaseGone, match="decided by the votes already in"):
        engine.submit(leases[3].id, users[3], {"sentiment": "positive"})
    item = item_row(project.id)
    assert (item.done_count, item.target) == (3, 3)   # the refused answer was not counted
    assert not db.session.scalars(select(Assignment).where(Assignment.status == LEASED)).all()


def test_a_stored_vote_repeated_after_the_stop_is_answered_as_stored(app, make_user):
    project = campaign("repeat")
    users = [make_user(name) for name in ("a", "b", "c")]
    leases = [engine.next_for(user, project) for user in users]
    results = [engine.submit(lease.id, user, {"sentiment": "neutral"}) for user, lease in zip(users, leases)]
    again = engine.submit(leases[2].id, users[2], {"sentiment": "neutral"})
    assert results[2].created and not again.created and item_row(project.id).done_count == 3


def test_a_stopped_item_counts_as_complete_with_its_votes(app, make_user):
    project = campaign("complete")
    for name in ("a", "b", "c"):
        vote(make_user(name), project, "positive")
    db.session.expire_all()
    labels = labels_frame(db.session.get_one(Project, project.id))
    assert sorted(labels["value"].tolist()) == ["positive"] * 3


def test_every_invariant_holds_on_a_stopped_campaign(app, make_user):
    project = campaign("invariants", items=REVIEWS)
    users = [make_user(name) for name in "abcde"]
    for user in users:
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, {"sentiment": "positive"})
    db.session.expire_all()
    assert [item_row(project.id, r).done_count for r in ("r1", "r2")] == [3, 3]
    checks = check_project(project.slug, complete=True)   # complete: each item has exactly its target
    assert all_passed(checks), [c for c in checks if not c.passed]


def test_the_confidence_rule_stops_when_the_posterior_reaches_its_threshold(app, make_user):
    # No control items: every annotator counts with the default accuracy 0.7. Two votes for one of three options,
    # uniform priors: P = 0.7^2 / (0.7^2 + 2 * 0.15^2) = 0.49 / 0.535 = 0.916, at least 0.9; one vote gives 0.7.
    project = campaign("confident", stopping="stopping: {confidence: 0.9, min_votes: 1}\n")
    vote(make_user("a"), project, "positive")
    assert item_row(project.id).target is None
    vote(make_user("b"), project, "positive")
    assert item_row(project.id).target == 2


CONTROLS = [{"id": f"c{n}", "text": text} for n, text in enumerate(("Love it.", "Returned it.", "It is a cable."))]


def control_scores(user, project: Project, scores: list[float]) -> None:
    """Stored control answers of `user` in the project, one per control item c0, c1, ..., with these scores; no
    control item is served (the votes of the test go to r1)."""
    for n, score in enumerate(scores):
        control = item_row(project.id, f"c{n}")
        control.is_control, control.reference = True, {"sentiment": "positive"}
        answered = Assignment(project_id=project.id, item_id=control.id, user_id=user.id, status=SUBMITTED,
                              expires_at=utcnow(), submitted_at=utcnow(), answer={"sentiment": "positive"})
        db.session.add(answered)
        db.session.flush()
        db.session.add(ControlAnswer(assignment_id=answered.id, project_id=project.id, item_id=control.id,
                                     user_id=user.id, score=score))
    project.quality = checked_quality(project, {"control_rate": "0"})
    db.session.commit()


def test_the_confidence_rule_counts_a_voter_by_their_mean_control_score(app, make_user):
    # a's control answers score 1, 1 and 0.85: mean 0.95. One vote for one of three options with accuracy p and
    # uniform priors: P = p / (p + 2 * (1 - p) / 2) = p, so a's vote alone gives 0.95 (stops at 0.9) where b's,
    # without control answers (the default 0.7), and c's, whose control answers are in another project, do not.
    confidence = "stopping: {confidence: 0.9, min_votes: 1}\n"
    project = campaign("known-voter", stopping=confidence, items=REVIEWS[:1] + CONTROLS)
    other = campaign("other-project", stopping=confidence, items=REVIEWS[:1] + CONTROLS)
    unsure = campaign("unknown-voter", stopping=confidence)
    a, b, c = make_user("a"), make_user("b"), make_user("c")
    control_scores(a, project, [1.0, 1.0, 0.85])
    control_scores(c, other, [1.0, 1.0, 1.0])
    vote(b, project, "positive")
    vote(c, project, "negative")
    assert item_row(project.id).target is None
    vote(a, unsure, "positive")   # a has no control answer in this project: 0.7
    assert item_row(unsure.id).target is None
    vote(a, project, "positive")
    # Three votes: a (0.95) and b (0.7) for positive, c (0.7) for negative:
    # P(positive) = .95 * .7 * .15 / (.95 * .7 * .15 + .025 * .15 * .7 + .025 * .15 * .15) = 0.9693
    assert item_row(project.id).target == 3


def test_the_confidence_rule_waits_for_its_least_number_of_votes(app, make_user):
    project = campaign("least", stopping="stopping: {confidence: 0.9, min_votes: 3}\n")
    for name in ("a", "b"):
        vote(make_user(name), project, "positive")
    assert item_row(project.id).target is None
    vote(make_user("c"), project, "positive")
    assert item_row(project.id).target == 3


@contextmanager
def statements() -> Iterator[list[str]]:
    seen: list[str] = []

    def note(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        seen.append(statement)
    event.listen(db.engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", note)


def test_a_project_without_a_rule_runs_no_statement_of_stopping(app, make_user):
    fixed, stopping = campaign("fixed-count", stopping=""), campaign("stopping-count")
    counts = []
    for project in (fixed, stopping):
        user = make_user(f"u-{project.slug}")
        lease = engine.next_for(user, project)
        with statements() as seen:
            engine.submit(lease.id, user, {"sentiment": "positive"})
        counts.append(seen)
    assert not [s for s in counts[0] if "labels.field" in s or "stopped_at" in s or "certainty" in s]
    # the stopping project's one read of the item's labels and one write of its certainty (the routing's)
    assert len(counts[1]) == len(counts[0]) + 2


def test_a_prior_per_group_adds_its_count_and_its_read_and_nothing_else(app, make_user):
    """With `prior_by` a submit runs the confidence rule's statements and two more, both on prior_counts: the read
    of the item's group's and the project's counts, and the UPSERT that counts the vote, after every other
    statement of the decision (the project's count rows, which every submit increments, stay locked to the commit
    on PostgreSQL). The same rule without prior_by runs none of them."""
    rule = "stopping: {confidence: 0.99, min_votes: 1%s}\n"
    plain, grouped = campaign("confidence-count", rule % ""), campaign("prior-count", rule % ", prior_by: text")
    counts = []
    for project in (plain, grouped):
        user = make_user(f"u-{project.slug}")
        lease = engine.next_for(user, project)
        with statements() as seen:
            engine.submit(lease.id, user, {"sentiment": "positive"})
        counts.append(seen)
    assert not [s for s in counts[0] if "prior_counts" in s]
    extra = [s for s in counts[1] if "prior_counts" in s]
    assert len(counts[1]) == len(counts[0]) + 2 and len(extra) == 2
    assert extra[0].lstrip().upper().startswith("SELECT")
    assert extra[1].lstrip().upper().startswith("INSERT INTO PRIOR_COUNTS") and "ON CONFLICT" in extra[1].upper()
    decision = [s for s in counts[1] if s.lstrip().upper().startswith("UPDATE ITEMS")]
    assert decision and counts[1].index(extra[1]) > counts[1].index(decision[-1])


def test_next_on_a_project_without_a_rule_runs_the_pick_of_old(app, make_user):
    """The routing is only for a stopping rule: without one, `next` runs the statements it ran before it came, the
    one pick statement and the INSERT of the lease (SQLite: after its BEGIN IMMEDIATE), none of the routing's (which
    all read items.certainty). Now and then the pick of old takes its own second step, a SELECT of the item's
    columns (engine/picking.py, _best: the leased candidate's lock or the complete statement): one more statement,
    which is not the routing's and was there before."""
    fixed = campaign("fixed-next", stopping="", items=REVIEWS)
    user = make_user("next-counter")
    assert (user.id, fixed.k) != (None, None)   # both loaded now, not lazily inside `next`
    with statements() as seen:
        assert engine.next_for(user, fixed).item.external_id == "r1"
    shown = [s[:40] for s in seen if s != "BEGIN IMMEDIATE"]
    assert len(seen) - len(shown) == (1 if db.engine.dialect.name == "sqlite" else 0)
    assert shown[0].startswith("SELECT (SELECT assignments.id") and shown[-1].startswith("INSERT INTO assignments")
    assert len(shown) == 2 or (len(shown) == 3 and shown[1].startswith("SELECT items.id, items.project_id")), seen
    assert not [s for s in seen if "certainty" in s]


def test_an_excluded_vote_reopens_a_stopped_item_and_an_undecided_one_goes_back_to_k(app, make_user):
    project = campaign("reopened")
    users = {name: make_user(name) for name in "abcde"}
    for name in "abc":
        vote(users[name], project, "positive")
    assert item_row(project.id).target == 3
    block(users["a"].id, db.session.get_one(Project, project.id), "test")   # a's vote stops counting
    db.session.commit()
    exclude_votes(users["a"].id, db.session.get_one(Project, project.id))
    vote(users["d"], project, "negative")   # offered again: 2 positive, 1 negative, 2 still to come may turn it
    item = item_row(project.id)
    assert (item.done_count, item.target, item.stopped_at) == (3, None, None)
    assert engine.next_for(users["e"], project).item.external_id == "r1"
