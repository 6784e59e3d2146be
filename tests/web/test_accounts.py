"""Accounts from the browser: one or many annotators with one-time passwords, deactivation, API tokens."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import EXPIRED, ApiToken, Assignment, User, token_digest
from annotator.engine import assignment as engine
from tests.conftest import stored
from tests.web.conftest import csrf_token


@pytest.fixture
def admin(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


def _post(client, page_url: str, url: str, **data):  # type: ignore[no-untyped-def]
    page = client.get(page_url).get_data(as_text=True)
    return client.post(url, data={"csrf_token": csrf_token(page), **data})


def _passwords(html: str) -> dict[str, str]:
    return dict(re.findall(r"<tr><td>([^<]+)</td><td><code>([^<]+)</code></td></tr>", html))


def _log_in(app, name: str, password: str):  # type: ignore[no-untyped-def]
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    response = client.post("/login", data={"username": name, "password": password, "csrf_token": csrf_token(page)})
    return client, response


def test_an_account_without_a_chosen_password_gets_a_one_time_password_shown_once(app, admin):
    response = _post(admin, "/admin/annotators", "/admin/annotators", username="ann", password="", role="annotator")
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    password = _passwords(response.get_data(as_text=True))["ann"]
    user = stored(User, username="ann")
    assert user.must_change_password and user.check_password(password) and password not in user.password_hash


def test_a_one_time_password_must_be_replaced_at_the_first_login(app, admin):
    password = _passwords(_post(admin, "/admin/annotators", "/admin/annotators", username="ann", password="",
                                role="annotator").get_data(as_text=True))["ann"]
    client, _ = _log_in(app, "ann", password)
    assert client.get("/").headers["Location"] == "/account/password"
    page = client.get("/account/password").get_data(as_text=True)
    client.post("/account/password", data={"csrf_token": csrf_token(page), "current": password,
                                           "new": "my-own-secret", "repeat": "my-own-secret"})
    assert client.get("/").status_code == 200
    user = stored(User, username="ann")
    assert not user.must_change_password and user.check_password("my-own-secret")


def test_many_annotators_are_created_from_a_pasted_list(app, admin):
    response = _post(admin, "/admin/annotators", "/admin/annotators/bulk", usernames="w-001\r\nw-002\n\n w-003 \n")
    passwords = _passwords(response.get_data(as_text=True))
    assert sorted(passwords) == ["w-001", "w-002", "w-003"] and len(set(passwords.values())) == 3
    for name, password in passwords.items():
        assert stored(User, username=name).check_password(password)
    assert _log_in(app, "w-002", passwords["w-002"])[1].status_code == 302


def test_a_pasted_list_with_a_problem_creates_nobody_and_says_every_problem(admin, make_user):
    make_user("taken")
    response = _post(admin, "/admin/annotators", "/admin/annotators/bulk", usernames="fine\ntaken\nbad name\nfine")
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "already a user &#39;taken&#39;" in html and "&#39;bad name&#39; is not a user name" in html
    assert "listed twice" in html
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(User).where(User.username == "fine")) == 0


def test_a_refused_list_is_shown_again_as_pasted(admin):
    """One bad name must not cost the admin the whole pasted list: the textarea comes back with it."""
    pasted = "w-001\nw-002\nbad name\nw-004"
    html = _post(admin, "/admin/annotators", "/admin/annotators/bulk", usernames=pasted).get_data(as_text=True)
    textarea = re.search(r'<textarea[^>]*name="usernames"[^>]*>(.*?)</textarea>', html, re.S)
    assert textarea is not None and textarea.group(1).strip() == pasted


def test_each_problem_of_a_pasted_list_names_its_line(admin, make_user):
    """Line numbers count the pasted lines, blank ones included, so the admin finds the name in the textarea."""
    make_user("taken")
    html = _post(admin, "/admin/annotators", "/admin/annotators/bulk",
                 usernames="fine\n\nbad name\ntaken\nfine").get_data(as_text=True)
    assert "line 3: &#39;bad name&#39; is not a user name" in html
    assert "line 4: there is already a user &#39;taken&#39;" in html
    assert "lines 1, 5: &#39;fine&#39; is listed twice" in html


def _user_page(client, name: str) -> str:  # type: ignore[no-untyped-def]
    return f"/admin/annotators/{stored(User, username=name).id}"


def test_a_deactivated_annotator_is_logged_out_refused_and_their_lease_released(app, admin, make_user, login,
                                                                               kpa_project):
    project = kpa_project()
    user = make_user("ann")
    session = login("ann")
    lease = engine.next_for(user, project)
    url = _user_page(admin, "ann")
    _post(admin, url, f"{url}/active")
    assert not stored(User, username="ann").active
    assert stored(Assignment, id=lease.id).status == EXPIRED
    assert session.get("/").status_code == 302  # the running session is over
    assert _log_in(app, "ann", "correct horse battery")[1].status_code == 401
    _post(admin, url, f"{url}/active")
    assert stored(User, username="ann").active


def test_an_admin_cannot_deactivate_their_own_account(admin):
    url = _user_page(admin, "boss")
    _post(admin, url, f"{url}/active")
    assert stored(User, username="boss").active


def test_a_token_is_issued_once_works_and_is_revoked(app, admin, make_user, kpa_project):
    kpa_project()
    make_user("bot")
    url = _user_page(admin, "bot")
    html = _post(admin, url, f"{url}/tokens", note="labelling script").get_data(as_text=True)
    token = re.search(r'<code id="token">([^<]+)</code>', html).group(1)
    stored_token = stored(ApiToken, digest=token_digest(token))
    assert stored_token.note == "labelling script" and token not in stored_token.digest
    api = app.test_client()
    api.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    assert api.post("/api/v1/projects/kpa/next").status_code == 200
    assert "labelling script" in admin.get(url).get_data(as_text=True)
    _post(admin, url, f"{url}/tokens/{stored_token.id}/revoke")
    assert stored(ApiToken, id=stored_token.id) is None
    assert api.post("/api/v1/projects/kpa/next").status_code == 401


def test_an_admin_gives_a_new_one_time_password(app, admin, make_user):
    make_user("ann")
    url = _user_page(admin, "ann")
    password = _passwords(_post(admin, url, f"{url}/password").get_data(as_text=True))["ann"]
    user = stored(User, username="ann")
    assert user.check_password(password) and user.must_change_password


def test_annotators_cannot_manage_accounts(login, make_user):
    make_user("ann")
    client = login("ann")
    ann_id = stored(User, username="ann").id
    assert client.get(f"/admin/annotators/{ann_id}").status_code == 403
    for url in ("/admin/annotators/bulk", f"/admin/annotators/{ann_id}/tokens", f"/admin/annotators/{ann_id}/active"):
        assert client.post(url).status_code in (400, 403), url
    assert stored(User, username="ann").active
    assert db.session.scalar(select(func.count()).select_from(ApiToken)) == 0
