"""Engine set-up that makes SQLite behave as a safe multi-process store.

SQLite serialises writers; to keep the assignment invariants we (1) use WAL so readers never
block the writer, (2) wait on a busy database instead of failing, and (3) let writing
transactions start with BEGIN IMMEDIATE so they take the write lock before reading the state
they act on (a deferred transaction that reads and then writes can fail with SQLITE_BUSY
without waiting). PostgreSQL needs none of this: row locks do the work there.

SQLite also keeps what was deleted out of its files: `secure_delete` zeroes the space a deleted or rewritten
row leaves (otherwise an erased worker's id stays readable in free space of the file), and the database file is
created 0600 before SQLite opens it, so its -wal and -shm files are 0600 too (core/private_files.py).
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

from flask import Flask
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DisconnectionError

from annotator.core import json_numbers
from annotator.core.extensions import db
from annotator.core.private_files import private_database_file

if TYPE_CHECKING:
    import sqlite3

    from sqlalchemy.engine import Connection
    from sqlalchemy.engine.interfaces import DBAPIConnection
    from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection

BEGIN_OPTION = "sqlite_begin"


def init_database(app: Flask) -> None:
    uri = str(app.config.get("SQLALCHEMY_DATABASE_URI", ""))
    if uri.startswith("postgresql"):
        _prepare_after(app, app.config.get("DATABASE_PREPARE_THRESHOLD", 1))
        _numbers_kept_by_jsonb(app)
    elif (path := sqlite_file(uri)) is not None:
        try:
            refused = private_database_file(path)
        except OSError as error:  # e.g. a read-only mount: SQLite, opening it, says what it can or cannot do
            refused = [path]
            app.logger.warning("could not prepare %s as a private file: %s", path, error)
        for file in refused:
            app.logger.warning("%s is not this user's to make private (chmod 600): it may be readable by others",
                               file)
    db.init_app(app)
    with app.app_context():
        if db.engine.dialect.name == "sqlite":
            _configure_sqlite(db.engine, app.config.get("SQLITE_BUSY_TIMEOUT_MS", 30000))
        else:
            _ping_after_idle(db.engine, app.config.get("DATABASE_PING_AFTER_IDLE_SECONDS", 1.0))


def sqlite_file(uri: str) -> Path | None:
    """The file of an SQLite database URL; None for another engine or a database in memory."""
    if not uri.startswith("sqlite"):
        return None
    url = make_url(uri)
    database = url.database or ""
    if database.startswith("file:"):  # an SQLite URI filename (?uri=true)
        parts = urlsplit(database)
        if parse_qs(parts.query).get("mode") == ["memory"]:
            return None
        database = unquote(parts.path)
    if database in ("", ":memory:"):
        return None
    return Path(database)


def _prepare_after(app: Flask, threshold: int | None) -> None:
    """Let psycopg prepare a statement on the server once a connection has run it `threshold` times.

    Why: the hot path runs the same few statements on every request (SQLAlchemy compiles each once and
    caches it), and a prepared statement is not parsed and planned again by PostgreSQL. psycopg does
    this by itself (its `prepare_threshold`, 5 by default); 1 prepares from the second use, so the
    statements of a page opened once are not kept. None turns it off (e.g. behind PgBouncer before
    1.21 in transaction pooling mode, where a prepared statement may be on another server connection).
    A `prepare_threshold` already in the engine options' connect_args is kept.
    """
    options = dict(app.config.get("SQLALCHEMY_ENGINE_OPTIONS") or {})
    connect_args = dict(options.get("connect_args") or {})
    connect_args.setdefault("prepare_threshold", threshold)
    options["connect_args"] = connect_args
    app.config["SQLALCHEMY_ENGINE_OPTIONS"] = options


def _numbers_kept_by_jsonb(app: Flask) -> None:
    """Write JSON columns' text so that JSONB gives every number back as written (core/json_numbers.py); a
    `json_serializer` already in the engine options is kept."""
    options = dict(app.config.get("SQLALCHEMY_ENGINE_OPTIONS") or {})
    options.setdefault("json_serializer", json_numbers.dumps)
    app.config["SQLALCHEMY_ENGINE_OPTIONS"] = options


def _ping_after_idle(engine: Engine, idle_seconds: float) -> None:
    """Test a pooled connection before use when it sat unused for `idle_seconds` or more.

    Why not `pool_pre_ping`: it pings on every checkout, two round trips of the four to five a
    next+submit pair makes besides its statements, paid by every request on the hot path (its cost per
    pair: bench/results/2026-11-25-figures-from-docstrings.md, `_ping_after_idle`).
    A connection that went back to the pool a moment ago was alive a moment ago. What the ping is
    for, a server that restarted while the connection sat idle, is caught the same way; a restart
    in the middle of busy traffic fails the requests that were using the connections either way, and
    the first such failure makes SQLAlchemy replace every connection of the pool (503, "send it again":
    web/unavailable.py). A fresh connection (no check-in yet) needs no ping.
    """
    @event.listens_for(engine, "checkin")
    def _checked_in(_dbapi_connection: DBAPIConnection, record: ConnectionPoolEntry) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checked_out(dbapi_connection: DBAPIConnection, record: ConnectionPoolEntry,
                     _proxy: PoolProxiedConnection) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since < idle_seconds:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as error:
            raise DisconnectionError(f"the pooled connection did not answer a ping: {error}") from error


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
        dbapi_connection.isolation_level = None  # pysqlite must not emit BEGIN itself
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        # Freed space is zeroed, so that an erased row is not left readable in the file (its cost on the hot
        # path: bench/results/2026-11-28-secure-delete.md).
        cursor.execute("PRAGMA secure_delete = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(BEGIN_OPTION, "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


@contextmanager
def write_transaction() -> Iterator[None]:
    """One short writing unit of work: commit on success, roll back on any error.

    On SQLite it ends whatever read transaction the request already opened (e.g. loading
    current_user), so that the new one starts with BEGIN IMMEDIATE and holds the write lock
    throughout.
    """
    session = db.session()  # the request's Session behind the scoped proxy
    if session.get_bind().dialect.name == "sqlite":
        if session.in_transaction():
            session.commit()
        session.connection(execution_options={BEGIN_OPTION: "IMMEDIATE"})
    # PostgreSQL continues the request's transaction: READ COMMITTED gives every statement a
    # fresh snapshot, and the row locks taken inside are what the invariants rest on.
    try:
        yield
        session.commit()
    except BaseException:
        session.rollback()
        raise


def libpq_parameters(driver_connection: Any) -> dict[str, str]:
    """The parameters an open psycopg connection was made with, password included, as libpq reports
    them: what a second connection needs to reach the same place, whether they came from the URL, the
    engine's connect_args or the environment (the URL alone misses the last two)."""
    parameters = dict(driver_connection.info.get_parameters())  # never holds the password
    if driver_connection.info.password:
        parameters["password"] = driver_connection.info.password
    return parameters
