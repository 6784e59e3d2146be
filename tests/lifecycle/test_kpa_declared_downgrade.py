"""Migration 0023_kpa_declared undone: `flask db downgrade` to the revision before it, on the kept database upgraded
to head, gives back the three KPA-2021 projects of the built-in types (kp_match, kp_match_check, kp_set_compare)
with every row as the code before the switch stored it (tests/data/before_one_engine/rows.json): votes, answers,
drawn orders, known answers, control answers, quiz and blocking states. A project holding what a built-in type
cannot hold is refused by name, and nothing changes. SQLite: the file is copied, upgraded and downgraded as a user
would; PostgreSQL: the kept rows copied into a schema upgraded to head (as tests/lifecycle/
test_upgrade_keeps_exports.py does), then downgraded."""
from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from annotator.core.extensions import db
from annotator.core.schema import MIGRATIONS
from tests.conftest import ENGINES, _test_app
from tests.lifecycle.conftest import drop_schema, new_schema
from tests.lifecycle.test_emphasis_declared_downgrade import KEPT, flask_db, kept_upgraded, revision
from tests.lifecycle.test_upgrade_keeps_exports import _postgres_upgraded
from tests.support.before_one_engine import ROWS, stored_rows

REVISION = "0023_kpa_declared"
BEFORE = ScriptDirectory(str(MIGRATIONS)).get_revision(REVISION).down_revision   # the revision it follows
TYPES = {"kpa-demo": "kp_match", "kpa-check-demo": "kp_match_check", "kpa-compare-demo": "kp_set_compare"}
TABLES = ("projects", "items", "assignments", "labels", "control_answers", "annotator_states", "quiz_results")


@pytest.fixture(scope="module")
def upgraded_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kept database upgraded to head (an upgrade runs flask in a new process: built once for the run)."""
    path = tmp_path_factory.mktemp("kpa-upgraded") / "annotator.db"
    return kept_upgraded(tmp_path_factory, path)


@pytest.fixture
def upgraded(upgraded_once: Path, tmp_path: Path) -> tuple[str, Path]:
    """A copy of it for one test to downgrade."""
    path = tmp_path / "annotator.db"
    shutil.copy(upgraded_once, path)
    return f"sqlite:///{path}", path


@pytest.fixture(params=ENGINES)
def upgraded_on(request: pytest.FixtureRequest, upgraded_once: Path, tmp_path: Path) -> Iterator[str]:
    """The database URL of the kept data upgraded to head on the engine."""
    if request.param == "sqlite":
        path = tmp_path / "annotator.db"
        shutil.copy(upgraded_once, path)
        yield f"sqlite:///{path}"
        return
    schema = new_schema("annotator_kpa_down")
    try:
        yield _postgres_upgraded(schema, tmp_path)
    finally:
        drop_schema(schema)


def _kpa_types(path: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT slug, task_type, (SELECT count(*) FROM labels WHERE project_id = projects.id) "
                            "FROM projects WHERE slug LIKE 'kpa-%' ORDER BY slug").fetchall()


def _of_kpa(row: dict) -> bool:
    return (row.get("project") or (row.get("item") or [None])[0] or row.get("slug")) in TYPES


def test_the_downgrade_gives_back_the_built_in_projects_with_every_row_as_it_was(upgraded_on: str) -> None:
    done = flask_db(upgraded_on, "downgrade", BEFORE)
    assert done.returncode == 0, done.stderr
    kept = json.loads((KEPT / ROWS).read_text(encoding="utf-8"))
    app = _test_app(upgraded_on)
    with app.app_context():
        now = stored_rows()
        db.engine.dispose()
    assert {p["slug"]: p["task_type"] for p in now["projects"] if _of_kpa(p)} == TYPES
    for table in TABLES:
        assert [r for r in now[table] if _of_kpa(r)] == [r for r in kept[table] if _of_kpa(r)], table


def test_the_upgrade_after_the_downgrade_gives_the_declared_projects_again(upgraded) -> None:
    url, path = upgraded
    declared = _kpa_types(path)
    assert [task for _, task, _ in declared] == ["custom"] * 3
    assert flask_db(url, "downgrade", BEFORE).returncode == 0
    done = flask_db(url, "upgrade")
    assert done.returncode == 0, done.stderr
    assert _kpa_types(path) == declared


def test_a_comparison_shown_in_two_orders_refuses_the_downgrade_naming_its_item(upgraded) -> None:
    url, path = upgraded
    with sqlite3.connect(path) as conn:   # the declared engine draws per question without pairwise_order: per_hit
        assignment, item = conn.execute(
            "SELECT assignments.id, items.external_id FROM assignments JOIN items ON items.id = assignments.item_id "
            "WHERE assignments.project_id = (SELECT id FROM projects WHERE slug = 'kpa-compare-demo') "
            "ORDER BY assignments.id LIMIT 1").fetchone()
        conn.execute("UPDATE assignments SET presentation = json('{\"swapped\": [\"less_redundant\"]}') WHERE id = ?",
                     (assignment,))
    before = _kpa_types(path)
    version = revision(path)
    done = flask_db(url, "downgrade", BEFORE)
    assert done.returncode != 0
    assert f"project 'kpa-compare-demo', item '{item}', assignment {assignment}" in done.stderr
    assert "the comparisons were shown in different orders" in done.stderr
    assert "nothing changed" in done.stderr
    assert _kpa_types(path) == before   # nothing changed: still declared, every row there
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == version  # no step kept


def test_a_known_verdict_the_built_in_type_cannot_hold_refuses_the_downgrade_naming_it(upgraded) -> None:
    url, path = upgraded
    with sqlite3.connect(path) as conn:   # a declared items file may give a known answer with another question
        item = conn.execute("SELECT external_id FROM items WHERE project_id = (SELECT id FROM projects WHERE slug = "
                            "'kpa-check-demo') ORDER BY position LIMIT 1").fetchone()[0]
        conn.execute("UPDATE items SET reference = json(?) WHERE external_id = ? AND project_id = "
                     "(SELECT id FROM projects WHERE slug = 'kpa-check-demo')",
                     ('{"verdict": "yes", "note": "checked twice"}', item))
    before = _kpa_types(path)
    done = flask_db(url, "downgrade", BEFORE)
    assert done.returncode != 0
    assert f"project 'kpa-check-demo', item '{item}': the known answer" in done.stderr
    assert "is not one verdict, which the built-in kp_match_check type cannot hold; nothing changed" in done.stderr
    assert _kpa_types(path) == before
