"""The emphasis HIT in headless Chromium: spans made, split and joined by mouse, keyboard and touch, the
confirmation before an empty answer, and the phone layout; each checked against the stored tags.

An emphasis project is a declared project of selection.yaml (docs/one-engine.md): the HIT is the declared span
question with boundaries (custom.js and declared_boundaries.js), whose hidden field `q_emphasis` holds the tags and
whose answer is stored as {"emphasis": [tags]}."""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment
from tests.browser.conftest import start_hit
from tests.conftest import DATA, load_project

pytestmark = pytest.mark.browser
WORDS = 12  # Q_0 of the dev excerpt, every annotator's first HIT: "Life is defined more by its risks ..."


@pytest.fixture
def emphasis_project(app):  # type: ignore[no-untyped-def]
    load_project("emphasis2020", DATA / "emphasis2020" / "dev_excerpt.txt", "emph", k=3)
    db.session.commit()


@pytest.fixture
def annotator(make_user, emphasis_project, login):  # type: ignore[no-untyped-def]
    """Log `page` in as a new annotator and open the first HIT; returns the annotator's id."""
    def open_for(page: Page, name: str = "ann") -> int:
        user_id = make_user(name).id
        login(page, name)
        start_hit(page, "emph")
        # the keyboard reaches the words from the page's start: Tab to "Skip to the HIT", Enter, on the first word
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        expect(word(page, 0)).to_be_focused()
        return user_id
    return open_for


def word(page: Page, n: int):  # type: ignore[no-untyped-def]
    return page.locator("button.word").nth(n)


def gap_before(page: Page, n: int):  # type: ignore[no-untyped-def]
    return page.locator(f'button.gap[data-gap="{n}"]')


def expect_tags(page: Page, *tags: str) -> None:
    """The hidden field, padded with O: what the form will send."""
    expected = '["' + '","'.join(list(tags) + ["O"] * (WORDS - len(tags))) + '"]'
    expect(page.locator("#q_emphasis")).to_have_value(expected)


def stored(user_id: int) -> list[dict]:
    db.session.remove()  # see what the server thread committed
    return [a.answer for a in db.session.scalars(select(Assignment).where(
        Assignment.user_id == user_id, Assignment.status == SUBMITTED).order_by(Assignment.id))]


def padded(*tags: str) -> dict:
    return {"emphasis": list(tags) + ["O"] * (WORDS - len(tags))}


def test_clicking_adjacent_words_makes_one_span_and_the_gap_splits_and_rejoins_it(page: Page, annotator) -> None:
    user_id = annotator(page)
    for n in (0, 1, 2):
        word(page, n).click()
    expect(word(page, 1)).to_have_attribute("aria-pressed", "true")
    expect_tags(page, "B", "I", "I")
    expect(page.locator("[data-boundaries-of=emphasis]")).to_have_text("1 span: [Life is defined]")

    gap_before(page, 2).click()
    expect_tags(page, "B", "I", "B")
    expect(gap_before(page, 2)).to_have_attribute("aria-pressed", "true")
    expect(page.locator("[data-boundaries-of=emphasis]")).to_have_text("2 spans: [Life is] [defined]")
    gap_before(page, 2).click()
    expect_tags(page, "B", "I", "I")
    gap_before(page, 1).click()
    expect_tags(page, "B", "B", "I")

    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_have_text("1 / 3 done")
    assert stored(user_id) == [padded("B", "B", "I")]


def test_deselecting_a_middle_word_splits_the_span_and_reselecting_joins_it(page: Page, annotator) -> None:
    user_id = annotator(page)
    for n in (3, 4, 5):
        word(page, n).click()
    word(page, 4).click()
    expect_tags(page, "O", "O", "O", "B", "O", "B")
    expect(gap_before(page, 4)).to_be_disabled()  # nothing to split between a selected and a free word
    word(page, 4).click()
    expect_tags(page, "O", "O", "O", "B", "I", "I")
    word(page, 5).click()
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_have_text("1 / 3 done")
    assert stored(user_id) == [padded("O", "O", "O", "B", "I")]


def test_arrows_space_s_and_enter_do_the_whole_hit_from_the_keyboard(page: Page, annotator) -> None:
    user_id = annotator(page)
    expect(word(page, 0)).to_be_focused()  # the words have the keyboard from the start
    keys = ["Space", "ArrowRight", "Space", "ArrowRight", "Space", "s",  # [Life is] [defined]
            "ArrowRight", "ArrowRight", "Space", "ArrowLeft", "ArrowRight", "ArrowRight", "Space"]  # [by its]
    for key in keys:
        page.keyboard.press(key)
    expect(word(page, 5)).to_be_focused()
    expect_tags(page, "B", "I", "B", "O", "B", "I")
    page.keyboard.press("|")  # the other split key, before "its"
    expect_tags(page, "B", "I", "B", "O", "B", "B")
    page.keyboard.press("s")  # and back
    page.keyboard.press("Enter")
    expect(page.locator("#progress-text")).to_have_text("1 / 3 done")
    assert stored(user_id) == [padded("B", "I", "B", "O", "B", "I")]


def test_splitting_where_no_span_continues_changes_nothing_and_says_why(page: Page, annotator) -> None:
    annotator(page)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Space")
    page.keyboard.press("s")
    expect_tags(page, "O", "B")
    expect(page.locator("[data-boundaries-of=emphasis]")).to_have_text(
        "A span can only be split between two selected words.")


def test_submitting_nothing_asks_once_and_cancelling_stores_nothing(page: Page, annotator) -> None:
    user_id = annotator(page)
    dialogs: list[str] = []

    def dismiss(dialog) -> None:  # type: ignore[no-untyped-def]
        dialogs.append(dialog.message)
        dialog.dismiss()
    page.once("dialog", dismiss)
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("button", name="Submit")).to_be_enabled()
    assert dialogs == ["You selected no word. Submit that no word of this text should be selected?"]
    assert stored(user_id) == []

    page.once("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.accept()))
    page.keyboard.press("Enter")
    expect(page.locator("#progress-text")).to_have_text("1 / 3 done")
    assert len(dialogs) == 2 and stored(user_id) == [padded()]


def test_a_selection_is_submitted_without_a_question(page: Page, annotator) -> None:
    user_id = annotator(page)
    page.on("dialog", lambda dialog: pytest.fail(f"unexpected dialog: {dialog.message}"))
    word(page, 6).click()
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_have_text("1 / 3 done")
    assert stored(user_id) == [padded("O", "O", "O", "O", "O", "O", "B")]


def test_on_a_phone_the_words_wrap_without_horizontal_scrolling_and_taps_select(
        new_page, annotator) -> None:  # type: ignore[no-untyped-def]
    page = new_page(viewport={"width": 375, "height": 667}, is_mobile=True, has_touch=True)
    user_id = annotator(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    tops = {round(word(page, n).bounding_box()["y"]) for n in range(WORDS)}
    assert len(tops) > 1  # the sentence wraps onto several lines
    word(page, 6).tap()
    word(page, 7).tap()
    gap_before(page, 7).tap()
    expect_tags(page, "O", "O", "O", "O", "O", "O", "B", "B")
    submit = page.get_by_role("button", name="Submit")
    submit.scroll_into_view_if_needed()
    submit.tap()
    expect(page.locator("#progress-text")).to_have_text("1 / 3 done")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375  # the next sentence too
    assert stored(user_id) == [padded("O", "O", "O", "O", "O", "O", "B", "B")]
