"""Reading the audit trail (annotator/core/audit.py): a page of events, newest first, or all as CSV.

Annotators are named in the events by account id; their names are looked up when the trail is read, so
an erased person shows as their pseudonym, and their former identity is never stored in the trail.
"""
from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, func, select

from annotator.core.csv_cells import SheetWriter
from annotator.core.extensions import db
from annotator.core.models import AuditEvent, User

PAGE_SIZE = 50


@dataclass(frozen=True)
class TrailPage:
    events: Sequence[AuditEvent]
    names: dict[int, str]   # account id -> its current name, for the ids the events' details hold
    page: int
    pages: int
    total: int


def _filtered(project: str | None, action: str | None) -> Select[Any]:
    query = select(AuditEvent)
    if project:
        query = query.where(AuditEvent.project == project)
    if action:
        query = query.where(AuditEvent.action == action)
    return query


def trail_page(project: str | None, action: str | None, page: int) -> TrailPage:
    """One page of the events that match, newest first (the page number clamped to the pages there are)."""
    total = db.session.scalar(select(func.count()).select_from(_filtered(project, action).subquery())) or 0
    pages = max(1, -(-total // PAGE_SIZE))
    page = min(max(1, page), pages)
    events = db.session.scalars(_filtered(project, action).order_by(AuditEvent.at.desc(), AuditEvent.id.desc())
                                .offset((page - 1) * PAGE_SIZE).limit(PAGE_SIZE)).all()
    return TrailPage(events, names_of(events), page, pages, total)


def names_of(events: Sequence[AuditEvent]) -> dict[int, str]:
    ids = {int(e.detail["user_id"]) for e in events if isinstance((e.detail or {}).get("user_id"), int)}
    if not ids:
        return {}
    return {int(i): str(n) for i, n in db.session.execute(select(User.id, User.username).where(User.id.in_(ids)))}


def known_projects() -> list[str]:
    """The project slugs the trail names (for the filter), in order."""
    return list(db.session.scalars(select(AuditEvent.project).where(AuditEvent.project.is_not(None))
                                   .distinct().order_by(AuditEvent.project)))


def trail_csv(project: str | None, action: str | None) -> str:
    """Every matching event as CSV, newest first; annotators by their current name beside the detail."""
    out = io.StringIO()
    writer = SheetWriter(out, lineterminator="\r\n")
    writer.writerow(["at_utc", "actor_id", "actor", "action", "project", "annotator", "detail"])
    events = db.session.scalars(_filtered(project, action).order_by(AuditEvent.at.desc(), AuditEvent.id.desc())).all()
    names = names_of(events)
    for e in events:
        user_id = (e.detail or {}).get("user_id")
        writer.writerow([e.at.isoformat(sep=" ", timespec="seconds"), e.actor_id or "", e.actor, e.action,
                         e.project or "", names.get(user_id, "") if isinstance(user_id, int) else "",
                         json.dumps(e.detail, sort_keys=True, ensure_ascii=False)])
    return out.getvalue()
