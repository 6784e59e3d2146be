"""Reading a million label rows into columns fast: Arrow where the data allows, else the DB-API cursor.

Why apart from results.py: how rows get from the database into columns is the whole cost of
aggregating a big project (bench/aggregate.py: building the frame from SQLAlchemy Row objects cost
more than the query), and it depends on the driver, while what the rows mean does not. The caller
gives a SELECT of plain columns; this gives {name: array}, the same values whichever engine read
them: integer columns int64 numpy arrays, text columns pandas string arrays held in Arrow buffers
(no NULLs), which `array[order]` reorders and pandas takes as they are.

How (the figures, on a million label rows, are in bench/results/2026-11-23-issue12-figures.md, "Aggregation at
scale", and bench/results/2026-11-25-figures-from-docstrings.md):
  * PostgreSQL: ADBC (Arrow Database Connectivity; its C driver streams the rows as binary COPY)
    fills Arrow columns with no Python object per cell, on a connection of its own; not making a Python
    object of each cell is what makes it faster than the DB-API cursor below, whose cost is those objects.
    Text stays in Arrow buffers (pandas' "str" dtype with pyarrow storage). A connection of its own
    sees committed rows only, so this is used only where the session's transaction has not written.
    That connection is opened with the session's connection's own parameters and used only where it
    sees the same server, database, role and search_path; on any failure of ADBC the rows are read the
    second way, with a warning.
    Only for ARROW_FROM_ROWS rows or more: ADBC's connection costs about 25 ms of CPU and 60 ms in all to
    open (its driver loads the server's type catalogue), more than the driver below spends on 20,000 rows;
    one bounded count (at most that many rows) decides.
  * SQLite, and PostgreSQL inside a writing transaction or below ARROW_FROM_ROWS rows: the driver's
    `fetchmany` (plain tuples, no SQLAlchemy rows), then one 2-D object array split into columns in C, CHUNK
    rows at a time (on PostgreSQL a binary server-side psycopg cursor); text made Arrow from dictionary codes.
Not `COPY ... TO STDOUT (FORMAT csv)` into `pandas.read_csv`: psycopg 3.3 hands COPY data over one row
per call, which made it slower than both ways above.
"""
from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, literal_column, select

from annotator.core.database import libpq_parameters

if TYPE_CHECKING:
    import numpy as np
    from sqlalchemy.engine import Connection
    from sqlalchemy.sql import Select

log = logging.getLogger(__name__)

INT, TEXT = "int", "text"
# Rows turned into columns at a time: a bounded batch, so that the driver's tuples of all rows never exist at
# once and the peak memory does not grow with the project (bench/results/2026-11-25-figures-from-docstrings.md).
CHUNK = 100_000
# From this many rows on, ADBC reads PostgreSQL's rows; fewer go through the session's driver, which then reads
# them faster than ADBC opens its connection. Measured on the 2-core machine (rows of labels' six columns, CPU /
# wall): 5,000 rows 7 / 13 ms by the driver, 25 / 49 ms by ADBC; 20,000 rows 19 / 39 ms and 30 / 89 ms; 50,000
# rows 48 / 147 ms and 38 / 105 ms (bench/results/2026-11-28-test-speed-kept-and-imports.md).
ARROW_FROM_ROWS = 20_000


def read_columns(connection: Connection, query: Select, kinds: dict[str, str], few: bool = False) -> dict[str, Any]:
    """The rows of `query` (in no particular order) as columns named and typed by `kinds` (INT or TEXT),
    in the order of the query's columns: int64 numpy arrays, and text columns as arrays of str that
    `array[order]` reorders (Arrow-backed pandas arrays, or numpy object arrays).

    `few`: the caller expects a few hundred rows (a page of items), so ADBC's connection of its own is not
    worth it: opening it costs more than reading those rows through the driver
    (bench/results/2026-11-26-admin-pages.md)."""
    table = None if few else _arrow_table(connection, query)
    if table is not None:
        return _arrow_columns(table, kinds)
    return _driver_columns(connection, query, kinds)


def _arrow_table(connection: Connection, query: Select) -> Any:
    """PostgreSQL: the rows as an Arrow table, read by ADBC's driver on a connection of its own; None
    where that would not read what the session sees (its transaction has written: another connection
    sees committed rows only), where the rows are fewer than ARROW_FROM_ROWS, and on every other engine.

    Not SQLite: ADBC's SQLite driver carries its own copy of SQLite, and two copies in one process
    release each other's POSIX locks on the file when one closes it, the documented way to corrupt a
    database (sqlite.org/howtocorrupt.html, 2.2.1). Measured here: the session's next write after an
    ADBC read failed with "database is locked".
    """
    if connection.dialect.name != "postgresql" or connection.dialect.driver != "psycopg":
        return None
    if connection.exec_driver_sql("SELECT pg_current_xact_id_if_assigned() IS NOT NULL").scalar():
        return None
    if _fewer_rows_than(connection, query, ARROW_FROM_ROWS):
        return None
    session_side = _driver_connection(connection)
    try:
        return _read_by_adbc(connection, query, session_side)
    except Exception as error:  # ADBC is the fast way, never the only one: read as the session does
        message = f"{type(error).__name__}: {error}"
        if session_side.info.password:
            message = message.replace(session_side.info.password, "***")
        log.warning("labels read through the session's driver instead of ADBC (%s)", message)
        return None


def _fewer_rows_than(connection: Connection, query: Select, limit: int) -> bool:
    """Whether `query` gives fewer than `limit` rows, in one statement that counts at most `limit` of them."""
    if limit <= 0:
        return False

    first = select(literal_column("1")).select_from(query.subquery()).limit(limit).subquery()
    return int(connection.execute(select(func.count()).select_from(first)).scalar_one()) < limit


# What makes two connections read the same rows: the server, the database, who reads, and where
# unqualified table names point (search_path may come from the URL, connect_args or a SET).
_SAME_VIEW = ("SELECT current_database(), current_user, session_user, current_setting('search_path'), "
              "pg_postmaster_start_time()::text, inet_server_port()")


class _NotTheSameView(Exception):
    """ADBC's connection would not read what the session reads."""


def _read_by_adbc(connection: Connection, query: Select, session_side: Any) -> Any:
    """The rows by ADBC, on a connection opened with the parameters that the session's own connection was
    opened with (libpq's view of them, so connect_args and creators count as well as the URL), and only
    where it sees the same database, role and search_path."""
    from adbc_driver_postgresql import dbapi
    from psycopg.conninfo import make_conninfo
    from sqlalchemy.dialects.postgresql import psycopg


    parameters = libpq_parameters(session_side)
    expected = tuple(connection.exec_driver_sql(_SAME_VIEW).one())
    sql, params = _postgresql_sql(query, psycopg.dialect(paramstyle="numeric_dollar"))
    with dbapi.connect(make_conninfo("", **parameters)) as adbc, adbc.cursor() as cursor:
        cursor.execute(_SAME_VIEW)
        found = tuple(cursor.fetchone())
        if found != expected:
            raise _NotTheSameView(f"the session reads {expected[:4]}, ADBC's connection {found[:4]}")
        cursor.execute(sql, params or None)
        return cursor.fetch_arrow_table()


def _postgresql_sql(query: Select, dialect: Any) -> tuple[str, list[Any]]:
    """The query's SQL for ADBC's PostgreSQL driver, integer values written into it when all values are
    integers: a query without parameters streams as binary COPY, faster than the same query with bound
    parameters (bench/results/2026-11-25-figures-from-docstrings.md)."""
    compiled = query.compile(dialect=dialect, compile_kwargs={"render_postcompile": True})
    params = [compiled.params[name] for name in compiled.positiontup or ()]
    if all(type(value) is int for value in params):
        return str(query.compile(dialect=dialect, compile_kwargs={"literal_binds": True})), []
    return str(compiled), params


def _arrow_columns(table: Any, kinds: dict[str, str]) -> dict[str, Any]:
    import numpy as np
    import pandas as pd

    columns: dict[str, Any] = {}
    for n, (name, kind) in enumerate(kinds.items()):
        column = table.column(n)
        if kind == INT:
            columns[name] = column.to_numpy().astype(np.int64, copy=False)
        else:
            columns[name] = pd.array(column.combine_chunks(), dtype=_text_dtype())
    return columns


def _text_dtype() -> Any:
    """pandas' default string dtype ("str"), stored in Arrow buffers."""
    import numpy as np
    import pandas as pd
    return pd.StringDtype("pyarrow", na_value=np.nan)


def _driver_columns(connection: Connection, query: Select, kinds: dict[str, str]) -> dict[str, Any]:
    """The same through the session's DB-API connection (in its transaction), `fetchmany` by `fetchmany`.

    Text arrives as one Python string per cell; each chunk is factorized (in C) into codes of one
    dictionary per column, and the column becomes an Arrow array from codes and dictionary, so each
    distinct string is converted to Arrow once: letting pandas convert every Python string was the slow
    part (bench/results/2026-11-25-figures-from-docstrings.md).
    """
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    parts: list[list[np.ndarray]] = [[] for _ in kinds]
    dictionaries: list[dict[str, int]] = [{} for _ in kinds]  # text: value -> code, across chunks
    for rows in _fetch_chunks(connection, query):
        table = np.array(rows, dtype=object)
        del rows
        for n, kind in enumerate(kinds.values()):
            if kind == INT:
                parts[n].append(table[:, n].astype(np.int64))
                continue
            codes, uniques = pd.factorize(table[:, n])
            known = dictionaries[n]
            parts[n].append(np.array([known.setdefault(u, len(known)) for u in uniques], dtype=np.int32)[codes])
    columns: dict[str, Any] = {}
    for n, (name, kind) in enumerate(kinds.items()):
        if kind == INT:
            columns[name] = np.concatenate(parts[n]) if parts[n] else np.array([], dtype=np.int64)
            continue
        codes = np.concatenate(parts[n]) if parts[n] else np.array([], dtype=np.int32)
        text = pa.DictionaryArray.from_arrays(pa.array(codes, type=pa.int32()),
                                              pa.array(list(dictionaries[n]), type=pa.string()))
        columns[name] = pd.array(text.dictionary_decode(), dtype=_text_dtype())
    return columns


def _driver_connection(connection: Connection) -> Any:
    """The driver's own connection under the session's (psycopg's here): a connection in use always has one."""
    driver_connection = connection.connection.driver_connection
    assert driver_connection is not None
    return driver_connection


def _fetch_chunks(connection: Connection, query: Select) -> Iterator[Sequence[Any]]:
    """The rows as the driver's plain tuples, CHUNK at a time, on the connection's (the session's) transaction."""
    if connection.dialect.name == "postgresql" and connection.dialect.driver == "psycopg":
        compiled = query.compile(dialect=connection.dialect, compile_kwargs={"render_postcompile": True})
        # A server-side cursor: libpq would otherwise hold the whole result in memory on top of the columns.
        with _driver_connection(connection).cursor("label_rows", binary=True) as cursor:
            cursor.execute(str(compiled), compiled.params)
            while rows := cursor.fetchmany(CHUNK):
                yield rows
        return
    result = connection.execute(query)
    try:
        while rows := result.cursor.fetchmany(CHUNK):
            yield rows
    finally:
        result.close()
