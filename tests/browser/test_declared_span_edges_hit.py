"""A spans question with `edges: characters` (examples/spelling_errors.yaml) in headless Chromium: a mark made on a
word with the keyboard alone, then its start and end moved inside the word by the mark's buttons; the same with
taps on a 375 px phone; both read back from the database; and axe-core finding nothing on the page with a mark
inside a word, at 1280 and 375 px."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Label
from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import violations_at_each_width
from tests.browser.votes import submitted
from tests.support.declared_projects import make_declared_project, read_jsonl

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
IE = {"start": 6, "end": 8, "label": "spelling"}           # "ie" of "We recieved the parcel on Tuesday."


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """The spelling example's first two sentences as a project; `page` logged in as a new annotator, on the first
    one's HIT."""
    def open_for(page: Page) -> int:
        items = read_jsonl(EXAMPLES / "spelling_errors_items.jsonl")[:2]
        make_declared_project("spelling", EXAMPLES / "spelling_errors.yaml", items=items)
        user_id = make_user("ann").id
        login(page, "ann")
        start_hit(page, "spelling")
        expect(words(page).nth(1)).to_have_text("recieved")
        return user_id
    return open_for


def words(page: Page) -> Locator:
    return page.locator("#dq-errors .spans-text .sw")


def marked(page: Page) -> Locator:
    return page.locator("#dq-errors .spans-list li")


def button(page: Page, name: str) -> Locator:
    return page.locator(f'#dq-errors .spans-list [data-nudge="{name}"]')


def test_with_the_keyboard_alone_a_word_s_mark_is_narrowed_to_its_wrong_letters(page: Page, annotator) -> None:
    user_id = annotator(page)
    keys = page.keyboard
    keys.press("Tab")
    keys.press("Enter")                                    # the skip link: on to the label box
    keys.press("Tab")
    expect(words(page).nth(0)).to_be_focused()
    for key in ("ArrowRight", "Space", "Space"):           # "recieved", Spelling (the first label)
        keys.press(key)
    expect(marked(page)).to_have_text(["“recieved” Spelling Remove ◂ Start Start ▸ ◂ End End ▸"])
    keys.press("Tab")
    expect(page.get_by_role("button", name="Remove “recieved”, Spelling")).to_be_focused()
    keys.press("Tab")
    keys.press("Tab")
    expect(page.get_by_role("button", name="Move the start of “recieved” one character right")).to_be_focused()
    for _ in range(3):
        keys.press("Enter")                                # "ieved": the start three characters right
    expect(button(page, "start+1")).to_be_focused()        # the list is drawn again; the focus stays
    keys.press("Tab")
    for _ in range(3):
        keys.press("Enter")                                # "ie": the end three characters left
    expect(marked(page)).to_have_text(["“ie” Spelling Remove ◂ Start Start ▸ ◂ End End ▸"])
    expect(page.locator("#dq-errors [data-spans-said]")).to_have_text("Marked “ie” as Spelling.")
    expect(page.locator("#dq-errors .sc.marked")).to_have_text(["i", "e"])
    for _ in range(4):
        keys.press("Shift+Tab")                            # back to the text, past Remove
    expect(words(page).nth(1)).to_be_focused()
    keys.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"errors": [IE]}
    rows = {label.unit: label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id))}
    assert (rows["6:8:spelling"], rows["5:6"], rows["6:7"], rows["7:8"], rows["8:9"]) == \
        ("1", "O", "spelling", "spelling", "O")


def test_a_mark_cannot_shrink_below_one_character(page: Page, annotator) -> None:
    annotator(page)
    words(page).nth(0).click()
    words(page).nth(0).click()                             # "We"
    button(page, "start+1").click()                        # "e"
    button(page, "start+1").click()
    expect(page.locator("#dq-errors [data-spans-said]")).to_have_text("“e” is one character: it cannot be shorter.")
    expect(marked(page).locator(".span-text")).to_have_text("“e”")


def test_on_a_phone_taps_mark_a_word_and_its_buttons_move_the_edges(new_page, annotator) -> None:  # type: ignore[no-untyped-def]
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    user_id = annotator(page)
    words(page).nth(1).tap()
    words(page).nth(1).tap()
    for _ in range(3):
        button(page, "start+1").tap()
        button(page, "end-1").tap()
    expect(marked(page).locator(".span-text")).to_have_text("“ie”")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.get_by_role("button", name="Submit").tap()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"errors": [IE]}


def test_the_page_with_a_mark_inside_a_word_has_no_axe_violation_at_either_width(page: Page, annotator) -> None:
    annotator(page)

    def inside_a_word(page: Page) -> None:
        words(page).nth(1).click()
        words(page).nth(1).click()
        button(page, "start+1").click()
        expect(marked(page).locator(".span-text")).to_have_text("“ecieved”")
    assert violations_at_each_width(page, "the spelling HIT", inside_a_word) == []


SURE = """name: Spelling errors, and how sure
show: [{field: sentence, label: Sentence}]
questions:
  - {id: errors, kind: spans, of: sentence, labels: [spelling], edges: characters, required: false}
  - {id: sure, kind: choice, prompt: "How sure are you?", options: [sure, unsure]}
"""


def test_a_refused_submit_brings_a_mark_inside_a_word_back(page: Page, app, make_user, login) -> None:  # type: ignore[no-untyped-def]
    make_declared_project("sure", SURE, items=read_jsonl(EXAMPLES / "spelling_errors_items.jsonl")[:1])
    user_id = make_user("ann").id
    login(page, "ann")
    start_hit(page, "sure")
    words(page).nth(1).click()
    words(page).nth(1).click()
    for _ in range(3):
        button(page, "start+1").click()                    # "ieved"
    page.locator("#submit").click()                        # "How sure" is not answered: refused
    expect(page.locator("#dq-sure .error")).to_have_text("Please answer this question.")
    expect(marked(page).locator(".span-text")).to_have_text("“ieved”")
    expect(page.locator("#dq-errors .sc.marked")).to_have_text(["i", "e", "v", "e", "d"])
    page.locator("#q_sure-0").check()
    page.locator("#submit").click()
    expect(page.locator("#hit-form")).to_have_count(0)     # the project's one item is done
    [assignment] = submitted(user_id)
    assert assignment.answer == {"errors": [{"start": 6, "end": 11, "label": "spelling"}], "sure": "sure"}
