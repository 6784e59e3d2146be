"""Crowd study links in headless Chromium: MTurk's preview, a Prolific worker's first visit and the hand-back
of the completion code to each platform. Requests to the platforms are intercepted with `page.route`, so
nothing leaves the machine."""
from __future__ import annotations

from urllib.parse import parse_qs

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, CrowdWorker
from annotator.people.crowd import link_token, save_link

pytestmark = pytest.mark.browser

PROLIFIC_DONE = "https://app.prolific.com/submissions/complete?cc=DONE123"
MTURK_SUBMIT = "https://workersandbox.mturk.com/mturk/externalSubmit"


@pytest.fixture
def entry(app, kpa_project):  # type: ignore[no-untyped-def]
    project = kpa_project(k=3)
    paths = {}
    for platform in ("prolific", "mturk"):
        paths[platform] = f"/crowd/kpa/{platform}/{link_token(save_link(project, platform, 2, 'DONE123'))}"
    db.session.commit()
    return paths


def answer_none(page: Page, done: int) -> None:
    expect(page.locator("#progress")).to_have_attribute("value", str(done))
    page.locator("input[name=q_matches__none]").check()
    page.locator("#submit").click()


def test_mturk_preview_shows_an_example_hit_that_cannot_be_submitted(page, entry, fresh):
    page.goto(entry["mturk"] + "?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=HIT1")
    expect(page.locator("#preview-note")).to_be_visible()
    expect(page.locator("[data-field=argument] .shown-text")).not_to_be_empty()
    expect(page.locator("#submit")).to_be_disabled()
    fresh()
    assert db.session.scalar(select(func.count()).select_from(CrowdWorker)) == 0
    assert db.session.scalar(select(func.count()).select_from(Assignment)) == 0


def test_prolific_first_visit_hits_then_the_completion_redirect(page, entry, fresh):
    reached: list[str] = []

    def prolific(route) -> None:  # type: ignore[no-untyped-def]
        reached.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<h1>Prolific</h1>")
    page.route("https://app.prolific.com/**", prolific)
    page.goto(entry["prolific"] + "?PROLIFIC_PID=5f1a2b3c4d5e6f7a8b9c0d1e&STUDY_ID=st1&SESSION_ID=se1")
    expect(page.locator("#progress-text")).to_have_text("0 / 2 done")
    page.locator("#start").click()  # entering the study leased nothing
    expect(page.locator("#hit-form")).to_be_visible()
    answer_none(page, 0)
    answer_none(page, 1)
    page.wait_for_url(PROLIFIC_DONE, timeout=10_000)
    assert reached == [PROLIFIC_DONE]
    fresh()
    assert db.session.scalar(select(func.count()).select_from(Assignment).where(Assignment.status == SUBMITTED)) == 2


def test_mturk_assignment_is_posted_back_to_mturk_when_done(page, entry, fresh):
    posted: list[dict] = []

    def mturk(route) -> None:  # type: ignore[no-untyped-def]
        posted.append({"url": route.request.url, "method": route.request.method,
                       "form": parse_qs(route.request.post_data or "")})
        route.fulfill(status=200, content_type="text/html", body="<h1>MTurk</h1>")
    page.route("https://workersandbox.mturk.com/**", mturk)
    page.goto(entry["mturk"] + "?workerId=A1B2C3&assignmentId=ASG1&hitId=HIT1"
              "&turkSubmitTo=https%3A%2F%2Fworkersandbox.mturk.com")
    page.locator("#start").click()
    answer_none(page, 0)
    answer_none(page, 1)
    page.wait_for_url(MTURK_SUBMIT, timeout=10_000)
    assert posted == [{"url": MTURK_SUBMIT, "method": "POST", "form": {"assignmentId": ["ASG1"], "code": ["DONE123"]}}]
