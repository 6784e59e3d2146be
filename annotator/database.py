"""Engine set-up that makes SQLite behave as a safe multi-process store.

SQLite serialises writers; to keep the assignment invariants we (1) use WAL so readers never
block the writer, (2) wait on a busy database instead of failing, and (3) let writing
transactions start with BEGIN IMMEDIATE so they take the write lock before reading the state
they act on (a deferred transaction that reads and then writes can fail with SQLITE_BUSY
without waiting). PostgreSQL needs none of this: row locks do the work there.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from flask import Flask
from sqlalchemy import event
from sqlalchemy.engine import Engine

from .extensions import db

BEGIN_OPTION = "sqlite_begin"


def init_database(app: Flask) -> None:
    db.init_app(app)
    with app.app_context():
        if db.engine.dialect.name == "sqlite":
            _configure_sqlite(db.engine, app.config.get("SQLITE_BUSY_TIMEOUT_MS", 30000))


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        dbapi_connection.isolation_level = None  # pysqlite must not emit BEGIN itself
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:  # type: ignore[no-untyped-def]
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
