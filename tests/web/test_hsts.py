"""HSTS: with ANNOTATOR_HTTPS=1 every answer tells browsers to use only HTTPS for this host and its subdomains
(so a network attacker cannot take a later visit to plain HTTP); without it, no answer says so."""
from __future__ import annotations

import pytest

from annotator import create_app
from tests.conftest import RequestClient

# A page, a redirect, a static file, an HTML error and an API error: kinds of answer made by different code.
PATHS = ["/login", "/", "/static/style.css", "/no-such-page", "/api/v1/no-such-route"]


@pytest.fixture
def served(database_url, app):  # type: ignore[no-untyped-def]
    def make(**config):  # type: ignore[no-untyped-def]
        made = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=database_url, **config)
        made.test_client_class = RequestClient
        return made.test_client()
    return make


@pytest.mark.parametrize("path", PATHS)
def test_over_https_every_answer_asks_for_https_only_for_a_year(served, path):
    response = served(HTTPS=True).get(path, base_url="https://localhost")
    assert response.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"


def test_the_https_only_period_can_be_set(served):
    response = served(HTTPS=True, HSTS_MAX_AGE=600).get("/login", base_url="https://localhost")
    assert response.headers["Strict-Transport-Security"] == "max-age=600; includeSubDomains"


@pytest.mark.parametrize("path", PATHS)
def test_without_https_no_answer_asks_for_it(served, path):
    assert "Strict-Transport-Security" not in served().get(path).headers
