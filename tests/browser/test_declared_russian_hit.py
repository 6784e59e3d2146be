"""The declared RuArg-2022 HIT in Russian (`--language ru`: the built-in Russian HIT's words on the definition) in
headless Chromium: number keys answer it as the English one, the stored answer the same; at phone width the longer
Russian words scroll nothing sideways; axe-core finds no violation."""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment
from annotator.declared.definition_reader import definition_from_data
from annotator.shared_tasks.ruarg2022.declared_projects import definition_for
from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import AXE, violations
from tests.browser.test_declared_repeat_hit import SENTENCES
from tests.support.declared_projects import make_declared_project

pytestmark = pytest.mark.browser


@pytest.fixture
def annotator(app, make_user, login):  # type: ignore[no-untyped-def]
    """Make the Russian project, log `page` in as a new annotator and open the first HIT; returns the user's id."""
    def open_for(page: Page, name: str = "ann") -> int:
        make_declared_project("claims-ru", definition_from_data(definition_for("both", language="ru")),
                              items=SENTENCES)
        user_id = make_user(name).id
        login(page, name)
        start_hit(page, "claims-ru")
        return user_id
    return open_for


def test_number_keys_answer_the_russian_hit_and_store_the_same_answer(page: Page, annotator) -> None:
    user_id = annotator(page)
    expect(page.get_by_text("Ношение масок полезно для общества")).to_be_visible()
    keys = page.keyboard
    for key in ("1", "1", "3", "2", "2", "Enter"):     # masks relevant, за, нет довода; the others not relevant
        keys.press(key)
    expect(page.locator("#progress-text")).to_have_text("1 / 2 done")
    db.session.remove()
    [kept] = db.session.scalars(select(Assignment).where(Assignment.user_id == user_id,
                                                         Assignment.status == SUBMITTED))
    assert kept.answer == {"claims": {"masks": {"relevance": "relevant", "stance": "2", "premise": "1"},
                                      "quarantine": {"relevance": "irrelevant"},
                                      "vaccines": {"relevance": "irrelevant"}}}


def test_at_phone_width_the_russian_words_scroll_nothing_sideways(new_page, annotator) -> None:
    page = new_page(viewport={"width": 375, "height": 740}, has_touch=True, is_mobile=True)
    annotator(page)
    for claim in range(3):
        page.locator(f"#dq-claims-{claim}-relevance label.pill").nth(0).tap()
    pills = page.locator("fieldset.dr-element fieldset.dq:visible label.pill")
    assert pills.count() == 3 * (2 + 3 + 3)
    for n in range(pills.count()):
        box = pills.nth(n).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375 + 0.5
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


@pytest.mark.parametrize("width", [1280, 375])
def test_axe_finds_no_violation_on_the_russian_hit(new_page, annotator, width) -> None:
    page = new_page(viewport={"width": width, "height": 800})
    annotator(page)
    page.keyboard.press("1")
    page.add_script_tag(url=AXE)
    assert violations(page, f"Russian repeat HIT at {width} px") == []
