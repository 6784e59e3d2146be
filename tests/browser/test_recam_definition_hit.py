"""The ReCAM cloze validation declared whole (annotator/shared_tasks/recam2021/cloze_selection.yaml) in headless
Chromium: the question drawn with its blank, the option chosen, one evidence mark made in the passage (its buttons
moving an edge by a character passed by Tab: the evidence takes any character) and none in the question (so the page
asks once before the submit), and the difficulty rated with the keyboard alone, read back from the database; and
axe-core finding nothing on the page, with a mark made, at 1280 and 375 px."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item
from annotator.declared.spans import word_bounds
from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import violations_at_each_width
from tests.browser.votes import submitted
from tests.conftest import DATA, load_project
from tests.support.declared_projects import make_declared_project

pytestmark = pytest.mark.browser
DEFINITION = Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks" / "recam2021" / "cloze_selection.yaml"


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """The declared project of the ReCAM dev excerpt's items (as the built-in reader gives them); `page` logged in
    as a new annotator on the first HIT. Returns the annotator's id and the item's payload."""
    def open_for(page: Page) -> tuple[int, dict]:
        built_in = load_project("recam2021", DATA / "recam2021" / "Task_1_dev_excerpt.jsonl", "cz", k=3)
        payloads = [dict(p) for p in db.session.scalars(
            select(Item.payload).where(Item.project_id == built_in.id).order_by(Item.position))]
        make_declared_project("recam", DEFINITION, items=payloads, k=3)
        user_id = make_user("ann").id
        login(page, "ann")
        start_hit(page, "recam")
        db.session.remove()   # the lease the server thread made
        lease = db.session.scalars(select(Assignment).where(Assignment.user_id == user_id)).one()
        return user_id, dict(lease.item.payload)
    return open_for


def words(page: Page, qid: str) -> Locator:
    return page.locator(f"#dq-{qid} .spans-text .sw")


def test_the_question_is_drawn_with_a_gap_read_out_as_blank(page: Page, annotator) -> None:
    annotator(page)
    gap = page.locator("#hit-form .shown-blanks .shown-blank")
    expect(gap).to_have_count(1)
    expect(gap).to_have_text("blank")
    expect(page.locator("#hit-form .shown-blanks")).not_to_contain_text("@placeholder")


def test_a_hit_done_with_the_keyboard_alone_stores_the_option_one_evidence_mark_and_the_difficulty(
        page: Page, annotator) -> None:
    user_id, payload = annotator(page)
    asked: list[str] = []   # no mark in the question: rule b drops such an answer, so the page asks first
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    keys = page.keyboard
    keys.press("Tab")
    expect(page.get_by_role("link", name="Skip to the HIT")).to_be_focused()
    keys.press("Enter")
    keys.press("3")                                       # the third option, position 2; on to the passage
    expect(words(page, "passage_span").nth(0)).to_be_focused()
    for key in ("Space", "ArrowRight", "Space"):          # the passage's first two words
        keys.press(key)
    expect(page.locator("#dq-passage_span .spans-list li")).to_have_count(1)
    keys.press("Tab")
    expect(page.locator("#dq-passage_span .span-remove")).to_be_focused()   # the mark's own Remove button
    for edge in ("start-1", "start+1", "end-1", "end+1"):  # then its buttons moving an edge by a character
        keys.press("Tab")
        expect(page.locator(f'#dq-passage_span [data-nudge="{edge}"]')).to_be_focused()
    keys.press("Tab")
    expect(words(page, "question_span").nth(0)).to_be_focused()   # the question's words: no mark made there
    keys.press("Tab")
    expect(page.locator("#q_difficulty-0")).to_be_focused()
    keys.press("2")                                       # medium
    expect(page.locator("#q_difficulty-1")).to_be_checked()
    keys.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    assert asked == ["You marked nothing in question 3. Answers without a mark there are not used. Submit anyway?"]
    [assignment] = submitted(user_id)
    first, second = word_bounds(payload["article"])[:2]
    assert assignment.answer == {"option": "2", "difficulty": "medium", "question_span": [],
                                 "passage_span": [{"start": first[0], "end": second[1], "label": "evidence"}]}


def test_the_page_with_a_mark_has_no_axe_violation_and_fits_at_either_width(page: Page, annotator) -> None:
    annotator(page)

    def with_a_mark(page: Page) -> None:
        page.locator("#hit-form label.pill").first.click()
        words(page, "question_span").nth(1).click()       # one word of the question: the first click, then the last
        words(page, "question_span").nth(1).click()
        expect(page.locator("#dq-question_span .spans-list li")).to_have_count(1)
    assert violations_at_each_width(page, "the ReCAM HIT", with_a_mark) == []
