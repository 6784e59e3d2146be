"""Admin: starting a project from uploaded files, loading more items, and closing or deleting it.

The upload goes through the same import as `flask import` (the action actions/imports.import_project, the
logged-in admin acting): a file with a problem changes nothing, and the page shows the problem with its file,
line and column.
"""
from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_wtf import FlaskForm
from sqlalchemy import select

from annotator.actions.imports import import_project
from annotator.actions.projects import ProjectRefused, delete_project, set_archived, set_audience
from annotator.campaigns.file_kinds import kind_hint
from annotator.campaigns.import_refused import ImportRefused
from annotator.campaigns.imports import ImportResult, options_of_definition
from annotator.campaigns.kept_uploads import discard, kept_files
from annotator.campaigns.uploads import UploadError, UploadLimits, input_path, save_uploads
from annotator.core.audit import who
from annotator.core.errors import LocatedError
from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.lookups.format_base import Proposed
from annotator.lookups.formats import FORMATS, FileFormat, file_format, import_settings, project_format
from annotator.people.access import admin_required
from annotator.tasks import settings_with_defaults, task_type
from annotator.web.admin import audience_form
from annotator.web.common import project_or_404
from annotator.web.forms import (
    ActionForm,
    DeleteProjectForm,
    ImportForm,
    NewProjectForm,
    option_defaults,
    option_values,
    with_options,
)
from annotator.web.kept_uploads import keep_files

bp = Blueprint("setup", __name__, url_prefix="/admin/projects")


def _format_or_404(name: str) -> FileFormat:
    if name not in FORMATS:
        abort(404, f"There is no file format {name!r}.")
    return file_format(name)


def _form(base: type[FlaskForm], fmt: FileFormat, settings: bool, proposed: Proposed | None = None,
          slug: str | None = None) -> FlaskForm:
    """The import form; for more items into project `slug`, the options its definition says are filled in
    (imports.options_of_definition: RuArg's stage, m, claims and language), so that it is sent as it is."""
    options = fmt.import_options + (import_settings(fmt) if settings else ())
    form_class = with_options(base, options, f"{fmt.name}{base.__name__}")
    task = task_type(fmt.task)
    defaults = option_defaults(options, {**{o.name: o.default for o in fmt.import_options},
                                         **(options_of_definition(fmt, slug) if slug else {}),
                                         **settings_with_defaults(task, {}),
                                         **{o.name: o.default for o in fmt.settings},
                                         **(proposed.options if proposed else {}),
                                         **(proposed.settings if proposed and settings else {})})
    if base is NewProjectForm:
        return form_class(data={"k": task.default_k, "lease_minutes": 30, **defaults})
    return form_class(data=defaults)


def _kept_streams(token: str | None) -> Iterator[tuple[str, BinaryIO]]:
    for path in kept_files(token):
        with open(path, "rb") as stream:
            yield path.name, stream


def _import(fmt: FileFormat, form: FlaskForm, guidelines: str | None = None, **project: Any) -> ImportResult:
    """Import the form's kept files (unpacked in a temporary folder); ImportRefused (with its cause) otherwise.

    A new project's form carries the HIT type's settings and guidelines; they go in with the items, and its slug
    must still be free. The kept files are removed once imported, and kept for the next try when refused.
    """
    with tempfile.TemporaryDirectory(prefix="upload-") as tmp:
        folder = Path(tmp)
        try:
            written = save_uploads(_kept_streams(form.kept.data), folder, UploadLimits.from_config(current_app.config))
            path = input_path(written, folder, fmt.reads)
        except UploadError as error:
            raise ImportRefused(f"{error}\nNothing was imported.") from error
        settings = import_settings(fmt) if isinstance(form, NewProjectForm) else ()
        try:
            result = import_project(fmt, path, options=option_values(form, fmt.import_options),
                                    settings=option_values(form, settings), guidelines=guidelines,
                                    new=isinstance(form, NewProjectForm), by=who(), **project)
        except ImportRefused as error:
            error.hint = _kind_hint(fmt, path, error)
            raise
    discard(form.kept.data)
    return result


def _kind_hint(fmt: FileFormat, path: Path, error: ImportRefused) -> str | None:
    """What the refused file looks like, when it is not a kind the format reads (the file the problem is in)."""
    cause = error.__cause__
    name = cause.file if isinstance(cause, LocatedError) else None
    if path.is_dir():
        found = list(path.rglob(Path(name).name)) if name else []
        path = found[0] if len(found) == 1 else path
    return kind_hint(path, fmt.kinds, fmt.expects)


def _split_read(result: ImportResult, form: FlaskForm) -> str:
    """Says which split was read when the form left it to the file names (a format with a split option)."""
    split = (result.project.source or {}).get("split")
    if not split or "split" not in form or form["split"].data:
        return ""
    return f" The split {split!r} was read from the file names."


def _refused(error: ImportRefused) -> dict[str, Any]:
    """The template's view of a refused import: the located problem when there is one."""
    cause = error.__cause__
    located = cause if isinstance(cause, LocatedError) else None
    return {"hint": error.hint,
            "message": str(located.message if located else error).removesuffix("\nNothing was imported."),
            "file": located.file if located else None, "line": located.line if located else None,
            "column": located.column if located else None}


@bp.route("/new")
@admin_required
def choose_format() -> ResponseReturnValue:
    return render_template("admin/new_project.html", formats=[(f, task_type(f.task)) for f in FORMATS.values()])


def _proposal(fmt: FileFormat) -> tuple[Proposed | None, str | None]:
    """The format's proposal from the source the page asked for (?propose_from=), or why there is none."""
    source = request.args.get("propose_from", "")
    if fmt.proposal is None or not source or request.method != "GET":
        return None, None
    try:
        return fmt.proposal.propose(source), None
    except LocatedError as error:
        return None, str(error)


@bp.route("/new/<name>", methods=["GET", "POST"])
@admin_required
def new_project(name: str) -> ResponseReturnValue:
    fmt = _format_or_404(name)
    if fmt.new_project is not None:  # a format whose projects are made on a page of its own
        return redirect(url_for(fmt.new_project))
    proposed, not_proposed = _proposal(fmt)
    form, refused = _form(NewProjectForm, fmt, settings=True, proposed=proposed), None
    valid = form.validate_on_submit()
    if keep_files(form, form.files) and valid:
        if db.session.scalar(select(Project.id).where(Project.slug == form.slug.data)) is not None:
            form.slug.errors.append("There is already a project with this slug; load more items into it from its page.")
        else:
            try:
                result = _import(fmt, form, guidelines=form.guidelines.data or "", slug=form.slug.data,
                                 name=form.name.data, k=form.k.data, lease_minutes=form.lease_minutes.data)
            except ImportRefused as error:
                refused = _refused(error)
            else:
                flash(f"Project {result.project.name!r} created with {result.items} {fmt.items}."
                      + _split_read(result, form), "info")
                return redirect(url_for("admin.project", slug=result.project.slug))
    return render_template("admin/import.html", fmt=fmt, task=task_type(fmt.task), form=form, refused=refused,
                           project=None, proposed=proposed, not_proposed=not_proposed,
                           sources=fmt.proposal.sources() if fmt.proposal else [], kept=kept_files(form.kept.data),
                           source=request.args.get("propose_from", "")), 400 if refused or form.errors else 200


@bp.route("/<slug>/import", methods=["GET", "POST"])
@admin_required
def more_items(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    try:
        fmt = project_format(project)
    except LocatedError as error:
        flash(f"No import: {error}.", "error")
        return redirect(url_for("admin.project", slug=slug))
    form, refused = _form(ImportForm, fmt, settings=False, slug=project.slug), None
    valid = form.validate_on_submit()
    if keep_files(form, form.files) and valid:
        try:
            result = _import(fmt, form, slug=project.slug)
        except ImportRefused as error:
            refused = _refused(error)
        else:
            flash(f"{result.items} {fmt.items} added." + _split_read(result, form), "info")
            return redirect(url_for("admin.project", slug=slug))
    return render_template("admin/import.html", fmt=fmt, task=task_type(fmt.task), form=form, refused=refused,
                           project=project, kept=kept_files(form.kept.data)), 400 if refused or form.errors else 200


@bp.post("/<slug>/archive")
@admin_required
def archive(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    if ActionForm().validate_on_submit():
        set_archived(project, request.form.get("archived") == "1", who())
        state = "archived: closed to annotators, every vote kept" if project.archived else "open again"
        flash(f"Project {project.name!r} is {state}.", "info")
    return redirect(url_for("admin.project", slug=slug))


@bp.post("/<slug>/delete")
@admin_required
def delete(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    form = DeleteProjectForm()
    if not form.validate_on_submit() or form.confirm.data != project.slug:
        flash("Not deleted: type the project's slug to confirm.", "error")
    else:
        try:
            delete_project(project, who())
        except ProjectRefused as error:
            flash(f"Not deleted: {error}", "error")
        else:
            flash(f"Project {slug!r} deleted.", "info")
            return redirect(url_for("admin.projects"))
    return redirect(url_for("admin.project", slug=slug))


@bp.post("/<slug>/audience")
@admin_required
def audience(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    form = audience_form(project)
    if form.validate_on_submit():
        set_audience(project, form.audience.data, list(form.annotators.data or []), who())
        flash("Access saved.", "info")
    else:
        flash("Access not saved: " + "; ".join(e for errors in form.errors.values() for e in errors), "error")
    return redirect(url_for("admin.project", slug=slug))
