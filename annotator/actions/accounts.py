"""Accounts and API tokens, by an admin on the Annotators pages or `flask users`.

The rules (the password policy, names, one-time passwords, what deactivating ends) are people/accounts.py, whose
functions record their own events (the demo's loader calls them inside its import); these actions give each the
transaction and, where the page and the command did more than call them, that more in one place. No account
change alters what the votes give, so no kept figure goes stale.
"""
from __future__ import annotations

from sqlalchemy import select

from annotator.actions.base import action
from annotator.core.audit import Actor, record
from annotator.core.extensions import db
from annotator.core.models import ApiToken, User
from annotator.people import accounts
from annotator.people.accounts import AccountError, NewAccount


@action("account.create")
def create_account(name: str, role: str, password: str | None, one_time: bool, by: Actor) -> NewAccount:
    """An account with the chosen password, or a generated one (`one_time`: its owner chooses another at the first
    login). AccountError for a name or a password that is refused."""
    return accounts.create_user(name, role, password, one_time=one_time)


@action("account.create")
def create_accounts(names: list[str], by: Actor) -> list[NewAccount]:
    """One annotator account per line of `names`, each with a one-time password, all or none (AccountsRefused
    lists every problem with its line)."""
    return accounts.create_many(names)


@action("account.token")
def issue_token(user: User, note: str, by: Actor) -> str:
    """A new API token for the account, shown this once (only its hash is stored)."""
    return accounts.issue_token(user, note)


@action("account.activate", "account.deactivate")
def set_active(user: User, active: bool, by: Actor) -> int:
    """Let the account log in, or stop it (its open HITs go back to the pool); how many open HITs were released.
    AccountError when an admin would deactivate their own account (nobody could undo it from the pages)."""
    if not active and by[0] is not None and by[0] == user.id:
        raise AccountError("you cannot deactivate your own account")
    return accounts.set_active(user, active)


@action("account.password")
def reset_password(user: User, by: Actor) -> str:
    """A generated one-time password (the owner chooses their own at the next login); sessions and tokens end."""
    return accounts.reset_password(user)


@action("account.password")
def set_password(user: User, password: str, by: Actor) -> int:
    """Set the chosen password (not one-time); sessions end and tokens are revoked: how many. AccountError for a
    password the policy refuses."""
    revoked = accounts.change_password(user, password)
    user.must_change_password = False
    record("account.password", detail={"user_id": user.id}, actor=by)
    return revoked


@action("account.revoke_tokens")
def revoke_token(user: User, token_id: int, by: Actor) -> None:
    """Revoke one token of the account: requests with it are refused from now on. AccountError when the account
    has no such token."""
    token = db.session.get(ApiToken, token_id)
    if token is None or token.user_id != user.id:
        raise AccountError(f"account {user.username!r} has no token {token_id}")
    db.session.delete(token)
    record("account.revoke_tokens", detail={"user_id": user.id, "tokens": 1}, actor=by)


@action("account.revoke_tokens")
def revoke_tokens(user: User, by: Actor) -> int:
    """Revoke every token of the account; how many."""
    tokens = db.session.scalars(select(ApiToken).where(ApiToken.user_id == user.id)).all()
    for token in tokens:
        db.session.delete(token)
    record("account.revoke_tokens", detail={"user_id": user.id, "tokens": len(tokens)}, actor=by)
    return len(tokens)
