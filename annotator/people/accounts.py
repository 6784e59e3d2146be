"""Accounts and API tokens: what `flask users` and the admin's annotator pages both do.

A chosen password must pass the password policy (people/passwords.py), whoever chooses it and wherever;
passwords an admin does not choose are generated, shown once, and (for accounts made from the
browser) one-time: the first login asks for a new one. Tokens are random and stored as their
SHA-256 only (models.token_digest), so they too are shown once. A password change (by the user or
an admin's reset) ends the account's sessions and revokes its tokens. Deactivating an account ends its
open leases, so the items it held are offered to others at once instead of when the lease expires.
"""
from __future__ import annotations

import functools
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import delete, select, update
from werkzeug.security import check_password_hash, generate_password_hash

from annotator.core.audit import record
from annotator.core.extensions import db
from annotator.core.models import EXPIRED, LEASED, ROLES, ApiToken, Assignment, User, password_hash_method, token_digest
from annotator.people.passwords import password_problem

if TYPE_CHECKING:
    from sqlalchemy.engine import CursorResult

USERNAME = re.compile(r"^[A-Za-z0-9_.@-]{1,80}$")


class AccountError(ValueError):
    """An account operation that was refused; the message says why."""


class AccountsRefused(AccountError):
    """A list of accounts refused: every problem, each naming its line."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class NewAccount:
    user: User
    password: str  # as chosen or generated; shown once


@functools.cache
def _dummy_hash(method: str) -> str:
    """A hash of nothing anyone types, made like real ones (same method and cost)."""
    return generate_password_hash(secrets.token_urlsafe(16), method=method)


def authenticate(name: str, password: str) -> User | None:
    """The active account with this name and password, or None.

    An unknown name costs one password hash check too, so the answer's time does not tell whether
    the account exists: a hash check is most of a login's time, and without it an unknown name was
    answered many times faster than a known one (bench/results/2026-11-25-figures-from-docstrings.md).
    """
    user: User | None = db.session.scalar(select(User).where(User.username == name))
    if user is None or not user.password_hash:
        check_password_hash(_dummy_hash(password_hash_method()), password)
        return None
    if not user.check_password(password) or not user.active:
        return None
    return user


def generate_password() -> str:
    return secrets.token_urlsafe(12)


def check_password_choice(password: str, username: str) -> str:
    """The password, if the policy lets the account `username` have it; AccountError says why not."""
    problem = password_problem(password, username)
    if problem:
        raise AccountError(f"password of {username[:80]!r} refused: {problem}")
    return password


ERASED_PREFIX = "erased-"  # the pseudonyms of erased accounts (people/erasure.py): no new account takes one


def check_username(name: str) -> str:
    if not USERNAME.match(name):
        raise AccountError(f"{name[:80]!r} is not a user name: 1 to 80 letters, digits and _ . @ - only")
    if name.lower().startswith(ERASED_PREFIX):
        raise AccountError(f"{name[:80]!r}: names beginning with {ERASED_PREFIX!r} are the pseudonyms of erased "
                           "accounts")
    return name


def create_user(name: str, role: str = "annotator", password: str | None = None,
                one_time: bool = False) -> NewAccount:
    """Add an account to the session (the caller commits); its password is generated when none is given."""
    check_username(name)
    if role not in ROLES:
        raise AccountError(f"role {role!r} is not one of {', '.join(ROLES)}")
    if db.session.scalar(select(User.id).where(User.username == name)) is not None:
        raise AccountError(f"there is already a user {name!r}")
    password = check_password_choice(password, name) if password is not None else generate_password()
    user = User(username=name, role=role, must_change_password=one_time)
    user.set_password(password)
    db.session.add(user)
    db.session.flush()  # its id, for the audit event
    record("account.create", detail={"user_id": user.id, "role": role})
    return NewAccount(user, password)


def create_many(names: list[str], role: str = "annotator") -> list[NewAccount]:
    """One account per name with a one-time password, all or none; AccountError lists every problem, each with
    its line of `names` (blank lines count: they are the lines the admin pasted)."""
    lines = {number: name.strip() for number, name in enumerate(names, 1) if name.strip()}
    wanted = list(lines.values())
    problems = []
    for number, name in lines.items():
        try:
            check_username(name)
        except AccountError as error:
            problems.append(f"line {number}: {error}")
    for name in sorted({n for n in wanted if wanted.count(n) > 1}):
        numbers = [str(number) for number, given in lines.items() if given == name]
        problems.append(f"lines {', '.join(numbers)}: {name!r} is listed twice")
    taken = set(db.session.scalars(select(User.username).where(User.username.in_(wanted))).all())
    problems += [f"line {number}: there is already a user {name!r}" for number, name in lines.items() if name in taken]
    if not wanted:
        problems.append("no user name was given")
    if problems:
        raise AccountsRefused(problems)
    return [create_user(name, role, one_time=True) for name in wanted]


def issue_token(user: User, note: str = "") -> str:
    """A new API token for the user; only its SHA-256 is stored, so it is shown this once."""
    token = secrets.token_urlsafe(32)
    db.session.add(ApiToken(user=user, digest=token_digest(token), note=note))
    db.session.flush()  # the account's id, for the audit event, when it is new
    record("account.token", detail={"user_id": user.id})
    return token


def set_active(user: User, active: bool) -> int:
    """Activate or deactivate; deactivating ends the user's open leases. Returns the leases ended."""
    user.active = active
    record("account.activate" if active else "account.deactivate", detail={"user_id": user.id})
    if active:
        return 0
    statement = (update(Assignment).where(Assignment.user_id == user.id, Assignment.status == LEASED)
                 .values(status=EXPIRED).execution_options(synchronize_session=False))
    # An UPDATE's result is a CursorResult (Session.execute is typed for every kind of statement).
    ended = cast("CursorResult[Any]", db.session.execute(statement))
    return ended.rowcount or 0


def change_password(user: User, password: str) -> int:
    """Set a new password; every session, remember-me cookie and API token of the account stops working.

    A password is changed when it may be known to someone else, and whoever knew it may have logged
    in or been given a token meanwhile. Returns the number of tokens revoked (the caller commits); a password
    the policy refuses raises AccountError and changes nothing.
    """
    user.set_password(check_password_choice(password, user.username))
    user.end_sessions()
    statement = delete(ApiToken).where(ApiToken.user_id == user.id).execution_options(synchronize_session=False)
    revoked = cast("CursorResult[Any]", db.session.execute(statement))  # a DELETE's result: see set_active
    return revoked.rowcount or 0


def reset_password(user: User) -> str:
    """A new one-time password for the user (they choose their own at the next login)."""
    password = generate_password()
    change_password(user, password)
    user.must_change_password = True
    record("account.password", detail={"user_id": user.id})
    return password
