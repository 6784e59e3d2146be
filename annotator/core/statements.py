"""The hot path's SQLAlchemy Core pieces: the item and assignment tables, the columns an item is read with, and
`execute` on the session's connection. In core/ because the engine (leasing, submitting) and quality control
(drawing a control item, an annotator's state), which the engine consults, both build statements from them."""
from __future__ import annotations

from typing import Any

from sqlalchemy.engine import CursorResult

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item

ITEMS = Item.__table__
ASSIGNMENTS = Assignment.__table__
# What leasing, answering and showing an item read of it (not `reference`: gold stays in the database).
# A row of these columns answers what a task type reads of an item (tasks/base.py, HitItem) like an Item does.
ITEM_COLUMNS = tuple(ITEMS.c[name] for name in ("id", "project_id", "external_id", "position", "payload",
                                               "done_count", "is_control", "target"))


def execute(statement: Any, params: dict[str, Any] | list[dict[str, Any]] | None = None) -> CursorResult[Any]:
    """Run a Core statement on the session's connection, in the request's transaction.

    Why the connection and not the ORM: these statements select columns, not entities, and an entity
    query costs several times the CPU of a Core one (bench/results/2026-11-25-hot-path-public-apis.md). SQLAlchemy
    caches the compiled form of each statement object, and psycopg prepares it on the server (core/database.py).
    """
    return db.session.connection().execute(statement, params)
