"""`flask crowd-link` and `flask mturk-question`: a project's study links for crowd platforms."""
from __future__ import annotations

import click
from flask import current_app
from flask.cli import with_appcontext
from sqlalchemy import select

from annotator.actions.crowd_links import save_link
from annotator.cli.data import project_or_fail
from annotator.core.audit import who
from annotator.core.extensions import db
from annotator.core.models import CROWD_PLATFORMS, CrowdLink
from annotator.people.crowd import CrowdError, entry_url
from annotator.people.mturk_request import external_question

BASE_URL_HELP = "The server's public address, e.g. https://annotate.example.org (default: ANNOTATOR_BASE_URL)."


def base_url_or_fail(given: str | None, https: bool = False) -> str:
    url = (given or current_app.config.get("PUBLIC_BASE_URL") or "").rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise click.ClickException("give the server's public address with --base-url (or ANNOTATOR_BASE_URL), "
                                   "e.g. https://annotate.example.org")
    if https and not url.startswith("https://"):
        raise click.ClickException(f"{url} is not https: Mechanical Turk frames only HTTPS pages, and browsers send "
                                   "the session cookie inside its frame only over HTTPS")
    return url


@click.command("crowd-link")
@with_appcontext
@click.option("--project", "slug", required=True)
@click.option("--platform", type=click.Choice(CROWD_PLATFORMS), required=True)
@click.option("--hits", type=click.IntRange(1), help="HITs per study session (needed for a new link).")
@click.option("--completion-code", help="The code the platform pays on (needed for a new link).")
@click.option("--screen-out-code", help="The code given to workers screened out (blocked, failed the quiz).")
@click.option("--new-secret", is_flag=True, help="A new secret: every link given out before stops working.")
@click.option("--base-url", help=BASE_URL_HELP)
def crowd_link_command(slug: str, platform: str, hits: int | None, completion_code: str | None,
                       screen_out_code: str | None, new_secret: bool, base_url: str | None) -> None:
    """Create or change the project's study link for PLATFORM and print it."""
    project = project_or_fail(slug)
    url = base_url_or_fail(base_url)
    link = db.session.scalar(select(CrowdLink).where(CrowdLink.project_id == project.id,
                                                     CrowdLink.platform == platform))
    try:
        link = save_link(project, platform, hits if hits is not None else (link.hits if link else 0),
                         completion_code if completion_code is not None else (link.completion_code if link else ""),
                         screen_out_code if screen_out_code is not None else (link.screen_out_code if link else ""),
                         new_secret, who())
    except CrowdError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"{platform} study of project {slug!r}: {link.hits} HITs, completion code {link.completion_code}"
               + (f", screen-out code {link.screen_out_code}" if link.screen_out_code else ""))
    click.echo(entry_url(link, url))


@click.command("mturk-question")
@with_appcontext
@click.option("--project", "slug", required=True)
@click.option("--base-url", help=BASE_URL_HELP)
@click.option("--frame-height", type=click.IntRange(0), default=800, show_default=True,
              help="Height of MTurk's frame in pixels (0: MTurk sizes it).")
def mturk_question_command(slug: str, base_url: str | None, frame_height: int) -> None:
    """Print the ExternalQuestion XML of the project's MTurk link (create it first with crowd-link)."""
    project = project_or_fail(slug)
    link = db.session.scalar(select(CrowdLink).where(CrowdLink.project_id == project.id,
                                                     CrowdLink.platform == "mturk"))
    if link is None:
        raise click.ClickException(f"project {slug!r} has no mturk link yet: flask crowd-link --project {slug} "
                                   "--platform mturk --hits N --completion-code CODE")
    url = entry_url(link, base_url_or_fail(base_url, https=True))
    click.echo(external_question(url, frame_height))
