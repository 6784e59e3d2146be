"""What the server writes to disk that names annotators or holds their work is its own user's alone: the SQLite
database with its -wal and -shm, the instance folder, uploads (staged and kept), exports and backups are 0600 in
folders made 0700, under the usual umask 022 (which would make them 0644 and 0755)."""
from __future__ import annotations

import io
import os
import stat
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from annotator import create_app
from annotator.campaigns.uploads import UploadLimits, save_uploads
from annotator.core.extensions import db
from annotator.core.secret_key import instance_secret_key
from annotator.web.declared_projects import STAGING
from tests.support.declared_projects import DECLARED, EVERY_KIND
from tests.web.conftest import csrf_token


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> str:
    return oct(stat.S_IMODE(path.stat().st_mode))


def modes(folder: Path) -> dict[str, str]:
    """Every file and folder under `folder` (itself included) -> its mode."""
    return {str(p.relative_to(folder.parent)): mode(p) for p in [folder, *sorted(folder.rglob("*"))]}


def not_private(folder: Path) -> list[str]:
    """What under `folder` (itself included) is not 0600 (a file) or 0700 (a folder), with its mode."""
    return [f"{p}: {mode(p)}" for p in [folder, *sorted(folder.rglob("*"))]
            if mode(p) != ("0o600" if p.is_file() else "0o700")]


def written_to(app_database: Path) -> None:  # type: ignore[no-untyped-def]
    """An app started on the database file, which writes a row (so that SQLite makes its -wal and -shm)."""
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=f"sqlite:///{app_database}")
    with app.app_context():
        db.session.execute(text("CREATE TABLE IF NOT EXISTS notes (body TEXT)"))
        db.session.execute(text("INSERT INTO notes VALUES ('a worker''s note')"))
        db.session.commit()
        assert Path(f"{app_database}-wal").exists() and Path(f"{app_database}-shm").exists()
        found = {p.name: mode(p) for p in sorted(app_database.parent.iterdir())}
        db.engine.dispose()
    return found  # type: ignore[return-value]


def test_a_new_sqlite_database_its_wal_and_shm_are_0600_in_a_new_folder_0700(tmp_path):
    database = tmp_path / "instance" / "annotator.db"
    assert written_to(database) == {"annotator.db": "0o600", "annotator.db-shm": "0o600",
                                    "annotator.db-wal": "0o600"}
    assert mode(database.parent) == "0o700"


def test_an_existing_world_readable_database_is_made_0600_when_the_app_opens_it(tmp_path):
    database = tmp_path / "annotator.db"
    written_to(database)
    for path in tmp_path.iterdir():
        path.chmod(0o644)
    assert written_to(database) == {"annotator.db": "0o600", "annotator.db-shm": "0o600",
                                    "annotator.db-wal": "0o600"}


def test_a_database_folder_that_existed_keeps_its_mode(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    written_to(shared / "annotator.db")
    assert mode(shared) == "0o755"


def test_the_instance_folder_made_for_the_secret_key_is_0700_and_the_key_0600(tmp_path):
    instance_secret_key(tmp_path / "instance")
    assert modes(tmp_path / "instance") == {"instance": "0o700", "instance/secret_key": "0o600"}


def test_uploaded_files_and_the_folders_a_zip_unpacks_into_are_private(tmp_path):
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("round1/arguments.csv", "arg_id,argument\narg_1,Workers deserve privacy\n")
    packed.seek(0)
    files = [("votes.csv", io.BytesIO(b"worker,vote\nA1B2C3D4E5F6WKR,yes\n")), ("data.zip", packed)]
    save_uploads(files, tmp_path / "upload", UploadLimits())
    assert modes(tmp_path / "upload") == {"upload": "0o700", "upload/data": "0o700", "upload/data/round1": "0o700",
                                          "upload/data/round1/arguments.csv": "0o600", "upload/votes.csv": "0o600"}


def test_a_declared_projects_staged_and_kept_uploads_are_private(app, login, make_user, tmp_path):
    app.config["INSTANCE_DIR"] = tmp_path / "instance"
    make_user("boss", role="admin")
    admin = login("boss")
    url = "/admin/projects/declared/new"
    page = admin.get(url).get_data(as_text=True)
    data = {"csrf_token": csrf_token(page), "slug": "quotes", "name": "", "k": "", "lease_minutes": "30",
            "definition": (io.BytesIO(EVERY_KIND.read_bytes()), EVERY_KIND.name),
            "beside": [(io.BytesIO((DECLARED / "guidelines.md").read_bytes()), "guidelines.md")],
            "items": (io.BytesIO((DECLARED / "controls.csv").read_bytes()), "controls.csv"), "action": "preview"}
    response = admin.post(url, content_type="multipart/form-data", data=data)
    assert response.status_code == 200, response.get_data(as_text=True)
    staged = modes(tmp_path / "instance")
    assert any(p.startswith(f"instance/{STAGING}/") and p.endswith("/project.json") for p in staged)
    assert any(p.endswith("/guidelines.md") for p in staged)
    assert not_private(tmp_path / "instance") == []
    assert any(p.endswith("/controls.csv") for p in modes(tmp_path / "kept-uploads"))
    assert not_private(tmp_path / "kept-uploads") == []


def test_an_export_is_written_0600_into_folders_made_0700(app, kpa_project, tmp_path):
    kpa_project(k=1)
    out = tmp_path / "exports" / "kpa"
    result = app.test_cli_runner().invoke(args=["export", "kpa2021", "--project", "kpa", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert len(modes(tmp_path / "exports")) > 2
    assert not_private(tmp_path / "exports") == []


def test_a_reports_files_are_written_0600_into_a_folder_made_0700(app, kpa_project, tmp_path):
    kpa_project(k=1)
    result = app.test_cli_runner().invoke(args=["stats", "kpa", "--out", str(tmp_path / "reports" / "kpa")])
    assert result.exit_code == 0, result.output
    assert any(p.endswith("report.json") for p in modes(tmp_path / "reports"))
    assert not_private(tmp_path / "reports") == []


def test_a_backup_is_written_0600_into_a_folder_made_0700(app, kpa_project, tmp_path):
    kpa_project(k=1)
    result = app.test_cli_runner().invoke(args=["backup", str(tmp_path / "backups" / "nightly.zip")])
    assert result.exit_code == 0, result.output
    assert modes(tmp_path / "backups") == {"backups": "0o700", "backups/nightly.zip": "0o600"}


def test_an_existing_database_file_is_made_private_without_being_opened(tmp_path, monkeypatch):
    """Closing any descriptor of an SQLite file drops the process's locks on it, those of its open connections too:
    an existing database is changed by its path only."""
    import os

    from annotator.core.private_files import private_database_file
    database = tmp_path / "annotator.db"
    database.write_bytes(b"")
    database.chmod(0o644)
    opened = []
    real_open = os.open

    def recorded(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        descriptor = real_open(path, *args, **kwargs)   # an open refused (the file is there) opens nothing
        opened.append(path)
        return descriptor
    monkeypatch.setattr(os, "open", recorded)
    assert private_database_file(database) == []
    assert opened == [] and (database.stat().st_mode & 0o777) == 0o600
