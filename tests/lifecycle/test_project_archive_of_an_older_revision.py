"""A project archive written before a migration that changed what its rows mean is refused by `flask project
import-all`, saying how to carry it over, and imports nothing.

The case that made this matter: an archive of a built-in `emphasis` project, written at 0017_login_failures, before
migration 0018_emphasis_declared moved such projects to the declared engine and the built-in type was removed
(docs/one-engine.md). Its rows (task type "emphasis", label field "bio") mean nothing to this code; the server that
wrote it, upgraded, maps them as the migration maps every database's, and its new archive imports here.
"""
from __future__ import annotations

import json

from alembic.script import ScriptDirectory
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Label, Project
from annotator.core.schema import MIGRATIONS
from tests.conftest import DATA, load_project
from tests.lifecycle.conftest import Files, resealed

BEFORE_THE_SWITCH = "0017_login_failures"


def _as_written_before_the_switch(files: Files) -> Files:
    """The archive as the code before the switch wrote it: its revision, the project of the built-in type and each
    word's tag under the built-in's field."""
    manifest = json.loads(files["manifest.json"])
    manifest["schema_revision"] = BEFORE_THE_SWITCH
    columns = {table["name"]: [column["name"] for column in table["columns"]] for table in manifest["tables"]}
    project = json.loads(files["tables/projects.jsonl"])
    project[columns["projects"].index("task_type")] = "emphasis"
    field = columns["labels"].index("field")
    labels = [json.loads(line) for line in files["tables/labels.jsonl"].splitlines()]
    kept = [row[:field] + ["bio"] + row[field + 1:] for row in labels if row[field] == "emphasis.bio"]
    return {**files, "manifest.json": json.dumps(manifest).encode(),
            "tables/projects.jsonl": json.dumps(project).encode() + b"\n",
            "tables/labels.jsonl": b"".join(json.dumps(row).encode() + b"\n" for row in kept)}


def test_an_emphasis_project_archive_from_before_the_switch_is_refused_saying_how_to_carry_it_over(app, tmp_path):
    load_project("emphasis2020", DATA / "emphasis2020" / "dev_excerpt.txt", "emph", k=9, with_votes=True)
    archive = tmp_path / "emph.zip"
    assert app.test_cli_runner().invoke(args=["project", "export-all", "emph", str(archive)]).exit_code == 0
    old = resealed(archive, _as_written_before_the_switch)
    labels_before = db.session.scalar(select(func.count()).select_from(Label))

    result = app.test_cli_runner().invoke(args=["project", "import-all", str(old), "--slug", "emph-old"])

    assert result.exit_code != 0
    assert f"the archive is of schema revision {BEFORE_THE_SWITCH}, this database is at" in result.output
    assert "Upgrade the server that wrote it to this version (flask db upgrade" in result.output
    db.session.remove()
    assert db.session.scalars(select(Project).where(Project.slug == "emph-old")).first() is None
    assert db.session.scalar(select(func.count()).select_from(Label)) == labels_before


def _cloze_as_written_before_its_switch(files: Files) -> Files:
    """A ReCAM project archive as the code before migration 0021_cloze_declared wrote it: its revision and the project
    of the built-in cloze type (its rows need not be the built-in's: the revision alone refuses it)."""
    manifest = json.loads(files["manifest.json"])
    manifest["schema_revision"] = BEFORE_THE_CLOZE_SWITCH
    columns = {table["name"]: [column["name"] for column in table["columns"]] for table in manifest["tables"]}
    project = json.loads(files["tables/projects.jsonl"])
    project[columns["projects"].index("task_type")] = "cloze"
    return {**files, "manifest.json": json.dumps(manifest).encode(),
            "tables/projects.jsonl": json.dumps(project).encode() + b"\n"}


BEFORE_THE_CLOZE_SWITCH = "0020_item_certainty"


def test_a_cloze_project_archive_from_before_its_switch_is_refused_saying_how_to_carry_it_over(app, tmp_path):
    load_project("recam2021", DATA / "recam2021" / "Task_1_dev_excerpt.jsonl", "cz", k=3)
    archive = tmp_path / "cz.zip"
    assert app.test_cli_runner().invoke(args=["project", "export-all", "cz", str(archive)]).exit_code == 0
    old = resealed(archive, _cloze_as_written_before_its_switch)

    result = app.test_cli_runner().invoke(args=["project", "import-all", str(old), "--slug", "cz-old"])

    assert result.exit_code != 0
    assert f"the archive is of schema revision {BEFORE_THE_CLOZE_SWITCH}, this database is at" in result.output
    assert "Upgrade the server that wrote it to this version (flask db upgrade" in result.output
    db.session.remove()
    assert db.session.scalars(select(Project).where(Project.slug == "cz-old")).first() is None


def _ruarg_as_written_before_its_switch(files: Files) -> Files:
    """A RuArg-2022 project archive as the code before migration 0022_stance_premise_declared wrote it: its revision
    and the project of the built-in stance_premise type (the revision alone refuses it)."""
    manifest = json.loads(files["manifest.json"])
    manifest["schema_revision"] = BEFORE_THE_RUARG_SWITCH
    columns = {table["name"]: [column["name"] for column in table["columns"]] for table in manifest["tables"]}
    project = json.loads(files["tables/projects.jsonl"])
    project[columns["projects"].index("task_type")] = "stance_premise"
    return {**files, "manifest.json": json.dumps(manifest).encode(),
            "tables/projects.jsonl": json.dumps(project).encode() + b"\n"}


# the revision 0022_stance_premise_declared follows (read, not written: the chain of revisions may be ordered anew)
BEFORE_THE_RUARG_SWITCH = ScriptDirectory(str(MIGRATIONS)).get_revision("0022_stance_premise_declared").down_revision


def test_a_ruarg_project_archive_from_before_its_switch_is_refused_saying_how_to_carry_it_over(app, tmp_path):
    load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "ru", k=3)
    archive = tmp_path / "ru.zip"
    assert app.test_cli_runner().invoke(args=["project", "export-all", "ru", str(archive)]).exit_code == 0
    old = resealed(archive, _ruarg_as_written_before_its_switch)
    labels_before = db.session.scalar(select(func.count()).select_from(Label))

    result = app.test_cli_runner().invoke(args=["project", "import-all", str(old), "--slug", "ru-old"])

    assert result.exit_code != 0
    assert f"the archive is of schema revision {BEFORE_THE_RUARG_SWITCH}, this database is at" in result.output
    assert "Upgrade the server that wrote it to this version (flask db upgrade" in result.output
    db.session.remove()
    assert db.session.scalars(select(Project).where(Project.slug == "ru-old")).first() is None
    assert db.session.scalar(select(func.count()).select_from(Label)) == labels_before


def _kpa_as_written_before_its_switch(files: Files) -> Files:
    """A KPA-2021 match project archive as the code before migration 0023_kpa_declared wrote it: its revision, the
    project of the built-in kp_match type and each vote's rows under the built-in's field "match"."""
    manifest = json.loads(files["manifest.json"])
    manifest["schema_revision"] = BEFORE_THE_KPA_SWITCH
    columns = {table["name"]: [column["name"] for column in table["columns"]] for table in manifest["tables"]}
    project = json.loads(files["tables/projects.jsonl"])
    project[columns["projects"].index("task_type")] = "kp_match"
    project[columns["projects"].index("definition")] = None
    field = columns["labels"].index("field")
    labels = [json.loads(line) for line in files["tables/labels.jsonl"].splitlines()]
    kept = [row[:field] + ["match"] + row[field + 1:] for row in labels]
    return {**files, "manifest.json": json.dumps(manifest).encode(),
            "tables/projects.jsonl": json.dumps(project).encode() + b"\n",
            "tables/labels.jsonl": b"".join(json.dumps(row).encode() + b"\n" for row in kept)}


# the revision 0023_kpa_declared follows (read, not written: the chain of revisions may be ordered anew)
BEFORE_THE_KPA_SWITCH = ScriptDirectory(str(MIGRATIONS)).get_revision("0023_kpa_declared").down_revision


def test_a_kpa_project_archive_from_before_its_switch_is_refused_saying_how_to_carry_it_over(app, tmp_path):
    load_project("kpa2021", DATA / "kpa2021", "kpa-arch", split="test", k=3)
    archive = tmp_path / "kpa.zip"
    assert app.test_cli_runner().invoke(args=["project", "export-all", "kpa-arch", str(archive)]).exit_code == 0
    old = resealed(archive, _kpa_as_written_before_its_switch)

    result = app.test_cli_runner().invoke(args=["project", "import-all", str(old), "--slug", "kpa-old"])

    assert result.exit_code != 0
    assert f"the archive is of schema revision {BEFORE_THE_KPA_SWITCH}, this database is at" in result.output
    assert "Upgrade the server that wrote it to this version (flask db upgrade" in result.output
    db.session.remove()
    assert db.session.scalars(select(Project).where(Project.slug == "kpa-old")).first() is None
