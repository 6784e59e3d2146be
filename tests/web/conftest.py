"""Flask test-client helpers: real forms with their CSRF tokens, as a browser would send them."""
from __future__ import annotations

import re

import pytest

from tests.conftest import PASSWORD

CSRF = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"|name="csrf_token" value="([^"]+)"')


def csrf_token(html: str) -> str:
    match = CSRF.search(html)
    assert match, "the page has no CSRF token"
    return match.group(1) or match.group(2)


@pytest.fixture
def login(app):  # type: ignore[no-untyped-def]
    def log_in(username: str, password: str = PASSWORD):  # type: ignore[no-untyped-def]
        client = app.test_client()
        page = client.get("/login").get_data(as_text=True)
        response = client.post("/login", data={"username": username, "password": password,
                                               "csrf_token": csrf_token(page)})
        assert response.status_code == 302, response.get_data(as_text=True)
        return client
    return log_in
