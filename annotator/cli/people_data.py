"""`flask erase`: erase a person (annotator/people/erasure.py), showing first what deleting their votes changes;
`flask purge`: delete the personal records older than the retention settings (annotator/people/retention.py);
`flask scrub-files`: the old versions of deleted rows out of the database's files (people/erasure_on_disk.py)."""
from __future__ import annotations

import click
from flask import current_app
from flask.cli import with_appcontext

from annotator.people.erasure import ErasureError, NothingToErase, Preview, erase, find_person, preview
from annotator.people.erasure_on_disk import ALL_TABLES, clear_from_disk
from annotator.people.retention import RetentionError, purge


def preview_text(shown: Preview, delete_votes: bool) -> str:
    """The preview as lines: the account, what goes, and per project the votes, gold and agreement changes."""
    lines = [f"Account {shown.username!r} (id {shown.user_id}): {shown.votes} votes in {len(shown.projects)} "
             f"project(s), {shown.crowd_sessions} study session(s), {shown.tokens} API token(s)."]
    if not delete_votes:
        lines.append("Its votes are kept under a pseudonym; gold and agreement do not change.")
        return "\n".join(lines)
    for change in shown.projects:
        lines.append(f"Project {change.slug}: {change.votes} votes deleted; gold changes on {len(change.gold)} "
                     "item(s).")
        lines += [f"  {g.item}: {g.before or '(no gold)'} -> {g.after or '(no gold)'}" for g in change.gold]
        lines += [f"  agreement {field}: Fleiss' kappa {fb} -> {fa}; Krippendorff's alpha {kb} -> {ka}"
                  for field, fb, fa, kb, ka in change.agreement]
    return "\n".join(lines)


@click.command("erase")
@with_appcontext
@click.option("--account", help="The account's user name.")
@click.option("--prolific", help="A Prolific ID (the worker's crowd account).")
@click.option("--mturk", help="An MTurk worker ID (the worker's crowd account).")
@click.option("--delete-votes", is_flag=True, help="Delete the person's votes too (gold and agreement change).")
@click.option("--yes", is_flag=True, help="Do not ask: erase after printing the preview.")
@click.option("--missing-ok", is_flag=True,
              help="Succeed when there is no such person or the account is erased already (to repeat a list of "
                   "erasures, e.g. after restoring an older backup).")
def erase_command(account: str | None, prolific: str | None, mturk: str | None, delete_votes: bool,
                  yes: bool, missing_ok: bool) -> None:
    """Erase a person's identifying data: a pseudonym instead of their name, no password, tokens or worker id."""
    try:
        user = find_person(account, prolific, mturk)
    except NothingToErase as error:
        if missing_ok:
            click.echo(f"Nothing to erase: {error}.")
            return
        raise click.ClickException(f"{error} (nothing was erased)") from None
    except ErasureError as error:
        raise click.ClickException(str(error)) from None
    click.echo(preview_text(preview(user, delete_votes), delete_votes))
    if not yes and not click.confirm("Erase this person?", default=False):
        raise click.ClickException("nothing was erased")
    try:
        done = erase(user, delete_votes)
    except ErasureError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"Erased: the account is now {done.pseudonym!r}; {done.votes_kept} votes kept, {done.votes_deleted} "
               f"deleted; {done.crowd_sessions} study session(s) scrubbed; {done.tokens} API token(s) removed.")
    click.echo(f"On disk: {done.on_disk.text}.")
    if not done.login_counters_cleared:
        click.echo("The failed logins typed with this name were not deleted (the database refused); they go with "
                   "the expired ones at a later failed login, or now with `flask users unlock NAME`.")


@click.command("purge")
@with_appcontext
def purge_command() -> None:
    """Delete personal records older than the RETENTION_* settings (safe to run from cron on several hosts)."""
    try:
        deleted = purge(current_app.config)
    except RetentionError as error:
        raise click.ClickException(str(error)) from None
    if not deleted:
        click.echo("Nothing to purge: every retention setting keeps records forever.")
    for name, count in deleted.items():
        click.echo(f"{name}: {count} deleted")
    if any(deleted.values()):
        click.echo(f"On disk: {clear_from_disk().text}.")


@click.command("scrub-files")
@with_appcontext
def scrub_files_command() -> None:
    """Clear the old versions of deleted and changed rows out of the database's files: SQLite's write-ahead log
    checkpointed and emptied, or PostgreSQL's personal-data and vote tables vacuumed. `flask erase` and
    `flask purge` do this themselves; this finishes it when they could not (a busy server, a role that may not
    vacuum)."""
    on_disk = clear_from_disk(ALL_TABLES, patient=True)
    if not on_disk.done:
        raise click.ClickException(on_disk.text)
    click.echo(f"On disk: {on_disk.text}.")
