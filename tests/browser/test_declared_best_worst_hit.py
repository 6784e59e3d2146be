"""A declared best-worst question (examples/best_worst_sentiment.yaml) in headless Chromium on a 375 px phone screen,
by the keyboard alone: the question waits for "the reviews can be compared", the best and the worst are chosen in
their two radio groups with the arrows (the review picked in one group is skipped in the other, and the picks are
said in words), axe-core finds nothing, and the answer is read back from the database."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotator.declared.definition_reader import definition_from_file
from annotator.declared.items import read_items
from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import AXE, violations
from tests.browser.votes import submitted
from tests.support.declared_projects import make_declared_project

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_best_worst_hit_done_by_keyboard_on_a_phone_stores_the_picks_and_has_no_axe_violation(
        new_page, make_user, login) -> None:  # type: ignore[no-untyped-def]
    definition = definition_from_file(EXAMPLES / "best_worst_sentiment.yaml")
    items = read_items(EXAMPLES / "best_worst_sentiment_items.jsonl", definition)
    make_declared_project("bws", definition, items=[{"id": i.external_id, **i.payload} for i in items])
    ids = [m["id"] for m in items[0].payload["tuple"]]
    user_id = make_user("ann").id
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    login(page, "ann")
    start_hit(page, "bws")
    keys = page.keyboard
    positive = page.locator("#dq-positive")
    expect(positive).to_be_hidden()

    keys.press("Tab")
    expect(page.get_by_role("link", name="Skip to the HIT")).to_be_focused()
    keys.press("Enter")                                    # lands on "Can the four reviews be compared?"
    keys.press("1")                                        # yes: the best-worst question appears, and has the focus
    expect(positive).to_be_visible()
    best = positive.get_by_role("radiogroup", name="Most positive")
    worst = positive.get_by_role("radiogroup", name="Least positive")
    expect(best.get_by_role("radio", name="Review 1")).to_be_focused()
    keys.press("ArrowDown")                                # best: Review 2
    expect(best.get_by_role("radio", name="Review 2")).to_be_checked()
    expect(worst.get_by_role("radio", name="Review 2")).to_be_disabled()   # never both
    keys.press("Tab")                                      # to the worst group, on its first review
    keys.press("Space")
    keys.press("ArrowDown")                                # skips Review 2, the best: worst is Review 3
    expect(worst.get_by_role("radio", name="Review 3")).to_be_checked()
    keys.press("Shift+Tab")                                # back to the best group
    keys.press("ArrowDown")                                # skips Review 3, the worst: best is Review 4
    expect(best.get_by_role("radio", name="Review 4")).to_be_checked()
    expect(page.locator('[data-picked-of="positive"]')).to_have_text(
        "Most positive: Review 4; Least positive: Review 3.")

    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.add_script_tag(url=AXE)
    assert violations(page, "the best-worst HIT at 375 px") == []

    keys.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"comparable": "yes", "positive": {"best": ids[3], "worst": ids[2]}}
