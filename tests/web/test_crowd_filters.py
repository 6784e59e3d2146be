"""The crowd page's worker filters and its MTurk create-HIT download, through the Flask test client.

The filters set here are the papers' (tests/unit/test_crowd_filters.py cites them): the emphasis task's MTurk
Masters, the cloze task's approval rate above 90% and English-speaking countries.
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from annotator.core.extensions import db
from annotator.core.models import CrowdLink, Project
from annotator.people.crowd import link_token, save_link
from annotator.people.crowd_filters import crowd_settings
from tests.conftest import stored
from tests.support.mturk_shape import EXTERNAL_QUESTION, problems
from tests.web.conftest import csrf_token

PAGE = "/admin/projects/kpa/crowd"
DOWNLOAD = PAGE + "/mturk-create-hit.json"
FORM = {"masters": "", "approval_rate_above": "", "min_approved": "", "countries": "", "hit_title": "",
        "hit_description": "", "reward": "", "max_assignments": "", "assignment_minutes": "",
        "lifetime_hours": "168", "frame_height": "800"}


@pytest.fixture
def admin(app, kpa_project, login, make_user):  # type: ignore[no-untyped-def]
    """Project `kpa` (26 items, k=3) with an MTurk link of 4 HITs; an admin's client."""
    app.config["PUBLIC_BASE_URL"] = "https://annotate.example.org"
    save_link(kpa_project(k=3), "mturk", 4, "DONE1")
    db.session.commit()
    make_user("boss", role="admin")
    return login("boss")


def _save(client, **fields: str):  # type: ignore[no-untyped-def]
    page = client.get(PAGE).get_data(as_text=True)
    data = {**FORM, **fields, "csrf_token": csrf_token(page)}
    return client.post(PAGE + "/filters", data={k: v for k, v in data.items() if not (k == "masters" and not v)})


def _settings() -> dict:
    return crowd_settings(stored(Project, slug="kpa"))


def test_the_admin_saves_the_recam_papers_filters_and_they_read_back(admin):
    response = _save(admin, approval_rate_above="90", countries="US\nGB\nCA\nAU\nNZ\nIE", reward="0.50")
    assert response.status_code == 302
    settings = _settings()
    assert settings["approval_rate_above"] == 90 and settings["countries"] == ("US", "GB", "CA", "AU", "NZ", "IE")
    assert "approval rate above 90%" in admin.get(PAGE).get_data(as_text=True)


@pytest.mark.parametrize("field, value, message", [
    ("approval_rate_above", "101", "Approval rate above this percent"),
    ("approval_rate_above", "-5", "between 0 and 99"),
    ("countries", "US\nUK", "the United Kingdom&#39;s code is GB"),
    ("reward", "1.005", "an amount in US dollars"),
])
def test_bad_input_is_named_with_its_field_and_saves_nothing(admin, field, value, message):
    _save(admin, masters="y", reward="0.50")
    html = admin.get(_save(admin, **{field: value}).location).get_data(as_text=True)
    assert "Crowd settings not saved" in html and message in html
    assert _settings()["masters"] is True and _settings()["reward"] == "0.50"


def test_the_download_is_a_create_hit_request_that_boto3_takes_with_the_recam_filters(admin):
    _save(admin, approval_rate_above="90", countries="US\nGB", reward="0.50")
    response = admin.get(DOWNLOAD)
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.headers["Content-Disposition"] == "attachment; filename=kpa-mturk-create-hit.json"
    request = json.loads(response.get_data(as_text=True))
    assert problems(request) == []
    assert request["QualificationRequirements"] == [
        {"QualificationTypeId": "000000000000000000L0", "Comparator": "GreaterThan", "IntegerValues": [90]},
        {"QualificationTypeId": "00000000000000000071", "Comparator": "In",
         "LocaleValues": [{"Country": "US"}, {"Country": "GB"}]}]


def test_the_request_carries_the_links_external_question_and_the_hits_settings(admin):
    _save(admin, reward="1.20", hit_title="Key points", lifetime_hours="24")
    request = json.loads(admin.get(DOWNLOAD).get_data(as_text=True))
    link = stored(CrowdLink, platform="mturk")
    url = ET.fromstring(request["Question"].encode()).findtext(f"{EXTERNAL_QUESTION}ExternalURL")
    assert url == f"https://annotate.example.org/crowd/kpa/mturk/{link_token(link)}"
    assert (request["Title"], request["Reward"], request["LifetimeInSeconds"]) == ("Key points", "1.20", 24 * 3600)
    # 26 items × k=3 votes, 4 HITs a worker: 20 workers; 4 HITs × the 30-minute lease
    assert (request["MaxAssignments"], request["AssignmentDurationInSeconds"]) == (20, 4 * 30 * 60)


def test_the_sandbox_download_uses_the_sandboxs_masters_id(admin):
    _save(admin, masters="y", reward="0.50")
    response = admin.get(DOWNLOAD + "?environment=sandbox")
    assert response.headers["Content-Disposition"].endswith("kpa-mturk-create-hit-sandbox.json")
    assert json.loads(response.get_data(as_text=True))["QualificationRequirements"] == [
        {"QualificationTypeId": "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6", "Comparator": "Exists"}]


def test_without_a_reward_there_is_no_file_but_a_message(admin):
    response = admin.get(DOWNLOAD)
    assert response.status_code == 302
    assert "set the MTurk reward" in admin.get(response.location).get_data(as_text=True)


def test_without_https_there_is_no_file_but_a_message(app, admin):
    _save(admin, reward="0.50")
    app.config["PUBLIC_BASE_URL"] = "http://annotate.example.org"
    assert "is not https" in admin.get(admin.get(DOWNLOAD).location).get_data(as_text=True)


def test_the_prolific_screeners_are_listed_beside_the_study_link(admin):
    save_link(stored(Project, slug="kpa"), "prolific", 4, "DONE2")
    db.session.commit()
    _save(admin, approval_rate_above="90", countries="GB")
    html = admin.get(PAGE).get_data(as_text=True)
    prolific = html[html.index('id="crowd-prolific"'):html.index('id="crowd-mturk"')]
    assert "Approval Rate: above 90%" in prolific and "Current Country of Residence: United Kingdom (GB)" in prolific


def test_saving_the_quality_settings_keeps_the_crowd_filters(admin):
    from annotator.quality import QUALITY_OPTIONS
    _save(admin, masters="y", reward="0.50")
    page = admin.get("/admin/projects/kpa").get_data(as_text=True)
    data = {o.name: str(o.default) if o.default is not None else "" for o in QUALITY_OPTIONS if o.type is not bool}
    assert admin.post("/admin/projects/kpa/quality", data={**data, "control_rate": "0.2",
                                                           "csrf_token": csrf_token(page)}).status_code == 302
    project = stored(Project, slug="kpa")
    assert project.quality["control_rate"] == 0.2 and crowd_settings(project)["masters"] is True


@pytest.mark.parametrize("method, path", [("get", PAGE), ("post", PAGE + "/filters"), ("get", DOWNLOAD)])
def test_annotators_may_not_see_or_change_the_crowd_settings(app, admin, login, make_user, method, path):
    make_user("ann")
    client = login("ann")
    token = csrf_token(client.get("/account/password").get_data(as_text=True))  # a valid token of ann's session
    response = getattr(client, method)(path, data={**FORM, "masters": "y", "csrf_token": token})
    assert response.status_code == 403
    assert crowd_settings(stored(Project, slug="kpa"))["masters"] is False
