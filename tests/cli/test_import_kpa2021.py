"""`flask import kpa2021`: a whole split or nothing, with bad input named by file, line and column."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Item, Project
from tests.conftest import DATA, SHARED_DATA

EXCERPT = DATA / "kpa2021"


def _import(app, directory: Path, *args: str):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=["import", "kpa2021", str(directory), "--split", "test",
                                              "--project", "kpa", *args])


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "split"
    shutil.copytree(EXCERPT, target)
    return target


def _nothing_imported() -> bool:
    return db.session.scalar(select(func.count()).select_from(Project)) == 0 and \
        db.session.scalar(select(func.count()).select_from(Item)) == 0


def test_import_creates_the_project_with_one_item_per_argument(app):
    result = _import(app, EXCERPT, "--k", "5", "--lease-minutes", "10")
    assert result.exit_code == 0, result.output
    assert "Imported 26 arguments" in result.output
    project = db.session.scalar(select(Project))   # a declared project of match.yaml, the default since the switch
    assert (project.slug, project.task_type, project.k, project.lease_minutes) == ("kpa", "custom", 5, 10)
    assert project.definition["name"] == "Argument / key-point match (KPA-2021)"
    assert project.source == {"format": "kpa2021", "split": "test"}


def test_items_hold_the_key_points_of_the_same_topic_and_stance(app):
    _import(app, EXCERPT)
    item = db.session.scalar(select(Item).where(Item.external_id == "arg_1_0"))
    assert item.payload["stance"] == -1
    assert [kp["id"] for kp in item.payload["key_points"]] == ["kp_1_0", "kp_1_1", "kp_1_2", "kp_1_3", "kp_1_4"]
    pro = db.session.scalar(select(Item).where(Item.external_id == "arg_1_188"))
    assert [kp["id"] for kp in pro.payload["key_points"]] == ["kp_1_5", "kp_1_6", "kp_1_7", "kp_1_8", "kp_1_9"]


def test_new_project_defaults_to_k_8_and_30_minute_leases(app):
    _import(app, EXCERPT)
    assert (db.session.scalar(select(Project.k)), db.session.scalar(select(Project.lease_minutes))) == (8, 30)


def test_importing_the_same_split_twice_is_refused_and_changes_nothing(app):
    _import(app, EXCERPT)
    result = _import(app, EXCERPT)
    assert result.exit_code != 0 and "already has item arg_1_0" in result.output
    assert db.session.scalar(select(func.count()).select_from(Item)) == 26


@pytest.mark.parametrize("file, edit, expected", [
    ("arguments_test.csv", lambda t: t.replace("arg_id,argument,topic,stance", "arg_id,argument,topic", 1)
     .replace(",-1\n", "\n").replace(",1\n", "\n"),
     "arguments_test.csv, line 1, column stance"),
    ("arguments_test.csv", lambda t: t.replace("government,-1\n", "government,0\n", 1),
     "arguments_test.csv, line 2, column stance"),
    ("key_points_test.csv", lambda t: t.replace("kp_1_1,", "kp_1_0,", 1),
     "key_points_test.csv, line 3, column key_point_id"),
    ("key_points_test.csv", lambda t: t + "kp_1_99,Orphan key point,Another topic,1\n",
     "key_points_test.csv, line 12, column topic"),
])
def test_bad_input_is_named_by_file_line_and_column_and_nothing_is_imported(app, tmp_path, file, edit, expected):
    split = _copy(tmp_path)
    path = split / file
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    result = _import(app, split)
    assert result.exit_code != 0
    assert expected in result.output and "Nothing was imported" in result.output
    assert _nothing_imported()


def test_undecodable_bytes_are_refused_with_their_line(app, tmp_path):
    split = _copy(tmp_path)
    path = split / "arguments_test.csv"
    lines = path.read_bytes().split(b"\n")
    lines[3] = lines[3].replace(b"the", b"th\xff", 1)
    path.write_bytes(b"\n".join(lines))
    result = _import(app, split)
    assert result.exit_code != 0 and "arguments_test.csv, line 4" in result.output and "UTF-8" in result.output
    assert _nothing_imported()


def test_an_empty_file_is_refused(app, tmp_path):
    split = _copy(tmp_path)
    (split / "key_points_test.csv").write_bytes(b"")
    result = _import(app, split)
    assert result.exit_code != 0 and "key_points_test.csv" in result.output and "empty" in result.output
    assert _nothing_imported()


def test_a_missing_file_is_refused(app, tmp_path):
    split = _copy(tmp_path)
    (split / "arguments_test.csv").unlink()
    result = _import(app, split)
    assert result.exit_code != 0 and "arguments_test.csv" in result.output
    assert _nothing_imported()


def test_labels_are_optional(app, tmp_path):
    split = _copy(tmp_path)
    (split / "labels_test.csv").unlink()
    assert _import(app, split).exit_code == 0


def test_a_project_of_another_task_type_is_not_extended(app):
    from annotator.campaigns.projects import get_or_create_project
    from annotator.core.errors import FormatError
    _import(app, EXCERPT)
    with pytest.raises(FormatError, match="holds custom HITs, not emphasis"):
        get_or_create_project("kpa", "emphasis")


@pytest.mark.shared_data
def test_the_full_official_dev_split_imports(app):
    result = app.test_cli_runner().invoke(args=["import", "kpa2021", str(SHARED_DATA / "kpa2021" / "kpm_data"),
                                                "--split", "dev", "--project", "dev"])
    assert result.exit_code == 0, result.output
    assert db.session.scalar(select(func.count()).select_from(Item)) == 932
