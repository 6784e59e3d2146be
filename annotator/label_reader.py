"""Reading a million label rows into columns fast: the DB-API cursor, with one engine-specific choice.

Why apart from results.py: how rows get from the database into numpy columns is the whole cost of
aggregating a big project (bench/aggregate.py: building the frame from SQLAlchemy Row objects cost
more than the query), and it depends on the driver, while what the rows mean does not. The caller
gives a SELECT of plain columns; this gives {name: numpy array}, the same values and types whichever
engine read them (integer columns int64, text columns object arrays of str; no NULLs).

How, measured on 1,000,008 label rows (bench/README.md, "Aggregation at scale"): the driver's
`fetchmany` (plain tuples, no SQLAlchemy rows), then one 2-D object array split into columns in C
(zip(*rows) and a per-column fromiter cost a second more), CHUNK rows at a time so that the Python
tuples of all the rows are never held at once. On PostgreSQL (psycopg) the cursor is a
binary one (ints arrive as ints without text parsing, 1.2-1.5x faster than text) on the server side
(libpq does not hold the whole result). `COPY ... TO STDOUT
(FORMAT csv)` into `pandas.read_csv` was slower still with psycopg 3.3 (its COPY hands over one row per
call: 4-4.5 s against 1.5-1.9 s). Strings are made to share one object per distinct value: less
memory, and the hashing that groupby and factorize do later is then cached in the string.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:
    import numpy as np
    from sqlalchemy.engine import Connection
    from sqlalchemy.sql import Select

INT, TEXT = "int", "text"
CHUNK = 100_000  # rows turned into columns at a time: all rows' tuples at once added ~270 MB of peak at 1M


def read_columns(connection: Connection, query: Select, kinds: dict[str, str]) -> dict[str, np.ndarray]:
    """The rows of `query` (in no particular order) as columns named and typed by `kinds` (INT or TEXT),
    in the order of the query's columns."""
    import numpy as np

    shared: dict[str, str] = {}  # one object per distinct string, across chunks
    parts: list[list[np.ndarray]] = [[] for _ in kinds]
    for rows in _fetch_chunks(connection, query):
        table = np.array(rows, dtype=object)
        del rows
        for n, kind in enumerate(kinds.values()):
            parts[n].append(table[:, n].astype(np.int64) if kind == INT else _shared_strings(table[:, n], shared))
    return {name: (np.concatenate(part) if part else np.array([], dtype=np.int64 if kind == INT else object))
            for (name, kind), part in zip(kinds.items(), parts)}


def _shared_strings(values: np.ndarray, shared: dict[str, str]) -> np.ndarray:
    """The same strings, each distinct value one object (the first seen), as an object array."""
    import numpy as np
    import pandas as pd

    codes, uniques = pd.factorize(values)
    return np.array([shared.setdefault(u, u) for u in uniques], dtype=object).take(codes)


def _fetch_chunks(connection: Connection, query: Select) -> Iterator[list[tuple[Any, ...]]]:
    """The rows as the driver's plain tuples, CHUNK at a time, on the connection's (the session's) transaction."""
    if connection.dialect.name == "postgresql" and connection.dialect.driver == "psycopg":
        compiled = query.compile(dialect=connection.dialect, compile_kwargs={"render_postcompile": True})
        # A server-side cursor: libpq would otherwise hold the whole result (~250 MB at 1M rows) on top.
        with connection.connection.driver_connection.cursor("label_rows", binary=True) as cursor:
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
