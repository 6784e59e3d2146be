"""A declared extractive question (examples/extractive_qa.yaml) in headless Chromium: the answer marked by the keyboard
alone on a 375 px phone screen (the "unanswerable" key removing the mark, a new mark unticking it again), and by the
mouse at 1280 px (a drag, then the unanswerable box clicked instead); axe-core finding nothing on either page, and
the answers read back from the database."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import AXE, violations
from tests.browser.votes import submitted
from tests.support.declared_projects import make_declared_project, read_jsonl

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BOX = "The passage does not answer the question"


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """The example's project (its first two items); `page` logged in as a new annotator, on the first HIT (q1)."""
    def open_for(page: Page, name: str = "ann") -> int:
        make_declared_project("qa", EXAMPLES / "extractive_qa.yaml",
                              items=read_jsonl(EXAMPLES / "extractive_qa_items.jsonl")[:2])
        user_id = make_user(name).id
        login(page, name)
        start_hit(page, "qa")
        expect(words(page).first).to_have_text("In")
        return user_id
    return open_for


def words(page: Page) -> Locator:
    return page.locator("#dq-answer_span .spans-text .sw")


def marked(page: Page) -> Locator:
    return page.locator("#dq-answer_span .spans-list li")


def centre(word: Locator) -> tuple[float, float]:
    box = word.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_an_answer_marked_by_keyboard_on_a_phone_is_stored_with_its_text(new_page, annotator) -> None:  # type: ignore[no-untyped-def]
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    user_id = annotator(page)
    keys = page.keyboard
    box = page.get_by_label(BOX)
    keys.press("Tab")
    expect(page.get_by_role("link", name="Skip to the HIT")).to_be_focused()
    keys.press("Enter")
    keys.press("1")                                        # "Yes": the question makes sense; on to the passage
    expect(words(page).nth(0)).to_be_focused()
    for _ in range(9):
        keys.press("ArrowRight")                           # to "Analytical"
    keys.press("Space")
    keys.press("Shift+ArrowRight")                         # "Analytical Engine"
    expect(marked(page)).to_have_text(["“Analytical Engine” Answer Remove"])
    keys.press("0")                                        # unanswerable instead: the mark goes
    expect(box).to_be_checked()
    expect(box).to_be_focused()
    expect(marked(page)).to_have_count(0)
    expect(page.locator("#dq-answer_span [data-spans-said]")).to_have_text(
        f"Mark removed: the answer is now “{BOX}”.")
    keys.press("Shift+Tab")                                # back to the passage's words
    keys.press("Home")
    for _ in range(9):
        keys.press("ArrowRight")
    for key in ("Space", "ArrowRight", "Space"):           # "Analytical Engine" again: the box is unticked
        keys.press(key)
    expect(marked(page)).to_have_count(1)
    expect(box).not_to_be_checked()

    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.add_script_tag(url=AXE)
    assert violations(page, "the extractive HIT at 375 px") == []

    keys.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)   # a fresh session: what the server thread stored
    assert assignment.answer == {"sensible": "yes",
                                 "answer_span": {"start": 48, "end": 65, "text": "Analytical Engine"}}


def test_a_mark_dragged_with_the_mouse_gives_way_to_the_unanswerable_box(page: Page, annotator) -> None:
    user_id = annotator(page)
    page.locator('input[name="q_sensible"][value="yes"]').check()
    words(page).nth(18).scroll_into_view_if_needed()
    page.mouse.move(*centre(words(page).nth(17)))          # drag across "Charles Babbage"
    page.mouse.down()
    page.mouse.move(*centre(words(page).nth(18)), steps=5)
    page.mouse.up()
    expect(marked(page)).to_have_text(["“Charles Babbage” Answer Remove"])
    expect(page.locator("#q_answer_span")).to_have_value('[{"start":106,"end":121,"label":"answer"}]')
    page.add_script_tag(url=AXE)
    assert violations(page, "the extractive HIT at 1280 px, a mark made") == []
    page.get_by_label(BOX).click()
    expect(marked(page)).to_have_count(0)
    expect(page.locator("#q_answer_span")).to_have_value("[]")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"sensible": "yes", "answer_span": {"unanswerable": True}}
