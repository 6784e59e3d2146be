"""Words beside the answers (annotator/declared/option_words.py) on the HIT of examples/claim_stance_likert.yaml in
headless Chromium: each option's description is shown under it and is its input's accessible description, every
scale point shows its words (a group's scale too), the keys still answer and move on, read back from the database;
axe-core finds nothing at 1280 and 375 px, where nothing scrolls sideways and every answer is a 44 px target."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import AXE, violations
from tests.browser.votes import submitted
from tests.support.declared_projects import make_declared_project, read_jsonl

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEFINITION = EXAMPLES / "claim_stance_likert.yaml"
ITEMS = read_jsonl(EXAMPLES / "claim_stance_likert_items.jsonl")
CIVIL = ["Strongly disagree", "Disagree", "Neither agree nor disagree", "Agree", "Strongly agree"]


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """The example's project with its items; logs `page` in as a new annotator on the first HIT; the user's id."""
    def open_for(page: Page) -> int:
        make_declared_project("words", DEFINITION, items=ITEMS)
        user_id = make_user("ann").id
        login(page, "ann")
        start_hit(page, "words")
        return user_id
    return open_for


def test_descriptions_and_point_words_are_read_out_and_the_keys_still_answer(page: Page, annotator) -> None:
    user_id = annotator(page)                        # 1280 px wide
    page.add_script_tag(url=AXE)
    assert violations(page, "the HIT with described options and worded scale points at 1280 px") == []
    against = page.locator("#q_stance-1")
    expect(page.locator("#dq-stance .option-description").nth(1)).to_have_text(
        "The post rejects the claim, argues against it or warns of its consequences.")
    expect(against).to_have_accessible_name("Against")   # the key hint is not read out
    expect(against).to_have_accessible_description(
        "The post rejects the claim, argues against it or warns of its consequences.")
    points = page.locator("#dq-civil label.pill")
    expect(points).to_have_count(5)
    for number, words in enumerate(CIVIL):
        expect(points.nth(number)).to_have_text(f"{number + 1} {words}")
        expect(page.locator(f"#q_civil-{number}")).to_have_accessible_name(f"{number + 1} {words}")
    expect(page.locator("#dq-aspects-0-clarity label.pill").nth(3)).to_contain_text("Very clear")
    keys = page.keyboard
    keys.press("2")                                  # stance: against; on to the scale
    expect(page.locator("#q_civil-0")).to_be_focused()
    keys.press("4")                                  # civil: Agree; on to the group
    keys.press("3")                                  # wording: Very clear (a 0-3 scale: a point's own number)
    keys.press("1")                                  # reasons: Somewhat clear
    keys.press("Enter")
    expect(page.locator("#progress-text")).to_have_text("1 / 4 done")
    [vote] = submitted(user_id)                      # a fresh session: what the server thread stored
    assert vote.answer == {"stance": "against", "civil": 4, "aspects": {"wording": {"clarity": 3},
                                                                        "reasons": {"clarity": 1}}}


def test_at_phone_width_the_page_fits_and_has_no_accessibility_violation(new_page, annotator) -> None:
    width = 375
    page = new_page(viewport={"width": width, "height": 800}, has_touch=True, is_mobile=True)
    annotator(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    pills = page.locator("fieldset.dq label.pill")
    for n in range(pills.count()):
        box = pills.nth(n).bounding_box()
        assert box is not None and box["height"] >= 43 and box["x"] + box["width"] <= width + 0.5, \
            (pills.nth(n).inner_text(), box)
    page.add_script_tag(url=AXE)
    assert violations(page, f"the HIT with described options and worded scale points at {width} px") == []
