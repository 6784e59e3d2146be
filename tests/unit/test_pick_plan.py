"""`next` finds an annotator's open lease and skips the items they had by index lookups whose cost does not
grow with the work they have done. Each engine plans the statement before it knows the parameters (a
prepared statement's generic plan on PostgreSQL, a statement with ? parameters on SQLite), so what the
plan can use is fixed by how the statement is written: with 'leased' sent as a parameter, neither engine
could use the partial index of open leases, and every `next` read all of the annotator's assignments."""
from __future__ import annotations

import re
from typing import Any

from psycopg import sql

from annotator.core.extensions import db
from annotator.core.models import utcnow
from annotator.engine.picking import pick_statement


def _plan(statement: Any, params: dict[str, Any]) -> list[str]:
    """The engine's plan of the statement, made without the parameters' values, one line per step."""
    compiled = statement.compile(db.engine)
    values = {**compiled.params, **params}
    connection = db.session.connection()
    if db.engine.dialect.name == "sqlite":
        bound = tuple(values[name] for name in compiled.positiontup or ())
        return [row[-1] for row in connection.exec_driver_sql("EXPLAIN QUERY PLAN " + str(compiled), bound)]
    names: list[str] = []
    text = re.sub(r"%\((\w+)\)s", lambda m: f"${names.index(m[1]) + 1}" if m[1] in names
                  else (names.append(m[1]) or f"${len(names)}"), str(compiled))
    cursor = connection.connection.driver_connection.cursor()  # PREPARE's $n are not the driver's parameters:
    cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")  # sent unprepared, as PostgreSQL reads them
    cursor.execute("PREPARE pick_plan AS " + text, prepare=False)
    try:
        arguments = sql.SQL(", ").join(sql.Literal(values[name]) for name in names)  # EXECUTE takes no parameters
        cursor.execute(sql.SQL("EXPLAIN EXECUTE pick_plan({})").format(arguments), prepare=False)
        return [row[0] for row in cursor.fetchall()]
    finally:
        cursor.execute("DEALLOCATE pick_plan", prepare=False)


def _pick_plan(kpa_project, make_user) -> list[str]:  # type: ignore[no-untyped-def]
    project, ann = kpa_project(), make_user("ann")
    return _plan(pick_statement(False), {"project_id": project.id, "user_id": ann.id, "now": utcnow(), "k": project.k})


def test_the_open_lease_is_found_in_the_partial_index_of_open_leases(kpa_project, make_user):
    plan = _pick_plan(kpa_project, make_user)
    assert any("uq_assignments_one_open_lease" in line for line in plan), "\n".join(plan)


def test_the_annotators_items_are_probed_by_item_not_read_whole(kpa_project, make_user):
    """Every lookup of the annotator's assignments is by item (one probe per item the walk visits), or of their
    open lease; none reads all their assignments (as NOT IN over them did, on every `next`)."""
    plan = "\n".join(_pick_plan(kpa_project, make_user))
    if db.engine.dialect.name == "sqlite":
        lookups = re.findall(r"SEARCH assignments USING (?:COVERING )?INDEX (\w+) \(([^)]*)\)", plan)
    else:
        lookups = re.findall(r"using (\w+) on assignments \w+.*\n\s*Index Cond: (.*)", plan)
    by_user = [(index, condition) for index, condition in lookups if "user_id" in condition]
    assert by_user, plan
    assert all(index == "uq_assignments_one_open_lease" or "item_id" in condition for index, condition in by_user), plan
