"""The audit trail: one `record` call where an admin action changes data (imports, deletions, settings,
adjudications, controls, blocking, gold sets, leaderboard submissions, dataset splits, erasures, purges), so a
data-protection officer can ask who did what when.

The event is added to the caller's session and committed with the change itself: a change rolled back
(a refused import) leaves no event, and no change is committed without its event. Who: the logged-in
admin (account id and name at the time) on web pages, "command line (<OS user>)" in `flask` commands.
Details name annotators by account id only (`user_id`), never by name: the audit page shows each id's
current name, so an erased person's former name or worker id is nowhere in the trail.
"""
from __future__ import annotations

import getpass
from collections.abc import Mapping
from typing import Any

from flask import has_request_context
from flask_login import current_user
from sqlalchemy import Connection, insert

from annotator.core.extensions import db
from annotator.core.models import AuditEvent, Project, utcnow

# The actions recorded, by name (the audit page's filter offers these).
ACTIONS = ("import", "project.delete", "project.archive", "project.settings", "project.audience",
           "quality.settings", "adjudicate", "controls.change", "annotator.block", "annotator.unblock",
           "annotator.exclude", "annotator.retry_quiz", "crowd.link", "crowd.filters", "account.create",
           "account.activate", "account.deactivate", "account.password", "account.token", "account.revoke_tokens",
           "account.unlock", "erase", "purge", "restore", "goldset.create", "leaderboard.submit", "split.draw")

# Who acted: (account id, name at the time); the command line's has no id (see `who`).
Actor = tuple[int | None, str]
# `db.session.info` keys set while a domain action runs (annotator/actions/base.py): the events recorded (read to
# refuse an action that changed state without its event), and who the action was told acts (the actor of every
# event recorded meanwhile, also by the area functions it calls).
RECORDED = "audit.recorded"
ACTING = "audit.acting"


def who() -> Actor:
    """The acting admin's (account id, name): the logged-in account in a request, else the command line's OS user."""
    if has_request_context() and current_user.is_authenticated:
        return int(current_user.id), str(current_user.username)
    try:
        os_user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (e.g. a container's)
        os_user = "unknown"
    return None, f"command line ({os_user})"[:120]


def record(action: str, project: Project | str | None = None, detail: Mapping[str, Any] | None = None,
           system: str | None = None, actor: Actor | None = None) -> AuditEvent:
    """Add an event for `action` to the current transaction (the caller commits or rolls back with its change).

    `detail`: a few JSON values saying what changed (counts, setting names, item ids); annotators by `user_id`.
    `system`: the rule that acted by itself (e.g. quality control blocking during an annotator's submit), named
    as the actor instead of whoever's request it ran in. `actor`: who acted; by default whoever the running domain
    action (annotator/actions) was told acts, else `who()`.
    """
    actor_id, name = (None, system) if system else actor or db.session.info.get(ACTING) or who()
    slug = project.slug if isinstance(project, Project) else project
    event = AuditEvent(at=utcnow(), actor_id=actor_id, actor=name, action=action, project=slug,
                       detail=dict(detail or {}))
    db.session.add(event)
    recorded = db.session.info.get(RECORDED)
    if recorded is not None:
        recorded.append(action)
    return event


def record_on(connection: Connection, action: str, project: str | None = None,
              detail: Mapping[str, Any] | None = None) -> None:
    """The same event written on `connection`, in its transaction: for changes made on a Core connection of
    their own (a restore, a project archive's import), which commit or roll back without the session."""
    actor_id, actor = who()
    connection.execute(insert(AuditEvent.__table__).values(at=utcnow(), actor_id=actor_id, actor=actor,
                                                           action=action, project=project,
                                                           detail=dict(detail or {})))
