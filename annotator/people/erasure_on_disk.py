"""After an erasure commits: what it removed from the rows removed from the database's files too.

Why a step of its own: a committed DELETE or UPDATE leaves the old row versions on disk for a while. On
SQLite (in WAL mode, core/database.py) the changed pages are appended to the -wal file, whose earlier frames
still hold the pages as they were, and the database file holds them until a checkpoint copies the new ones
over; `secure_delete` (set on every connection) zeroes the freed space inside the pages. So after an erasure the
WAL is checkpointed into the database and truncated to nothing. On PostgreSQL a row's old version stays in its
table's pages (and indexes) until VACUUM removes it; VACUUM cannot run inside a transaction, so it runs here, on
a connection of its own in autocommit mode, on the tables the erasure touched.

Neither reaches what was copied elsewhere before: PostgreSQL's WAL segments (until recycled) and any WAL
archive, replicas, backups, and the file system's own free blocks; docs/personal-data.md ("Erasure on disk") says how to
purge those. The step never undoes the erasure: when it cannot be done (the role may not vacuum, readers kept
the WAL busy), the erasure stands and the result says what was left and how to finish it
(`flask scrub-files`).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from flask import current_app
from psycopg import sql
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from annotator.core.database import sqlite_file
from annotator.core.extensions import db
from annotator.core.models import (
    AnnotatorState,
    ApiToken,
    Assignment,
    AuditEvent,
    ControlAnswer,
    CrowdSession,
    CrowdWorker,
    KeptResult,
    KeptState,
    Label,
    QuizResult,
    User,
)

# Where an erasure changes or deletes what identifies a person: the account, its worker id, its study sessions,
# its tokens, its name in the audit trail, the kept figures that could name it (and their generation counters).
IDENTITY_TABLES = tuple(str(model.__tablename__) for model in (
    User, CrowdWorker, CrowdSession, ApiToken, AuditEvent, KeptResult, KeptState))
# Where deleting a person's votes deletes rows (and lock-out expires their open HITs).
VOTE_TABLES = tuple(str(model.__tablename__) for model in (
    Assignment, Label, ControlAnswer, QuizResult, AnnotatorState))
ALL_TABLES = IDENTITY_TABLES + VOTE_TABLES


# Transactions of this database's clients that began before `%s` and still hold a snapshot or a transaction id:
# VACUUM keeps the row versions they may still see (the horizon is per database, so any schema's clients count).
# For another role's sessions without pg_read_all_stats these columns read NULL: such sessions are not counted.
OLDER_TRANSACTIONS = """SELECT count(*) FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
      AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND xact_start < %s"""


@dataclass(frozen=True)
class OnDisk:
    """What the step did to the database's files: `done` when nothing erased is left in them; `text` says what
    was done or what is left, in a sentence for the command's output and the admin's page."""

    done: bool
    text: str


def clear_from_disk(tables: Iterable[str] = IDENTITY_TABLES, *, patient: bool = False) -> OnDisk:
    """Outside any transaction, after the erasure committed: the old versions of the erased rows out of the
    database's files (SQLite: the WAL checkpointed and truncated; PostgreSQL: `tables` vacuumed).

    SQLite's checkpoint waits for readers of an older state at most SQLITE_CHECKPOINT_WAIT_MS (an erasure on the
    admin's page must not hang for the whole busy timeout behind a long read), or the whole busy timeout when
    `patient` (`flask scrub-files`, run to finish what such a wait left)."""
    engine = db.engine
    if engine.dialect.name == "sqlite":
        wait = None if patient else int(current_app.config.get("SQLITE_CHECKPOINT_WAIT_MS", 2000))
        return checkpoint_sqlite(engine, wait)
    if engine.dialect.name == "postgresql":
        return vacuum_postgres(engine, list(tables))
    return OnDisk(False, f"the old row versions were not cleared from the files: {engine.dialect.name} is not a "
                         "database this server knows how to do that on")


def checkpoint_sqlite(engine: Engine, wait_ms: int | None = None) -> OnDisk:
    """Copy every page of the WAL into the database file and truncate the WAL to zero bytes.

    TRUNCATE waits (up to `wait_ms`, or the connection's busy timeout) until no connection reads an older
    snapshot; when one still does, SQLite reports "busy" and the WAL keeps its frames: said, never raised."""
    if sqlite_file(engine.url.render_as_string(hide_password=False)) is None:
        return OnDisk(True, "the database is in memory: no file holds the erased data")
    try:
        with _raw_cursor(engine) as cursor:
            usual = cursor.execute("PRAGMA busy_timeout").fetchone()[0]
            if wait_ms is not None:   # the pooled connection gets its usual timeout back below
                cursor.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
            try:
                busy, frames, _copied = cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                cursor.execute(f"PRAGMA busy_timeout = {int(usual)}")
    except engine.dialect.loaded_dbapi.Error as error:
        return OnDisk(False, f"SQLite's write-ahead log could not be checkpointed ({error}); it still holds the "
                             "erased data: run `flask scrub-files` when the server is quieter")
    if frames == -1:  # not in WAL mode (a file system without shared memory): the rollback journal is deleted
        return OnDisk(True, "the database file was rewritten with the freed space zeroed (no write-ahead log)")
    if busy:
        return OnDisk(False, "SQLite's write-ahead log could not be emptied: other connections kept reading an "
                             "older state of the database while it waited; it still holds the erased "
                             "data until the next full checkpoint: run `flask scrub-files` when the server is "
                             "quieter")
    return OnDisk(True, "SQLite's write-ahead log was copied into the database file and emptied; the freed space "
                        "in the file is zeroed")


@contextmanager
def _raw_cursor(engine: Engine) -> Iterator[Any]:
    """A cursor of a pooled connection, outside any transaction (pysqlite's own BEGIN is off: core/database.py)."""
    connection = engine.raw_connection()
    try:
        cursor = connection.cursor()
        try:
            yield cursor
        finally:
            cursor.close()
    finally:
        connection.close()


def vacuum_postgres(engine: Engine, tables: list[str]) -> OnDisk:
    """VACUUM the tables in one statement, on a connection in autocommit mode (VACUUM refuses a transaction).

    A role that may not vacuum a table (not its owner) gets a WARNING per table, not an error, and the table is
    skipped: the warnings are collected and reported."""
    warnings: list[str] = []

    def note(diagnostic: Any) -> None:
        if diagnostic.severity_nonlocalized == "WARNING":
            warnings.append(str(diagnostic.message_primary))

    statement = sql.SQL("VACUUM {}").format(sql.SQL(", ").join(sql.Identifier(name) for name in tables))
    try:
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            driver: Any = connection.connection.driver_connection  # psycopg.Connection
            started = driver.execute("SELECT clock_timestamp()", prepare=False).fetchone()[0]
            driver.add_notice_handler(note)
            try:
                driver.execute(statement, prepare=False)
            finally:
                driver.remove_notice_handler(note)
            older = driver.execute(OLDER_TRANSACTIONS, (started,), prepare=False).fetchone()[0]
    except DBAPIError as error:
        return OnDisk(False, f"PostgreSQL could not vacuum {', '.join(tables)} "
                             f"({str(error.orig).strip() or error}): the old row versions stay in the tables' files "
                             "until the next (auto)vacuum; run `flask scrub-files` as the tables' owner")
    if warnings:
        return OnDisk(False, f"PostgreSQL vacuumed only some of {', '.join(tables)}: {'; '.join(warnings)}. The "
                             "others keep the old row versions until the next (auto)vacuum; run `flask scrub-files` "
                             "as the tables' owner")
    done = f"PostgreSQL vacuumed {', '.join(tables)}: the old row versions are gone from the tables and their " \
           "indexes (not from its WAL, WAL archives or backups made before)"
    if older:
        return OnDisk(True, f"{done}; but {older} transaction(s) that began before the vacuum were still open after "
                            "it (a `flask backup` holds one for its whole run): the old row versions they could still "
                            "see stay until the next (auto)vacuum, or `flask scrub-files` once they end")
    return OnDisk(True, done)
