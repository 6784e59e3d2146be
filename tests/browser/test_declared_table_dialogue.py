"""The `table` and `dialogue` display kinds in headless Chromium: the examples' HITs pass the axe scan at a
laptop's and a phone's width, a wide table scrolls inside its region (never the page) and the keyboard reaches
that region, the speakers' turns sit on two sides, and the dialogue HIT is answered with the keyboard alone."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment
from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import AXE, violations
from tests.support.declared_projects import make_declared_project, read_jsonl

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TABLE, TABLE_ITEMS = EXAMPLES / "table_claim_check.yaml", EXAMPLES / "table_claim_check_items.jsonl"
DIALOGUE, DIALOGUE_ITEMS = EXAMPLES / "dialogue_quality.yaml", EXAMPLES / "dialogue_quality_items.jsonl"
# A real place name of 58 letters: a word is never cut inside, so the table is wider than a phone.
WIDE = [{"city": "Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch", "country": "United Kingdom",
         "population": 3, "capital": False}, {"city": "Cardiff", "country": "United Kingdom", "population": 360,
                                              "capital": True}]


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """Both examples as projects (the table's first item made wide); logs `page` in as a new annotator and opens
    the project `slug`'s first HIT; returns the user's id."""
    def open_for(page: Page, slug: str) -> int:
        table_items = read_jsonl(TABLE_ITEMS)
        table_items[0]["table"] = WIDE
        make_declared_project("cities", TABLE, items=table_items)
        make_declared_project("talk", DIALOGUE, items=read_jsonl(DIALOGUE_ITEMS))
        user_id = make_user("ann").id
        login(page, "ann")
        start_hit(page, slug)
        return user_id
    return open_for


@pytest.mark.parametrize("width", [1280, 375])
@pytest.mark.parametrize("slug", ["cities", "talk"])
def test_the_hit_has_no_accessibility_violation(new_page, annotator, width: int, slug: str) -> None:
    page = new_page(viewport={"width": width, "height": 800})
    annotator(page, slug)
    expect(page.locator(".shown-table, .shown-dialogue")).to_have_count(1)
    page.add_script_tag(url=AXE)
    assert violations(page, f"the {slug} HIT at {width} px") == []


def test_at_phone_width_a_wide_table_scrolls_inside_its_region_which_the_keyboard_reaches(new_page, annotator):
    page = new_page(viewport={"width": 375, "height": 740}, has_touch=True, is_mobile=True)
    annotator(page, "cities")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    region = page.get_by_role("region", name="The table")
    assert region.evaluate("e => e.scrollWidth > e.clientWidth")          # the table is wider than the phone
    for _ in range(20):
        page.keyboard.press("Tab")
        if region.evaluate("e => e === document.activeElement"):
            break
    expect(region).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.querySelector('.shown-table').scrollLeft > 0")


def test_each_speaker_keeps_a_side_and_the_turns_fit_a_phone(new_page, annotator):
    page = new_page(viewport={"width": 375, "height": 740}, has_touch=True, is_mobile=True)
    annotator(page, "talk")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    boxes = [page.locator(".shown-turn").nth(n).bounding_box() for n in range(3)]
    assert all(b is not None and b["x"] >= 0 and b["x"] + b["width"] <= 375.5 for b in boxes)
    user, assistant, user_again = (b["x"] for b in boxes if b is not None)
    assert assistant > user and user_again == user                          # the assistant on the other side
    expect(page.locator(".shown-speaker").first).to_have_text("User:")


def test_the_dialogue_hit_is_answered_with_the_keyboard_alone(page: Page, annotator) -> None:
    user_id = annotator(page, "talk")
    page.keyboard.press("4")                      # coherent: 4
    expect(page.locator("#q_coherent-3")).to_be_checked()
    page.keyboard.press("1")                      # solved: yes
    expect(page.locator("#q_solved-0")).to_be_checked()
    first = page.locator(".shown-turn-text").first.inner_text()
    page.keyboard.press("Enter")
    expect(page.locator(".shown-turn-text").first).not_to_have_text(first)   # the next HIT
    db.session.remove()
    [kept] = db.session.scalars(select(Assignment).where(Assignment.user_id == user_id,
                                                         Assignment.status == SUBMITTED))
    assert kept.answer == {"coherent": 4, "solved": "yes"}
