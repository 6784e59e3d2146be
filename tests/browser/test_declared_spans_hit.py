"""A declared spans question (examples/ner_spans.yaml) in headless Chromium: marks made with the keyboard alone,
with the mouse and by taps on a phone, read back from the database; the marks listed in words and removable one
by one; and axe-core finding nothing on the page, with marks made, at 1280 and 375 px."""
from __future__ import annotations

import json
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
SENTENCE = "Ada Lovelace wrote her notes on the Analytical Engine in London."


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """The named-entity example's project; `page` logged in as a new annotator, on the first HIT (sentence s1)."""
    def open_for(page: Page, name: str = "ann") -> int:
        make_declared_project("ner", EXAMPLES / "ner_spans.yaml", items=read_jsonl(EXAMPLES / "ner_spans_items.jsonl"))
        user_id = make_user(name).id
        login(page, name)
        start_hit(page, "ner")
        expect(words(page).first).to_have_text("Ada")
        return user_id
    return open_for


def words(page: Page) -> Locator:
    return page.locator("#dq-entities .spans-text .sw")


def marked(page: Page) -> Locator:
    return page.locator("#dq-entities .spans-list li")


def span(text: str, stretch: str, label: str) -> dict:
    start = text.index(stretch)
    return {"start": start, "end": start + len(stretch), "label": label}


def centre(word: Locator) -> tuple[float, float]:
    box = word.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_a_hit_done_with_the_keyboard_alone_stores_the_labelled_spans(page: Page, annotator) -> None:
    """From the page's load: skip link, the label box, the words; Space opens and closes a mark, Shift+Arrow
    stretches it, a digit picks the label, Escape cancels an open mark and removes a mark under the cursor."""
    user_id = annotator(page)
    keys = page.keyboard
    keys.press("Tab")
    expect(page.get_by_role("link", name="Skip to the HIT")).to_be_focused()
    keys.press("Enter")
    expect(page.get_by_label("Label of the next mark")).to_be_focused()
    keys.press("Tab")
    expect(words(page).nth(0)).to_be_focused()
    for key in ("Space", "ArrowRight", "Space"):           # "Ada Lovelace", PER (the first label)
        keys.press(key)
    for _ in range(3):
        keys.press("ArrowRight")                           # to "notes"
    keys.press("Space")
    keys.press("Space")                                    # "notes" marked by mistake ...
    expect(marked(page)).to_have_count(2)
    keys.press("Escape")                                   # ... and removed: the cursor is on it
    expect(marked(page)).to_have_count(1)
    for _ in range(3):
        keys.press("ArrowRight")                           # to "Analytical"
    keys.press("4")                                        # MISC for the next mark
    expect(page.get_by_label("Label of the next mark")).to_have_value("MISC")
    keys.press("Space")
    keys.press("Shift+ArrowRight")                         # "Analytical Engine"
    keys.press("ArrowRight")                               # "in": a mark opened, then cancelled
    keys.press("Space")
    keys.press("Escape")
    keys.press("ArrowRight")                               # "London"
    keys.press("3")                                        # LOC
    keys.press("Space")
    keys.press("Space")
    expect(marked(page)).to_have_text(["“Ada Lovelace” Person Remove", "“Analytical Engine” Other name Remove",
                                       "“London” Place Remove"])
    expect(page.locator("[data-spans-count]")).to_have_text("Marked: 3 stretches.")
    keys.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")

    [assignment] = submitted(user_id)  # a fresh session: what the server thread stored
    assert assignment.answer == {"entities": [span(SENTENCE, "Ada Lovelace", "PER"),
                                              span(SENTENCE, "Analytical Engine", "MISC"),
                                              span(SENTENCE, "London", "LOC")]}
    rows = {label.unit: label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id))}
    assert rows["0:12:PER"] == rows["36:53:MISC"] == rows["57:63:LOC"] == "1"
    assert (rows["0:3"], rows["4:12"], rows["13:18"], rows["57:63"], rows["63:64"]) == ("PER", "PER", "O", "LOC", "O")


def test_marks_made_with_the_mouse_are_listed_and_removed_one_by_one(page: Page, annotator) -> None:
    user_id = annotator(page)
    text = SENTENCE
    page.get_by_label("Label of the next mark").select_option("PER")
    page.mouse.move(*centre(words(page).nth(0)))          # drag across "Ada Lovelace"
    page.mouse.down()
    page.mouse.move(*centre(words(page).nth(1)), steps=5)
    page.mouse.up()
    page.get_by_label("Label of the next mark").select_option("LOC")
    words(page).nth(10).click()                           # "London": the first word, then the last (the same)
    words(page).nth(10).click()
    words(page).nth(2).click()                            # "wrote her"
    words(page).nth(3).click()
    expect(marked(page)).to_have_count(3)
    page.get_by_role("button", name="Remove “wrote her”, Place").click()
    expect(marked(page)).to_have_count(2)
    expect(page.locator("#q_entities")).to_have_value(json.dumps(
        [span(text, "Ada Lovelace", "PER"), span(text, "London", "LOC")], separators=(",", ":")))
    words(page).nth(1).click()                            # inside "Ada Lovelace": a new mark would overlap it
    words(page).nth(2).click()
    expect(page.locator("[data-spans-said]")).to_contain_text("would overlap the mark “Ada Lovelace”")
    expect(marked(page)).to_have_count(2)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"entities": [span(text, "Ada Lovelace", "PER"), span(text, "London", "LOC")]}


def test_on_a_phone_a_tap_starts_a_mark_and_the_next_ends_it(new_page, annotator) -> None:  # type: ignore[no-untyped-def]
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    user_id = annotator(page)
    page.get_by_label("Label of the next mark").select_option("MISC")
    words(page).nth(7).tap()
    words(page).nth(8).tap()
    expect(marked(page)).to_have_text(["“Analytical Engine” Other name Remove"])
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.get_by_role("button", name="Submit").tap()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"entities": [span(SENTENCE, "Analytical Engine", "MISC")]}


def test_a_sentence_without_names_is_answered_by_marking_nothing(page: Page, annotator) -> None:
    """The example's question is optional: submitting no mark stores [] (every word O), not a missing answer."""
    user_id = annotator(page)
    page.keyboard.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"entities": []}
    values = set(db.session.scalars(select(Label.value).where(Label.assignment_id == assignment.id)))
    assert values == {"O"}


def test_the_page_with_marks_has_no_axe_violation_at_either_width(page: Page, annotator) -> None:
    annotator(page)

    def two_marks(page: Page) -> None:
        words(page).nth(0).click()
        words(page).nth(1).click()
        page.get_by_label("Label of the next mark").select_option("LOC")
        words(page).nth(10).click()
        words(page).nth(10).click()
        expect(marked(page)).to_have_count(2)
    assert violations_at_each_width(page, "the spans HIT", two_marks) == []


WHEN = """name: Names, when there are some
show: [{field: sentence, label: Sentence}]
questions:
  - {id: has_names, kind: choice, prompt: "Does the sentence name anyone or anything?", options: ["yes", "no"]}
  - {id: entities, kind: spans, of: sentence, labels: [PER, LOC], when: {has_names: "yes"}}
  - {id: sure, kind: choice, prompt: "How sure are you?", options: [sure, unsure]}
"""


@pytest.fixture
def with_when(app, make_user, login):  # type: ignore[no-untyped-def]
    def open_for(page: Page) -> int:
        make_declared_project("ner", WHEN, items=[{"id": "s1", "sentence": SENTENCE}])
        user_id = make_user("ann").id
        login(page, "ann")
        start_hit(page, "ner")
        return user_id
    return open_for


def test_a_hidden_spans_question_sends_nothing_and_starts_afresh_when_shown_again(page: Page, with_when) -> None:
    with_when(page)
    question = page.locator("#dq-entities")
    expect(question).to_be_hidden()
    page.keyboard.press("1")                               # yes: the marks are asked for
    expect(question).to_be_visible()
    expect(words(page).nth(0)).to_be_focused()             # the keys move on to the words
    page.keyboard.press("Space")
    page.keyboard.press("Space")
    expect(marked(page)).to_have_count(1)
    page.locator("#q_has_names-1").check()                 # no: hidden, its field disabled and empty
    expect(question).to_be_hidden()
    expect(page.locator("#q_entities")).to_be_disabled()
    expect(page.locator("#q_entities")).to_have_value("")
    page.locator("#q_has_names-0").check()                 # yes again: nothing marked
    expect(page.locator("#q_entities")).to_have_value("[]")
    expect(marked(page)).to_have_count(0)


def test_a_refused_submit_brings_the_marks_back_listed(page: Page, with_when) -> None:
    user_id = with_when(page)
    page.keyboard.press("1")
    for key in ("Space", "ArrowRight", "Space"):
        page.keyboard.press(key)
    page.locator("#submit").click()                        # "How sure" is not answered: refused
    expect(page.locator("#dq-sure .error")).to_have_text("Please answer this question.")
    expect(marked(page)).to_have_text(["“Ada Lovelace” PER Remove"])
    page.locator("#q_sure-0").check()
    page.locator("#submit").click()
    expect(page.locator("#hit-form")).to_have_count(0)     # the project's one item is done
    [assignment] = submitted(user_id)
    assert assignment.answer == {"has_names": "yes", "entities": [span(SENTENCE, "Ada Lovelace", "PER")],
                                 "sure": "sure"}
