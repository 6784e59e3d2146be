"""`flask project export-all` / `import-all`: one project carried to another server, ids remapped."""
from __future__ import annotations

import json
import zipfile

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Project, User
from tests.conftest import stored
from tests.lifecycle.conftest import counts, digests, figures, fill_every_table, other_engine


def _export(app, slug, out):  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["project", "export-all", slug, str(out)])
    assert result.exit_code == 0, result.output
    return out


def _import_all(target, archives) -> None:  # type: ignore[no-untyped-def]
    """Each archive imported in turn, the accounts of the first reused by the later ones."""
    for number, archive in enumerate(archives):
        reuse = ["--reuse-accounts"] if number else []
        result = target.test_cli_runner().invoke(args=["project", "import-all", str(archive), *reuse])
        assert result.exit_code == 0, result.output


def _slugs() -> list[str]:
    db.session.remove()
    return sorted(db.session.scalars(select(Project.slug)))


def test_every_demo_project_moved_to_the_other_engine_gives_the_same_exports_agreement_and_ranking(
        app, demo, demo_figures, other_app, tmp_path):
    before = digests(demo_figures)
    archives = [_export(app, slug, tmp_path / f"{slug}.zip") for slug in _slugs()]
    target = other_app(other_engine(app))
    with target.app_context():
        _import_all(target, archives)
        assert digests(figures(target, tmp_path / "after")) == before


def test_a_moved_project_gets_new_ids_and_its_votes_point_at_its_own_items_and_accounts(app, demo, other_app,
                                                                                        tmp_path):
    archive = _export(app, "kpa-demo", tmp_path / "p.zip")
    target = other_app(db.engine.dialect.name)
    with target.app_context():
        target.test_cli_runner().invoke(args=["project", "import-all", str(archive), "--slug", "elsewhere"])
        result = target.test_cli_runner().invoke(args=["project", "import-all", str(archive), "--reuse-accounts"])
        assert result.exit_code == 0, result.output
        first, second = stored(Project, slug="elsewhere"), stored(Project, slug="kpa-demo")
        assert first.id != second.id
        votes = db.session.scalars(select(Assignment).where(Assignment.project_id == second.id)).all()
        assert votes and all(v.item.project_id == second.id for v in votes)


def test_imported_accounts_are_disabled_annotators_without_password(app, demo, other_app, tmp_path):
    archive = _export(app, "kpa-demo", tmp_path / "p.zip")
    target = other_app(other_engine(app))
    with target.app_context():
        assert target.test_cli_runner().invoke(args=["project", "import-all", str(archive)]).exit_code == 0
        db.session.remove()
        accounts = db.session.scalars(select(User)).all()
        assert accounts and all(not u.active and u.password_hash is None and u.role == "annotator" for u in accounts)


def test_the_archive_carries_no_password_hash_token_or_crowd_worker(app, demo, tmp_path):
    archive = _export(app, "kpa-demo", tmp_path / "p.zip")
    with zipfile.ZipFile(archive) as opened:
        manifest = json.loads(opened.read("manifest.json"))
        assert manifest["scope"] == "project" and manifest["project"] == "kpa-demo"
        tables = {t["name"]: t for t in manifest["tables"]}
        assert [c["name"] for c in tables["users"]["columns"]] == ["id", "username", "created_at"]
        assert not {"api_tokens", "crowd_workers", "crowd_sessions", "kept_results"} & set(tables)


def test_importing_a_slug_that_exists_is_refused_and_changes_nothing(app, demo, tmp_path):
    archive = _export(app, "kpa-demo", tmp_path / "p.zip")
    before = counts()
    result = app.test_cli_runner().invoke(args=["project", "import-all", str(archive), "--reuse-accounts"])
    assert result.exit_code != 0 and "project 'kpa-demo' exists here" in result.output
    assert counts() == before


def test_account_names_that_exist_are_refused_with_the_names_unless_reused(app, demo, tmp_path):
    archive = _export(app, "kpa-demo", tmp_path / "p.zip")
    before = counts()
    result = app.test_cli_runner().invoke(args=["project", "import-all", str(archive), "--slug", "copy"])
    assert result.exit_code != 0 and "annotator1" in result.output and "--reuse-accounts" in result.output
    assert counts() == before
    again = app.test_cli_runner().invoke(args=["project", "import-all", str(archive), "--slug", "copy",
                                               "--reuse-accounts"])
    assert again.exit_code == 0, again.output
    assert counts()["users"] == before["users"]
    assert stored(Project, slug="copy") is not None


def test_a_moved_project_brings_its_quality_records_leaderboard_and_crowd_link_and_no_crowd_worker_id(
        app, demo, other_app, tmp_path):
    from annotator.core.models import (
        AnnotatorState,
        ControlAnswer,
        CrowdLink,
        CrowdSession,
        CrowdWorker,
        GoldSet,
        QuizResult,
        Submission,
    )
    fill_every_table()
    archive = _export(app, "kpa-demo", tmp_path / "p.zip")
    assert b"5f1e0c0ffee0c0ffee0c0ffe" not in b"".join(
        zipfile.ZipFile(archive).read(n) for n in zipfile.ZipFile(archive).namelist())
    target = other_app(other_engine(app))
    with target.app_context():
        assert target.test_cli_runner().invoke(args=["project", "import-all", str(archive)]).exit_code == 0
        project = stored(Project, slug="kpa-demo")
        gold = db.session.scalars(select(GoldSet).where(GoldSet.project_id == project.id)).one()
        assert gold.content == bytes(range(256))
        submission = db.session.scalars(select(Submission)).one()
        assert submission.gold_set_id == gold.id and submission.content == b"\x00\xff\n"
        assert db.session.scalars(select(CrowdLink)).one().project_id == project.id
        for model in (AnnotatorState, QuizResult, ControlAnswer):
            assert db.session.scalars(select(model)).one().project_id == project.id
        state = db.session.scalars(select(AnnotatorState)).one()
        assert state.blocked_reason == "low accuracy" and state.blocked_at.microsecond == 123456
        crowd = db.session.scalars(select(User).where(User.username.like("prolific:%"))).one()
        assert crowd.username.startswith("prolific:moved-") and crowd.is_crowd
        assert db.session.scalars(select(Assignment).where(Assignment.user_id == crowd.id)).all()
        assert not db.session.scalars(select(CrowdWorker)).all() and not db.session.scalars(select(CrowdSession)).all()


def test_a_project_archive_pointing_at_a_row_it_does_not_hold_is_refused_naming_line_and_column(app, demo,
                                                                                                 tmp_path):
    import hashlib
    archive = _export(app, "kpa-demo", tmp_path / "p.zip")
    with zipfile.ZipFile(archive) as opened:
        files = {n: opened.read(n) for n in opened.namelist()}
    manifest = json.loads(files["manifest.json"])
    entry = next(t for t in manifest["tables"] if t["name"] == "labels")
    lines = files[entry["file"]].splitlines(keepends=True)
    row = json.loads(lines[0])
    row[entry["columns"].index(next(c for c in entry["columns"] if c["name"] == "assignment_id"))] = 999_999
    lines[0] = json.dumps(row).encode() + b"\n"
    files[entry["file"]] = b"".join(lines)
    entry["sha256"] = hashlib.sha256(files[entry["file"]]).hexdigest()
    files["manifest.json"] = json.dumps(manifest).encode()
    edited = tmp_path / "edited.zip"
    with zipfile.ZipFile(edited, "w") as out:
        for name, content in files.items():
            out.writestr(name, content)
    before = counts()
    result = app.test_cli_runner().invoke(args=["project", "import-all", str(edited), "--slug", "copy",
                                                "--reuse-accounts"])
    assert result.exit_code == 1
    assert ("tables/labels.jsonl, line 1, column assignment_id: points to assignments id 999999, which the archive "
            "does not hold") in result.output
    assert counts() == before


def test_an_imported_project_archive_is_recorded_in_the_audit_trail(app, demo, tmp_path):
    from annotator.core.models import AuditEvent
    runner = app.test_cli_runner()
    assert runner.invoke(args=["project", "export-all", "kpa-demo", str(tmp_path / "p.zip")]).exit_code == 0
    result = runner.invoke(args=["project", "import-all", str(tmp_path / "p.zip"), "--slug", "kpa-copy",
                                 "--reuse-accounts"])
    assert result.exit_code == 0, result.output
    db.session.remove()
    event = db.session.scalars(select(AuditEvent).where(AuditEvent.action == "import")
                               .order_by(AuditEvent.id.desc())).first()
    assert event is not None and event.project == "kpa-copy" and event.detail["kind"] == "project archive"


def test_a_crowd_worker_gets_the_same_pseudonym_in_every_export_of_a_server(app, demo, tmp_path):
    fill_every_table()

    def crowd_names(path) -> list[str]:  # type: ignore[no-untyped-def]
        lines = zipfile.ZipFile(_export(app, "kpa-demo", path)).read("tables/users.jsonl").splitlines()
        return [json.loads(line)[1] for line in lines if b":" in json.loads(line)[1].encode()]
    first, second = crowd_names(tmp_path / "one.zip"), crowd_names(tmp_path / "two.zip")
    assert len(first) == 1 and first == second and first[0].startswith("prolific:moved-")
    assert "5f1e0c0ffee0c0ffee0c0ffe" not in first[0]


def test_a_damaged_project_archive_given_to_import_all_is_refused_and_changes_nothing(app, demo, tmp_path):
    archive = _export(app, "kpa-demo", tmp_path / "p.zip")
    cut = tmp_path / "cut.zip"
    cut.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    before = counts()
    result = app.test_cli_runner().invoke(args=["project", "import-all", str(cut), "--slug", "copy",
                                                "--reuse-accounts"])
    assert result.exit_code == 1 and "cut.zip: not a readable archive" in result.output
    assert "Nothing was changed." in result.output and counts() == before


def test_a_whole_database_backup_given_to_import_all_is_refused_and_changes_nothing(app, demo, tmp_path):
    backup = tmp_path / "backup.zip"
    assert app.test_cli_runner().invoke(args=["backup", str(backup)]).exit_code == 0
    before = counts()
    result = app.test_cli_runner().invoke(args=["project", "import-all", str(backup), "--slug", "copy",
                                                "--reuse-accounts"])
    assert result.exit_code == 1 and "whole database's backup: load it with `flask restore`" in result.output
    assert counts() == before


def test_a_crowd_voters_projects_moved_give_the_same_exports_with_the_voter_under_the_pseudonym(
        app, demo, other_app, tmp_path):
    """A voter of every demo project made a crowd account: after the move, the exports that name annotators by
    username name it by the pseudonym, and all else is the same bytes."""
    from annotator.lifecycle.project_move import _pseudonym
    worker = "prolific:5f1e0c0ffee0c0ffee0c0ffe"
    db.session.execute(User.__table__.update().where(User.username == "annotator1").values(username=worker))
    db.session.commit()
    moved = _pseudonym(worker)
    found = figures(app, tmp_path / "before")
    assert any(worker.encode() in content for content in found.values())
    before = digests({name: content.replace(worker.encode(), moved.encode()) for name, content in found.items()})
    archives = [_export(app, slug, tmp_path / f"{slug}.zip") for slug in _slugs()]
    target = other_app(other_engine(app))
    with target.app_context():
        _import_all(target, archives)
        assert digests(figures(target, tmp_path / "after")) == before
