"""HITs of definitions that read nested items (docs/declared-item-paths.md) in headless Chromium: the emphasis
selection over the built-in word objects is answered with the keyboard alone and stored with the words' ids as
units, and the key-point set comparison read by key paths passes the axe scan and fits 375 px."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Label
from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import AXE, violations
from tests.support.declared_projects import DECLARED, make_declared_project, read_jsonl

pytestmark = pytest.mark.browser
SHARED_TASKS = Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks"
EMPHASIS_ITEMS = read_jsonl(DECLARED / "emphasis_items.jsonl")
COMPARE_ITEMS = read_jsonl(DECLARED / "compare_items.jsonl")


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """A project of a shared task's definition holding its built-in items; logs `page` in and opens the first HIT."""
    def open_for(page: Page, definition: str, items: list[dict]) -> int:
        make_declared_project("nested", SHARED_TASKS / definition, items=items)
        user_id = make_user("ann").id
        login(page, "ann")
        start_hit(page, "nested")
        return user_id
    return open_for


def test_emphasis_over_word_objects_is_chosen_by_keyboard_and_stored_by_word_id(page: Page, annotator) -> None:
    user_id = annotator(page, "emphasis2020/selection.yaml", EMPHASIS_ITEMS)
    words = page.locator("#dq-emphasis button.word")
    expect(words).to_have_count(len(EMPHASIS_ITEMS[0]["words"]))
    expect(words.nth(0)).to_have_text(EMPHASIS_ITEMS[0]["words"][0]["text"])
    words.nth(0).focus()
    page.keyboard.press("Space")                     # the first word
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Space")                     # the third
    page.keyboard.press("Enter")
    expect(page.locator("#progress-text")).to_have_text("1 / 2 done")
    db.session.remove()   # what the server thread committed
    [kept] = db.session.scalars(select(Assignment).where(Assignment.user_id == user_id,
                                                         Assignment.status == SUBMITTED))
    # the definition keeps span boundaries (docs/declared-span-boundaries.md): the answer is stored as tags
    assert kept.answer == {"emphasis": ["B", "O", "B"] + ["O"] * (len(EMPHASIS_ITEMS[0]["words"]) - 3)}
    units = {label.unit: label.value for label in db.session.scalars(select(Label).where(
        Label.assignment_id == kept.id, Label.field == "emphasis"))}
    assert units == {word["id"]: "1" if n in (0, 2) else "0" for n, word in enumerate(EMPHASIS_ITEMS[0]["words"])}


@pytest.mark.parametrize("width", [1280, 375])
def test_the_comparison_read_by_key_paths_has_no_accessibility_violation(new_page, annotator, width: int) -> None:
    page = new_page(viewport={"width": width, "height": 800})
    annotator(page, "kpa2021/set_compare.yaml", COMPARE_ITEMS)
    expect(page.locator(".shown-list").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.add_script_tag(url=AXE)
    assert violations(page, f"the key-point set comparison at {width} px") == []
