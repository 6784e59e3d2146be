"""A comparison HIT with one A / B order and questions asked of each side (examples/reply_pairs.yaml,
docs/declared-sides.md) in headless Chromium: each side's card shows the reply drawn on that side, the digits answer
both cards and both comparisons in turn, the vote read back from the database; the phone layout; axe-core's scan."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Label
from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import AXE, violations
from tests.support.declared_projects import make_declared_project, read_jsonl

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FIRST = read_jsonl(EXAMPLES / "reply_pairs_items.jsonl")[0]


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    def open_for(page: Page, name: str = "ann") -> int:
        make_declared_project("replies", EXAMPLES / "reply_pairs.yaml", items=[FIRST])
        user_id = make_user(name).id
        login(page, name)
        start_hit(page, "replies")
        return user_id
    return open_for


def _lease(user_id: int) -> Assignment:
    db.session.remove()
    return db.session.scalars(select(Assignment).where(Assignment.user_id == user_id)).one()


def test_the_keys_answer_each_sides_card_then_the_comparisons_stored_under_each_model(page: Page, annotator) -> None:
    user_id = annotator(page)
    swapped = bool(_lease(user_id).presentation["swapped"])
    on_a = FIRST["reply_b"] if swapped else FIRST["reply_a"]
    expect(page.locator('#dr-each_reply-0 .side')).to_have_text(on_a)
    keys = page.keyboard
    keys.press("1")                                   # A: safe
    keys.press("4")                                   # A: fluent 4
    keys.press("2")                                   # B: unsafe
    keys.press("2")                                   # B: fluent 2
    keys.press("1")                                   # helpful: A
    keys.press("3")                                   # polite: equal
    keys.press("Enter")
    expect(page.locator("#hit-form")).to_have_count(0)   # the only item answered
    kept = _lease(user_id)
    assert kept.status == SUBMITTED
    assert kept.answer == {"each_reply": {"A": {"safe": "safe", "fluent": 4}, "B": {"safe": "unsafe", "fluent": 2}},
                           "helpful": "A", "polite": "equal"}
    model_on_a = FIRST["model_b"] if swapped else FIRST["model_a"]
    rows = {(r.unit, r.value) for r in db.session.scalars(select(Label).where(Label.assignment_id == kept.id,
                                                                             Label.field == "safe"))}
    assert (model_on_a, "safe") in rows and len(rows) == 2


@pytest.mark.parametrize("width", [1280, 375])
def test_the_sides_hit_has_no_accessibility_violation_and_no_sideways_scroll(new_page, annotator, width: int) -> None:
    page = new_page(viewport={"width": width, "height": 800})
    annotator(page)
    expect(page.locator("fieldset.dr-element")).to_have_count(2)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.add_script_tag(url=AXE)
    assert violations(page, f"the sides HIT at {width} px") == []
