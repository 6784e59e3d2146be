"""Command-line interface: `flask --app annotator <command>` (click groups, one module per concern)."""
from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    from .check import check_command
    from .data import agreement_command, export_group, import_group
    from .demo import demo_command
    from .rank import rank_command
    from .score import score_group
    from .users import users_group
    for command in (users_group, import_group, export_group, agreement_command, demo_command, score_group,
                    check_command, rank_command):
        app.cli.add_command(command)
