"""Projects: creating them and loading their items (the shared half of every importer), and who may
work on them (archived projects are closed; a project is open to every annotator or to a list)."""
from __future__ import annotations

import re
from array import array
from collections.abc import Iterable
from itertools import islice
from typing import Any

from psycopg.errors import UniqueViolation
from sqlalchemy import Connection, Select, func, insert, select, text
from sqlalchemy.exc import IntegrityError

from annotator.core import json_numbers
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.jsonsafe import JSONValueError, check_value
from annotator.core.models import SUBMITTED, Assignment, Item, Project, ProjectData, User, project_annotators
from annotator.people.crowd import admitted, admitted_projects
from annotator.tasks import NewItem, task_type

ID_LENGTH = Item.external_id.type.length or 200
# Items checked and inserted together (add_items): large enough that a million items take a few hundred
# statements, small enough that a batch's ids fit one lookup on either engine.
ITEM_BATCH = 5000
ITEM_COLUMNS = ("project_id", "external_id", "position", "payload", "reference", "done_count", "is_control")

SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,79}$")
# Paths under /admin/projects/ that are admin pages of their own: a project of such a slug would have no
# reachable page (the fixed route wins), so no new project takes one.
RESERVED_SLUGS = frozenset({"new", "import-archive"})


def reserved_slug_problem(slug: str) -> str | None:
    """Why a new project may not take `slug` though it is well-formed, or None."""
    if slug in RESERVED_SLUGS:
        return f"project slug {slug!r} is the address of an admin page (/admin/projects/{slug}): choose another"
    return None


def get_or_create_project(slug: str, task: str, *, name: str | None = None, k: int | None = None,
                          lease_minutes: int | None = None,
                          source: dict[str, Any] | None = None,
                          definition: dict[str, Any] | None = None) -> tuple[Project, bool]:
    """The project `slug` and whether it is new (created with the task type's defaults).

    A declared campaign's `definition` (checked, as `Definition.to_data` gives it) is kept on a new project,
    which takes its name, guidelines and k from it unless given; an existing project must have the same one
    (its votes and items were made for it). Runs inside the caller's transaction, so a failed import creates
    no project either.
    """
    if not SLUG.match(slug):
        raise FormatError(f"project slug {slug!r} must be lower-case letters, digits, '-' or '_'")
    project = db.session.scalar(select(Project).where(Project.slug == slug))
    if project is None:
        if problem := reserved_slug_problem(slug):
            raise FormatError(problem)
        kind = task_type(task)
        declared = definition or {}
        project = Project(slug=slug, name=name or declared.get("name") or slug, task_type=task,
                          k=k or declared.get("k") or kind.default_k, lease_minutes=lease_minutes or 30,
                          guidelines=declared.get("guidelines") or "", settings={}, source=source or {},
                          definition=definition)
        db.session.add(project)
        db.session.flush()
        return project, True
    if project.task_type != task:
        raise FormatError(f"project {slug!r} holds {project.task_type} HITs, not {task}")
    if definition is not None and project.definition != definition:
        # The project's HIT, its votes and its items were made for the definition it has.
        had = (project.definition or {}).get("name")
        raise FormatError(f"project {slug!r} was created with another definition ({had!r}); a project's "
                          "definition does not change: import these items with the project's own definition, "
                          "or into a new project")
    if k is not None and k != project.k:
        # An import adds items; it must not quietly re-plan a running project's votes.
        raise FormatError(f"project {slug!r} already exists with k = {project.k}; an import does not change k of "
                          f"an existing project: leave --k out (or give --k {project.k}), and change k on the "
                          "project's admin page")
    if lease_minutes is not None:
        project.lease_minutes = lease_minutes
    if source and project.source and project.source != source:
        raise FormatError(f"project {slug!r} was loaded from {project.source.get('format')} "
                          f"split {project.source.get('split')!r}; import other data into a new project")
    project.source = source or project.source
    return project, False


def _check_storable(item: NewItem) -> None:
    """Refuse (FormatError naming the item) what the database cannot keep: PostgreSQL refuses NUL in text
    and JSON, and an id longer than its column; without this the import failed with a 500, not a message."""
    where = f"item {item.external_id[:80]!r}"
    if not item.external_id or len(item.external_id) > ID_LENGTH:
        raise FormatError(f"{where}: an item id has 1 to {ID_LENGTH} characters", file=item.file, line=item.line)
    try:
        check_value(item.external_id, "its id")
        check_value(item.payload, "its text")
        check_value(item.reference, "its reference labels")
    except JSONValueError as error:
        raise FormatError(f"{where}: {error}", file=item.file, line=item.line) from None


def add_items(project: Project, items: Iterable[NewItem]) -> int:
    """Append items after the project's existing ones; ids must be new to the project and to the input.

    `items` may be a stream of any length (a declared campaign's file of a million items): it is stored in
    batches of ITEM_BATCH, each checked and inserted at once (executemany; COPY on PostgreSQL), an id already
    taken found by the unique index. So neither memory nor a statement's parameters grow with the input: one
    `IN (...)` of a million ids made the database refuse the statement and the import end in a 503. Of the
    items stored only their lines are kept (a number each), to name where an id given twice was first given.
    """
    start = db.session.execute(select(func.coalesce(func.max(Item.position), -1))
                               .where(Item.project_id == project.id)).scalar_one() + 1
    lines = array("q")
    stream = iter(items)
    while batch := list(islice(stream, ITEM_BATCH)):
        _add_batch(project, batch, start, lines)
    return len(lines)


def _add_batch(project: Project, batch: list[NewItem], start: int, lines: array[int]) -> None:
    """Check and insert one batch; `lines` holds the line of every item this input stored so far (0: unknown).

    An id the project already has (from before, or from an earlier batch of this input) is found by the unique
    index as the batch is inserted, in a savepoint: a lookup of every batch's ids before inserting it was planned,
    on PostgreSQL, once for the empty table and then kept (a prepared statement), and scanned the whole growing
    table each time. Only a refused batch is looked up, to say which id and where."""
    first: dict[str, int] = {}
    for n, item in enumerate(batch):
        _check_storable(item)
        if item.external_id in first:
            raise _given_twice(item, batch[first[item.external_id]].line)
        first[item.external_id] = n
    offset = start + len(lines)
    rows = [(project.id, item.external_id, offset + n, item.payload, item.reference, 0, item.control)
            for n, item in enumerate(batch)]
    try:
        with db.session.begin_nested():
            connection = db.session.connection()
            if connection.dialect.name == "postgresql":
                _copy_rows(connection, rows)
            else:   # Core's executemany: the ORM's bulk path cost twice as much
                db.session.execute(insert(Item.__table__), [dict(zip(ITEM_COLUMNS, row)) for row in rows])
    except (IntegrityError, UniqueViolation):
        refusal = _taken(project, batch, first, start, lines)
        if refusal is None:
            raise
        raise refusal from None
    lines.extend(item.line or 0 for item in batch)


def _taken(project: Project, batch: list[NewItem], first: dict[str, int], start: int,
           lines: array[int]) -> FormatError | None:
    """Why the batch was refused: an id the project has, named with its line (and the earlier one's, when this
    input gave it before); None when no id is taken (another constraint refused it)."""
    taken = db.session.execute(select(Item.external_id, Item.position).where(
        Item.project_id == project.id, Item.external_id.in_(list(first)))).all()
    if not taken:
        return None
    again = [(first[e], e, p) for e, p in taken if p >= start]   # stored by an earlier batch of this input
    if again:
        _, external_id, position = min(again)
        return _given_twice(batch[first[external_id]], lines[position - start] or None)
    external_id = min(e for e, _ in taken)
    item = batch[first[external_id]]
    some = "at least " if len(batch) == ITEM_BATCH else ""
    return FormatError(f"project {project.slug!r} already has item {external_id} ({some}{len(taken)} of these "
                       "items are loaded already)", file=item.file, line=item.line)


def _copy_rows(connection: Connection, rows: list[tuple[Any, ...]]) -> None:
    """PostgreSQL's COPY, in the session's transaction: a third of the client's CPU of psycopg's executemany
    (bench/results/2026-11-28-uploads-1m.md). JSON goes as its text (with the numbers JSONB keeps:
    core/json_numbers.py), a reference of None as NULL."""
    cursor = connection.connection.driver_connection.cursor()   # type: ignore[union-attr]
    with cursor, cursor.copy(f"COPY items ({', '.join(ITEM_COLUMNS)}) FROM STDIN") as copy:
        for project_id, external_id, position, payload, reference, done, control in rows:
            copy.write_row((project_id, external_id, position, json_numbers.dumps(payload),
                            None if reference is None else json_numbers.dumps(reference), done, control))


def _given_twice(item: NewItem, earlier_line: int | None) -> FormatError:
    if item.line is not None and earlier_line is not None:
        return FormatError(f"the id {item.external_id[:80]!r} is also the id of line {earlier_line}", file=item.file,
                           line=item.line, column='"id"')
    return FormatError(f"item id {item.external_id} occurs twice in the input", file=item.file, line=item.line)


def refresh_statistics() -> None:
    """After a bulk import, let PostgreSQL's planner see the new rows at once.

    Without fresh statistics the item pick of `next` is planned for an empty table (a nested loop
    per item) until autovacuum gets round to it, which some servers never do.

    An empty table is left alone: analysed empty, PostgreSQL plans for its size at planning time,
    and plans cached by the first votes then stay fit for a near-empty table: the check of labels'
    foreign key to assignments, cached by each connection at its first vote, then read the whole
    assignments table on every label row, a cost growing with every vote
    (bench/results/2026-11-25-figures-from-docstrings.md). Never analysed, the planner assumes at least ten pages and
    looks rows up by index.
    """
    if db.session.get_bind().dialect.name == "postgresql":
        for table in ("items", "assignments", "labels"):
            if db.session.scalar(text(f"SELECT EXISTS (SELECT 1 FROM {table})")):
                db.session.execute(text(f"ANALYZE {table}"))
        db.session.commit()


def open_to(user: User) -> Select[Project]:
    """The query of the projects `user` may work on: not archived, and open to all or listing them."""
    if user.is_crowd:  # a crowd account works only where a study link let it in
        return select(Project).where(~Project.archived, Project.id.in_(admitted_projects(user))).order_by(Project.name)
    listed = select(project_annotators.c.project_id).where(project_annotators.c.user_id == user.id)
    return (select(Project).where(~Project.archived, (Project.audience == "all") | Project.id.in_(listed))
            .order_by(Project.name))


def closed_to(project: Project, user: User) -> str | None:
    """Why `user` may not work on `project` now, or None when they may."""
    if project.archived:
        return f"The project {project.name!r} is closed."
    if user.is_crowd:
        return None if admitted(project, user) else f"The project {project.name!r} is not part of your study."
    if project.audience == "listed" and not db.session.scalar(
            select(func.count()).select_from(project_annotators).where(
                project_annotators.c.project_id == project.id, project_annotators.c.user_id == user.id)):
        return f"The project {project.name!r} is not open to you."
    return None


def has_votes(project: Project) -> bool:
    return bool(db.session.scalar(select(func.count()).select_from(Assignment).where(
        Assignment.project_id == project.id, Assignment.status == SUBMITTED)))


def project_data(project: Project, prefix: str = "") -> dict[str, Any]:
    """The side data an import kept for the project (ProjectData) whose names start with `prefix`, by name."""
    return dict(db.session.execute(select(ProjectData.name, ProjectData.content).where(
        ProjectData.project_id == project.id, ProjectData.name.startswith(prefix)).order_by(ProjectData.id)).all())
