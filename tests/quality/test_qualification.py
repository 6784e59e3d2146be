"""Part 3: the qualification quiz: control items before any real HIT, a pass mark, failures recorded, retries."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Item, QuizResult
from annotator.engine import assignment as engine
from annotator.quality import screen_out_reason
from tests.quality.conftest import answer_next, make_controls, right_answer, set_quality, wrong_answer
from tests.web.conftest import csrf_token

CONTROLS = ("arg_1_0", "arg_1_1", "arg_1_2", "arg_1_3")


@pytest.fixture
def quiz_project(kpa_project):  # type: ignore[no-untyped-def]
    project = kpa_project(k=1)
    make_controls(project, *CONTROLS)
    set_quality(project, control_rate=0.0, quiz_items=2, quiz_pass_mark=0.8)
    return project


def test_the_first_hits_are_the_quiz_of_control_items(quiz_project, make_user):
    ann = make_user("ann")
    served = [answer_next(ann, quiz_project, right_answer).assignment.item_id for _ in range(3)]
    assert [db.session.get(Item, i).is_control for i in served] == [True, True, False]


def test_passing_is_recorded_and_opens_the_real_work(quiz_project, make_user):
    ann = make_user("ann")
    for _ in range(2):
        answer_next(ann, quiz_project, right_answer)
    result = db.session.scalar(select(QuizResult))
    assert (result.attempt, result.answered, result.score, result.passed) == (1, 2, 1.0, True)
    assert screen_out_reason(ann, quiz_project) is None
    assert not engine.next_for(ann, quiz_project).item.is_control


def test_failing_is_recorded_and_ends_the_work(quiz_project, make_user):
    ann = make_user("ann")
    for _ in range(2):
        answer_next(ann, quiz_project, wrong_answer)
    assert db.session.scalar(select(QuizResult.passed)) is False
    with pytest.raises(engine.ScreenedOut) as stop:
        engine.next_for(ann, quiz_project)
    assert not stop.value.blocked and "qualification quiz" in str(stop.value)
    assert "qualification quiz" in screen_out_reason(ann, quiz_project)


def test_failing_shows_a_clear_page(quiz_project, make_user, login):
    ann = make_user("ann")
    for _ in range(2):
        answer_next(ann, quiz_project, wrong_answer)
    page = login("ann").get("/p/kpa/")
    assert page.status_code == 403 and "Qualification not passed" in page.get_data(as_text=True)


def test_the_api_says_the_quiz_was_failed(quiz_project, make_user, api_client):
    ann = make_user("ann")
    for _ in range(2):
        answer_next(ann, quiz_project, wrong_answer)
    response = api_client("ann").post("/api/v1/projects/kpa/next")
    body = response.get_json()
    assert response.status_code == 403 and body["quiz_failed"] is True and body["blocked"] is False


def test_an_admin_lets_a_failed_annotator_retry_with_other_control_items(quiz_project, make_user, login):
    ann = make_user("ann")
    first = [answer_next(ann, quiz_project, wrong_answer).assignment.item_id for _ in range(2)]
    make_user("boss", role="admin")
    client = login("boss")
    page = client.get("/admin/projects/kpa/annotators").get_data(as_text=True)
    assert "Let retry the quiz" in page
    client.post(f"/admin/projects/kpa/annotators/{ann.id}/retry", data={"csrf_token": csrf_token(page)})
    retry = [answer_next(ann, quiz_project, right_answer).assignment for _ in range(2)]
    assert all(db.session.get(Item, a.item_id).is_control and a.item_id not in first for a in retry)
    results = db.session.execute(select(QuizResult.attempt, QuizResult.passed).order_by(QuizResult.id)).all()
    assert [tuple(r) for r in results] == [(1, False), (2, True)]


def test_without_enough_control_items_the_quiz_is_judged_on_those_answered(kpa_project, make_user):
    project = kpa_project(k=1)
    make_controls(project, "arg_1_0")
    set_quality(project, control_rate=0.0, quiz_items=3)
    ann = make_user("ann")
    answer_next(ann, project, right_answer)
    assert not engine.next_for(ann, project).item.is_control
    assert db.session.scalar(select(QuizResult.answered)) == 1


def test_the_annotators_own_page_offers_the_retry(quiz_project, make_user, login):
    ann = make_user("ann")
    for _ in range(2):
        answer_next(ann, quiz_project, wrong_answer)
    make_user("boss", role="admin")
    client = login("boss")
    page = client.get(f"/admin/annotators/{ann.id}").get_data(as_text=True)
    assert "Let retry the quiz" in page
    client.post(f"/admin/projects/kpa/annotators/{ann.id}/retry", data={"csrf_token": csrf_token(page)})
    assert engine.next_for(ann, quiz_project).item.is_control
