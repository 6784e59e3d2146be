"""KPA-2021 projects imported as declared projects (`--declared`) in headless Chromium: the argument / key-point match
and the match check answered with the keyboard alone and stored as the definitions' answers, and both pages free of
accessibility violations at desktop and phone width. (The set comparison's declared page is scanned in
test_declared_item_paths_hit.py.)"""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import start_hit
from tests.browser.test_accessibility import AXE, violations
from tests.browser.votes import submitted
from tests.conftest import DATA, load_project

pytestmark = pytest.mark.browser
IMPORTS = {"match": ("kpa2021", DATA / "kpa2021"), "check": ("kpa2021-check", DATA / "kpa2021_track2")}


def _open(page: Page, login, make_user, campaign: str) -> int:  # type: ignore[no-untyped-def]
    """The campaign's files imported as a declared project (k = 1), its first HIT opened by a new annotator."""
    format_name, folder = IMPORTS[campaign]
    load_project(format_name, folder, "dec", split="test", k=1, declared=True)
    user_id = make_user("ann").id
    login(page, "ann")
    start_hit(page, "dec")
    return int(user_id)


def test_a_declared_match_check_by_keyboard(page: Page, login, make_user) -> None:  # type: ignore[no-untyped-def]
    user_id = _open(page, login, make_user, "check")
    page.keyboard.press("3")   # faulty key point
    expect(page.locator("#q_verdict-2")).to_be_checked()
    page.keyboard.press("1")   # changed my mind: yes
    expect(page.locator("#q_verdict-0")).to_be_checked()
    page.keyboard.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    assert [vote.answer for vote in submitted(user_id)] == [{"verdict": "yes"}]


def test_a_declared_key_point_match_by_keyboard(page: Page, login, make_user) -> None:  # type: ignore[no-untyped-def]
    user_id = _open(page, login, make_user, "match")
    page.locator("#q_matches-0").focus()
    page.keyboard.press("Space")            # the first key point
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Space")            # and the third
    expect(page.locator("#q_matches-2")).to_be_checked()
    page.keyboard.press("Enter")
    expect(page.locator("#progress-text")).to_contain_text("1 /")
    [vote] = submitted(user_id)
    key_points = [kp["id"] for kp in vote.item.payload["key_points"]]
    assert vote.answer == {"matches": [key_points[0], key_points[2]]}


@pytest.mark.parametrize("width", [1280, 375])
@pytest.mark.parametrize("campaign", ["match", "check"])
def test_a_declared_kpa_hit_has_no_accessibility_violation(new_page, login, make_user, campaign: str,  # type: ignore[no-untyped-def]
                                                           width: int) -> None:
    page = new_page(viewport={"width": width, "height": 800})
    _open(page, login, make_user, campaign)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.add_script_tag(url=AXE)
    assert violations(page, f"the declared {campaign} HIT at {width} px") == []
