"""`flask backup` and `flask restore`: a database carried whole to an empty one of either engine."""
from __future__ import annotations

import json
import re
import zipfile

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import AuditEvent, Item, User
from annotator.lifecycle.archive import NOT_CARRIED
from tests.lifecycle.conftest import counts, digests, figures, fill_every_table, json_nulls, other_engine


def test_a_backup_restored_on_the_other_engine_gives_every_export_agreement_and_ranking_byte_for_byte(
        app, demo, demo_figures, other_app, tmp_path):
    before = digests(demo_figures)
    result = app.test_cli_runner().invoke(args=["backup", str(tmp_path / "b.zip")])
    assert result.exit_code == 0, result.output
    target = other_app(other_engine(app))
    with target.app_context():
        restored = target.test_cli_runner().invoke(args=["restore", str(tmp_path / "b.zip")])
        assert restored.exit_code == 0, restored.output
        assert digests(figures(target, tmp_path / "after")) == before


def test_a_round_trip_through_the_other_engine_gives_equal_rows(app, demo, other_app, tmp_path):
    fill_every_table()
    nulls = json_nulls()
    assert nulls == (1, 1)
    tables = [t for t in db.metadata.sorted_tables if t.name not in NOT_CARRIED]

    def rows() -> dict[str, list[dict]]:
        db.session.remove()
        return {t.name: [dict(r) for r in db.session.execute(t.select().order_by(*t.primary_key.columns)).mappings()]
                for t in tables}
    before = rows()
    assert app.test_cli_runner().invoke(args=["backup", str(tmp_path / "1.zip")]).exit_code == 0
    target = other_app(other_engine(app))
    with target.app_context():
        assert target.test_cli_runner().invoke(args=["restore", str(tmp_path / "1.zip")]).exit_code == 0
        assert target.test_cli_runner().invoke(args=["backup", str(tmp_path / "2.zip")]).exit_code == 0
    back = other_app("sqlite" if other_engine(app) == "postgresql" else "postgresql")
    with back.app_context():
        assert back.test_cli_runner().invoke(args=["restore", str(tmp_path / "2.zip")]).exit_code == 0
        after = rows()
        added = after["audit_events"][len(before["audit_events"]):]  # each restore is in the audit trail
        assert [event["action"] for event in added] == ["restore", "restore"]
        after["audit_events"] = after["audit_events"][:len(before["audit_events"])]
        assert after == before
        assert json_nulls() == nulls


def test_the_manifest_names_format_revision_engine_and_each_tables_rows_checksum_and_columns(app, demo, tmp_path):
    app.test_cli_runner().invoke(args=["backup", str(tmp_path / "b.zip")])
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        manifest = json.loads(archive.read("manifest.json"))
        assert manifest["format"] == "annotator-archive" and manifest["format_version"] == 1
        assert manifest["scope"] == "database" and manifest["source_engine"] == db.engine.dialect.name
        assert manifest["schema_revision"] == db.session.execute(db.text("SELECT version_num FROM alembic_version")
                                                                 ).scalar()
        names = [t["name"] for t in manifest["tables"]]
        assert "kept_results" not in names and "alembic_version" not in names and "items" in names
        for table in manifest["tables"]:
            assert len(archive.read(table["file"]).splitlines()) == table["rows"] == counts()[table["name"]]
            assert [c["name"] for c in table["columns"]] == list(db.metadata.tables[table["name"]].c.keys())


def test_restore_into_a_database_that_has_rows_is_refused_naming_the_table(app, demo, tmp_path):
    app.test_cli_runner().invoke(args=["backup", str(tmp_path / "b.zip")])
    before = counts()
    result = app.test_cli_runner().invoke(args=["restore", str(tmp_path / "b.zip")])
    assert result.exit_code != 0
    assert re.search(r"not empty \(table \w+ has rows\)", result.output) and "Nothing was changed" in result.output
    assert counts() == before


def test_restored_postgresql_ids_continue_after_the_restored_ones(app, demo, other_app, tmp_path):
    app.test_cli_runner().invoke(args=["backup", str(tmp_path / "b.zip")])
    target = other_app("postgresql")
    with target.app_context():
        assert target.test_cli_runner().invoke(args=["restore", str(tmp_path / "b.zip")]).exit_code == 0
        largest = max(db.session.scalars(select(User.id)))
        db.session.add(User(username="after-restore", role="annotator"))
        db.session.commit()
        db.session.remove()
        assert db.session.scalar(select(User.id).where(User.username == "after-restore")) > largest
        assert db.session.scalar(select(db.func.count()).select_from(Item)) > 0


def test_a_restore_is_recorded_in_the_audit_trail_it_carries(app, demo, other_app, tmp_path):
    assert app.test_cli_runner().invoke(args=["backup", str(tmp_path / "b.zip")]).exit_code == 0
    target = other_app(other_engine(app))
    with target.app_context():
        assert target.test_cli_runner().invoke(args=["restore", str(tmp_path / "b.zip")]).exit_code == 0
        db.session.remove()
        event = db.session.scalars(select(AuditEvent).order_by(AuditEvent.id.desc())).first()
        assert event is not None and event.action == "restore" and event.actor.startswith("command line")
        manifest = json.loads(zipfile.ZipFile(tmp_path / "b.zip").read("manifest.json"))
        assert event.detail["archive"] == "b.zip" and event.detail["rows"] == sum(t["rows"] for t in manifest["tables"])
