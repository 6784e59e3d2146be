"""Retention: personal records older than the configured number of days are deleted by `flask purge`.

Each kind of record has its setting (config.py, from the environment): days to keep, 0 or empty for forever.
The purge is one transaction of DELETEs by a cutoff, so it may run from cron on several hosts at once: purges
run one after the other (on PostgreSQL the transaction first takes an advisory lock, PURGE_LOCK, held until it
ends, so two purges never lock rows in opposite orders and deadlock; SQLite's write lock does the same), and the
later one finds nothing left to delete: each row is deleted once, with no error. The purge
records an audit event with what it deleted, in the same transaction.

Crowd workers not seen for RETENTION_CROWD_WORKERS_DAYS (no visit, no HIT leased) are erased as by `flask erase`
without deleting votes (annotator/people/erasure.py): their worker id goes, their votes stay under a pseudonym;
each erasure is an `erase` event of its own (actor "retention", the account id and pseudonym, counts).
On PostgreSQL their rows are also locked with SKIP LOCKED, against any other writer.

Failed logins are not here: they are deleted once older than the login limits' longest window, whenever a
failure is written (people/login_counters.py).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Column, Table, delete, func, select, text

from annotator.core.audit import record
from annotator.core.database import write_transaction
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, AuditEvent, CrowdSession, CrowdWorker, Project, utcnow
from annotator.people.erasure import scrub, vote_projects

WORKERS_SETTING = "RETENTION_CROWD_WORKERS_DAYS"
SYSTEM = "retention"  # the actor of the erasures a purge makes
PURGE_LOCK = 0x616E6E50  # the PostgreSQL advisory lock key of `flask purge` ("annP")


class RetentionError(ValueError):
    """A retention setting that is not a number of days."""


@dataclass(frozen=True)
class Rule:
    name: str          # what the rows are, in the command's output and the audit event
    setting: str       # the config key: days to keep (0 or empty: forever)
    table: Table
    column: Column[Any]  # the row's time that the cutoff is compared with


RULES = (
    # A worker's study sessions: when they came, with which study and session ids (their HIT counts once done).
    Rule("crowd_sessions", "RETENTION_CROWD_SESSIONS_DAYS", CrowdSession.__table__,
         CrowdSession.__table__.c.started_at),
    # The audit trail itself: names admins, and annotators by account id.
    Rule("audit_events", "RETENTION_AUDIT_EVENTS_DAYS", AuditEvent.__table__, AuditEvent.__table__.c.at),
)


def days_of(config: Mapping[str, Any], setting: str) -> int | None:
    """The days a setting keeps rows, or None for forever (0 or empty)."""
    raw = str(config.get(setting) or "").strip()
    if not raw:
        return None
    if not raw.isdigit():
        raise RetentionError(f"{setting} must be a whole number of days (0 or empty: keep forever), not {raw!r}")
    return int(raw) or None


def purge(config: Mapping[str, Any], now: datetime | None = None) -> dict[str, int]:
    """Delete what is older than its setting; the rows deleted per kind (kinds kept forever are left out)."""
    now = now or utcnow()
    kept = {rule: days_of(config, rule.setting) for rule in RULES}  # every setting checked before any delete
    worker_days = days_of(config, WORKERS_SETTING)
    deleted: dict[str, int] = {}
    with write_transaction():
        if db.session.get_bind().dialect.name == "postgresql":  # one purge at a time, until this one commits
            db.session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PURGE_LOCK})
        if worker_days is not None:  # before the sessions go: they say when a worker was last seen
            deleted["crowd_workers"] = erase_unseen_workers(now - timedelta(days=worker_days))
        for rule, days in kept.items():
            if days is None:
                continue
            result = db.session.execute(delete(rule.table).where(rule.column < now - timedelta(days=days)))
            deleted[rule.name] = int(getattr(result, "rowcount", 0) or 0)
        settings = {rule.name: days for rule, days in kept.items() if days is not None}
        if worker_days is not None:
            settings["crowd_workers"] = worker_days
        record("purge", detail={"deleted": deleted, "days": settings})
    return deleted


def erase_unseen_workers(cutoff: datetime) -> int:
    """In the caller's transaction: erase the crowd workers last seen before `cutoff` (account made, study session
    started, HIT leased); how many. Their rows are locked first, skipping those another purge holds."""
    candidates = select(CrowdWorker.user_id).where(CrowdWorker.created_at < cutoff,
                                                    CrowdWorker.worker_id.is_not(None)).order_by(CrowdWorker.id)
    if db.session.get_bind().dialect.name == "postgresql":
        candidates = candidates.with_for_update(skip_locked=True)
    ids = list(db.session.scalars(candidates))
    if not ids:
        return 0
    recent = set(db.session.scalars(select(CrowdSession.user_id).where(CrowdSession.user_id.in_(ids))
                                    .group_by(CrowdSession.user_id)
                                    .having(func.max(CrowdSession.started_at) >= cutoff)))
    recent |= set(db.session.scalars(select(Assignment.user_id).where(Assignment.user_id.in_(ids))
                                     .group_by(Assignment.user_id).having(func.max(Assignment.leased_at) >= cutoff)))
    unseen = [user_id for user_id in ids if user_id not in recent]
    for user_id in unseen:
        projects = vote_projects(user_id)
        pseudonym, sessions, tokens = scrub(user_id, projects)
        votes = db.session.scalar(select(func.count()).select_from(Assignment).where(
            Assignment.user_id == user_id, Assignment.status == SUBMITTED))
        slugs = sorted(db.session.scalars(select(Project.slug).where(Project.id.in_(projects))))
        record("erase", system=SYSTEM, detail={"user_id": user_id, "pseudonym": pseudonym, "votes_kept": votes or 0,
                                               "votes_deleted": 0, "projects": slugs, "crowd_sessions": sessions,
                                               "tokens": tokens})
    return len(unseen)
