"""The hot path's Core statements, compiled once per dialect and run on the driver's own cursor.

Why: `Connection.execute` costs 8–103 µs of CPU per statement above the driver's own work (the
statement's cache key, the parameters' processing, the result's metadata and events; bench/README.md,
"The hot path, fourth and fifth rounds"), and a next+submit pair runs four statements. What stays the same:
the statements are SQLAlchemy Core, compiled by SQLAlchemy for the session's dialect; parameters and
rows go through their column types' own bind and result processors (JSON, datetimes on SQLite, ...);
they run on the session's connection, inside its transaction (begun by SQLAlchemy, so SQLite's BEGIN
IMMEDIATE is in force), and a driver error is handed to SQLAlchemy, which translates it
(`IntegrityError`, ...) and invalidates the pool after a disconnect exactly as for its own statements.

When something watches or rewrites statements (cursor or execute events, as tests and
`bench/profile_pairs.py --timings` use; the dialect's `do_execute` event; SQL logging; a
`schema_translate_map`), the statement goes through `Connection.execute` instead, so that it applies.

What it does not do: expanding (`IN`) or literal-rendered parameters, `text()` without its result
columns, and executemany; `prepare` refuses such a statement, so a new hot-path statement that needs
them fails in the tests at once.
"""
from __future__ import annotations

import contextlib
from collections import namedtuple
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import MultipleResultsFound, NoResultFound
from sqlalchemy.sql import Executable
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import TextClause
from sqlalchemy.types import TypeEngine

Processor = Callable[[Any], Any]


@dataclass
class Prepared:
    """One statement as its dialect's driver takes it: SQL text, how to lay out and process the
    parameters, and how to process each result column."""

    sql: str
    names: tuple[str, ...]  # the parameters in the order of their placeholders (positional paramstyles)
    positional: bool
    defaults: dict[str, Any]  # values bound in the statement itself (e.g. `status == 'leased'`)
    bind_processors: tuple[tuple[str, Processor], ...]
    result_types: tuple[TypeEngine[Any], ...] | None  # None: the statement returns no rows
    row_type: Callable[..., tuple[Any, ...]] | None  # rows are named tuples with the result's column names
    dialect: Dialect
    # Built at the first execution, from the driver's column type codes, as SQLAlchemy builds them.
    _result_processors: tuple[Processor | None, ...] | None = field(default=None, repr=False)

    def parameters(self, params: dict[str, Any]) -> Sequence[Any] | dict[str, Any]:
        values = {**self.defaults, **params}
        for name, process in self.bind_processors:
            if name in values:
                values[name] = process(values[name])
        missing = [name for name in self.names if name not in values]
        if missing:
            raise KeyError(f"no value for the statement's parameter(s) {', '.join(missing)}")
        if self.positional:
            return tuple(values[name] for name in self.names)
        return {name: values[name] for name in self.names}

    def result_processors(self, cursor: Any) -> tuple[Processor | None, ...]:
        """Built at the statement's first execution from the cursor's description, which psycopg builds
        anew each time it is asked (~10 µs), and kept: as SQLAlchemy keeps a compiled statement's."""
        if self._result_processors is None:
            types = self.result_types or ()
            description = cursor.description
            if len(types) != len(description):
                raise ValueError(f"the statement returned {len(description)} columns, its SQL names {len(types)}")
            self._result_processors = tuple(type_.dialect_impl(self.dialect).result_processor(self.dialect, column[1])
                                            for type_, column in zip(types, description))
        return self._result_processors

    def rows(self, fetched: list[Any], cursor: Any) -> list[tuple[Any, ...]]:
        """The fetched rows as named tuples of Python values."""
        make = self.row_type
        if not fetched or make is None:
            return []
        processors = self.result_processors(cursor)
        if any(processors):
            return [make(*(value if process is None else process(value) for process, value in zip(processors, row)))
                    for row in fetched]
        return [make(*row) for row in fetched]


def prepare(statement: Executable, dialect: Dialect) -> Prepared:
    """Compile the statement for the dialect and collect what its parameters and rows need."""
    if isinstance(statement, TextClause):  # its rows' columns are unknown until run: they would be dropped
        raise ValueError("a text() statement cannot run on the driver directly: name its result columns with "
                         "text(...).columns(...), or run it with Connection.execute")
    compiled = statement.compile(dialect=dialect)
    if not isinstance(compiled, SQLCompiler):
        raise TypeError(f"not a SQL statement: {statement!r}")
    if compiled.literal_execute_params or compiled.post_compile_params:
        raise ValueError("a statement with expanding or literal-rendered parameters cannot run on the driver "
                         "directly; run it with Connection.execute")
    names: list[str] = []
    defaults: dict[str, Any] = {}
    processors: dict[str, Processor] = {}  # by name: binds of one name get one value, the last processor, as in
    for bind, name in compiled.bind_names.items():  # SQLAlchemy's own (a typed bind after an untyped one counts)
        if bind.callable is not None:
            raise ValueError(f"parameter {name}'s value is computed per execution; run this statement with "
                             "Connection.execute")
        if name not in names:
            names.append(name)
        if not bind.required:
            defaults[name] = bind.effective_value
        process = bind.type.dialect_impl(dialect).bind_processor(dialect)
        if process is not None:
            processors[name] = process
    for column, default in [(column, column.default) for column in compiled.insert_prefetch] + \
            [(column, column.onupdate) for column in compiled.update_prefetch]:  # Python-side column defaults
        if default is None or not default.is_scalar or column.key not in names:
            raise ValueError(f"column {column.key}'s default is not a constant; run this statement with "
                             "Connection.execute")
        defaults[column.key] = default.arg
    positional = bool(compiled.positional)
    if positional:
        names = list(compiled.positiontup or ())
    columns = compiled._result_columns  # what a SELECT or a RETURNING clause gives, in the row's order
    types = tuple(column.type for column in columns) if columns else None
    row_type = namedtuple("Row", [column.keyname for column in columns], rename=True) if columns else None  # type: ignore[misc]
    return Prepared(compiled.string, tuple(names), positional, defaults, tuple(processors.items()), types, row_type,
                    dialect)


class Rows:
    """What a driver-run statement returned, answering the few questions the hot path asks of a result."""

    __slots__ = ("_rows", "rowcount")

    def __init__(self, rows: list[tuple[Any, ...]], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def all(self) -> list[tuple[Any, ...]]:
        return self._rows

    def first(self) -> tuple[Any, ...] | None:
        return self._rows[0] if self._rows else None

    def one(self) -> tuple[Any, ...]:
        if not self._rows:
            raise NoResultFound("the statement returned no row, where one was required")
        if len(self._rows) > 1:
            raise MultipleResultsFound(f"the statement returned {len(self._rows)} rows, where one was required")
        return self._rows[0]

    def scalar(self) -> Any:
        return self._rows[0][0] if self._rows else None

    def scalar_one(self) -> Any:
        return self.one()[0]

    def __iter__(self) -> Any:
        return iter(self._rows)


class DriverStatements:
    """The prepared statements of one process, by statement and dialect (engine).

    The hot path's statements are module constants (or cached per variant), so there are about twenty;
    a statement built anew per call would fill this, so past `LIMIT` statements the rest run through
    `Connection.execute`, whose cache is bounded.
    """

    LIMIT = 128

    def __init__(self) -> None:
        self._prepared: dict[tuple[int, int], tuple[Executable, Dialect, Prepared]] = {}

    def prepared(self, statement: Executable, dialect: Dialect) -> Prepared | None:
        """The statement prepared for the dialect; None when the limit is reached."""
        key = (id(statement), id(dialect))
        found = self._prepared.get(key)
        if found is None or found[0] is not statement or found[1] is not dialect:  # both are kept: no id reuse
            if len(self._prepared) >= self.LIMIT:
                return None
            found = (statement, dialect, prepare(statement, dialect))
            self._prepared[key] = found
        return found[2]

    @staticmethod
    def _watched(connection: Connection) -> bool:
        """Whether someone watches or rewrites statements on this connection: then they take the usual way."""
        dispatch = connection.dispatch
        return bool(dispatch.before_cursor_execute or dispatch.after_cursor_execute or dispatch.before_execute
                    or dispatch.after_execute or connection.dialect.dispatch.do_execute
                    or connection._echo  # SQL logging, by `echo` or by the sqlalchemy.engine logger's level
                    or connection.get_execution_options().get("schema_translate_map"))

    def execute(self, connection: Connection, statement: Executable, params: dict[str, Any] | None = None) -> Any:
        """Run the statement in the connection's transaction; a `Rows`, or a CursorResult when watched."""
        prepared = None if self._watched(connection) else self.prepared(statement, connection.dialect)
        if prepared is None:
            return connection.execute(statement, params)
        parameters = prepared.parameters(params or {})
        driver_error = connection.dialect.loaded_dbapi.Error
        cursor = None
        try:
            cursor = _kept_cursor(connection)
            cursor.execute(prepared.sql, parameters)
            fetched = cursor.fetchall() if prepared.row_type is not None else []
            rows = prepared.rows(fetched, cursor)
            rowcount = cursor.rowcount
        except driver_error as error:  # translated, and a lost connection invalidates the pool
            _drop_cursor(connection)
            connection._handle_dbapi_exception(error, prepared.sql, parameters, cursor, None)
        except BaseException:  # e.g. an interrupt mid-fetch: closing the cursor resets an unfinished SQLite
            _drop_cursor(connection)  # statement, whose read snapshot would outlive the transaction
            raise
        return Rows(rows, rowcount)


_CURSOR = "annotator_driver_cursor"  # key in the pooled connection's `info`


def _kept_cursor(connection: Connection) -> Any:
    """The driver connection's cursor for these statements, made once and kept with the pooled connection.

    Why kept: a new psycopg cursor starts with an empty cache of type loaders and dumpers, so each
    statement on a fresh cursor paid for looking them up again (20–50 µs, bench/README.md, "The hot path,
    fifth round"). Safe because a pooled connection serves one session at a time, every statement's rows
    are fetched at once (no open result is left on the cursor), and the pool empties `info` when it
    replaces the driver connection; the driver connection is kept beside the cursor all the same, so a
    cursor is never used on another connection than its own.
    """
    pooled = connection.connection
    driver = pooled.driver_connection
    kept = pooled.info.get(_CURSOR)
    if kept is None or kept[0] is not driver:
        kept = (driver, driver.cursor())  # type: ignore[union-attr]
        pooled.info[_CURSOR] = kept
    return kept[1]


def _drop_cursor(connection: Connection) -> None:
    """After a failed statement the next one gets a new cursor: nothing of a failed one is reused.
    Quietly: closing after a lost connection must not hide why the statement failed."""
    with contextlib.suppress(Exception):
        kept = connection.connection.info.pop(_CURSOR, None)
        if kept is not None:
            kept[1].close()
