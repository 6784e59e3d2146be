"""`flask export kpa2021`: the shared task's files exactly, gold from the votes, and votes.csv."""
from __future__ import annotations

import io
import zipfile
from datetime import timedelta

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, utcnow
from annotator.engine import assignment as engine
from tests.conftest import DATA, SHARED_DATA


def _export(app, tmp_path, slug="kpa"):  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    result = app.test_cli_runner().invoke(args=["export", "kpa2021", "--project", slug, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _vote(project, annotators, answers_for_first_item):  # type: ignore[no-untyped-def]
    """Each annotator labels the first item (arg_1_0) with the given answer.

    The leases are made by hand: the engine would spread the annotators over different items.
    """
    item = db.session.scalar(select(Item).where(Item.external_id == "arg_1_0"))
    for user, matches in zip(annotators, answers_for_first_item):
        lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                           expires_at=utcnow() + timedelta(minutes=5))
        db.session.add(lease)
        db.session.commit()
        engine.submit(lease.id, user, {"matches": matches})


def test_export_of_an_imported_split_is_byte_identical(app, kpa_project, tmp_path):
    kpa_project()
    out = _export(app, tmp_path)
    for name in ("arguments_test.csv", "key_points_test.csv"):
        assert (out / name).read_bytes() == (DATA / "kpa2021" / name).read_bytes(), name


@pytest.mark.shared_data
def test_export_of_the_official_dev_split_is_byte_identical(app, tmp_path):
    official = SHARED_DATA / "kpa2021" / "kpm_data"
    app.test_cli_runner().invoke(args=["import", "kpa2021", str(official), "--split", "dev", "--project", "dev"])
    out = _export(app, tmp_path, slug="dev")
    for name in ("arguments_dev.csv", "key_points_dev.csv"):
        assert (out / name).read_bytes() == (official / name).read_bytes(), name


def test_labels_hold_decided_pairs_and_leave_undecided_out(app, kpa_project, make_user, tmp_path):
    project = kpa_project(k=5)
    users = [make_user(f"ann{i}") for i in range(5)]
    # kp_1_0: 5/5 match; kp_1_1: 2/5 undecided; kp_1_2..4: 0/5 no match
    _vote(project, users, [["kp_1_0", "kp_1_1"], ["kp_1_0", "kp_1_1"], ["kp_1_0"], ["kp_1_0"], ["kp_1_0"]])
    out = _export(app, tmp_path)
    assert (out / "labels_test.csv").read_text() == (
        "arg_id,key_point_id,label\narg_1_0,kp_1_0,1\narg_1_0,kp_1_2,0\narg_1_0,kp_1_3,0\narg_1_0,kp_1_4,0\n")


def test_votes_csv_spells_out_the_counts_and_undecided(app, kpa_project, make_user, tmp_path):
    project = kpa_project(k=5)
    users = [make_user(f"ann{i}") for i in range(5)]
    _vote(project, users, [["kp_1_0", "kp_1_1"], ["kp_1_0", "kp_1_1"], ["kp_1_0"], ["kp_1_0"], []])
    lines = (_export(app, tmp_path) / "votes.csv").read_text().splitlines()
    assert lines[0] == "arg_id,key_point_id,annotators,matched,share,label"
    assert lines[1] == "arg_1_0,kp_1_0,5,4,0.8,1"
    assert lines[2] == "arg_1_0,kp_1_1,5,2,0.4,undecided"
    assert lines[3] == "arg_1_0,kp_1_2,5,0,0.0,0"


def test_before_any_vote_the_labels_file_holds_its_header_only(app, kpa_project, tmp_path):
    kpa_project()
    out = _export(app, tmp_path)
    assert (out / "labels_test.csv").read_text() == "arg_id,key_point_id,label\n"
    assert (out / "votes.csv").read_text() == "arg_id,key_point_id,annotators,matched,share,label\n"


def test_export_of_an_unknown_project_fails_clearly(app, tmp_path):
    result = app.test_cli_runner().invoke(args=["export", "kpa2021", "--project", "nope", "--out", str(tmp_path)])
    assert result.exit_code != 0 and "no project 'nope'" in result.output


def test_admin_downloads_the_same_export_as_a_zip(app, kpa_project, make_user, login, tmp_path):
    kpa_project()
    make_user("boss", role="admin")
    response = login("boss").get("/admin/projects/kpa/export.zip")
    assert response.status_code == 200 and response.mimetype == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.data))
    assert sorted(archive.namelist()) == ["arguments_test.csv", "key_points_test.csv", "labels_test.csv", "votes.csv"]
    assert archive.read("arguments_test.csv") == (DATA / "kpa2021" / "arguments_test.csv").read_bytes()
