"""A spans question with attributes through the Flask test client (examples/mqm_errors.yaml): the HIT page gives the
script the attributes, a posted form stores each mark's severity (read back in a fresh session), the API takes the
same answer, refuses a mark without a declared severity with a 422 naming it and storing nothing, and the admin's
project page of a voted project opens."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Label
from tests.support.declared_projects import make_declared_project, read_jsonl
from tests.web.conftest import csrf_token, open_hit_page, submitted_by

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CAT = {"start": 4, "end": 7, "label": "accuracy"}   # "The cat is sleeping soundly."


@pytest.fixture
def mqm(app):  # type: ignore[no-untyped-def]
    return make_declared_project("mqm", EXAMPLES / "mqm_errors.yaml",
                                 items=read_jsonl(EXAMPLES / "mqm_errors_items.jsonl")[:1])


def test_the_page_gives_the_script_the_attributes(login, make_user, mqm):
    make_user("ann")
    html = open_hit_page(login("ann"), "mqm").get_data(as_text=True)
    found = re.search(r'data-attributes="([^"]+)"', html)
    assert found is not None
    assert json.loads(found.group(1).replace("&#34;", '"')) == [
        {"id": "severity", "label": "Severity", "values": [["minor", "minor"], ["major", "major"],
                                                           ["critical", "critical"]]}]


def test_a_posted_form_stores_each_mark_s_severity_and_the_score(login, make_user, mqm):
    make_user("ann")
    client = login("ann")
    page = open_hit_page(client, "mqm")
    html = page.get_data(as_text=True)
    action = re.search(r'action="(/p/mqm/a/\d+)"', html).group(1)
    response = client.post(action, data={"csrf_token": csrf_token(html),
                                         "q_errors": json.dumps([{**CAT, "severity": "critical"}])})
    assert response.status_code == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer == {"errors": [{**CAT, "severity": "critical"}]}
    rows = {(label.field, label.unit): label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id))}
    assert rows["errors.severity", "4:7:accuracy"] == "critical" and rows["errors.mqm", "errors"] == "25"


def test_the_api_stores_a_mark_with_its_severity(api_client, mqm):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/mqm/next").get_json()["assignment"]
    assert assignment["questions"][0]["attributes"][0]["id"] == "severity"
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"errors": [{**CAT, "severity": "major"}]}})
    assert response.status_code == 201, response.get_json()
    [kept] = submitted_by("bot")
    assert kept.answer == {"errors": [{**CAT, "severity": "major"}]}


@pytest.mark.parametrize("mark, said", [
    (CAT, "errors: span 1: has no severity (one of 'minor', 'major', 'critical')"),
    ({**CAT, "severity": "fatal"}, "errors: span 1: severity 'fatal' is not one of 'minor', 'major', 'critical'"),
])
def test_the_api_refuses_a_mark_without_a_declared_severity_with_a_422(api_client, mqm, mark, said):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/mqm/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": {"errors": [mark]}})
    assert response.status_code == 422
    assert response.get_json()["error"] == said
    assert submitted_by("bot") == []


def test_the_admins_project_page_of_a_voted_project_opens(login, make_user, api_client, mqm):
    for name, severity in (("a1", "major"), ("a2", "major"), ("a3", "minor")):
        api = api_client(name)
        assignment = api.post("/api/v1/projects/mqm/next").get_json()["assignment"]
        assert api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"errors": [{**CAT, "severity": severity}]}}).status_code == 201
    make_user("boss", role="admin")
    for path in ("", "/items/?order=position"):
        page = login("boss").get(f"/admin/projects/mqm{path}")
        assert page.status_code == 200, page.get_data(as_text=True)[:1000]
    assert "errors: gold spans" in login("boss").get("/admin/projects/mqm").get_data(as_text=True)
    items = login("boss").get("/admin/projects/mqm/items/?order=position").get_data(as_text=True)
    assert "“cat” as Accuracy (major)" in items and "“cat” as Accuracy (minor)" in items   # each vote in words
