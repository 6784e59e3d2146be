"""`flask check --project SLUG`: the assignment invariants of a project, read from its database.

Why a command: after a campaign (or a load test against a real deployment) an organiser can see
that the rows hold what annotator/engine/assignment.py promises, with the same checks the concurrency
test and the load benchmark use (annotator/engine/invariants.py). The exit status is 1 when one fails, so
scripts can stop on it.
"""
from __future__ import annotations

import json

import click
from flask.cli import with_appcontext
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.engine.invariants import Invariant, ProjectNotFound, all_passed, check_project
from annotator.figures.kept_figures import kept_differences


def _print_table(checks: list[Invariant]) -> None:
    for check in checks:
        click.echo(f"[{'PASS' if check.passed else 'FAIL'}] {check.name}: {check.detail}")
    failed = sum(not c.passed for c in checks)
    click.echo(f"{len(checks) - failed} of {len(checks)} checks passed" + (f", {failed} failed" if failed else ""))


def kept_figures_check(slug: str) -> Invariant:
    """The kept figures of a big project (figures/kept.py) are what a recomputation from the votes gives."""


    project = db.session.scalars(select(Project).where(Project.slug == slug)).one()
    current, differing = kept_differences(project)
    if not current:
        detail = "none current (a small project's pages compute them, or votes came since)"
    elif differing:
        detail = f"{len(differing)} of {len(current)} differ from a recomputation: {', '.join(differing)}"
    else:
        detail = f"{len(current)} current, each equal to a recomputation: {', '.join(current)}"
    return Invariant("kept figures", not differing, detail)


@click.command("check")
@with_appcontext
@click.option("--project", "slug", required=True)
@click.option("--complete", is_flag=True,
              help="The campaign is over: every item must have exactly k votes and no lease may be open.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of a table.")
def check_command(slug: str, complete: bool, as_json: bool) -> None:
    """Invariant a project's assignment invariants; exit status 1 when one fails."""
    try:
        checks = check_project(slug, complete=complete)
    except ProjectNotFound as error:
        raise click.ClickException(str(error)) from None
    checks.append(kept_figures_check(slug))
    passed = all_passed(checks)
    if as_json:
        click.echo(json.dumps({"project": slug, "complete": complete, "passed": passed,
                               "checks": [c.to_dict() for c in checks]}, indent=2))
    else:
        _print_table(checks)
    if not passed:
        raise SystemExit(1)
