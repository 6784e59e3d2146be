"""Who holds an API token (and the projects they work in), kept for a moment in this process.

Why: every API request needs the token's account and its project. Read from the database, that is one
ORM statement of two entities per request, about a seventh of a worker's CPU on PostgreSQL, where
psycopg rebuilds each result's column description; a crowd client sends `next` and `submit` several
times a second with the same token. Kept here for `API_HOLDER_SECONDS` (default 2 s; 0 turns it off),
a request with a known token reads nothing for it.

What a change costs: a write through this process's session to an account, a token or a project
(admin pages, the CLI, `change_password`'s bulk DELETE) empties this process's copy when it commits, so
it counts from the next request here. Another process (a second gunicorn worker, another host, a
script on the database) is seen here when the copy expires: a revoked token or a paused project is
honoured everywhere within `API_HOLDER_SECONDS`. A token nobody holds is never kept, so a new token
works at once everywhere.

The copies are detached snapshots of the loaded columns, never in any session; a request gets its own
instances through `Session.merge(load=False)` (no statement), so nothing a request does to its objects
reaches another request. Columns the token statement defers are not copied and load on access.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from flask import Flask, current_app, has_app_context
from sqlalchemy import event, inspect
from sqlalchemy.orm import InstanceState, Session, make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value

from annotator.core.extensions import db
from annotator.core.models import ApiToken, Project, User

EXTENSION = "token_holders"
DEFAULT_SECONDS = 2.0  # config.Config's; an app made from another config object gets it too
_WATCHED = (User, ApiToken, Project)  # a write to one of these empties the copies at commit
_CHANGED = "token_holders_changed"  # the session.info flag set at flush, read at commit
M = TypeVar("M", User, Project)


def snapshot(instance: M) -> M:
    """A detached copy of the instance's loaded column values, in no session (so never expired or changed)."""
    state: InstanceState[M] = inspect(instance)
    copy = state.mapper.class_manager.new_instance()
    for attribute in state.mapper.column_attrs:
        if attribute.key in state.dict:
            set_committed_value(copy, attribute.key, state.dict[attribute.key])
    make_transient_to_detached(copy)
    return copy


def attach(template: M) -> M:
    """The request's own persistent instance of a snapshot: `merge(load=False)` copies it without a statement."""
    return db.session.merge(template, load=False)


@dataclass
class Holding:
    """One token's holder and the projects its requests named, as snapshots."""

    expires: float
    user: User
    projects: dict[int, Project] = field(default_factory=dict)

    def project(self, slug: str) -> Project | None:
        return next((p for p in self.projects.values() if p.slug == slug), None)


class TokenHolders:
    """Token digest -> Holding, for `seconds`; emptied by this process's writes to the watched tables."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds, self.clock = seconds, clock
        self._holdings: dict[str, Holding] = {}
        self._lock = threading.Lock()  # gthread workers share one process

    def get(self, digest: str) -> Holding | None:
        holding = self._holdings.get(digest)
        if holding is None or holding.expires <= self.clock():
            return None
        return holding

    def keep(self, digest: str, user: User, projects: Iterable[Project | None] = ()) -> None:
        """Keep the holder (and add the projects to those already kept for the token, while it is fresh)."""
        if self.seconds <= 0:
            return
        with self._lock:
            now = self.clock()
            holding = self._holdings.get(digest)
            if holding is None or holding.expires <= now or holding.user.id != user.id:
                holding = Holding(now + self.seconds, snapshot(user))
                if len(self._holdings) > 10_000:  # many clients: drop the expired ones now and then
                    self._holdings = {d: h for d, h in self._holdings.items() if h.expires > now}
            else:
                holding = Holding(holding.expires, snapshot(user), dict(holding.projects))
            for project in projects:
                if project is not None:
                    holding.projects[project.id] = snapshot(project)
            self._holdings[digest] = holding

    def clear(self) -> None:
        with self._lock:
            self._holdings = {}


def token_holders() -> TokenHolders:
    holders: TokenHolders = current_app.extensions[EXTENSION]
    return holders


def _note_changes(session: Session, flush_context: Any) -> None:
    if any(isinstance(o, _WATCHED) for rows in (session.new, session.dirty, session.deleted) for o in rows):
        session.info[_CHANGED] = True


def _note_bulk_writes(orm_execute_state: Any) -> None:
    if (orm_execute_state.is_update or orm_execute_state.is_delete) and orm_execute_state.bind_mapper is not None \
            and orm_execute_state.bind_mapper.class_ in _WATCHED:
        orm_execute_state.session.info[_CHANGED] = True


def _clear_on_commit(session: Session) -> None:
    if session.info.pop(_CHANGED, False) and has_app_context():
        holders = current_app.extensions.get(EXTENSION)
        if holders is not None:
            holders.clear()


def _forget_on_rollback(session: Session) -> None:
    session.info.pop(_CHANGED, None)


_LISTENERS: dict[str, Callable[..., Any]] = {"after_flush": _note_changes, "do_orm_execute": _note_bulk_writes,
              "after_commit": _clear_on_commit, "after_rollback": _forget_on_rollback}


def init_app(app: Flask) -> None:
    app.extensions[EXTENSION] = TokenHolders(float(app.config.get("API_HOLDER_SECONDS", DEFAULT_SECONDS)))
    for name, listener in _LISTENERS.items():  # one scoped session serves every app: listen once
        if not event.contains(db.session, name, listener):
            event.listen(db.session, name, listener)
