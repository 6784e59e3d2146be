"""`flask rank --project SLUG`: what a project's format ranks (e.g. systems), as tables or JSON."""
from __future__ import annotations

import json
from pathlib import Path

import click
from flask.cli import with_appcontext

from annotator.cli.data import project_or_fail
from annotator.core.errors import LocatedError
from annotator.lookups.formats import project_format


@click.command("rank")
@with_appcontext
@click.option("--project", "slug", required=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of tables.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Also write each table as CSV and the report as report.json here.")
def rank_command(slug: str, as_json: bool, out_dir: Path | None) -> None:
    """Rank what the project's files compare (e.g. generation systems by their judgments)."""
    project = project_or_fail(slug)
    try:
        fmt = project_format(project)
    except LocatedError as error:
        raise click.ClickException(str(error)) from None
    if fmt.rank is None or not fmt.ranks(project):
        raise click.ClickException(f"{fmt.title} projects rank nothing" if fmt.rank is None else
                                   f"project {slug!r} has nothing to rank (a best-worst question's scores are ranked)")
    report = fmt.rank(project)
    if out_dir:
        for path in report.write(out_dir):
            click.echo(path, err=True)
    click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False) if as_json else report.to_text(), nl=as_json)
