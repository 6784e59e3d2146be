"""Reading a million label rows into columns fast: the DB-API cursor, with one engine-specific choice.

Why apart from results.py: how rows get from the database into numpy columns is the whole cost of
aggregating a big project (bench/aggregate.py: building the frame from SQLAlchemy Row objects cost
more than the query), and it depends on the driver, while what the rows mean does not. The caller
gives a SELECT of plain columns; this gives {name: numpy array}, the same values and types whichever
engine read them (integer columns int64, text columns object arrays of str; no NULLs).

How, measured on 1,000,008 label rows (bench/README.md, "Aggregation at scale"): the driver's
`fetchall` (plain tuples, no SQLAlchemy rows), then one 2-D object array split into columns in C
(zip(*rows) and a per-column fromiter cost a second more). On PostgreSQL (psycopg) the cursor is a
binary one: ints arrive as ints without text parsing, 1.2-1.5x faster than text. `COPY ... TO STDOUT
(FORMAT csv)` into `pandas.read_csv` was slower still with psycopg 3.3 (its COPY hands over one row per
call: 4-4.5 s against 1.5-1.9 s). Strings are made to share one object per distinct value: less
memory, and the hashing that groupby and factorize do later is then cached in the string.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from sqlalchemy.engine import Connection
    from sqlalchemy.sql import Select

INT, TEXT = "int", "text"


def read_columns(connection: Connection, query: Select, kinds: dict[str, str]) -> dict[str, np.ndarray]:
    """The rows of `query` (in no particular order) as columns named and typed by `kinds` (INT or TEXT),
    in the order of the query's columns."""
    import numpy as np
    import pandas as pd

    rows = _fetch_all(connection, query)
    if not rows:
        return {name: np.array([], dtype=np.int64 if kind == INT else object) for name, kind in kinds.items()}
    table = np.array(rows, dtype=object)
    del rows
    columns: dict[str, np.ndarray] = {}
    for n, (name, kind) in enumerate(kinds.items()):
        if kind == INT:
            columns[name] = table[:, n].astype(np.int64)
        else:
            codes, uniques = pd.factorize(table[:, n])
            columns[name] = np.asarray(uniques, dtype=object).take(codes)
    return columns


def _fetch_all(connection: Connection, query: Select) -> list[tuple[Any, ...]]:
    """All rows as the driver's plain tuples, on the connection's (the session's) transaction."""
    if connection.dialect.name == "postgresql" and connection.dialect.driver == "psycopg":
        compiled = query.compile(dialect=connection.dialect)
        with connection.connection.driver_connection.cursor(binary=True) as cursor:
            cursor.execute(str(compiled), compiled.params)
            return cursor.fetchall()
    result = connection.execute(query)
    try:
        return result.cursor.fetchall()
    finally:
        result.close()
