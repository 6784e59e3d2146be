"""Large binary values read in the database's quickest form.

Why: psycopg receives a result in PostgreSQL's text format unless asked otherwise, and a `bytea` in text is
hex, twice its size, which the driver then decodes. The kept figures of a million-label project are
megabytes each (figures/kept.py), and an admin page reads one or two of them per request: 7.3 MB took
44-62 ms as text and 9-17 ms in the binary format (bench/results/2026-11-29-items-pages.md). SQLAlchemy's
psycopg dialect has no option for binary results, so the read goes to the driver's cursor, on the session's
own connection (the same transaction and snapshot as the rest of the request). Other engines read through the
session as usual: SQLite returns a BLOB as it is stored.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import Select

from annotator.core.extensions import db


def scalar_bytes(statement: Select[Any]) -> bytes | None:
    """The first column of the first row `statement` selects, a binary value (None when there is no row or the
    value is NULL)."""
    connection = db.session.connection()
    if connection.dialect.name != "postgresql":
        value = db.session.scalar(statement)
        return None if value is None else bytes(value)
    compiled = statement.compile(dialect=connection.dialect)
    driver = connection.connection.driver_connection
    assert driver is not None, "a session's connection is open"
    with driver.cursor(binary=True) as cursor:
        cursor.execute(str(compiled), compiled.params)
        row = cursor.fetchone()
    return None if row is None or row[0] is None else bytes(row[0])
