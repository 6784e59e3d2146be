"""A declared campaign's HIT in headless Chromium: every question kind answered with the keyboard alone and read
back from the database, the question shown only after a given answer, errors beside their question, crowd text
shown as text, and the phone layout."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Label
from tests.browser.conftest import start_hit
from tests.browser.votes import submitted
from tests.support.declared_projects import make_declared_project

pytestmark = pytest.mark.browser
ACTIVE = re.compile(r"\bactive\b")


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """Make the every-kind project (or one of the given items), log `page` in as a new annotator and open the
    first HIT; returns the annotator's id."""
    def open_for(page: Page, name: str = "ann", items: list[dict] | None = None) -> int:
        make_declared_project("quotes", items=items)
        user_id = make_user(name).id
        login(page, name)
        start_hit(page, "quotes")
        return user_id
    return open_for


def question(page: Page, qid: str):  # type: ignore[no-untyped-def]
    return page.locator(f"#dq-{qid}")


def test_every_kind_answered_with_the_keyboard_alone_is_stored(page: Page, annotator) -> None:
    user_id = annotator(page)
    expect(question(page, "sentiment")).to_have_class(ACTIVE)
    expect(question(page, "cues")).to_be_hidden()
    keys = page.keyboard
    keys.press("3")                                   # sentiment: positive; moves on to "sarcastic"
    expect(page.locator("#q_sentiment-2")).to_be_checked()
    expect(page.locator("#q_sarcastic-0")).to_be_focused()
    keys.press("1")                                   # sarcastic: yes, which shows "cues"
    expect(question(page, "cues")).to_be_visible()
    words = question(page, "cues").locator("button.word")
    expect(words.nth(0)).to_be_focused()
    keys.press("Space")                               # word 0
    keys.press("ArrowRight")
    keys.press("ArrowRight")
    keys.press("Space")                               # word 2
    expect(words.nth(0)).to_have_attribute("aria-pressed", "true")
    expect(words.nth(1)).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#q_cues")).to_have_value("[0,2]")
    keys.press("Tab")                                 # on to the boxes of "themes"
    expect(question(page, "themes")).to_have_class(ACTIVE)
    keys.press("1")                                   # life
    keys.press("3")                                   # work
    keys.press("2")
    keys.press("2")                                   # love ticked and unticked again
    expect(page.locator("#q_themes-0")).to_be_checked()
    expect(page.locator("#q_themes-1")).not_to_be_checked()
    expect(page.locator("#q_themes-2")).to_be_checked()
    keys.press("Tab")                                 # one Tab from the boxes: on to the scale
    expect(question(page, "intensity")).to_have_class(ACTIVE)
    keys.press("4")                                   # intensity 4; moves on to "better"
    keys.press("1")                                   # better: A; moves on to the comment
    expect(page.locator("#q_comment")).to_be_focused()
    keys.type("fine, 1 2 3")                          # digits typed into text stay text
    keys.press("Enter")
    expect(page.locator("#progress-text")).to_have_text("1 / 3 done")

    [assignment] = submitted(user_id)  # a fresh session: what the server thread stored
    assert assignment.answer == {"sentiment": "positive", "sarcastic": "yes", "cues": [0, 2],
                                 "themes": ["life", "work"], "intensity": 4, "better": "A", "comment": "fine, 1 2 3"}
    labels = {(label.field, label.unit): label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id))}
    swapped = "better" in ((assignment.presentation or {}).get("swapped") or [])
    assert labels[("sentiment", "sentiment")] == "positive"
    assert labels[("cues", "0")] == "1" and labels[("cues", "1")] == "0" and labels[("cues", "2")] == "1"
    assert labels[("themes", "work")] == "1" and labels[("themes", "nature")] == "0"
    assert labels[("intensity", "intensity")] == "4"
    assert labels[("better", '["Q_0", "S_1"]')] == ("B" if swapped else "A")  # in the item's terms
    assert labels[("comment", "comment")] == "fine, 1 2 3"


def test_the_when_question_follows_the_earlier_answer_and_is_cleared_when_hidden(page: Page, annotator) -> None:
    annotator(page)
    cues = question(page, "cues")
    expect(cues).to_be_hidden()
    page.locator("#q_sarcastic-0").check()           # yes
    expect(cues).to_be_visible()
    cues.locator("button.word").nth(1).click()
    expect(page.locator("#q_cues")).to_have_value("[1]")
    page.locator("#q_sarcastic-1").check()           # no
    expect(cues).to_be_hidden()
    expect(page.locator("#q_cues")).to_be_disabled()
    page.locator("#q_sarcastic-0").check()           # yes again: shown afresh, nothing selected
    expect(cues).to_be_visible()
    expect(page.locator("#q_cues")).to_have_value("[]")
    expect(cues.locator("button.word").nth(1)).to_have_attribute("aria-pressed", "false")


def test_a_partial_answer_shows_the_errors_beside_their_questions(page: Page, annotator) -> None:
    user_id = annotator(page)
    page.keyboard.press("2")                         # sentiment only
    page.locator("#q_themes-0").check()
    page.locator("#q_themes__none").check()          # the script unticks the options...
    expect(page.locator("#q_themes-0")).not_to_be_checked()
    page.keyboard.press("Enter")
    expect(question(page, "sarcastic").locator(".error")).to_have_text("Please answer this question.")
    expect(question(page, "intensity").locator(".error")).to_have_text("Please answer this question.")
    expect(question(page, "better").locator(".error")).to_have_text("Please answer this question.")
    expect(question(page, "themes").locator(".error")).to_have_count(0)
    expect(question(page, "comment").locator(".error")).to_have_count(0)
    expect(page.locator("#q_sentiment-1")).to_be_checked()  # what was given is kept
    expect(page.locator("#q_sarcastic-0")).to_be_focused()  # the first question with an error has the keys
    assert submitted(user_id) == []


def test_none_with_an_option_is_refused_beside_the_question_without_the_script(page: Page, annotator) -> None:
    """The script keeps "none" and the options apart; the server refuses them together all the same."""
    user_id = annotator(page)
    page.locator("#q_sentiment-0").check()
    page.locator("#q_sarcastic-1").check()
    page.locator("#q_intensity-2").check()
    page.locator("#q_better-0").check()
    page.evaluate("document.getElementById('q_themes-0').checked = true;"
                  "document.getElementById('q_themes__none').checked = true;")
    page.locator("#submit").press("Enter")
    expect(question(page, "themes").locator(".error")).to_have_text(
        '"None of these" cannot be combined with an option.')
    assert submitted(user_id) == []


def test_crowd_text_is_shown_as_text(page: Page, annotator) -> None:
    text = "<script>document.title='owned'</script> <img src=x onerror=alert(1)>"
    annotator(page, items=[{"id": "X", "text": text, "other": "plain", "text_id": "X", "other_id": "Y"}])
    expect(page.locator("#shown .shown-text").first).to_have_text(text)
    expect(page.locator("#shown img")).to_have_count(0)
    assert page.title() == "Quotes - tone, cues and pairs"


def test_at_phone_width_nothing_scrolls_sideways_and_every_control_is_reachable(new_page, annotator) -> None:
    page = new_page(viewport={"width": 375, "height": 740}, has_touch=True, is_mobile=True)
    annotator(page)
    page.locator("#q_sarcastic-0").tap()             # show the span question too
    expect(question(page, "cues")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    # The two sides of the pairwise question stack.
    sides = question(page, "better").locator(".side")
    a, b = sides.nth(0).bounding_box(), sides.nth(1).bounding_box()
    assert a and b and b["y"] >= a["y"] + a["height"] - 1
    controls = page.locator("fieldset.dq:visible label.pill, fieldset.dq:visible button.word, #q_comment, #submit, "
                            "details > summary")
    assert controls.count() > 20
    for n in range(controls.count()):
        control = controls.nth(n)
        control.scroll_into_view_if_needed()
        box = control.bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= 375 + 0.5, control.inner_text()
        assert box["height"] >= 43, (control.inner_text(), box)
    # Tapping works as well as keys: a scale point, a box, a word.
    page.locator("#dq-intensity label.pill").nth(4).tap()
    expect(page.locator("#q_intensity-4")).to_be_checked()
    question(page, "cues").locator("button.word").nth(0).tap()
    expect(page.locator("#q_cues")).to_have_value("[0]")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_tab_moves_from_a_box_question_to_the_next_question_in_one_press(page: Page, annotator) -> None:
    annotator(page)
    page.locator("#q_themes-0").focus()
    page.keyboard.press("Tab")
    expect(question(page, "intensity")).to_have_class(ACTIVE)
    expect(page.locator("#q_intensity-0")).to_be_focused()


def test_the_arrows_move_between_the_boxes_and_space_ticks_one(page: Page, annotator) -> None:
    annotator(page)
    page.locator("#q_themes-0").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#q_themes-2")).to_be_focused()
    page.keyboard.press("Space")
    expect(page.locator("#q_themes-2")).to_be_checked()
    page.keyboard.press("Shift+Tab")                  # back out of the group, and in again: on the box last used
    page.keyboard.press("Tab")
    expect(page.locator("#q_themes-2")).to_be_focused()


def test_a_scale_of_five_points_stays_on_one_row_at_phone_width(new_page, annotator) -> None:
    page = new_page(viewport={"width": 375, "height": 740}, has_touch=True, is_mobile=True)
    annotator(page)
    points = question(page, "intensity").locator("label.pill")
    expect(points).to_have_count(5)
    tops = {round(points.nth(n).bounding_box()["y"]) for n in range(5)}
    assert len(tops) == 1, tops
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_a_screen_reader_names_each_scale_point_by_its_number_once(page: Page, annotator) -> None:
    annotator(page)
    scale = question(page, "intensity")
    for n in range(1, 6):
        expect(scale.get_by_role("radio", name=str(n), exact=True)).to_have_count(1)
    expect(scale.locator("label.pill").first).to_have_text("1")


def test_a_screen_reader_names_a_choice_by_its_label_without_the_key_digit(page: Page, annotator) -> None:
    annotator(page)
    expect(question(page, "sentiment").get_by_role("radio", name="positive", exact=True)).to_have_count(1)
    expect(question(page, "themes").get_by_role("checkbox", name="work", exact=True)).to_have_count(1)


def test_the_skip_link_lands_on_the_hits_first_control(page: Page, annotator) -> None:
    annotator(page)
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to the HIT")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#q_sentiment-0")).to_be_focused()
    page.keyboard.press("3")                          # the next key answers the first question
    expect(page.locator("#q_sentiment-2")).to_be_checked()
