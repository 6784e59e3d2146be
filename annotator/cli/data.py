"""`flask import`, `flask export`, `flask agreement`: data in and out of projects."""
from __future__ import annotations

import json
from pathlib import Path

import click
from flask import current_app
from flask.cli import AppGroup
from sqlalchemy import select

from ..errors import FormatError
from ..exchange import kpa2021
from ..extensions import db
from ..models import Project
from ..results import gold_summary, labels_frame, project_agreement, project_progress

import_group = AppGroup("import", help="Load a shared task's files into a project (all or nothing).")
export_group = AppGroup("export", help="Write a project's data and gold in a shared task's format.")


def project_or_fail(slug: str) -> Project:
    project = db.session.scalar(select(Project).where(Project.slug == slug))
    if project is None:
        raise click.ClickException(f"there is no project {slug!r}")
    return project


@import_group.command("kpa2021")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--split", default="dev", show_default=True, help="Reads arguments_<split>.csv etc.")
@click.option("--project", "slug", required=True, help="Project slug; created if it does not exist.")
@click.option("--k", type=click.IntRange(1), help="Annotators per item (default 8 for a new project).")
@click.option("--lease-minutes", type=click.IntRange(1), help="Lease time (default 30 for a new project).")
@click.option("--name", help="Project name for a new project.")
def import_kpa2021(directory: Path, split: str, slug: str, k: int | None, lease_minutes: int | None,
                   name: str | None) -> None:
    """Import a KPA-2021 split from DIRECTORY: one HIT per argument."""
    try:
        project, count = kpa2021.import_files(directory, split=split, project=slug, k=k,
                                              lease_minutes=lease_minutes, name=name)
        db.session.commit()
    except FormatError as error:
        db.session.rollback()
        raise click.ClickException(f"{error}\nNothing was imported.") from None
    click.echo(f"Imported {count} arguments into project {project.slug!r} (k={project.k}).")


@export_group.command("kpa2021")
@click.option("--project", "slug", required=True)
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: exports/<project>).")
def export_kpa2021(slug: str, out_dir: Path | None) -> None:
    """Write arguments, key points, gold labels and votes.csv of a key-point-match project."""
    project = project_or_fail(slug)
    out_dir = out_dir or Path(current_app.config["EXPORT_DIR"]) / slug
    for path in kpa2021.export_files(project, out_dir):
        click.echo(path)


@click.command("agreement")
@click.option("--project", "slug", required=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of a table.")
def agreement_command(slug: str, as_json: bool) -> None:
    """Agreement (Fleiss' kappa, Krippendorff's alpha) and gold counts of a project."""
    project = project_or_fail(slug)
    labels = labels_frame(project)
    fields = project_agreement(project, labels)
    progress = project_progress(project)
    gold = gold_summary(project)
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
