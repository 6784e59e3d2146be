"""The crowd worker's path without surprises: progress that counts the worker's own session and never jumps
on a control item, the MTurk preview's description, the submit address reloaded, the quiz's score and pass
mark, and the warning when crowd entry runs without ANNOTATOR_BASE_URL."""
from __future__ import annotations

import logging
import re

import pytest

from annotator import create_app
from annotator.core.extensions import db
from annotator.people.crowd import link_token, save_link
from tests.quality.conftest import answer_next, make_controls, right_answer, set_quality, wrong_answer
from tests.support.crowd_visits import answer_hit
from tests.web.conftest import csrf_token

PROLIFIC = "?PROLIFIC_PID={pid}&STUDY_ID=study1&SESSION_ID={session}"


def _progress(html: str) -> str:
    return re.search(r'id="progress-text">([^<]*)<', html).group(1)


def _answer(client) -> None:  # type: ignore[no-untyped-def]
    answer_hit(client, "kpa")


@pytest.fixture
def prolific(kpa_project):  # type: ignore[no-untyped-def]
    """Project `kpa` with a Prolific link of 3 HITs; its entry path."""
    path = f"/crowd/kpa/prolific/{link_token(save_link(kpa_project(k=3), 'prolific', 3, 'DONE123'))}"
    db.session.commit()
    return path


def test_a_control_answered_leaves_the_progress_total_as_it_was(kpa_project, make_user, login):
    project = kpa_project(k=1)
    make_controls(project, "arg_1_0", "arg_1_1")
    set_quality(project, control_rate=0.0, quiz_items=1, quiz_pass_mark=0.5)
    ann = make_user("ann")
    client = login("ann")
    before = _progress(client.get("/p/kpa/").get_data(as_text=True))  # the Start page
    answer_next(ann, project, right_answer)  # the quiz's one question: a control item
    db.session.commit()
    assert before == "0 / 24 done"
    assert _progress(client.get("/p/kpa/").get_data(as_text=True)) == before


def test_a_crowd_worker_sees_the_hits_of_their_own_session(app, prolific):
    client = app.test_client()
    client.get(prolific + PROLIFIC.format(pid="aaa", session="s1"))
    _answer(client)
    assert _progress(client.get("/p/kpa/").get_data(as_text=True)) == "1 / 3 done"


def test_the_mturk_preview_says_how_many_hits_of_which_task(app, kpa_project):
    path = f"/crowd/kpa/mturk/{link_token(save_link(kpa_project(), 'mturk', 5, 'DONE123'))}"
    db.session.commit()
    html = app.test_client().get(path + "?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE").get_data(as_text=True)
    assert _progress(html) == "0 / 5 done"
    assert re.search(r"This study asks 5\s+HITs \(Argument / key-point match \(KPA-2021\)\)", html), html


def test_opening_the_submit_address_leads_back_to_the_hit_with_what_to_do(kpa_project, make_user, login):
    kpa_project()
    make_user("ann")
    client = login("ann")
    client.post("/p/kpa/next", data={"csrf_token": csrf_token(client.get("/p/kpa/").get_data(as_text=True))})
    action = re.search(r'action="(/p/kpa/a/\d+)"', client.get("/p/kpa/").get_data(as_text=True)).group(1)
    response = client.get(action)
    assert response.status_code == 302 and response.location.endswith("/p/kpa/")
    html = client.get("/p/kpa/").get_data(as_text=True)
    assert "answers are sent only by the Submit button" in html and 'id="hit-form"' in html


def test_the_quiz_failure_page_gives_the_score_and_the_pass_mark(kpa_project, make_user, login):
    project = kpa_project(k=1)
    make_controls(project, "arg_1_0", "arg_1_1", "arg_1_2")
    set_quality(project, control_rate=0.0, quiz_items=2, quiz_pass_mark=0.8)
    ann = make_user("ann")
    answer_next(ann, project, right_answer)
    answer_next(ann, project, wrong_answer)
    db.session.commit()
    html = login("ann").get("/p/kpa/").get_data(as_text=True)
    assert "your score was 50% over 2 questions; the pass mark is 80%" in html


def test_start_up_warns_when_a_study_link_exists_without_a_base_url(app, kpa_project, database_url, caplog):
    save_link(kpa_project(), "prolific", 3, "DONE123")
    db.session.commit()
    with caplog.at_level(logging.WARNING):
        create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=database_url, PUBLIC_BASE_URL="")
    assert "ANNOTATOR_BASE_URL is not set" in caplog.text


def test_the_start_up_check_leaves_no_connection_for_forked_workers_to_share(app, kpa_project, database_url):
    """gunicorn --preload forks the app made at start-up into every worker: a pooled connection would be shared."""
    save_link(kpa_project(), "prolific", 3, "DONE123")
    db.session.commit()
    started = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=database_url, PUBLIC_BASE_URL="")
    with started.app_context():
        assert db.engine.pool.checkedin() == 0 and db.engine.pool.checkedout() == 0


def test_start_up_says_nothing_when_the_base_url_is_set(app, kpa_project, database_url, caplog):
    save_link(kpa_project(), "prolific", 3, "DONE123")
    db.session.commit()
    with caplog.at_level(logging.WARNING):
        create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=database_url,
                   PUBLIC_BASE_URL="https://annotate.example.org")
    assert "ANNOTATOR_BASE_URL" not in caplog.text


def test_the_crowd_admin_page_warns_without_a_base_url(app, kpa_project, make_user, login):
    kpa_project()
    make_user("boss", role="admin")
    app.config["PUBLIC_BASE_URL"] = ""
    html = login("boss").get("/admin/projects/kpa/crowd").get_data(as_text=True)
    assert 'id="base-url-warning"' in html and "ANNOTATOR_BASE_URL is not set" in html


def test_the_crowd_admin_pages_warning_names_the_address_the_server_was_reached_at(app, kpa_project, make_user,
                                                                                   login):
    kpa_project()
    make_user("boss", role="admin")
    app.config["PUBLIC_BASE_URL"] = ""
    page = login("boss").get("/admin/projects/kpa/crowd", base_url="http://localhost:8123")
    warning = page.get_data(as_text=True).split('id="base-url-warning"')[1].split("</p>")[0]
    assert "http://localhost:8123" in warning and "5000" not in warning


def test_the_crowd_admin_page_has_no_warning_with_a_base_url(app, kpa_project, make_user, login):
    kpa_project()
    make_user("boss", role="admin")
    app.config["PUBLIC_BASE_URL"] = "https://annotate.example.org"
    html = login("boss").get("/admin/projects/kpa/crowd").get_data(as_text=True)
    assert 'id="base-url-warning"' not in html
