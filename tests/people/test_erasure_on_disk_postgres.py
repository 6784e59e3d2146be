"""After `flask erase` on PostgreSQL, the tables it changed are vacuumed (their old row versions removed), after its
transaction committed; a role that may not vacuum gets its erasure all the same, and a sentence saying what is
left and how to finish."""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime

import psycopg
import pytest
from flask import Flask
from sqlalchemy import text

from annotator.core.extensions import db
from annotator.core.models import CrowdWorker, Project, User
from annotator.people.erasure_on_disk import ALL_TABLES, IDENTITY_TABLES, VOTE_TABLES
from bench.common import with_search_path
from tests.conftest import ENGINES, POSTGRES_URL, _test_app, libpq, stored
from tests.people.test_erasure_backup import WORKER_ID, enter_and_answer


@pytest.fixture(params=[engine for engine in ENGINES if engine == "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue("postgres_schema"))


def last_vacuums() -> dict[str, datetime | None]:
    """Table -> when it was last vacuumed by a VACUUM command (not autovacuum), in the test's schema."""
    db.session.remove()
    rows = db.session.execute(text("SELECT relname, last_vacuum FROM pg_stat_user_tables "
                                   "WHERE schemaname = current_schema()")).all()
    db.session.remove()
    return dict(rows)  # type: ignore[arg-type]


def vacuumed_since(before: dict[str, datetime | None]) -> set[str]:
    after = last_vacuums()
    return {table for table, when in after.items() if when is not None and (before.get(table) is None
                                                                              or when > before[table])}


def worked(app: Flask, kpa_project) -> None:  # type: ignore[no-untyped-def]
    enter_and_answer(app, db.session.get_one(Project, kpa_project(k=2).id), "prolific", hits=2)
    db.session.remove()


def test_the_erasure_vacuums_the_tables_that_held_the_workers_identity(app, kpa_project):
    worked(app, kpa_project)
    before = last_vacuums()
    result = app.test_cli_runner().invoke(args=["erase", "--prolific", WORKER_ID["prolific"], "--yes"])
    assert result.exit_code == 0, result.output
    assert vacuumed_since(before) == set(IDENTITY_TABLES)
    assert "On disk: PostgreSQL vacuumed users, crowd_workers" in result.output


def test_an_erasure_that_deletes_the_votes_vacuums_the_vote_tables_too(app, kpa_project):
    worked(app, kpa_project)
    before = last_vacuums()
    args = ["erase", "--prolific", WORKER_ID["prolific"], "--yes", "--delete-votes"]
    result = app.test_cli_runner().invoke(args=args)
    assert result.exit_code == 0, result.output
    assert vacuumed_since(before) == set(IDENTITY_TABLES) | set(VOTE_TABLES)


def test_scrub_files_vacuums_every_personal_data_and_vote_table(app):
    before = last_vacuums()
    result = app.test_cli_runner().invoke(args=["scrub-files"])
    assert result.exit_code == 0, result.output
    assert vacuumed_since(before) == set(ALL_TABLES)


@pytest.fixture
def app_as_a_role_that_may_not_vacuum(app: Flask) -> Iterator[Flask]:
    """An app on the test's schema, connected as a role that may read and write every table but owns none."""
    schema = db.session.execute(text("SELECT current_schema()")).scalar()
    db.session.remove()
    role = f"annotator_writer_{uuid.uuid4().hex[:10]}"
    plain = libpq(POSTGRES_URL)
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        conn.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {role}")
        conn.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {role}")
    url = with_search_path(POSTGRES_URL.replace("//postgres@", f"//{role}@"), str(schema))
    other = _test_app(url)
    try:
        yield other
    finally:
        with other.app_context():
            db.session.remove()
            db.engine.dispose()
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f"DROP OWNED BY {role}")
            conn.execute(f"DROP ROLE {role}")


def test_a_role_that_may_not_vacuum_still_erases_and_is_told_what_is_left(app, kpa_project,
                                                                        app_as_a_role_that_may_not_vacuum):
    worked(app, kpa_project)
    before = last_vacuums()
    writer = app_as_a_role_that_may_not_vacuum
    result = writer.test_cli_runner().invoke(args=["erase", "--prolific", WORKER_ID["prolific"], "--yes"])
    assert result.exit_code == 0, result.output
    assert "Erased: the account is now 'erased-" in result.output
    assert "On disk: PostgreSQL vacuumed only some of users" in result.output
    assert "only table or database owner can vacuum" in result.output
    assert "run `flask scrub-files` as the tables' owner" in result.output
    assert vacuumed_since(before) == set()
    assert stored(User, username=f"prolific:{WORKER_ID['prolific']}") is None
    assert stored(CrowdWorker, worker_id=WORKER_ID["prolific"]) is None


def test_a_transaction_open_since_before_the_erasure_is_named_as_keeping_old_row_versions(app, kpa_project):
    worked(app, kpa_project)
    schema = db.session.execute(text("SELECT current_schema()")).scalar()
    db.session.remove()
    with psycopg.connect(libpq(POSTGRES_URL), options=f"-csearch_path={schema}") as holder:
        holder.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        holder.execute("SELECT count(*) FROM users").fetchone()  # a backup's snapshot, taken before the erasure
        result = app.test_cli_runner().invoke(args=["erase", "--prolific", WORKER_ID["prolific"], "--yes"])
        holder.rollback()
    assert result.exit_code == 0, result.output
    assert "On disk: PostgreSQL vacuumed users" in result.output
    assert "transaction(s) that began before the vacuum were still open after it" in result.output
