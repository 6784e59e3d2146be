"""Migration 0018_emphasis_declared undone: `flask db downgrade 0017_login_failures` on the kept database upgraded to
head gives back the emphasis project of the built-in type with every row as the code before the switch stored it
(tests/data/before_one_engine/rows.json); a project holding what the built-in type cannot hold is refused by name,
and nothing changes (SQLite: the file is copied, upgraded and downgraded as a user would)."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from annotator.core.extensions import db
from tests.conftest import DATA, _test_app
from tests.lifecycle.files_once import built_once
from tests.lifecycle.flask_in_process import Finished, flask
from tests.support.before_one_engine import ROWS, read_manifest, stored_rows

KEPT = DATA / "before_one_engine"
ROOT = Path(__file__).resolve().parents[2]
BEFORE = "0017_login_failures"


def flask_db(url: str, *args: str) -> Finished:
    """`flask db ARGS` on the database, in this process (tests/lifecycle/flask_in_process.py)."""
    return flask(url, "downgrade-test", "db", *args)


def flask_db_process(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`flask db ARGS` on the database in a new process, as a user runs it."""
    env = {**os.environ, "DATABASE_URL": url, "SECRET_KEY": "downgrade-test"}
    return subprocess.run([sys.executable, "-m", "flask", "--app", "annotator", "db", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False, timeout=300)


def kept_upgraded(factory: pytest.TempPathFactory, target: Path) -> Path:
    """`target`, a copy of the kept database upgraded to head by `flask db upgrade` in a process of its own, as a user
    upgrades, built once for the run
    (tests/lifecycle/files_once.py): the cloze, emphasis and KPA downgrade tests and the upgrade test start from it."""
    def build(path: Path) -> None:
        shutil.copy(KEPT / read_manifest(KEPT)["database"], path)
        done = flask_db_process(f"sqlite:///{path}", "upgrade")
        assert done.returncode == 0, done.stderr
    return built_once(factory, "kept-upgraded-to-head.db", build, target)


@pytest.fixture
def upgraded(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A copy of the kept database upgraded to head, for one test to downgrade."""
    path = tmp_path / "annotator.db"
    kept_upgraded(tmp_path_factory, path)
    return f"sqlite:///{path}", path


def _emphasis_types(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT slug, task_type FROM projects WHERE slug = 'emphasis-demo'").fetchall()


def test_the_downgrade_gives_back_the_built_in_project_with_every_row_as_it_was(upgraded) -> None:
    url, path = upgraded
    assert _emphasis_types(path) == [("emphasis-demo", "custom")]
    done = flask_db(url, "downgrade", BEFORE)
    assert done.returncode == 0, done.stderr
    assert _emphasis_types(path) == [("emphasis-demo", "emphasis")]
    kept = json.loads((KEPT / ROWS).read_text(encoding="utf-8"))
    app = _test_app(url)
    with app.app_context():
        now = stored_rows()
        db.engine.dispose()
    for table in ("projects", "items", "assignments", "labels"):
        assert now[table] == kept[table], table


def test_a_known_answer_the_built_in_type_cannot_hold_refuses_the_downgrade_naming_it(upgraded) -> None:
    url, path = upgraded
    with sqlite3.connect(path) as conn:   # a known answer given as the selected positions (a controls CSV)
        conn.execute("UPDATE items SET reference = '{\"emphasis\": [0, 2]}' WHERE external_id = 'D_10' AND "
                     "project_id = (SELECT id FROM projects WHERE slug = 'emphasis-demo')")
    version = revision(path)
    done = flask_db(url, "downgrade", BEFORE)
    assert done.returncode != 0
    assert "project 'emphasis-demo', item 'D_10': the known answer" in done.stderr
    assert "is not every word's probability" in done.stderr
    assert _emphasis_types(path) == [("emphasis-demo", "custom")]   # nothing changed
    with sqlite3.connect(path) as conn:
        # the revision it had: the refused downgrade kept none of its steps (one transaction), and what the refusing
        # migration would have undone is all there
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == version  # no step kept
        assert conn.execute("SELECT count(*) FROM labels WHERE field = 'emphasis'").fetchone()[0] > 0


def revision(path: Path) -> tuple[str]:
    """The SQLite file's revision: a refused downgrade keeps it, the steps before the refusing one included (the
    migrations run in one transaction on SQLite too: migrations/env.py)."""
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT version_num FROM alembic_version").fetchone()
