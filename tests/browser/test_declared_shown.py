"""The display kinds of a declared HIT in headless Chromium: a page showing a passage with a blank, a list with its
figures and a text with highlights passes the axe scan at a laptop's and a phone's width, reads out the blank and
each highlight's label, fits 375 px, is answered with the keyboard alone, and the admin's preview draws it too."""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment
from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import AXE, violations
from tests.support.declared_projects import DECLARED, make_declared_project, read_jsonl

pytestmark = pytest.mark.browser
SHOWN_KINDS = DECLARED / "shown_kinds.yaml"
ITEMS = DECLARED / "shown_kinds.jsonl"


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """The shown-kinds project; logs `page` in as a new annotator and opens the first HIT; returns the user's id."""
    def open_for(page: Page) -> int:
        make_declared_project("shown", SHOWN_KINDS, items=read_jsonl(ITEMS))
        user_id = make_user("ann").id
        login(page, "ann")
        start_hit(page, "shown")
        return user_id
    return open_for


@pytest.mark.parametrize("width", [1280, 375])
def test_a_hit_with_every_display_kind_has_no_accessibility_violation(new_page, annotator, width: int) -> None:
    page = new_page(viewport={"width": width, "height": 800})
    annotator(page)
    expect(page.locator("#shown mark")).to_have_count(1)
    page.add_script_tag(url=AXE)
    assert violations(page, f"the shown-kinds HIT at {width} px") == []


def test_a_screen_reader_reads_the_blank_and_each_highlights_label(page: Page, annotator) -> None:
    annotator(page)
    expect(page.locator(".shown-blanks")).to_have_text(
        "Microsoft have revealed their brand - new top - blank console at a big game show in America .")
    blank = page.locator(".shown-blank")
    box = blank.bounding_box()
    assert box is not None and box["width"] >= 40            # a visible gap, not the hidden word
    expect(page.locator("#shown mark")).to_have_text("Regulation would not work: opening the door to disaster (end)")
    expect(page.locator(".shown-figure").first).to_have_text("share of the arguments: 29%")


def test_at_phone_width_nothing_scrolls_sideways(new_page, annotator) -> None:
    page = new_page(viewport={"width": 375, "height": 740}, has_touch=True, is_mobile=True)
    annotator(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    for selector in (".shown-blanks", ".shown-list", ".shown-highlighted"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375 + 0.5, selector


def test_the_hit_is_answered_with_the_keyboard_alone(page: Page, annotator) -> None:
    user_id = annotator(page)
    page.keyboard.press("3")                      # the third option: "secret"
    expect(page.locator("#q_answer-2")).to_be_checked()
    page.keyboard.press("4")                      # fits: 4
    expect(page.locator("#q_fits-3")).to_be_checked()
    page.keyboard.press("Enter")
    page.wait_for_url("**/p/shown/**")
    expect(page.locator("#shown mark")).to_have_text("matched: Freedom of speech (end)")   # the second item
    db.session.remove()
    [kept] = db.session.scalars(select(Assignment).where(Assignment.user_id == user_id,
                                                         Assignment.status == SUBMITTED))
    assert kept.answer == {"answer": "secret", "fits": 4}


def test_the_admins_preview_draws_the_display_kinds(new_page, make_user, login) -> None:
    make_user("boss", role="admin")
    page = new_page(viewport={"width": 1280, "height": 800})
    login(page, "boss")
    page.goto("/admin/projects/declared/new")
    page.get_by_label("Definition (YAML or JSON)").set_input_files(SHOWN_KINDS)
    page.get_by_label("Items (CSV, TSV or JSON Lines)").set_input_files(ITEMS)
    page.get_by_label("Slug (in URLs").fill("shown")
    page.get_by_role("button", name="Check and preview").click()
    frame = page.frame_locator("#hit-preview")
    expect(frame.locator("#shown .shown-blank")).to_have_count(1)
    expect(frame.locator("#shown mark")).to_have_text("Regulation would not work: opening the door to disaster (end)")
    expect(frame.locator("#shown .shown-figure")).to_have_count(3)
