"""`flask project export-all` / `import-all`: one project carried to another server, ids remapped."""
from __future__ import annotations

import json
import zipfile

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Project, User
from tests.conftest import stored
from tests.lifecycle.conftest import annotators_by_name, counts, digests, figures, other_engine


def _export(app, slug, out):  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["project", "export-all", slug, str(out)])
    assert result.exit_code == 0, result.output
    return out


def _slugs() -> list[str]:
    db.session.remove()
    return sorted(db.session.scalars(select(Project.slug)))


def test_every_demo_project_moved_to_the_other_engine_gives_the_same_exports_agreement_and_ranking(
        app, demo, other_app, tmp_path):
    before = digests(annotators_by_name(figures(app, tmp_path / "before")))
    archives = [_export(app, slug, tmp_path / f"{slug}.zip") for slug in _slugs()]
    target = other_app(other_engine(app))
    with target.app_context():
        for number, archive in enumerate(archives):
            reuse = ["--reuse-accounts"] if number else []
            result = target.test_cli_runner().invoke(args=["project", "import-all", str(archive), *reuse])
            assert result.exit_code == 0, result.output
        assert digests(annotators_by_name(figures(target, tmp_path / "after"))) == before


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
