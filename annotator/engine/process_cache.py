"""API token holders and projects, kept in each worker process between requests.

Why: every API request read the token's user, and `next` and `submit` each read a project: two of the
seven statements of a next+submit pair and about 0.5 ms of its CPU (bench/README.md, "The hot path,
third round"), for rows that change a few times a campaign. A request that finds them here gets copies
merged into its session (`Session.merge(load=False)`, no SQL), so the code after it sees ordinary
persistent User and Project objects.

When is a kept row stale? When the database row is updated or deleted, by any process on any host.
The database says so (migration 0010):
  * PostgreSQL: triggers on users, api_tokens and projects send NOTIFY annotator_rows_changed at
    commit. Each process LISTENs on a connection of its own and, before using what it keeps, looks
    whether a notification arrived (a poll of that socket, no round trip). A notification empties the
    whole cache. While the listening connection is down (a restarted server), nothing is kept.
  * SQLite (one host): triggers count the changes in change_counter, which each process reads on a
    connection of its own before using what it keeps (a few µs in process); a new count empties it.
A change committed in this process empties its cache at once (session events below), so a request
right after a revocation in the same process never sees the old row. Another process learns of it
within the time a notification takes to arrive, the same window in which the request could have
arrived before the change. Inserts need no signal: only rows that exist are kept (an unknown token
or slug is looked up every time). Kept rows are also dropped after PROCESS_CACHE_SECONDS whatever
happens, a bound on staleness should a listening connection die without a word.

`PROCESS_CACHE = False` turns it off (every request reads the rows, as before).
"""
from __future__ import annotations

import copy
import os
import select
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, current_app, has_app_context
from sqlalchemy import JSON, bindparam, event
from sqlalchemy import select as select_statement
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from annotator.core.database import libpq_parameters
from annotator.core.extensions import db
from annotator.core.models import ApiToken, Project, User

CHANNEL = "annotator_rows_changed"  # migrations/versions/0010_change_signals.py
WATCHED = (User, ApiToken, Project)
_EXTENSION = "process_cache"
_DIRTY = "process_cache_dirty"  # Session.info flag: this transaction changed a watched table
_RETRY_WATCH_SECONDS = 1.0

_JSON_ATTRIBUTES = {model: tuple(column.key for column in model.__table__.columns
                                  if isinstance(column.type, JSON))
                    for model in (User, Project)}

_HOLDER = select_statement(User).join(ApiToken).where(ApiToken.digest == bindparam("digest"))
_HOLDER_AND_PROJECT = (select_statement(User, Project).join(ApiToken)
                       .outerjoin(Project, Project.slug == bindparam("slug"))
                       .where(ApiToken.digest == bindparam("digest")))


@dataclass
class _Kept:
    """What one process keeps, and since when."""

    holders: dict[str, User] = field(default_factory=dict)  # token digest -> detached User
    projects: dict[str, Project] = field(default_factory=dict)  # slug -> detached Project
    project_ids: dict[int, Project] = field(default_factory=dict)
    since: float = field(default_factory=time.monotonic)


class _Listener:
    """PostgreSQL: a connection of this process that LISTENs; `changed` drains what arrived."""

    def __init__(self, engine: Engine) -> None:
        from psycopg.conninfo import make_conninfo
        # Made like the pool's connections (connect_args included: they may name the host, TLS, a password),
        # as libpq reports a pooled connection's parameters.
        with engine.connect() as pooled:
            parameters = libpq_parameters(pooled.connection.driver_connection)
        # Keepalives: a silently dead link is noticed within ~25 s (PROCESS_CACHE_SECONDS bounds the rest);
        # a bounded connect, since requests wait for it under the cache's lock.
        parameters = {"connect_timeout": "5", **parameters, "keepalives": "1", "keepalives_idle": "10",
                      "keepalives_interval": "5", "keepalives_count": "3"}
        self.connection = engine.dialect.loaded_dbapi.connect(make_conninfo("", **parameters), autocommit=True)
        self.connection.execute(f"LISTEN {CHANNEL}")

    def changed(self) -> bool:
        """Whether a notification arrived since the last call: a poll of the socket, no round trip."""
        readable, _, _ = select.select([self.connection.fileno()], [], [], 0)
        return bool(readable) and bool(list(self.connection.notifies(timeout=0)))

    def close(self) -> None:
        self.connection.close()


class _Counter:
    """SQLite: a connection of this process that reads change_counter outside any transaction.

    Its own connection: read on the request's, the count would open a read transaction that the
    request's write then has to end first (BEGIN IMMEDIATE), costing more than the lookups it saves.
    """

    def __init__(self, engine: Engine) -> None:
        if engine.url.database in (None, "", ":memory:"):
            raise _NoWatch("an in-memory database is private to its connection")
        cargs, cparams = engine.dialect.create_connect_args(engine.url)
        self.connection = engine.dialect.loaded_dbapi.connect(
            *cargs, **{**cparams, "isolation_level": None, "check_same_thread": False})
        self.seen = self._count()

    def _count(self) -> int:
        try:
            row = self.connection.execute("SELECT changes FROM change_counter WHERE id = 1").fetchone()
        except self.connection.OperationalError as error:
            if "no such table" in str(error):  # no migration 0010 here: this database never signals
                raise _NoWatch(str(error)) from error
            raise  # e.g. "database is locked" for a moment: nothing is kept now, tried again later
        if row is None:
            raise _NoWatch("change_counter has no row")
        return int(row[0])

    def changed(self) -> bool:
        count = self._count()
        changed, self.seen = count != self.seen, count
        return changed

    def close(self) -> None:
        self.connection.close()


class _NoWatch(Exception):
    """This database cannot tell this process about changes: nothing is kept."""


class ProcessCache:
    """The cache of one app in one process (after a fork the child starts its own, see `_current`)."""

    def __init__(self, app: Flask) -> None:
        self.enabled = bool(app.config.get("PROCESS_CACHE", True))
        self.max_age = float(app.config.get("PROCESS_CACHE_SECONDS", 60.0))
        self.max_entries = int(app.config.get("PROCESS_CACHE_ENTRIES", 10000))
        self.retry_seconds = _RETRY_WATCH_SECONDS  # after a lost watch connection, before opening another
        self.kept = _Kept()
        self._pid = os.getpid()
        self._watch: _Listener | _Counter | None = None  # opened at the first lookup, in the worker
        self._finalizer: weakref.finalize | None = None  # closes the watch if the app is dropped unclosed
        self._watch_after = 0.0  # when to try opening it again after a failure
        self._lock = threading.Lock()  # gthread workers: one watch per process, polled by one thread at a time

    def clear(self) -> None:
        self.kept = _Kept()

    def close(self) -> None:
        """Stop watching (the app is done with, e.g. at the end of a test); nothing is kept after it."""
        with self._lock:
            if self._watch is not None:
                self._drop_watch(retry_after=0.0)

    # -- is what we keep current? ------------------------------------------------------------------

    def _current(self) -> _Kept | None:
        """What is kept, if it may be used now (emptied first when the database says it changed); None
        when nothing may be kept.

        The caller reads and stores through the object returned, never through `self.kept` later: a row
        read before a change must not land in the cache emptied for that change. With threads (gthread)
        another request may take the signal and empty the cache between this request's read and its
        store; the store then goes into the object that was dropped, and is lost with it.
        """
        if not self.enabled:
            return None
        with self._lock:
            if os.getpid() != self._pid:  # a forked worker: the parent's connection and rows are not ours
                self._pid = os.getpid()
                self._forget_watch()
                self.clear()
            if time.monotonic() - self.kept.since > self.max_age or self._size() > self.max_entries:
                self.clear()
            if self._watch is None and not self._open_watch():
                return None
            try:
                if self._watch.changed():  # type: ignore[union-attr]
                    self.clear()
            except Exception:  # the connection is gone (e.g. the server restarted): keep nothing until it is back
                self._drop_watch(retry_after=self.retry_seconds)
                return None
            return self.kept

    def _forget_watch(self) -> None:
        """After a fork: the parent's watching connection is the parent's. Not closed here (closing would
        end the parent's session on the socket they share), and not at this process's exit either."""
        if self._finalizer is not None:
            self._finalizer.detach()
        self._watch, self._finalizer = None, None

    def _size(self) -> int:
        return len(self.kept.holders) + len(self.kept.projects)

    def _open_watch(self) -> bool:
        if time.monotonic() < self._watch_after:
            return False
        engine = db.engine
        try:
            watch = _Listener(engine) if engine.dialect.name == "postgresql" else _Counter(engine)
        except _NoWatch:
            self.enabled = False  # this database never will
            return False
        except Exception:  # the server is not reachable now
            self._watch_after = time.monotonic() + self.retry_seconds
            return False
        self._watch = watch
        self._finalizer = weakref.finalize(self, watch.close)  # an app dropped unclosed keeps no connection
        self.clear()  # rows kept before watching may have changed unseen
        return True

    def _drop_watch(self, retry_after: float) -> None:
        self.clear()
        try:
            self._watch.close()  # type: ignore[union-attr]
        except Exception:
            pass
        if self._finalizer is not None:
            self._finalizer.detach()
        self._watch, self._finalizer = None, None
        self._watch_after = time.monotonic() + retry_after

    # -- lookups ------------------------------------------------------------------------------------

    def holder(self, digest: str, slug: str | None = None) -> tuple[User | None, Project | None]:
        """The active or inactive user holding the token with this digest, and project `slug` when a slug
        is given (None when there is none): from what is kept, or read and kept."""
        kept = self._current()
        if kept is None:
            return _read_holder(digest, slug)
        user = kept.holders.get(digest)
        project = kept.projects.get(slug) if slug is not None else None
        if user is not None and (slug is None or project is not None):
            return _merged(user), (_merged(project) if project is not None else None)
        user, project = _read_holder(digest, slug)
        if user is not None:
            kept.holders[digest], user = _kept(user)
        if project is not None:
            project = _keep_project(kept, project)
        return user, project

    def project(self, project_id: int) -> Project | None:
        """Project `project_id`: the session's own object when it has one, else from what is kept, or read."""
        loaded = db.session.identity_map.get(db.session.identity_key(Project, project_id))
        if loaded is not None:
            return loaded
        kept = self._current()
        if kept is None:
            return db.session.get(Project, project_id)
        found = kept.project_ids.get(project_id)
        if found is not None:
            return _merged(found)
        project = db.session.get(Project, project_id)
        return None if project is None else _keep_project(kept, project)


def _keep_project(kept: _Kept, project: Project) -> Project:
    stored, project = _kept(project)
    kept.projects[stored.slug] = kept.project_ids[stored.id] = stored
    return project


def _read_holder(digest: str, slug: str | None) -> tuple[User | None, Project | None]:
    if slug is None:
        return db.session.scalar(_HOLDER, {"digest": digest}), None
    row = db.session.execute(_HOLDER_AND_PROJECT, {"digest": digest, "slug": slug}).first()
    return (None, None) if row is None else (row[0], row[1])


def _kept(loaded: Any) -> tuple[Any, Any]:
    """(the object to keep, the request's object): the freshly loaded object leaves the session to be
    kept, detached and clean, and the request gets a merged copy of it."""
    db.session.expunge(loaded)
    return loaded, _merged(loaded)


def _merged(kept: Any) -> Any:
    """The kept object as a persistent object of this request's session, without a query.

    `merge` copies attribute values by reference, so the request would share the kept object's JSON
    dicts (Project.settings, .quality, .source): a change made in place and rolled back would live on in
    the cache. The request gets copies of those instead.
    """
    merged = db.session.merge(kept, load=False)
    for key in _JSON_ATTRIBUTES.get(type(kept), ()):
        value = merged.__dict__.get(key)
        if value is not None and value is kept.__dict__.get(key):
            set_committed_value(merged, key, copy.deepcopy(value))  # small dicts: a few µs a request
    return merged


def cache() -> ProcessCache | None:
    return current_app.extensions.get(_EXTENSION) if has_app_context() else None


def token_holder(digest: str, slug: str | None = None) -> tuple[User | None, Project | None]:
    found = cache()
    return found.holder(digest, slug) if found is not None else _read_holder(digest, slug)


def project(project_id: int) -> Project | None:
    found = cache()
    return found.project(project_id) if found is not None else db.session.get(Project, project_id)


# -- changes made in this process -------------------------------------------------------------------

def _watched(instances: Any) -> bool:
    return any(isinstance(obj, WATCHED) for obj in instances)


def _after_flush(session: Session, _context: Any) -> None:
    if _watched(session.dirty) or _watched(session.deleted):
        session.info[_DIRTY] = True


def _do_orm_execute(state: Any) -> None:
    if (state.is_update or state.is_delete) and state.bind_mapper is not None and \
            state.bind_mapper.class_ in WATCHED:
        state.session.info[_DIRTY] = True


def _after_commit(session: Session) -> None:
    if session.info.pop(_DIRTY, False):
        found = cache()
        if found is not None:
            found.clear()


def _after_rollback(session: Session) -> None:
    session.info.pop(_DIRTY, None)


_SESSION_EVENTS = {"after_flush": _after_flush, "do_orm_execute": _do_orm_execute,
                   "after_commit": _after_commit, "after_rollback": _after_rollback}


def init_app(app: Flask) -> None:
    app.extensions[_EXTENSION] = ProcessCache(app)
    for name, listener in _SESSION_EVENTS.items():  # on Session, once per process: they find the app's cache
        if not event.contains(Session, name, listener):
            event.listen(Session, name, listener)
