"""Browser fixtures: the app served from a background thread, and headless Debian Chromium.

Browser tests run on SQLite only (`database_url` below overrides the engine-parametrised one of
tests/conftest.py): what they check is the page and its scripts, not the engine. The test thread
and the server thread share the SQLite file, so a test sets up its users and projects and
commits *before* it browses, and calls `fresh()` before it reads what the browser stored.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from werkzeug.serving import make_server

from annotator.core.extensions import db
from tests.browser.page_pool import PagePool
from tests.conftest import PASSWORD, missing
from tests.web.conftest import csrf_token

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 # Each browser context opens a window, and each window loaded the address bar's suggestion popups
                 # (chrome://omnibox-popup.top-chrome/) in a renderer of their own, which no test ever shows:
                 # about half of Chromium's CPU in the browser tests (bench/results/2026-11-28-test-suite-times.md).
                 # RenderDocument (a new frame host for every navigation) off: a navigation took Chromium about 0.7
                 # of its CPU (bench/results/2026-11-29-browser-tests-cpu.md); pages and scripts are the same.
                 "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,RenderDocument"]
TIMEOUT_MS = 5_000  # a local server answers in milliseconds; fail fast rather than hang
# An admin page that computes a project's figures on the request (gold, agreement, a ranking, and at a process's first
# ranking the statistics modules it imports): under the loaded suite such a first load has taken over 5 s (the
# settings forms of the pairwise KPA project, 3 runs in 4 of the browser folder). What these tests check is not speed
# (bench/ measures it), so the wait for such a page is generous.
PAGE_LOAD_MS = 60_000
POLL_SECONDS = 0.02  # how often the served app's loop checks whether it is to stop (see live_server)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture
def database_url(sqlite_database: str) -> str:
    """The process's SQLite database (no PostgreSQL variant for browser tests), emptied before each test like every
    other test's, and served by the process's kept app: an app of the test's own compiled werkzeug's URL rules, the
    Jinja templates and SQLAlchemy's statements again for every browser test."""
    return sqlite_database


class InFlight:
    """The test's app, counting the requests it is serving, so that tear-down can wait for them: the database is the
    process's, and a request still running when its test ends (the page's last fetch) must not write into the
    next test's. Between tests (`app` None) a request is answered 503 and reaches no app."""

    def __init__(self) -> None:
        self.app: Flask | None = None
        self.serving = 0
        self.changed = threading.Condition()

    def __call__(self, environ, start_response):  # type: ignore[no-untyped-def]
        with self.changed:
            app = self.app
            self.serving += 1
        try:
            if app is None:
                start_response("503 Service Unavailable", [("Content-Type", "text/plain")])
                return [b"no test is running"]
            return app(environ, start_response)
        finally:
            with self.changed:
                self.serving -= 1
                self.changed.notify_all()

    def wait_until_idle(self, seconds: float) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: self.serving == 0, seconds), "a request still running after the test"


@pytest.fixture(scope="session")
def served() -> Iterator[tuple[str, InFlight]]:
    """One server for the process on 127.0.0.1 at a free port, in a background thread, serving each test's app in
    turn (see `live_server`): its address stays the same, so a page can be lent again to the next test (page_pool.py,
    whose contexts carry the address as their base URL)."""
    counted = InFlight()
    server = make_server("127.0.0.1", 0, counted, threaded=True)
    # shutdown() waits for the serving loop to look at its flag, which it does every poll interval (0.5 s by default)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": POLL_SECONDS},
                              name="live-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", counted
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def live_server(app: Flask, served: tuple[str, InFlight]) -> Iterator[str]:
    """The test's app served at the process's address (`served`); yields the base URL. At the end, once no request
    is running, the server stops answering with it."""
    url, counted = served
    counted.wait_until_idle(TIMEOUT_MS / 1000)
    counted.app = app
    try:
        yield url
    finally:
        with counted.changed:
            counted.app = None
        counted.wait_until_idle(TIMEOUT_MS / 1000)


@pytest.fixture(scope="session")
def browser():  # type: ignore[no-untyped-def]
    """One headless Chromium per test session (launching takes longer than a fresh context)."""
    if not CHROMIUM.exists():
        missing("Debian chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
    except Exception:
        playwright.stop()
        raise
    yield browser
    browser.close()
    playwright.stop()


@pytest.fixture(scope="session")
def page_pool(browser) -> Iterator[PagePool]:  # type: ignore[no-untyped-def]
    """The process's idle pages, lent again to later tests (page_pool.py); closed before the browser."""
    pool = PagePool(browser, TIMEOUT_MS)
    yield pool
    pool.close()


@pytest.fixture
def new_page(page_pool: PagePool, live_server: str):  # type: ignore[no-untyped-def]
    """Factory of pages, each in a context of its own (own cookies), made with the options given and the server's
    base URL: a new one, or one an earlier test handed back emptied (page_pool.py). Handed back after the test."""
    from playwright.sync_api import expect
    expect.set_options(timeout=TIMEOUT_MS)
    returns = []

    def make(**context_options):  # type: ignore[no-untyped-def]
        page, take_back = page_pool.lend({"base_url": live_server, **context_options})
        returns.append(take_back)
        return page
    yield make
    for take_back in returns:
        take_back()


@pytest.fixture
def page(new_page):  # type: ignore[no-untyped-def]
    return new_page()


@pytest.fixture
def login():  # type: ignore[no-untyped-def]
    """Log `page`'s browser context in by the login form's POST, its CSRF token and fields as the form sends them,
    made by the context's own HTTP client (`page.request`, which shares the context's cookies): the server gives
    the context the session cookie a typed login gives. The page stays where it was (the caller opens what it tests).

    Typing into the form and pressing its button is what the tests of logging in do
    (`test_annotate_pages.py::test_annotator_logs_in_and_labels_three_hits_by_mouse_keyboard_and_none`,
    `test_project_setup.py`, the accessibility scan's roles); the other tests only need to be logged in, and the form's
    two page loads cost Chromium about 0.23 s of CPU a login more than these two requests
    (bench/results/2026-11-29-test-workers.md)."""
    def log_in(page, username: str, password: str = PASSWORD) -> None:  # type: ignore[no-untyped-def]
        form = page.request.get("/login", max_redirects=0)
        if form.status == 302:  # the form would log no one else in: the server sends a logged-in context home
            raise AssertionError(f"{username} was not logged in: the context is logged in already (GET /login "
                                 f"answered 302 to {form.headers.get('location')})")
        assert form.status == 200, f"/login answered {form.status}"
        answer = page.request.post("/login", form={"csrf_token": csrf_token(form.text()), "username": username,
                                                   "password": password}, max_redirects=0)
        if answer.status != 302:  # say what the server said, not only that a later page is missing
            said = re.findall(r'<p class="flash [^"]*"[^>]*>([^<]*)</p>', answer.text())
            raise AssertionError(f"{username} was not logged in: POST /login answered {answer.status} "
                                 f"(the page says {said or answer.text()[:300]!r})")
    return log_in


@pytest.fixture
def fresh():  # type: ignore[no-untyped-def]
    """Forget the test thread's session so the next query sees what the server thread committed."""
    def forget() -> None:
        db.session.remove()
    return forget


def start_hit(page, slug: str) -> None:  # type: ignore[no-untyped-def]
    """Open a project's HIT page as an annotator does: the page, then Start when no HIT is running yet
    (leasing is a POST, so opening the page alone changes nothing)."""
    from playwright.sync_api import expect
    page.goto(f"/p/{slug}/")
    if page.locator("#start-form").count():
        page.locator("#start").click()
    expect(page.locator("#hit-form")).to_be_visible()
    # The form shows as soon as its HTML is parsed; its keys work once the page's scripts have run, which
    # the load event follows (a person's first key press comes later than that; a test's need not).
    page.wait_for_load_state("load")
