"""`flask import emphasis2020` and `flask export emphasis2020`: SemEval-2020 Task 10 token files."""
from __future__ import annotations

import time
from pathlib import Path

import click
from flask import current_app
from sqlalchemy import func, select

from ..errors import LocatedError
from ..exchange import emphasis2020
from ..extensions import db
from ..models import Item
from ..results import project_progress
from ..scoring.emphasis2020 import read_sentences
from .data import export_group, import_group, import_transaction, project_or_fail


@import_group.command("emphasis2020")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--project", "slug", required=True, help="Project slug; created if it does not exist.")
@click.option("--with-votes", is_flag=True,
              help="Also import the annotated layout's B/I/O columns as votes of imported annotators.")
@click.option("--k", type=click.IntRange(1), help="Annotators per item (default 9 for a new project).")
@click.option("--lease-minutes", type=click.IntRange(1), help="Lease time (default 30 for a new project).")
@click.option("--name", help="Project name for a new project.")
def import_emphasis2020(file: Path, slug: str, with_votes: bool, k: int | None, lease_minutes: int | None,
                        name: str | None) -> None:
    """Import FILE (annotated 7-field or words-only 3-field layout): one HIT per sentence."""
    started = time.perf_counter()
    with import_transaction():
        project, count = emphasis2020.import_files(file, project=slug, with_votes=with_votes, k=k,
                                                   lease_minutes=lease_minutes, name=name)
    message = f"Imported {count} sentences into project {project.slug!r} (k={project.k})"
    if with_votes:
        message += f" with {project_progress(project).votes} votes of imported annotators"
    click.echo(f"{message} in {time.perf_counter() - started:.1f} s.")


@export_group.command("emphasis2020")
@click.option("--project", "slug", required=True)
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: exports/<project>).")
@click.option("--scores", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A file in the submission layout (word_id, word, score) whose scores the submission file "
                   "takes, in the project's order; default: the gold probabilities.")
def export_emphasis2020(slug: str, out_dir: Path | None, scores: Path | None) -> None:
    """Write the annotated file (gold from the votes), the words-only file and a submission file."""
    project = project_or_fail(slug)
    out_dir = out_dir or Path(current_app.config["EXPORT_DIR"]) / slug
    try:
        given = None if scores is None else {
            word_id: value for s in read_sentences(scores, gold=False) for word_id, value in zip(s.ids, s.values)}
        paths = emphasis2020.export_files(project, out_dir, scores=given)
    except LocatedError as error:
        raise click.ClickException(str(error)) from None
    for path in paths:
        click.echo(path)
    progress = project_progress(project)
    unvoted = db.session.scalar(select(func.count()).where(Item.project_id == project.id, Item.done_count == 0))
    if unvoted:
        click.echo(f"Note: {unvoted} of {progress.items} sentences have no vote yet and are not in the "
                   "annotated file.", err=True)
    partial = progress.items - unvoted - progress.complete
    if partial:
        click.echo(f"Note: {partial} {'sentence has' if partial == 1 else 'sentences have'} fewer than "
                   f"k = {project.k} votes; their probabilities use the votes they have.", err=True)
