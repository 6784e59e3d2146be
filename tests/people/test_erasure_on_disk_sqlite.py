"""After `flask erase` on SQLite, the erased worker is in none of the database's files: not in annotator.db's free
space (secure_delete), not in the write-ahead log (checkpointed and truncated). Each test has a database file of
its own, a copy of the migrated template, so that no other test's bytes are searched."""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from annotator.core.extensions import db
from annotator.core.models import Project, User
from annotator.people.crowd import save_link
from annotator.people.erasure_on_disk import checkpoint_sqlite
from tests.conftest import ENGINES, stored
from tests.people.test_erasure_backup import WORKER_ID, enter_and_answer, needles
from tests.people.test_retention import _worker
from tests.web.conftest import csrf_token


@pytest.fixture(params=[engine for engine in ENGINES if engine == "sqlite"])
def database_url(sqlite_template: Path, tmp_path: Path) -> str:
    """A database file of the test's own (the `app` fixture then makes an app on it and disposes of it)."""
    path = tmp_path / "instance" / "annotator.db"
    path.parent.mkdir()
    shutil.copy(sqlite_template, path)
    return f"sqlite:///{path}"


def worked(app, kpa_project, platform: str = "prolific", hits: int = 2) -> None:  # type: ignore[no-untyped-def]
    """The worker came by the study link and answered `hits` HITs of project kpa; the test's session is then
    closed, as another process's would be (an open read would hold the WAL: see the reader test below)."""
    enter_and_answer(app, db.session.get_one(Project, kpa_project(k=2).id), platform, hits=hits)
    db.session.remove()


def database_files(app) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    """The raw bytes of the database file and of its -wal and -shm files, those that exist."""
    path = Path(db.engine.url.database or "")
    return {p.name: p.read_bytes() for p in (path, path.with_name(path.name + "-wal"),
                                                 path.with_name(path.name + "-shm")) if p.exists()}


def occurrences(files: dict[str, bytes], found: list[str]) -> dict[str, int]:
    """How often each of `found` occurs in the files' bytes, per file and string; only those that occur."""
    counts = {f"{name}: {needle}": data.count(needle.encode()) for name, data in files.items() for needle in found}
    return {where: count for where, count in counts.items() if count}


@pytest.mark.parametrize("delete_votes", [False, True], ids=["votes-kept", "votes-deleted"])
@pytest.mark.parametrize("platform", ["prolific", "mturk"])
def test_the_erased_workers_ids_are_in_neither_the_database_file_nor_its_wal(app, kpa_project, platform,
                                                                            delete_votes):
    worked(app, kpa_project, platform, hits=3)
    found = needles(platform)
    assert occurrences(database_files(app), found)  # the search finds the worker before
    args = ["erase", f"--{platform}", WORKER_ID[platform], "--yes", *(["--delete-votes"] if delete_votes else [])]
    result = app.test_cli_runner().invoke(args=args)
    assert result.exit_code == 0, result.output
    assert occurrences(database_files(app), found) == {}


def test_the_erasure_leaves_the_write_ahead_log_empty_and_says_so(app, kpa_project):
    worked(app, kpa_project)
    wal = Path(f"{db.engine.url.database}-wal")
    assert wal.stat().st_size > 0
    result = app.test_cli_runner().invoke(args=["erase", "--prolific", WORKER_ID["prolific"], "--yes"])
    assert result.exit_code == 0, result.output
    assert wal.stat().st_size == 0
    assert "On disk: SQLite's write-ahead log was copied into the database file and emptied" in result.output


def test_the_erasure_page_empties_the_write_ahead_log_and_says_so(app, kpa_project, boss):
    worked(app, kpa_project)
    worker_id = stored(User, username=f"prolific:{WORKER_ID['prolific']}").id
    token = csrf_token(boss.get("/admin/erase").get_data(as_text=True))
    html = boss.post("/admin/erase", data={"csrf_token": token, "kind": "prolific",
                                           "identity": WORKER_ID["prolific"]}).get_data(as_text=True)
    response = boss.post("/admin/erase/confirm", data={"csrf_token": csrf_token(html), "user_id": str(worker_id),
                                                       "delete_votes": ""})
    assert response.status_code == 302
    page = " ".join(boss.get("/admin/erase").get_data(as_text=True).split())
    assert "On disk: SQLite&#39;s write-ahead log was copied into the database file and emptied" in page
    assert Path(f"{db.engine.url.database}-wal").stat().st_size == 0


def test_a_purge_that_erases_an_unseen_worker_leaves_their_id_in_no_file(app, kpa_project):
    save_link(kpa_project(), "prolific", 2, "DONE1")
    _worker(app, "OLDWORKER1", created_days_ago=500, session_days_ago=400)
    db.session.remove()
    assert occurrences(database_files(app), ["OLDWORKER1"])
    result = app.test_cli_runner().invoke(args=["purge"])
    assert result.exit_code == 0, result.output
    assert "crowd_workers: 1 deleted" in result.output and "On disk: SQLite's write-ahead log" in result.output
    assert occurrences(database_files(app), ["OLDWORKER1"]) == {}


def test_every_connection_zeroes_the_space_it_frees(app):
    with db.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA secure_delete").scalar() == 1


def test_a_reader_holding_the_log_leaves_it_in_place_and_the_step_says_so_instead_of_failing(app, kpa_project):
    worked(app, kpa_project, hits=1)
    path = db.engine.url.database
    reader = sqlite3.connect(path, isolation_level=None)
    quick = create_engine(f"sqlite:///{path}", connect_args={"timeout": 0.05})
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM users").fetchone()  # a read transaction on the WAL's frames
        on_disk = checkpoint_sqlite(quick)
        assert not on_disk.done
        assert "could not be emptied" in on_disk.text and "flask scrub-files" in on_disk.text
        assert Path(f"{path}-wal").stat().st_size > 0
        reader.execute("COMMIT")
        assert checkpoint_sqlite(quick).done  # the reader gone, the same step empties it
        assert Path(f"{path}-wal").stat().st_size == 0
    finally:
        reader.close()
        quick.dispose()


def test_scrub_files_empties_the_write_ahead_log(app, kpa_project):
    worked(app, kpa_project, hits=1)
    result = app.test_cli_runner().invoke(args=["scrub-files"])
    assert result.exit_code == 0, result.output
    assert Path(f"{db.engine.url.database}-wal").stat().st_size == 0
