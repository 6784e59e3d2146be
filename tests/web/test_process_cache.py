"""API token holders and projects kept in the worker process (annotator/engine/process_cache.py), on both engines.

What is kept must never outlive the row: a change made in this process counts at once; a change made
by another process (here: another connection, through the database alone, as a CLI or a second host
would) counts as soon as the database's signal arrives, which on SQLite is before the next request and
on PostgreSQL a notification's delivery later (the tests allow it a few seconds). Statements are
counted with SQLAlchemy's cursor events to see what a request read.
"""
from __future__ import annotations

import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from sqlalchemy import create_engine, delete, event, text

from annotator.core.extensions import db
from annotator.core.models import ApiToken, User, token_digest
from annotator.engine import process_cache
from annotator.people.accounts import change_password, issue_token, set_active

pytestmark = pytest.mark.own_app  # what one app process keeps is the subject: each test starts with a new app

NEXT = "/api/v1/projects/kpa/next"
SIGNAL_SECONDS = 5.0  # PostgreSQL: how long a notification may take to arrive, generously


@pytest.fixture
def holder(app, make_user, kpa_project):  # type: ignore[no-untyped-def]
    """(client with a fresh annotator's token, the annotator's id) on project kpa."""
    kpa_project()
    user = make_user("ann")
    token = issue_token(user)
    db.session.commit()
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    return client, user.id


@contextmanager
def statements() -> Iterator[list[str]]:
    """The SQL the app runs inside the block."""
    seen: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        seen.append(" ".join(statement.split()))

    event.listen(db.engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", record)


def reads_holder_or_project(sql: list[str]) -> list[str]:
    return [s for s in sql if "FROM users" in s or "FROM projects" in s]


@contextmanager
def another_process(app) -> Iterator:  # type: ignore[no-untyped-def]
    """A connection of its own to the same database, committing on leaving: what a CLI or a second host does."""
    engine = create_engine(app.config["SQLALCHEMY_DATABASE_URI"])
    try:
        with engine.begin() as connection:
            yield connection
    finally:
        engine.dispose()


def status_within(client, expected: int, seconds: float) -> int:  # type: ignore[no-untyped-def]
    """POST next until it answers `expected` or `seconds` pass; the last status."""
    deadline = time.monotonic() + seconds
    while True:
        status = client.post(NEXT).status_code
        if status == expected or time.monotonic() > deadline:
            return status
        time.sleep(0.05)


def signal_seconds(app) -> float:  # type: ignore[no-untyped-def]
    """SQLite's counter is read before every lookup; PostgreSQL's notification arrives after the commit."""
    return SIGNAL_SECONDS if app.config["SQLALCHEMY_DATABASE_URI"].startswith("postgresql") else 0.0


def test_a_second_request_reads_neither_the_token_holder_nor_the_project(holder):
    client, _ = holder
    assert client.post(NEXT).status_code == 200
    with statements() as sql:
        assert client.post(NEXT).status_code == 200  # resumes the same lease
    assert reads_holder_or_project(sql) == []


def test_a_submit_reads_neither_the_token_holder_nor_the_project(holder):
    client, _ = holder
    lease = client.post(NEXT).get_json()["assignment"]
    with statements() as sql:
        response = client.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {"matches": []}})
    assert response.status_code == 201
    assert reads_holder_or_project(sql) == []


def test_a_token_revoked_on_the_admin_page_is_refused_at_once(app, holder, login, make_user):
    from tests.web.conftest import csrf_token
    client, user_id = holder
    assert client.post(NEXT).status_code == 200
    make_user("boss", role="admin")
    admin = login("boss")
    page = admin.get(f"/admin/annotators/{user_id}").get_data(as_text=True)
    token_id = db.session.scalar(text("SELECT id FROM api_tokens WHERE user_id = :u"), {"u": user_id})
    admin.post(f"/admin/annotators/{user_id}/tokens/{token_id}/revoke", data={"csrf_token": csrf_token(page)})
    assert client.post(NEXT).status_code == 401


def test_a_password_change_in_this_process_refuses_the_old_tokens_at_once(holder):
    """change_password revokes every token with one bulk DELETE, not through the unit of work."""
    client, user_id = holder
    assert client.post(NEXT).status_code == 200
    change_password(db.session.get(User, user_id), "a-brand-new-password")
    db.session.commit()
    assert client.post(NEXT).status_code == 401


def test_an_account_deactivated_in_this_process_is_refused_at_once(holder):
    client, user_id = holder
    assert client.post(NEXT).status_code == 200
    set_active(db.session.get(User, user_id), False)
    db.session.commit()
    assert client.post(NEXT).status_code == 401


def test_an_account_deactivated_by_another_process_is_refused(app, holder):
    client, user_id = holder
    assert client.post(NEXT).status_code == 200
    with another_process(app) as connection:
        connection.execute(text("UPDATE users SET active = false WHERE id = :u"), {"u": user_id})
    assert status_within(client, 401, signal_seconds(app)) == 401
    assert client.post(NEXT).status_code == 401  # and stays refused


def test_a_token_deleted_by_another_process_is_refused(app, holder):
    client, user_id = holder
    assert client.post(NEXT).status_code == 200
    with another_process(app) as connection:
        connection.execute(text("DELETE FROM api_tokens WHERE user_id = :u"), {"u": user_id})
    assert status_within(client, 401, signal_seconds(app)) == 401


def test_a_project_archived_by_another_process_is_closed(app, holder):
    client, _ = holder
    assert client.post(NEXT).status_code == 200
    with another_process(app) as connection:
        connection.execute(text("UPDATE projects SET archived = true WHERE slug = 'kpa'"))
    assert status_within(client, 403, signal_seconds(app)) == 403


def test_a_token_issued_by_another_process_works_at_once(app, holder, make_user):
    """Unknown tokens are not kept as unknown: inserts send no signal, so they must be looked up each time."""
    _, user_id = holder
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = "Bearer issued-elsewhere"
    assert client.post(NEXT).status_code == 401
    with another_process(app) as connection:
        connection.execute(text("INSERT INTO api_tokens (user_id, digest, note, created_at) "
                                "VALUES (:u, :d, '', CURRENT_TIMESTAMP)"),
                           {"u": user_id, "d": token_digest("issued-elsewhere")})
    assert client.post(NEXT).status_code == 200


def test_nothing_is_kept_longer_than_the_configured_seconds(app, holder):
    client, _ = holder
    app.extensions["process_cache"].max_age = 0.0
    assert client.post(NEXT).status_code == 200
    with statements() as sql:
        client.post(NEXT)
    assert reads_holder_or_project(sql) != []


def test_with_the_cache_off_every_request_reads_the_holder(app, holder):
    client, _ = holder
    app.extensions["process_cache"].enabled = False
    assert client.post(NEXT).status_code == 200
    with statements() as sql:
        client.post(NEXT)
    assert reads_holder_or_project(sql) != []


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_while_the_listening_connection_is_lost_nothing_kept_is_used(app, holder):
    """A change whose notification nobody received (the listener's backend was terminated, as when the
    server restarts) still counts: the lost connection empties the cache and requests read the rows
    until listening again."""
    client, user_id = holder
    assert client.post(NEXT).status_code == 200
    cache = app.extensions["process_cache"]
    listener_pid = cache._watch.connection.info.backend_pid
    with another_process(app) as connection:
        connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": listener_pid})
    deadline = time.monotonic() + SIGNAL_SECONDS
    while cache._watch is not None and cache._watch.connection.info.backend_pid == listener_pid \
            and time.monotonic() < deadline:
        client.post(NEXT)  # each lookup polls the listener; the lost connection shows within moments
        time.sleep(0.05)
    with another_process(app) as connection:
        connection.execute(text("UPDATE users SET active = false WHERE id = :u"), {"u": user_id})
    assert client.post(NEXT).status_code == 401


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_after_the_listening_connection_is_lost_the_process_listens_again(app, holder):
    client, _ = holder
    cache = app.extensions["process_cache"]
    cache.retry_seconds = 0.0
    assert client.post(NEXT).status_code == 200
    listener_pid = cache._watch.connection.info.backend_pid
    with another_process(app) as connection:
        connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": listener_pid})
    deadline = time.monotonic() + SIGNAL_SECONDS
    while time.monotonic() < deadline:
        client.post(NEXT)
        if cache._watch is not None and cache._watch.connection.info.backend_pid != listener_pid:
            break
        time.sleep(0.05)
    client.post(NEXT)
    with statements() as sql:
        assert client.post(NEXT).status_code == 200
    assert reads_holder_or_project(sql) == []  # kept again


def test_a_change_in_this_process_counts_before_the_database_signal_arrives(app, holder, monkeypatch):
    """The signal of a commit reaches PostgreSQL's listeners a moment after the commit returns; a request
    of the same process right after must not fall in that moment. Here the signal never arrives."""
    client, user_id = holder
    assert client.post(NEXT).status_code == 200
    cache = app.extensions["process_cache"]
    monkeypatch.setattr(cache._watch, "changed", lambda: False)
    set_active(db.session.get(User, user_id), False)
    db.session.commit()
    assert client.post(NEXT).status_code == 401


def test_a_bulk_delete_in_this_process_counts_before_the_database_signal_arrives(app, holder, monkeypatch):
    client, user_id = holder
    assert client.post(NEXT).status_code == 200
    monkeypatch.setattr(app.extensions["process_cache"]._watch, "changed", lambda: False)
    db.session.execute(delete(ApiToken).where(ApiToken.user_id == user_id))  # no object in the session
    db.session.commit()
    assert client.post(NEXT).status_code == 401


def test_a_rolled_back_change_leaves_what_is_kept(app, holder, monkeypatch):
    client, user_id = holder
    assert client.post(NEXT).status_code == 200
    set_active(db.session.get(User, user_id), False)
    db.session.flush()
    db.session.rollback()
    with statements() as sql:
        assert client.post(NEXT).status_code == 200
    assert reads_holder_or_project(sql) == []


@pytest.mark.parametrize("change", ["deactivate", "delete the token"])
def test_a_row_read_before_a_change_is_not_kept_after_another_thread_took_its_signal(app, holder, monkeypatch,
                                                                                    change):
    """gthread workers: request A reads the holder, the change commits elsewhere, request B of the same
    process takes the signal and empties the cache, then A stores what it read. That row must not be
    what the next requests get: no second signal would ever come for it."""
    client, user_id = holder
    original, paused, go = process_cache._read_holder, threading.Event(), threading.Event()

    def read_then_wait(digest, slug):  # type: ignore[no-untyped-def]
        found = original(digest, slug)
        if threading.current_thread().name == "request A":
            paused.set()
            go.wait(20)
        return found

    monkeypatch.setattr(process_cache, "_read_holder", read_then_wait)
    request_a = threading.Thread(name="request A", target=lambda: _post_next_in_its_own_context(app, client))
    request_a.start()
    assert paused.wait(20)
    with another_process(app) as connection:
        if change == "deactivate":
            connection.execute(text("UPDATE users SET active = false WHERE id = :u"), {"u": user_id})
        else:
            connection.execute(text("DELETE FROM api_tokens WHERE user_id = :u"), {"u": user_id})
    assert status_within(client, 401, signal_seconds(app) or 1.0) == 401  # request B takes the signal
    go.set()
    request_a.join(20)
    assert [client.post(NEXT).status_code for _ in range(3)] == [401, 401, 401]


def _post_next_in_its_own_context(app, client) -> None:  # type: ignore[no-untyped-def]
    with app.app_context():
        client.post(NEXT)


def test_a_json_setting_changed_in_place_and_rolled_back_is_not_kept(app, holder):
    """merge() hands a request the kept object's attribute values; a dict changed in place (no ORM event,
    nothing written) must not reach the next request through the cache."""
    client, _ = holder
    assert client.post(NEXT).status_code == 200
    token = client.environ_base["HTTP_AUTHORIZATION"].split()[1]
    _, project = process_cache.token_holder(token_digest(token), "kpa")
    project.quality["control_rate"] = 0.5
    project.settings["changed in place"] = True
    db.session.rollback()
    db.session.remove()
    _, again = process_cache.token_holder(token_digest(token), "kpa")
    assert "control_rate" not in again.quality
    assert "changed in place" not in again.settings


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_forked_child_leaves_the_parents_listening_connection_open(app, holder):
    """A child that inherits a listening process's cache (gunicorn --preload, multiprocessing) drops the
    parent's connection without closing it, also when it exits normally: a close would end the parent's
    session on the socket they share."""
    script = f"""
import os, sys, time
from annotator import create_app
app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI={app.config['SQLALCHEMY_DATABASE_URI']!r})
with app.app_context():
    cache = app.extensions["process_cache"]
    assert cache._current() is not None
    backend = cache._watch.connection.info.backend_pid
    child = os.fork()
    if child == 0:
        with app.app_context():
            cache._current()
        sys.exit(0)  # as a worker does: atexit handlers run
    os.waitpid(child, 0)
    time.sleep(0.3)
    print(cache._current() is not None, cache._watch is not None and cache._watch.connection.info.backend_pid == backend)
    cache.close()
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_locked_sqlite_file_at_the_first_lookup_only_delays_the_cache(app, holder, monkeypatch):
    """Opening the change counter can meet "database is locked" for a moment; that is not a database
    without signals (no migration 0010), so the cache is tried again instead of off for good."""
    import sqlite3
    client, _ = holder

    class LockedFile:  # what sqlite3.connect gives while another connection holds the file
        OperationalError = sqlite3.OperationalError

        def execute(self, *_args):  # type: ignore[no-untyped-def]
            raise sqlite3.OperationalError("database is locked")

        def close(self) -> None:
            pass

    cache = app.extensions["process_cache"]
    cache.close()
    dbapi = db.engine.dialect.loaded_dbapi
    with monkeypatch.context() as patch:
        patch.setattr(dbapi, "connect", lambda *args, **kwargs: LockedFile())
        assert client.post(NEXT).status_code == 200
    assert cache.enabled and cache._watch is None
    cache._watch_after = 0.0  # the retry's pause has passed
    assert client.post(NEXT).status_code == 200
    with statements() as sql:
        assert client.post(NEXT).status_code == 200
    assert reads_holder_or_project(sql) == []


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_the_listening_connection_is_made_like_the_pools_connect_args_included(database_url):
    """SQLALCHEMY_ENGINE_OPTIONS' connect_args reach the pool's connections and must reach the listener's
    (here they correct the URL's port; they may as well carry TLS settings or a password)."""
    from sqlalchemy.engine import make_url
    url = make_url(database_url)
    right_port = str(url.port or 5432)  # over a Unix socket the port names the socket's file
    engine = create_engine(url.set(port=1), connect_args={"port": right_port})
    listener = process_cache._Listener(engine)
    try:
        assert str(listener.connection.info.port) == right_port
        with engine.begin() as connection:
            connection.execute(text(f"NOTIFY {process_cache.CHANNEL}, 'users'"))
        deadline = time.monotonic() + SIGNAL_SECONDS
        while not listener.changed() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert time.monotonic() < deadline
    finally:
        listener.close()
        engine.dispose()
