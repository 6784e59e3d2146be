"""Flask test-client helpers: real forms with their CSRF tokens, as a browser would send them.

The `login` fixture lives in tests/conftest.py so that every folder can use it.
"""
from __future__ import annotations

import re

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, User

CSRF = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"|name="csrf_token" value="([^"]+)"')


def csrf_token(html: str) -> str:
    match = CSRF.search(html)
    assert match, "the page has no CSRF token"
    return match.group(1) or match.group(2)


def open_hit_page(client, slug: str):  # type: ignore[no-untyped-def]
    """The HIT page as an annotator reaches it: GET /p/<slug>/, pressing Start when no HIT is running."""
    page = client.get(f"/p/{slug}/")
    html = page.get_data(as_text=True)
    if page.status_code == 200 and 'id="start-form"' in html:
        started = client.post(f"/p/{slug}/next", data={"csrf_token": csrf_token(html)})
        page = client.get(started.headers["Location"]) if started.status_code == 302 else started
    return page


def open_form(client, slug: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """The project's HIT page (answered 200) and the action its form posts to."""
    page = open_hit_page(client, slug)
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    found = re.search(rf'action="(/p/{re.escape(slug)}/a/\d+)"', html)
    assert found, "the HIT page has no form posting an answer"
    return html, found.group(1)


def submitted_by(username: str) -> list[Assignment]:
    """The annotator's submitted assignments, oldest first, read in a fresh session: what the requests committed."""
    db.session.remove()
    return list(db.session.scalars(select(Assignment).join(User, User.id == Assignment.user_id).where(
        User.username == username, Assignment.status == SUBMITTED).order_by(Assignment.id)))
