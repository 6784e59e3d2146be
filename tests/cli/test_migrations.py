"""Schema migrations on both engines: 0003 moves imported reference labels out of the items' payloads.

Each test migrates a database of its own (a new SQLite file, a new PostgreSQL schema) step by step,
with rows written in the older schema, as an existing installation would be upgraded.
"""
from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from annotator import create_app
from annotator.core.extensions import db
from annotator.core.schema import MIGRATIONS, init_migrations
from tests.conftest import POSTGRES_URL, _postgres_problem, libpq, missing, with_search_path

LONG = "x" * 500  # a label value longer than 0002's 40 characters


@pytest.fixture(params=["sqlite", "postgresql"])
def blank_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
        return
    problem = _postgres_problem()
    if problem:
        missing(problem)
    import psycopg
    schema = f"migration_test_{uuid.uuid4().hex[:10]}"
    plain = libpq(POSTGRES_URL)
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield with_search_path(POSTGRES_URL, schema)
    finally:
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def _payload(value: object) -> dict:
    return value if isinstance(value, dict) else json.loads(value)


def _old_rows() -> None:
    """A project with two items in the 0002 schema: one with reference labels in its payload, one without."""
    db.session.execute(text("INSERT INTO projects (id, slug, name, task_type, k, lease_minutes, guidelines, settings, "
                            "source, created_at) VALUES (1, 'old', 'Old', 'kp_match', 3, 30, '', '{}', '{}', "
                            "CURRENT_TIMESTAMP)"))
    for n, payload in enumerate([{"id": "a1", "key_points": [], "reference": {"kp1": 1, "kp2": 0}},
                                 {"id": "a2", "key_points": []}], 1):
        db.session.execute(text("INSERT INTO items (id, project_id, external_id, position, payload, done_count) "
                                "VALUES (:id, 1, :ext, :pos, :payload, 0)"),
                           {"id": n, "ext": payload["id"], "pos": n, "payload": json.dumps(payload)})
    db.session.commit()


def test_0003_moves_references_out_of_payloads_and_back(blank_url: str) -> None:
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=blank_url)
    init_migrations(app)
    with app.app_context():
        upgrade(revision="0002")
        _old_rows()
        upgrade()
        rows = {ext: (_payload(p), r if r is None or isinstance(r, dict) else json.loads(r)) for ext, p, r in
                db.session.execute(text("SELECT external_id, payload, reference FROM items")).all()}
        assert rows == {"a1": ({"id": "a1", "key_points": []}, {"kp1": 1, "kp2": 0}),
                        "a2": ({"id": "a2", "key_points": []}, None)}
        assert db.session.execute(text("SELECT archived, audience FROM projects")).one() in ((False, "all"), (0, "all"))
        db.session.commit()

        downgrade(revision="0002")
        payloads = {ext: _payload(p) for ext, p in db.session.execute(text("SELECT external_id, payload FROM items"))}
        assert payloads["a1"]["reference"] == {"kp1": 1, "kp2": 0} and "reference" not in payloads["a2"]
        assert "reference" not in {c["name"] for c in inspect(db.engine).get_columns("items")}
        db.session.commit()
        db.engine.dispose()


def test_label_values_hold_long_text_after_0003(blank_url: str) -> None:
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=blank_url)
    init_migrations(app)
    with app.app_context():
        upgrade()
        db.session.execute(text("INSERT INTO users (id, username, role, active, must_change_password, created_at) "
                                "VALUES (1, 'u', 'annotator', true, false, CURRENT_TIMESTAMP)"))
        db.session.execute(text("INSERT INTO projects (id, slug, name, task_type, k, lease_minutes, guidelines, "
                                "settings, source, created_at) VALUES (1, 'p', 'P', 't', 1, 30, '', '{}', '{}', "
                                "CURRENT_TIMESTAMP)"))
        db.session.execute(text("INSERT INTO items (id, project_id, external_id, position, payload, done_count) "
                                "VALUES (1, 1, 'i', 0, '{}', 1)"))
        db.session.execute(text("INSERT INTO assignments (id, project_id, item_id, user_id, status, leased_at, "
                                "expires_at) VALUES (1, 1, 1, 1, 'submitted', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"))
        db.session.execute(text("INSERT INTO labels (assignment_id, project_id, item_id, user_id, unit, field, value) "
                                "VALUES (1, 1, 1, 1, 'u', :field, :value)"), {"field": "f" * 80, "value": LONG})
        db.session.commit()
        assert db.session.scalar(text("SELECT value FROM labels")) == LONG
        db.engine.dispose()


def test_the_migrations_form_one_chain_ending_in_the_newest_file() -> None:
    """Branches written side by side each add a migration after the same revision; merged without re-chaining
    one onto the other, Alembic has two heads and `flask db upgrade` refuses to run. One head, the newest file's,
    and every file on the chain from it."""
    scripts = ScriptDirectory(str(MIGRATIONS))
    files = sorted(path.stem for path in MIGRATIONS.glob("versions/0*.py"))
    assert scripts.get_heads() == [scripts.get_current_head()]
    assert scripts.get_current_head().startswith(files[-1][:4])
    assert len(list(scripts.walk_revisions())) == len(files)


def test_flask_db_upgrade_migrates_a_new_database_to_head(tmp_path: Path) -> None:
    """`flask --app annotator db upgrade`, as docs/running.md and the Makefile run it: the `db` group that
    create_app registers binds Flask-Migrate when used and runs its command."""
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'new.db'}")
    assert app.test_cli_runner().invoke(args=["db", "upgrade"]).exit_code == 0
    with app.app_context():
        head = max(path.name[:4] for path in MIGRATIONS.glob("versions/0*.py"))
        assert db.session.scalar(text("SELECT version_num FROM alembic_version")).split("_")[0] == head
        assert "labels" in inspect(db.engine).get_table_names()
        db.session.rollback()
        db.engine.dispose()


def test_flask_db_keeps_flask_migrate_options(tmp_path: Path) -> None:
    """The group's own options (-d: the migrations directory) are Flask-Migrate's, unchanged."""
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'new.db'}")
    done = app.test_cli_runner().invoke(args=["db", "-d", str(tmp_path / "nowhere"), "upgrade"])
    assert done.exit_code != 0
    with app.app_context():
        assert inspect(db.engine).get_table_names() == []
        db.engine.dispose()


def test_the_migrations_build_exactly_the_schema_the_models_declare(tmp_path: Path) -> None:
    """`flask db check` (Alembic's autogenerate comparison) finds nothing to migrate after upgrading:
    a model changed without a migration, or a column type that differs (Float vs Double), fails here."""
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'new.db'}")
    runner = app.test_cli_runner()
    assert runner.invoke(args=["db", "upgrade"]).exit_code == 0
    checked = runner.invoke(args=["db", "check"])
    assert checked.exit_code == 0, checked.output
    with app.app_context():
        db.engine.dispose()


def test_0011_drops_the_change_signals_and_its_downgrade_makes_them_again(blank_url: str) -> None:
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=blank_url)
    init_migrations(app)
    postgresql = blank_url.startswith("postgresql")
    triggers = ("SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "  # this schema's only
                "WHERE c.relnamespace = current_schema()::regnamespace AND t.tgname LIKE '%\\_changed'"
                if postgresql else
                "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_counted'")
    with app.app_context():
        upgrade()
        assert "change_counter" not in inspect(db.engine).get_table_names()
        assert db.session.scalar(text(triggers)) == 0
        db.session.commit()

        downgrade(revision="0010")
        assert db.session.scalar(text(triggers)) == (3 if postgresql else 6)
        db.session.execute(text("INSERT INTO users (username, password_hash, role, active, created_at, "
                                "session_version) VALUES ('u', 'x', 'annotator', true, CURRENT_TIMESTAMP, 0)"))
        db.session.execute(text("UPDATE users SET active = false"))
        if not postgresql:  # SQLite's triggers count; PostgreSQL's notify
            assert db.session.scalar(text("SELECT changes FROM change_counter WHERE id = 1")) == 1
        db.session.commit()

        upgrade()
        assert "change_counter" not in inspect(db.engine).get_table_names()
        assert db.session.scalar(text(triggers)) == 0
        db.session.commit()
        db.engine.dispose()


def test_0016_keeps_the_crowd_rows_drops_the_erased_keys_and_its_downgrade_restores_nothing(blank_url: str) -> None:
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=blank_url)
    init_migrations(app)
    with app.app_context():
        upgrade(revision="0002")
        _old_rows()
        upgrade(revision="0015")
        for n, name in ((1, "prolific:5f1a2b3c4d5e6f7a8b9c0d1e"), (2, "erased-0a1b2c3d4e5f")):
            db.session.execute(text("INSERT INTO users (id, username, role, active, created_at) VALUES "
                                    "(:id, :name, 'annotator', true, CURRENT_TIMESTAMP)"), {"id": n, "name": name})
        db.session.execute(text("INSERT INTO crowd_links (id, project_id, platform, nonce, hits, completion_code, "
                                "screen_out_code, active, created_at) VALUES (1, 1, 'prolific', 'n0', 3, 'C0DE', '', "
                                "true, CURRENT_TIMESTAMP)"))
        db.session.execute(text("INSERT INTO crowd_workers (platform, worker_id, erased_key, user_id, created_at) "
                                "VALUES ('prolific', '5f1a2b3c4d5e6f7a8b9c0d1e', NULL, 1, CURRENT_TIMESTAMP), "
                                "('prolific', NULL, :key, 2, CURRENT_TIMESTAMP)"), {"key": "f" * 64})
        db.session.commit()
        workers = "SELECT user_id, worker_id FROM crowd_workers ORDER BY user_id"

        upgrade()
        assert [tuple(row) for row in db.session.execute(text(workers))] == [
            (1, "5f1a2b3c4d5e6f7a8b9c0d1e"), (2, None)]
        assert "erased_key" not in {column["name"] for column in inspect(db.engine).get_columns("crowd_workers")}
        db.session.execute(text("INSERT INTO crowd_account_creations (link_id, address_key, created_at) "
                                "VALUES (1, :key, CURRENT_TIMESTAMP)"), {"key": "a" * 64})
        db.session.commit()

        downgrade(revision="0015")
        assert "crowd_account_creations" not in inspect(db.engine).get_table_names()
        assert [tuple(row) for row in db.session.execute(text(workers))] == [
            (1, "5f1a2b3c4d5e6f7a8b9c0d1e"), (2, None)]
        assert db.session.scalar(text("SELECT count(*) FROM crowd_workers WHERE erased_key IS NOT NULL")) == 0
        db.session.commit()
        db.engine.dispose()


def test_0020_adds_an_empty_certainty_keeps_the_items_and_its_downgrade_drops_it(blank_url: str) -> None:
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=blank_url)
    init_migrations(app)
    items = "SELECT id, external_id, done_count FROM items ORDER BY id"
    with app.app_context():
        upgrade(revision="0002")
        _old_rows()
        upgrade(revision="0019_item_stopped")
        db.session.execute(text("UPDATE items SET done_count = 2 WHERE id = 1"))
        db.session.commit()
        before = [tuple(row) for row in db.session.execute(text(items))]
        db.session.commit()   # no read left open: on PostgreSQL the ALTER TABLE of the upgrade would wait for it

        upgrade()
        assert [tuple(row) for row in db.session.execute(text(items))] == before == [(1, "a1", 2), (2, "a2", 0)]
        assert db.session.scalars(text("SELECT certainty FROM items")).all() == [None, None]
        assert "ix_items_route" in {index["name"] for index in inspect(db.engine).get_indexes("items")}
        db.session.execute(text("UPDATE items SET certainty = 0.25 WHERE id = 1"))
        db.session.commit()

        downgrade(revision="0019_item_stopped")
        assert "certainty" not in {column["name"] for column in inspect(db.engine).get_columns("items")}
        assert [tuple(row) for row in db.session.execute(text(items))] == before
        db.session.commit()
        db.engine.dispose()


def test_0024_adds_an_empty_prior_counts_table_keeps_the_items_and_its_downgrade_drops_it(blank_url: str) -> None:
    """A database of the code before prior_by upgrades with its rows as they were and an empty count table (no
    earlier definition could declare prior_by), which the engine then fills; the downgrade drops the table."""
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=blank_url)
    init_migrations(app)
    items = "SELECT id, external_id, done_count FROM items ORDER BY id"
    with app.app_context():
        upgrade(revision="0002")
        _old_rows()
        upgrade(revision="0023_kpa_declared")
        before = [tuple(row) for row in db.session.execute(text(items))]
        db.session.commit()

        upgrade()
        assert [tuple(row) for row in db.session.execute(text(items))] == before
        assert db.session.scalar(text("SELECT count(*) FROM prior_counts")) == 0
        db.session.execute(text("INSERT INTO prior_counts (project_id, group_key, question, unit, value, stripe, "
                                "votes) VALUES (1, 'the', 'emphasis', 'emphasis', 'no', 3, 2)"))
        db.session.commit()

        downgrade(revision="0023_kpa_declared")
        assert "prior_counts" not in inspect(db.engine).get_table_names()
        assert [tuple(row) for row in db.session.execute(text(items))] == before
        db.session.commit()
        db.engine.dispose()


def _votes_at_0024(wrong_item: bool = False) -> None:
    """Two annotators' votes on item 1 of the old project, written in the 0024 schema: an assignment each and its
    label rows, which repeat the assignment's project, item and annotator (the second annotator's name item 2 instead
    when `wrong_item`: a row no code of the project writes)."""
    for user in (1, 2):
        db.session.execute(text("INSERT INTO users (id, username, role, active, created_at) "
                                "VALUES (:id, :name, 'annotator', true, CURRENT_TIMESTAMP)"),
                           {"id": user, "name": f"ann{user}"})
        db.session.execute(text("INSERT INTO assignments (id, project_id, item_id, user_id, status, leased_at, "
                                "expires_at, excluded) VALUES (:id, 1, 1, :id, 'submitted', CURRENT_TIMESTAMP, "
                                "CURRENT_TIMESTAMP, false)"), {"id": user})
        for unit in ("kp1", "kp2"):
            db.session.execute(text("INSERT INTO labels (assignment_id, project_id, item_id, user_id, unit, field, "
                                    "value) VALUES (:id, 1, :item, :id, :unit, 'match', '1')"),
                               {"id": user, "unit": unit, "item": 2 if wrong_item and user == 2 else 1})
    db.session.commit()


LABELS = "SELECT id, assignment_id, project_id, item_id, user_id, unit, field, value FROM labels ORDER BY id"


@contextmanager
def _votes_at_0024_in(blank_url: str, wrong_item: bool = False) -> Iterator[list[tuple]]:
    """In the app context of a database at 0024 holding the old project and `_votes_at_0024`: its label rows."""
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=blank_url)
    init_migrations(app)
    with app.app_context():
        upgrade(revision="0002")
        _old_rows()
        upgrade(revision="0024_prior_counts")
        _votes_at_0024(wrong_item)
        before = [tuple(row) for row in db.session.execute(text(LABELS))]
        db.session.commit()
        yield before
        db.session.commit()
        db.engine.dispose()


def test_0025_keeps_every_label_under_one_key_to_its_vote_and_its_downgrade_keeps_them(blank_url: str) -> None:
    """The four keys of a label become one to its assignment's (id, project, item, annotator): every row stays, a row
    that disagrees with its assignment is refused, deleting an assignment deletes its labels; the downgrade puts
    the four keys back with the rows."""
    with _votes_at_0024_in(blank_url) as before:
        upgrade()
        assert [tuple(row) for row in db.session.execute(text(LABELS))] == before
        keys = inspect(db.engine).get_foreign_keys("labels")
        assert [(k["name"], k["constrained_columns"], k["referred_table"]) for k in keys] == [
            ("fk_labels_vote_assignments", ["assignment_id", "project_id", "item_id", "user_id"], "assignments")]
        with pytest.raises(IntegrityError):
            db.session.execute(text("INSERT INTO labels (assignment_id, project_id, item_id, user_id, unit, field, "
                                    "value) VALUES (1, 1, 2, 1, 'kp3', 'match', '0')"))
        db.session.rollback()
        db.session.execute(text("DELETE FROM assignments WHERE id = 2"))
        db.session.commit()
        assert [row[1] for row in db.session.execute(text(LABELS))] == [1, 1]
        db.session.commit()  # the read's transaction would hold the table the downgrade alters

        downgrade(revision="0024_prior_counts")
        assert [tuple(row) for row in db.session.execute(text(LABELS))] == before[:2]
        assert sorted(k["referred_table"] for k in inspect(db.engine).get_foreign_keys("labels")) == [
            "assignments", "items", "projects", "users"]


def test_0025_refuses_a_database_whose_label_disagrees_with_its_vote_and_changes_nothing(blank_url: str) -> None:
    with _votes_at_0024_in(blank_url, wrong_item=True) as before:
        # PostgreSQL refuses the key (IntegrityError); on SQLite, migrations/env.py's check of the keys after the
        # copy refuses it (RuntimeError), which Flask-Migrate turns into an exit
        with pytest.raises((IntegrityError, SystemExit)):
            upgrade()
        db.session.rollback()
        db.session.remove()
        assert db.session.scalar(text("SELECT version_num FROM alembic_version")) == "0024_prior_counts"
        assert [tuple(row) for row in db.session.execute(text(LABELS))] == before
        assert sorted(k["referred_table"] for k in inspect(db.engine).get_foreign_keys("labels")) == [
            "assignments", "items", "projects", "users"]
