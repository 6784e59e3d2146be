"""`flask crowd-filters` and `flask mturk-hit`: who may take a project's crowd study, and its create-HIT request.

The same settings and the same request as the project's crowd page (people/crowd_filters.py,
people/mturk_request.py), for requesters who script their campaigns.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from flask.cli import with_appcontext

from annotator.actions.crowd_links import change_filters
from annotator.cli.crowd import BASE_URL_HELP, base_url_or_fail
from annotator.cli.data import project_or_fail
from annotator.cli.options import click_option, given
from annotator.core.audit import who
from annotator.core.options import OptionError
from annotator.people.crowd import CrowdError
from annotator.people.crowd_filters import (
    CROWD_OPTIONS,
    FILTERS,
    NAMES,
    checked_crowd,
    filters_in_words,
    prolific_screeners,
)
from annotator.people.mturk_request import ENVIRONMENTS, create_hit_request


def _filters(slug: str, clear: tuple[str, ...], **values: Any) -> None:
    project = project_or_fail(slug)
    wanted = given(values)
    both = sorted(set(clear) & set(wanted))
    if both:
        raise click.ClickException(f"--clear {both[0]} and a value for {both[0]}: give one of them")
    try:
        current = change_filters(project, wanted, who(), clear) if wanted or clear else checked_crowd(project, {})
    except OptionError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"Workers of project {slug!r}: " + ("; ".join(filters_in_words(current)) or "anyone"))
    screeners = prolific_screeners(current)
    click.echo("Prolific screeners: " + ("; ".join(screeners) if screeners else "none"))
    hit = {name: current[name] for name in NAMES if name not in FILTERS and current[name] is not None}
    click.echo("MTurk HIT: " + ", ".join(f"{name} {value}" for name, value in hit.items()))


crowd_filters_command = click.Command(
    "crowd-filters", callback=with_appcontext(_filters),
    params=[click.Option(["--project", "slug"], required=True),
            click.Option(["--clear"], multiple=True, type=click.Choice(NAMES),
                         help="Unset a setting (back to its default); repeatable."),
            *(click_option(o) for o in CROWD_OPTIONS)],
    help="Set and show who may take the project's crowd study (MTurk qualifications, Prolific screeners) and "
         "the MTurk HIT's settings; with no setting given, only show them.")


@click.command("mturk-hit")
@with_appcontext
@click.option("--project", "slug", required=True)
@click.option("--environment", type=click.Choice(ENVIRONMENTS), default="production", show_default=True,
              help="Which MTurk the request is for (the Masters qualification has a different id in each).")
@click.option("--base-url", help=BASE_URL_HELP)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write to this file (default: print).")
def mturk_hit_command(slug: str, environment: str, base_url: str | None, out: Path | None) -> None:
    """The create-HIT request (JSON) of the project's MTurk link, for `aws mturk create-hit --cli-input-json`
    or boto3's `create_hit(**request)`."""
    project = project_or_fail(slug)
    try:
        request = create_hit_request(project, base_url_or_fail(base_url, https=True), environment)
    except CrowdError as error:
        raise click.ClickException(str(error)) from None
    text = json.dumps(request, indent=2, ensure_ascii=False) + "\n"
    if out is None:
        click.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        click.echo(f"Wrote {out}: aws mturk create-hit --cli-input-json file://{out}")
