"""Login throttling: failed logins per (account, address) and per address are limited (people/login_counters.py).

Only failed attempts count (a 401 answer), so someone who types their password right is never slowed down,
while guessing is: past a limit every login POST for that account from that address, or from that address for
any account, gets 429 until the window passes, even with the right password. The owner of an account at
another address is never refused for someone else's failures.

The client's address is `request.remote_addr`: the connection's peer, or with ANNOTATOR_PROXIES=N the address
werkzeug's ProxyFix takes from X-Forwarded-For (create_app). Behind a proxy without that setting every client
has the proxy's address, so one guesser would lock everyone out: a refusal of a request that carries
X-Forwarded-For then warns in the log.

The check wraps the login view alone: no other request pays anything for it.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from functools import wraps
from typing import Any, cast

from flask import Flask, Response, current_app, render_template, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import TooManyRequests

from annotator.people.login_counters import client_address, login_limits, record_failure, wait_seconds

ENDPOINT = "auth.login"  # the view whose failed logins are limited


def init_throttle(app: Flask) -> None:
    """Limit failed logins on the login view (ENDPOINT); the limits are read from the config at each login, and
    checked here first, so that an app with a limit it cannot read does not start."""
    login_limits(app.config)
    login = cast("Callable[..., ResponseReturnValue]", app.view_functions[ENDPOINT])  # a sync view
    app.view_functions[ENDPOINT] = throttled(login)


def throttled(view: Callable[..., ResponseReturnValue]) -> Callable[..., ResponseReturnValue]:
    """The login view, refusing a POST from a client past a limit and counting a POST that failed (401)."""
    @wraps(view)
    def login(**kwargs: Any) -> ResponseReturnValue:
        if request.method != "POST" or not current_app.config["LOGIN_THROTTLE_ENABLED"]:
            return view(**kwargs)
        limits = login_limits(current_app.config)
        name = request.form.get("username") or ""
        address = client_address(request.remote_addr)
        wait = wait_seconds(name, address, limits)
        if wait is not None:
            _warn_of_an_unset_proxy(address)
            return refusal(wait)
        response = current_app.make_response(view(**kwargs))
        if response.status_code == 401:
            record_failure(name, address, limits)
        return response
    return login


def refusal(wait: int) -> Response:
    """429 with how long to wait, in words and in Retry-After."""
    minutes = math.ceil(wait / 60)
    when = f"{wait} seconds" if wait < 60 else f"{minutes} minute{'s' if minutes > 1 else ''}"
    error = TooManyRequests(f"Too many failed logins from here: wait {when}, then try again.")
    response = current_app.make_response((render_template("error.html", error=error), 429))
    response.headers["Retry-After"] = str(wait)
    return response


def _warn_of_an_unset_proxy(address: str) -> None:
    if not current_app.config.get("PROXIES") and "X-Forwarded-For" in request.headers:
        current_app.logger.warning(
            "Logins from %s refused after too many failures, and the request came through a proxy "
            "(X-Forwarded-For): without ANNOTATOR_PROXIES every client behind it counts as that one address", address)
