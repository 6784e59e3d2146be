"""The cloze HIT in headless Chromium: spans marked by mouse drag, by keyboard, and by taps on a phone."""
from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment
from tests.browser.conftest import start_hit
from tests.conftest import DATA, load_project

pytestmark = pytest.mark.browser
DEV = DATA / "recam2021" / "Task_1_dev_excerpt.jsonl"


def submitted() -> list[Assignment]:
    return list(db.session.scalars(select(Assignment).where(Assignment.status == SUBMITTED).order_by(Assignment.id)))


def words(page: Page, field: str) -> Locator:
    return page.locator(f"#{field}-text .w")


def offsets(page: Page, field: str, first: int, last: int) -> list[int]:
    start = words(page, field).nth(first).get_attribute("data-start")
    end = words(page, field).nth(last).get_attribute("data-end")
    return [int(start), int(end)]


def centre(word: Locator) -> tuple[float, float]:
    box = word.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def open_hit(page: Page, login, make_user) -> None:  # type: ignore[no-untyped-def]
    make_user("ann")
    load_project("recam2021", DEV, "cz", k=1)
    login(page, "ann")
    start_hit(page, "cz")
    expect(words(page, "passage_span").first).to_be_visible()
    page.wait_for_load_state()


def test_spans_marked_with_the_mouse(page: Page, login, make_user, fresh) -> None:  # type: ignore[no-untyped-def]
    open_hit(page, login, make_user)
    page.mouse.move(*centre(words(page, "passage_span").nth(8)))  # drag from "Previously" ...
    page.mouse.down()
    page.mouse.move(*centre(words(page, "passage_span").nth(10)), steps=5)
    page.mouse.move(*centre(words(page, "passage_span").nth(11)), steps=5)  # ... to "Scorpio"
    page.mouse.up()
    expect(page.locator("#passage_span-said")).to_have_text("Marked: \u201cPreviously code-named Project Scorpio\u201d")
    words(page, "question_span").nth(1).click()  # click the first word, then the last
    words(page, "question_span").nth(3).click()
    page.get_by_text("secret", exact=True).click()
    expect(page.locator("#question_span-text .blank")).to_have_text("secret")
    page.get_by_text("Hard", exact=True).click()
    passage, question = offsets(page, "passage_span", 8, 11), offsets(page, "question_span", 1, 3)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    fresh()
    assert [a.answer for a in submitted()] == [{"option": 2, "difficulty": "hard", "passage_span": passage,
                                                "question_span": question}]


def test_the_first_tabs_reach_the_passage_past_the_header(page: Page, login, make_user) -> None:  # type: ignore[no-untyped-def]
    """From the page's load, the first Tab reaches the link that skips the header's links (the passage took six
    Tabs before it), and Enter on it lands on the passage's first word."""
    open_hit(page, login, make_user)
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to the HIT")).to_be_focused()
    page.keyboard.press("Enter")
    expect(words(page, "passage_span").first).to_be_focused()


def test_the_tab_order_follows_the_hit_from_the_passage_to_submit(page: Page, login, make_user) -> None:  # type: ignore[no-untyped-def]
    """After the passage, Tab goes through the HIT as it reads: question, options, difficulty, the keys'
    help, Submit; each text is one stop (its words are reached with the arrow keys)."""
    open_hit(page, login, make_user)
    words(page, "passage_span").first.focus()
    order = []
    for _ in range(5):
        page.keyboard.press("Tab")
        order.append(page.evaluate("(e => e.closest('.cloze-text')?.id || e.id || e.tagName.toLowerCase())"
                                   "(document.activeElement)"))
    assert order == ["question_span-text", "option-0", "difficulty-0", "summary", "submit"]


def test_spans_marked_with_the_keyboard(page: Page, login, make_user, fresh) -> None:  # type: ignore[no-untyped-def]
    """The whole HIT by keyboard alone, from the page's load: skip link, marks, option, difficulty, Enter."""
    open_hit(page, login, make_user)
    for key in ("Tab", "Enter"):  # to "Skip to the HIT", and past the header to the passage
        page.keyboard.press(key)
    expect(words(page, "passage_span").first).to_be_focused()
    for key in ("ArrowRight", "ArrowRight", "Space", "ArrowRight", "Space"):  # words 2..3
        page.keyboard.press(key)
    page.keyboard.press("Shift+ArrowRight")  # stretched to word 4
    page.keyboard.press("Tab")  # to the question
    expect(words(page, "question_span").first).to_be_focused()
    for key in ("Space", "Space", "ArrowRight", "Escape", "Space", "Shift+ArrowRight"):  # cleared, then words 1..2
        page.keyboard.press(key)
    page.keyboard.press("3")
    page.keyboard.press("m")
    passage, question = offsets(page, "passage_span", 2, 4), offsets(page, "question_span", 1, 2)
    page.keyboard.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    fresh()
    assert [a.answer for a in submitted()] == [{"option": 2, "difficulty": "medium", "passage_span": passage,
                                                "question_span": question}]


def test_on_a_phone_a_tap_starts_a_mark_and_the_next_ends_it(new_page, login, make_user, fresh) -> None:  # type: ignore[no-untyped-def]
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    open_hit(page, login, make_user)
    words(page, "passage_span").nth(3).tap()
    words(page, "passage_span").nth(5).tap()
    words(page, "question_span").nth(0).tap()
    words(page, "question_span").nth(0).tap()  # the same word again: a one-word mark
    page.get_by_text("free", exact=True).tap()
    page.get_by_text("Easy", exact=True).tap()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    passage, question = offsets(page, "passage_span", 3, 5), offsets(page, "question_span", 0, 0)
    page.get_by_role("button", name="Submit").tap()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    fresh()
    assert [a.answer for a in submitted()] == [{"option": 1, "difficulty": "easy", "passage_span": passage,
                                                "question_span": question}]


def test_submitting_without_marks_asks_first_and_stores_null_spans(page: Page, login, make_user, fresh) -> None:  # type: ignore[no-untyped-def]
    open_hit(page, login, make_user)
    asked = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.keyboard.press("1")
    page.keyboard.press("e")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    assert asked and "not used" in asked[0]
    fresh()
    assert [a.answer for a in submitted()] == [{"option": 0, "difficulty": "easy", "passage_span": None,
                                                "question_span": None}]
