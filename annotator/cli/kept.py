"""`flask refresh-figures --project SLUG`: compute and keep a big project's admin figures now.

Why a command: the server starts it in a process of its own when a page finds the kept figures stale
(annotator/figures/kept.py, `KEPT_RESULTS_REFRESH="process"`), so that no server worker waits behind the
computation; an organiser can also run it after a campaign, or from cron, so that the first page is quick.
"""
from __future__ import annotations

import os

import click
from flask.cli import with_appcontext
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.figures.kept import refresh, release
from annotator.figures.kept_figures import BY_GROUP
from annotator.lookups.formats import FormatError, project_format


@click.command("refresh-figures")
@with_appcontext
@click.option("--project", "slug", help="the project's slug")
@click.option("--project-id", type=int, help="the project's id (how the server names it)")
@click.option("--group", "groups", multiple=True, type=click.Choice(["votes", "items", "ranking", "model"]),
              help="only these figures (default: every group the project's pages show)")
@click.option("--nice", type=click.IntRange(0, 19), default=0,
              help="run at this lower CPU priority (the server starts it at KEPT_RESULTS_NICE, so that annotators' "
                   "requests go first)")
def refresh_figures_command(slug: str | None, project_id: int | None, groups: tuple[str, ...], nice: int) -> None:
    """Compute a project's admin figures (gold, agreement, dashboard, items, annotators, the annotator model) and
    keep them."""

    if (slug is None) == (project_id is None):
        raise click.UsageError("give --project or --project-id")
    if nice and hasattr(os, "nice"):
        os.nice(nice)
    project = db.session.scalar(select(Project).where(Project.slug == slug) if slug is not None
                                else select(Project).where(Project.id == project_id))
    if project is None:
        raise click.ClickException(f"there is no project {slug or project_id!r}")
    if not groups:
        try:
            rankable = project_format(project).ranks(project)
        except FormatError:
            rankable = False
        groups = ("votes", "items", "ranking", "model") if rankable else ("votes", "items", "model")
    pid = project.id
    try:
        for name in groups:
            values = refresh(pid, BY_GROUP[name])
            click.echo(f"{name}: {', '.join(values)} kept")
    finally:
        release(pid)
