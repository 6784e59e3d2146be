"""The crowd worker's path in headless Chromium, at a desktop's and a phone's width (1280 and 375 px):
progress of the worker's own session that never jumps on a control item, the MTurk preview's description,
the submit address reloaded, the quiz's score and pass mark, the crowd page's warning without a base URL."""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from annotator.core.extensions import db
from annotator.people.crowd import link_token, save_link
from tests.browser.conftest import start_hit
from tests.quality.conftest import answer_next, make_controls, right_answer, set_quality, wrong_answer

pytestmark = pytest.mark.browser

PROLIFIC = "?PROLIFIC_PID=5f1a2b3c4d5e6f7a8b9c0d1e&STUDY_ID=st1&SESSION_ID=se1"


@pytest.fixture(params=[1280, 375], ids=["1280px", "375px"])
def sized(request, new_page) -> Page:  # type: ignore[no-untyped-def]
    """A page at the width of the test's parameter (375: a phone, with touch)."""
    if request.param == 375:
        return new_page(viewport={"width": 375, "height": 667}, is_mobile=True, has_touch=True)
    return new_page(viewport={"width": 1280, "height": 800})


def answer_none(page: Page) -> None:
    page.locator("input[name=q_matches__none]").check()
    page.locator("#submit").click()


def test_a_crowd_worker_counts_the_hits_of_their_own_session(sized, kpa_project):
    path = f"/crowd/kpa/prolific/{link_token(save_link(kpa_project(k=3), 'prolific', 3, 'DONE123'))}"
    db.session.commit()
    sized.goto(path + PROLIFIC)
    expect(sized.locator("#progress-text")).to_have_text("0 / 3 done")
    sized.locator("#start").click()  # entering the study leased nothing
    answer_none(sized)
    expect(sized.locator("#progress-text")).to_have_text("1 / 3 done")
    expect(sized.locator("#progress-text")).to_be_in_viewport()


def test_the_progress_total_stays_when_a_control_item_is_answered(sized, kpa_project, make_user, login):
    project = kpa_project(k=1)
    make_controls(project, "arg_1_0", "arg_1_1")
    set_quality(project, control_rate=0.0, quiz_items=1, quiz_pass_mark=0.0)  # the first HIT is a control
    make_user("ann")
    db.session.commit()
    login(sized, "ann")
    start_hit(sized, "kpa")
    expect(sized.locator("#progress-text")).to_have_text("0 / 24 done")
    answer_none(sized)
    expect(sized.locator("#hit-form")).to_be_visible()
    expect(sized.locator("#progress-text")).to_have_text("0 / 24 done")
    answer_none(sized)  # an ordinary item counts
    expect(sized.locator("#progress-text")).to_have_text("1 / 24 done")


def test_the_mturk_preview_says_how_many_hits_of_which_task(sized, kpa_project):
    path = f"/crowd/kpa/mturk/{link_token(save_link(kpa_project(), 'mturk', 4, 'DONE123'))}"
    db.session.commit()
    sized.goto(path + "?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=HIT1")
    expect(sized.locator("#preview-note")).to_contain_text(
        "This study asks 4 HITs (Argument / key-point match (KPA-2021))")
    expect(sized.locator("#progress-text")).to_have_text("0 / 4 done")


def test_reloading_the_submit_address_lands_on_the_hit_with_what_to_do(sized, kpa_project, make_user, login):
    kpa_project()
    make_user("ann")
    db.session.commit()
    login(sized, "ann")
    start_hit(sized, "kpa")
    sized.locator("#submit").click()  # nothing marked: refused in the page
    action = sized.locator("#hit-form").get_attribute("action")
    sized.goto(action)
    note = sized.get_by_role("status").filter(has_text="answers are sent only by the Submit button")
    expect(note).to_be_in_viewport()
    expect(sized.locator("#hit-form")).to_be_visible()


def test_the_quiz_failure_page_gives_the_score_and_the_pass_mark(sized, kpa_project, make_user, login):
    project = kpa_project(k=1)
    make_controls(project, "arg_1_0", "arg_1_1", "arg_1_2")
    set_quality(project, control_rate=0.0, quiz_items=2, quiz_pass_mark=0.8)
    ann = make_user("ann")
    answer_next(ann, project, right_answer)
    answer_next(ann, project, wrong_answer)
    db.session.commit()
    login(sized, "ann")
    sized.goto("/p/kpa/")
    expect(sized.locator("#stopped")).to_contain_text("your score was 50% over 2 questions; the pass mark is 80%")


def test_the_crowd_page_warns_when_no_base_url_is_set(sized, app, kpa_project, make_user, login):
    kpa_project()
    make_user("boss", role="admin")
    db.session.commit()
    app.config["PUBLIC_BASE_URL"] = ""
    login(sized, "boss")
    sized.goto("/admin/projects/kpa/crowd")
    expect(sized.locator("#base-url-warning")).to_contain_text("ANNOTATOR_BASE_URL is not set")
    expect(sized.locator("#base-url-warning")).to_be_in_viewport()
