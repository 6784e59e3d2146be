"""A statement's plan as a server worker runs it: planned before the parameters' values are known.

psycopg prepares the hot path's statements (core/database.py), and PostgreSQL then runs a prepared
statement on one plan made for every value of its parameters (the generic plan) once it judges that plan
no dearer than planning each call; SQLite plans a statement before its ? parameters are bound. What such a
plan can use is fixed by how the statement is written (a parameter where a literal was needed keeps a
partial index out), and an EXPLAIN with the values filled in shows a plan the workers never run.

Used by `python -m bench.profile_pairs --explain` and by tests/unit/test_pick_plan.py.
"""
from __future__ import annotations

import re
from typing import Any

from psycopg import sql
from sqlalchemy import Connection


def plan_lines(connection: Connection, statement: Any, params: dict[str, Any], analyze: bool = False) -> list[str]:
    """The plan, one line per step: PostgreSQL's generic plan (EXPLAIN [ANALYZE] EXECUTE of the statement
    prepared with plan_cache_mode = force_generic_plan, in the connection's transaction), or SQLite's
    EXPLAIN QUERY PLAN (which has no ANALYZE)."""
    compiled = statement.compile(connection)
    values = {**compiled.params, **params}
    if connection.dialect.name == "sqlite":
        bound = tuple(values[name] for name in compiled.positiontup or ())
        return [row[-1] for row in connection.exec_driver_sql("EXPLAIN QUERY PLAN " + str(compiled), bound)]
    names: list[str] = []

    def numbered(match: re.Match[str]) -> str:
        if match[1] not in names:
            names.append(match[1])
        return f"${names.index(match[1]) + 1}"

    text = re.sub(r"%\((\w+)\)s", numbered, str(compiled))
    # Sent unprepared, as PostgreSQL reads them: PREPARE's $n are not the driver's parameters, and EXECUTE takes none.
    driver = connection.connection.driver_connection
    assert driver is not None, "an open connection has its driver's connection"
    cursor = driver.cursor()
    cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan", prepare=False)
    cursor.execute("PREPARE planned AS " + text, prepare=False)
    try:
        arguments = sql.SQL(", ").join(sql.Literal(values[name]) for name in names)
        explain = sql.SQL("EXPLAIN (ANALYZE, BUFFERS) " if analyze else "EXPLAIN ")
        cursor.execute(sql.SQL("{}EXECUTE planned({})").format(explain, arguments), prepare=False)
        return [row[0] for row in cursor.fetchall()]
    finally:
        cursor.execute("DEALLOCATE planned", prepare=False)
