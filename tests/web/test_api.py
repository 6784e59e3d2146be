"""The JSON API: bearer tokens, next / submit / progress, and its error answers."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import ApiToken, Assignment, Item, token_digest, utcnow
from annotator.people.accounts import issue_token


def test_requests_without_a_token_are_refused(app, kpa_project):
    kpa_project()
    response = app.test_client().post("/api/v1/projects/kpa/next")
    assert response.status_code == 401 and "Bearer" in response.get_json()["error"]


def test_requests_with_an_unknown_token_are_refused(app, kpa_project):
    kpa_project()
    response = app.test_client().post("/api/v1/projects/kpa/next", headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401


def test_tokens_are_stored_as_their_sha256_only(make_user):
    user = make_user("ann")
    token = issue_token(user)
    db.session.commit()
    assert db.session.scalar(select(ApiToken.digest)) == token_digest(token) != token


def test_next_returns_the_item_in_the_documented_shape(api_client, kpa_project):
    """A declared project's lease (docs/api.md): the item's shown fields and options, and its questions."""
    kpa_project()
    response = api_client("ann").post("/api/v1/projects/kpa/next")
    assert response.status_code == 200
    assignment = response.get_json()["assignment"]
    assert set(assignment) == {"id", "item", "expires_at", "questions"}
    assert [q["id"] for q in assignment["questions"]] == ["matches"]
    item = assignment["item"]
    assert {"id", "topic", "stance", "argument", "key_points"} <= set(item)
    assert item["id"] == "arg_1_0" and item["stance"] == -1
    assert item["key_points"][0] == {"id": "kp_1_0", "text": item["key_points"][0]["text"]}
    assert all(set(kp) == {"id", "text"} for kp in item["key_points"])   # a key point's position is never sent


def test_next_never_reveals_imported_reference_labels(api_client, kpa_project):
    """The item's known answer (the labels file's 1 / 0 per key point) is in no key and no value of the lease;
    "label" appears only as an option's words (the declared API's questions)."""
    kpa_project()
    body = api_client("ann").post("/api/v1/projects/kpa/next").get_json()
    reference = db.session.scalar(select(Item.reference).where(Item.external_id == "arg_1_0"))
    assert reference and set(reference.values()) <= {0, 1}

    def walk(value):  # type: ignore[no-untyped-def]
        if isinstance(value, dict):
            assert "reference" not in value and value != reference
            for key, inner in value.items():
                assert key != "label" or isinstance(inner, str), (key, inner)   # option words only
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)
    walk(body)


def test_next_answers_204_when_nothing_is_left(api_client, kpa_project):
    kpa_project(k=1)
    client = api_client("ann")
    for _ in range(26):
        lease = client.post("/api/v1/projects/kpa/next").get_json()["assignment"]
        client.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {"matches": []}})
    assert client.post("/api/v1/projects/kpa/next").status_code == 204


def test_next_for_an_unknown_project_is_a_json_404(api_client):
    response = api_client("ann").post("/api/v1/projects/nope/next")
    assert response.status_code == 404 and "nope" in response.get_json()["error"]


def test_submit_answers_201_first_and_200_with_the_same_vote_on_repeat(api_client, kpa_project):
    kpa_project()
    client = api_client("ann")
    lease = client.post("/api/v1/projects/kpa/next").get_json()["assignment"]
    url = f"/api/v1/assignments/{lease['id']}/submit"
    first = client.post(url, json={"answer": {"matches": ["kp_1_1"]}})
    again = client.post(url, json={"answer": {"matches": []}})
    assert first.status_code == 201 and again.status_code == 200
    assert again.get_json()["assignment"]["answer"] == {"matches": ["kp_1_1"]}
    assert db.session.scalar(select(Item.done_count).where(Item.external_id == "arg_1_0")) == 1


def test_submit_of_a_key_point_not_in_the_item_is_a_422(api_client, kpa_project):
    kpa_project()
    client = api_client("ann")
    lease = client.post("/api/v1/projects/kpa/next").get_json()["assignment"]
    response = client.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {"matches": ["kp_1_9"]}})
    assert response.status_code == 422 and "kp_1_9" in response.get_json()["error"]


def test_submit_of_someone_elses_assignment_is_a_403(api_client, kpa_project):
    kpa_project()
    lease = api_client("ann").post("/api/v1/projects/kpa/next").get_json()["assignment"]
    response = api_client("bob").post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {"matches": []}})
    assert response.status_code == 403 and "another annotator" in response.get_json()["error"]


def test_submit_after_expiry_on_a_full_item_is_a_409(api_client, kpa_project):
    kpa_project(k=1)
    ann, bob = api_client("ann"), api_client("bob")
    lease = ann.post("/api/v1/projects/kpa/next").get_json()["assignment"]
    stale = db.session.get(Assignment, lease["id"])
    stale.expires_at = utcnow() - timedelta(minutes=1)
    db.session.commit()
    taken = bob.post("/api/v1/projects/kpa/next").get_json()["assignment"]
    assert taken["item"]["id"] == lease["item"]["id"]
    assert bob.post(f"/api/v1/assignments/{taken['id']}/submit", json={"answer": {"matches": []}}).status_code == 201
    response = ann.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {"matches": []}})
    assert response.status_code == 409 and "ran out" in response.get_json()["error"]


def test_submit_without_an_answer_object_is_a_400(api_client, kpa_project):
    kpa_project()
    client = api_client("ann")
    lease = client.post("/api/v1/projects/kpa/next").get_json()["assignment"]
    response = client.post(f"/api/v1/assignments/{lease['id']}/submit", data="not json")
    assert response.status_code == 400 and "answer" in response.get_json()["error"]


def test_submit_of_an_unknown_assignment_is_a_404(api_client, kpa_project):
    kpa_project()
    response = api_client("ann").post("/api/v1/assignments/999/submit", json={"answer": {"matches": []}})
    assert response.status_code == 404


def test_progress_counts_this_annotators_done_and_available(api_client, kpa_project):
    kpa_project()
    client = api_client("ann")
    lease = client.post("/api/v1/projects/kpa/next").get_json()["assignment"]
    client.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {"matches": []}})
    body = client.get("/api/v1/projects/kpa/progress").get_json()
    assert body == {"project": "kpa", "done": 1, "available": 26}


def test_progress_shows_project_totals_to_admins_only(api_client, kpa_project):
    kpa_project(k=3)
    body = api_client("boss", role="admin").get("/api/v1/projects/kpa/progress").get_json()
    assert body["project_progress"] == {"items": 26, "complete": 0, "votes": 0, "votes_needed": 78,
                                        "open_leases": 0}
    assert "project_progress" not in api_client("ann").get("/api/v1/projects/kpa/progress").get_json()


@pytest.mark.parametrize("closed", ["listed for others", "archived"])
def test_progress_of_a_project_closed_to_the_caller_answers_as_a_missing_one_does(api_client, kpa_project, closed):
    project = kpa_project()
    if closed == "archived":
        project.archived = True
    else:
        project.audience = "listed"  # and ann is not on its list
    db.session.commit()
    client = api_client("ann")
    answer, missing = client.get("/api/v1/projects/kpa/progress"), client.get("/api/v1/projects/nope/progress")
    assert answer.status_code == missing.status_code == 404
    assert answer.get_json() == {"error": "There is no project 'kpa'.", "status": 404}  # no counts
    assert missing.get_json() == {"error": "There is no project 'nope'.", "status": 404}


def test_progress_of_a_listed_project_still_gives_admins_its_counts(api_client, kpa_project):
    kpa_project().audience = "listed"
    db.session.commit()
    body = api_client("boss", role="admin").get("/api/v1/projects/kpa/progress").get_json()
    assert body["available"] == 26 and body["project_progress"]["items"] == 26


def test_api_needs_no_csrf_token_but_refuses_cookies(app, login, make_user, kpa_project):
    """Cookie sessions never authenticate the API, so the CSRF exemption opens no hole."""
    make_user("ann")
    kpa_project()
    assert login("ann").post("/api/v1/projects/kpa/next").status_code == 401


def test_api_answers_set_no_cookie_and_leave_the_browser_session_alone(app, login, make_user, api_client,
                                                                       kpa_project):
    """The API opens no cookie session (bearer tokens only): nothing is read, re-signed or sent back."""
    make_user("ann")
    kpa_project()
    browser = login("ann")
    token = api_client("bot").token
    answer = browser.post("/api/v1/projects/kpa/next", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200
    assert "Set-Cookie" not in answer.headers
    assert browser.get("/").status_code == 200  # the page session still works
