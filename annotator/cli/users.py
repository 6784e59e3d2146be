"""`flask users ...`: accounts and API tokens from the shell (the admin's Annotators page does the same)."""
from __future__ import annotations

import click
from flask.cli import AppGroup
from sqlalchemy import select

from annotator.actions import accounts
from annotator.core.audit import who
from annotator.core.extensions import db
from annotator.core.models import ROLES, User
from annotator.people.accounts import AccountError, generate_password
from annotator.people.login_counters import client_address, forget_failures

users_group = AppGroup("users", help="Manage accounts.")


def user_or_fail(name: str) -> User:
    user: User | None = db.session.scalar(select(User).where(User.username == name))
    if user is None:
        raise click.ClickException(f"there is no user {name!r}")
    return user


@users_group.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(ROLES), default="annotator", show_default=True)
@click.option("--password", help="Password to set (at least 8 characters, not a common one, not the name); "
              "a random one is generated and printed if omitted.")
@click.option("--token", is_flag=True, help="Also create an API token; it is printed as the last line.")
def add_user(name: str, role: str, password: str | None, token: bool) -> None:
    """Create the account NAME."""
    try:
        account = accounts.create_account(name, role, password, False, who())
    except AccountError as error:
        raise click.ClickException(str(error)) from None
    secret = accounts.issue_token(account.user, "", who()) if token else None
    click.echo(f"Created {role} {name!r}.")
    if password is None:
        click.echo(f"Password: {account.password}")
    if secret:
        click.echo("API token (shown once; only its hash is stored):")
        click.echo(secret)


@users_group.command("token")
@click.argument("name")
@click.option("--note", default="", help="What the token is for (shown on the admin's page).")
def add_token(name: str, note: str) -> None:
    """Create another API token for NAME; the token is the last line printed."""
    secret = accounts.issue_token(user_or_fail(name), note, who())
    click.echo("API token (shown once; only its hash is stored):")
    click.echo(secret)


@users_group.command("revoke-tokens")
@click.argument("name")
def revoke_tokens(name: str) -> None:
    """Revoke every API token of NAME."""
    count = accounts.revoke_tokens(user_or_fail(name), who())
    click.echo(f"Revoked {count} API token(s) of {name!r}.")


@users_group.command("deactivate")
@click.argument("name")
def deactivate(name: str) -> None:
    """Stop NAME from logging in and using the API; their open HITs go back to the pool."""
    ended = accounts.set_active(user_or_fail(name), False, who())
    click.echo(f"{name!r} is deactivated; {ended} open HIT(s) released.")


@users_group.command("activate")
@click.argument("name")
def activate(name: str) -> None:
    """Let a deactivated NAME log in again."""
    accounts.set_active(user_or_fail(name), True, who())
    click.echo(f"{name!r} is active.")


@users_group.command("password")
@click.argument("name")
@click.option("--password", help="The new password (at least 8 characters, not a common one, not the name); "
              "a random one is generated and printed if omitted.")
def set_password(name: str, password: str | None) -> None:
    """Set a new password for NAME (e.g. the admin account `make run` created)."""
    user = user_or_fail(name)
    chosen = password if password is not None else generate_password()
    try:
        revoked = accounts.set_password(user, chosen, who())
    except AccountError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"Password of {name!r} changed; its sessions ended"
               + (f" and {revoked} API token(s) revoked" if revoked else "")
               + "." + ("" if password is not None else f"\nPassword: {chosen}"))


@users_group.command("unlock")
@click.argument("name", required=False)
@click.option("--address", help="Also forget the failed logins from this client address (an IPv6 address: its /64).")
def unlock(name: str | None, address: str | None) -> None:
    """Forget the failed logins typed with NAME (from every address), and with --address those from that address:
    the login refusals they caused end at once (e.g. for an owner behind the same address as a guesser)."""
    if name is None and address is None:
        raise click.UsageError("give a user name, --address, or both")
    counted_as = client_address(address) if address is not None else None
    forgotten = forget_failures(name, counted_as)
    click.echo(f"Forgot {forgotten} failed login(s)"
               + (f" typed as {name!r}" if name is not None else "")
               + (" or" if name is not None and counted_as is not None else "")
               + (f" from {counted_as}" if counted_as is not None else "") + ".")
