"""Part 4: blocking by control accuracy or time, what a blocked annotator sees, and their votes kept or excluded."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from annotator.analysis.results import labels_frame
from annotator.core.extensions import db
from annotator.core.models import EXPIRED, Assignment, Item, Label, utcnow
from annotator.engine import assignment as engine
from annotator.engine.invariants import all_passed, check_project
from annotator.quality import screen_out_reason
from annotator.quality.blocking import block
from tests.quality.conftest import answer_next, make_controls, set_quality, wrong_answer
from tests.web.conftest import csrf_token

NONE = {"matches": []}
CONTROLS = ("arg_1_0", "arg_1_1", "arg_1_2")


@pytest.fixture
def blocking_project(kpa_project):  # type: ignore[no-untyped-def]
    project = kpa_project(k=1)
    make_controls(project, *CONTROLS)
    set_quality(project, control_rate=0.0, block_min_controls=2, block_accuracy=0.6)
    return project


def _ordinary_then_wrong_controls(project, user, ordinary: int = 3):  # type: ignore[no-untyped-def]
    """`ordinary` real votes, then control items answered wrong until the annotator is blocked."""
    for _ in range(ordinary):
        answer_next(user, project, NONE)
    set_quality(project, control_rate=1.0)
    results = [answer_next(user, project, wrong_answer) for _ in range(2)]
    set_quality(project, control_rate=0.0)
    return results


def test_low_accuracy_on_control_items_blocks(blocking_project, make_user):
    ann = make_user("ann")
    first, second = _ordinary_then_wrong_controls(blocking_project, ann, ordinary=0)
    assert first.blocked is None and "accuracy" in second.blocked
    with pytest.raises(engine.ScreenedOut) as stop:
        engine.next_for(ann, blocking_project)
    assert stop.value.blocked
    assert "blocked" in screen_out_reason(ann, blocking_project)


def test_a_blocked_annotators_next_answers_403_blocked(blocking_project, make_user, api_client):
    ann = make_user("ann")
    _ordinary_then_wrong_controls(blocking_project, ann, ordinary=0)
    response = api_client("ann").post("/api/v1/projects/kpa/next")
    body = response.get_json()
    assert response.status_code == 403 and body["blocked"] is True and "blocked" in body["error"]


def test_the_hit_page_explains_the_block(blocking_project, make_user, login):
    ann = make_user("ann")
    _ordinary_then_wrong_controls(blocking_project, ann, ordinary=0)
    page = login("ann").get("/p/kpa/")
    assert page.status_code == 403 and "You are blocked from this project" in page.get_data(as_text=True)


def test_a_block_releases_the_open_lease(blocking_project, make_user):
    ann = make_user("ann")
    lease = engine.next_for(ann, blocking_project)
    block(ann.id, blocking_project, "by hand")
    db.session.commit()
    assert db.session.get(Assignment, lease.id, populate_existing=True).status == EXPIRED


def test_too_fast_work_blocks(kpa_project, make_user):
    project = kpa_project(k=1)
    set_quality(project, control_rate=0.0, block_min_median_seconds=5.0)
    ann = make_user("ann")
    results = []
    for _ in range(5):
        lease = engine.next_for(ann, project)
        results.append(engine.submit(lease.id, ann, NONE, now=lease.leased_at + timedelta(seconds=1)))
    assert [r.blocked is not None for r in results] == [False] * 4 + [True]
    assert "median" in results[-1].blocked


def test_kept_votes_still_count(blocking_project, make_user):
    ann = make_user("ann")
    _ordinary_then_wrong_controls(blocking_project, ann)
    assert len(labels_frame(blocking_project)["item"].unique()) == 3


def test_excluded_votes_stop_counting_and_their_items_are_offered_again(blocking_project, make_user):
    set_quality(blocking_project, blocked_votes="exclude")
    ann = make_user("ann")
    _ordinary_then_wrong_controls(blocking_project, ann)
    ordinary = db.session.scalars(select(Assignment).join(Item).where(Assignment.user_id == ann.id,
                                                                       Item.is_control.is_(False))
                                  .order_by(Item.position)).all()
    assert len(ordinary) == 3 and all(a.excluded for a in ordinary)
    assert all(db.session.get(Item, a.item_id).done_count == 0 for a in ordinary)
    assert db.session.scalar(select(func.count()).select_from(Label).where(
        Label.assignment_id.in_([a.id for a in ordinary]))) == 0
    assert labels_frame(blocking_project).empty  # gold and agreement are recomputed from the rows
    assert engine.next_for(make_user("bob"), blocking_project).item_id == ordinary[0].item_id
    db.session.remove()
    assert all_passed(check_project("kpa"))


def test_an_admin_unblocks_and_the_rules_leave_the_annotator_alone(blocking_project, make_user, login):
    ann = make_user("ann")
    _ordinary_then_wrong_controls(blocking_project, ann, ordinary=0)
    make_user("boss", role="admin")
    client = login("boss")
    page = client.get("/admin/projects/kpa/annotators").get_data(as_text=True)
    client.post(f"/admin/projects/kpa/annotators/{ann.id}/unblock", data={"csrf_token": csrf_token(page)})
    set_quality(blocking_project, control_rate=1.0)
    assert answer_next(ann, blocking_project, wrong_answer).blocked is None
    assert screen_out_reason(ann, blocking_project) is None


def test_a_blocked_annotators_late_submit_of_the_released_lease_stores_nothing(blocking_project, make_user):
    """block() ends the open lease; a late submit is otherwise taken while the item needs votes, but not
    from a blocked annotator."""
    ann = make_user("ann")
    lease = engine.next_for(ann, blocking_project)
    block(ann.id, blocking_project, "by hand")
    db.session.commit()
    with pytest.raises(engine.ScreenedOut, match="not stored") as refused:
        engine.submit(lease.id, ann, NONE)
    assert refused.value.blocked and refused.value.status == 403
    db.session.remove()  # what was stored, as a fresh session reads it
    assert db.session.get(Assignment, lease.id).status == EXPIRED
    assert db.session.get(Item, lease.item_id).done_count == 0
    assert db.session.scalar(select(func.count()).select_from(Label)) == 0


def test_a_vote_committed_after_the_blocking_requests_exclusion_is_excluded_too(blocking_project, make_user,
                                                                                monkeypatch):
    """Two requests of one annotator: one blocks them and excludes their votes, while the other had read
    their state before the block and commits its vote after that exclusion listed the votes. The later
    vote must not be the one that still counts."""
    from annotator.quality import blocking
    set_quality(blocking_project, blocked_votes="exclude")
    ann = make_user("ann")
    lease = engine.next_for(ann, blocking_project)
    block(ann.id, blocking_project, "by the other request")
    db.session.commit()
    assert blocking.exclude_votes(ann.id, blocking_project) == 0  # the other request's exclusion: none yet
    monkeypatch.setattr(blocking, "refusal", lambda state: None)  # the submit's own read came before the block
    assert engine.submit(lease.id, ann, NONE).created
    db.session.remove()
    vote = db.session.get(Assignment, lease.id)
    assert vote.excluded
    assert db.session.get(Item, lease.item_id).done_count == 0
    assert db.session.scalar(select(func.count()).select_from(Label).where(Label.assignment_id == lease.id)) == 0


def test_the_state_read_sees_a_change_of_the_same_transaction_not_yet_flushed(blocking_project, make_user):
    """`state_of` runs on the driver's cursor, which the session's autoflush does not reach: it flushes first."""
    from annotator.quality.state import state_for_update, state_of
    ann = make_user("ann")
    db.session.commit()
    state = state_for_update(ann.id, blocking_project.id)
    state.blocked_at, state.blocked_reason = utcnow(), "by hand"  # pending in the session, not flushed
    read = state_of(ann.id, blocking_project.id)
    assert read is not None and read.blocked_at is not None and read.blocked_reason == "by hand"
    db.session.rollback()
    assert state_of(ann.id, blocking_project.id) is None  # the row was made in that transaction only
