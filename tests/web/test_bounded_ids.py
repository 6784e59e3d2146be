"""Ids past the columns' range are 404s (JSON in the API), never a 500 from the database driver."""
from __future__ import annotations

import pytest

from tests.web.conftest import csrf_token

HUGE = ["2147483648", "999999999999", "1" + "0" * 29]


@pytest.mark.parametrize("number", HUGE)
def test_api_submit_with_a_huge_id_is_a_json_404(api_client, kpa_project, number):
    kpa_project()
    response = api_client("ann").post(f"/api/v1/assignments/{number}/submit", json={"answer": {"matches": []}})
    assert response.status_code == 404 and response.is_json


@pytest.mark.parametrize("number", HUGE)
def test_hit_submit_with_a_huge_id_is_a_404(login, make_user, kpa_project, number):
    kpa_project()
    make_user("ann")
    client = login("ann")
    token = csrf_token(client.get("/account/password").get_data(as_text=True))
    assert client.post(f"/p/kpa/a/{number}", data={"csrf_token": token}).status_code == 404


@pytest.mark.parametrize("number", HUGE)
def test_admin_pages_with_a_huge_id_are_404s(login, make_user, number):
    make_user("boss", role="admin")
    client = login("boss")
    for url in (f"/admin/annotators/{number}", f"/admin/leaderboards/{number}",
                f"/admin/leaderboards/1/submissions/{number}"):
        assert client.get(url).status_code == 404, url


def test_the_largest_id_still_reaches_the_view(api_client, kpa_project):
    kpa_project()
    response = api_client("ann").post("/api/v1/assignments/2147483647/submit", json={"answer": {"matches": []}})
    assert response.status_code == 404 and "no assignment 2147483647" in response.get_json()["error"]
