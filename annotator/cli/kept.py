"""`flask refresh-figures --project SLUG`: compute and keep a big project's admin figures now.

Why a command: the server starts it in a process of its own when a page finds the kept figures stale
(annotator/figures/kept.py, `KEPT_RESULTS_REFRESH="process"`), so that no server worker waits behind the
computation; an organiser can also run it after a campaign, or from cron, so that the first page is quick.
"""
from __future__ import annotations

import os

import click
from flask import current_app
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
    if not current_app.testing:   # a process of its own (tests run the command inside theirs)
        thrifty_allocation()
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


MMAP_AND_TRIM = 128 * 1024   # bytes: glibc's own default thresholds, held fixed (mallopt)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3   # mallopt's parameters (malloc.h)


def thrifty_allocation() -> None:
    """Memory freed by one step of the computation given back before the next, in this process of its own: Arrow
    (pandas' text columns) allocates from the C library's malloc rather than its own pool, and malloc keeps its
    thresholds for mmap and for trimming at their defaults (128 KiB) instead of raising them as big blocks are
    freed. Each step's big arrays then go back to the system when freed instead of staying in two allocators' free
    lists, where the next step's arrays (of the other allocator, or of other sizes) could not use them. At a million
    labels this took the peak RSS of a RuArg-2022 project's votes group from 580 to 495 MB and its model group from
    593 to 502 MB, the figures unchanged, at the price of a third more time in the model group (its EM's arrays
    mapped and unmapped each iteration: 28 -> 38 s; bench/results/2026-11-29-kept-figures-memory.md). Elsewhere
    than glibc (musl, macOS) the thresholds are left as they are."""
    import ctypes
    import ctypes.util

    import pyarrow

    pyarrow.set_memory_pool(pyarrow.system_memory_pool())
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):   # no C library found, or not glibc's (no mallopt)
        return
    mallopt(M_MMAP_THRESHOLD, MMAP_AND_TRIM)
    mallopt(M_TRIM_THRESHOLD, MMAP_AND_TRIM)
