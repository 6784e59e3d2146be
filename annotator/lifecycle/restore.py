"""`flask restore`: a backup archive loaded into an empty database of either engine, all or nothing.

Why so strict: a restore is what one runs on a bad day, and a half-loaded or mixed database is worse than
none. So the archive is checked whole first (archive.open_archive: manifest, every checksum, count and value),
then the target: migrated to the archive's revision (same columns, same constraints) and empty in every
table the archive carries. Only then are rows inserted, parents first, in one transaction that either
commits everything or nothing. PostgreSQL's id sequences are then moved past the restored ids, so that
new rows get fresh ones (SQLite takes max(id) + 1 by itself).
"""
from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from sqlalchemy import Table, func, literal, select, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DataError, IntegrityError, StatementError

from annotator.core.audit import record_on
from annotator.core.database import BEGIN_OPTION
from annotator.core.extensions import db
from annotator.lifecycle.archive import (
    Archive,
    ArchiveError,
    carried_tables,
    check_columns,
    open_archive,
    schema_revision,
    table_columns,
)

BATCH = 1000  # rows per INSERT round trip


@dataclass(frozen=True)
class Restored:
    archive: Archive
    rows: dict[str, int]
    seconds: float


@contextmanager
def writing(engine: Engine) -> Iterator[Connection]:
    """One writing transaction (SQLite: BEGIN IMMEDIATE, so the write lock is held from the checks on)."""
    with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            connection = connection.execution_options(**{BEGIN_OPTION: "IMMEDIATE"})
        with connection.begin():
            yield connection


def check_revision(connection: Connection, archive: Archive) -> None:
    revision = schema_revision(connection)
    if revision != archive.revision:
        raise ArchiveError(f"the archive is of schema revision {archive.revision}, this database is at "
                           f"{revision or 'no revision (not migrated)'}: migrate the database to "
                           f"{archive.revision} first (flask db upgrade {archive.revision})", file=archive.path.name)


REFUSALS = (IntegrityError, DataError, StatementError)


def _detail(error: Exception) -> str:
    return str(getattr(error, "orig", None) or error).strip().splitlines()[0]


@contextmanager
def refused_by_database(archive: Archive, file: str) -> Iterator[None]:
    """A row the database refuses (a constraint, a value out of range) as an ArchiveError naming the file.

    Checked archives hold what a database of the same revision held, so this takes an archive edited together
    with its manifest; the transaction is rolled back by the caller. Inserts through `insert_located` name the
    line as well."""
    try:
        yield
    except REFUSALS as error:
        raise ArchiveError(f"the database refused a row: {_detail(error)}", file=f"{archive.path.name}: {file}") \
            from None


def insert_located(connection: Connection, statement: Any, rows: list[dict[str, Any]], where: str,
                   lines: Sequence[int]) -> list[Any]:
    """Insert a batch of rows (the result's rows, for a RETURNING statement); a refusal names the line (each
    row's line in the file is in `lines`).

    The batch runs in a SAVEPOINT: when the database refuses it, that alone is undone, and the rows are tried
    one by one (each in its own SAVEPOINT, which PostgreSQL needs to go on after an error) to find the one it
    refuses; the caller's transaction is then rolled back by the ArchiveError as before."""
    try:
        with connection.begin_nested():
            result = connection.execute(statement, rows)
            return list(result.all()) if result.returns_rows else []
    except REFUSALS as error:
        refusal = error
    for line, row in zip(lines, rows):
        try:
            with connection.begin_nested():
                connection.execute(statement, [row])
        except REFUSALS as error:
            raise ArchiveError(f"the database refused the row: {_detail(error)}", file=where, line=line) from None
    raise ArchiveError(f"the database refused a batch of rows, though none alone: {_detail(refusal)}", file=where,
                       line=lines[0])


def first_non_empty(connection: Connection, tables: Iterable[Table]) -> str | None:
    for table in tables:
        if connection.execute(select(literal(1)).select_from(table).limit(1)).first() is not None:
            return table.name
    return None


def insert_rows(connection: Connection, table: Table, names: list[str], rows: Iterable[list[Any]], where: str) -> int:
    """Insert decoded rows in batches; their count."""
    count, iterator = 0, iter(rows)
    while batch := list(islice(iterator, BATCH)):
        insert_located(connection, table.insert(), [dict(zip(names, row)) for row in batch], where,
                       range(count + 1, count + 1 + len(batch)))
        count += len(batch)
    return count


def reset_sequences(connection: Connection, tables: Iterable[Table]) -> None:
    """PostgreSQL: each id sequence past the largest id, so the next insert does not collide."""
    if connection.dialect.name != "postgresql":
        return
    for table in tables:
        if "id" in table.c and table.c.id.primary_key and table.c.id.autoincrement is not False:
            largest = connection.execute(select(func.max(table.c.id))).scalar()
            if largest is not None:
                connection.execute(text("SELECT setval(pg_get_serial_sequence(:table, 'id'), :largest)"),
                                   {"table": table.name, "largest": largest})


def restore(path: Path) -> Restored:
    """Load the backup at `path` into this (empty, migrated) database; ArchiveError if it cannot be, unchanged."""
    started = time.perf_counter()
    with open_archive(path) as archive:
        return _restore(archive, started)


def _restore(archive: Archive, started: float) -> Restored:
    if archive.scope != "database":
        raise ArchiveError("this is one project's archive: load it with `flask project import-all`",
                           file=archive.path.name)
    tables = carried_tables(db.metadata.sorted_tables)
    known, carried = {t.name for t in tables}, {t.name for t in archive.tables}
    if carried != known:
        raise ArchiveError(f"the archive's tables are not this database's: only in the archive "
                           f"{sorted(carried - known) or 'none'}, only here {sorted(known - carried) or 'none'}",
                           file=archive.path.name)
    rows: dict[str, int] = {}
    with writing(db.engine) as connection:
        check_revision(connection, archive)
        for table in tables:
            check_columns(archive.path, archive.tables[_index(archive, table.name)], table_columns(table))
        if (full := first_non_empty(connection, tables)) is not None:
            raise ArchiveError(f"the database is not empty (table {full} has rows): restore loads into an empty "
                               "database only", file=archive.path.name)
        for table in tables:
            entry = archive.tables[_index(archive, table.name)]
            with refused_by_database(archive, entry.file):
                rows[table.name] = insert_rows(connection, table, [c["name"] for c in entry.columns],
                                               archive.rows(entry), f"{archive.path.name}: {entry.file}")
        reset_sequences(connection, tables)
        record_on(connection, "restore", detail={"archive": archive.path.name, "rows": sum(rows.values()),
                                                 "made": archive.manifest.get("created_at"),
                                                 "source_engine": archive.manifest.get("source_engine")})
    return Restored(archive, rows, time.perf_counter() - started)


def _index(archive: Archive, name: str) -> int:
    return next(i for i, t in enumerate(archive.tables) if t.name == name)
