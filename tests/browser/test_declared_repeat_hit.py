"""A declared HIT with questions repeated per element (annotator/shared_tasks/ruarg2022/stance_premise.yaml: three
questions per claim) in headless Chromium: the keyboard flow across claims, read back from the database; a claim's
stance and premise shown only once it is relevant; the phone layout; and axe-core's scan of the page."""
from __future__ import annotations

import re
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
ACTIVE = re.compile(r"\bactive\b")
ROOT = Path(__file__).resolve().parents[2]
RUARG = ROOT / "annotator" / "shared_tasks" / "ruarg2022" / "stance_premise.yaml"
SENTENCES = [{"id": "17024", "text": "Маски носить надо, это защищает и тебя, и окружающих."},
             {"id": "17031", "text": "Карантин продлили ещё на две недели."}]


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """Make the RuArg project, log `page` in as a new annotator and open the first HIT; returns the user's id."""
    def open_for(page: Page, name: str = "ann") -> int:
        make_declared_project("claims", RUARG, items=SENTENCES)
        user_id = make_user(name).id
        login(page, name)
        start_hit(page, "claims")
        return user_id
    return open_for


def asked(page: Page, claim: int, qid: str):  # type: ignore[no-untyped-def]
    return page.locator(f"#dq-claims-{claim}-{qid}")


def test_number_keys_answer_each_claim_in_turn_and_skip_the_labels_of_an_irrelevant_one(page: Page,
                                                                                       annotator) -> None:
    user_id = annotator(page)
    expect(asked(page, 0, "relevance")).to_have_class(ACTIVE)
    expect(asked(page, 0, "stance")).to_be_hidden()
    keys = page.keyboard
    keys.press("1")                                   # masks: relevant; its stance appears and takes the keys
    expect(asked(page, 0, "stance")).to_be_visible()
    expect(page.locator("#q_claims__0__stance-0")).to_be_focused()
    keys.press("1")                                   # stance: for
    keys.press("3")                                   # premise: no argument; on to the next claim
    expect(asked(page, 1, "relevance")).to_have_class(ACTIVE)
    keys.press("2")                                   # quarantine: not relevant; its labels stay hidden
    expect(asked(page, 1, "stance")).to_be_hidden()
    expect(asked(page, 2, "relevance")).to_have_class(ACTIVE)
    expect(page.locator("#q_claims__2__relevance-0")).to_be_focused()
    keys.press("2")                                   # vaccines: not relevant
    keys.press("Enter")
    expect(page.locator("#progress-text")).to_have_text("1 / 2 done")
    db.session.remove()  # what the server thread committed
    [kept] = db.session.scalars(select(Assignment).where(Assignment.user_id == user_id,
                                                         Assignment.status == SUBMITTED))
    assert kept.answer == {"claims": {"masks": {"relevance": "relevant", "stance": "2", "premise": "1"},
                                      "quarantine": {"relevance": "irrelevant"},
                                      "vaccines": {"relevance": "irrelevant"}}}


def test_tab_goes_from_a_claims_relevance_to_its_shown_questions_then_the_next_claim(page: Page, annotator) -> None:
    annotator(page)
    keys = page.keyboard
    page.locator("#q_claims__0__relevance-1").focus()   # masks: not relevant, chosen with the arrows' group
    keys.press("Space")
    keys.press("Tab")                                   # its hidden stance and premise are no Tab stops
    expect(page.locator("#q_claims__1__relevance-0")).to_be_focused()
    expect(asked(page, 1, "relevance")).to_have_class(ACTIVE)


def test_at_phone_width_nothing_scrolls_sideways_and_every_answer_is_reachable(new_page, annotator) -> None:
    page = new_page(viewport={"width": 375, "height": 740}, has_touch=True, is_mobile=True)
    annotator(page)
    for claim in range(3):
        page.locator(f"#dq-claims-{claim}-relevance label.pill").nth(0).tap()
    pills = page.locator("fieldset.dr-element fieldset.dq:visible label.pill")
    assert pills.count() == 3 * (2 + 3 + 3)
    for n in range(pills.count()):
        pill = pills.nth(n)
        pill.scroll_into_view_if_needed()
        box = pill.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375 + 0.5, pill.inner_text()
        assert box["height"] >= 43
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


@pytest.mark.parametrize("width", [1280, 375])
def test_axe_finds_no_violation_on_the_page_with_a_claims_questions_shown(new_page, annotator, width) -> None:
    page = new_page(viewport={"width": width, "height": 800})
    annotator(page)
    page.keyboard.press("1")                            # masks relevant: its stance and premise are shown
    page.locator("#q_claims__1__relevance-1").check()   # quarantine not relevant
    page.add_script_tag(url=AXE)
    assert violations(page, f"repeat HIT at {width} px") == []


DIALOGUES = ROOT / "examples" / "dialogue_turns.yaml"


def test_each_turn_of_an_items_own_list_rated_by_keys_with_a_reason_typed_where_asked(page: Page, app, make_user,
                                                                                      login) -> None:
    """examples/dialogue_turns.yaml on its item d3 (three turns): a scale, a choice, and a text question shown
    only for an unsafe turn; digits typed into the reason stay text; axe finds nothing with the reason shown."""
    make_declared_project("turns", DIALOGUES, items=[read_jsonl(DIALOGUES.with_suffix(".jsonl"))[2]])
    user_id = make_user("ann").id
    login(page, "ann")
    start_hit(page, "turns")
    keys = page.keyboard
    expect(page.locator("fieldset.dr-element")).to_have_count(3)
    keys.press("4")                                   # t1 helpful 4
    keys.press("1")                                   # t1 safe
    keys.press("1")                                   # t2 helpful 1
    keys.press("2")                                   # t2 unsafe: the reason is asked and takes the focus
    expect(page.locator("#q_turns__1__why_unsafe")).to_be_focused()
    keys.type("blocking the card breaks the terms 2 ways")
    page.add_script_tag(url=AXE)
    assert violations(page, "dialogue HIT") == []
    keys.press("Tab")                                 # on to t3
    expect(page.locator("#dq-turns-2-helpful")).to_have_class(ACTIVE)
    keys.press("5")
    keys.press("1")
    expect(page.locator("#q_turns__2__why_unsafe")).to_be_disabled()
    expect(page.locator("#dq-solved")).to_have_class(ACTIVE)
    keys.press("2")                                   # solved: partly
    keys.press("Enter")
    expect(page.locator("#hit-form")).to_have_count(0)   # the only item answered: no HIT left
    db.session.remove()
    [kept] = db.session.scalars(select(Assignment).where(Assignment.user_id == user_id,
                                                         Assignment.status == SUBMITTED))
    assert kept.answer == {"turns": {"t1": {"helpful": 4, "safe": "safe"},
                                     "t2": {"helpful": 1, "safe": "unsafe",
                                            "why_unsafe": "blocking the card breaks the terms 2 ways"},
                                     "t3": {"helpful": 5, "safe": "safe"}}, "solved": "partly"}
