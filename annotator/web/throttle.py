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
from functools import partial, wraps
from typing import TYPE_CHECKING, Any, TypeVar, cast

from flask import Flask, Response, current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

if TYPE_CHECKING:
    from flask.typing import ResponseReturnValue

T = TypeVar("T")
ENDPOINT = "auth.login"  # the view whose failed logins are limited
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
    """Limit failed logins on the login view (ENDPOINT); the limits are read from the config at each request."""
    limiter = Limiter(key_func=get_remote_address, app=app)
    login = cast("Callable[..., ResponseReturnValue]", app.view_functions[ENDPOINT])  # a sync view
    per_account = limiter.limit(lambda: current_app.config["LOGIN_LIMIT_PER_ACCOUNT"], key_func=_account,
                                methods=["POST"], deduct_when=_failed, error_message=MESSAGE)
    per_address = limiter.limit(lambda: current_app.config["LOGIN_LIMIT_PER_ADDRESS"], key_func=_address,
                                methods=["POST"], deduct_when=_failed, error_message=MESSAGE)
    app.view_functions[ENDPOINT] = per_address(per_account(login))
    # The decorated view checks its own limits. The Limiter's app-wide before_request hook is only for
    # default and application limits, which we do not have, and it cost every request, API calls
    # included, about 5 % of a next+submit pair's CPU. Its after_request hook (which counts a failed
    # login, `deduct_when`) and its teardown have work only where a limit was checked: the login.
    app.before_request_funcs[None] = [f for f in app.before_request_funcs.get(None, []) if not _of(limiter, f)]
    app.after_request_funcs[None] = [_on_login_only(f) if _of(limiter, f) else f
                                     for f in app.after_request_funcs.get(None, [])]
    app.teardown_request_funcs[None] = [_on_login_only(f) if _of(limiter, f) else f
                                        for f in app.teardown_request_funcs.get(None, [])]
    app.extensions["annotator_limiter"] = limiter
    return limiter


def _of(limiter: Limiter, hook: Callable[..., Any]) -> bool:
    """Whether an app hook is the limiter's: a bound method of it, or a partial of a method with it."""
    return getattr(hook, "__self__", None) is limiter or (isinstance(hook, partial) and hook.args[:1] == (limiter,))


def _on_login_only(hook: Callable[[T], Any]) -> Callable[[T], Any]:
    """The hook, run for the login view only; any other request passes its argument through."""
    @wraps(hook)
    def on_login(argument: T) -> Any:
        return hook(argument) if request.endpoint == ENDPOINT else argument
    return on_login
