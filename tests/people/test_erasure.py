"""Erasing a person: nothing identifies them afterwards, their votes stay under a pseudonym or are deleted as
the preview said, the items their deleted votes held are offered again, and the audit event names no one."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import JSON, String, Text, cast, func, select

from annotator.analysis.results import labels_frame, project_agreement
from annotator.core.extensions import db
from annotator.core.models import (
    LEASED,
    SUBMITTED,
    ApiToken,
    Assignment,
    CrowdSession,
    CrowdWorker,
    Item,
    Label,
    Project,
    User,
)
from annotator.engine.invariants import all_passed, check_project
from annotator.figures.kept_gold import gold_frame
from annotator.people.accounts import authenticate, issue_token
from annotator.people.crowd import link_token, save_link
from annotator.people.erasure import ErasureError, erase, find_person, gold_by_item, preview
from tests.conftest import PASSWORD, stored
from tests.people.conftest import events
from tests.quality.conftest import vote_on
from tests.support.crowd_visits import answer_hit

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"
SESSION = "SESSc0ffee42"


def everything(item: Item) -> dict:
    """The answer "all of these key points match"."""
    return {"matches": [kp["id"] for kp in item.payload["key_points"]]}


@pytest.fixture
def worked(app, kpa_project, make_user):  # type: ignore[no-untyped-def]
    """Project kpa (k=2): a Prolific worker came in by the study link and answered 2 HITs on the HIT page;
    ann voted on both of those items too, bob on the first. Returns (project, the worker's account id)."""
    project = kpa_project(k=2)
    link = save_link(project, "prolific", 5, "DONE123")
    db.session.commit()
    client = app.test_client()
    entry = f"/crowd/kpa/prolific/{link_token(link)}?PROLIFIC_PID={PID}&STUDY_ID=STUDY9&SESSION_ID={SESSION}"
    assert client.get(entry).status_code == 302
    for _ in range(2):
        answer_hit(client, "kpa")
    worker = db.session.scalar(select(User).where(User.username == f"prolific:{PID}"))
    items = db.session.scalars(select(Item.external_id).join(Assignment, Assignment.item_id == Item.id)
                               .where(Assignment.user_id == worker.id, Assignment.status == SUBMITTED)
                               .order_by(Item.position)).all()
    ann, bob = make_user("ann"), make_user("bob")
    all_of = {e: everything(db.session.scalar(select(Item).where(Item.external_id == e))) for e in items}
    for external_id in items:
        vote_on(ann, project, external_id, all_of[external_id])
    vote_on(bob, project, items[0], all_of[items[0]])
    return db.session.get(Project, project.id), worker.id


def _mentions(*needles: str) -> list[str]:
    """Every (table.column) whose text or JSON holds one of the strings, over every table of the schema."""
    db.session.remove()
    found = []
    for table in db.metadata.sorted_tables:
        for column in table.columns:
            if not isinstance(column.type, (String, Text, JSON)) and "JSON" not in type(column.type).__name__:
                continue
            as_text = cast(column, Text)
            for needle in needles:
                if db.session.scalar(select(func.count()).select_from(table).where(as_text.contains(needle))):
                    found.append(f"{table.name}.{column.name}")
    return found


def _count(model, condition) -> int:  # type: ignore[no-untyped-def]
    return db.session.scalar(select(func.count()).select_from(model).where(condition))


def test_the_worker_is_found_by_prolific_id_and_is_not_an_admin(worked, make_user):
    _, worker_id = worked
    assert find_person(prolific=PID).id == worker_id
    make_user("root", role="admin")
    with pytest.raises(ErasureError, match="admin"):
        find_person(account="root")
    with pytest.raises(ErasureError, match="no such"):
        find_person(mturk=PID)


def test_after_erasure_no_table_holds_the_worker_id_the_name_or_the_session_id(app, worked):
    assert _mentions(PID, SESSION)  # the check finds them before
    result = app.test_cli_runner().invoke(args=["erase", "--prolific", PID, "--yes"])
    assert result.exit_code == 0, result.output
    assert _mentions(PID, SESSION, f"prolific:{PID}") == []


def test_erasure_keeps_the_votes_under_a_pseudonym(app, worked):
    _, worker_id = worked
    votes, labels = _count(Assignment, Assignment.user_id == worker_id), _count(Label, Label.user_id == worker_id)
    assert app.test_cli_runner().invoke(args=["erase", "--prolific", PID, "--yes"]).exit_code == 0
    user = stored(User, id=worker_id)
    assert re.fullmatch(r"erased-[0-9a-f]{12}", user.username)
    assert (user.password_hash, user.active) == (None, False)
    assert _count(Assignment, Assignment.user_id == worker_id) == votes
    assert _count(Label, Label.user_id == worker_id) == labels
    worker = db.session.scalar(select(CrowdWorker))
    assert worker.worker_id is None
    session = db.session.scalar(select(CrowdSession))
    assert session.details == {} and session.session_key.startswith("erased-") and session.started_at is not None


def test_the_audit_event_names_only_the_pseudonym_and_counts(app, worked):
    _, worker_id = worked
    assert app.test_cli_runner().invoke(args=["erase", "--prolific", PID, "--yes"]).exit_code == 0
    [event] = events("erase")
    pseudonym = stored(User, id=worker_id).username
    assert event.detail == {"user_id": worker_id, "pseudonym": pseudonym, "votes_kept": 2, "votes_deleted": 0,
                            "projects": ["kpa"], "crowd_sessions": 1, "tokens": 0, "login_counters_cleared": True}
    assert event.actor.startswith("command line")


def test_deleting_the_votes_changes_gold_and_agreement_as_the_preview_said(worked):
    project, worker_id = worked
    shown = preview(db.session.get_one(User, worker_id))
    [change] = shown.projects
    assert change.votes == 2 and change.gold  # the item ann alone voted on besides falls under k: its gold goes
    gold_before = gold_by_item(gold_frame(project))
    erase(db.session.get_one(User, worker_id), delete_votes=True)
    db.session.remove()
    project = db.session.get_one(Project, project.id)
    gold_after = gold_by_item(gold_frame(project))
    actual = {item: (gold_before.get(item, ""), gold_after.get(item, ""))
              for item in gold_before.keys() | gold_after.keys() if gold_before.get(item) != gold_after.get(item)}
    assert {g.item: (g.before, g.after) for g in change.gold} == actual
    agreement = {a.field: (a.fleiss_kappa.text(), a.krippendorff_alpha.text())
                 for a in project_agreement(project, labels_frame(project))}
    assert {name: (fleiss, alpha) for name, _, fleiss, _, alpha in change.agreement} == agreement


def test_deleted_votes_free_their_items_for_other_annotators(worked):
    project, worker_id = worked
    items = db.session.scalars(select(Assignment.item_id).where(Assignment.user_id == worker_id,
                                                               Assignment.status == SUBMITTED)).all()
    result = erase(db.session.get_one(User, worker_id), delete_votes=True)
    assert (result.votes_deleted, result.votes_kept) == (2, 0)
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Assignment).where(Assignment.user_id == worker_id)) == 0
    counts = dict(db.session.execute(select(Item.id, Item.done_count).where(Item.id.in_(items))).all())
    assert sorted(counts.values()) == [1, 2]  # the item ann alone voted on is under k=2 again
    assert all_passed(check_project("kpa"))
    [event] = events("erase")
    assert (event.detail["votes_deleted"], event.detail["votes_kept"]) == (2, 0)


def test_an_ordinary_account_loses_its_password_tokens_and_sessions(app, make_user):
    carol = make_user("carol")
    issue_token(carol)
    db.session.commit()
    version = carol.session_version
    result = app.test_cli_runner().invoke(args=["erase", "--account", "carol", "--yes"])
    assert result.exit_code == 0, result.output
    erased = stored(User, id=carol.id)
    assert erased.session_version == version + 1 and not erased.active
    assert db.session.scalar(select(func.count()).select_from(ApiToken)) == 0
    assert authenticate("carol", PASSWORD) is None and authenticate(erased.username, PASSWORD) is None


def test_without_yes_the_command_asks_and_a_no_erases_nothing(app, worked):
    result = app.test_cli_runner().invoke(args=["erase", "--prolific", PID, "--delete-votes"], input="n\n")
    assert result.exit_code != 0 and "2 votes deleted; gold changes on" in result.output
    assert "nothing was erased" in result.output
    assert stored(CrowdWorker, worker_id=PID) is not None


def test_the_open_hit_of_the_erased_worker_is_released_at_once(app, worked):
    _, worker_id = worked
    assert _count(Assignment, (Assignment.user_id == worker_id) & (Assignment.status == LEASED)) == 1
    assert app.test_cli_runner().invoke(args=["erase", "--prolific", PID, "--yes"]).exit_code == 0
    db.session.remove()
    assert _count(Assignment, (Assignment.user_id == worker_id) & (Assignment.status == LEASED)) == 0
