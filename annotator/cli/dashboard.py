"""`flask dashboard --project SLUG --json`: the figures of the admin's dashboard page."""
from __future__ import annotations

import json

import click
from flask.cli import with_appcontext

from annotator.analysis.dashboard import dashboard_figures
from annotator.cli.data import project_or_fail


@click.command("dashboard")
@with_appcontext
@click.option("--project", "slug", required=True)
@click.option("--json", "as_json", is_flag=True, help="Every figure as one JSON object (the default is a summary).")
def dashboard_command(slug: str, as_json: bool) -> None:
    """Progress over time, votes, kappa and time per annotator, agreement and label distributions."""
    figures = dashboard_figures(project_or_fail(slug))
    if as_json:
        click.echo(json.dumps(figures, indent=2))
        return
    points = figures["progress"]["points"]
    click.echo(f"Project {slug}: {points[-1]['cumulative'] if points else 0} votes"
               + (f", from {points[0]['time']} to {points[-1]['time']} UTC" if points else ""))
    for row in figures["votes_per_annotator"]:
        click.echo(f"  {row['annotator']}: {row['votes']} votes")
    median = figures["time_per_hit"]["median"]
    click.echo(f"Median time per HIT: {'-' if median is None else f'{median:.0f} s'}")
    click.echo("Use --json for every figure.")
