"""A spans question with a severity per mark (examples/mqm_errors.yaml) in headless Chromium on a 375 px phone screen,
by the keyboard alone: a mark made takes the first severity, its select in the list changes it, axe-core finds
nothing, and the answer is read back from the database."""
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


def test_a_severity_chosen_by_keyboard_on_a_phone_is_stored_with_its_mark(new_page, make_user, login) -> None:  # type: ignore[no-untyped-def]
    make_declared_project("mqm", EXAMPLES / "mqm_errors.yaml",
                          items=read_jsonl(EXAMPLES / "mqm_errors_items.jsonl")[:2])
    user_id = make_user("ann").id
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    login(page, "ann")
    start_hit(page, "mqm")
    keys = page.keyboard
    words = page.locator("#dq-errors .spans-text .sw")
    expect(words.first).to_have_text("The")
    keys.press("Tab")
    keys.press("Enter")                                    # skip to the HIT: the label box
    expect(page.get_by_label("Label of the next mark")).to_be_focused()
    keys.press("Tab")
    expect(words.nth(0)).to_be_focused()
    for key in ("ArrowRight", "Space", "Space"):           # "cat", accuracy (the first label)
        keys.press(key)
    severity = page.get_by_label("Severity of “cat”")
    expect(severity).to_have_value("minor")                # a new mark takes the first value
    keys.press("Tab")                                      # the mark's Remove button, then its severity
    keys.press("Tab")
    expect(severity).to_be_focused()
    keys.press("ArrowDown")
    keys.press("ArrowDown")
    expect(severity).to_have_value("critical")
    expect(page.locator("#dq-errors [data-spans-said]")).to_have_text("“cat”: Severity critical.")

    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.add_script_tag(url=AXE)
    assert violations(page, "the spans HIT with a severity at 375 px") == []

    page.get_by_role("button", name="Submit").focus()
    keys.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"errors": [{"start": 4, "end": 7, "label": "accuracy", "severity": "critical"}]}
