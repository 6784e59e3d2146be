"""RuArg-2022's HIT on a declared project in Russian (the default since the switch to one engine; every RuArg project
since migration 0022_stance_premise_declared) in headless Chromium: Cyrillic sentences labelled by mouse and by
keyboard, Backspace back to the previous question, an incomplete answer not stored (the form names what is
missing). The phone layout and axe's scan of the Russian page: tests/browser/test_declared_russian_hit.py.

The built-in type's browser tests (test_stance_premise_hit.py, removed with it) on the declared page: its keys are the
declared HIT's (relevance 1 relevant, 2 not; a label 1 for, 2 against, 3 other or no argument), and Backspace goes
back to the question before the highlighted one (static/js/custom.js), as the built-in's went back a step."""
from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment
from tests.browser.conftest import start_hit
from tests.conftest import DATA, load_project

pytestmark = pytest.mark.browser
ACTIVE = re.compile(r"\bactive\b")
IRRELEVANT = {"relevance": "irrelevant"}


@pytest.fixture
def russian_project(make_user):  # type: ignore[no-untyped-def]
    make_user("ann")
    load_project("ruarg2022", DATA / "ruarg2022" / "val_excerpt.tsv", "ru", k=1, language="ru")


def asked(page: Page, claim: int, qid: str):  # type: ignore[no-untyped-def]
    return page.locator(f"#dq-claims-{claim}-{qid}")


def answers() -> list[Any]:
    db.session.remove()   # what the server thread committed
    return [a.answer for a in db.session.scalars(select(Assignment).where(Assignment.status == SUBMITTED)
                                                 .order_by(Assignment.id))]


def test_two_cyrillic_sentences_by_mouse_and_by_keyboard(page: Page, login, russian_project) -> None:  # type: ignore[no-untyped-def]
    login(page, "ann")
    start_hit(page, "ru")
    expect(page.locator("#hit-form")).to_contain_text("26 марта")
    expect(asked(page, 0, "stance")).to_be_hidden()   # nothing to say about the stance before the relevance

    asked(page, 0, "relevance").get_by_text("Релевантно", exact=True).click()
    expect(asked(page, 0, "stance")).to_be_visible()
    asked(page, 0, "stance").get_by_text("за", exact=True).click()
    asked(page, 0, "premise").get_by_text("нет довода").click()
    asked(page, 1, "relevance").get_by_text("Нерелевантно").click()
    asked(page, 2, "relevance").get_by_text("Нерелевантно").click()
    expect(asked(page, 2, "stance")).to_be_hidden()
    page.locator("#hit-form [type=submit]").first.click()
    expect(page.locator("#progress-text")).to_have_text("1 / 5 done")

    page.wait_for_load_state()
    expect(asked(page, 0, "relevance")).to_have_class(ACTIVE)
    for key in ("2", "1", "2", "3", "2"):  # masks not; quarantine relevant, against, no argument; vaccines not
        page.keyboard.press(key)
    expect(page.locator("#q_claims__1__premise-2")).to_be_checked()
    page.keyboard.press("Enter")
    expect(page.locator("#progress-text")).to_have_text("2 / 5 done")

    assert answers() == [
        {"claims": {"masks": {"relevance": "relevant", "stance": "2", "premise": "1"}, "quarantine": IRRELEVANT,
                    "vaccines": IRRELEVANT}},
        {"claims": {"masks": IRRELEVANT, "quarantine": {"relevance": "relevant", "stance": "0", "premise": "1"},
                    "vaccines": IRRELEVANT}},
    ]


def test_backspace_goes_back_a_question_and_an_incomplete_answer_is_not_sent(page: Page, login,
                                                                           russian_project) -> None:  # type: ignore[no-untyped-def]
    login(page, "ann")
    start_hit(page, "ru")
    page.wait_for_load_state()
    page.keyboard.press("1")          # masks relevant: on to its stance
    expect(asked(page, 0, "stance")).to_have_class(ACTIVE)
    page.keyboard.press("Backspace")  # back to the relevance of masks
    expect(asked(page, 0, "relevance")).to_have_class(ACTIVE)
    page.keyboard.press("2")          # masks not relevant after all
    expect(asked(page, 0, "stance")).to_be_hidden()
    page.keyboard.press("Enter")      # quarantine and vaccines are not answered yet: the form says so, sends nothing
    expect(asked(page, 1, "relevance")).to_contain_text("Please answer this question.")
    expect(asked(page, 0, "stance")).to_be_hidden()   # masks stays not relevant
    expect(page.locator("#progress-text")).to_have_text("0 / 5 done")
    assert answers() == []
