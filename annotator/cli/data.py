"""`flask import`, `flask export`, `flask agreement`: data in and out of projects.

`import FORMAT PATH --project SLUG` and `export FORMAT --project SLUG --out DIR` have one subcommand
per registered file format, built from what the format declares (its options, what PATH is) and
from its HIT type's settings (`import FORMAT ... --some-threshold 0.7`), so no format is
named here.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import click
from flask import current_app
from flask.cli import AppGroup, with_appcontext
from sqlalchemy import select

from annotator.actions.imports import import_project
from annotator.analysis.results import gold_summary, labels_frame, project_agreement, project_progress
from annotator.campaigns.exports import ExportWriteError, run_export
from annotator.campaigns.import_refused import ImportRefused
from annotator.cli.options import click_option, given
from annotator.core.audit import who
from annotator.core.errors import LocatedError
from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.core.options import OptionError, parse_options
from annotator.figures.kept_gold import gold_frame
from annotator.lookups.formats import FORMATS, FileFormat, exports_project, import_settings
from annotator.tasks import project_task, task_type

import_group = AppGroup("import", help="Load a shared task's files into a project (all or nothing).")
export_group = AppGroup("export", help="Write a project's data and gold in a shared task's format.")


def project_or_fail(slug: str) -> Project:
    project = db.session.scalar(select(Project).where(Project.slug == slug))
    if project is None:
        raise click.ClickException(f"there is no project {slug!r}")
    return project


def import_command(fmt: FileFormat) -> click.Command:
    """`import <format> PATH --project SLUG [--name] [--k] [--lease-minutes] [format options] [settings]`."""
    task = task_type(fmt.task)
    own = {o.name for o in fmt.import_options}
    settings = [s for s in import_settings(fmt) if s.name not in own]

    def run(path: Path, slug: str, name: str | None, k: int | None, lease_minutes: int | None,
            propose_from: str | None = None, **rest: Any) -> None:
        started = time.perf_counter()
        options, chosen = given({n: rest[n] for n in own}), given({s.name: rest[s.name] for s in settings})
        if propose_from is not None and fmt.proposal is not None:
            options, chosen = _proposed(fmt, propose_from, options, chosen)
        try:
            result = import_project(fmt, path, slug=slug, name=name, k=k, lease_minutes=lease_minutes,
                                    options=options, settings=chosen, by=who())
        except ImportRefused as error:
            raise click.ClickException(str(error)) from None
        project = result.project
        if result.created:   # what the project is, said: a format may make declared projects of its definition
            made = project_task(project).title + (f": {project.definition['name']}" if project.definition else "")
            click.echo(f"Created project {project.slug!r} ({made}).")
        message = f"Imported {result.items} {fmt.items} into project {project.slug!r} (k={project.k})"
        if result.votes:
            message += f" with {result.votes} votes of imported annotators"
        click.echo(f"{message} in {time.perf_counter() - started:.1f} s.")

    path_type = click.Path(exists=True, dir_okay=fmt.reads == "folder", file_okay=fmt.reads == "file",
                           path_type=Path)
    params: list[click.Parameter] = [
        click.Argument(["path"], type=path_type),
        click.Option(["--project", "slug"], required=True, help="Project slug; created if it does not exist."),
        click.Option(["--name"], help="Project name for a new project."),
        click.Option(["--k"], type=click.IntRange(1),
                     help=f"Annotators per item (default {task.default_k} for a new project)."),
        click.Option(["--lease-minutes"], type=click.IntRange(1), help="Lease time (default 30 for a new project)."),
        *(click_option(o) for o in fmt.import_options),
        *(click_option(s) for s in settings),
    ]
    if fmt.proposal is not None:
        params.append(click.Option(["--propose-from", "propose_from"], metavar="SOURCE",
                                   help=f"{fmt.proposal.label}: {fmt.proposal.help} (options given here win)"))
    what = "FOLDER" if fmt.reads == "folder" else "FILE"
    return click.Command(fmt.name, callback=with_appcontext(run), params=params,
                         help=f"{fmt.title}: {what} holds {fmt.expects}. All or nothing.")


def _proposed(fmt: FileFormat, source: str, options: dict[str, Any],
              settings: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The format's proposal from `source`, printed, under the options and settings given explicitly."""
    assert fmt.proposal is not None
    try:
        proposed = fmt.proposal.propose(source)
    except LocatedError as error:
        raise click.ClickException(f"{error}\nNothing was imported.") from None
    click.echo(proposed.report.to_text())
    return {**proposed.options, **options}, {**proposed.settings, **settings}


def export_command(fmt: FileFormat) -> click.Command:
    """`export <format> --project SLUG [--out DIR] [format options]`."""
    def run(slug: str, out_dir: Path | None, include_incomplete: bool, **rest: Any) -> None:
        project = project_or_fail(slug)
        if not exports_project(fmt, project):
            others = ", ".join(f.name for f in FORMATS.values() if exports_project(f, project)) or "none"
            raise click.ClickException(f"project {slug!r} holds {project_task(project).title} HITs; "
                                       f"{fmt.name} exports {task_type(fmt.task).title} projects (formats for it: "
                                       f"{others})")
        out_dir = out_dir or Path(current_app.config["EXPORT_DIR"]) / slug
        try:
            exported = run_export(fmt, project, out_dir, include_incomplete,
                                  **parse_options(fmt.export_options, given(rest), fmt.name))
        except (LocatedError, OptionError, ExportWriteError) as error:
            raise click.ClickException(str(error)) from None
        for path in exported.paths:
            click.echo(path)
        for note in exported.notes:
            click.echo(f"Note: {note}", err=True)

    params: list[click.Parameter] = [
        click.Option(["--project", "slug"], required=True),
        click.Option(["--out", "out_dir"], type=click.Path(file_okay=False, path_type=Path),
                     help="Output folder (default: exports/<project>)."),
        click.Option(["--include-incomplete"], is_flag=True,
                     help="Include pending items (fewer votes than they need); recorded in README.txt."),
        *(click_option(o) for o in fmt.export_options),
    ]
    return click.Command(fmt.name, callback=with_appcontext(run), params=params,
                         help=f"Write a project of {task_type(fmt.task).title} HITs as {fmt.title} files, "
                              "gold from the votes.")


for _format in FORMATS.values():
    import_group.add_command(import_command(_format))
    export_group.add_command(export_command(_format))


@click.command("agreement")
@with_appcontext
@click.option("--project", "slug", required=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of a table.")
@click.option("--intervals", is_flag=True, help="Each coefficient's 95% interval too (a seeded bootstrap over "
                                                "units, 1,000 replicates).")
def agreement_command(slug: str, as_json: bool, intervals: bool) -> None:
    """Agreement (Fleiss' kappa, Krippendorff's alpha) and gold counts of a project."""
    project = project_or_fail(slug)
    labels = labels_frame(project)
    fields = project_agreement(project, labels, intervals)
    progress = project_progress(project)
    gold = gold_summary(project, gold_frame(project, labels))
    if as_json:
        click.echo(json.dumps({"project": slug, "votes": progress.votes, "items": progress.items,
                               "gold": gold.counts, "fields": [f.to_dict() for f in fields]}, indent=2))
        return
    click.echo(f"Project {slug}: {progress.votes} of {progress.votes_needed} votes, "
               f"{progress.complete} of {progress.items} items complete ({progress.pending} pending, left out)")
    click.echo("Gold: " + ", ".join(f"{n} {name}" for name, n in gold.counts.items()))
    for f in fields:
        click.echo(f"\n[{f.field}] {f.units} units, {f.coders} annotators, {f.ratings} ratings, "
                   f"categories {', '.join(f.categories) or '-'}")
        click.echo(f"  Fleiss' kappa        {f.fleiss_kappa.text()}  ({f.fleiss_kappa.units} units)"
                   + (f", {f.kappa_interval.text()}" if f.kappa_interval else ""))
        click.echo(f"  Krippendorff's alpha {f.krippendorff_alpha.text()}  ({f.krippendorff_alpha.units} units)"
                   + (f", {f.alpha_interval.text()}" if f.alpha_interval else ""))
        if f.kendall_w is not None:   # a ranking question (analysis/concordance.py)
            click.echo(f"  Kendall's W          {f.kendall_w.text()}")
        if f.split_half is not None:   # a best-worst question (analysis/split_half.py)
            click.echo(f"  split-half reliability {f.split_half.text()}")
        if f.answer_match is not None:   # an extractive question (analysis/answer_match.py)
            click.echo(f"  Answers' match       {f.answer_match.text()}")
        if f.relation_match is not None:   # a relations question (analysis/relation_match.py)
            click.echo(f"  Relations' match     {f.relation_match.text()}")
        if f.distribution_match is not None:   # a distribution question (analysis/distribution_match.py)
            click.echo(f"  Distributions' distance {f.distribution_match.text()}")
        for left in f.left_out:
            click.echo(f"  left out: {left['units']} units {left['why']}")
