"""A declared span question with `boundaries: true` (examples/span_boundaries.yaml) in headless Chromium: two
selected neighbours are one span until S, | or a click on the cut between them splits them; the tags stored are
read back from the database; the split is shown and announced; it works by keyboard alone and by taps at 375 px;
axe-core finds nothing on the page with spans split, at 1280 and 375 px."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Label
from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import violations_at_each_width
from tests.browser.votes import submitted
from tests.support.declared_projects import make_declared_project, read_jsonl

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# The first item: "Life is defined more by its risks than by its samenesses ." (12 words)


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """The example's project; `page` logged in as a new annotator, on the first HIT (item Q_0)."""
    def open_for(page: Page, name: str = "ann") -> int:
        make_declared_project("phrases", EXAMPLES / "span_boundaries.yaml",
                              items=read_jsonl(EXAMPLES / "span_boundaries_items.jsonl"))
        user_id = make_user(name).id
        login(page, name)
        start_hit(page, "phrases")
        expect(words(page).first).to_have_text("Life")
        return user_id
    return open_for


def words(page: Page) -> Locator:
    return page.locator("#dq-phrases button.word")


def gap_before(page: Page, position: int) -> Locator:
    return page.locator(f'#dq-phrases button.gap[data-gap="{position}"]')


def found(page: Page) -> Locator:
    return page.locator("#dq-phrases [data-boundaries-of]")


def test_the_keyboard_alone_splits_two_neighbours_into_two_spans_and_stores_the_tags(page: Page, annotator) -> None:
    user_id = annotator(page)
    keys = page.keyboard
    words(page).nth(0).focus()
    for _ in range(6):
        keys.press("ArrowRight")                     # to "risks"
    expect(words(page).nth(6)).to_be_focused()
    keys.press("Space")                              # risks
    keys.press("ArrowRight")
    keys.press("Space")                              # than: one span [risks than]
    expect(found(page)).to_have_text("1 span: [risks than]")
    keys.press("s")                                  # split before "than"
    expect(found(page)).to_have_text("2 spans: [risks] [than]")
    expect(gap_before(page, 7)).to_have_attribute("aria-pressed", "true")
    keys.press("|")                                  # and joined again ...
    expect(found(page)).to_have_text("1 span: [risks than]")
    keys.press("S")                                  # ... and split for good
    keys.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    tags = ["O"] * 6 + ["B", "B"] + ["O"] * 4
    assert assignment.answer == {"phrases": tags}
    rows = db.session.execute(select(Label.field, Label.unit, Label.value)
                              .where(Label.assignment_id == assignment.id)).all()
    assert sorted((unit, value) for field, unit, value in rows if field == "phrases.bio") == \
        sorted((str(n), tag) for n, tag in enumerate(tags))
    assert sorted(unit for field, unit, value in rows if field == "phrases" and value == "1") == ["6", "7"]


def test_splitting_where_no_span_continues_says_why_and_changes_nothing(page: Page, annotator) -> None:
    annotator(page)
    words(page).nth(0).click()
    words(page).nth(2).focus()
    page.keyboard.press("s")
    expect(found(page)).to_have_text("A span can only be split between two selected words.")
    expect(gap_before(page, 2)).to_be_disabled()


def test_deselecting_a_word_forgets_the_split_beside_it(page: Page, annotator) -> None:
    annotator(page)
    for n in (0, 1):
        words(page).nth(n).click()
    gap_before(page, 1).click()
    expect(found(page)).to_have_text("2 spans: [Life] [is]")
    words(page).nth(1).click()
    words(page).nth(1).click()
    expect(found(page)).to_have_text("1 span: [Life is]")


def test_on_a_phone_taps_select_and_split_without_scrolling_sideways(new_page, annotator) -> None:  # type: ignore[no-untyped-def]
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    user_id = annotator(page)
    for n in (9, 10):
        words(page).nth(n).tap()
    gap_before(page, 10).tap()
    expect(found(page)).to_have_text("2 spans: [its] [samenesses]")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.get_by_role("button", name="Submit").tap()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer == {"phrases": ["O"] * 9 + ["B", "B", "O"]}


def test_the_page_with_split_spans_has_no_axe_violation_at_either_width(page: Page, annotator) -> None:
    annotator(page)

    def split(page: Page) -> None:
        for n in (4, 5, 6):
            words(page).nth(n).click()
        gap_before(page, 6).click()
        expect(found(page)).to_have_text("2 spans: [by its] [risks]")
    assert violations_at_each_width(page, "the span boundaries HIT", split) == []


WHEN = """name: Phrases, when there are some
show: [{field: text, label: Text}]
questions:
  - {id: stands_out, kind: choice, prompt: "Does anything stand out?", options: ["yes", "no"]}
  - {id: phrases, kind: span, of: text, boundaries: true, when: {stands_out: "yes"}}
  - {id: sure, kind: choice, prompt: "How sure are you?", options: [sure, unsure]}
"""


@pytest.fixture
def with_when(app, make_user, login):  # type: ignore[no-untyped-def]
    def open_for(page: Page) -> int:
        make_declared_project("phrases", WHEN, items=read_jsonl(EXAMPLES / "span_boundaries_items.jsonl")[:1])
        user_id = make_user("ann").id
        login(page, "ann")
        start_hit(page, "phrases")
        return user_id
    return open_for


def test_a_refused_submit_brings_the_split_spans_back(page: Page, with_when) -> None:
    user_id = with_when(page)
    page.keyboard.press("1")                               # yes: the words are asked for
    for n in (6, 7):
        words(page).nth(n).click()
    page.keyboard.press("s")                               # [risks] [than]
    page.locator("#submit").click()                        # "How sure" is not answered: refused
    expect(page.locator("#dq-sure .error")).to_have_text("Please answer this question.")
    expect(found(page)).to_have_text("2 spans: [risks] [than]")
    expect(gap_before(page, 7)).to_have_attribute("aria-pressed", "true")
    page.locator("#q_sure-0").check()
    page.locator("#submit").click()
    expect(page.locator("#hit-form")).to_have_count(0)     # the project's one item is done
    [assignment] = submitted(user_id)
    assert assignment.answer == {"stands_out": "yes", "phrases": ["O"] * 6 + ["B", "B"] + ["O"] * 4,
                                 "sure": "sure"}


def test_a_hidden_question_sends_nothing_and_its_splits_start_afresh(page: Page, with_when) -> None:
    with_when(page)
    page.keyboard.press("1")
    for n in (6, 7):
        words(page).nth(n).click()
    page.keyboard.press("s")
    page.locator("#q_stands_out-1").check()                # no: hidden, its field disabled and empty
    expect(page.locator("#q_phrases")).to_be_disabled()
    expect(page.locator("#q_phrases")).to_have_value("")
    page.locator("#q_stands_out-0").check()                # yes again: nothing selected, no cut pressed
    expect(page.locator("#q_phrases")).to_have_value(json_tags(["O"] * 12))
    expect(found(page)).to_have_text("No span yet.")
    expect(gap_before(page, 7)).to_be_disabled()


def json_tags(tags: list[str]) -> str:
    return "[" + ",".join(f'"{t}"' for t in tags) + "]"
