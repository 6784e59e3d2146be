"""The site's icon: browsers ask for /favicon.ico on every site, logged in or not."""
from __future__ import annotations

import re

from annotator.core.extensions import db


def test_favicon_ico_is_served_without_logging_in(app):
    response = app.test_client().get("/favicon.ico")
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    assert response.data.startswith(b"<svg")


def test_every_page_links_the_icon(app):
    html = app.test_client().get("/login").get_data(as_text=True)
    assert re.search(r'<link rel="icon" href="/static/favicon.svg\?v=[0-9a-f]{12}" type="image/svg\+xml">', html)


def test_an_account_that_must_choose_a_password_still_gets_the_icon(login, make_user):
    user = make_user("ann")
    user.must_change_password = True
    db.session.commit()
    assert login("ann").get("/favicon.ico").status_code == 200
