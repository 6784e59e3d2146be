"""Log-in, log-out and who may see what."""
from __future__ import annotations

from annotator.core.models import User
from tests.conftest import PASSWORD, stored
from tests.web.conftest import csrf_token


def test_pages_require_login(app):
    response = app.test_client().get("/")
    assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_login_with_the_right_password_opens_the_project_list(login, make_user):
    make_user("ann")
    assert "Projects" in login("ann").get("/").get_data(as_text=True)


def test_an_admin_lands_on_the_admins_projects_after_logging_in(app, make_user):
    make_user("boss", role="admin")
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    response = client.post("/login", data={"username": "boss", "password": PASSWORD, "csrf_token": csrf_token(page)})
    assert response.headers["Location"] == "/admin/"


def test_an_admin_opening_the_start_page_is_sent_to_the_admins_projects(login, make_user):
    make_user("boss", role="admin")
    client = login("boss")
    response = client.get("/")
    assert response.status_code == 302 and response.headers["Location"] == "/admin/"
    assert "New project" in client.get("/admin/").get_data(as_text=True)


def test_an_annotator_still_lands_on_their_own_projects(app, make_user):
    make_user("ann")
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    response = client.post("/login", data={"username": "ann", "password": PASSWORD, "csrf_token": csrf_token(page)})
    assert response.headers["Location"] == "/"


def test_login_with_a_wrong_password_is_refused(app, make_user):
    make_user("ann")
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    response = client.post("/login", data={"username": "ann", "password": "nope", "csrf_token": csrf_token(page)})
    assert response.status_code == 401
    assert "wrong password" in response.get_data(as_text=True)


def test_login_form_without_csrf_token_is_refused(app, make_user):
    make_user("ann")
    response = app.test_client().post("/login", data={"username": "ann", "password": "x"})
    assert response.status_code == 400


def test_passwords_are_stored_hashed(make_user):
    user = make_user("ann", password="s3cret-pass")
    assert "s3cret-pass" not in user.password_hash and user.check_password("s3cret-pass")


def test_outside_the_tests_passwords_are_hashed_with_scrypt(database_url):
    """The suite's own config makes cheap hashes (config.TestConfig); every other configuration makes
    werkzeug's scrypt ones, and a hash made either way is checked by the method it names."""
    from annotator import create_app
    from annotator.core.models import User
    served = create_app("config.Config", SQLALCHEMY_DATABASE_URI=database_url, SECRET_KEY="k")
    with served.app_context():
        user = User(username="ann")
        user.set_password("s3cret-pass")
        assert user.password_hash.startswith("scrypt:") and user.check_password("s3cret-pass")
        from werkzeug.security import generate_password_hash
        cheap = User(username="bob", password_hash=generate_password_hash("pw", method="pbkdf2:sha256:1"))
        assert cheap.check_password("pw") and not cheap.check_password("other")


def test_login_never_redirects_to_another_site(app, make_user):
    make_user("ann")
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    response = client.post("/login?next=//evil.example/x", data={
        "username": "ann", "password": "correct horse battery", "csrf_token": csrf_token(page)})
    assert response.headers["Location"] == "/"


def test_logout_ends_the_session(login, make_user):
    make_user("ann")
    client = login("ann")
    page = client.get("/").get_data(as_text=True)
    client.post("/logout", data={"csrf_token": csrf_token(page)})
    assert client.get("/").status_code == 302


def test_annotators_never_see_admin_pages(login, make_user, kpa_project):
    make_user("ann")
    kpa_project()
    client = login("ann")
    for url in ("/admin/", "/admin/projects/kpa", "/admin/projects/kpa/export.zip", "/admin/annotators"):
        assert client.get(url).status_code == 403, url


def test_inactive_accounts_cannot_log_in(app, make_user):
    from annotator.core.extensions import db
    user = make_user("ann")
    user.active = False
    db.session.commit()
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    response = client.post("/login", data={"username": "ann", "password": "correct horse battery",
                                            "csrf_token": csrf_token(page)})
    assert response.status_code == 401


def test_a_user_changes_their_password(login, make_user):
    make_user("ann")
    client = login("ann")
    page = client.get("/account/password").get_data(as_text=True)
    response = client.post("/account/password", data={"csrf_token": csrf_token(page),
                                                       "current": "correct horse battery",
                                                       "new": "a-new-secret", "repeat": "a-new-secret"})
    assert response.status_code == 302 and stored(User, username="ann").check_password("a-new-secret")


def test_changing_the_password_needs_the_current_one(login, make_user):
    make_user("ann")
    client = login("ann")
    page = client.get("/account/password").get_data(as_text=True)
    html = client.post("/account/password", data={"csrf_token": csrf_token(page), "current": "wrong",
                                                   "new": "a-new-secret", "repeat": "a-new-secret"}
                       ).get_data(as_text=True)
    assert "not your current password" in html and stored(User, username="ann").check_password("correct horse battery")
