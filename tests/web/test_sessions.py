"""Sessions end for real: logout and password changes void every earlier cookie and token; cookie flags."""
from __future__ import annotations

from flask import Flask

from annotator import create_app
from annotator.core.extensions import db
from annotator.core.models import ApiToken, User
from annotator.people.accounts import issue_token
from tests.conftest import PASSWORD, RequestClient, stored
from tests.web.conftest import csrf_token


def _log_in(client, username: str = "ann", remember: bool = False,  # type: ignore[no-untyped-def]
            base_url: str = "http://localhost"):
    page = client.get("/login", base_url=base_url).get_data(as_text=True)
    data = {"username": username, "password": PASSWORD, "csrf_token": csrf_token(page)}
    if remember:
        data["remember"] = "y"
    response = client.post("/login", data=data, base_url=base_url, headers={"Referer": f"{base_url}/login"})
    assert response.status_code == 302
    return response


def _cookie(client, name: str) -> str:  # type: ignore[no-untyped-def]
    cookie = client.get_cookie(name)
    assert cookie is not None, f"no {name} cookie"
    return cookie.value


def _replayed(app: Flask, name: str, value: str):  # type: ignore[no-untyped-def]
    """A new browser that was handed a copy of the cookie."""
    other = app.test_client()
    other.set_cookie(name, value)
    return other


def _logout(client) -> None:  # type: ignore[no-untyped-def]
    page = client.get("/").get_data(as_text=True)
    client.post("/logout", data={"csrf_token": csrf_token(page)})


def test_a_session_cookie_copied_before_logout_is_refused_after_it(app, make_user):
    make_user("ann")
    client = app.test_client()
    _log_in(client)
    copy = _cookie(client, "session")
    _logout(client)
    assert _replayed(app, "session", copy).get("/").status_code == 302


def test_a_remember_cookie_copied_before_logout_is_refused_after_it(app, make_user):
    make_user("ann")
    client = app.test_client()
    _log_in(client, remember=True)
    copy = _cookie(client, "remember_token")
    _logout(client)
    assert _replayed(app, "remember_token", copy).get("/").status_code == 302


def test_a_remember_cookie_alone_logs_in_until_then(app, make_user):
    make_user("ann")
    client = app.test_client()
    _log_in(client, remember=True)
    assert _replayed(app, "remember_token", _cookie(client, "remember_token")).get("/").status_code == 200


def _change_password(client) -> None:  # type: ignore[no-untyped-def]
    page = client.get("/account/password").get_data(as_text=True)
    response = client.post("/account/password", data={"csrf_token": csrf_token(page), "current": PASSWORD,
                                                       "new": "a-new-secret", "repeat": "a-new-secret"})
    assert response.status_code == 302


def test_a_password_change_ends_the_other_sessions_but_keeps_this_one(app, make_user):
    make_user("ann")
    laptop, phone = app.test_client(), app.test_client()
    _log_in(laptop)
    _log_in(phone, remember=True)
    _change_password(laptop)
    assert laptop.get("/").status_code == 200
    assert _replayed(app, "session", _cookie(phone, "session")).get("/").status_code == 302
    assert _replayed(app, "remember_token", _cookie(phone, "remember_token")).get("/").status_code == 302


def test_a_password_change_revokes_the_api_tokens(app, make_user):
    user = make_user("ann")
    token = issue_token(user)
    db.session.commit()
    client = app.test_client()
    _log_in(client)
    _change_password(client)
    assert stored(ApiToken, user_id=user.id) is None
    response = client.get("/api/v1/projects/x/progress", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401


def test_an_admin_password_reset_ends_sessions_and_revokes_tokens(app, make_user, login):
    from annotator.people.accounts import reset_password
    user = make_user("ann")
    issue_token(user)
    db.session.commit()
    client = login("ann")
    reset_password(db.session.get(User, user.id))
    db.session.commit()
    assert client.get("/").status_code == 302 and stored(ApiToken, user_id=user.id) is None


def test_the_remember_cookie_lasts_two_weeks_and_is_same_site(app, make_user):
    make_user("ann")
    response = _log_in(app.test_client(), remember=True)
    header = next(h for h in response.headers.getlist("Set-Cookie") if h.startswith("remember_token="))
    assert "SameSite=Lax" in header and "HttpOnly" in header and "Secure" not in header
    assert app.config["REMEMBER_COOKIE_DURATION"].days == 14


def test_over_https_both_cookies_are_secure(database_url, make_user, app):
    make_user("ann")
    https = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=database_url, HTTPS=True)
    https.test_client_class = RequestClient
    response = _log_in(https.test_client(), remember=True, base_url="https://localhost")
    cookies = response.headers.getlist("Set-Cookie")
    assert {c.split("=")[0] for c in cookies if "; Secure" in c} == {"session", "remember_token"}


def test_the_https_flag_is_read_from_the_environment(monkeypatch):
    import config
    monkeypatch.setenv("ANNOTATOR_HTTPS", "1")
    assert config._flag("ANNOTATOR_HTTPS")
    monkeypatch.setenv("ANNOTATOR_HTTPS", "0")
    assert not config._flag("ANNOTATOR_HTTPS")
