"""The API stores only answers a task type accepts, canonically, and never fails on a hostile body."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Label


@pytest.fixture
def lease(api_client, kpa_project):  # type: ignore[no-untyped-def]
    """An annotator's API client and the submit URL of the HIT it leased."""
    kpa_project()
    client = api_client("ann")
    assignment = client.post("/api/v1/projects/kpa/next").get_json()["assignment"]
    return client, f"/api/v1/assignments/{assignment['id']}/submit"


def _nothing_stored() -> bool:
    return (db.session.scalar(select(func.count()).select_from(Label)) == 0
            and db.session.scalar(select(func.count()).where(Assignment.answer.is_not(None))) == 0)


def _raw(client, url: str, body: str | bytes):  # type: ignore[no-untyped-def]
    return client.post(url, data=body, content_type="application/json")


def test_an_unknown_key_is_refused_not_stored(lease):
    client, url = lease
    response = client.post(url, json={"answer": {"matches": [], "note": "<script>alert(1)</script>"}})
    assert response.status_code == 422 and "'note'" in response.get_json()["error"] and _nothing_stored()


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_numbers_are_refused(lease, number):
    client, url = lease
    response = _raw(client, url, f'{{"answer": {{"matches": [], "x": {number}}}}}')
    assert response.status_code == 422 and "finite" in response.get_json()["error"] and _nothing_stored()


@pytest.mark.parametrize("text", [r"kp_1_1\u0000", r"\ud800"], ids=["nul", "lone-surrogate"])
def test_text_no_database_keeps_is_refused_with_422_not_500(lease, text):
    client, url = lease
    response = _raw(client, url, f'{{"answer": {{"matches": ["{text}"]}}}}')
    assert response.status_code == 422 and _nothing_stored()


def test_a_nul_in_a_key_is_refused(lease):
    client, url = lease
    response = _raw(client, url, r'{"answer": {"matches": [], "a\u0000": 1}}')
    assert response.status_code == 422 and "NUL" in response.get_json()["error"]


def test_deep_nesting_is_a_400(lease):
    client, url = lease
    response = _raw(client, url, "[" * 100_000 + "]" * 100_000)
    assert response.status_code == 400 and "deeper" in response.get_json()["error"]


def test_a_body_over_the_api_limit_is_a_413(lease, app):
    client, url = lease
    padding = "x" * (app.config["API_MAX_BODY_BYTES"] + 1)
    response = _raw(client, url, f'{{"answer": {{"matches": []}}, "pad": "{padding}"}}')
    assert response.status_code == 413 and response.is_json and _nothing_stored()


def test_a_valid_answer_is_stored_as_sent(lease):
    client, url = lease
    response = client.post(url, json={"answer": {"matches": ["kp_1_1"]}})
    assert response.status_code == 201 and response.get_json()["assignment"]["answer"] == {"matches": ["kp_1_1"]}
