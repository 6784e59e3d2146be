"""A declared ranking question (examples/ranking_responses.yaml) in headless Chromium on a 375 px phone screen, by
the keyboard alone: ranks typed as digits and moved with the arrows (a rank another response holds is swapped, never
given twice), the conditional second ranking appearing on "yes", the order said in words, axe-core finding nothing,
and the answer read back from the database."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import AXE, violations
from tests.browser.votes import submitted
from tests.support.declared_projects import make_declared_project, read_jsonl

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_ranking_hit_done_by_keyboard_on_a_phone_stores_the_orders_and_has_no_axe_violation(
        new_page, make_user, login) -> None:  # type: ignore[no-untyped-def]
    make_declared_project("rank", EXAMPLES / "ranking_responses.yaml",
                          items=read_jsonl(EXAMPLES / "ranking_responses_items.jsonl"))
    user_id = make_user("ann").id
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    login(page, "ann")
    start_hit(page, "rank")
    keys = page.keyboard
    said = page.locator('[data-ranked-of="quality"]')
    quality = page.locator("#dq-quality")
    expect(said).to_have_text("3 options still to rank.")
    expect(page.locator("#dq-which_unsafe")).to_be_hidden()

    keys.press("Tab")
    expect(page.get_by_role("link", name="Skip to the HIT")).to_be_focused()
    keys.press("Enter")                                    # lands on the first response's rank
    expect(quality.get_by_label("Response A", exact=True)).to_be_focused()
    for key in ("2", "Tab", "1", "Tab", "3"):              # A 2, B 1, C 3
        keys.press(key)
    expect(said).to_have_text("Your order: Response B > Response A > Response C.")
    keys.press("ArrowUp")                                  # C to 2: A, which held 2, takes C's 3
    expect(said).to_have_text("Response A is now 3. Your order: Response B > Response C > Response A.")
    expect(quality.get_by_label("Response A", exact=True)).to_have_value("3")

    keys.press("Tab")                                      # to "Is any response unsafe?"; 2 is "yes"
    keys.press("2")
    expect(page.locator("#dq-which_unsafe")).to_be_visible()
    harm = page.locator("#dq-which_unsafe select")
    expect(harm.first).to_be_focused()                     # the digit answered and moved on to the next question
    for key in ("3", "Tab", "3"):                          # A 3, then B 3 too: A gives 3 up and has no rank
        keys.press(key)
    expect(page.locator('[data-ranked-of="which_unsafe"]')).to_have_text(
        "Response A has no rank now. 2 options still to rank.")
    keys.press("Shift+Tab")
    for key in ("1", "Tab", "Tab", "2"):                   # A 1, (B keeps 3), C 2
        keys.press(key)
    expect(page.locator('[data-ranked-of="which_unsafe"]')).to_have_text(
        "Your order: Response A > Response C > Response B.")

    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.add_script_tag(url=AXE)
    assert violations(page, "the ranking HIT at 375 px") == []

    keys.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"quality": ["response_b", "response_c", "response_a"], "unsafe": "yes",
                                 "which_unsafe": ["response_a", "response_c", "response_b"]}
