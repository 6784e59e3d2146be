"""Migration 0021_cloze_declared undone: `flask db downgrade 0020_item_certainty` on the kept database upgraded to head
gives back the ReCAM project of the built-in cloze type with every row as the code before the switch stored it
(tests/data/before_one_engine/rows.json); a project holding what the built-in type cannot hold is refused by name,
and nothing changes (SQLite: the file is copied, upgraded and downgraded as a user would)."""
from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from annotator.core.extensions import db
from tests.conftest import _test_app
from tests.lifecycle.test_emphasis_declared_downgrade import KEPT, flask_db, kept_upgraded, revision
from tests.support.before_one_engine import ROWS, stored_rows

BEFORE = "0020_item_certainty"
SLUG = "cloze-demo"


@pytest.fixture(scope="module")
def upgraded_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kept database upgraded to head (an upgrade runs flask in a new process: built once for the run)."""
    path = tmp_path_factory.mktemp("cloze-upgraded") / "annotator.db"
    return kept_upgraded(tmp_path_factory, path)


@pytest.fixture
def upgraded(upgraded_once: Path, tmp_path: Path) -> tuple[str, Path]:
    """A copy of it for one test to downgrade."""
    path = tmp_path / "annotator.db"
    shutil.copy(upgraded_once, path)
    return f"sqlite:///{path}", path


def _cloze_types(path: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT slug, task_type, (SELECT count(*) FROM labels WHERE project_id = projects.id) "
                            "FROM projects WHERE slug = ?", (SLUG,)).fetchall()


def _of_cloze(row: dict) -> bool:
    return (row.get("project") or (row.get("item") or [None])[0] or row.get("slug")) == SLUG


def test_the_downgrade_gives_back_the_built_in_project_with_every_row_as_it_was(upgraded) -> None:
    url, path = upgraded
    [(_, task, declared_rows)] = _cloze_types(path)
    assert task == "custom" and declared_rows > 1000   # a row per character of each evidence question's text
    done = flask_db(url, "downgrade", BEFORE)
    assert done.returncode == 0, done.stderr
    kept = json.loads((KEPT / ROWS).read_text(encoding="utf-8"))
    assert _cloze_types(path) == [(SLUG, "cloze", len([r for r in kept["labels"] if _of_cloze(r)]))]
    app = _test_app(url)
    with app.app_context():
        now = stored_rows()
        db.engine.dispose()
    for table in ("projects", "items", "assignments", "labels", "control_answers", "annotator_states"):
        assert [r for r in now[table] if _of_cloze(r)] == [r for r in kept[table] if _of_cloze(r)], table


def test_a_known_answer_the_built_in_type_cannot_hold_refuses_the_downgrade_naming_it(upgraded) -> None:
    url, path = upgraded
    with sqlite3.connect(path) as conn:   # a known answer with its evidence (a declared items file may give one)
        conn.execute("UPDATE items SET reference = json(?) WHERE external_id = '2' AND project_id = "
                     "(SELECT id FROM projects WHERE slug = ?)",
                     ('{"option": "1", "passage_span": [{"start": 0, "end": 3, "label": "evidence"}]}', SLUG))
    before = _cloze_types(path)
    version = revision(path)
    done = flask_db(url, "downgrade", BEFORE)
    assert done.returncode != 0
    assert f"project '{SLUG}', item '2': the known answer" in done.stderr
    assert "is not an option alone, which the built-in cloze type kept; nothing changed" in done.stderr
    assert _cloze_types(path) == before   # nothing changed: still declared, every row there
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == version  # no step kept


def test_a_vote_with_two_evidence_marks_refuses_the_downgrade_naming_its_item(upgraded) -> None:
    url, path = upgraded
    with sqlite3.connect(path) as conn:   # a second mark in the passage (an edited definition could allow it)
        conn.execute("INSERT INTO labels (assignment_id, project_id, item_id, user_id, unit, field, value) "
                     "SELECT assignment_id, project_id, item_id, user_id, '0:3:evidence', field, '1' FROM labels "
                     "WHERE field = 'passage_span' AND unit LIKE '%:%:evidence' AND project_id = "
                     "(SELECT id FROM projects WHERE slug = ?) ORDER BY id LIMIT 1", (SLUG,))
        item = conn.execute("SELECT external_id FROM items WHERE id = (SELECT item_id FROM labels WHERE unit = "
                            "'0:3:evidence')").fetchone()[0]
    before = _cloze_types(path)
    done = flask_db(url, "downgrade", BEFORE)
    assert done.returncode != 0
    assert f"project '{SLUG}', item '{item}'" in done.stderr
    assert "it marks 2 spans in passage_span; the built-in held one or none" in done.stderr
    assert _cloze_types(path) == before
