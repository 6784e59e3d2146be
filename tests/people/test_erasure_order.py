"""Erasure with the votes deleted: the account is locked out first, so no vote survives; an account erased
already is refused; `--missing-ok` lets a list of erasures be repeated."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import ApiToken, Assignment, Item, Project, User
from annotator.people import erasure
from annotator.people.accounts import issue_token
from tests.conftest import stored
from tests.people.conftest import events
from tests.people.test_erasure import everything
from tests.quality.conftest import vote_on


@pytest.fixture
def carol(app, kpa_project, make_user):  # type: ignore[no-untyped-def]
    """Project kpa (k=2); carol voted on its first item. Returns carol's account."""
    project = kpa_project(k=2)
    user = make_user("carol")
    first = db.session.scalars(select(Item).where(Item.project_id == project.id).order_by(Item.position)).first()
    vote_on(user, project, first.external_id, everything(first))
    return db.session.get_one(User, user.id)


def _assignments(user_id: int) -> int:
    db.session.remove()
    return db.session.scalar(select(func.count()).select_from(Assignment).where(Assignment.user_id == user_id))


def _erase(app, *args: str):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=["erase", *args, "--yes"])


def test_after_erasure_with_deleted_votes_no_assignment_of_the_account_remains(app, carol):
    db.session.add(Assignment(project_id=db.session.scalar(select(Project.id)), user_id=carol.id,
                              item_id=db.session.scalars(select(Item.id).order_by(Item.position.desc())).first(),
                              expires_at=db.func.now()))  # an open lease too
    db.session.commit()
    assert _assignments(carol.id) == 2
    result = _erase(app, "--account", "carol", "--delete-votes")
    assert result.exit_code == 0, result.output
    assert _assignments(carol.id) == 0


def test_the_erased_account_cannot_use_its_api_token(app, carol):
    token = issue_token(db.session.get_one(User, carol.id))
    db.session.commit()
    api = app.test_client()
    api.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    assert api.post("/api/v1/projects/kpa/next").status_code == 200
    assert _erase(app, "--account", "carol", "--delete-votes").exit_code == 0
    assert api.post("/api/v1/projects/kpa/next").status_code == 401


def test_the_erased_account_cannot_go_on_in_its_logged_in_session(app, carol, login):
    browser = login("carol")
    assert browser.get("/p/kpa/").status_code == 200
    assert _erase(app, "--account", "carol", "--delete-votes").exit_code == 0
    response = browser.get("/p/kpa/")
    assert response.status_code == 302 and "/login" in response.location


def test_the_account_is_locked_out_before_its_votes_are_deleted(app, carol, monkeypatch):
    issue_token(db.session.get_one(User, carol.id))
    db.session.commit()
    seen = []
    original = erasure._delete_votes

    def watched(rows):  # type: ignore[no-untyped-def]
        with db.engine.connect() as other:  # what another request sees when the first vote is deleted
            seen.append((other.scalar(select(User.active).where(User.id == carol.id)),
                         other.scalar(select(func.count()).select_from(ApiToken))))
        yield from original(rows)
    monkeypatch.setattr(erasure, "_delete_votes", watched)
    assert _erase(app, "--account", "carol", "--delete-votes").exit_code == 0
    assert seen[0] == (False, 0)


def test_a_vote_that_lands_while_the_votes_are_deleted_is_deleted_too(app, carol, monkeypatch):
    original, passes = erasure._delete_votes, []

    def late_vote(rows):  # type: ignore[no-untyped-def]
        if not passes:  # a submit under way when the account was locked out lands after the listing
            project = db.session.scalars(select(Project)).one()
            last = db.session.scalars(select(Item).order_by(Item.position.desc())).first()
            vote_on(db.session.get_one(User, carol.id), project, last.external_id, everything(last))
        passes.append(len(rows))
        yield from original(rows)
    monkeypatch.setattr(erasure, "_delete_votes", late_vote)
    result = _erase(app, "--account", "carol", "--delete-votes")
    assert result.exit_code == 0, result.output
    assert passes == [1, 1] and _assignments(carol.id) == 0
    [event] = events("erase")
    assert (event.detail["votes_deleted"], event.detail["votes_kept"]) == (2, 0)


def test_an_account_erased_already_is_refused_by_its_pseudonym(app, carol):
    assert _erase(app, "--account", "carol").exit_code == 0
    pseudonym = stored(User, id=carol.id).username
    result = _erase(app, "--account", pseudonym)
    assert result.exit_code != 0 and "already erased" in result.output
    assert len(events("erase")) == 1 and stored(User, id=carol.id).username == pseudonym


def test_missing_ok_repeats_an_erasure_done_already_without_error(app, carol):
    assert _erase(app, "--account", "carol").exit_code == 0
    refused = _erase(app, "--account", "carol")
    assert refused.exit_code != 0 and "no such account" in refused.output
    again = _erase(app, "--account", "carol", "--missing-ok")
    assert again.exit_code == 0 and "Nothing to erase" in again.output
    assert len(events("erase")) == 1


def test_no_account_is_created_with_a_pseudonyms_name(app):
    from annotator.people.accounts import AccountError, create_user
    with pytest.raises(AccountError, match="pseudonyms of erased accounts"):
        create_user("erased-0123456789ab")
