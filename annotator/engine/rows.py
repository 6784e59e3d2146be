"""The hot path's rows: what `next` and `submit` read of an item and an assignment, as plain values.

Why not the ORM entities: an entity query costs about 150 µs more CPU than a Core query for a row of
the same columns (the ORM builds its loading machinery for every execution; bench/README.md, "The hot
path, third round"), and a next+submit pair ran six of them. Statements whose results are rows are
executed on the session's connection (`execute`), in the session's transaction, so they see and hold
the same locks as everything else the request does.

Task types read `external_id` and `payload` of an item; an `ItemRow` answers both like an `Item`.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from flask import current_app

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item
from annotator.engine.driver_statements import DriverStatements, Rows

if TYPE_CHECKING:
    from sqlalchemy.engine import CursorResult
    from sqlalchemy.sql import Executable

_EXTENSION = "driver_statements"


class ItemRow(NamedTuple):
    """An item's columns that leasing, answering and showing it need (not `reference`: gold stays in the database)."""

    id: int
    project_id: int
    external_id: str
    position: int
    payload: dict[str, Any]
    done_count: int
    is_control: bool
    target: int | None


ITEMS = Item.__table__
ASSIGNMENTS = Assignment.__table__
ITEM_COLUMNS = tuple(ITEMS.c[name] for name in ItemRow._fields)


def item_row(item: Item) -> ItemRow:
    """The row of a loaded Item entity (the paths that load entities anyway: resume, quiz)."""
    return ItemRow(*(getattr(item, name) for name in ItemRow._fields))


def init_app(app: Any) -> None:
    app.extensions[_EXTENSION] = DriverStatements()


def execute(statement: Executable, params: dict[str, Any] | None = None) -> Rows | CursorResult[Any]:
    """Run a Core statement on the request's connection, inside the session's transaction, on the
    driver's cursor (driver_statements.py: 8–103 µs less CPU per statement than `Connection.execute`)."""
    return current_app.extensions[_EXTENSION].execute(db.session.connection(), statement, params)


@dataclass(frozen=True)
class Lease:
    """An open lease as `next` hands it out: the assignment's id and times, and the item as shown."""

    id: int
    project_id: int
    user_id: int
    item: ItemRow
    leased_at: datetime
    expires_at: datetime
    presentation: dict[str, Any] | None

    @property
    def item_id(self) -> int:
        return self.item.id

    @classmethod
    def of(cls, assignment: Assignment) -> Lease:
        """The lease of a loaded Assignment entity (its item is loaded through the relationship)."""
        return cls(assignment.id, assignment.project_id, assignment.user_id, item_row(assignment.item),
                   assignment.leased_at, assignment.expires_at, assignment.presentation)


@dataclass(frozen=True)
class Vote:
    """A submitted assignment as `submit` reports it."""

    id: int
    item_id: int
    user_id: int
    status: str
    answer: dict[str, Any] | None
    submitted_at: datetime | None
    seconds_spent: float | None

    @classmethod
    def of(cls, assignment: Assignment) -> Vote:
        return cls(assignment.id, assignment.item_id, assignment.user_id, assignment.status, assignment.answer,
                   assignment.submitted_at, assignment.seconds_spent)
