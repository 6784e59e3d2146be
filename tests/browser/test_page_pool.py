"""The page pool (page_pool.py): a page lent again holds nothing of the test before; a page a test changed in a way
the pool cannot undo is not lent again."""
from __future__ import annotations

import pytest

from tests.browser.page_pool import PagePool

pytestmark = pytest.mark.browser


def test_a_page_lent_again_holds_no_cookie_storage_or_document_of_the_test_before(
        page_pool: PagePool, live_server: str, make_user, login) -> None:  # type: ignore[no-untyped-def]
    make_user("reader")
    page, take_back = page_pool.lend({"base_url": live_server})
    login(page, "reader")
    page.goto("/")  # a document of the site, whose storage the test fills
    page.evaluate("() => { localStorage.setItem('kept', '1'); sessionStorage.setItem('kept', '1'); }")
    assert page.context.cookies(), "logged in: the session cookie is set"
    take_back()

    again, take_back = page_pool.lend({"base_url": live_server})
    try:
        assert again is page, "the clean page is lent again"
        assert again.url == "about:blank"
        assert again.context.cookies() == []
        again.goto("/login")
        assert again.evaluate("() => [localStorage.getItem('kept'), sessionStorage.getItem('kept')]") == [None, None]
        assert again.get_by_label("User name").is_visible(), "logged out: the login form"
    finally:
        take_back()


@pytest.mark.parametrize("change", ["listener", "route", "viewport", "second page", "closed"])
def test_a_page_the_test_changed_is_not_lent_again(page_pool: PagePool, live_server: str, change: str) -> None:
    page, take_back = page_pool.lend({"base_url": live_server})
    if change == "listener":
        page.on("console", lambda message: None)
    elif change == "route":
        page.route("https://example.org/**", lambda route: route.abort())
    elif change == "viewport":
        page.set_viewport_size({"width": 375, "height": 600})
    elif change == "second page":
        page.context.new_page()
    else:
        page.close()
    context = page.context
    take_back()

    other, take_back = page_pool.lend({"base_url": live_server})
    try:
        assert other is not page
        assert page.is_closed() and context.pages == [], "its context closed"
    finally:
        take_back()


def test_a_page_is_lent_again_only_for_the_same_context_options(page_pool: PagePool, live_server: str) -> None:
    page, take_back = page_pool.lend({"base_url": live_server})
    take_back()
    phone, take_back_phone = page_pool.lend({"base_url": live_server, "viewport": {"width": 375, "height": 667},
                                             "is_mobile": True, "has_touch": True})
    try:
        assert phone is not page
        assert phone.viewport_size == {"width": 375, "height": 667}
        assert phone.evaluate("() => matchMedia('(pointer: coarse)').matches")
    finally:
        take_back_phone()


def test_a_lent_page_sits_in_a_small_window_and_shows_the_viewport_it_was_asked_for(
        page_pool: PagePool, live_server: str) -> None:
    """The window is shrunk only to spare Chromium drawing it: the page's width, its animation frames and a click
    are those of the context's viewport, and the page is visible to its scripts."""
    page, take_back = page_pool.lend({"base_url": live_server, "viewport": {"width": 1280, "height": 800}})
    try:
        session = page.context.new_cdp_session(page)
        bounds = session.send("Browser.getWindowBounds", {"windowId": session.send("Browser.getWindowForTarget")
                                                          ["windowId"]})["bounds"]
        session.detach()
        assert (bounds["width"], bounds["height"], bounds["windowState"]) == (120, 120, "normal")
        page.goto("/login")
        page.wait_for_timeout(1_000)  # a minimized window's frames slow down to one a second within this
        assert page.evaluate("[window.innerWidth, window.innerHeight, document.visibilityState]") == [
            1280, 800, "visible"]
        five_frames_ms = page.evaluate("""() => new Promise((done) => { const start = performance.now(); let seen = 0;
            const tick = () => (++seen < 5 ? requestAnimationFrame(tick) : done(performance.now() - start));
            requestAnimationFrame(tick); })""")
        # 83 ms at the display's 60 a second, some 4 s at a minimized window's one: a loaded machine's slack between
        assert five_frames_ms < 2_500, "animation frames as often as the display's (a minimized window: 1 a second)"
        page.get_by_label("User name").click()
        assert page.evaluate("document.activeElement.name") == "username"
    finally:
        take_back()
