"""`flask controls add|remove|list --project SLUG`: control items in bulk (annotator/quality/bulk_controls.py).

The same all-or-nothing rules as the quality card of the project's admin page.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from flask.cli import with_appcontext

from annotator.cli.data import project_or_fail
from annotator.core.audit import record
from annotator.core.extensions import db
from annotator.quality.bulk_controls import (
    ControlLine,
    controls_csv,
    draw_controls,
    mark_controls,
    read_control_file,
    unmark_controls,
)
from annotator.quality.controls import ControlRefused


@contextmanager
def _all_or_nothing() -> Iterator[None]:
    """Commit what the command changed, or roll it all back and say why (exit status 1)."""
    try:
        yield
    except ControlRefused as error:
        db.session.rollback()
        raise click.ClickException(f"nothing changed: {error}") from None
    db.session.commit()


def _read(path: Path, answers: bool) -> list[ControlLine]:
    try:
        return read_control_file(path.read_text(encoding="utf-8"), path.name, answers=answers)
    except UnicodeDecodeError as error:
        raise ControlRefused(f"{path.name}: not UTF-8 text (byte {error.start}).") from None


@click.group("controls")
def controls_group() -> None:
    """Control items in bulk: mark or unmark the items of a CSV (columns item, optionally answer), list them."""


@controls_group.command("add")
@with_appcontext
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--project", "slug", required=True)
def add_command(path: Path, slug: str) -> None:
    """Make the items of PATH control items: known answer from its `answer` column (JSON), else the imported one."""
    project = project_or_fail(slug)
    with _all_or_nothing():
        count = mark_controls(project, _read(path, answers=True), path.name)
        record("controls.change", project, {"action": "add", "items": count})
    click.echo(f"{count} items of {path.name} are control items now.")


@controls_group.command("draw")
@with_appcontext
@click.argument("n", type=int)
@click.option("--project", "slug", required=True)
@click.option("--seed", type=int, default=0, show_default=True, help="The same seed draws the same items.")
def draw_command(n: int, slug: str, seed: int) -> None:
    """Make N random ordinary items with a known answer (imported reference, else decided gold) controls."""
    project = project_or_fail(slug)
    with _all_or_nothing():
        drawn = draw_controls(project, n, seed)
        record("controls.change", project, {"action": "draw", "items": len(drawn), "seed": seed})
    click.echo(f"{len(drawn)} items drawn with seed {seed} are control items now.")


@controls_group.command("remove")
@with_appcontext
@click.argument("path", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--project", "slug", required=True)
@click.option("--all", "every", is_flag=True, help="Every control item of the project.")
def remove_command(path: Path | None, slug: str, every: bool) -> None:
    """Make the items of PATH (or, with --all, every control item) ordinary items again."""
    project = project_or_fail(slug)
    if (path is None) == (not every):
        raise click.UsageError("give either a file of item ids or --all")
    with _all_or_nothing():
        lines = _read(path, answers=False) if path is not None else None
        count = unmark_controls(project, lines, path.name if path is not None else "")
        record("controls.change", project, {"action": "remove", "items": count})
    click.echo(f"{count} control items are ordinary items again.")


@controls_group.command("list")
@with_appcontext
@click.option("--project", "slug", required=True)
def list_command(slug: str) -> None:
    """The project's control items with their known answers, as CSV (item, answer): a file `add` reads back."""
    click.echo(controls_csv(project_or_fail(slug)), nl=False)
