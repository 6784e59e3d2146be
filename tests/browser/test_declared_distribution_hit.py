"""A declared distribution question (examples/soft_labels_sentiment.yaml) in headless Chromium on a 375 px phone
screen, by the keyboard alone: shares typed as digits and changed with the arrows, the running sum said as it
changes, a submit with a wrong sum stopped with the sum said beside the question (nothing stored), the conditional
second distribution appearing on "yes", axe-core finding nothing, and the answer read back from the database."""
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


def test_a_distribution_hit_done_by_keyboard_on_a_phone_stores_the_shares_and_has_no_axe_violation(
        new_page, make_user, login) -> None:  # type: ignore[no-untyped-def]
    make_declared_project("soft", EXAMPLES / "soft_labels_sentiment.yaml",
                          items=read_jsonl(EXAMPLES / "soft_labels_sentiment_items.jsonl"))
    user_id = make_user("ann").id
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    login(page, "ann")
    start_hit(page, "soft")
    keys = page.keyboard
    said = page.locator('[data-sum-of="sentiment"]')
    sentiment = page.locator("#dq-sentiment")
    expect(said).to_have_text("Nothing shared yet: 100 to share.")
    expect(page.locator("#dq-meant")).to_be_hidden()

    keys.press("Tab")
    expect(page.get_by_role("link", name="Skip to the HIT")).to_be_focused()
    keys.press("Enter")                                    # lands on the first option's number
    expect(sentiment.get_by_label("Positive", exact=True)).to_be_focused()
    keys.type("60")
    expect(said).to_have_text("The shares add up to 60, not 100: add 40.")
    keys.press("Tab")
    keys.type("30")
    keys.press("Tab")
    keys.type("20")
    expect(said).to_have_text("The shares add up to 110, not 100: take away 10.")

    keys.press("Enter")                                    # a wrong sum: stopped, said beside the question
    alert = sentiment.get_by_role("alert")
    expect(alert).to_have_text("The shares add up to 110, not 100: take away 10.")
    expect(sentiment.get_by_label("Positive", exact=True)).to_be_focused()
    assert submitted(user_id) == []

    keys.press("Tab")                                      # Neutral, 30: down by ten with the arrow
    for _ in range(10):
        keys.press("ArrowDown")
    expect(sentiment.get_by_label("Neutral", exact=True)).to_have_value("20")
    expect(said).to_have_text("The shares add up to 100.")
    expect(alert).to_have_count(0)                         # the stopped submit's words go once the sum is right

    keys.press("Tab")                                      # Negative, then "Is the review sarcastic?"; 2 is "yes"
    keys.press("Tab")
    keys.press("2")
    meant = page.locator("#dq-meant")
    expect(meant).to_be_visible()
    expect(page.locator('[data-sum-of="meant"]')).to_have_text("Nothing shared yet: 10 to share.")
    expect(meant.get_by_label("Praise", exact=True)).to_be_focused()   # the digit answered and moved on
    keys.type("3")
    keys.press("Tab")
    keys.type("7")
    expect(page.locator('[data-sum-of="meant"]')).to_have_text("The shares add up to 10.")

    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.add_script_tag(url=AXE)
    assert violations(page, "the distribution HIT at 375 px") == []

    keys.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"sentiment": {"positive": 60, "neutral": 20, "negative": 20}, "sarcastic": "yes",
                                 "meant": {"praise": 3, "complaint": 7}}
