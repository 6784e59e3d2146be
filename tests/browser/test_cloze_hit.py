"""The ReCAM cloze HIT in headless Chromium: marks made by mouse drag and by taps on a phone, and the question asked
before a submit without both evidence marks; each checked against the stored answer.

A new ReCAM project is a declared project of cloze_selection.yaml (docs/one-engine.md): the HIT is the declared page
(custom.js and declared_spans.js), whose evidence questions `passage_span` and `question_span` hold their marks as
{"start", "end", "label"} in characters, and whose answer is stored in the definition's shape. The whole HIT by
keyboard alone, and axe at 1280 and 375 px: tests/browser/test_recam_definition_hit.py."""
from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import start_hit
from tests.browser.votes import submitted
from tests.conftest import DATA, load_project

pytestmark = pytest.mark.browser
DEV = DATA / "recam2021" / "Task_1_dev_excerpt.jsonl"


def words(page: Page, qid: str) -> Locator:
    return page.locator(f"#dq-{qid} .spans-text .sw")


def mark(page: Page, qid: str, first: int, last: int) -> list[dict]:
    """The mark from word `first` to word `last`, as the page's words give their offsets."""
    start = words(page, qid).nth(first).get_attribute("data-start")
    end = words(page, qid).nth(last).get_attribute("data-end")
    return [{"start": int(start), "end": int(end), "label": "evidence"}]


def centre(word: Locator) -> tuple[float, float]:
    box = word.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def open_hit(page: Page, login, make_user) -> int:  # type: ignore[no-untyped-def]
    user_id = make_user("ann").id
    load_project("recam2021", DEV, "cz", k=1)
    login(page, "ann")
    start_hit(page, "cz")
    expect(words(page, "passage_span").first).to_be_visible()
    page.wait_for_load_state()
    return user_id


def test_marks_made_with_the_mouse_are_stored_without_a_question(page: Page, login, make_user) -> None:  # type: ignore[no-untyped-def]
    user_id = open_hit(page, login, make_user)
    asked: list[str] = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    words(page, "passage_span").nth(13).scroll_into_view_if_needed()
    page.mouse.move(*centre(words(page, "passage_span").nth(10)))  # drag from "Previously" ("12", ":", "52" ...)
    page.mouse.down()
    page.mouse.move(*centre(words(page, "passage_span").nth(12)), steps=5)
    page.mouse.move(*centre(words(page, "passage_span").nth(13)), steps=5)  # ... to "Scorpio"
    page.mouse.up()
    expect(page.locator("#dq-passage_span .spans-list li")).to_contain_text("Previously code-named Project Scorpio")
    words(page, "question_span").nth(1).click()  # click the first word, then the last
    words(page, "question_span").nth(3).click()
    page.locator("#dq-option label.pill", has_text="secret").click()
    page.locator("#dq-difficulty label.pill", has_text="hard").click()
    passage, question = mark(page, "passage_span", 10, 13), mark(page, "question_span", 1, 3)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    assert asked == []   # both marks made: nothing to ask
    assert [a.answer for a in submitted(user_id)] == [{"option": "2", "difficulty": "hard", "passage_span": passage,
                                                       "question_span": question}]


def test_on_a_phone_a_tap_starts_a_mark_and_the_next_ends_it(new_page, login, make_user) -> None:  # type: ignore[no-untyped-def]
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    user_id = open_hit(page, login, make_user)
    words(page, "passage_span").nth(3).tap()
    words(page, "passage_span").nth(5).tap()
    words(page, "question_span").nth(0).tap()
    words(page, "question_span").nth(0).tap()  # the same word again: a one-word mark
    page.locator("#dq-option label.pill", has_text="free").tap()
    page.locator("#dq-difficulty label.pill", has_text="easy").tap()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    passage, question = mark(page, "passage_span", 3, 5), mark(page, "question_span", 0, 0)
    page.get_by_role("button", name="Submit").tap()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    assert [a.answer for a in submitted(user_id)] == [{"option": "1", "difficulty": "easy", "passage_span": passage,
                                                       "question_span": question}]


def test_submitting_without_marks_asks_first_and_stores_no_marks(page: Page, login, make_user) -> None:  # type: ignore[no-untyped-def]
    """Rule b does not use an answer without both marks: the page says so and asks once, as the built-in HIT did."""
    user_id = open_hit(page, login, make_user)
    asked: list[str] = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.locator("#dq-option label.pill", has_text="end").click()
    page.locator("#dq-difficulty label.pill", has_text="easy").click()
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    assert asked == ["You marked nothing in questions 2 and 3. Answers without a mark there are not used. "
                     "Submit anyway?"]
    assert [a.answer for a in submitted(user_id)] == [{"option": "0", "difficulty": "easy", "passage_span": [],
                                                       "question_span": []}]


def test_with_one_mark_made_it_asks_about_the_other_and_declining_submits_nothing(page: Page, login,  # type: ignore[no-untyped-def]
                                                                                   make_user) -> None:
    user_id = open_hit(page, login, make_user)
    asked: list[str] = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    words(page, "passage_span").nth(0).click()
    words(page, "passage_span").nth(0).click()
    page.locator("#dq-option label.pill", has_text="end").click()
    page.locator("#dq-difficulty label.pill", has_text="easy").click()
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#dq-passage_span .spans-list li")).to_have_count(1)   # still on the page
    assert asked == ["You marked nothing in question 3. Answers without a mark there are not used. Submit anyway?"]
    assert submitted(user_id) == []
