"""A change to an API token, its account or a project: when the API honours it, on both engines.

A worker keeps a token's holder and its projects for API_HOLDER_SECONDS (annotator/web/token_holders.py).
A change made through this process's session (admin pages, the CLI's functions) empties what it keeps,
so it counts from the next request. A change made by another process (here: another connection,
through the database alone, as a second worker, a script or another host would) counts once what was
kept expires (the tests move the holders' clock on instead of sleeping); with API_HOLDER_SECONDS = 0,
from the next request. A token nobody held is never kept, so a new token works at once everywhere.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import create_engine, event, text

from annotator.core.extensions import db
from annotator.core.models import User, token_digest
from annotator.people.accounts import change_password, issue_token, set_active
from annotator.web.token_holders import EXTENSION, TokenHolders

NEXT = "/api/v1/projects/kpa/next"


class Clock:
    """The holders' clock, moved on by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(app) -> Clock:  # type: ignore[no-untyped-def]
    clock = Clock()
    app.extensions[EXTENSION] = TokenHolders(app.config["API_HOLDER_SECONDS"], clock)
    return clock


@pytest.fixture
def holder(app, make_user, kpa_project, clock):  # type: ignore[no-untyped-def]
    """(client with a fresh annotator's token, the annotator's id) on project kpa."""
    kpa_project()
    user = make_user("ann")
    token = issue_token(user)
    db.session.commit()
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    return client, user.id


@contextmanager
def another_process(app) -> Iterator:  # type: ignore[no-untyped-def]
    """A connection of its own to the same database, committing on leaving: what a CLI or a second host does."""
    engine = create_engine(app.config["SQLALCHEMY_DATABASE_URI"])
    try:
        with engine.begin() as connection:
            yield connection
    finally:
        engine.dispose()


def after_the_kept_copies_expire(app, clock: Clock) -> None:  # type: ignore[no-untyped-def]
    clock.now += app.config["API_HOLDER_SECONDS"]


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


def test_an_account_deactivated_by_another_process_is_refused_once_the_kept_holder_expires(app, holder, clock):
    client, user_id = holder
    assert client.post(NEXT).status_code == 200
    with another_process(app) as connection:
        connection.execute(text("UPDATE users SET active = false WHERE id = :u"), {"u": user_id})
    after_the_kept_copies_expire(app, clock)
    assert client.post(NEXT).status_code == 401
    assert client.post(NEXT).status_code == 401  # and stays refused


def test_within_the_holders_time_another_process_change_is_not_seen_yet(app, holder, clock):
    """The documented price of keeping holders: up to API_HOLDER_SECONDS on the workers that kept one."""
    client, user_id = holder
    assert client.post(NEXT).status_code == 200
    with another_process(app) as connection:
        connection.execute(text("UPDATE users SET active = false WHERE id = :u"), {"u": user_id})
    clock.now += app.config["API_HOLDER_SECONDS"] * 0.9
    assert client.post(NEXT).status_code == 200


def test_with_no_holders_time_another_process_change_counts_from_the_next_request(app, holder):
    app.config["API_HOLDER_SECONDS"] = 0
    app.extensions[EXTENSION] = TokenHolders(0)
    client, user_id = holder
    assert client.post(NEXT).status_code == 200
    with another_process(app) as connection:
        connection.execute(text("UPDATE users SET active = false WHERE id = :u"), {"u": user_id})
    assert client.post(NEXT).status_code == 401


def test_a_token_deleted_by_another_process_is_refused_once_the_kept_holder_expires(app, holder, clock):
    client, user_id = holder
    assert client.post(NEXT).status_code == 200
    with another_process(app) as connection:
        connection.execute(text("DELETE FROM api_tokens WHERE user_id = :u"), {"u": user_id})
    after_the_kept_copies_expire(app, clock)
    assert client.post(NEXT).status_code == 401


def test_a_project_archived_by_another_process_is_closed_once_the_kept_project_expires(app, holder, clock):
    client, _ = holder
    assert client.post(NEXT).status_code == 200
    with another_process(app) as connection:
        connection.execute(text("UPDATE projects SET archived = true WHERE slug = 'kpa'"))
    after_the_kept_copies_expire(app, clock)
    assert client.post(NEXT).status_code == 403


def test_a_project_archived_in_this_process_is_closed_at_once(app, holder):
    from annotator.core.models import Project
    client, _ = holder
    assert client.post(NEXT).status_code == 200
    db.session.scalars(db.select(Project).where(Project.slug == "kpa")).one().archived = True
    db.session.commit()
    assert client.post(NEXT).status_code == 403


def test_a_token_issued_by_another_process_works_at_once(app, holder, make_user):
    _, user_id = holder
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = "Bearer issued-elsewhere"
    assert client.post(NEXT).status_code == 401
    with another_process(app) as connection:
        connection.execute(text("INSERT INTO api_tokens (user_id, digest, note, created_at) "
                                "VALUES (:u, :d, '', CURRENT_TIMESTAMP)"),
                           {"u": user_id, "d": token_digest("issued-elsewhere")})
    assert client.post(NEXT).status_code == 200


def test_a_submit_after_the_account_was_deactivated_by_another_process_is_refused(app, holder, clock):
    client, user_id = holder
    lease = client.post(NEXT).get_json()["assignment"]
    with another_process(app) as connection:
        connection.execute(text("UPDATE users SET active = false WHERE id = :u"), {"u": user_id})
    after_the_kept_copies_expire(app, clock)
    response = client.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {"matches": []}})
    assert response.status_code == 401


@contextmanager
def statements_seen() -> Iterator[list[str]]:
    seen: list[str] = []

    def note(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        seen.append(statement)
    event.listen(db.engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", note)


def test_a_kept_token_is_not_read_again_by_next_or_submit(holder):
    client, _ = holder
    client.post(NEXT)  # read once, then kept
    with statements_seen() as seen:
        lease = client.post(NEXT).get_json()["assignment"]  # the same open lease
        assert client.post(f"/api/v1/assignments/{lease['id']}/submit",
                           json={"answer": {"matches": []}}).status_code == 201
    assert seen and not [s for s in seen if "api_tokens" in s or "FROM projects" in s], seen
