"""Votes that already exist (a shared task's released annotations) loaded as if annotators had cast them.

Why: a task's data often carries its crowd votes (one shared task's files hold nine annotators' tags per
word). Stored as ordinary submitted Assignments and Label rows they go through the very same gold,
agreement and export code as live votes, so our pipeline can be checked against the published figures,
and a project can start from them and collect further votes.

Who cast them: one account per vote column, "<project>-annotator-1" ... "-n", in column order. These
accounts have no password and are inactive, so nobody can log in as them or be handed a HIT under their
name; they are recognisable as imported by exactly that. A column is only a position in the file: the
task's data does not link column j of one sentence to column j of another, so per-annotator figures of
these accounts say nothing about people.

Speed: train.txt is 24,678 votes and 291,600 labels. Every answer is still checked by the task type's
`checked()`, which gives its label rows and the answer as stored from one check of the item's view (the rules live
answers obey: a declared project keeps the definition's answer, also where the file's votes are in a built-in
type's shape), but rows go in by COPY on
PostgreSQL and by the driver's executemany of tuples in chunks elsewhere, never as ORM objects, and done_count is
set by one UPDATE. On PostgreSQL most of the time is the foreign-key checks of the label rows (four per row).
Everything runs in the caller's transaction, so an import that fails anywhere leaves nothing behind.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Table, func, insert, select, update

from annotator.analysis import prior_counts
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Label, Project, User, utcnow
from annotator.tasks import AnswerError, LabelIn, project_task

CHUNK = 5_000
LABEL_COLUMNS = ("assignment_id", "project_id", "item_id", "user_id", "unit", "field", "value")
ASSIGNMENT_COLUMNS = ("project_id", "item_id", "user_id", "status", "leased_at", "expires_at", "submitted_at",
                      "seconds_spent", "answer")


@dataclass(frozen=True)
class ImportedVotes:
    coders: int   # vote columns, i.e. imported accounts used
    votes: int    # submitted assignments created
    labels: int   # label rows created


def coder_name(project: Project, column: int) -> str:
    """The account of vote column `column` (1-based) of this project."""
    return f"{project.slug}-annotator-{column}"


def import_votes(project: Project, answers: Mapping[str, Sequence[dict[str, Any] | None]]) -> ImportedVotes:
    """Store `answers[item external id][column]` as that column's submitted vote on the item.

    None skips a column for one item. Refuses (FormatError) an unknown item, an item that would get
    more votes than the project's k, and any answer the task type refuses, naming item and column.
    """
    items = _items(project, list(answers))
    columns = max((len(a) for a in answers.values()), default=0)
    coders = _coders(project, columns)
    task = project_task(project)
    settings = task.settings_of(project)
    now = utcnow()
    votes: list[tuple[Item, int, dict[str, Any], list[LabelIn]]] = []
    for external_id, row in answers.items():
        item = items[external_id]
        given = [(j, a) for j, a in enumerate(row) if a is not None]
        if item.done_count + len(given) > project.k:
            raise FormatError(f"item {external_id} would have {item.done_count + len(given)} votes but the "
                              f"project takes k = {project.k}; raise k first")
        for j, answer in given:
            try:
                stored, labels = task.checked(item, answer, settings)
                votes.append((item, j, stored, labels))
            except AnswerError as error:
                raise FormatError(f"item {external_id}, annotator {j + 1}: {error}") from None
    ids = _insert_assignments(project, [(item.id, coders[j], answer) for item, j, answer, _ in votes], now)
    count = _bulk_insert(Label.__table__, LABEL_COLUMNS, (
        (assignment_id, project.id, item.id, coders[j], label.unit, label.field, label.value)
        for assignment_id, (item, j, _, labels) in zip(ids, votes) for label in labels))
    _recount(project)
    prior_counts.recount(project)   # a stopping rule's prior per group counts the imported votes too
    db.session.expire_all()  # done_count changed behind the ORM's back
    return ImportedVotes(columns if votes else 0, len(votes), count)


def _items(project: Project, external_ids: list[str]) -> dict[str, Item]:
    items = {i.external_id: i for i in db.session.scalars(select(Item).where(Item.project_id == project.id))}
    unknown = [e for e in external_ids if e not in items]
    if unknown:
        raise FormatError(f"votes for item {unknown[0]}, which project {project.slug!r} does not have "
                          f"({len(unknown)} such items)")
    return items


def _coders(project: Project, columns: int) -> list[int]:
    """The ids of the column accounts, created when missing; a real account of that name is refused."""
    names = [coder_name(project, j) for j in range(1, columns + 1)]
    existing = {u.username: u for u in db.session.scalars(select(User).where(User.username.in_(names)))}
    real = [u.username for u in existing.values() if u.password_hash is not None or u.active]
    if real:
        raise FormatError(f"there is already an account {real[0]!r} that people can log in with; "
                          "imported votes need accounts of their own (rename it or use another project slug)")
    missing = [n for n in names if n not in existing]
    if missing:
        db.session.execute(insert(User), [{"username": n, "role": "annotator", "password_hash": None,
                                           "active": False, "created_at": utcnow()} for n in missing])
    ids = dict(db.session.execute(select(User.username, User.id).where(User.username.in_(names))).all())
    return [ids[n] for n in names]


def _insert_assignments(project: Project, votes: list[tuple[int, int, dict[str, Any]]],
                        now: datetime) -> list[int]:
    """Insert the votes as submitted assignments; their ids in the order of `votes`.

    The ids are read back by (item, annotator), which is unique, rather than trusted to come back in
    insertion order. They do increase in insertion order, which is what keeps the vote columns in order.
    """
    _bulk_insert(Assignment.__table__, ASSIGNMENT_COLUMNS, (
        (project.id, item_id, user_id, SUBMITTED, now, now, now, None, answer)
        for item_id, user_id, answer in votes))
    users = sorted({user_id for _, user_id, _ in votes})
    ids = {(item_id, user_id): assignment_id for assignment_id, item_id, user_id in db.session.execute(
        select(Assignment.id, Assignment.item_id, Assignment.user_id)
        .where(Assignment.project_id == project.id, Assignment.user_id.in_(users)))}
    return [ids[(item_id, user_id)] for item_id, user_id, _ in votes]


def _recount(project: Project) -> None:
    """Item.done_count from the submitted assignments, in one UPDATE ... FROM (a join, not a subquery per row)."""
    counts = (select(Assignment.item_id, func.count().label("n"))
              .where(Assignment.project_id == project.id, Assignment.status == SUBMITTED)
              .group_by(Assignment.item_id).subquery())
    db.session.execute(update(Item).where(Item.id == counts.c.item_id).values(done_count=counts.c.n)
                       .execution_options(synchronize_session=False))


def _bulk_insert(table: Table, columns: Sequence[str], rows: Iterable[tuple[Any, ...]]) -> int:
    """Insert many rows fast: COPY on PostgreSQL, multi-row INSERTs (executemany) elsewhere."""
    connection = db.session.connection()
    count = 0
    if connection.dialect.name == "postgresql":
        from psycopg.types.json import Jsonb
        json_columns = {n for n, name in enumerate(columns) if isinstance(table.c[name].type, JSON)}
        # psycopg's own connection (for psycopg the same object as the DB-API one): COPY is psycopg's.
        driver_connection = connection.connection.driver_connection
        assert driver_connection is not None  # a connection in use has one
        with driver_connection.cursor() as cursor:
            with cursor.copy(f"COPY {table.name} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row([Jsonb(v) if n in json_columns else v for n, v in enumerate(row)]
                                   if json_columns else row)
                    count += 1
        return count
    # The driver's executemany with the rows as tuples, each value put in the form the column's type binds
    # (a datetime as SQLite's text, a JSON value dumped): SQLAlchemy's executemany of dicts built and processed
    # the parameters of every row in Python, half of the time of the train file's 291,600 label rows.
    dialect = connection.dialect
    processors = [table.c[name].type.dialect_impl(dialect).bind_processor(dialect) for name in columns]
    convert = [(n, process) for n, process in enumerate(processors) if process is not None]
    marks = ", ".join(["?" if dialect.paramstyle == "qmark" else "%s"] * len(columns))
    statement = f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({marks})"
    chunk: list[tuple[Any, ...]] = []
    for row in rows:
        if convert:
            values = list(row)
            for n, process in convert:
                values[n] = process(values[n])
            row = tuple(values)
        chunk.append(row)
        if len(chunk) == CHUNK:
            connection.exec_driver_sql(statement, chunk)
            count, chunk = count + len(chunk), []
    if chunk:
        connection.exec_driver_sql(statement, chunk)
        count += len(chunk)
    return count
