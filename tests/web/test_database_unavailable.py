"""When the database cannot be reached, clients are told to retry: JSON 503 on the API, a plain page on the web.

The outage is simulated by the DBAPI error a lost PostgreSQL connection raises (a server restart
answers "terminating connection due to administrator command"); tests/postgres/test_faults.py
restarts a real server. A bug (e.g. an integrity error) is not disguised as an outage: it stays a 500.
"""
from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError, OperationalError

from annotator.core.extensions import login_manager
from annotator.engine import assignment as engine
from tests.web.conftest import csrf_token


def _down(*args, **kwargs):  # type: ignore[no-untyped-def]
    """What SQLAlchemy raises when PostgreSQL shuts down under a query."""
    raise OperationalError("SELECT 1", {}, Exception("terminating connection due to administrator command"))


@pytest.fixture
def api(api_client, kpa_project):  # type: ignore[no-untyped-def]
    """An annotator's API client, with the KPA project to work on."""
    kpa_project()
    return api_client("ann")


def test_the_api_answers_json_503_saying_retry_while_the_database_is_down(api, monkeypatch):
    monkeypatch.setattr(engine, "next_for", _down)
    response = api.post("/api/v1/projects/kpa/next")
    assert response.status_code == 503 and response.mimetype == "application/json"
    body = response.get_json()
    assert body["status"] == 503 and body["retry"] is True and "Send it again" in body["error"]
    assert response.headers["Retry-After"] == str(body["retry_after"])


def test_a_submit_during_the_outage_changes_nothing_and_its_retry_is_stored(api, monkeypatch):
    lease = api.post("/api/v1/projects/kpa/next").get_json()["assignment"]
    real_submit = engine.submit
    monkeypatch.setattr(engine, "submit", _down)
    assert api.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {"matches": []}}).status_code == 503
    monkeypatch.setattr(engine, "submit", real_submit)  # the database is back
    retried = api.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {"matches": []}})
    assert retried.status_code == 201 and retried.get_json()["created"] is True


def test_a_web_page_says_temporarily_unavailable_without_reading_the_database(app, login, make_user, kpa_project,
                                                                             monkeypatch):
    kpa_project()
    make_user("ann")
    client = login("ann")
    monkeypatch.setattr(login_manager, "_user_callback", _down)  # even loading the session's user fails
    response = client.get("/p/kpa/")
    assert response.status_code == 503 and response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert "Temporarily unavailable" in html and "send it again" in html
    assert "Traceback" not in html and "terminating connection" not in html


def test_the_hit_start_button_during_the_outage_gets_the_page_too(app, login, make_user, kpa_project, monkeypatch):
    kpa_project()
    make_user("ann")
    client = login("ann")
    page = client.get("/p/kpa/").get_data(as_text=True)
    monkeypatch.setattr(engine, "next_for", _down)
    response = client.post("/p/kpa/next", data={"csrf_token": csrf_token(page)})
    assert response.status_code == 503 and "Temporarily unavailable" in response.get_data(as_text=True)


def test_an_integrity_error_is_a_bug_not_an_outage(api, monkeypatch):
    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise IntegrityError("INSERT", {}, Exception("duplicate key"))
    monkeypatch.setattr(engine, "next_for", broken)
    with pytest.raises(IntegrityError):  # TESTING propagates unhandled errors; a server answers 500
        api.post("/api/v1/projects/kpa/next")


def test_the_openapi_description_tells_clients_every_request_may_answer_503(app):
    paths = app.test_client().get("/api/v1/openapi.json").get_json()["paths"]
    operations = [op for path in paths.values() for op in path.values()]
    assert operations and all("503" in op["responses"] for op in operations)
