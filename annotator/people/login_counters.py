"""Failed logins, counted in the database per (account, address) and per address (web/throttle.py asks).

Why these two keys and not the account alone: a limit per account lets anyone lock its owner out by failing
as them from anywhere. Per (account, address), a guesser is stopped at their address while the owner logs in
from theirs; per address, one address cannot try many names. Guessing one account from many addresses is
what the password policy is for (people/passwords.py refuses the passwords tried first).

Why the database: the app keeps no state in its processes, so every worker and host sees the same failures
and a restart forgets none, with nothing more to run (no Redis). Each failure is a row (LoginFailure) holding
keyed hashes of the name typed and of the address; a login counts the rows of its address within the longest
window: one indexed query on the login view only, never on other requests. Rows older than that window are
deleted whenever a failure is written, so they do not pile up under attack; the last ones stay (as hashes) until
the next failure.

Checking before the password and writing after a failure leaves a race: logins of one key being checked at the
same moment all pass, so a limit can be exceeded by at most one attempt per request served at that moment
(one per sync worker) before the next check refuses them all.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

from flask import current_app
from sqlalchemy import delete, or_, select
from sqlalchemy.exc import SQLAlchemyError

from annotator.core.audit import record
from annotator.core.database import write_transaction
from annotator.core.extensions import db
from annotator.core.models import LoginFailure, User, utcnow

if TYPE_CHECKING:
    from sqlalchemy.engine import CursorResult

UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
# "5 per minute", "20 per hour", "10/hour", "100 per 2 days" (the notation of Flask-Limiter, used before).
LIMIT = re.compile(r"^\s*(\d+)\s*(?:per|/)\s*(\d+)?\s*(second|minute|hour|day)s?\s*$", re.IGNORECASE)
IPV6_NETWORK = 64  # one IPv6 client holds a whole /64 (a home or a server gets one): it counts as one address
NAME_LENGTH = 80  # as many characters of a typed name as a user name may have (accounts.USERNAME)


@dataclass(frozen=True)
class Limit:
    """At most `count` failed logins within any `seconds`."""

    count: int
    seconds: int


@dataclass(frozen=True)
class LoginLimits:
    per_account_at_address: tuple[Limit, ...]
    per_address: tuple[Limit, ...]

    @property
    def longest(self) -> int:
        """The longest window in seconds: how long a failure is kept."""
        return max(limit.seconds for limit in (*self.per_account_at_address, *self.per_address))


def parse_limits(text: str, setting: str) -> tuple[Limit, ...]:
    """The limits of a setting such as "5 per minute;20 per hour" (";" or "," between them)."""
    limits = []
    for part in filter(str.strip, re.split(r"[;,]", text)):
        match = LIMIT.match(part)
        if not match or int(match[1]) < 1 or match[2] is not None and int(match[2]) < 1:
            raise ValueError(f"{setting}: {part.strip()!r} is not a limit; write e.g. '5 per minute;20 per hour'")
        limits.append(Limit(int(match[1]), int(match[2] or 1) * UNITS[match[3].lower()]))
    if not limits:
        raise ValueError(f"{setting} is empty; write e.g. '5 per minute;20 per hour'")
    return tuple(limits)


def login_limits(config: Mapping[str, Any]) -> LoginLimits:
    """The app's limits (config LOGIN_LIMIT_*); ValueError names a setting that cannot be read."""
    return LoginLimits(
        parse_limits(str(config["LOGIN_LIMIT_PER_ACCOUNT_AT_ADDRESS"]), "LOGIN_LIMIT_PER_ACCOUNT_AT_ADDRESS"),
        parse_limits(str(config["LOGIN_LIMIT_PER_ADDRESS"]), "LOGIN_LIMIT_PER_ADDRESS"))


def client_address(remote: str | None) -> str:
    """The address a client's failures count under: its IPv4 address, or its IPv6 address's /64 network.

    An IPv6 client can take any of the 2^64 addresses of its network, so counting single addresses would not
    stop it. An IPv4 address written as IPv6 (::ffff:a.b.c.d) is that IPv4 address.
    """
    try:
        address = ipaddress.ip_address((remote or "").strip())
    except ValueError:
        return (remote or "").strip() or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_NETWORK), strict=False))
    return str(address)


def _digest(kind: str, value: str) -> str:
    """A keyed hash (HMAC-SHA256 with SECRET_KEY): equal for equal values, naming nothing without the key."""
    secret = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(secret, f"login-{kind}:{value}".encode(), hashlib.sha256).hexdigest()


def account_key(name: str) -> str:
    """The key of a typed name: case and surrounding spaces ignored, so that variants of a name count together."""
    return _digest("account", name.strip().lower()[:NAME_LENGTH])


def address_key(address: str) -> str:
    return _digest("address", address)


def wait_seconds(name: str, address: str, limits: LoginLimits) -> int | None:
    """How long a login for `name` from `address` must wait (None: it may be tried now).

    `address` is client_address's. The rows of the address within the longest window are few (the limits
    bound them), so both counts are made here from one indexed query.
    """
    now = utcnow()
    rows = db.session.execute(select(LoginFailure.account, LoginFailure.at).where(
        LoginFailure.address == address_key(address), LoginFailure.at > now - timedelta(seconds=limits.longest))).all()
    account = account_key(name)
    waits = [*_waits([at for _, at in rows], limits.per_address, now),
             *_waits([at for key, at in rows if key == account], limits.per_account_at_address, now)]
    return max(waits) if waits else None


def _waits(times: Iterable[datetime], limits: tuple[Limit, ...], now: datetime) -> list[int]:
    """For each limit reached: the seconds until enough of its failures have left its window to allow one more."""
    ordered = sorted(times)
    waits = []
    for limit in limits:
        recent = [at for at in ordered if at > now - timedelta(seconds=limit.seconds)]
        if len(recent) >= limit.count:
            freed = recent[len(recent) - limit.count] + timedelta(seconds=limit.seconds)
            waits.append(max(1, math.ceil((freed - now).total_seconds())))
    return waits


def record_failure(name: str, address: str, limits: LoginLimits) -> None:
    """Count a failed login (committed), and forget the failures that no window holds any more."""
    with write_transaction():
        now = utcnow()
        db.session.execute(delete(LoginFailure).where(LoginFailure.at < now - timedelta(seconds=limits.longest))
                           .execution_options(synchronize_session=False))
        db.session.add(LoginFailure(account=account_key(name), address=address_key(address), at=now))


def forget_failures(name: str | None = None, address: str | None = None) -> int:
    """Delete the failed logins typed with `name` (from every address) and those from `address` (client_address's
    form), with an audit event, committed: the refusals they caused end at once (`flask users unlock`, for an owner
    behind the same address as a guesser, or who mistyped their way into a refusal). Returns how many went."""
    keys = ([LoginFailure.account == account_key(name)] if name is not None else []) + \
           ([LoginFailure.address == address_key(address)] if address is not None else [])
    if not keys:
        return 0
    with write_transaction():
        deleted = cast("CursorResult[Any]", db.session.execute(
            delete(LoginFailure).where(or_(*keys)).execution_options(synchronize_session=False))).rowcount or 0
        user_id = db.session.scalar(select(User.id).where(User.username == name)) if name is not None else None
        record("account.unlock", detail={"user_id": user_id, "address": address is not None, "failures": deleted})
    return deleted


def clear_login_counters(username: str) -> bool:
    """Forget the failed logins typed with this name (when the person is erased: the rows would link the name's
    hash to their addresses'). Committed; False if the database refused: they then go with the expired failures at
    a later failed login."""
    try:
        with write_transaction():
            db.session.execute(delete(LoginFailure).where(LoginFailure.account == account_key(username))
                               .execution_options(synchronize_session=False))
    except SQLAlchemyError:
        current_app.logger.warning("Failed logins of an erased account not deleted: the database refused")
        return False
    return True
