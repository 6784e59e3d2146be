"""`flask import`, `flask export`, `flask agreement`: data in and out of projects.

The import and export groups are filled by one module per file format (cli/kpa2021.py, ...).
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Iterator

import click
from flask.cli import with_appcontext
from flask.cli import AppGroup
from sqlalchemy import select

from ..errors import FormatError
from ..extensions import db
from ..models import Project
from ..projects import refresh_statistics
from ..results import gold_frame, gold_summary, labels_frame, project_agreement, project_progress

import_group = AppGroup("import", help="Load a shared task's files into a project (all or nothing).")
export_group = AppGroup("export", help="Write a project's data and gold in a shared task's format.")


@contextmanager
def import_transaction() -> Iterator[None]:
    """All or nothing: commit what the block loaded, or roll back and say nothing was imported."""
    try:
        yield
        db.session.commit()
    except FormatError as error:
        db.session.rollback()
        raise click.ClickException(f"{error}\nNothing was imported.") from None
    refresh_statistics()


def project_or_fail(slug: str) -> Project:
    project = db.session.scalar(select(Project).where(Project.slug == slug))
    if project is None:
        raise click.ClickException(f"there is no project {slug!r}")
    return project


@click.command("agreement")
@with_appcontext
@click.option("--project", "slug", required=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of a table.")
def agreement_command(slug: str, as_json: bool) -> None:
    """Agreement (Fleiss' kappa, Krippendorff's alpha) and gold counts of a project."""
    project = project_or_fail(slug)
    labels = labels_frame(project)
    fields = project_agreement(project, labels)
    progress = project_progress(project)
    gold = gold_summary(project, gold_frame(project, labels))
    if as_json:
        click.echo(json.dumps({"project": slug, "votes": progress.votes, "items": progress.items,
                               "gold": gold.counts, "fields": [f.to_dict() for f in fields]}, indent=2))
        return
    click.echo(f"Project {slug}: {progress.votes} of {progress.votes_needed} votes, "
               f"{progress.complete} of {progress.items} items complete")
    click.echo("Gold: " + ", ".join(f"{n} {name}" for name, n in gold.counts.items()))
    for f in fields:
        click.echo(f"\n[{f.field}] {f.units} units, {f.coders} annotators, {f.ratings} ratings, "
                   f"categories {', '.join(f.categories) or '-'}")
        click.echo(f"  Fleiss' kappa        {f.fleiss_kappa.text()}  ({f.fleiss_kappa.units} units)")
        click.echo(f"  Krippendorff's alpha {f.krippendorff_alpha.text()}  ({f.krippendorff_alpha.units} units)")
        for left in f.left_out:
            click.echo(f"  left out: {left['units']} units {left['why']}")
