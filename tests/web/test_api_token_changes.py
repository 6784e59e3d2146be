"""A change to an API token, its account or a project counts from the next API request, on both engines.

Every request reads the token's holder (and the project in its URL) anew, so a change made in this
process or by another one (here: another connection, through the database alone, as a CLI or a second
host would) is seen by the next request.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import create_engine, text

from annotator.core.extensions import db
from annotator.core.models import User, token_digest
from annotator.people.accounts import change_password, issue_token, set_active

NEXT = "/api/v1/projects/kpa/next"


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
def another_process(app) -> Iterator:  # type: ignore[no-untyped-def]
    """A connection of its own to the same database, committing on leaving: what a CLI or a second host does."""
    engine = create_engine(app.config["SQLALCHEMY_DATABASE_URI"])
    try:
        with engine.begin() as connection:
            yield connection
    finally:
        engine.dispose()


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
    assert client.post(NEXT).status_code == 401
    assert client.post(NEXT).status_code == 401  # and stays refused


def test_a_token_deleted_by_another_process_is_refused(app, holder):
    client, user_id = holder
    assert client.post(NEXT).status_code == 200
    with another_process(app) as connection:
        connection.execute(text("DELETE FROM api_tokens WHERE user_id = :u"), {"u": user_id})
    assert client.post(NEXT).status_code == 401


def test_a_project_archived_by_another_process_is_closed(app, holder):
    client, _ = holder
    assert client.post(NEXT).status_code == 200
    with another_process(app) as connection:
        connection.execute(text("UPDATE projects SET archived = true WHERE slug = 'kpa'"))
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


def test_a_submit_after_the_account_was_deactivated_by_another_process_is_refused(app, holder):
    client, user_id = holder
    lease = client.post(NEXT).get_json()["assignment"]
    with another_process(app) as connection:
        connection.execute(text("UPDATE users SET active = false WHERE id = :u"), {"u": user_id})
    response = client.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {"matches": []}})
    assert response.status_code == 401
