"""The hot path's Core statements run on the driver's cursor (annotator/engine/driver_statements.py), on both engines.

What must hold: the same rows and values as `Connection.execute` gives (JSON, datetimes, booleans through
their types' processors), the same transaction as the session's (a rollback undoes it), SQLAlchemy's own
exceptions for driver errors, a listener on the statements still sees them, and a statement the fast
path cannot run faithfully is refused by name rather than run wrongly.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta

import psycopg
import pytest
from sqlalchemy import bindparam, create_engine, event, insert, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError, OperationalError

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, User
from annotator.engine import assignment, driver_statements, picking
from annotator.engine.driver_statements import DriverStatements, prepare
from annotator.engine.rows import ASSIGNMENTS, ITEM_COLUMNS, ITEMS, execute
from annotator.people.accounts import issue_token
from annotator.quality import controls
from tests.conftest import stored

DIALECTS = {"postgresql": postgresql.psycopg.dialect(), "sqlite": sqlite.pysqlite.dialect()}


def _hot_path_statements() -> dict[str, object]:
    """Every statement that `rows.execute` runs for next and submit (and control items)."""
    found: dict[str, object] = {"free_slots": assignment._FREE_SLOTS, "lock_item": assignment._LOCK_ITEM,
                                "submit_count": assignment._SUBMIT_COUNT, "mark": assignment._MARK,
                                "vote_postgresql": assignment._VOTE_POSTGRESQL, "lock_if_free": picking._LOCK_IF_FREE,
                                "control_pick": controls._PICK}
    for (dynamic, recount), statement in assignment._INSERT_IF_FREE.items():
        found[f"insert_if_free dynamic={dynamic} recount={recount}"] = statement
    for name in ("pick_statement", "untouched_statement", "leased_statement", "complete_statement"):
        for dynamic in (False, True):
            found[f"{name} dynamic={dynamic}"] = getattr(picking, name)(dynamic)
    return found

LEASED_AT = datetime(2026, 11, 24, 15, 30, 12, 345678)
_ITEM = select(*ITEM_COLUMNS).where(ITEMS.c.id == bindparam("item_id"))
_LEASE = insert(ASSIGNMENTS).values(project_id=bindparam("project_id"), item_id=bindparam("item_id"),
                                    user_id=bindparam("user_id"), status="leased",
                                    leased_at=bindparam("leased_at"),
                                    expires_at=bindparam("expires_at"),
                                    presentation=bindparam("presentation")).returning(ASSIGNMENTS.c.id)
_LEASE_OF = select(ASSIGNMENTS.c.status, ASSIGNMENTS.c.leased_at, ASSIGNMENTS.c.presentation,
                   ASSIGNMENTS.c.excluded).where(ASSIGNMENTS.c.id == bindparam("assignment_id"))


@pytest.fixture
def first_item(app, kpa_project) -> Item:  # type: ignore[no-untyped-def]
    project = kpa_project()
    return db.session.scalars(select(Item).where(Item.project_id == project.id).order_by(Item.position)).first()


@pytest.fixture
def annotator(make_user) -> User:  # type: ignore[no-untyped-def]
    return make_user("ann")


def _lease(item: Item, user: User, presentation: dict | None = None) -> int:
    return execute(_LEASE, {"project_id": item.project_id, "item_id": item.id, "user_id": user.id,
                            "leased_at": LEASED_AT, "expires_at": LEASED_AT + timedelta(minutes=30),
                            "presentation": presentation}).scalar()


@pytest.mark.parametrize(("name", "dialect"), [(name, dialect) for name in _hot_path_statements() for dialect in DIALECTS
                                               if (name, dialect) != ("vote_postgresql", "sqlite")])  # PostgreSQL's own
def test_each_hot_path_statement_is_prepared_as_sqlalchemy_compiles_it(name, dialect):
    statement, engine_dialect = _hot_path_statements()[name], DIALECTS[dialect]
    compiled = statement.compile(dialect=engine_dialect)
    prepared = prepare(statement, engine_dialect)
    assert prepared.sql == compiled.string
    expected_names = compiled.positiontup if compiled.positional else list(dict.fromkeys(compiled.bind_names.values()))
    assert list(prepared.names) == list(expected_names)
    assert {name for name, _ in prepared.bind_processors} == set(compiled._bind_processors)


def test_a_parameter_named_twice_gets_the_typed_bind_processor():
    untyped_then_typed = select(bindparam("when").label("asked")).where(ASSIGNMENTS.c.leased_at == bindparam("when"))
    prepared = prepare(untyped_then_typed, DIALECTS["sqlite"])
    assert prepared.parameters({"when": LEASED_AT}) == ("2026-11-24 15:30:12.345678",) * 2  # SQLite's stored form


def test_a_float_column_reads_back_on_both_engines(app, first_item, annotator):
    lease_id = _lease(first_item, annotator)
    db.session.execute(text("UPDATE assignments SET seconds_spent = 12.5 WHERE id = :id"), {"id": lease_id})
    seconds = select(ASSIGNMENTS.c.seconds_spent).where(ASSIGNMENTS.c.id == bindparam("assignment_id"))
    assert execute(seconds, {"assignment_id": lease_id}).scalar() == 12.5


def test_next_and_submit_run_their_statements_on_the_driver(app, first_item, annotator, monkeypatch):
    prepared: list[str] = []
    real = DriverStatements.prepared

    def spy(self, statement, dialect):  # type: ignore[no-untyped-def]
        prepared.append(" ".join(str(statement.compile(dialect=dialect)).split())[:30])
        return real(self, statement, dialect)

    monkeypatch.setattr(DriverStatements, "prepared", spy)
    token = issue_token(annotator)
    db.session.commit()
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    lease = client.post("/api/v1/projects/kpa/next").get_json()["assignment"]
    assert client.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {"matches": []}}).status_code == 201
    assert any(sql.startswith("INSERT INTO assignments") for sql in prepared)  # the lease
    assert any(sql.startswith("UPDATE items SET done_count") for sql in prepared)  # the submit's count
    assert stored(Assignment, id=lease["id"]).status == "submitted"


def test_an_item_row_is_the_same_as_sqlalchemy_reads_it(app, first_item):
    by_driver = execute(_ITEM, {"item_id": first_item.id}).one()
    by_sqlalchemy = db.session.connection().execute(_ITEM, {"item_id": first_item.id}).one()
    assert tuple(by_driver) == tuple(by_sqlalchemy)
    assert isinstance(by_driver.payload, dict) and by_driver.payload["argument"]
    assert by_driver.is_control is False and by_driver.id == first_item.id  # named like SQLAlchemy's row


def test_a_lease_written_on_the_driver_reads_back_through_a_fresh_session(app, first_item, annotator):
    lease_id = _lease(first_item, annotator, {"swapped": True})
    db.session.commit()
    lease = stored(Assignment, id=lease_id)
    assert (lease.status, lease.leased_at, lease.presentation) == ("leased", LEASED_AT, {"swapped": True})
    assert lease.excluded is False  # the column's Python-side default, which the statement itself leaves out


def test_the_driver_reads_back_datetimes_json_and_booleans_as_python_values(app, first_item, annotator):
    lease_id = _lease(first_item, annotator, {"order": ["b", "a"]})
    row = execute(_LEASE_OF, {"assignment_id": lease_id}).one()
    assert row == ("leased", LEASED_AT, {"order": ["b", "a"]}, False)


def test_a_null_json_value_is_stored_as_sql_null(app, first_item, annotator):
    lease_id = _lease(first_item, annotator, None)
    db.session.commit()
    db.session.remove()  # read back as the next request would, in a fresh session
    assert db.session.scalar(text("SELECT count(*) FROM assignments WHERE id = :id AND presentation IS NULL"),
                             {"id": lease_id}) == 1


def test_a_rollback_undoes_what_the_driver_wrote(app, first_item, annotator):
    _lease(first_item, annotator)
    db.session.rollback()
    assert stored(Assignment, item_id=first_item.id) is None


def test_a_constraint_violation_is_sqlalchemys_integrity_error(app, first_item, annotator):
    _lease(first_item, annotator)
    with pytest.raises(IntegrityError):  # unique (item, user): what next_for catches to retry a race
        _lease(first_item, annotator)
    db.session.rollback()


def test_an_update_without_returning_reports_its_row_count(app, first_item, annotator):
    lease_id = _lease(first_item, annotator)
    expire = ASSIGNMENTS.update().where(ASSIGNMENTS.c.id == bindparam("assignment_id")).values(status="expired")
    assert execute(expire, {"assignment_id": lease_id}).rowcount == 1
    assert execute(expire, {"assignment_id": -1}).rowcount == 0


def test_a_missing_parameter_is_named(app, first_item):
    with pytest.raises(KeyError, match="item_id"):
        execute(_ITEM, {})


def test_a_listener_on_the_statements_still_sees_them(app, first_item):
    seen: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", record)
    try:
        row = execute(_ITEM, {"item_id": first_item.id}).one()
    finally:
        event.remove(db.engine, "before_cursor_execute", record)
    assert row.id == first_item.id and any("FROM items" in statement for statement in seen)


def test_sql_logging_still_shows_the_statements(app, first_item, caplog):
    item_id = first_item.id
    db.session.remove()  # SQLAlchemy decides on logging when a connection is taken, as on a server's start
    with caplog.at_level(logging.INFO, logger="sqlalchemy.engine"):
        execute(_ITEM, {"item_id": item_id}).one()
    assert any("FROM items" in record.getMessage() for record in caplog.records)


def test_statements_past_the_limit_run_through_sqlalchemy(app, first_item, monkeypatch):
    monkeypatch.setattr(DriverStatements, "LIMIT", 0)
    statements = DriverStatements()
    assert statements.prepared(_ITEM, db.engine.dialect) is None
    row = statements.execute(db.session.connection(), _ITEM, {"item_id": first_item.id}).one()
    assert row.id == first_item.id


def test_a_statement_with_an_expanding_parameter_is_refused_by_name(app):
    in_list = select(ITEMS.c.id).where(ITEMS.c.id.in_(bindparam("ids", expanding=True)))
    with pytest.raises(ValueError, match="expanding"):
        prepare(in_list, db.engine.dialect)


def test_a_column_default_computed_per_row_is_refused(app):
    with pytest.raises(ValueError, match="leased_at"):  # Assignment.leased_at defaults to utcnow()
        prepare(insert(ASSIGNMENTS).from_select(["project_id", "item_id", "user_id", "expires_at"],
                                                select(bindparam("p"), bindparam("i"), bindparam("u"),
                                                       bindparam("e"))), db.engine.dialect)


def test_each_statement_is_compiled_once_per_dialect(app):
    statements = DriverStatements()
    first = statements.prepared(_ITEM, db.engine.dialect)
    assert statements.prepared(_ITEM, db.engine.dialect) is first


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)  # SQLite has no server to lose
def test_a_connection_lost_under_a_statement_is_a_disconnect_that_empties_the_pool(app, first_item, database_url):
    pid = db.session.connection().exec_driver_sql("SELECT pg_backend_pid()").scalar()
    with create_engine(database_url).connect() as other:
        other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    with pytest.raises(OperationalError) as raised:
        execute(_ITEM, {"item_id": first_item.id})
    assert raised.value.connection_invalidated  # SQLAlchemy's disconnect handling ran: the pool starts afresh
    db.session.rollback()
    assert execute(_ITEM, {"item_id": first_item.id}).one().id == first_item.id
    assert isinstance(raised.value.orig, psycopg.OperationalError)


def _kept_cursor() -> object:
    return db.session.connection().connection.info[driver_statements._CURSOR][1]


def test_statements_on_one_connection_share_one_cursor(app, first_item):
    execute(_ITEM, {"item_id": first_item.id})
    cursor = _kept_cursor()
    assert execute(_ITEM, {"item_id": first_item.id}).one().id == first_item.id
    assert _kept_cursor() is cursor


def test_a_statement_after_a_driver_error_gets_a_new_cursor(app, first_item, annotator):
    _lease(first_item, annotator)
    failed = _kept_cursor()
    with pytest.raises(IntegrityError):
        _lease(first_item, annotator)  # a second lease of the same item by the same annotator
    db.session.rollback()
    assert execute(_ITEM, {"item_id": first_item.id}).one().id == first_item.id
    assert _kept_cursor() is not failed


def test_a_kept_cursor_is_never_used_on_another_driver_connection(app, first_item):
    execute(_ITEM, {"item_id": first_item.id})
    pooled = db.session.connection().connection
    stale = (object(), pooled.info[driver_statements._CURSOR][1])  # as if the driver connection were replaced
    pooled.info[driver_statements._CURSOR] = stale
    assert execute(_ITEM, {"item_id": first_item.id}).one().id == first_item.id
    assert pooled.info[driver_statements._CURSOR][0] is pooled.driver_connection


def test_a_text_statement_without_its_result_columns_is_refused(app):
    with pytest.raises(ValueError, match=r"text\(\)"):  # its rows would have no columns to be read by
        prepare(text("SELECT id FROM items"), db.engine.dialect)


def test_a_text_statement_with_its_result_columns_runs_on_the_driver(app, first_item):
    by_id = text("SELECT id, external_id FROM items WHERE id = :item_id").columns(ITEMS.c.id, ITEMS.c.external_id)
    assert execute(by_id, {"item_id": first_item.id}).one() == (first_item.id, first_item.external_id)


def test_an_interrupt_while_reading_rows_drops_the_kept_cursor(app, first_item, monkeypatch):
    execute(_ITEM, {"item_id": first_item.id})
    interrupted = _kept_cursor()

    def interrupt(*_args):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt
    monkeypatch.setattr(driver_statements.Prepared, "rows", interrupt)
    with pytest.raises(KeyboardInterrupt):
        execute(_ITEM, {"item_id": first_item.id})
    monkeypatch.undo()
    pooled = db.session.connection().connection
    assert driver_statements._CURSOR not in pooled.info  # an unfinished SQLite statement is not kept open
    assert execute(_ITEM, {"item_id": first_item.id}).one().id == first_item.id
    assert _kept_cursor() is not interrupted
