"""`flask annotators --project SLUG [--json | --csv]`: each annotator's agreement, accuracy, volume and time.

The same table as the admin's annotators page of the project (annotator/quality/annotators.py).
"""
from __future__ import annotations

import json

import click
from flask.cli import with_appcontext

from annotator.cli.data import project_or_fail
from annotator.quality.annotators import annotator_table, table_csv


@click.command("annotators")
@with_appcontext
@click.option("--project", "slug", required=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of a table.")
@click.option("--csv", "as_csv", is_flag=True, help="CSV, as the admin page downloads it.")
def annotators_command(slug: str, as_json: bool, as_csv: bool) -> None:
    """Per annotator: mean Cohen's kappa with co-annotators, control accuracy, HITs, median time, quiz, blocked."""
    project = project_or_fail(slug)
    rows = annotator_table(project)
    if as_json:
        click.echo(json.dumps({"project": slug, "annotators": [r.to_dict() for r in rows]}, indent=2))
        return
    if as_csv:
        click.echo(table_csv(rows), nl=False)
        return
    def number(value: float | None, spec: str) -> str:
        return "-" if value is None else format(value, spec)
    click.echo(f"{'annotator':20} {'HITs':>6} {'median s':>9} {'controls':>8} {'accuracy':>8} {'kappa':>7} "
               f"{'pairs':>5}  state")
    for r in rows:
        state = f"blocked: {r.blocked}" if r.blocked else (f"quiz {r.quiz}" if r.quiz else "")
        click.echo(f"{r.username:20} {r.votes:6d} {number(r.median_seconds, '9.1f')} {r.control_answers:8d} "
                   f"{number(r.control_accuracy, '8.2f')} {number(r.kappa, '7.3f')} {r.kappa_pairs:5d}  {state}")
