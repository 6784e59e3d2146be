"""Login throttling: failed logins per account and per client address are limited (Flask-Limiter).

Only failed attempts count (a 401 answer), so someone who types their password right is never slowed
down, while guessing is: past the limit every login POST for that account, or from that address,
gets 429 until the window passes, even with the right password. The counters live in
`RATELIMIT_STORAGE_URI`: `memory://` (one process) by default; give several workers or hosts one
shared store (e.g. `redis://127.0.0.1:6379`) so that they count together.

One Limiter per app (not a module-level one): Flask-Limiter keeps its storage and switches on the
instance, and tests build many apps with different settings in one process.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from flask import Flask, Response, current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

if TYPE_CHECKING:
    from flask.typing import ResponseReturnValue

MESSAGE = "Too many failed logins: wait a few minutes, then try again."


def _account() -> str:
    """The account a login POST is for, as typed (case and spaces ignored, so variants count together)."""
    return account_key(request.form.get("username") or "")


def account_key(username: str) -> str:
    """The per-account counters' key for a name (people/login_counters.py clears it when the person is erased)."""
    return "account:" + username.strip().lower()[:80]


def _address() -> str:
    return "address:" + (get_remote_address() or "")


def _failed(response: Response) -> bool:
    return response.status_code == 401


def init_throttle(app: Flask) -> Limiter:
    """Limit failed logins on `auth.login`; the limits are read from the config at each request."""
    limiter = Limiter(key_func=get_remote_address, app=app)
    login = cast("Callable[..., ResponseReturnValue]", app.view_functions["auth.login"])  # a sync view
    per_account = limiter.limit(lambda: current_app.config["LOGIN_LIMIT_PER_ACCOUNT"], key_func=_account,
                                methods=["POST"], deduct_when=_failed, error_message=MESSAGE)
    per_address = limiter.limit(lambda: current_app.config["LOGIN_LIMIT_PER_ADDRESS"], key_func=_address,
                                methods=["POST"], deduct_when=_failed, error_message=MESSAGE)
    app.view_functions["auth.login"] = per_address(per_account(login))
    # The decorated view checks its own limits. The Limiter's app-wide before_request hook is only for
    # default and application limits, which we do not have, and it cost every request, API calls
    # included, about 5 % of a next+submit pair's CPU.
    app.before_request_funcs[None] = [f for f in app.before_request_funcs.get(None, [])
                                      if getattr(f, "__self__", None) is not limiter]
    app.extensions["annotator_limiter"] = limiter
    return limiter
