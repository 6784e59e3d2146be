"""The built-in Track-2 HITs in headless Chromium: a match check by keyboard, a set comparison by mouse.

Projects of the built-in types (declared=False, --no-declared) while they exist: new projects are declared ones by
default, whose HITs are tested in test_kpa2021_declared_hits.py and test_declared_item_paths_hit.py."""
from __future__ import annotations

import re
import shutil

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Label
from tests.browser.conftest import start_hit
from tests.conftest import DATA, load_project

pytestmark = pytest.mark.browser
FIXTURE = DATA / "kpa2021_track2"


def submitted() -> list[Assignment]:
    return list(db.session.scalars(select(Assignment).where(Assignment.status == SUBMITTED).order_by(Assignment.id)))


def test_a_match_check_by_keyboard(page: Page, login, make_user, fresh) -> None:  # type: ignore[no-untyped-def]
    make_user("ann")
    load_project("kpa2021-check", FIXTURE, "chk", split="test", k=1, declared=False)
    login(page, "ann")
    start_hit(page, "chk")
    expect(page.locator("#key-point")).not_to_be_empty()
    page.wait_for_load_state()
    page.keyboard.press("3")  # faulty key point
    expect(page.locator('input[name=verdict][value="faulty"]')).to_be_checked()
    page.keyboard.press("1")  # changed my mind: yes
    page.keyboard.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    fresh()
    assert [a.answer for a in submitted()] == [{"verdict": "yes"}]


def test_a_set_comparison_by_mouse_stores_the_systems_behind_a_and_b(new_page, login, make_user, fresh) -> None:  # type: ignore[no-untyped-def]
    make_user("ann")
    load_project("kpa2021-compare", FIXTURE, "cmp", split="test", k=1, declared=False)
    page = new_page(viewport={"width": 375, "height": 800}, is_mobile=True, has_touch=True)
    login(page, "ann")
    start_hit(page, "cmp")
    summary_a = page.locator("#summary-a")
    expect(summary_a.locator("li").first).to_be_visible()
    summary_a.get_by_text("all key points contest the topic").click()
    page.locator("#summary-b").get_by_text("most contest it, some support it").click()
    page.locator("fieldset").filter(has_text="less redundant").get_by_text("Summary B").click()
    page.locator("fieldset").filter(has_text="more central").get_by_text("About equal").click()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    fresh()
    [vote] = submitted()
    assert vote.answer == {"stance_a": "all_contest", "stance_b": "most_contest", "less_redundant": "B",
                           "more_central": "equal"}
    stored = dict(db.session.execute(select(Label.field, Label.value).where(Label.unit == "pair")).all())
    assert stored == {"less_redundant": vote.presentation["b"], "more_central": "equal"}


def test_the_comparison_shows_each_key_points_prevalence_beside_it_and_crowd_text_as_text(
        page: Page, login, make_user, fresh, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Task README, Track 2: the key points are shown "together with the prevalence reported for them", and
    judges assume it correct. A key point's text is the system's, shown as text, never as markup."""
    folder = tmp_path / "upload"
    shutil.copytree(FIXTURE, folder)
    for system in ("alpha", "beta"):  # every key point of both sets carries markup, whichever set is A
        path = folder / "systems" / system / "key_points.csv"
        lines = path.read_text().splitlines(keepends=True)
        path.write_text(lines[0] + "".join(re.sub(r"^([^,]+),", r"\1,<i>x</i> ", line) for line in lines[1:]))
    load_project("kpa2021-compare", folder, "cmp", split="test", k=1, only=("alpha", "beta"), declared=False)
    make_user("ann")
    login(page, "ann")
    start_hit(page, "cmp")
    expect(page.locator("#prevalence-instruction")).to_be_visible()
    first = page.locator("#summary-a li").first
    expect(first.locator(".prevalence")).to_have_text(re.compile(r"^\d+%$"))
    expect(first.locator(".kp-text")).to_contain_text("<i>x</i> ")
    assert page.locator("#summary-a i, #summary-b i").count() == 0
    box_text, box_share = first.locator(".kp-text").bounding_box(), first.locator(".prevalence").bounding_box()
    assert box_text and box_share and box_share["x"] > box_text["x"]  # beside it, on its right
    assert abs(box_share["y"] - box_text["y"]) < box_text["height"]
    shares = [int(t.rstrip("%")) for t in page.locator("#summary-a .prevalence").all_inner_texts()]
    assert shares == sorted(shares, reverse=True) and all(share > 1 for share in shares)
