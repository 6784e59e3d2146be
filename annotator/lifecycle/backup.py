"""`flask backup`: the whole database in one archive, read from one snapshot while the server keeps working.

Why one read transaction: a backup read table by table in separate transactions can hold a label whose vote
it never saw (written in between). Reading every table in one snapshot gives a state the database really was
in at one moment. On PostgreSQL that is a REPEATABLE READ, READ ONLY transaction, which neither blocks nor
is blocked by writers. On SQLite (WAL mode, see core/database.py) a read transaction keeps the snapshot its
first read took until it ends, and writers go on appending to the WAL meanwhile; the WAL cannot be
checkpointed past that snapshot until the backup ends, so it grows by what is written during it.
Rows are streamed (a server-side cursor on PostgreSQL) and written line by line, so memory does not grow with
the database.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Column, Table, Text, cast, select
from sqlalchemy.engine import Connection, Engine

from annotator.core.database import BEGIN_OPTION
from annotator.core.extensions import db
from annotator.lifecycle.archive import (
    ArchiveError,
    ArchiveWriter,
    TableEntry,
    carried_tables,
    column_kind,
    schema_revision,
    table_columns,
    utc_now_text,
)

BATCH = 2000  # rows fetched per round trip of the server-side cursor


@dataclass(frozen=True)
class Written:
    path: Path
    tables: list[TableEntry]
    seconds: float

    @property
    def rows(self) -> int:
        return sum(t.rows for t in self.tables)


@contextmanager
def snapshot(engine: Engine) -> Iterator[Connection]:
    """A connection inside one read-only transaction whose reads all see the same committed state."""
    with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            # DEFERRED: a read transaction, whose snapshot is taken by its first read and held to its end.
            connection = connection.execution_options(**{BEGIN_OPTION: "DEFERRED"})
            with connection.begin():
                yield connection
        else:
            with connection.begin():
                connection.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                yield connection


def read_expression(column: Column[Any]) -> Any:
    """JSON columns read as their stored text, so that SQL NULL and a JSON null stay apart (archive.encode)."""
    return cast(column, Text) if column_kind(column) == "json" else column


def table_rows(connection: Connection, table: Table, where: Any = None) -> Any:
    """The table's rows (optionally filtered), in primary-key order, streamed."""
    query = select(*(read_expression(c) for c in table.columns)).order_by(*table.primary_key.columns)
    if where is not None:
        query = query.where(where)
    return connection.execution_options(yield_per=BATCH).execute(query)


def write_backup(out: Path) -> Written:
    """Write the database's carried tables (archive.NOT_CARRIED says which are not) to the archive `out`."""
    started = time.perf_counter()
    engine = db.engine
    writer = ArchiveWriter(out)
    try:
        with snapshot(engine) as connection:
            revision = schema_revision(connection)  # the first read: the snapshot starts here
            if revision is None:
                raise ArchiveError("the database is not migrated (no alembic_version): nothing to back up")
            for table in carried_tables(db.metadata.sorted_tables):
                writer.write_table(table.name, table_columns(table), table_rows(connection, table))
        writer.finish(scope="database", schema_revision=revision, created_at=utc_now_text(),
                      source_engine=engine.dialect.name)
    except BaseException:
        writer.abort()
        raise
    return Written(Path(out), writer.tables, time.perf_counter() - started)
