"""Schema migrations (Flask-Migrate, Alembic), bound to an app only when they are used.

Flask-Migrate imports Alembic, which every server worker would carry without ever migrating anything
(issue 12: a worker must stay under 120 MB; what Alembic weighs is in
bench/results/2026-11-25-figures-from-docstrings.md). So `create_app` registers a stand-in `db` command group; the first
time the `flask db ...` CLI resolves it (`flask --app annotator db upgrade`, `flask db --help`), it binds Flask-Migrate
to the app, which replaces the stand-in by its own `db` group, and hands the command line to that group: options,
subcommands and help are Flask-Migrate's own. Code that migrates without the CLI (the tests) calls
`init_migrations(app)` and then `flask_migrate.upgrade()` as usual.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from flask import Flask

from annotator.core.extensions import db

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


def init_migrations(app: Flask) -> None:
    """Bind Flask-Migrate to `app` (once): `app.extensions["migrate"]` and the real `flask db` group."""
    if "migrate" in app.extensions:
        return
    from flask_migrate import Migrate  # here, not at start: see the module's docstring
    Migrate(app, db, directory=str(MIGRATIONS), render_as_batch=True)


class LazyMigrateGroup(click.Group):
    """The `db` group until it is used: building its context builds Flask-Migrate's group's instead."""

    def __init__(self, app: Flask) -> None:
        super().__init__("db", help="Perform database migrations.")
        self.app = app

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        init_migrations(self.app)
        real = self.app.cli.commands["db"]
        return real.make_context(info_name, args, parent=parent, **extra)


def init_app(app: Flask) -> None:
    app.cli.add_command(LazyMigrateGroup(app))
