"""The Track-2 HITs in headless Chromium: a match check by keyboard, a set comparison by mouse."""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Label
from tests.browser.conftest import start_hit
from tests.conftest import DATA, load_project

pytestmark = pytest.mark.browser
FIXTURE = DATA / "kpa2021_track2"


def submitted() -> list[Assignment]:
    return list(db.session.scalars(select(Assignment).where(Assignment.status == SUBMITTED).order_by(Assignment.id)))


def test_a_match_check_by_keyboard(page: Page, login, make_user, fresh) -> None:  # type: ignore[no-untyped-def]
    make_user("ann")
    load_project("kpa2021-check", FIXTURE, "chk", split="test", k=1)
    login(page, "ann")
    start_hit(page, "chk")
    expect(page.locator("#key-point")).not_to_be_empty()
    page.wait_for_load_state()
    page.keyboard.press("3")  # faulty key point
    expect(page.locator('input[name=verdict][value="faulty"]')).to_be_checked()
    page.keyboard.press("1")  # changed my mind: yes
    page.keyboard.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    fresh()
    assert [a.answer for a in submitted()] == [{"verdict": "yes"}]


def test_a_set_comparison_by_mouse_stores_the_systems_behind_a_and_b(new_page, login, make_user, fresh) -> None:  # type: ignore[no-untyped-def]
    make_user("ann")
    load_project("kpa2021-compare", FIXTURE, "cmp", split="test", k=1)
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    login(page, "ann")
    start_hit(page, "cmp")
    summary_a = page.locator("#summary-a")
    expect(summary_a.locator("li").first).to_be_visible()
    summary_a.get_by_text("all key points contest the topic").click()
    page.locator("#summary-b").get_by_text("most contest it, some support it").click()
    page.locator("fieldset").filter(has_text="less redundant").get_by_text("Summary B").click()
    page.locator("fieldset").filter(has_text="more central").get_by_text("About equal").click()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    fresh()
    [vote] = submitted()
    assert vote.answer == {"stance_a": "all_contest", "stance_b": "most_contest", "less_redundant": "B",
                           "more_central": "equal"}
    stored = dict(db.session.execute(select(Label.field, Label.value).where(Label.unit == "pair")).all())
    assert stored == {"less_redundant": vote.presentation["b"], "more_central": "equal"}
