"""A spans question over a Markdown field (examples/markdown_spans.yaml) in headless Chromium: the answer shown
formatted above, its text drawn block by block below with every word markable; a mark stored with offsets into the
seen text (read back from the database); a mark from one block into the next refused in words; axe-core finds
nothing with a mark made, at 1280 and 375 px."""
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
SEEN = ["Short answer", "The tower opened on 31 March 1889 for the World's Fair.", "It is 330 metres tall today.",
        "It was the tallest structure in the world until 1930.", "See eiffel-tower.paris for tickets."]


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    def open_for(page: Page) -> int:
        make_declared_project("answers", EXAMPLES / "markdown_spans.yaml",
                              items=read_jsonl(EXAMPLES / "markdown_spans_items.jsonl"))
        user_id = make_user("ann").id
        login(page, "ann")
        start_hit(page, "answers")
        expect(page.locator("#dq-claims .spans-text .sw").first).to_have_text("Short")
        return user_id
    return open_for


def word(page: Page, block: int, text: str) -> Locator:
    return page.locator(f"#dq-claims .spans-text [data-turn='{block}'] .sw", has_text=text).first


def mark(block: int, stretch: str, label: str) -> dict:
    before = sum(len(b) + 1 for b in SEEN[:block])
    start = before + SEEN[block].index(stretch)
    return {"start": start, "end": start + len(stretch), "label": label}


def test_the_answer_is_shown_formatted_and_a_mark_in_its_text_is_stored(page: Page, annotator) -> None:
    user_id = annotator(page)
    expect(page.locator(".shown-markdown strong").first).to_have_text("31 March 1889")   # the display: formatted
    expect(page.locator("#dq-claims .spans-text p")).to_have_text(SEEN)                  # the marking: its text
    page.get_by_label("Label of the next mark").select_option("wrong")
    word(page, 2, "330").click()
    word(page, 2, "metres").click()
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"claims": [mark(2, "330 metres", "wrong")]}


def test_a_mark_from_one_block_into_the_next_is_refused_in_words(page: Page, annotator) -> None:
    annotator(page)
    word(page, 1, "Fair").click()
    word(page, 2, "It").click()
    expect(page.locator("#dq-claims [data-spans-said]")).to_contain_text(
        "runs from block 2 into block 3; a mark stays within one block.")
    expect(page.locator("#dq-claims .spans-list li")).to_have_count(0)


def test_the_markdown_hit_with_a_mark_has_no_axe_violation_at_either_width(page: Page, annotator) -> None:
    annotator(page)
    found = []
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 800})
        page.reload()
        page.wait_for_load_state("load")
        word(page, 1, "31").click()
        word(page, 1, "1889").click()
        expect(page.locator("#dq-claims .spans-list li")).to_have_count(1)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.add_script_tag(url=AXE)
        found += violations(page, f"the Markdown spans HIT at {width} px")
    assert found == []
