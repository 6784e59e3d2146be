"""The JSON API against its own OpenAPI description (/api/v1/openapi.json), fuzzed with schemathesis.

Whatever schemathesis sends (any slug, any id, any body the description allows, and bodies it does
not), the API answers with a status the description lists, in the documented shape, and never a 500.
Runs on SQLite and PostgreSQL, as an annotator holding a lease in a real project.
"""
from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from annotator.engine import assignment as engine

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def api_token(make_user, api_client, kpa_project) -> str:  # type: ignore[no-untyped-def]
    project = kpa_project()
    engine.next_for(make_user("ann"), project)
    return api_client("ann").token


def test_the_api_keeps_to_its_description(app, api_token):  # type: ignore[no-untyped-def]
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == 3
    for operation in operations:
        @given(case=operation.as_strategy())
        @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def keeps_to_it(case):  # type: ignore[no-untyped-def]
            case.call_and_validate(headers={"Authorization": f"Bearer {api_token}"}, checks=CHECKS)
        keeps_to_it()


def test_the_description_is_served_without_a_token(client_for_description):  # type: ignore[no-untyped-def]
    body = client_for_description.get("/api/v1/openapi.json").get_json()
    assert body["openapi"].startswith("3.") and set(body["paths"]) == {
        "/projects/{slug}/next", "/assignments/{assignment_id}/submit", "/projects/{slug}/progress"}


@pytest.fixture
def client_for_description(app):  # type: ignore[no-untyped-def]
    return app.test_client()
