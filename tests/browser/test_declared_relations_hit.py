"""A declared relations question (examples/ner_relations.yaml) in headless Chromium: names marked and then linked by
the keyboard alone on a 375 px phone screen (an add the type does not allow refused in the live line, by name), the
answer and its label rows read back from the database; at 1280 px a relation whose name is unmarked again,
relabelled or stretched (another unit each time) dropped with the live line saying so, and the answer stored without
it; axe-core finding nothing on either page, and nothing scrolling sideways at 375 px."""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Label
from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import AXE, violations
from tests.browser.votes import submitted
from tests.support.declared_projects import make_declared_project, read_jsonl

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SENTENCE = "Ada Lovelace works for Analytical Engines in London."


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """The example's project; `page` logged in as a new annotator, on the first HIT (sentence r1)."""
    def open_for(page: Page, name: str = "ann") -> int:
        make_declared_project("rel", EXAMPLES / "ner_relations.yaml",
                              items=read_jsonl(EXAMPLES / "ner_relations_items.jsonl"))
        user_id = make_user(name).id
        login(page, name)
        start_hit(page, "rel")
        expect(words(page).first).to_have_text("Ada")
        return user_id
    return open_for


def words(page: Page) -> Locator:
    return page.locator("#dq-entities .spans-text .sw")


def related(page: Page) -> Locator:
    return page.locator("#dq-links .relations-list li")


def said(page: Page) -> Locator:
    return page.locator("#dq-links [data-relations-said]")


def unit(stretch: str, label: str) -> str:
    start = SENTENCE.index(stretch)
    return f"{start}:{start + len(stretch)}:{label}"


def mark_three_names(page: Page) -> None:
    """From the page's load, by keys: Ada Lovelace (Person), Analytical Engines (Organisation), London (Place)."""
    keys = page.keyboard
    keys.press("Tab")
    expect(page.get_by_role("link", name="Skip to the HIT")).to_be_focused()
    keys.press("Enter")
    expect(page.get_by_label("Label of the next mark")).to_be_focused()
    keys.press("Tab")
    expect(words(page).nth(0)).to_be_focused()
    for key in ("1", "Space", "ArrowRight", "Space"):      # "Ada Lovelace", Person
        keys.press(key)
    for _ in range(3):
        keys.press("ArrowRight")                           # to "Analytical"
    for key in ("2", "Space", "ArrowRight", "Space"):      # "Analytical Engines", Organisation
        keys.press(key)
    for _ in range(2):
        keys.press("ArrowRight")                           # to "London"
    for key in ("3", "Space", "Space"):                    # "London", Place
        keys.press(key)
    expect(page.locator("#dq-entities .spans-list li")).to_have_count(3)


def test_relations_added_by_keyboard_on_a_phone_are_stored_with_their_ends(new_page, annotator) -> None:  # type: ignore[no-untyped-def]
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    user_id = annotator(page)
    keys = page.keyboard
    mark_three_names(page)
    start, kind, end = (page.get_by_label("From"), page.get_by_label("Relation", exact=True),
                        page.get_by_label("To", exact=True))
    for _ in range(4):                                     # past the three marks' Remove buttons
        keys.press("Tab")
    expect(start).to_be_focused()
    expect(start).to_have_value(unit("Ada Lovelace", "PER"))       # the first mark, and the next one at the end
    expect(end).to_have_value(unit("Analytical Engines", "ORG"))
    expect(kind).to_have_value("works_for")
    for _ in range(3):
        keys.press("Tab")
    expect(page.get_by_role("button", name="Add relation")).to_be_focused()
    keys.press("Space")
    expect(related(page)).to_have_text(["“Ada Lovelace” (Person) works for “Analytical Engines” (Organisation) "
                                        "Remove"])
    keys.press("Shift+Tab")
    keys.press("Shift+Tab")
    expect(kind).to_be_focused()
    keys.press("ArrowDown")                                # is located in, from a person: refused, said why
    expect(kind).to_have_value("located_in")
    keys.press("Tab")
    keys.press("Tab")
    keys.press("Space")
    expect(said(page)).to_have_text("Not added: “is located in” goes from Organisation or Place, not from Person "
                                    "(“Ada Lovelace”).")
    expect(related(page)).to_have_count(1)
    for _ in range(3):
        keys.press("Shift+Tab")
    expect(start).to_be_focused()
    keys.press("ArrowDown")                                # from "Analytical Engines"
    expect(start).to_have_value(unit("Analytical Engines", "ORG"))
    keys.press("Tab")
    keys.press("Tab")
    keys.press("ArrowDown")                                # to "London"
    expect(end).to_have_value(unit("London", "LOC"))
    keys.press("Tab")
    keys.press("Space")
    expect(related(page)).to_have_count(2)
    expect(said(page)).to_have_text("Added: “Analytical Engines” (Organisation) is located in “London” (Place).")
    keys.press("Space")                                    # the same again: refused
    expect(said(page)).to_have_text("Not added: This relation is listed already.")

    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.add_script_tag(url=AXE)
    assert violations(page, "the relations HIT at 375 px") == []

    keys.press("Shift+Tab")                                # on a select, Enter submits
    keys.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)   # a fresh session: what the server thread stored
    assert assignment.answer["links"] == [
        {"from": unit("Ada Lovelace", "PER"), "to": unit("Analytical Engines", "ORG"), "label": "works_for"},
        {"from": unit("Analytical Engines", "ORG"), "to": unit("London", "LOC"), "label": "located_in"}]
    rows = {label.unit: label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id, Label.field == "links"))}
    assert rows == {"0:12:PER->23:41:ORG": "works_for", "23:41:ORG->45:51:LOC": "located_in"}


def test_a_relation_whose_name_is_unmarked_is_dropped_and_said(page: Page, annotator) -> None:
    user_id = annotator(page)
    mark_three_names(page)
    page.get_by_role("button", name="Add relation").click()   # Ada Lovelace works for Analytical Engines
    page.get_by_label("From").select_option(unit("Analytical Engines", "ORG"))
    page.get_by_label("Relation", exact=True).select_option("located_in")
    page.get_by_label("To", exact=True).select_option(unit("London", "LOC"))
    page.get_by_role("button", name="Add relation").click()
    expect(related(page)).to_have_count(2)
    page.add_script_tag(url=AXE)
    assert violations(page, "the relations HIT at 1280 px, two relations") == []

    page.get_by_role("button", name="Remove “London”, Place").click()
    expect(related(page)).to_have_text(["“Ada Lovelace” (Person) works for “Analytical Engines” (Organisation) "
                                        "Remove"])
    expect(said(page)).to_have_text("A relation was removed: one of its names is no longer marked.")
    expect(page.get_by_label("To", exact=True).locator("option")).to_have_count(2)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer["links"] == [
        {"from": unit("Ada Lovelace", "PER"), "to": unit("Analytical Engines", "ORG"), "label": "works_for"}]


def two_relations(page: Page) -> None:
    """Ada Lovelace works for Analytical Engines; Analytical Engines is located in London (by the mouse)."""
    mark_three_names(page)
    page.get_by_role("button", name="Add relation").click()
    page.get_by_label("From").select_option(unit("Analytical Engines", "ORG"))
    page.get_by_label("Relation", exact=True).select_option("located_in")
    page.get_by_label("To", exact=True).select_option(unit("London", "LOC"))
    page.get_by_role("button", name="Add relation").click()
    expect(related(page)).to_have_count(2)


def test_a_relation_whose_name_is_relabelled_is_dropped_and_said(page: Page, annotator) -> None:
    """A relation names its ends by their marks' units, label included: relabelled, the mark is another unit."""
    user_id = annotator(page)
    two_relations(page)
    words(page).nth(7).focus()                             # "London", Place
    page.keyboard.press("2")                               # now an Organisation
    expect(page.locator("#dq-entities [data-spans-said]")).to_have_text("“London” is now Organisation.")
    expect(related(page)).to_have_text(["“Ada Lovelace” (Person) works for “Analytical Engines” (Organisation) "
                                        "Remove"])
    expect(said(page)).to_have_text("A relation was removed: one of its names is no longer marked.")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    assert assignment.answer["entities"][-1] == {"start": SENTENCE.index("London"),
                                                 "end": SENTENCE.index("London") + len("London"), "label": "ORG"}
    assert assignment.answer["links"] == [
        {"from": unit("Ada Lovelace", "PER"), "to": unit("Analytical Engines", "ORG"), "label": "works_for"}]


def test_a_relation_whose_name_is_stretched_is_dropped_and_said(page: Page, annotator) -> None:
    """Shift+Arrow on the last mark's edge moves it ("in London"): another unit, so its relation goes."""
    user_id = annotator(page)
    two_relations(page)
    words(page).nth(7).focus()                             # "London", the last mark made
    page.keyboard.press("Shift+ArrowLeft")                 # stretched over "in"
    expect(page.locator("#dq-entities .spans-list li")).to_have_count(3)
    expect(related(page)).to_have_count(1)
    expect(said(page)).to_have_text("A relation was removed: one of its names is no longer marked.")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [assignment] = submitted(user_id)
    moved = assignment.answer["entities"][-1]
    assert (moved["start"], moved["end"], moved["label"]) == (SENTENCE.index("in London"),
                                                              SENTENCE.index("London") + len("London"), "LOC")
    assert assignment.answer["links"] == [
        {"from": unit("Ada Lovelace", "PER"), "to": unit("Analytical Engines", "ORG"), "label": "works_for"}]
