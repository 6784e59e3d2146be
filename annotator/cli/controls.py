"""`flask controls add|draw|remove|list --project SLUG`: control items in bulk (annotator/quality/bulk_controls.py).

The same actions as the quality card of the project's admin page (annotator/actions/controls.py): all or nothing,
each committed with its audit event.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from flask.cli import with_appcontext

from annotator.actions.controls import add_controls, draw_controls, remove_controls
from annotator.cli.data import project_or_fail
from annotator.core.audit import who
from annotator.quality.bulk_controls import ControlLine, controls_csv, read_control_file
from annotator.quality.controls import ControlRefused


@contextmanager
def _refused() -> Iterator[None]:
    """A refusal (the action changed nothing) said in words, with exit status 1."""
    try:
        yield
    except ControlRefused as error:
        raise click.ClickException(f"nothing changed: {error}") from None


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
    with _refused():
        count = add_controls(project, _read(path, answers=True), path.name, who())
    click.echo(f"{count} items of {path.name} are control items now.")


@controls_group.command("draw")
@with_appcontext
@click.argument("n", type=int)
@click.option("--project", "slug", required=True)
@click.option("--seed", type=int, default=0, show_default=True, help="The same seed draws the same items.")
def draw_command(n: int, slug: str, seed: int) -> None:
    """Make N random ordinary items with a known answer (imported reference, else decided gold) controls."""
    project = project_or_fail(slug)
    with _refused():
        drawn = draw_controls(project, n, seed, who())
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
    with _refused():
        lines = _read(path, answers=False) if path is not None else None
        count = remove_controls(project, lines, path.name if path is not None else "", who())
    click.echo(f"{count} control items are ordinary items again.")


@controls_group.command("list")
@with_appcontext
@click.option("--project", "slug", required=True)
def list_command(slug: str) -> None:
    """The project's control items with their known answers, as CSV (item, answer): a file `add` reads back."""
    click.echo(controls_csv(project_or_fail(slug)), nl=False)
