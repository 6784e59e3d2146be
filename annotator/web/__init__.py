"""Web blueprints: one per concern (auth, annotate, admin, project setup, accounts, api, leaderboards,
item view, adjudication) and their shared set-up."""
from __future__ import annotations

from flask import Flask, Response, render_template

from ..extensions import db, login_manager
from ..models import User


def init_app(app: Flask) -> None:
    from . import accounts, admin, annotate, api, auth, items, leaderboards, project_setup, review
    for module in (auth, annotate, admin, project_setup, accounts, api, leaderboards, items, review):
        app.register_blueprint(module.bp)

    login_manager.login_view = "auth.login"
    login_manager.login_message = "Please log in to continue."
    login_manager.user_loader(_load_user)
    app.after_request(_security_headers)
    for status in (403, 404, 409):
        app.register_error_handler(status, _error_page)


def _load_user(user_id: str) -> User | None:
    """The session's user; a deactivated account is logged out at its next request."""
    user = db.session.get(User, int(user_id))
    return user if user is not None and user.active else None


def _security_headers(response: Response) -> Response:
    # Every asset is served by the app itself: no CDN, no inline script.
    response.headers.setdefault("Content-Security-Policy",
                                "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


def _error_page(error):  # type: ignore[no-untyped-def]
    return render_template("error.html", error=error), error.code
