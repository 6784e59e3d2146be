"""What every Hypothesis property (tests/properties, tests/lifecycle) asserts after a refusal or an acceptance, read
through a fresh session.

"Changes nothing" is checked on every table of the schema (not only projects and items), so a refused
import, answer or upload that left a stray row anywhere (a token, a gold set, a project data row) fails.
"""
from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from sqlalchemy import TextClause, delete, func, select, text

from annotator.actions.imports import import_project
from annotator.campaigns.import_refused import ImportRefused
from annotator.core.audit import who
from annotator.core.extensions import db
from annotator.core.models import AuditEvent, Item, Project, ProjectData
from annotator.lookups.formats import file_format

SETTINGS = settings(max_examples=30, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# Any text a file can hold once written as UTF-8 (lone surrogates cannot be), weighted towards what breaks
# readers: NUL, tabs, quotes, CR/LF, the Unicode line and paragraph separators.
AWKWARD = st.sampled_from(["", " ", "\x00", "\t", '"', '""', "\r", "\n", "\r\n", "\u2028", "\u2029", "\ufeff",
                           ",", "-1", "3", "1e999", "NaN", "x" * 300])
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40) | AWKWARD | st.lists(
    AWKWARD | st.text(max_size=5), min_size=1, max_size=4).map("".join)


def row_counts() -> dict[str, int]:
    """Rows per table of the schema, read by a fresh session in one statement (a count per table in one SELECT):
    the properties read them twice per example, and a statement per table was 40 % of their time on PostgreSQL.
    The statement is compiled once per dialect (_count_statement): building and compiling 30 subqueries again
    was half of each call."""
    tables = db.metadata.sorted_tables
    db.session.remove()
    row = db.session.execute(_count_statement(db.engine.dialect.name)).one()
    db.session.remove()
    return {table.name: int(count) for table, count in zip(tables, row, strict=True)}


@cache
def _count_statement(dialect: str) -> TextClause:
    """SELECT (SELECT count(*) FROM t1) AS t1, ... for every table of the schema, as the dialect writes it."""
    counts = select(*[select(func.count()).select_from(table).scalar_subquery().label(table.name)
                      for table in db.metadata.sorted_tables])
    return text(str(counts.compile(dialect=db.engine.dialect)))


def _note(outcome: str) -> None:
    """Count outcomes in --hypothesis-show-statistics (outside a Hypothesis test there is nothing to count)."""
    try:
        event(outcome)
    except InvalidArgument:
        pass


def _plain(value: Any) -> Any:
    """The value as JSON gives it back (tuples become lists)."""
    return json.loads(json.dumps(value))


def import_stored_whole_or_refused(fmt_name: str, path: Path, files: tuple[str, ...], **options: Any) -> str:
    """Import `path`. Returns "stored" after checking that what a fresh session reads equals what the format
    read; or the refusal's message, after checking that it names one of `files` (or the item, for a problem
    found per item) and that no table changed."""
    before = row_counts()
    try:
        import_project(file_format(fmt_name), path, slug="fuzz", options=options, by=who())
    except ImportRefused as error:
        message = str(error)
        assert "Nothing was imported" in message, message
        assert any(name in message for name in files) or re.match(r"item '", message), message
        assert row_counts() == before, message
        _note("refused")
        return message
    try:
        loaded = file_format(fmt_name).load(Path(path), **options)
        db.session.remove()
        project = db.session.scalar(select(Project).where(Project.slug == "fuzz"))
        items = db.session.scalars(select(Item).where(Item.project_id == project.id).order_by(Item.position)).all()
        assert [(i.external_id, i.payload, i.reference) for i in items] == \
            [(n.external_id, _plain(n.payload), _plain(n.reference)) for n in loaded.items]
        data = dict(db.session.execute(select(ProjectData.name, ProjectData.content)
                                       .where(ProjectData.project_id == project.id)).all())
        assert data == _plain(loaded.data)
    except BaseException:
        _drop_project("fuzz")
        raise
    forget_project(project)  # the next example starts from the same database
    assert row_counts() == before
    _note("stored")
    return "stored"


def forget_project(project: Project) -> None:
    """Delete the project and the audit events of its import (kept apart from the project by design), so that the
    next example starts from the same database; the import must have recorded exactly one event."""
    events = select(AuditEvent.id).where(AuditEvent.project == project.slug, AuditEvent.action == "import")
    assert len(db.session.scalars(events).all()) == 1
    db.session.execute(delete(AuditEvent).where(AuditEvent.project == project.slug))
    db.session.delete(project)
    db.session.commit()


def _drop_project(slug: str) -> None:
    """Delete the project and its audit events without checking anything: after a failed check, so that
    Hypothesis's replay of the failing example meets the database the example first met (not "project 'fuzz'
    already has item ...", which it reports as a flaky test instead of the example)."""
    db.session.rollback()
    db.session.execute(delete(AuditEvent).where(AuditEvent.project == slug))
    project = db.session.scalar(select(Project).where(Project.slug == slug))
    if project is not None:
        db.session.delete(project)  # as forget_project deletes it
    db.session.commit()


def change_whole_line(data: st.DataObject, lines: list[str], change: str, number: int,
                      text: st.SearchStrategy[str] = TEXT) -> bool:
    """Apply a change of a whole physical line: "replace" it by any text, "drop" it or "repeat" it.

    False for any other change, which the caller makes itself (a field, a cell, a column).
    """
    if change == "replace":
        lines[number] = data.draw(text, label="text")
    elif change == "drop":
        del lines[number]
    elif change == "repeat":
        lines.insert(number, lines[number])
    else:
        return False
    return True

