"""The stance/premise HIT in headless Chromium: Cyrillic sentences labelled by mouse and by keyboard."""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment
from tests.browser.conftest import start_hit
from tests.conftest import DATA, load_project

pytestmark = pytest.mark.browser
IRR = {"stance": -1, "premise": -1}


@pytest.fixture
def russian_project(make_user):  # type: ignore[no-untyped-def]
    make_user("ann")
    load_project("ruarg2022", DATA / "ruarg2022" / "val_excerpt.tsv", "ru", k=1, language="ru", declared=False)


def claim(page: Page, key: str):  # type: ignore[no-untyped-def]
    return page.locator(f"#claim-{key}")


def answers() -> list[dict]:  # type: ignore[type-arg]
    return [a.answer for a in db.session.scalars(select(Assignment).where(Assignment.status == SUBMITTED)
                                                 .order_by(Assignment.id))]


def test_two_cyrillic_sentences_by_mouse_and_by_keyboard(page: Page, login, russian_project, fresh) -> None:  # type: ignore[no-untyped-def]
    login(page, "ann")
    start_hit(page, "ru")
    expect(page.locator("#sentence")).to_contain_text("26 марта")
    masks = claim(page, "masks")
    expect(masks.locator(".claim-labels")).to_be_hidden()  # nothing to say about stance before relevance

    masks.get_by_text("Релевантно", exact=True).click()
    expect(masks.locator(".claim-labels")).to_be_visible()
    masks.locator('[data-step="stance"]').get_by_text("за", exact=True).click()
    masks.locator('[data-step="premise"]').get_by_text("нет довода").click()
    claim(page, "quarantine").get_by_text("Нерелевантно").click()
    claim(page, "vaccines").get_by_text("Нерелевантно").click()
    expect(claim(page, "vaccines").locator(".claim-labels")).to_be_hidden()
    page.get_by_role("button", name="Отправить").click()
    expect(page.locator("#progress-text")).to_have_text("1 / 5 done")

    page.wait_for_load_state()
    expect(claim(page, "masks").locator('[data-step="relevant"]')).to_have_class("choices relevance active")
    for key in ("0", "1", "2", "3", "0"):  # masks irrelevant; quarantine relevant, against, no argument; vaccines no
        page.keyboard.press(key)
    expect(claim(page, "quarantine").locator('[data-step="premise"] input:checked')).to_have_value("1")
    page.keyboard.press("Enter")
    expect(page.locator("#progress-text")).to_have_text("2 / 5 done")

    fresh()
    assert answers() == [
        {"claims": {"masks": {"stance": 2, "premise": 1}, "quarantine": IRR, "vaccines": IRR}},
        {"claims": {"masks": IRR, "quarantine": {"stance": 0, "premise": 1}, "vaccines": IRR}},
    ]


def test_backspace_goes_back_a_step_and_an_incomplete_answer_is_not_sent(page: Page, login, russian_project,
                                                                       fresh) -> None:  # type: ignore[no-untyped-def]
    login(page, "ann")
    start_hit(page, "ru")
    page.wait_for_load_state()
    page.keyboard.press("1")          # masks relevant
    page.keyboard.press("Backspace")  # back to the relevance of masks
    page.keyboard.press("0")          # masks not relevant after all
    expect(claim(page, "masks").locator(".claim-labels")).to_be_hidden()
    page.keyboard.press("Enter")      # quarantine and vaccines are not answered yet: the browser stops the submit
    expect(page.locator("#progress-text")).to_have_text("0 / 5 done")
    assert page.evaluate("document.querySelector('input[name=quarantine_relevant]').validity.valueMissing")
    fresh()
    assert answers() == []


def test_the_hit_fits_a_phone(new_page, login, russian_project) -> None:  # type: ignore[no-untyped-def]
    page = new_page(viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True)
    login(page, "ann")
    start_hit(page, "ru")
    masks = claim(page, "masks")
    masks.get_by_text("Релевантно", exact=True).tap()
    expect(masks.locator(".claim-labels")).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the page is {width}px wide on a 375px phone"
