"""The assignment engine's rules, one per test, on both engines."""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from flask import Flask
from sqlalchemy import Connection, create_engine, func, select, text

from annotator.core.extensions import db
from annotator.core.models import EXPIRED, SUBMITTED, Assignment, Item, Label, User, utcnow
from annotator.engine import assignment as engine
from annotator.tasks import AnswerError

NONE = {"matches": []}


def test_next_leases_the_first_item_in_file_order(kpa_project, make_user):
    project, ann = kpa_project(), make_user("ann")
    lease = engine.next_for(ann, project)
    assert lease.item.external_id == "arg_1_0"
    assert lease.expires_at - lease.leased_at == timedelta(minutes=30)


def test_reload_resumes_the_open_lease(kpa_project, make_user):
    project, ann = kpa_project(), make_user("ann")
    first = engine.next_for(ann, project)
    assert engine.next_for(ann, project).id == first.id
    assert db.session.scalar(select(func.count()).select_from(Assignment)) == 1


def test_items_with_fewest_active_assignments_come_first(kpa_project, make_user):
    project = kpa_project()
    a, b = make_user("a"), make_user("b")
    assert engine.next_for(a, project).item.external_id == "arg_1_0"
    # arg_1_0 holds a's lease, so b is given the next untouched item
    assert engine.next_for(b, project).item.external_id != "arg_1_0"


def test_an_annotator_never_gets_an_item_twice(kpa_project, make_user):
    project, ann = kpa_project(k=3), make_user("ann")
    seen = []
    while (lease := engine.next_for(ann, project)) is not None:
        seen.append(lease.item_id)
        engine.submit(lease.id, ann, NONE)
    assert len(seen) == len(set(seen)) == 26


def test_every_item_gets_exactly_k_distinct_annotators(kpa_project, make_user):
    project = kpa_project(k=2)
    annotators = [make_user(f"ann{i}") for i in range(3)]
    while True:
        progressed = False
        for ann in annotators:
            lease = engine.next_for(ann, project)
            if lease is not None:
                engine.submit(lease.id, ann, NONE)
                progressed = True
        if not progressed:
            break
    counts = db.session.execute(select(Assignment.item_id, func.count(func.distinct(Assignment.user_id)))
                                .where(Assignment.status == SUBMITTED).group_by(Assignment.item_id)).all()
    assert len(counts) == 26 and {n for _, n in counts} == {2}
    assert set(db.session.scalars(select(Item.done_count))) == {2}


def test_full_items_are_not_offered(kpa_project, make_user):
    project = kpa_project(k=1)
    a, b = make_user("a"), make_user("b")
    for _ in range(26):
        lease = engine.next_for(a, project)
        engine.submit(lease.id, a, NONE)
    assert engine.next_for(b, project) is None


def test_expired_lease_frees_the_slot_for_someone_else(kpa_project, make_user):
    project = kpa_project(k=1, lease_minutes=5)
    a, b = make_user("a"), make_user("b")
    first = engine.next_for(a, project)
    later = utcnow() + timedelta(minutes=6)
    # with k=1 and a's lease running, b would get another item; after expiry b gets a's item first
    assert engine.next_for(b, project, now=later).item_id == first.item_id


def test_expired_lease_is_renewed_on_reload_when_its_slot_is_free(kpa_project, make_user):
    project, ann = kpa_project(lease_minutes=5), make_user("ann")
    first = engine.next_for(ann, project)
    later = utcnow() + timedelta(minutes=6)
    again = engine.next_for(ann, project, now=later)
    assert again.id == first.id and again.expires_at == later + timedelta(minutes=5)


def test_late_submit_is_accepted_while_the_item_still_needs_votes(kpa_project, make_user):
    project, ann = kpa_project(lease_minutes=5), make_user("ann")
    lease = engine.next_for(ann, project)
    result = engine.submit(lease.id, ann, NONE, now=utcnow() + timedelta(minutes=60))
    assert result.created and result.assignment.status == SUBMITTED


def test_late_submit_is_refused_once_others_filled_the_item(kpa_project, make_user):
    project = kpa_project(k=1, lease_minutes=5)
    a, b = make_user("a"), make_user("b")
    stale = engine.next_for(a, project)
    later = utcnow() + timedelta(minutes=6)
    taken = engine.next_for(b, project, now=later)
    engine.submit(taken.id, b, NONE, now=later)
    with pytest.raises(engine.LeaseGone, match="ran out"):
        engine.submit(stale.id, a, NONE, now=later)
    assert db.session.get(Item, stale.item_id).done_count == 1


def test_late_submit_never_takes_a_running_lease_slot(kpa_project, make_user):
    project = kpa_project(k=1, lease_minutes=5)
    a, b = make_user("a"), make_user("b")
    stale = engine.next_for(a, project)
    later = utcnow() + timedelta(minutes=6)
    running = engine.next_for(b, project, now=later)
    assert running.item_id == stale.item_id
    with pytest.raises(engine.LeaseGone):
        engine.submit(stale.id, a, NONE, now=later)
    assert engine.submit(running.id, b, NONE, now=later).created


def test_a_submit_begun_before_its_lease_ran_out_but_served_after_the_slot_went_to_another_is_refused(
        kpa_project, make_user):
    """A submit reads the time when it begins, then may wait for the item's lock. If its lease runs out during
    that wait and another annotator's `next` (holding the lock) leases the freed slot, the submit is judged at the
    time it holds the item: late, and refused, so the item never takes more than k votes."""
    project = kpa_project(k=1, lease_minutes=5)
    a, b = make_user("a"), make_user("b")
    stale = engine.next_for(a, project)
    db.session.get_one(Assignment, stale.id).expires_at = utcnow() - timedelta(seconds=30)   # ran out 30 s ago
    db.session.commit()
    running = engine.next_for(b, project)   # the slot it freed
    assert running.item_id == stale.item_id
    begun = utcnow() - timedelta(seconds=60)   # a's request began before the expiry and waited meanwhile
    with pytest.raises(engine.LeaseGone, match="ran out"):
        engine.submit(stale.id, a, NONE, now=begun)
    assert engine.submit(running.id, b, NONE).created
    db.session.remove()  # what was stored, as a fresh session reads it
    assert db.session.get_one(Item, stale.item_id).done_count == 1


@contextmanager
def item_held_while(app: Flask, item_id: int, request: Callable[[], None]) -> Iterator[Connection]:
    """Hold the item's row in a connection of its own (as a parallel request holding its lock), run `request` in a
    thread and wait until its statement, and so its snapshot, waits for the item; yield the holder's connection
    (what the holder writes), then commit and let the request go on. PostgreSQL."""
    other = create_engine(app.config["SQLALCHEMY_DATABASE_URI"])
    try:
        with other.connect() as parallel:
            holding = parallel.begin()
            parallel.execute(text("SELECT id FROM items WHERE id = :i FOR UPDATE"), {"i": item_id})
            waiting = threading.Thread(target=request)
            waiting.start()
            deadline = utcnow() + timedelta(seconds=10)
            while not parallel.scalar(text("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                           "AND datname = current_database()")) and utcnow() < deadline:
                pass
            yield parallel
            holding.commit()
            waiting.join(20)
    finally:
        other.dispose()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)  # SQLite: the transaction is exclusive
def test_a_submit_that_read_its_lease_before_another_request_ended_it_is_judged_on_the_lease_as_it_is(
        app, kpa_project, make_user):
    """PostgreSQL reads the assignment in the count statement's snapshot, taken before the statement waits for the
    item's lock. When the lease's end is moved meanwhile (here as the concurrency tests' expirer does it) and the
    lock's holder leases the slot that freed, the submit must see the lease as it is: late, refused, k votes."""
    project = kpa_project(k=1, lease_minutes=5)
    a, b = make_user("a"), make_user("b")
    stale = engine.next_for(a, project)
    outcome: dict = {}

    def submit_in_another_request() -> None:
        with app.app_context():
            try:
                outcome["result"] = engine.submit(stale.id, db.session.get(User, stale.user_id), NONE)
            except engine.LeaseGone as refused:
                outcome["refused"] = refused
            db.session.remove()

    with item_held_while(app, stale.item_id, submit_in_another_request) as holder:   # b's `next`
        with holder.engine.begin() as expirer:   # the lease's end moved into the past, committed at once
            expirer.execute(text("UPDATE assignments SET expires_at = :past WHERE id = :a"),
                            {"past": utcnow() - timedelta(minutes=1), "a": stale.id})
        # b's `next` leases the slot that freed, then commits.
        holder.execute(text("INSERT INTO assignments (project_id, item_id, user_id, status, leased_at, expires_at, "
                            "excluded) VALUES (:p, :i, :u, 'leased', :now, :until, false)"),
                       {"p": project.id, "i": stale.item_id, "u": b.id, "now": utcnow(),
                        "until": utcnow() + timedelta(minutes=5)})
    assert "ran out" in str(outcome.get("refused")), outcome
    db.session.remove()  # what was stored, as a fresh session reads it
    assert db.session.get_one(Item, stale.item_id).done_count == 0
    running = db.session.scalars(select(Assignment).where(Assignment.user_id == b.id)).one()
    assert engine.submit(running.id, db.session.get_one(User, b.id), NONE).created


def test_reload_after_losing_the_slot_gives_a_new_item(kpa_project, make_user):
    project = kpa_project(k=1, lease_minutes=5)
    a, b = make_user("a"), make_user("b")
    stale = engine.next_for(a, project)
    later = utcnow() + timedelta(minutes=6)
    engine.next_for(b, project, now=later)
    fresh = engine.next_for(a, project, now=later)
    assert fresh.item_id != stale.item_id
    assert db.session.get(Assignment, stale.id).status == EXPIRED


def test_submitting_twice_stores_one_vote_and_keeps_the_first_answer(kpa_project, make_user):
    project, ann = kpa_project(), make_user("ann")
    lease = engine.next_for(ann, project)
    first = engine.submit(lease.id, ann, {"matches": ["kp_1_0"]})
    repeat = engine.submit(lease.id, ann, NONE)
    assert first.created and not repeat.created
    assert repeat.assignment.answer == {"matches": ["kp_1_0"]}
    assert db.session.get(Item, lease.item_id).done_count == 1
    assert db.session.scalar(select(func.count()).select_from(Label)) == len(lease.item.payload["key_points"])


def test_submit_of_someone_elses_assignment_is_refused(kpa_project, make_user):
    project = kpa_project()
    a, b = make_user("a"), make_user("b")
    lease = engine.next_for(a, project)
    with pytest.raises(engine.NotYourAssignment):
        engine.submit(lease.id, b, NONE)


def test_invalid_answer_stores_nothing(kpa_project, make_user):
    project, ann = kpa_project(), make_user("ann")
    lease = engine.next_for(ann, project)
    with pytest.raises(AnswerError, match="kp_9_9"):
        engine.submit(lease.id, ann, {"matches": ["kp_9_9"]})
    assert db.session.get(Assignment, lease.id).status == "leased"
    assert db.session.scalar(select(func.count()).select_from(Label)) == 0


def test_submit_records_the_time_spent(kpa_project, make_user):
    project, ann = kpa_project(), make_user("ann")
    lease = engine.next_for(ann, project)
    result = engine.submit(lease.id, ann, NONE, now=lease.leased_at + timedelta(seconds=42))
    assert result.assignment.seconds_spent == pytest.approx(42.0)


def test_votes_are_stored_as_one_label_per_key_point(kpa_project, make_user):
    project, ann = kpa_project(), make_user("ann")
    lease = engine.next_for(ann, project)
    engine.submit(lease.id, ann, {"matches": ["kp_1_1"]})
    rows = db.session.execute(select(Label.unit, Label.value).order_by(Label.id)).all()
    key_points = [kp["id"] for kp in lease.item.payload["key_points"]]
    assert [u for u, _ in rows] == key_points
    assert {u for u, v in rows if v == "1"} == {"kp_1_1"}


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)  # SQLite: the transaction is exclusive
def test_a_submit_that_waited_for_a_parallel_submit_of_the_same_hit_answers_as_a_repeat(app, kpa_project, make_user):
    """PostgreSQL reads the assignment in the count statement's snapshot, taken before that statement waits
    for the item's lock. When the lock's holder is a parallel submit of the same HIT, the read still says
    "leased" once the lock is granted; the vote must then be answered as a repeat and counted once."""
    project, ann = kpa_project(), make_user("ann")
    lease = engine.next_for(ann, project)
    outcome: dict = {}

    def submit_in_another_request() -> None:
        with app.app_context():
            outcome["result"] = engine.submit(lease.id, db.session.get(User, lease.user_id), NONE)
            db.session.remove()

    with item_held_while(app, lease.item_id, submit_in_another_request) as parallel:
        # What the parallel submit writes, then commits: the count and the vote.
        parallel.execute(text("UPDATE items SET done_count = done_count + 1 WHERE id = :i"), {"i": lease.item_id})
        parallel.execute(text("UPDATE assignments SET status = 'submitted', "
                              "answer = '{\"matches\": [\"kp_1_0\"]}', "
                              "submitted_at = now() AT TIME ZONE 'utc' WHERE id = :a"), {"a": lease.id})
    assert not outcome["result"].created
    assert outcome["result"].assignment.answer == {"matches": ["kp_1_0"]}
    db.session.remove()  # what was stored, as a fresh session reads it
    assert db.session.get(Item, lease.item_id).done_count == 1
    assert db.session.scalar(select(func.count()).select_from(Label)) == 0  # the parallel write added none


def test_a_submit_that_keeps_finding_the_assignment_changed_stores_nothing_and_says_send_again(
        kpa_project, make_user, monkeypatch):
    """The vote is written only where the assignment is as read; when it never is (RACE_RETRIES times), the
    submit is refused with 409 and every attempt's count is rolled back."""
    project, ann = kpa_project(), make_user("ann")
    lease = engine.next_for(ann, project)

    def always_changed(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise engine._Changed

    monkeypatch.setattr(engine, "_write_vote", always_changed)
    with pytest.raises(engine.SubmitRaced, match="send it again") as refused:
        engine.submit(lease.id, ann, NONE)
    assert refused.value.status == 409
    db.session.remove()  # what was stored, as a fresh session reads it
    assert db.session.get(Item, lease.item_id).done_count == 0
    assert db.session.get(Assignment, lease.id).status == "leased"


def test_how_an_item_is_shown_is_drawn_from_the_project_item_and_annotator_alone():
    """Reproducible (the same names draw the same, in any process or database) and not shared between annotators."""
    first, again = (engine.presentation_rng("kpa", "arg_1_0", "ann").random() for _ in range(2))
    assert first == again
    assert len({engine.presentation_rng("kpa", "arg_1_0", f"ann{n}").random() < 0.5 for n in range(20)}) == 2
