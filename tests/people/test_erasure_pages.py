"""The admin's erasure pages: a form naming the person, a preview of what changes, then the confirmation."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Assignment, CrowdWorker, User
from tests.conftest import stored
from tests.people.conftest import events
from tests.people.test_erasure import PID, worked  # noqa: F401 - the fixture
from tests.web.conftest import csrf_token


def _preview(boss, kind: str, identity: str, delete_votes: bool):  # type: ignore[no-untyped-def]
    token = csrf_token(boss.get("/admin/erase").get_data(as_text=True))
    data = {"csrf_token": token, "kind": kind, "identity": identity, **({"delete_votes": "y"} if delete_votes else {})}
    return boss.post("/admin/erase", data=data)


def test_the_preview_shows_the_votes_and_gold_changes_and_erases_nothing(boss, worked):  # noqa: F811
    html = _preview(boss, "prolific", PID, True).get_data(as_text=True)
    assert f"prolific:{PID}" in html and "2 vote(s) deleted" in html and "Gold changes on" in html
    assert "Fleiss" in html and stored(CrowdWorker, worker_id=PID) is not None


def test_confirming_erases_and_deletes_the_votes(boss, worked):  # noqa: F811
    _, worker_id = worked
    html = _preview(boss, "prolific", PID, True).get_data(as_text=True)
    response = boss.post("/admin/erase/confirm", data={"csrf_token": csrf_token(html), "user_id": str(worker_id),
                                                       "delete_votes": "1"})
    assert response.status_code == 302
    page = boss.get("/admin/erase").get_data(as_text=True)
    pseudonym = stored(User, id=worker_id).username
    assert f"the account is now {pseudonym}" in page and "2 deleted" in page
    assert db.session.scalar(select(func.count()).select_from(Assignment).where(Assignment.user_id == worker_id)) == 0
    [event] = events("erase")
    assert (event.actor_id, event.detail["pseudonym"]) == (boss.user.id, pseudonym)


def test_an_unknown_person_is_refused_on_the_form(boss):
    response = _preview(boss, "mturk", "A1B2C3", False)
    assert response.status_code == 400 and "no such mturk worker" in response.get_data(as_text=True)


def test_an_admin_cannot_be_erased(boss):
    response = _preview(boss, "account", "boss", False)
    assert response.status_code == 400 and "admin account" in response.get_data(as_text=True)
    assert stored(User, username="boss") is not None


def _confirm(boss, html: str, user_id: str):  # type: ignore[no-untyped-def]
    return boss.post("/admin/erase/confirm", data={"csrf_token": csrf_token(html), "user_id": user_id,
                                                   "delete_votes": ""})


def test_a_confirmation_sent_twice_erases_once_and_says_so(boss, worked):  # noqa: F811
    _, worker_id = worked
    html = _preview(boss, "prolific", PID, False).get_data(as_text=True)
    assert _confirm(boss, html, str(worker_id)).status_code == 302
    pseudonym = stored(User, id=worker_id).username
    assert _confirm(boss, html, str(worker_id)).status_code == 302
    page = boss.get("/admin/erase").get_data(as_text=True)
    assert "already erased" in page
    assert stored(User, id=worker_id).username == pseudonym and len(events("erase")) == 1


@pytest.mark.parametrize("user_id", ["²", "99999999999999999999", "-3", "0"])
def test_an_altered_account_id_gets_the_forms_error_not_a_server_error(boss, worked, user_id):  # noqa: F811
    html = _preview(boss, "prolific", PID, False).get_data(as_text=True)
    response = _confirm(boss, html, user_id)
    assert response.status_code == 302
    assert "Nothing was erased" in boss.get("/admin/erase").get_data(as_text=True)
    assert stored(CrowdWorker, worker_id=PID) is not None and events("erase") == []
