"""`flask premise-stage --from STANCE --project SLUG`: RuArg-2022's second annotation stage as a project.

The premise stage's items are made from the stance stage's gold, not from a file, so this is a command
of its own beside `import`; like an import it is all or nothing (stages.create_premise_stage, the action which
the stance project's admin page calls too, stage_page.py; the command line's OS user acting). The shared task
declares it (its SharedTask's `commands`, in __init__.py), so the shared command-line code names no shared task.
"""
from __future__ import annotations

import click
from flask.cli import with_appcontext

from annotator.campaigns.import_refused import ImportRefused
from annotator.core.audit import who
from annotator.shared_tasks.ruarg2022.stages import create_premise_stage


@click.command("premise-stage")
@with_appcontext
@click.option("--from", "stance_slug", required=True, help="Slug of the stance-stage project (setting stage=stance).")
@click.option("--project", "slug", required=True, help="Slug of the premise-stage project; created if new.")
@click.option("--name", help="Project name for a new project.")
@click.option("--k", type=click.IntRange(1), help="Annotators per sentence (default 3 for a new project).")
@click.option("--lease-minutes", type=click.IntRange(1), help="Lease time (default 30 for a new project).")
@click.option("--agree", type=click.IntRange(1, 100),
              help="A premise needs the same code from at least this many annotators (default 2).")
def premise_stage_command(stance_slug: str, slug: str, name: str | None, k: int | None, lease_minutes: int | None,
                          agree: int | None) -> None:
    """Create or extend the premise stage: the stance stage's decided sentences relevant to a claim, each
    asking the premise of those claims; from a declared stance stage, a declared project of premise.yaml. Run it
    again to add the sentences decided since. All or nothing."""
    try:
        result = create_premise_stage(stance_slug, slug, name=name, k=k, lease_minutes=lease_minutes, agree=agree,
                                      by=who())
    except ImportRefused as error:
        raise click.ClickException(str(error)) from None
    click.echo(result.summary(stance_slug))
