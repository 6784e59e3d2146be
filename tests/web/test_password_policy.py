"""One password policy (people/passwords.py) wherever a person chooses a password: the Password page, the admin's
new account form, `flask users add|password` and the demo's passwords from the environment. A refused password
is said why, next to what was typed, and changes nothing."""
from __future__ import annotations

import html

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import User
from tests.conftest import PASSWORD, stored
from tests.web.conftest import csrf_token

COMMON = "This password is among the 20,000 most common ones"


def _change(client, new: str):  # type: ignore[no-untyped-def]
    page = client.get("/account/password").get_data(as_text=True)
    return client.post("/account/password", data={"csrf_token": csrf_token(page), "current": PASSWORD,
                                                  "new": new, "repeat": new})


@pytest.mark.parametrize(("new", "reason"), [
    ("aaaaaaaa", COMMON), ("short", "A password needs at least 8 characters; this one has 5."),
    ("annotator-7!", "This password is the user name with fewer than 8 other characters")])
def test_the_password_page_refuses_a_weak_password_and_says_why(login, make_user, new, reason):
    make_user("annotator-7")
    response = _change(login("annotator-7"), new)
    assert response.status_code == 200 and reason in html.unescape(response.get_data(as_text=True))
    assert stored(User, username="annotator-7").check_password(PASSWORD)


def test_the_password_page_takes_a_password_the_policy_allows(login, make_user):
    make_user("ann")
    assert _change(login("ann"), "harbour lights at dusk").status_code == 302
    assert stored(User, username="ann").check_password("harbour lights at dusk")


def _new_account(client, username: str, password: str):  # type: ignore[no-untyped-def]
    page = client.get("/admin/annotators").get_data(as_text=True)
    return client.post("/admin/annotators", data={"csrf_token": csrf_token(page), "username": username,
                                                  "password": password, "role": "annotator"})


def test_the_admin_cannot_give_a_new_account_a_common_password(login, make_user):
    make_user("boss", role="admin")
    response = _new_account(login("boss"), "new.one", "password1")
    assert response.status_code == 400 and COMMON in html.unescape(response.get_data(as_text=True))
    assert stored(User, username="new.one") is None


def test_the_admin_cannot_give_a_new_account_its_own_name_as_password(login, make_user):
    make_user("boss", role="admin")
    response = _new_account(login("boss"), "worker-0042", "worker-0042")
    assert response.status_code == 400 and "the user name" in html.unescape(response.get_data(as_text=True))
    assert stored(User, username="worker-0042") is None


def _cli(app, *args: str, env: dict | None = None):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=list(args), env=env)


def test_users_add_refuses_a_one_letter_password_and_creates_nothing(app):
    result = _cli(app, "users", "add", "ann", "--password", "a")
    assert result.exit_code == 1
    assert ("Error: password of 'ann' refused: A password needs at least 8 characters; this one has 1."
            in result.output)
    assert stored(User, username="ann") is None


def test_users_password_refuses_a_common_password_and_keeps_the_old_one(app, make_user):
    make_user("ann")
    result = _cli(app, "users", "password", "ann", "--password", "iloveyou")
    assert result.exit_code == 1 and COMMON in result.output
    assert stored(User, username="ann").check_password(PASSWORD)


def test_users_password_takes_a_password_the_policy_allows(app, make_user):
    make_user("ann")
    assert _cli(app, "users", "password", "ann", "--password", "harbour lights at dusk").exit_code == 0
    assert stored(User, username="ann").check_password("harbour lights at dusk")


def test_the_demo_refuses_a_weak_admin_password_from_the_environment_and_names_the_variable(app):
    result = _cli(app, "demo", env={"ANNOTATOR_ADMIN_PASSWORD": "admin123"})
    assert result.exit_code == 1
    assert "Error: ANNOTATOR_ADMIN_PASSWORD: password of 'admin' refused:" in result.output
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(User)) == 0
