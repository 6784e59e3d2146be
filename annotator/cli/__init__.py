"""Command-line interface: `flask --app annotator <command>` (click groups, one module per concern)."""
from __future__ import annotations

import click
from flask import Flask


def init_app(app: Flask) -> None:
    from annotator.cli.aggregate import aggregate_command
    from annotator.cli.annotators import annotators_command
    from annotator.cli.check import check_command
    from annotator.cli.controls import controls_group
    from annotator.cli.crowd import crowd_link_command, mturk_question_command
    from annotator.cli.crowd_filters import crowd_filters_command, mturk_hit_command
    from annotator.cli.dashboard import dashboard_command
    from annotator.cli.data import agreement_command, export_group, import_group
    from annotator.cli.demo import demo_command
    from annotator.cli.kept import refresh_figures_command
    from annotator.cli.lifecycle import backup_command, project_group, restore_command
    from annotator.cli.people_data import erase_command, purge_command, scrub_files_command
    from annotator.cli.rank import rank_command
    from annotator.cli.replay import replay_command
    from annotator.cli.score import score_group
    from annotator.cli.stats import stats_command
    from annotator.cli.users import users_group
    for command in (users_group, import_group, export_group, agreement_command, demo_command, score_group,
                    check_command, rank_command, annotators_command, aggregate_command, dashboard_command,
                    crowd_link_command, mturk_question_command, crowd_filters_command, mturk_hit_command,
                    stats_command, controls_group, refresh_figures_command, backup_command, restore_command,
                    project_group, erase_command, purge_command,
                    scrub_files_command, replay_command):
        app.cli.add_command(command)
    from annotator.plugins.registry import SHARED_TASKS
    for task in SHARED_TASKS.values():  # a shared task's own commands (e.g. a second annotation stage)
        for command in task.load(task.commands, click.Command, "command"):
            app.cli.add_command(command)
