"""A spans question over a field that comes in parts, in headless Chromium: a dialogue's turns
(examples/dialogue_spans.yaml) and a Markdown field's blocks (examples/markdown_spans.yaml). Each part drawn with its
words markable; marks stored with offsets into the parts' texts joined by a line feed (read back from the database);
a mark from one part into the next refused in words; axe-core finds nothing with a mark made, at 1280 and 375 px."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import violations_at_each_width
from tests.browser.votes import submitted
from tests.support.declared_projects import make_declared_project, read_jsonl

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@dataclass(frozen=True)
class Case:
    example: str       # the example's name in examples/ (its items beside it)
    question: str
    part: str          # what a mark stays within
    parts: list[str]   # the first item's parts as a reader sees them, written out by hand

    def word(self, page: Page, part: int, text: str) -> Locator:
        return page.locator(f"#dq-{self.question} .spans-text [data-turn='{part}'] .sw", has_text=text).first

    def mark(self, part: int, stretch: str, label: str) -> dict:
        """The mark's offsets counted by hand: the earlier parts and one line feed after each."""
        start = sum(len(p) + 1 for p in self.parts[:part]) + self.parts[part].index(stretch)
        return {"start": start, "end": start + len(stretch), "label": label}

    def marked(self, page: Page) -> Locator:
        return page.locator(f"#dq-{self.question} .spans-list li")


DIALOGUE = Case("dialogue_spans", "personal", "turn", [
    "Hi, I am Maria Keller and my order 88213 never arrived.",
    "Sorry, Maria. Can you confirm the address: 14 Elm Street, Leeds?",
    "Yes. You can also call me on 0113 496 0321."])
MARKDOWN = Case("markdown_spans", "claims", "block", [
    "Short answer", "The tower opened on 31 March 1889 for the World's Fair.", "It is 330 metres tall today.",
    "It was the tallest structure in the world until 1930.", "See eiffel-tower.paris for tickets."])


@pytest.fixture
def annotator(app, make_user, login) -> Callable[[Page, Case], int]:  # type: ignore[no-untyped-def]
    """The example's project; `page` logged in as a new annotator, on the first HIT (the first item)."""
    def open_for(page: Page, case: Case) -> int:
        make_declared_project("parts", EXAMPLES / f"{case.example}.yaml",
                              items=read_jsonl(EXAMPLES / f"{case.example}_items.jsonl"))
        user_id = make_user("ann").id
        login(page, "ann")
        start_hit(page, "parts")
        expect(page.locator(f"#dq-{case.question} .spans-text .sw").first).to_have_text(case.parts[0].split()[0]
                                                                                           .rstrip(","))
        return user_id
    return open_for


def test_the_turns_are_drawn_with_their_speakers_and_marks_in_two_turns_are_stored(page: Page, annotator) -> None:
    user_id = annotator(page, DIALOGUE)
    turns = page.locator("#dq-personal .spans-text li")
    expect(turns).to_have_count(3)
    expect(turns.locator(".shown-speaker")).to_have_text(["User:", "Assistant:", "User:"])
    page.get_by_label("Label of the next mark").select_option("NAME")
    DIALOGUE.word(page, 0, "Maria").click()
    DIALOGUE.word(page, 0, "Keller").click()
    page.get_by_label("Label of the next mark").select_option("ADDRESS")
    DIALOGUE.word(page, 1, "14").click()
    DIALOGUE.word(page, 1, "Leeds").click()
    expect(DIALOGUE.marked(page)).to_have_count(2)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"personal": [DIALOGUE.mark(0, "Maria Keller", "NAME"),
                                              DIALOGUE.mark(1, "14 Elm Street, Leeds", "ADDRESS")]}
    assert assignment.answer["personal"][1] == {"start": 99, "end": 119, "label": "ADDRESS"}


def test_the_markdown_is_shown_formatted_and_a_mark_in_its_seen_text_is_stored(page: Page, annotator) -> None:
    user_id = annotator(page, MARKDOWN)
    expect(page.locator(".shown-markdown strong").first).to_have_text("31 March 1889")   # the display: formatted
    expect(page.locator("#dq-claims .spans-text p")).to_have_text(MARKDOWN.parts)       # the marking: its text
    page.get_by_label("Label of the next mark").select_option("wrong")
    MARKDOWN.word(page, 2, "330").click()
    MARKDOWN.word(page, 2, "metres").click()
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"claims": [MARKDOWN.mark(2, "330 metres", "wrong")]}


@pytest.mark.parametrize(("case", "last", "first", "said"), [
    (DIALOGUE, "arrived", "Sorry", "“arrived . Sorry” runs from turn 1 into turn 2; a mark stays within one turn."),
    (MARKDOWN, "Fair", "It", "runs from block 2 into block 3; a mark stays within one block."),
], ids=["dialogue", "markdown"])
def test_a_mark_from_one_part_into_the_next_is_refused_in_words(page: Page, annotator, case, last, first,  # type: ignore[no-untyped-def]
                                                                said) -> None:
    annotator(page, case)
    case.word(page, 0 if case is DIALOGUE else 1, last).click()
    case.word(page, 1 if case is DIALOGUE else 2, first).click()
    expect(page.locator(f"#dq-{case.question} [data-spans-said]")).to_contain_text(said)
    expect(case.marked(page)).to_have_count(0)


def test_the_keyboard_moves_across_turns_and_a_phone_does_not_scroll_sideways(new_page, annotator) -> None:  # type: ignore[no-untyped-def]
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    user_id = annotator(page, DIALOGUE)
    page.locator("#dq-personal .spans-text .sw").first.focus()
    for _ in range(13):                                   # turn 1 has 13 words: to "Sorry", the first of turn 2
        page.keyboard.press("ArrowRight")
    expect(DIALOGUE.word(page, 1, "Sorry")).to_be_focused()
    page.get_by_label("Label of the next mark").select_option("PHONE")
    DIALOGUE.word(page, 2, "0113").tap()
    DIALOGUE.word(page, 2, "0321").tap()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.get_by_role("button", name="Submit").tap()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"personal": [DIALOGUE.mark(2, "0113 496 0321", "PHONE")]}


@pytest.mark.parametrize("case", [DIALOGUE, MARKDOWN], ids=["dialogue", "markdown"])
def test_the_hit_with_a_mark_has_no_axe_violation_at_either_width(page: Page, annotator, case) -> None:  # type: ignore[no-untyped-def]
    annotator(page, case)

    def with_a_mark(page: Page) -> None:
        first, last = case.parts[1].split()[:2]
        case.word(page, 1, first.rstrip(",.")).click()
        case.word(page, 1, last.rstrip(",.")).click()
        expect(case.marked(page)).to_have_count(1)
    assert violations_at_each_width(page, f"the {case.example} HIT", with_a_mark) == []
