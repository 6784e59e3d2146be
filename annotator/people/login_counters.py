"""Clearing an account's failed-login counters (annotator/web/throttle.py) when the person is erased.

The per-account counters are keyed by the typed name ("account:<name>"), so they hold a former user name
until their windows pass (minutes to an hour, LOGIN_LIMIT_PER_ACCOUNT). They are cleared through the
limiter's own storage API, which memory:// and redis:// both offer; when the storage cannot be reached the
erasure goes on and reports it: those counters expire by themselves within the limit's longest window.
A memory:// store lives in the server's process: outside a request (a `flask` command) this process's store is
not the server's, so nothing is cleared and the erasure says so. The caller clears after its commit, so a
rolled-back erasure clears nothing and no write transaction waits for the store.
Per-address counters ("address:<ip>") name no account and are left to expire.
"""
from __future__ import annotations

from flask import current_app, has_app_context, has_request_context


def clear_login_counters(username: str) -> bool:
    """Whether the account's counters were cleared (False: no limiter, switched off, a memory store outside the
    server's requests, or its storage failed)."""
    if not has_app_context():
        return False
    limiter = current_app.extensions.get("annotator_limiter")
    if limiter is None or not limiter.enabled:
        return False
    if str(current_app.config.get("RATELIMIT_STORAGE_URI") or "memory://").startswith("memory://") \
            and not has_request_context():
        return False  # a command line's memory store is its own, not the server's
    from annotator.web.throttle import ENDPOINT, account_key
    identifiers = [account_key(username)]
    prefix = getattr(limiter, "_key_prefix", "")  # RATELIMIT_KEY_PREFIX: put before the key, as the limiter does
    try:
        with current_app.test_request_context(method="POST"):
            for limits in limiter.limit_manager.resolve_limits(current_app, ENDPOINT, "auth"):
                for limit in limits:
                    args = [*identifiers, limit.scope_for(ENDPOINT, "POST")]
                    limiter.limiter.clear(limit.limit, *([prefix, *args] if prefix else args))
    except Exception:  # noqa: BLE001 - any storage error: the counters expire by themselves
        current_app.logger.warning("Login counters of an erased account not cleared: the limiter's storage failed")
        return False
    return True
