"""A graded pairwise question (examples/graded_pairwise_responses.yaml) in headless Chromium on a 375 px phone screen,
by the keyboard alone: a digit picks a grade of seven (and moves on), the arrows move between the grades, the
three-grade question's tie in its own words, axe-core finding nothing, no sideways scroll, and the answer read back
from the database as shown with its label rows in the item's terms."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Label
from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import AXE, violations
from tests.browser.votes import submitted
from tests.support.declared_projects import make_declared_project, read_jsonl

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_graded_hit_done_by_keyboard_on_a_phone_stores_the_grades_and_has_no_axe_violation(
        new_page, make_user, login) -> None:  # type: ignore[no-untyped-def]
    make_declared_project("graded", EXAMPLES / "graded_pairwise_responses.yaml",
                          items=read_jsonl(EXAMPLES / "graded_pairwise_responses_items.jsonl")[:1])
    user_id = make_user("ann").id
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    login(page, "ann")
    start_hit(page, "graded")
    keys = page.keyboard
    preference = page.locator("#dq-preference")
    expect(preference.get_by_role("radio")).to_have_count(7)

    keys.press("Tab")
    expect(page.get_by_role("link", name="Skip to the HIT")).to_be_focused()
    keys.press("Enter")                                    # lands on the first grade
    expect(preference.get_by_role("radio", name="A is much better")).to_be_focused()
    keys.press("6")                                        # B is better; the digit moves on to the next question
    expect(preference.get_by_role("radio", name="B is better")).to_be_checked()
    correctness = page.locator("#dq-correctness")
    expect(correctness.get_by_role("radio", name="A is more correct")).to_be_focused()
    keys.press("ArrowRight")                               # the arrows move between the grades, choosing the tie
    expect(correctness.get_by_role("radio", name="Both equally correct")).to_be_checked()

    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.add_script_tag(url=AXE)
    assert violations(page, "the graded pairwise HIT at 375 px") == []

    keys.press("Enter")
    expect(page.locator("#hit-form")).to_have_count(0)     # the only item answered
    [assignment] = submitted(user_id)
    assert assignment.answer == {"preference": "B2", "correctness": "equal"}
    swapped = "preference" in ((assignment.presentation or {}).get("swapped") or ())
    rows = {label.field: label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id))}
    assert (rows["preference"], rows["preference.grade"]) == (("A", "-2") if swapped else ("B", "2"))
    assert (rows["correctness"], rows["correctness.grade"]) == ("equal", "0")
