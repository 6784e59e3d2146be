"""`flask users add`: accounts and API tokens from the shell."""
from __future__ import annotations

import secrets

import click
from flask.cli import AppGroup
from sqlalchemy import select

from ..extensions import db
from ..models import ROLES, ApiToken, User, token_digest

users_group = AppGroup("users", help="Manage accounts.")


def create_user(name: str, role: str, password: str | None) -> tuple[User, str]:
    """Create an account; returns it with its password (generated when none is given)."""
    if db.session.scalar(select(User).where(User.username == name)) is not None:
        raise click.ClickException(f"there is already a user {name!r}")
    password = password or secrets.token_urlsafe(12)
    user = User(username=name, role=role)
    user.set_password(password)
    db.session.add(user)
    return user, password


def issue_token(user: User) -> str:
    """A new API token for the user; only its SHA-256 is stored, so it is shown this once."""
    token = secrets.token_urlsafe(32)
    db.session.add(ApiToken(user=user, digest=token_digest(token)))
    return token


@users_group.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(ROLES), default="annotator", show_default=True)
@click.option("--password", help="Password to set; a random one is generated and printed if omitted.")
@click.option("--token", is_flag=True, help="Also create an API token; it is printed as the last line.")
def add_user(name: str, role: str, password: str | None, token: bool) -> None:
    """Create the account NAME."""
    user, chosen = create_user(name, role, password)
    secret = issue_token(user) if token else None
    db.session.commit()
    click.echo(f"Created {role} {name!r}.")
    if password is None:
        click.echo(f"Password: {chosen}")
    if secret:
        click.echo("API token (shown once; only its hash is stored):")
        click.echo(secret)


@users_group.command("token")
@click.argument("name")
def add_token(name: str) -> None:
    """Create another API token for NAME; the token is the last line printed."""
    user = db.session.scalar(select(User).where(User.username == name))
    if user is None:
        raise click.ClickException(f"there is no user {name!r}")
    secret = issue_token(user)
    db.session.commit()
    click.echo("API token (shown once; only its hash is stored):")
    click.echo(secret)


@users_group.command("password")
@click.argument("name")
@click.option("--password", help="The new password; a random one is generated and printed if omitted.")
def set_password(name: str, password: str | None) -> None:
    """Set a new password for NAME (e.g. the admin account `make run` created)."""
    user = db.session.scalar(select(User).where(User.username == name))
    if user is None:
        raise click.ClickException(f"there is no user {name!r}")
    chosen = password or secrets.token_urlsafe(12)
    user.set_password(chosen)
    db.session.commit()
    click.echo(f"Password of {name!r} changed." + ("" if password else f"\nPassword: {chosen}"))
