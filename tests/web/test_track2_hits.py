"""The Track-2 HITs over the test client and the API, and the ranking page."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Label
from tests.conftest import DATA, load_project, stored
from tests.web.conftest import csrf_token, open_hit_page

FIXTURE = DATA / "kpa2021_track2"


@pytest.fixture
def check(app):  # type: ignore[no-untyped-def]
    return load_project("kpa2021-check", FIXTURE, "chk", split="test")


@pytest.fixture
def compare(app):  # type: ignore[no-untyped-def]
    return load_project("kpa2021-compare", FIXTURE, "cmp", split="test")


def test_the_check_hit_shows_argument_and_key_point_but_no_system(check, make_user, login):
    make_user("ann")
    client = login("ann")
    page = open_hit_page(client, "chk").get_data(as_text=True)
    assert "Key point" in page and 'name="verdict"' in page and "Faulty key point" in page
    assert not re.search(r"\b(alpha|beta|gamma)\b", page)
    action = re.search(r'action="(/p/chk/a/\d+)"', page).group(1)
    assert client.post(action, data={"csrf_token": csrf_token(page), "verdict": "faulty"}).status_code == 302
    assert stored(Assignment, status="submitted").answer == {"verdict": "faulty"}


def test_the_check_api_item_has_the_documented_shape(check, api_client):
    lease = api_client("bot").post("/api/v1/projects/chk/next").get_json()["assignment"]
    assert list(lease["item"]) == ["id", "topic", "stance", "argument", "key_point"]
    assert set(lease["item"]["key_point"]) == {"id", "text"}


def test_the_comparison_api_shows_the_sets_in_the_drawn_order_and_stores_system_names(compare, api_client):
    api = api_client("bot")
    lease = api.post("/api/v1/projects/cmp/next").get_json()["assignment"]
    assert list(lease["item"]) == ["id", "topic", "stance", "summary_a", "summary_b"]
    again = api.post("/api/v1/projects/cmp/next").get_json()["assignment"]
    assert again == lease  # a resumed lease shows the same order
    shown = stored(Assignment, id=lease["id"]).presentation
    item = stored(Assignment, id=lease["id"]).item
    assert lease["item"]["summary_a"] == item.payload["summaries"][shown["a"]]
    answer = {"stance_a": "all_contest", "stance_b": "most_contest", "less_redundant": "A", "more_central": "B"}
    assert api.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": answer}).status_code == 201
    labels = dict(db.session.execute(select(Label.field, Label.value).where(Label.unit == "pair")).all())
    assert labels == {"less_redundant": shown["a"], "more_central": shown["b"]}
    bad = api.post("/api/v1/projects/cmp/next").get_json()["assignment"]
    refused = api.post(f"/api/v1/assignments/{bad['id']}/submit", json={"answer": {**answer, "more_central": "C"}})
    assert refused.status_code == 422


def test_the_comparison_page_never_names_the_systems(compare, make_user, login):
    make_user("ann")
    page = open_hit_page(login("ann"), "cmp").get_data(as_text=True)
    assert "Summary A" in page and "Summary B" in page and "less redundant" in page
    assert not re.search(r"\b(alpha|beta|gamma)\b", page)


def test_the_ranking_page_and_the_leaderboards_list_it(check, compare, make_user, login):
    make_user("boss", role="admin")
    admin = login("boss")
    assert "Rankings from projects" in admin.get("/admin/leaderboards/").get_data(as_text=True)
    assert 'href="/admin/projects/cmp/ranking"' in admin.get("/admin/projects/cmp").get_data(as_text=True)
    html = admin.get("/admin/projects/chk/ranking").get_data(as_text=True)
    assert "mAP by system" in html and "alpha" in html
    html = admin.get("/admin/projects/cmp/ranking").get_data(as_text=True)
    assert "no ranking, because" in html  # nothing judged yet: explained, not nan
    assert "nan" not in html


def test_projects_without_a_ranking_have_no_ranking_page_and_annotators_none_at_all(check, kpa_project, make_user,
                                                                                    login):
    kpa_project()
    make_user("boss", role="admin")
    assert login("boss").get("/admin/projects/kpa/ranking").status_code == 404
    make_user("ann")
    assert login("ann").get("/admin/projects/chk/ranking").status_code == 403
