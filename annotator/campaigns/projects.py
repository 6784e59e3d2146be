"""Projects: creating them and loading their items (the shared half of every importer), and who may
work on them (archived projects are closed; a project is open to every annotator or to a list)."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Select, func, insert, select, text

from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.jsonsafe import JSONValueError, check_value
from annotator.core.models import SUBMITTED, Assignment, Item, Project, ProjectData, User, project_annotators
from annotator.tasks import NewItem, task_type

ID_LENGTH = Item.external_id.type.length or 200

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
        raise FormatError(f"{where}: an item id has 1 to {ID_LENGTH} characters")
    try:
        check_value(item.external_id, "its id")
        check_value(item.payload, "its text")
        check_value(item.reference, "its reference labels")
    except JSONValueError as error:
        raise FormatError(f"{where}: {error}") from None


def add_items(project: Project, items: Iterable[NewItem]) -> int:
    """Append items after the project's existing ones; ids must be new to the project."""
    items = list(items)
    for item in items:
        _check_storable(item)
    repeated = [i for i, n in Counter(item.external_id for item in items).items() if n > 1]
    if repeated:
        raise FormatError(f"item id {repeated[0]} occurs twice in the input")
    existing = set(db.session.scalars(select(Item.external_id).where(
        Item.project_id == project.id, Item.external_id.in_([i.external_id for i in items]))))
    if existing:
        raise FormatError(f"project {project.slug!r} already has item {sorted(existing)[0]} "
                          f"({len(existing)} of these items are loaded already)")
    start = db.session.execute(select(func.coalesce(func.max(Item.position), -1))
                               .where(Item.project_id == project.id)).scalar_one() + 1
    if items:
        db.session.execute(insert(Item), [
            {"project_id": project.id, "external_id": item.external_id, "position": start + n,
             "payload": item.payload, "reference": item.reference, "done_count": 0,
             "is_control": item.control}
            for n, item in enumerate(items)])
    return len(items)


def refresh_statistics() -> None:
    """After a bulk import, let PostgreSQL's planner see the new rows at once.

    Without fresh statistics the item pick of `next` is planned for an empty table (a nested loop
    per item) until autovacuum gets round to it, which some servers never do.

    An empty table is left alone: analysed empty, PostgreSQL plans for its size at planning time,
    and plans cached by the first votes then stay fit for a near-empty table: the check of labels'
    foreign key to assignments, cached by each connection at its first vote, then read the whole
    assignments table on every label row, a cost growing with every vote (bench/README.md). Never
    analysed, the planner assumes at least ten pages and looks rows up by index.
    """
    if db.session.get_bind().dialect.name == "postgresql":
        for table in ("items", "assignments", "labels"):
            if db.session.scalar(text(f"SELECT EXISTS (SELECT 1 FROM {table})")):
                db.session.execute(text(f"ANALYZE {table}"))
        db.session.commit()


def open_to(user: User) -> Select[Project]:
    """The query of the projects `user` may work on: not archived, and open to all or listing them."""
    if user.is_crowd:  # a crowd account works only where a study link let it in
        from annotator.people.crowd import admitted_projects
        return select(Project).where(~Project.archived, Project.id.in_(admitted_projects(user))).order_by(Project.name)
    listed = select(project_annotators.c.project_id).where(project_annotators.c.user_id == user.id)
    return (select(Project).where(~Project.archived, (Project.audience == "all") | Project.id.in_(listed))
            .order_by(Project.name))


def closed_to(project: Project, user: User) -> str | None:
    """Why `user` may not work on `project` now, or None when they may."""
    if project.archived:
        return f"The project {project.name!r} is closed."
    if user.is_crowd:
        from annotator.people.crowd import admitted
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
