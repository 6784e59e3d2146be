"""Browser pages kept for the next test of the process: a page handed back clean is emptied and lent again.

Opening a page in a new browser context cost Chromium about 0.3 s of CPU (the context's profile, a window, a renderer),
navigating an open page to a blank one about 0.03 s; the browser tests open some 250 pages
(bench/results/2026-11-28-test-speed-cpu.md). A test still gets a page that holds nothing of an earlier test: no
cookie, no permission, no web storage, no document (it shows about:blank), the viewport its options gave, and the
context's options (base URL, size, touch, mobile) exactly as asked, since a page is lent again only for the same
options. A page that a test changed in ways that cannot be undone from here (a listener, a route, a binding, another
page or popup in its context, a page closed) is not lent again: its context is closed, as every context was before.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

EMPTY = "about:blank"
CLEAR_STORAGE = "() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }"
# The browser window's size: what a page shows and lays out is the context's viewport (Playwright emulates it), not
# the window, so the window need only be big enough to exist.
WINDOW = {"width": 120, "height": 120}


def in_a_small_window(page: Any) -> Any:
    """`page`, its browser window shrunk to `WINDOW`: returns the page.

    Headless Chromium still lays out, paints and composites its own window (toolbar, tab strip, the tab's loading
    icon) around the page at every frame, which no test looks at; in a window of 120 x 120 px it draws less of it:
    0.88-0.89 of Chromium's CPU over 100 navigations, and the browser tests 0.94 of their busy CPU in two interleaved
    pairs, with the page's viewport, layout, animation frames and clicks as in a full-size window
    (bench/results/2026-11-30-test-suite-slow-machine.md; `test_page_pool.py` checks them). A minimized window would
    draw nothing, but Chromium then runs the page's animation frames once a second, and a click waits for two of
    them."""
    session = page.context.new_cdp_session(page)
    try:
        window = session.send("Browser.getWindowForTarget")["windowId"]
        session.send("Browser.setWindowBounds", {"windowId": window, "bounds": WINDOW})
    finally:
        session.detach()
    return page


def _key(options: dict[str, Any]) -> str:
    return repr(sorted(options.items()))


def _handlers(owner: Any) -> tuple[Any, ...]:
    """What a test may have attached to a page or context: event listeners, routes, bindings (Playwright's own
    bookkeeping of them; None when this Playwright keeps them elsewhere, and then nothing is lent again)."""
    impl = getattr(owner, "_impl_obj", None)
    try:
        return (dict(impl._events), list(impl._routes), list(impl._web_socket_routes),  # type: ignore[union-attr]
                dict(impl._bindings))  # type: ignore[union-attr]
    except AttributeError:
        return (None,)


class PagePool:
    """Idle pages of one browser by their context's options; `lend` one, `take_back` what a test used."""

    def __init__(self, browser: Any, timeout_ms: int) -> None:
        self.browser, self.timeout_ms = browser, timeout_ms
        self.idle: dict[str, list[tuple[Any, Any, tuple[Any, ...]]]] = {}

    def lend(self, options: dict[str, Any]) -> tuple[Any, Callable[[], None]]:
        """(a page in a context made with `options`, the call that hands it back after the test)."""
        key = _key(options)
        if self.idle.get(key):
            context, page, clean = self.idle[key].pop()
        else:
            context = self.browser.new_context(**options)
            context.set_default_timeout(self.timeout_ms)
            page = in_a_small_window(context.new_page())
            clean = (_handlers(context), _handlers(page), page.viewport_size)
        return page, lambda: self._take_back(key, context, page, clean)

    def _take_back(self, key: str, context: Any, page: Any, clean: tuple[Any, ...]) -> None:
        if (page.is_closed() or context.pages != [page] or (None,) in clean
                or (_handlers(context), _handlers(page), page.viewport_size) != clean):
            context.close()
            return
        try:
            if page.url != EMPTY:
                page.evaluate(CLEAR_STORAGE)
            page.goto(EMPTY)
            context.clear_cookies()
            context.clear_permissions()
            context.set_default_timeout(self.timeout_ms)
        except Exception:  # a dialog left open, a page that no longer answers: not lent again
            context.close()
            return
        self.idle.setdefault(key, []).append((context, page, clean))

    def close(self) -> None:
        for pages in self.idle.values():
            for context, _, _ in pages:
                context.close()
        self.idle.clear()
