"""The admin's dataset statistics page (/admin/projects/SLUG/stats): the task's dataset table, other projects of
the format beside it, and drawing a seeded split; admins only."""
from __future__ import annotations

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import ProjectData
from tests.conftest import DATA, load_project
from tests.web.conftest import csrf_token


def _admin(make_user, login):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


def _draw(client, slug: str, sizes: str, seed: str = "3", names: str = "train,dev,test"):  # type: ignore[no-untyped-def]
    page = client.get(f"/admin/projects/{slug}/stats").get_data(as_text=True)
    posted = client.post(f"/admin/projects/{slug}/split", data={"sizes": sizes, "seed": seed, "names": names,
                                                                "csrf_token": csrf_token(page)})
    assert posted.status_code == 302
    return client.get(posted.headers["Location"])  # the statistics page with the message


def test_the_project_page_links_to_the_statistics(app, make_user, login, kpa_project):
    kpa_project()
    html = _admin(make_user, login).get("/admin/projects/kpa").get_data(as_text=True)
    assert 'id="dataset-stats-link"' in html and "/admin/projects/kpa/stats" in html


def test_the_page_shows_the_tasks_dataset_table(app, make_user, login, kpa_project):
    kpa_project()
    html = _admin(make_user, login).get("/admin/projects/kpa/stats").get_data(as_text=True)
    assert 'id="table-dataset"' in html and "strict coverage" in html
    assert "<td class=\"num\">0.7692</td>" in html  # 20 of the excerpt's 26 arguments have a positive key point
    assert "flask stats kpa" in html


def test_other_projects_of_the_format_can_be_added_as_rows(app, make_user, login, kpa_project):
    kpa_project()
    load_project("kpa2021", DATA / "kpa2021", "kpa-copy", split="test")
    client = _admin(make_user, login)
    assert 'value="kpa-copy"' in client.get("/admin/projects/kpa/stats").get_data(as_text=True)
    html = client.get("/admin/projects/kpa/stats?with=kpa-copy").get_data(as_text=True)
    assert ">kpa/test</td>" in html and ">kpa-copy/test</td>" in html and ">all</td>" in html


def test_a_format_without_a_table_says_so_and_still_offers_the_split(app, make_user, login):
    load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "ru")
    html = _admin(make_user, login).get("/admin/projects/ru/stats").get_data(as_text=True)
    assert "the ruarg2022 format declares no dataset table" in html and 'id="split"' in html


def test_drawing_a_split_keeps_it_and_the_table_follows_it(app, make_user, login, kpa_project):
    kpa_project()
    html = _draw(_admin(make_user, login), "kpa", "18,4,4").get_data(as_text=True)
    assert "Split drawn with seed 3: train 18, dev 4, test 4." in html
    assert ">train</td><td class=\"num\">1</td><td class=\"num\">18</td>" in html
    assert 'id="split-drawn"' in html


def test_the_split_csv_lists_each_items_split(app, make_user, login, kpa_project):
    kpa_project()
    client = _admin(make_user, login)
    _draw(client, "kpa", "18,4,4")
    lines = client.get("/admin/projects/kpa/split.csv").get_data(as_text=True).splitlines()
    assert lines[0] == "item,split" and len(lines) == 27
    assert sorted(line.rsplit(",", 1)[1] for line in lines[1:]).count("train") == 18


def test_a_split_that_does_not_fit_is_refused_in_words_and_changes_nothing(app, make_user, login, kpa_project):
    kpa_project()
    html = _draw(_admin(make_user, login), "kpa", "2741,392,743").get_data(as_text=True)
    assert "No split drawn: the split sizes 2741,392,743 add up to 3876, but the project has 26 items" in html
    assert db.session.scalar(select(ProjectData).where(ProjectData.name == "item_split")) is None


def test_a_split_without_a_seed_is_refused(app, make_user, login, kpa_project):
    kpa_project()
    html = _draw(_admin(make_user, login), "kpa", "18,4,4", seed="").get_data(as_text=True)
    assert "No split drawn" in html
    assert db.session.scalar(select(ProjectData).where(ProjectData.name == "item_split")) is None


def test_annotators_are_refused(app, make_user, login, kpa_project):
    kpa_project()
    make_user("ann")
    client = login("ann")
    assert client.get("/admin/projects/kpa/stats").status_code == 403
    assert client.get("/admin/projects/kpa/split.csv").status_code == 403
    token = csrf_token(client.get("/account/password").get_data(as_text=True))
    response = client.post("/admin/projects/kpa/split", data={"sizes": "18,4,4", "seed": "1", "names": "train,dev,test",
                                                              "csrf_token": token})
    assert response.status_code == 403
    assert db.session.scalar(select(ProjectData).where(ProjectData.name == "item_split")) is None
