"""annotator/engine/invariants.py and `flask check`, on both engines.

A campaign run to the end through the assignment engine passes every check; then each invariant is
broken by a direct UPDATE, INSERT or DELETE (as a bug or a hand edit would), and the check that
guards it must fail and name what is wrong. Two invariants are also guarded by the schema (unique
(item, user), one open lease per annotator), so those tests first lift the constraint; on
PostgreSQL, whose schema the whole session shares, it is put back afterwards.
"""
from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import NamedTuple

import pytest
from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy import select, text
from sqlalchemy.schema import AddConstraint, CreateIndex

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Label, User, utcnow
from annotator.engine import assignment as engine
from annotator.engine.invariants import Invariant, SentSubmit, check_project
from annotator.tasks import project_task
from tests.conftest import DATA, load_project

SLUG = "kpa"
PAIR_CONSTRAINT = "uq_assignments_item_user"
LEASE_INDEX = "uq_assignments_one_open_lease"
SENT_AS_STORED = ("every 201 is a stored vote of the annotator who sent it, with the answer sent (in the form its task "
                  "type stores)")


@dataclass
class Campaign:
    """A project voted to the end, and what its annotators sent (every submit answered 201)."""

    slug: str
    sent: list[SentSubmit]


@pytest.fixture(scope="session")
def campaign_rows() -> dict[tuple[str, int, int], tuple[dict[str, list[dict]], tuple[SentSubmit, ...]]]:
    """Per engine, k and number of annotators: every row the campaign left, and what its annotators sent."""
    return {}


@pytest.fixture
def campaign(kpa_project, make_user, campaign_rows) -> Callable[..., Campaign]:  # type: ignore[no-untyped-def]
    """Run a campaign through the engine: each annotator takes HITs until none is left.

    Each campaign (engine, k, annotators) is run once per test process; the later tests that ask for it get its
    rows put back as the run left them, ids included (the engine's picks are seeded, so a run would store
    the same again), and each then breaks its own copy.
    """
    from tests.conftest import all_rows, put_back

    def run(k: int = 2, annotators: int = 2) -> Campaign:
        key = (db.engine.dialect.name, k, annotators)
        if key in campaign_rows:
            rows, kept = campaign_rows[key]
            put_back(rows)
            return Campaign(SLUG, list(kept))
        project = kpa_project(k=k, slug=SLUG)
        task = project_task(project)
        settings = task.settings_of(project)
        users = [make_user(f"ann{n}") for n in range(1, annotators + 1)]
        rng, sent = random.Random(3), []
        for user in users:
            while (lease := engine.next_for(user, project)) is not None:
                answer = task.example_answer(task.public_item(lease.item, settings), rng)
                assert engine.submit(lease.id, user, answer).created
                sent.append(SentSubmit(lease.id, user.username, answer, 201))
        campaign_rows[key] = (all_rows(), tuple(sent))
        return Campaign(SLUG, sent)
    return run


def by_name(checks: list[Invariant]) -> dict[str, Invariant]:
    return {c.name: c for c in checks}


def failed(checks: list[Invariant]) -> dict[str, str]:
    return {c.name: c.detail for c in checks if not c.passed}


def only_failure(checks: list[Invariant], words: str) -> str:
    """The detail of the one failed check, whose name contains `words`."""
    wrong = failed(checks)
    assert len(wrong) == 1 and words in next(iter(wrong)), wrong
    return next(iter(wrong.values()))


def execute(sql: str, **params: object) -> None:
    db.session.execute(text(sql), params)
    db.session.commit()
    db.session.remove()


class VoteRef(NamedTuple):
    id: int
    item_id: int
    item: str  # the item's external id


def a_vote(username: str = "ann1") -> VoteRef:
    """The first vote of `username`, as plain values (the session is thrown away after each change)."""
    row = db.session.execute(select(Assignment.id, Assignment.item_id, Item.external_id)
                             .join(User, User.id == Assignment.user_id).join(Item, Item.id == Assignment.item_id)
                             .where(User.username == username, Assignment.status == "submitted")
                             .order_by(Assignment.id)).first()
    return VoteRef(*row)


# --------------------------------------------------------------------------------------- lifting constraints

def _lift(name: str) -> None:
    """Drop the unique constraint or index `name` of assignments (before any row exists)."""
    table = Assignment.__table__
    if any(i.name == name for i in table.indexes):
        db.session.execute(text(f"DROP INDEX {name}"))
    elif db.session.get_bind().dialect.name == "sqlite":  # SQLite cannot drop a constraint: rebuild the table
        ops = Operations(MigrationContext.configure(db.session.connection()))
        with ops.batch_alter_table(table.name, copy_from=table, recreate="always") as batch:
            batch.drop_constraint(name, type_="unique")
    else:
        db.session.execute(text(f"ALTER TABLE {table.name} DROP CONSTRAINT {name}"))
    db.session.commit()


def _restore(names: list[str]) -> None:
    """Empty the tables and put the constraints back (PostgreSQL: the migrated schema outlives the test)."""
    db.session.remove()
    db.session.execute(text("TRUNCATE " + ", ".join(t.name for t in db.metadata.sorted_tables)
                            + " RESTART IDENTITY CASCADE"))
    table = Assignment.__table__
    for name in names:
        index = next((i for i in table.indexes if i.name == name), None)
        if index is not None:
            db.session.execute(CreateIndex(index))
        else:
            db.session.execute(AddConstraint(next(c for c in table.constraints if c.name == name)))
    db.session.commit()


@pytest.fixture
def lift(app) -> Iterator[Callable[[str], None]]:  # type: ignore[no-untyped-def]
    """`lift(name)` drops a unique constraint or index of assignments for this test only."""
    lifted: list[str] = []

    def drop(name: str) -> None:
        _lift(name)
        lifted.append(name)
    yield drop
    if lifted and db.session.get_bind().dialect.name == "postgresql":
        _restore(lifted)


# --------------------------------------------------------------------------------------- a clean campaign

def test_a_campaign_run_to_the_end_passes_every_check(campaign):
    run = campaign(k=2, annotators=3)
    checks = check_project(run.slug, complete=True, sent=run.sent)
    assert failed(checks) == {}
    assert len(checks) == 11
    assert by_name(checks)["every item has exactly k submitted votes"].detail == "26 items, k=2, 52 votes"


def test_an_unfinished_campaign_passes_unless_complete_is_asked(campaign):
    run = campaign(k=2, annotators=2)
    vote = a_vote("ann2")
    execute("DELETE FROM labels WHERE assignment_id = :a", a=vote.id)
    execute("DELETE FROM assignments WHERE id = :a", a=vote.id)
    execute("UPDATE items SET done_count = done_count - 1 WHERE id = :i", i=vote.item_id)
    assert failed(check_project(run.slug)) == {}
    detail = only_failure(check_project(run.slug, complete=True), "exactly k")
    assert detail.startswith("1 of 26 items wrong (k=2): ") and f"item {vote.item} " in detail
    assert "has 1" in detail


def test_without_sent_submits_the_sent_checks_are_left_out(campaign):
    run = campaign()
    assert not any("201" in c.name for c in check_project(run.slug))


# --------------------------------------------------------------------------------------- each invariant broken

def test_more_votes_than_k_fail(campaign):
    run = campaign(k=2)
    execute("UPDATE projects SET k = 1 WHERE slug = :s", s=run.slug)
    detail = only_failure(check_project(run.slug), "more than k")
    assert detail.startswith("26 of 26 items wrong (k=1)") and "has 2" in detail and "and 23 more" in detail


def test_two_votes_of_one_annotator_on_an_item_fail(lift, campaign):
    lift(PAIR_CONSTRAINT)
    run = campaign(k=2, annotators=2)
    vote = a_vote("ann2")
    execute("UPDATE assignments SET user_id = (SELECT id FROM users WHERE username = 'ann1') WHERE id = :a",
            a=vote.id)
    wrong = failed(check_project(run.slug))
    assert f"item {vote.item} (id {vote.item_id}): 2 votes by ann1" in \
        wrong["the votes of an item come from distinct annotators"]
    assert "2 assignments (submitted, submitted)" in wrong["no (item, annotator) pair occurs twice in any status"]
    # its label rows follow it: their key to the vote (project, item, annotator) cascades the change (migration 0025)
    assert not [n for n in wrong if "labels" in n], wrong


def test_an_item_assigned_twice_to_one_annotator_fails_in_any_status(lift, campaign):
    lift(PAIR_CONSTRAINT)
    run = campaign(k=2, annotators=2)
    vote = a_vote("ann1")
    execute("INSERT INTO assignments (project_id, item_id, user_id, status, leased_at, expires_at) "
            "SELECT project_id, item_id, user_id, 'expired', :t, :t FROM assignments WHERE id = :a",
            a=vote.id, t=utcnow())
    detail = only_failure(check_project(run.slug), "pair occurs twice")
    assert detail == f"1 pairs repeated: item {vote.item} (id {vote.item_id}) and ann1: 2 assignments " \
                     "(submitted, expired)"


def test_a_done_count_that_differs_from_the_votes_fails(campaign):
    run = campaign()
    vote = a_vote()
    execute("UPDATE items SET done_count = done_count + 1 WHERE id = :i", i=vote.item_id)
    detail = only_failure(check_project(run.slug), "done_count")
    assert detail == f"1 items differ: item {vote.item} (id {vote.item_id}): done_count 3, 2 submitted"


def insert_lease(username: str, item_position: int) -> None:
    execute("INSERT INTO assignments (project_id, item_id, user_id, status, leased_at, expires_at) "
            "SELECT i.project_id, i.id, u.id, 'leased', :now, :later FROM items i, users u "
            "WHERE i.position = :p AND u.username = :u",
            p=item_position, u=username, now=utcnow(), later=utcnow() + timedelta(minutes=30))


def test_two_open_leases_of_one_annotator_fail(lift, campaign, make_user):
    lift(LEASE_INDEX)
    run = campaign(k=2, annotators=2)
    make_user("late")
    insert_lease("late", 0)
    insert_lease("late", 1)
    detail = only_failure(check_project(run.slug), "open lease")
    assert detail.startswith("1 annotators hold more than one: late holds 2 (") and detail.count(" on item ") == 2


def test_an_open_lease_fails_only_when_complete_is_asked(campaign, make_user):
    run = campaign(k=2, annotators=2)
    make_user("late")
    insert_lease("late", 3)
    assert failed(check_project(run.slug)) == {}
    checks = check_project(run.slug, complete=True)
    detail = only_failure(checks, "no open lease is left")
    assert detail.startswith("1 annotators still hold leases: late holds 1 (")


def labels_failure(run: Campaign) -> str:
    return only_failure(check_project(run.slug, sent=run.sent), "labels")


def one_label(vote: VoteRef):  # type: ignore[no-untyped-def]
    """(id, unit, field, value) of the vote's first label row."""
    return db.session.execute(select(Label.id, Label.unit, Label.field, Label.value)
                              .where(Label.assignment_id == vote.id).order_by(Label.id)).first()


def test_a_changed_label_value_fails(campaign):
    run = campaign()
    vote = a_vote()
    label = one_label(vote)
    execute("UPDATE labels SET value = value || '?' WHERE id = :l", l=label.id)
    detail = labels_failure(run)
    assert detail.startswith(f"1 assignments wrong: assignment {vote.id} (ann1, item {vote.item} ")
    assert f"missing ({label.unit}, {label.field}, {label.value})" in detail
    assert f"extra ({label.unit}, {label.field}, {label.value}?)" in detail


def test_a_missing_label_fails(campaign):
    run = campaign()
    label = one_label(a_vote())
    execute("DELETE FROM labels WHERE id = :l", l=label.id)
    detail = labels_failure(run)
    assert f"missing ({label.unit}, {label.field}, {label.value})" in detail and "extra" not in detail


def test_an_extra_label_fails(campaign):
    run = campaign()
    label = one_label(a_vote())
    execute("INSERT INTO labels (assignment_id, project_id, item_id, user_id, unit, field, value) "
            "SELECT assignment_id, project_id, item_id, user_id, 'stray', field, value FROM labels WHERE id = :l",
            l=label.id)
    assert f"extra (stray, {label.field}, {label.value})" in labels_failure(run)


def test_labels_of_an_unsubmitted_assignment_fail(campaign, make_user):
    run = campaign()
    make_user("late")
    insert_lease("late", 2)
    execute("INSERT INTO labels (assignment_id, project_id, item_id, user_id, unit, field, value) "
            "SELECT id, project_id, item_id, user_id, 'u', 'f', 'v' FROM assignments WHERE status = 'leased'")
    assert labels_failure(run).endswith("is leased but has 1 label rows")


def test_a_stored_answer_that_no_longer_gives_its_labels_fails(campaign):
    run = campaign()
    vote = a_vote()
    execute("UPDATE assignments SET answer = :a WHERE id = :i", a=json.dumps({}), i=vote.id)
    wrong = failed(check_project(run.slug, sent=run.sent))
    labels = next(name for name in wrong if "labels" in name)
    assert set(wrong) == {labels, SENT_AS_STORED}
    assert wrong[labels].startswith(f"1 assignments wrong: assignment {vote.id} (ann1, item {vote.item} ")
    assert "the type refuses the stored answer (AnswerError: " in wrong[labels]
    assert wrong[SENT_AS_STORED].endswith(", stored {}")


# --------------------------------------------------------------------------------------- what clients sent


def test_a_201_whose_answer_is_stored_otherwise_fails(campaign):
    run = campaign()
    first = run.sent[0]
    other = next(r.answer for r in run.sent if r.answer != first.answer)
    run.sent[0] = first._replace(answer=other)
    detail = only_failure(check_project(run.slug, sent=run.sent), SENT_AS_STORED)
    assert detail.startswith(f"1 201s not stored as sent: assignment {first.assignment_id}: "
                             f"sent {json.dumps(other)[:120]}, stored ")


def test_a_declared_multi_sent_in_another_order_than_stored_holds_and_another_answer_fails(app, make_user):
    """A declared KPA match stores the ticked key points in the item's order (its label rows are the same): the
    answer sent in another order is the answer stored; a key point more or less is not."""
    project = load_project("kpa2021", DATA / "kpa2021", "kpa-declared", split="test", k=1)
    assert project.task_type == "custom"
    user = make_user("ann1")
    lease = engine.next_for(user, project)
    assert lease is not None
    key_points = [kp["id"] for kp in lease.item.payload["key_points"]][:2]
    sent = {"matches": list(reversed(key_points))}
    assert engine.submit(lease.id, user, sent).created
    db.session.remove()   # read back as the next request would, in a fresh session
    stored = db.session.scalar(select(Assignment.answer).where(Assignment.id == lease.id))
    assert stored == {"matches": key_points}   # the item's order, not the order sent
    assert SENT_AS_STORED not in failed(check_project("kpa-declared", sent=[SentSubmit(lease.id, "ann1", sent, 201)]))
    other = {"matches": key_points[:1]}
    detail = only_failure(check_project("kpa-declared", sent=[SentSubmit(lease.id, "ann1", other, 201)]),
                          SENT_AS_STORED)
    assert detail.startswith(f"1 201s not stored as sent: assignment {lease.id}: sent {json.dumps(other)}")


def test_a_201_for_another_annotator_fails(campaign):
    run = campaign()
    run.sent[0] = run.sent[0]._replace(username="ann2")
    detail = only_failure(check_project(run.slug, sent=run.sent), SENT_AS_STORED)
    assert detail.endswith(f"assignment {run.sent[0].assignment_id}: sent by ann2, stored as ann1's")


def test_a_201_without_a_stored_vote_fails(campaign):
    run = campaign()
    run.sent.append(SentSubmit(10_000, "ann1", {}, 201))
    wrong = failed(check_project(run.slug, sent=run.sent))
    assert wrong[SENT_AS_STORED].endswith("assignment 10000: not in the project")


def test_two_201s_for_one_assignment_fail(campaign):
    run = campaign()
    run.sent.append(run.sent[5])
    detail = only_failure(check_project(run.slug, sent=run.sent), "201 twice")
    assert detail == f"1 assignments answered 201 more than once: assignment {run.sent[5].assignment_id}: 2 x 201"


def test_a_stored_vote_without_a_201_fails(campaign):
    run = campaign()
    lost = run.sent.pop(7)
    run.sent.append(lost._replace(status=409))  # refused, says the client, yet stored
    detail = only_failure(check_project(run.slug, sent=run.sent), "had its 201")
    assert detail.startswith(f"1 votes without a 201: assignment {lost.assignment_id} ({lost.username}, item ")


# --------------------------------------------------------------------------------------- flask check

def test_flask_check_prints_every_check_and_exits_0_when_all_pass(app, campaign):
    campaign()
    result = app.test_cli_runner().invoke(args=["check", "--project", SLUG, "--complete"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "[PASS] every item has exactly k submitted votes: 26 items, k=2, 52 votes"
    assert len(lines) == 10 and lines[-1] == "9 of 9 checks passed"  # the invariants, then the kept figures


def test_flask_check_exits_1_and_says_what_failed(app, campaign):
    campaign()
    execute("UPDATE items SET done_count = 0 WHERE position = 0")
    result = app.test_cli_runner().invoke(args=["check", "--project", SLUG])
    assert result.exit_code == 1
    assert "[FAIL] items.done_count equals the submitted assignments: 1 items differ: item arg_" in result.output
    assert result.output.splitlines()[-1] == "8 of 9 checks passed, 1 failed"


def test_flask_check_json(app, campaign, make_user):
    campaign()
    make_user("late")
    insert_lease("late", 0)
    result = app.test_cli_runner().invoke(args=["check", "--project", SLUG, "--json", "--complete"])
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["project"] == SLUG and report["complete"] is True and report["passed"] is False
    assert [c["name"] for c in report["checks"] if not c["passed"]] == ["no open lease is left"]


def test_flask_check_of_an_unknown_project(app):
    result = app.test_cli_runner().invoke(args=["check", "--project", "nope"])
    assert result.exit_code == 1 and "there is no project 'nope'" in result.output


# --------------------------------------------------------------------------------------- quality control

def test_an_excluded_vote_that_still_counts_is_caught(campaign):
    campaign()
    execute("UPDATE assignments SET excluded = true WHERE id = 1")  # not decremented, labels left
    wrong = failed(check_project(SLUG))
    assert "items.done_count equals the submitted assignments" in wrong
    assert "assignment 1" in next(detail for name, detail in wrong.items() if "label rows" in name)


def test_an_excluded_vote_taken_out_properly_passes(campaign):
    campaign()
    item_id = db.session.scalar(select(Assignment.item_id).where(Assignment.id == 1))
    execute("UPDATE assignments SET excluded = true WHERE id = 1")
    execute("DELETE FROM labels WHERE assignment_id = 1")
    execute("UPDATE items SET done_count = done_count - 1 WHERE id = :i", i=item_id)
    assert failed(check_project(SLUG)) == {}


def test_a_control_answer_on_an_ordinary_item_is_caught(campaign):
    campaign()
    vote = db.session.execute(select(Assignment.id, Assignment.project_id, Assignment.item_id, Assignment.user_id)
                              .where(Assignment.id == 1)).one()
    execute("INSERT INTO control_answers (assignment_id, project_id, item_id, user_id, score, created_at) "
            "VALUES (:a, :p, :i, :u, 1.0, CURRENT_TIMESTAMP)", a=vote[0], p=vote[1], i=vote[2], u=vote[3])
    assert "not a control" in only_failure(check_project(SLUG), "control answers")


def test_an_item_over_its_own_target_is_caught(campaign):
    campaign()
    execute("""UPDATE projects SET quality = '{"max_k": 4}'""")  # targets count while dynamic overlap is on
    execute("UPDATE items SET target = 1 WHERE id = 1")
    assert "(k=1)" in only_failure(check_project(SLUG), "no item has more than k")


def test_a_blocked_annotator_holding_a_lease_is_caught(kpa_project, make_user):
    project, ann = kpa_project(k=2, slug=SLUG), make_user("ann")
    engine.next_for(ann, project)
    execute("INSERT INTO annotator_states (project_id, user_id, quiz_status, quiz_attempt, blocked_at, exempt) "
            "VALUES (:p, :u, 'passed', 1, CURRENT_TIMESTAMP, false)", p=project.id, u=ann.id)
    assert "ann holds lease" in only_failure(check_project(SLUG), "blocked annotators")
