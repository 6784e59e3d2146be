"""`flask backup`, `flask restore`, `flask project export-all` / `import-all`: data that outlasts a server.

The work is in annotator/lifecycle; here only arguments, messages and the exit status (1 on any refusal,
with where the problem is and the note that nothing was changed).
"""
from __future__ import annotations

from pathlib import Path

import click
from flask.cli import AppGroup, with_appcontext

from annotator.lifecycle.archive import ArchiveError
from annotator.lifecycle.backup import write_backup
from annotator.lifecycle.project_move import export_project, import_project
from annotator.lifecycle.restore import restore

project_group = AppGroup("project", help="Move one project between servers (with its votes and accounts).")


def _refused(error: ArchiveError) -> click.ClickException:
    return click.ClickException(f"{error}\nNothing was changed.")


@click.command("backup")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@with_appcontext
def backup_command(out: Path) -> None:
    """Write the whole database to the archive OUT (a .zip), from one consistent snapshot, while the server runs."""
    try:
        written = write_backup(out)
    except ArchiveError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"Wrote {written.path} ({written.path.stat().st_size} bytes): {written.rows} rows of "
               f"{len(written.tables)} tables in {written.seconds:.1f} s.")


@click.command("restore")
@click.argument("archive", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@with_appcontext
def restore_command(archive: Path) -> None:
    """Load a backup ARCHIVE into this database, which must be migrated to the archive's revision and empty."""
    try:
        restored = restore(archive)
    except ArchiveError as error:
        raise _refused(error) from None
    click.echo(f"Restored {sum(restored.rows.values())} rows of {len(restored.rows)} tables "
               f"(made {restored.archive.manifest['created_at']} on {restored.archive.manifest['source_engine']}) "
               f"in {restored.seconds:.1f} s.")


@project_group.command("export-all")
@click.argument("slug")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@with_appcontext
def export_all_command(slug: str, out: Path) -> None:
    """Write project SLUG whole (items, votes, quality, leaderboards, the accounts that voted) to the archive OUT."""
    try:
        written = export_project(slug, out)
    except ArchiveError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"Wrote {written.path} ({written.path.stat().st_size} bytes): {written.rows} rows of project "
               f"{slug!r} in {written.seconds:.1f} s.")


@project_group.command("import-all")
@click.argument("archive", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--slug", "new_slug", help="Import under this slug instead of the archive's.")
@click.option("--reuse-accounts", is_flag=True,
              help="Give the votes of an account whose name exists here to that account (else refused).")
@with_appcontext
def import_all_command(archive: Path, new_slug: str | None, reuse_accounts: bool) -> None:
    """Load a project ARCHIVE (from `project export-all`) into this server: all or nothing, with new ids."""
    try:
        imported = import_project(archive, slug=new_slug, reuse_accounts=reuse_accounts)
    except ArchiveError as error:
        raise _refused(error) from None
    click.echo(f"Imported project {imported.slug!r}: {sum(imported.rows.values())} rows, "
               f"{imported.accounts_created} accounts created (disabled, no password), "
               f"{imported.accounts_reused} reused.")
