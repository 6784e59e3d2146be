"""The web import of KPA-2021 files with "Serve the project from the task's definition" ticked (as it is by
default; unticked, the import is refused: the built-in types are gone): the project is a declared project of the
campaign's definition, its admin page, items page and export zip answer (the zip's official files those of the
import), and an annotator's HIT is the declared page, whose posted answer is stored as the definition's answer and
rows (read back in a fresh session)."""
from __future__ import annotations

import io
import re
import zipfile
from html import unescape

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Label, Project, User
from tests.conftest import DATA
from tests.web.conftest import csrf_token, open_hit_page

KPA = DATA / "kpa2021"
KPA_FILES = ("arguments_test.csv", "key_points_test.csv", "labels_test.csv")
TRACK2 = DATA / "kpa2021_track2"


def _track2_zip() -> list[tuple[io.BytesIO, str]]:
    """The Track-2 fixture's arguments and systems/NAME/ folders as one zip, as an organiser uploads them."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.write(TRACK2 / "arguments_test.csv", arcname="arguments_test.csv")
        for path in sorted(p for p in (TRACK2 / "systems").rglob("*") if p.is_file()):
            archive.write(path, arcname=str(path.relative_to(TRACK2)))
    buffer.seek(0)
    return [(buffer, "track2.zip")]


def _upload_declared(login, make_user, format_name: str, files, **fields):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    client = login("boss")
    url = f"/admin/projects/new/{format_name}"
    page = client.get(url).get_data(as_text=True)
    assert '<input checked id="declared" name="declared" type="checkbox" value="y">' in page   # ticked by default
    data = {"csrf_token": csrf_token(page), "name": "Declared", "slug": "dec", "k": "3", "lease_minutes": "20",
            "guidelines": "", "files": files, "split": "test", "declared": "y", **fields}
    response = client.post(url, content_type="multipart/form-data", data=data)
    assert response.status_code == 302, response.get_data(as_text=True)
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == "dec")).one()


def _admin_pages_answer(login) -> zipfile.ZipFile:  # type: ignore[no-untyped-def]
    client = login("boss")
    assert client.get("/admin/projects/dec").status_code == 200
    assert client.get("/admin/projects/dec/items/").status_code == 200
    response = client.get("/admin/projects/dec/export.zip")
    assert response.status_code == 200
    return zipfile.ZipFile(io.BytesIO(response.data))


def _annotators_vote(login, make_user, form: dict[str, str]) -> Assignment:  # type: ignore[no-untyped-def]
    make_user("ann")
    client = login("ann")
    html = open_hit_page(client, "dec").get_data(as_text=True)
    action = re.search(r'action="(/p/dec/a/\d+)"', html).group(1)
    response = client.post(action, data={"csrf_token": csrf_token(html), **form})
    assert response.status_code == 302, response.get_data(as_text=True)
    db.session.remove()
    return db.session.scalars(select(Assignment).join(User, User.id == Assignment.user_id)
                              .where(User.username == "ann", Assignment.status == SUBMITTED)).one()


def _rows(vote: Assignment) -> list[tuple[str, str, str]]:
    return sorted((unit, field, value) for unit, field, value in db.session.execute(
        select(Label.unit, Label.field, Label.value).where(Label.assignment_id == vote.id)))


# --- Track 1: key-point match -------------------------------------------------------------------------------------

def _match_files() -> list[tuple[io.BytesIO, str]]:
    return [(io.BytesIO((KPA / name).read_bytes()), name) for name in KPA_FILES]


def test_the_match_upload_with_the_box_ticked_makes_a_declared_project_of_match_yaml(login, make_user):
    project = _upload_declared(login, make_user, "kpa2021", _match_files())
    assert (project.task_type, project.definition["name"], project.source) == (
        "custom", "Argument / key-point match (KPA-2021)", {"format": "kpa2021", "split": "test"})


def test_the_match_projects_admin_pages_answer_and_its_zip_holds_the_imported_files(login, make_user):
    _upload_declared(login, make_user, "kpa2021", _match_files())
    with _admin_pages_answer(login) as archive:
        for name in ("arguments_test.csv", "key_points_test.csv"):
            assert archive.read(name) == (KPA / name).read_bytes(), name
        assert archive.read("labels_test.csv") == b"arg_id,key_point_id,label\n"
    stats = login("boss").get("/admin/projects/dec/stats")
    assert stats.status_code == 200 and "The data set by split" in stats.get_data(as_text=True)


def test_an_annotator_ticks_key_points_on_the_declared_page_and_they_are_stored_as_the_definitions_rows(login,
                                                                                                      make_user):
    _upload_declared(login, make_user, "kpa2021", _match_files())
    vote = _annotators_vote(login, make_user, {"q_matches": ["kp_1_0", "kp_1_2"]})
    key_points = [kp["id"] for kp in vote.item.payload["key_points"]]
    assert vote.answer == {"matches": ["kp_1_0", "kp_1_2"]}
    assert _rows(vote) == sorted((kp, "matches", "1" if kp in ("kp_1_0", "kp_1_2") else "0") for kp in key_points)


# --- Track 2: the match check -------------------------------------------------------------------------------------

def test_the_check_upload_with_the_box_ticked_makes_a_declared_project_of_match_check_yaml(login, make_user):
    project = _upload_declared(login, make_user, "kpa2021-check", _track2_zip())
    assert (project.task_type, project.definition["name"], project.source) == (
        "custom", "Key-point match check (KPA-2021 Track 2)", {"format": "kpa2021-check", "split": "test"})
    assert len(project.items) == 39


def test_the_check_projects_admin_pages_answer_and_its_zip_holds_the_ranking(login, make_user):
    _upload_declared(login, make_user, "kpa2021-check", _track2_zip())
    assert "mAP by system" in login("boss").get("/admin/projects/dec/ranking").get_data(as_text=True)
    with _admin_pages_answer(login) as archive:
        assert {"judgments.csv", "pairs.csv", "map.csv", "map_groups.csv", "report.json"} <= set(archive.namelist())
        assert archive.read("judgments.csv").decode().splitlines() == [
            "item,arg_id,key_point,system,system_key_point_id,score,annotator,verdict"]


def test_a_judge_chooses_a_verdict_on_the_declared_page_and_it_is_stored_as_the_definitions_row(login, make_user):
    _upload_declared(login, make_user, "kpa2021-check", _track2_zip())
    vote = _annotators_vote(login, make_user, {"q_verdict": "faulty"})
    assert vote.answer == {"verdict": "faulty"}
    assert _rows(vote) == [("verdict", "verdict", "faulty")]


# --- Track 2: the key-point set comparison ------------------------------------------------------------------------

def test_the_comparison_upload_with_the_box_ticked_makes_a_declared_project_of_set_compare_yaml(login, make_user):
    project = _upload_declared(login, make_user, "kpa2021-compare", _track2_zip())
    assert (project.task_type, project.definition["name"], project.source) == (
        "custom", "Key-point set comparison (KPA-2021 Track 2)", {"format": "kpa2021-compare", "split": "test"})
    assert len(project.items) == 6


def test_the_comparison_projects_admin_pages_answer_and_its_zip_holds_the_judgments(login, make_user):
    _upload_declared(login, make_user, "kpa2021-compare", _track2_zip())
    assert "Strengths per question" in login("boss").get("/admin/projects/dec/ranking").get_data(as_text=True)
    with _admin_pages_answer(login) as archive:
        assert {"judgments.csv", "strengths.csv", "report.json"} <= set(archive.namelist())
        assert archive.read("judgments.csv").decode().splitlines() == [
            "item,topic,stance,system_a,system_b,annotator,stance_a,stance_b,less_redundant,more_central"]


def test_a_judge_compares_on_the_declared_page_and_the_vote_names_the_systems_as_shown(login, make_user):
    _upload_declared(login, make_user, "kpa2021-compare", _track2_zip())
    vote = _annotators_vote(login, make_user, {"q_each_summary__0__stance": "all_support",
                                               "q_each_summary__1__stance": "most_contest",
                                               "q_less_redundant": "A", "q_more_central": "equal"})
    assert vote.answer == {"each_summary": {"A": {"stance": "all_support"}, "B": {"stance": "most_contest"}},
                           "less_redundant": "A", "more_central": "equal"}
    first, second = vote.item.payload["systems"]
    shown_a, shown_b = (second, first) if vote.presentation["swapped"] else (first, second)
    rows = _rows(vote)
    assert (shown_a, "stance", "all_support") in rows and (shown_b, "stance", "most_contest") in rows
    pair = f'["{first}", "{second}"]'
    assert (pair, "less_redundant", "A" if shown_a == first else "B") in rows
    assert (pair, "more_central", "equal") in rows


def test_the_comparison_upload_keeps_the_equal_and_check_project_settings_given_on_the_form(login, make_user):
    project = _upload_declared(login, make_user, "kpa2021-compare", _track2_zip(), equal="drop", check_project="chk")
    settings = project.settings
    assert (project.task_type, settings["equal"], settings["check_project"]) == ("custom", "drop", "chk")


def test_a_declared_comparisons_settings_page_links_a_check_project(login, make_user):
    _upload_declared(login, make_user, "kpa2021-compare", _track2_zip())
    client = login("boss")
    page = client.get("/admin/projects/dec").get_data(as_text=True)
    assert 'name="check_project"' in page and 'name="equal"' in page
    data = {"csrf_token": csrf_token(page), "name": "Declared", "k": "3", "lease_minutes": "20", "guidelines": "",
            "equal": "half", "check_project": "chk"}
    assert client.post("/admin/projects/dec", data=data).status_code == 302
    db.session.remove()
    assert db.session.scalars(select(Project).where(Project.slug == "dec")).one().settings["check_project"] == "chk"


def test_the_check_upload_keeps_its_map_variant_and_writes_its_tie_into_the_definition(login, make_user):
    project = _upload_declared(login, make_user, "kpa2021-check", _track2_zip(), tie="match", map_variant="plain-ap")
    assert project.settings == {"map_variant": "plain-ap"}
    assert project.definition["questions"][0]["gold"]["ties"] == "yes"


@pytest.mark.parametrize(("format_name", "built_in"), [("kpa2021", "kp_match"), ("kpa2021-check", "kp_match_check"),
                                                       ("kpa2021-compare", "kp_set_compare")])
def test_an_upload_with_the_box_unticked_is_refused_saying_the_built_in_type_is_gone(login, make_user, format_name,
                                                                                      built_in):
    """The built-in types are gone (docs/one-engine.md, KPA step 6): the form refuses, saying why, and keeps nothing."""
    make_user("boss", role="admin")
    client = login("boss")
    url = f"/admin/projects/new/{format_name}"
    page = client.get(url).get_data(as_text=True)
    files = _match_files() if format_name == "kpa2021" else _track2_zip()
    data = {"csrf_token": csrf_token(page), "name": "Old", "slug": "old", "k": "3", "lease_minutes": "20",
            "guidelines": "", "files": files, "split": "test"}   # no "declared": the box unticked
    response = client.post(url, content_type="multipart/form-data", data=data)
    html = unescape(response.get_data(as_text=True))
    assert response.status_code == 400 and f"the built-in {built_in} HIT type is gone" in html
    db.session.remove()
    assert db.session.scalars(select(Project).where(Project.slug == "old")).one_or_none() is None
