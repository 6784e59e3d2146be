"""The Track-2 HITs over the test client and the API, and the ranking page.

The projects are declared projects of match_check.yaml and set_compare.yaml (the built-in Track-2 types are gone:
docs/one-engine.md); their API items and answers are also tested over every recorded case in
test_api_item_keys_declared_kpa2021.py and test_api_answer_shapes_declared_kpa2021.py."""
from __future__ import annotations

import io
import re
import shutil
import zipfile

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Label, Project, ProjectData
from tests.cli.test_kpa2021_track2 import _answer_all
from tests.conftest import DATA, load_project, stored
from tests.support.kpa_track2_tables import TABLE_2_TOP_10, track_1_leaderboard
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
    assert "Key point" in page and 'name="q_verdict"' in page and "Faulty key point" in page
    assert not re.search(r"\b(alpha|beta|gamma)\b", page)
    action = re.search(r'action="(/p/chk/a/\d+)"', page).group(1)
    assert client.post(action, data={"csrf_token": csrf_token(page), "q_verdict": "faulty"}).status_code == 302
    assert stored(Assignment, status="submitted").answer == {"verdict": "faulty"}


def test_the_check_api_item_has_the_documented_shape(check, api_client):
    """Today's keys (a key point with its id and text) beside the definition's own, and no system."""
    lease = api_client("bot").post("/api/v1/projects/chk/next").get_json()["assignment"]
    assert {"id", "topic", "stance", "argument", "key_point"} <= set(lease["item"])
    assert set(lease["item"]["key_point"]) == {"id", "text"} and "systems" not in lease["item"]


def test_the_comparison_api_shows_the_sets_in_the_drawn_order_and_stores_which_system_won(compare, api_client):
    """Today's summary_a / summary_b in the order the lease drew; the comparisons stored in the item's terms (A its
    first system, B its second: the export names them), whichever was shown as A."""
    api = api_client("bot")
    lease = api.post("/api/v1/projects/cmp/next").get_json()["assignment"]
    assert {"id", "topic", "stance", "summary_a", "summary_b"} <= set(lease["item"])
    again = api.post("/api/v1/projects/cmp/next").get_json()["assignment"]
    assert again == lease  # a resumed lease shows the same order
    swapped = bool(stored(Assignment, id=lease["id"]).presentation["swapped"])
    item = stored(Assignment, id=lease["id"]).item
    first, second = item.payload["systems"]
    shown_a = second if swapped else first
    assert lease["item"]["summary_a"] == [{"text": text, "prevalence": share}
                                          for text, share in item.payload["summaries"][shown_a]]
    answer = {"stance_a": "all_contest", "stance_b": "most_contest", "less_redundant": "A", "more_central": "B"}
    assert api.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": answer}).status_code == 201
    labels = dict(db.session.execute(select(Label.field, Label.value).where(
        Label.field.in_(("less_redundant", "more_central")))).all())
    in_item_terms = {first: "A", second: "B"}
    assert labels == {"less_redundant": in_item_terms[shown_a],
                      "more_central": in_item_terms[first if swapped else second]}
    bad = api.post("/api/v1/projects/cmp/next").get_json()["assignment"]
    refused = api.post(f"/api/v1/assignments/{bad['id']}/submit", json={"answer": {**answer, "more_central": "C"}})
    assert refused.status_code == 422


def test_the_comparison_page_never_names_the_systems(compare, make_user, login):
    make_user("ann")
    page = open_hit_page(login("ann"), "cmp").get_data(as_text=True)
    assert "Which summary is less redundant?" in page
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


def _systems_zip(folders: dict[str, str]) -> io.BytesIO:
    """The fixture as one upload: the arguments, and each fixture system in the folder systems/<its new name>/."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.write(FIXTURE / "arguments_test.csv", "arguments_test.csv")
        for system, folder in folders.items():
            for name in ("key_points.csv", "predictions.p"):
                archive.write(FIXTURE / "systems" / system / name, f"systems/{folder}/{name}")
    buffer.seek(0)
    return buffer


def test_the_comparison_page_shows_each_key_points_prevalence(compare, make_user, login):
    """Task README, Track 2: key points "provided to annotators together with the prevalence reported for them"."""
    make_user("ann")
    client = login("ann")
    page = open_hit_page(client, "cmp").get_data(as_text=True)
    lease = stored(Assignment, status="leased")
    for summary in lease.item.payload["summaries"].values():
        for text, share in summary:
            assert text in page and f"{round(100 * share)}%" in page, (text, share)


def test_crowd_text_of_a_key_point_is_escaped_on_the_comparison_page(app, make_user, login, tmp_path):
    folder = tmp_path / "upload"
    shutil.copytree(FIXTURE, folder)
    path = folder / "systems" / "beta" / "key_points.csv"
    path.write_text(path.read_text().replace("Safety first", "<b onmouseover=alert(1)>Safety</b> first"))
    load_project("kpa2021-compare", folder, "cmp", split="test", only=("alpha", "beta"), k=1)
    pages = []
    for name in ("ann", "bob"):  # k = 1: each sees one of the two comparisons (the con and the pro one)
        make_user(name)
        pages.append(open_hit_page(login(name), "cmp").get_data(as_text=True))
    pro = next(p for p in pages if "Safety" in p)
    assert "&lt;b onmouseover=alert(1)&gt;Safety&lt;/b&gt; first" in pro and "<b onmouseover" not in pro


def test_a_new_check_project_is_proposed_the_track_1_top_10_and_takes_them(app, make_user, login, tmp_path):
    """Task README: the Track-1 top 10 teams are evaluated in Track 2. Overview Table 2 is the leaderboard; two of
    the three systems uploaded here are named after its teams, one (pa_vincent, rank 12) is not eligible."""
    board = track_1_leaderboard()
    make_user("boss", role="admin")
    admin = login("boss")
    page = admin.get(f"/admin/projects/new/kpa2021-check?propose_from={board.id}").get_data(as_text=True)
    assert "Track 2 admits the top 10 teams of Track 1" in page and "NLP@UIT" in page
    only = re.search(r'<textarea[^>]*name="only"[^>]*>\s*([^<]*)</textarea>', page).group(1)
    assert only.split("\n") == TABLE_2_TOP_10
    upload = _systems_zip({"alpha": "smatchtopr", "beta": "enigma", "gamma": "pa_vincent"})
    response = admin.post(f"/admin/projects/new/kpa2021-check?propose_from={board.id}",
                          content_type="multipart/form-data",
                          data={"csrf_token": csrf_token(page), "name": "Check", "slug": "chk", "k": "3",
                                "lease_minutes": "30", "guidelines": "", "split": "test", "only": only, "sample": "1",
                                "seed": "0", "tie": "no_match", "map_variant": "official", "declared": "y",
                                "files": [(upload, "track2.zip")]})
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    db.session.remove()
    project = stored(Project, slug="chk")
    names = set(db.session.scalars(select(ProjectData.name).where(ProjectData.project_id == project.id)))
    assert names == {"track2:arguments", "system:smatchtopr", "system:enigma"}


def test_a_new_comparison_is_proposed_the_3_best_by_matching_and_the_check_project(check, make_user, login):
    make_user("boss", role="admin")
    admin = login("boss")
    page = admin.get("/admin/projects/new/kpa2021-compare?propose_from=chk").get_data(as_text=True)
    assert "has judged pairs of 0 system(s)" in page  # nobody has judged yet: said, nothing proposed
    _answer_all("chk", [make_user(f"u{n}") for n in range(3)],
                lambda payload, _: {"verdict": "yes" if "gamma" in {e["name"] for e in payload["systems"]} else "no"})
    page = admin.get("/admin/projects/new/kpa2021-compare?propose_from=chk").get_data(as_text=True)
    assert "the 3 best systems by matching" in page
    only = re.search(r'<textarea[^>]*name="only"[^>]*>\s*([^<]*)</textarea>', page).group(1)
    assert only.split("\n")[0] == "gamma" and len(only.split("\n")) == 3
    assert re.search(r'name="check_project"[^>]*value="chk"', page)
