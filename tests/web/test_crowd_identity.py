"""Whose account a study link's visit logs into (issue 42): the study session's id (Prolific's SESSION_ID,
MTurk's assignmentId) is what the visit proves, not the worker id anyone can type into the URL; and a
crowd link opened where an admin is signed in asks before signing them out."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from annotator.core.extensions import db
from annotator.core.models import LEASED, Assignment, CrowdSession, CrowdWorker, User, utcnow
from annotator.people.crowd import link_token, save_link
from tests.conftest import stored
from tests.support.crowd_visits import answer_hit, start_hit
from tests.web.conftest import csrf_token

PID, BORROWER_SESSION = "5f1a2b3c4d5e6f7a8b9c0d1e", "60aa11bb22cc33dd44ee55ff"
PROLIFIC = "?PROLIFIC_PID={pid}&STUDY_ID=65b0c0ffee0123456789abcd&SESSION_ID={session}"
MTURK = "?workerId={worker}&assignmentId={assignment}&hitId=3XYZHIT&turkSubmitTo=https%3A%2F%2Fwww.mturk.com"


@pytest.fixture
def links(app, kpa_project):  # type: ignore[no-untyped-def]
    """Project `kpa` (k=3, 30-minute leases) with a Prolific and an MTurk link of 3 HITs; their entry paths."""
    project = kpa_project(k=3)
    paths = {platform: f"/crowd/kpa/{platform}/{link_token(save_link(project, platform, 3, 'C0DE77'))}"
             for platform in ("prolific", "mturk")}
    db.session.commit()
    return paths


def _hit_id(html: str) -> str:
    return re.search(r'action="/p/kpa/a/(\d+)"', html).group(1)


def _sessions() -> int:
    return db.session.scalar(select(func.count()).select_from(CrowdSession))


def test_a_borrowed_prolific_id_with_a_new_session_gets_nothing_while_the_workers_session_is_open(app, links):
    worker = app.test_client()
    worker.get(links["prolific"] + PROLIFIC.format(pid=PID, session="5f9e8d7c6b5a4f3e2d1c0b0a"))
    answer_hit(worker, "kpa")
    lease = _hit_id(start_hit(worker, "kpa"))
    borrower = app.test_client()
    response = borrower.get(links["prolific"] + PROLIFIC.format(pid=PID, session=BORROWER_SESSION))
    assert response.status_code == 409 and "under way already" in response.get_data(as_text=True)
    assert "/login" in borrower.get("/p/kpa/").location  # logged in as nobody
    assert "/login" in borrower.get(f"/p/kpa/a/{lease}").location  # so not to the worker's HIT
    assert _sessions() == 1
    assert stored(Assignment, id=int(lease)).status == LEASED
    assert _hit_id(worker.get("/p/kpa/").get_data(as_text=True)) == lease  # the worker goes on


def test_the_same_session_id_resumes_the_session_and_its_hit_in_another_browser(app, links):
    query = PROLIFIC.format(pid=PID, session="5f9e8d7c6b5a4f3e2d1c0b0a")
    first = app.test_client()
    first.get(links["prolific"] + query)
    answer_hit(first, "kpa")
    lease = _hit_id(start_hit(first, "kpa"))
    phone = app.test_client()
    assert phone.get(links["prolific"] + query).status_code == 302
    html = phone.get("/p/kpa/").get_data(as_text=True)
    assert _hit_id(html) == lease and "1 / 3 done" in html
    assert _sessions() == 1


def test_a_worker_whose_session_was_left_past_the_lease_time_may_start_a_new_one(app, links):
    first = app.test_client()
    first.get(links["prolific"] + PROLIFIC.format(pid=PID, session="5f9e8d7c6b5a4f3e2d1c0b0a"))
    answer_hit(first, "kpa")
    long_ago = utcnow() - timedelta(minutes=31)
    db.session.execute(update(CrowdSession).values(started_at=long_ago - timedelta(minutes=5)))
    db.session.execute(update(Assignment).values(leased_at=long_ago, submitted_at=long_ago, expires_at=long_ago))
    db.session.commit()
    again = app.test_client()
    assert again.get(links["prolific"] + PROLIFIC.format(pid=PID, session=BORROWER_SESSION)).status_code == 302
    assert "0 / 3 done" in again.get("/p/kpa/").get_data(as_text=True)
    owners = set(db.session.scalars(select(CrowdSession.user_id)))
    assert len(owners) == 1 and _sessions() == 2  # the same account: its items voted on stay its own


def test_a_worker_whose_session_is_complete_starts_the_next_study_in_the_same_account(app, links):
    first = app.test_client()
    first.get(links["prolific"] + PROLIFIC.format(pid=PID, session="5f9e8d7c6b5a4f3e2d1c0b0a"))
    for _ in range(3):
        answer_hit(first, "kpa")
    again = app.test_client()
    assert again.get(links["prolific"] + PROLIFIC.format(pid=PID, session=BORROWER_SESSION)).status_code == 302
    assert len(set(db.session.scalars(select(CrowdSession.user_id)))) == 1 and _sessions() == 2


def test_mturk_a_second_assignment_of_a_worker_with_one_under_way_is_refused(app, links):
    worker = app.test_client()
    worker.get(links["mturk"] + MTURK.format(worker="A2BC3DEFGH4IJ", assignment="3ASG0001"),
               base_url="https://localhost")
    other = app.test_client()
    response = other.get(links["mturk"] + MTURK.format(worker="A2BC3DEFGH4IJ", assignment="3ASG0002"),
                         base_url="https://localhost")
    assert response.status_code == 409 and "MTurk worker id" in response.get_data(as_text=True)
    assert _sessions() == 1


def test_mturk_an_assignment_sent_with_another_worker_id_is_refused(app, links):
    app.test_client().get(links["mturk"] + MTURK.format(worker="A2BC3DEFGH4IJ", assignment="3ASG0001"),
                          base_url="https://localhost")
    response = app.test_client().get(links["mturk"] + MTURK.format(worker="A9ZZ8YYXX7WV", assignment="3ASG0001"),
                                     base_url="https://localhost")
    assert response.status_code == 400 and "another worker" in response.get_data(as_text=True)
    assert db.session.scalar(select(func.count()).select_from(CrowdWorker)) == 1


def test_an_erased_worker_who_comes_back_by_the_same_url_gets_a_new_account(app, links):
    query = PROLIFIC.format(pid=PID, session="5f9e8d7c6b5a4f3e2d1c0b0a")
    app.test_client().get(links["prolific"] + query)
    erased_id = db.session.scalar(select(User.id).where(User.username == f"prolific:{PID}"))
    assert app.test_cli_runner().invoke(args=["erase", "--prolific", PID, "--yes"]).exit_code == 0
    back = app.test_client()
    assert back.get(links["prolific"] + query).status_code == 302
    erased = stored(User, id=erased_id)
    assert erased.username.startswith("erased-") and not erased.active
    assert stored(CrowdWorker, user_id=erased_id).worker_id is None
    new = stored(User, username=f"prolific:{PID}")
    assert new.id != erased_id and new.active


def test_a_crowd_link_opened_where_an_admin_is_signed_in_asks_first_and_changes_nothing(
        app, links, login, make_user):
    make_user("boss", role="admin")
    admin = login("boss")
    response = admin.get(links["prolific"] + PROLIFIC.format(pid=PID, session="5f9e8d7c6b5a4f3e2d1c0b0a"))
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "You are signed in as <strong>boss</strong>" in html
    assert 'id="crowd-sign-out"' in html
    assert admin.get("/admin/").status_code == 200  # still the admin
    assert db.session.scalar(select(func.count()).select_from(CrowdWorker)) == 0 and _sessions() == 0


def test_saying_yes_on_that_page_signs_the_admin_out_and_opens_the_study(app, links, login, make_user):
    make_user("boss", role="admin")
    admin = login("boss")
    entry = links["prolific"] + PROLIFIC.format(pid=PID, session="5f9e8d7c6b5a4f3e2d1c0b0a")
    html = admin.get(entry).get_data(as_text=True)
    action = re.search(r'<form method="post" action="([^"]+)" id="crowd-sign-out-form">', html).group(1)
    assert action.replace("&amp;", "&") == entry
    response = admin.post(entry, data={"csrf_token": csrf_token(html)})
    assert response.status_code == 302 and response.location.endswith("/crowd/kpa/")
    assert admin.get("/admin/").status_code == 403  # now the crowd worker
    assert "0 / 3 done" in admin.get("/p/kpa/").get_data(as_text=True)


def test_the_sign_out_question_cannot_be_answered_from_another_site(app, links, login, make_user):
    make_user("boss", role="admin")
    admin = login("boss")
    response = admin.post(links["prolific"] + PROLIFIC.format(pid=PID, session="5f9e8d7c6b5a4f3e2d1c0b0a"))
    assert response.status_code == 400  # no CSRF token
    assert admin.get("/admin/").status_code == 200 and _sessions() == 0
