"""The declared premise stage's HIT (annotator/shared_tasks/ruarg2022/premise.yaml, as `flask premise-stage` makes it
from a declared stance stage) in headless Chromium: only the premises of the claims the item lists are drawn and
asked, answered by number keys (Backspace back to the previous claim's premise) and sent with Enter (read back from
the database); the phone layout; axe-core's scan.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment
from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import AXE, violations
from tests.conftest import DATA
from tests.support.declared_projects import make_declared_project

pytestmark = pytest.mark.browser
PREMISE = Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks" / "ruarg2022" / "premise.yaml"
TEXTS = dict(line.split("\t")[:2] for line in (DATA / "ruarg2022" / "train_excerpt.tsv").read_text(
    encoding="utf-8").splitlines()[1:])
# the train excerpt's 17037 (relevant to masks and quarantine) and 17024 (quarantine), as the premise stage has them
SENTENCES = [{"id": "17037", "text": TEXTS["17037"], "claims": ["masks", "quarantine"]},
             {"id": "17024", "text": TEXTS["17024"], "claims": ["quarantine"]}]


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """Make the premise stage, log `page` in as a new annotator and open the first HIT; returns the user's id."""
    def open_for(page: Page, name: str = "ann") -> int:
        make_declared_project("premises", PREMISE, items=SENTENCES)
        user_id = make_user(name).id
        login(page, name)
        start_hit(page, "premises")
        return user_id
    return open_for


def test_number_keys_answer_the_listed_claims_premises_and_enter_sends_them(page: Page, annotator) -> None:
    user_id = annotator(page)
    expect(page.locator("#dq-masks_premise")).to_be_visible()
    expect(page.locator("#dq-quarantine_premise")).to_be_visible()
    assert page.locator("#dq-vaccines_premise").count() == 0   # not a claim of 17037: not drawn
    keys = page.keyboard
    keys.press("1")                                   # masks: for
    keys.press("3")                                   # quarantine: no argument
    keys.press("Enter")
    expect(page.locator("#progress-text")).to_have_text("1 / 2 done")
    db.session.remove()  # what the server thread committed
    [kept] = db.session.scalars(select(Assignment).where(Assignment.user_id == user_id,
                                                         Assignment.status == SUBMITTED))
    assert kept.answer == {"masks_premise": "2", "quarantine_premise": "1"}


def test_backspace_goes_back_to_the_previous_claims_premise(page: Page, annotator) -> None:
    user_id = annotator(page)
    keys = page.keyboard
    keys.press("1")                                   # masks: for; on to quarantine
    keys.press("Backspace")                           # back to masks
    keys.press("2")                                   # masks: against after all
    keys.press("1")                                   # quarantine: for
    keys.press("Enter")
    expect(page.locator("#progress-text")).to_have_text("1 / 2 done")
    db.session.remove()  # what the server thread committed
    [kept] = db.session.scalars(select(Assignment).where(Assignment.user_id == user_id,
                                                         Assignment.status == SUBMITTED))
    assert kept.answer == {"masks_premise": "0", "quarantine_premise": "2"}


def test_at_phone_width_nothing_scrolls_sideways_and_every_answer_is_reachable(new_page, annotator) -> None:
    page = new_page(viewport={"width": 375, "height": 740}, has_touch=True, is_mobile=True)
    annotator(page)
    pills = page.locator("fieldset.dq:visible label.pill")
    assert pills.count() == 2 * 3
    for n in range(pills.count()):
        pill = pills.nth(n)
        pill.scroll_into_view_if_needed()
        box = pill.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375 + 0.5, pill.inner_text()
        assert box["height"] >= 43
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


@pytest.mark.parametrize("width", [1280, 375])
def test_axe_finds_no_violation_on_the_premise_stage_page(new_page, annotator, width) -> None:
    page = new_page(viewport={"width": width, "height": 800})
    annotator(page)
    page.keyboard.press("1")
    page.add_script_tag(url=AXE)
    assert violations(page, f"premise-stage HIT at {width} px") == []
