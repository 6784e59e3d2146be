"""`flask import kpa2021` and `flask export kpa2021`: KPA-2021 / ArgKP files."""
from __future__ import annotations

from pathlib import Path

import click
from flask import current_app

from ..exchange import kpa2021
from .data import export_group, import_group, import_transaction, project_or_fail


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
    with import_transaction():
        project, count = kpa2021.import_files(directory, split=split, project=slug, k=k,
                                              lease_minutes=lease_minutes, name=name)
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
