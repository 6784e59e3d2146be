"""Web blueprints: one per concern (auth, annotate, admin, project setup, accounts, api, leaderboards,
item view, adjudication, quality control) and their shared set-up."""
from __future__ import annotations

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from annotator.core.extensions import db, login_manager
from annotator.core.models import User


def init_app(app: Flask) -> None:
    from annotator.web import (
        accounts,
        admin,
        aggregation,
        annotate,
        api,
        audit,
        auth,
        crowd,
        crowd_admin,
        dashboard,
        dataset_stats,
        declared_projects,
        erasure,
        items,
        leaderboards,
        project_move,
        project_setup,
        quality,
        review,
    )
    from annotator.web.converters import BoundedIntConverter, TextConverter
    app.url_map.converters["int"] = BoundedIntConverter  # before any rule is added
    app.url_map.converters["default"] = app.url_map.converters["string"] = TextConverter
    for module in (auth, annotate, admin, project_setup, declared_projects, accounts, api, leaderboards, items, review,
                   quality, aggregation, dashboard, crowd, crowd_admin, dataset_stats, project_move, audit, erasure):
        app.register_blueprint(module.bp)
    from annotator.plugins.registry import SHARED_TASKS
    for task in SHARED_TASKS.values():  # a shared task's own admin pages
        for blueprint in task.load(task.blueprints, Blueprint, "blueprint"):
            app.register_blueprint(blueprint)
    crowd.init_app(app)
    from annotator.web import token_holders
    token_holders.init_app(app)
    from annotator.web.unavailable import init_app as init_unavailable
    init_unavailable(app)
    from annotator.web.kept_pages import init_app as init_kept_pages
    init_kept_pages(app)
    from annotator.web.throttle import init_throttle
    init_throttle(app)
    from annotator.web.markdown import init_app as init_markdown
    init_markdown(app)
    from annotator.web.words import init_app as init_words
    init_words(app)
    from annotator.web.form_text import init_app as init_form_text
    init_form_text(app)
    from annotator.web.address_text import init_app as init_address_text
    init_address_text(app)
    from annotator.web.plain_text import init_app as init_plain_text
    init_plain_text(app)
    from annotator.web.favicon import init_app as init_favicon
    init_favicon(app)
    from annotator.web.static_files import init_app as init_static_files
    init_static_files(app)
    from annotator.web.definition_schema import init_app as init_definition_schema
    init_definition_schema(app)

    login_manager.login_view = "auth.login"
    login_manager.login_message = "Please log in to continue."
    login_manager.user_loader(_load_user)
    app.after_request(_security_headers)
    for status in (400, 403, 404, 409, 413, 429):
        app.register_error_handler(status, _error_page)


def _load_user(user_id: str) -> User | None:
    """The session's user, if the cookie's session version is still the account's (User.get_id).

    A deactivated account, or a cookie from before a logout or password change, is logged out at its
    next request; so is anything that is not "id:version" (e.g. a cookie signed before versions).
    """
    number, _, version = user_id.partition(":")
    if not (number.isdigit() and version.isdigit()) or len(number) > 18:
        return None
    user = db.session.get(User, int(number))
    if user is None or not user.active or user.session_version != int(version):
        return None
    return user


def _security_headers(response: Response) -> Response:
    # Every asset is served by the app itself: no CDN, no inline script. Images may come from elsewhere: a
    # declared campaign shows an item's image by its http(s) URL (`as: image_url`).
    response.headers.setdefault("Content-Security-Policy",
                                "default-src 'self'; img-src 'self' data: https: http:; frame-ancestors 'none'")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if current_app.config.get("HTTPS"):  # the site is served over HTTPS: browsers are to come back over HTTPS only
        response.headers.setdefault("Strict-Transport-Security",
                                    f"max-age={current_app.config['HSTS_MAX_AGE']}; includeSubDomains")
    return response


def _error_page(error: HTTPException) -> ResponseReturnValue:
    """An HTML page; JSON under the API's prefix, also for URLs no API route matched (blueprint unknown)."""
    assert error.code is not None  # registered for status codes: Flask calls it for exceptions with that code
    if request.path.startswith("/api/"):
        return jsonify({"error": error.description or error.name, "status": error.code}), error.code
    return render_template("error.html", error=error), error.code
