"""The `login` fixture (tests/browser/conftest.py) that most browser tests start with: it logs a context in by the
login form's POST and must fail, in words, when the server does not log the account in (as typing into the form
failed when the form did not show or the login was refused)."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect


def test_a_context_logged_in_by_the_fixture_is_shown_the_projects_page(page, make_user, login) -> None:  # type: ignore[no-untyped-def]
    make_user("reader")
    login(page, "reader")
    assert page.url == "about:blank", "the fixture leaves the page where it was"
    page.goto("/")
    expect(page.get_by_role("heading", name="Projects")).to_be_visible()


def test_a_wrong_password_fails_the_fixture_with_the_servers_answer(page, make_user, login) -> None:  # type: ignore[no-untyped-def]
    make_user("reader")
    with pytest.raises(AssertionError, match=r"reader was not logged in: POST /login answered 401 .*Unknown user name"):
        login(page, "reader", "not the password")
    page.goto("/")  # not logged in: the site asks for the login
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()


def test_a_context_logged_in_already_fails_the_fixture_rather_than_staying_the_first_account(
        page, make_user, login) -> None:  # type: ignore[no-untyped-def]
    make_user("first")
    make_user("second")
    login(page, "first")
    with pytest.raises(AssertionError, match=r"second was not logged in: the context is logged in already \(GET "
                                             r"/login answered 302 to /"):
        login(page, "second")
