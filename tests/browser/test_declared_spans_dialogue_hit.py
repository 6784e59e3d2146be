"""A spans question over a dialogue field (examples/dialogue_spans.yaml) in headless Chromium: the turns drawn with
their speakers and every word markable; marks in two turns stored with offsets into the turns joined by a line feed
(read back from the database); a mark dragged from one turn into the next refused in words; at 375 px nothing
scrolls sideways; axe-core finds nothing with marks made, at 1280 and 375 px."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import AXE, violations
from tests.browser.votes import submitted
from tests.support.declared_projects import make_declared_project, read_jsonl

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TURNS = ["Hi, I am Maria Keller and my order 88213 never arrived.",
         "Sorry, Maria. Can you confirm the address: 14 Elm Street, Leeds?",
         "Yes. You can also call me on 0113 496 0321."]


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """The example's project; `page` logged in as a new annotator, on the first HIT (item d1)."""
    def open_for(page: Page) -> int:
        make_declared_project("pii", EXAMPLES / "dialogue_spans.yaml",
                              items=read_jsonl(EXAMPLES / "dialogue_spans_items.jsonl"))
        user_id = make_user("ann").id
        login(page, "ann")
        start_hit(page, "pii")
        expect(words(page).first).to_have_text("Hi")
        return user_id
    return open_for


def words(page: Page) -> Locator:
    return page.locator("#dq-personal .spans-text .sw")


def word(page: Page, turn: int, text: str) -> Locator:
    return page.locator(f"#dq-personal .spans-text [data-turn='{turn}'] .sw", has_text=text).first


def mark(turn: int, stretch: str, label: str) -> dict:
    before = sum(len(t) + 1 for t in TURNS[:turn])
    start = before + TURNS[turn].index(stretch)
    return {"start": start, "end": start + len(stretch), "label": label}


def test_the_turns_are_drawn_with_their_speakers_and_marks_in_two_turns_are_stored(page: Page, annotator) -> None:
    user_id = annotator(page)
    turns = page.locator("#dq-personal .spans-text li")
    expect(turns).to_have_count(3)
    expect(turns.locator(".shown-speaker")).to_have_text(["User:", "Assistant:", "User:"])
    page.get_by_label("Label of the next mark").select_option("NAME")
    word(page, 0, "Maria").click()
    word(page, 0, "Keller").click()
    page.get_by_label("Label of the next mark").select_option("ADDRESS")
    word(page, 1, "14").click()
    word(page, 1, "Leeds").click()
    expect(page.locator("#dq-personal .spans-list li")).to_have_count(2)
    expect(page.locator("#q_personal")).to_have_value(json.dumps(
        [mark(0, "Maria Keller", "NAME"), mark(1, "14 Elm Street, Leeds", "ADDRESS")], separators=(",", ":")))
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"personal": [{"start": 9, "end": 21, "label": "NAME"},
                                              {"start": 99, "end": 119, "label": "ADDRESS"}]}


def test_a_mark_from_one_turn_into_the_next_is_refused_in_words(page: Page, annotator) -> None:
    annotator(page)
    word(page, 0, "arrived").click()
    word(page, 1, "Sorry").click()
    expect(page.locator("#dq-personal [data-spans-said]")).to_contain_text(
        "“arrived . Sorry” runs from turn 1 into turn 2; a mark stays within one turn.")
    expect(page.locator("#dq-personal .spans-list li")).to_have_count(0)


def test_the_keyboard_moves_across_turns_and_a_phone_does_not_scroll_sideways(new_page, annotator) -> None:  # type: ignore[no-untyped-def]
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    user_id = annotator(page)
    words(page).nth(0).focus()
    for _ in range(13):                                   # turn 1 has 13 words: to "Sorry", the first of turn 2
        page.keyboard.press("ArrowRight")
    expect(word(page, 1, "Sorry")).to_be_focused()
    page.get_by_label("Label of the next mark").select_option("PHONE")
    word(page, 2, "0113").tap()
    word(page, 2, "0321").tap()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.get_by_role("button", name="Submit").tap()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"personal": [mark(2, "0113 496 0321", "PHONE")]}


def test_the_dialogue_hit_with_marks_has_no_axe_violation_at_either_width(page: Page, annotator) -> None:
    annotator(page)
    found = []
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 800})
        page.reload()
        page.wait_for_load_state("load")
        word(page, 0, "Maria").click()
        word(page, 0, "Keller").click()
        expect(page.locator("#dq-personal .spans-list li")).to_have_count(1)
        page.add_script_tag(url=AXE)
        found += violations(page, f"the dialogue spans HIT at {width} px")
    assert found == []
