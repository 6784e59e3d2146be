"""The annotator's pages in real headless Chromium: log in, label HITs by mouse and keyboard, and
the client-side behaviour the server cannot see (exclusivity, double submits, escaping, layout).

Every test sets up its users and projects and commits before the browser touches the server, and
calls `fresh()` before it reads back what the server thread stored.

The pages here are the KPA-2021 key-point match HIT's, a declared project of match.yaml (`kpa_project`; the built-in
kp_match type is gone: docs/one-engine.md, KPA step 6), drawn by the declared HIT (custom.js: a digit ticks a key
point, 0 is "None of these", which is exclusive with the key points); its arrow keys, 375 px and axe scan are also
tests/browser/test_kpa2021_declared_hits.py's.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Label, Project
from tests.browser.conftest import start_hit

pytestmark = pytest.mark.browser

HOSTILE = "<script>window.pwned=1</script><b>bold</b>"
MUST_MARK = 'Tick every option that applies, or "None of these key points".'


# --- helpers ---------------------------------------------------------------------------------------

def key_points(page: Page):  # type: ignore[no-untyped-def]
    return page.locator("input[name=q_matches]")


def none_box(page: Page):  # type: ignore[no-untyped-def]
    return page.locator("input[name=q_matches__none]")


ARGUMENT = ".shown-field[data-field=argument] .shown-text"


def argument(page: Page) -> str:
    return page.locator(ARGUMENT).inner_text()


def _declared_match(slug: str, name: str, payload: dict) -> None:  # type: ignore[type-arg]
    """A declared project of match.yaml holding one item, committed."""
    from annotator.campaigns.projects import add_items, get_or_create_project
    from annotator.declared.items import load_definition
    from annotator.shared_tasks.kpa2021.declared_gold import MATCH_DEFINITION
    from annotator.tasks import NewItem
    project, _ = get_or_create_project(slug, "custom", name=name, k=3,
                                       definition=load_definition(MATCH_DEFINITION).to_data())
    add_items(project, [NewItem(payload["id"], payload)])
    db.session.commit()


def expect_progress(page: Page, done: int, available: int) -> None:
    expect(page.locator("#progress")).to_have_attribute("value", str(done))
    expect(page.locator("#progress")).to_have_attribute("max", str(available))
    expect(page.locator("#progress-text")).to_have_text(f"{done} / {available} done")
    # The page after a submit shows its progress once its HTML is parsed; its keys work once its scripts
    # have run, which the load event follows (a key pressed in between went nowhere, once in CI).
    page.wait_for_load_state("load")


def submitted(user_id: int) -> list[Assignment]:
    return list(db.session.scalars(select(Assignment).where(
        Assignment.user_id == user_id, Assignment.status == SUBMITTED).order_by(Assignment.submitted_at,
                                                                                Assignment.id)))


def item_count(slug: str) -> int:
    return db.session.scalar(select(func.count()).select_from(Item).join(Project)
                             .where(Project.slug == slug))


def open_hit(page: Page, slug: str = "kpa") -> None:
    start_hit(page, slug)
    expect(page.locator("#hit-form")).to_be_visible()


# --- the whole loop --------------------------------------------------------------------------------

def test_annotator_logs_in_and_labels_three_hits_by_mouse_keyboard_and_none(
        page: Page, make_user, kpa_project, fresh) -> None:  # type: ignore[no-untyped-def]
    user = make_user("ann")
    kpa_project(k=3)
    total = item_count("kpa")
    user_id = user.id

    page.goto("/")  # not logged in: sent to the login form
    expect(page).to_have_url(re.compile(r"/login"))
    page.get_by_label("User name").press_sequentially("ann")
    page.get_by_label("Password").press_sequentially("correct horse battery")
    page.get_by_role("button", name="Log in").click()

    expect(page.get_by_role("heading", name="Projects")).to_be_visible()
    expect(page.get_by_text(f"0 of {total} HITs done")).to_be_visible()
    page.get_by_role("button", name="Start").click()
    expect_progress(page, 0, total)

    # HIT 1 by mouse: click two key point labels.
    first_argument = argument(page)
    boxes = key_points(page)
    mouse_answer = [boxes.nth(0).get_attribute("value"), boxes.nth(2).get_attribute("value")]
    options = page.locator("fieldset.dq label.pill:not(.none)")  # one per key point, in the boxes' order
    options.nth(0).click()
    options.nth(2).click()
    expect(boxes.nth(0)).to_be_checked()
    expect(boxes.nth(2)).to_be_checked()
    page.get_by_role("button", name="Submit").click()
    expect_progress(page, 1, total)
    assert argument(page) != first_argument

    # HIT 2 by keyboard only: 1, 2 and 4 on, 2 off again, Enter submits.
    second_argument = argument(page)
    boxes = key_points(page)
    keyboard_answer = [boxes.nth(0).get_attribute("value"), boxes.nth(3).get_attribute("value")]
    for key in ("1", "2", "4", "2"):
        page.keyboard.press(key)
    expect(boxes.nth(0)).to_be_checked()
    expect(boxes.nth(1)).not_to_be_checked()
    expect(boxes.nth(3)).to_be_checked()
    page.keyboard.press("Enter")
    expect_progress(page, 2, total)
    assert argument(page) != second_argument

    # HIT 3: 0 is "None of these key points", then Enter.
    page.keyboard.press("0")
    expect(none_box(page)).to_be_checked()
    page.keyboard.press("Enter")
    expect_progress(page, 3, total)

    fresh()
    answers = [a.answer for a in submitted(user_id)]
    assert answers == [{"matches": mouse_answer}, {"matches": keyboard_answer}, {"matches": []}]


# --- client-side behaviour -------------------------------------------------------------------------

def test_checking_a_key_point_unchecks_none_and_checking_none_unchecks_the_key_points(
        page: Page, make_user, kpa_project, login) -> None:  # type: ignore[no-untyped-def]
    make_user("ann")
    kpa_project(k=3)
    login(page, "ann")
    open_hit(page)
    boxes, none = key_points(page), none_box(page)

    boxes.nth(0).check()
    boxes.nth(1).check()
    none.check()
    expect(none).to_be_checked()
    expect(boxes.nth(0)).not_to_be_checked()
    expect(boxes.nth(1)).not_to_be_checked()

    boxes.nth(1).check()
    expect(boxes.nth(1)).to_be_checked()
    expect(none).not_to_be_checked()

    page.keyboard.press("0")  # the keyboard path keeps the same rule
    expect(none).to_be_checked()
    expect(boxes.nth(1)).not_to_be_checked()
    page.keyboard.press("3")
    expect(boxes.nth(2)).to_be_checked()
    expect(none).not_to_be_checked()


def test_submitting_with_nothing_marked_is_refused_with_the_form_error_and_stores_nothing(
        page: Page, make_user, kpa_project, login, fresh) -> None:  # type: ignore[no-untyped-def]
    user = make_user("ann")
    kpa_project(k=3)
    total = item_count("kpa")
    user_id = user.id
    login(page, "ann")
    open_hit(page)
    shown = argument(page)

    with page.expect_response(lambda r: r.request.method == "POST") as refused:
        page.get_by_role("button", name="Submit").click()
    assert refused.value.status == 400
    expect(page.get_by_role("alert")).to_have_text(MUST_MARK)
    expect_progress(page, 0, total)
    assert argument(page) == shown

    fresh()
    assert submitted(user_id) == []
    assert db.session.scalar(select(func.count()).select_from(Label)) == 0

    # Still usable: the same HIT can now be answered.
    expect(page.get_by_role("button", name="Submit")).to_be_enabled()
    page.keyboard.press("0")
    page.keyboard.press("Enter")
    expect_progress(page, 1, total)
    fresh()
    assert [a.answer for a in submitted(user_id)] == [{"matches": []}]


def test_crowd_text_is_rendered_escaped_and_never_runs(
        page: Page, make_user, login) -> None:  # type: ignore[no-untyped-def]
    make_user("ann")
    _declared_match("hostile", "Hostile", {
        "id": "arg_x", "topic": f"Topic {HOSTILE}", "stance": 1, "argument": HOSTILE,
        "key_points": [{"id": "kp_x_0", "text": f"Key point {HOSTILE}", "position": 0},
                       {"id": "kp_x_1", "text": "A plain key point", "position": 1}]})

    login(page, "ann")
    open_hit(page, "hostile")
    expect(page.locator(ARGUMENT)).to_have_text(HOSTILE)
    expect(page.locator("h2.shown-title")).to_have_text(f"Topic {HOSTILE}")
    expect(page.locator("fieldset.dq label.pill").first).to_contain_text(f"Key point {HOSTILE}")
    expect(page.locator("main b")).to_have_count(0)
    expect(page.locator("main script")).to_have_count(0)
    assert page.evaluate("typeof window.pwned") == "undefined"


def test_a_double_click_on_submit_sends_one_request_and_stores_one_vote(
        page: Page, make_user, kpa_project, login, fresh) -> None:  # type: ignore[no-untyped-def]
    user = make_user("ann")
    kpa_project(k=3)
    total = item_count("kpa")
    user_id = user.id
    login(page, "ann")
    open_hit(page)

    # Record, across the navigation, each submit event and whether the button was disabled by
    # then (this listener runs after hit.js's, which disables the button).
    page.evaluate("""() => {
        const form = document.getElementById('hit-form');
        form.addEventListener('submit', () => {
            const n = Number(sessionStorage.getItem('submits') || 0) + 1;
            sessionStorage.setItem('submits', String(n));
            sessionStorage.setItem('disabled', String(document.getElementById('submit').disabled));
        });
    }""")
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)

    none_box(page).check()
    page.get_by_role("button", name="Submit").dblclick()
    expect_progress(page, 1, total)

    assert page.evaluate("sessionStorage.getItem('disabled')") == "true"
    assert page.evaluate("sessionStorage.getItem('submits')") == "1"
    assert len(posts) == 1
    expect(page.locator(".flash")).to_have_count(0)  # no "already submitted" notice either
    fresh()
    assert [a.answer for a in submitted(user_id)] == [{"matches": []}]


# --- layout, leases, permissions ------------------------------------------------------------------

def test_the_hit_page_fits_a_phone_screen_without_horizontal_scrolling(
        new_page, make_user, kpa_project, login) -> None:  # type: ignore[no-untyped-def]
    make_user("ann")
    kpa_project(k=3)
    page = new_page(viewport={"width": 375, "height": 667}, is_mobile=True, has_touch=True)
    login(page, "ann")
    page.goto("/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375  # the project list too
    open_hit(page)

    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    submit = page.get_by_role("button", name="Submit")
    submit.scroll_into_view_if_needed()
    expect(submit).to_be_visible()
    expect(submit).to_be_in_viewport()
    box = submit.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375


def test_a_long_unbroken_word_in_crowd_text_does_not_widen_the_phone_page(
        new_page, make_user, login) -> None:  # type: ignore[no-untyped-def]
    make_user("ann")
    _declared_match("urls", "URLs", {
        "id": "arg_u", "topic": "Topic", "stance": 1,
        "argument": "See https://example.org/" + "a" * 150 + " for the evidence.",
        "key_points": [{"id": "kp_u_0", "text": "Key point", "position": 0}]})
    page = new_page(viewport={"width": 375, "height": 667}, is_mobile=True, has_touch=True)
    login(page, "ann")
    open_hit(page, "urls")

    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_reloading_the_hit_page_resumes_the_same_lease(
        page: Page, make_user, kpa_project, login, fresh) -> None:  # type: ignore[no-untyped-def]
    user = make_user("ann")
    kpa_project(k=3)
    user_id = user.id
    login(page, "ann")
    open_hit(page)
    shown = argument(page)
    action = page.locator("#hit-form").get_attribute("action")

    page.reload()
    expect(page.locator(ARGUMENT)).to_have_text(shown)
    expect(page.locator("#hit-form")).to_have_attribute("action", action or "")

    fresh()
    leases = db.session.scalars(select(Assignment).where(Assignment.user_id == user_id)).all()
    assert len(leases) == 1 and leases[0].status == "leased"


def test_an_annotator_opening_the_admin_pages_gets_403_and_no_admin_content(
        page: Page, make_user, kpa_project, login) -> None:  # type: ignore[no-untyped-def]
    assert not make_user("ann").is_admin
    kpa_project(k=3)
    login(page, "ann")
    expect(page.get_by_role("link", name="Admin")).to_have_count(0)

    response = page.goto("/admin/")
    assert response is not None and response.status == 403
    expect(page.get_by_role("heading", name="Forbidden")).to_be_visible()
    expect(page.locator("table")).to_have_count(0)
    expect(page.get_by_text("Open leases")).to_have_count(0)
    expect(page.get_by_role("link", name="Admin")).to_have_count(0)
    expect(page.get_by_role("link", name="Annotators")).to_have_count(0)
    for path in ("/admin/projects/kpa", "/admin/annotators"):
        assert page.goto(path).status == 403  # type: ignore[union-attr]

