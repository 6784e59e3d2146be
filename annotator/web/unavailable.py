"""The database is unreachable (restarting, failing over, locked too long): say so and say retry, not 500.

Why: a PostgreSQL restart or a dropped connection surfaces as a DBAPI OperationalError (or an error
whose connection SQLAlchemy invalidated). Nothing was stored by the failed request: its transaction
died with the connection, and submit is idempotent, so the client may simply send it again. The API
answers JSON 503 with Retry-After and a message that says so; the web pages a plain page that reads
nothing from the database (base.html would load the user, and fail the same way). The engine's
connection pool pings a connection that sat idle and replaces a dead one, and the first failure on a busy
one renews the whole pool (annotator/core/database.py), so once the server is back requests succeed
without anyone restarting the app.
"""
from __future__ import annotations

from flask import Flask, current_app, jsonify, request
from flask.typing import ResponseReturnValue
from sqlalchemy.exc import DBAPIError, OperationalError

from annotator.core.extensions import db

RETRY_AFTER_SECONDS = 5
MESSAGE = ("The database is unavailable for a moment; nothing was changed by this request. "
           "Send it again in a few seconds (a repeated submit returns the stored vote).")


def is_unavailable(error: BaseException) -> bool:
    """A lost or refused connection (or SQLite's lock wait running out), as opposed to a bug."""
    return isinstance(error, OperationalError) or (isinstance(error, DBAPIError) and error.connection_invalidated)


def _database_unavailable(error: DBAPIError) -> ResponseReturnValue:
    if not is_unavailable(error):
        raise error  # an integrity or programming error is a bug: the ordinary 500
    first_line = (str(error.orig or error).strip().splitlines() or ["?"])[0]
    current_app.logger.warning("database unavailable during %s %s: %s", request.method, request.path, first_line)
    try:
        db.session.rollback()
    except DBAPIError:
        pass  # the connection is gone; the session is removed at teardown anyway
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    if request.path.startswith("/api/"):
        return jsonify({"error": MESSAGE, "status": 503, "retry": True,
                        "retry_after": RETRY_AFTER_SECONDS}), 503, headers
    # Drawn without the app's context processors: Flask-Login's would load the user from the database that is not
    # there (the template reads nothing that they give).
    page = current_app.jinja_env.get_template("unavailable.html")
    return page.render(message=MESSAGE), 503, headers


def init_app(app: Flask) -> None:
    app.register_error_handler(DBAPIError, _database_unavailable)
