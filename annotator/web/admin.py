"""Admin pages: the projects with their progress, a project's page (settings, agreement, gold), export.

Starting projects and loading items is web/project_setup.py; accounts are web/accounts.py.
"""
from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, send_file, url_for
from flask.typing import ResponseReturnValue
from flask_wtf import FlaskForm
from sqlalchemy import select
from werkzeug.exceptions import HTTPException
from wtforms.fields.choices import SelectChoice

from annotator.actions.settings import ToConfirm, change_project_settings
from annotator.analysis.results import project_progress
from annotator.campaigns.demo_projects import DEMO_ANNOTATORS, loaded_demo_projects
from annotator.campaigns.exports import ExportWriteError, export_contents, export_zip, nothing_complete
from annotator.campaigns.formula_cells import COOKIE as FORMULA_COOKIE
from annotator.campaigns.formula_cells import listed_in_zip, page_message
from annotator.campaigns.k_change import KChange, OverlapChange
from annotator.campaigns.settings import ProjectFields
from annotator.core.audit import who
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import Project, User
from annotator.core.options import Option, OptionError
from annotator.figures.kept import request_stamp
from annotator.figures.kept_figures import kept_figure
from annotator.lookups.format_base import FileFormat
from annotator.lookups.formats import project_format
from annotator.people.access import admin_required
from annotator.tasks import TaskType, project_task
from annotator.web.common import project_or_404
from annotator.web.forms import (
    ActionForm,
    AudienceForm,
    DeleteProjectForm,
    ProjectSettingsForm,
    option_defaults,
    option_values,
    quality_form,
    whole_number,
    with_options,
)

bp = Blueprint("admin", __name__, url_prefix="/admin")


@bp.route("/")
@admin_required
def projects() -> ResponseReturnValue:
    rows = [(p, project_task(p), project_progress(p))
            for p in db.session.scalars(select(Project).order_by(Project.archived, Project.name))]
    return render_template("admin/projects.html", rows=rows, demo=bool(loaded_demo_projects()))


@bp.route("/demo")
@admin_required
def demo() -> ResponseReturnValue:
    """The demo campaigns `flask demo` loaded: one line each on what it is for, and its HIT, dashboard and export."""
    return render_template("admin/demo.html", campaigns=[(spec, project, project_task(project))
                                                         for spec, project in loaded_demo_projects()],
                           annotators=DEMO_ANNOTATORS)


def settings_form(project: Project, task: TaskType) -> FlaskForm:
    """The project row's fields, the HIT type's settings and its gold rules' parameters (TaskType.rule_options)."""
    form_class = with_options(ProjectSettingsForm, form_options(task), f"{task.name}SettingsForm")
    return form_class(data={"name": project.name, "k": project.k, "lease_minutes": project.lease_minutes,
                            "guidelines": project.guidelines,
                            **option_defaults(task.settings, task.settings_of(project)),
                            **option_defaults(task.rule_options(), task.rule_values())})


def form_options(task: TaskType) -> tuple[Option, ...]:
    return (*task.settings, *task.rule_options())


@bp.route("/projects/<slug>", methods=["GET", "POST"])
@admin_required
def project(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    task = project_task(project)
    form = settings_form(project, task)
    unconfirmed: KChange | None = None
    if form.validate_on_submit():
        fields = ProjectFields(form.name.data, form.k.data, form.lease_minutes.data, form.guidelines.data or "")
        try:
            change_project_settings(project, fields, option_values(form, form_options(task)),
                                    whole_number(request.form.get("confirm_k")), who())
        except (OptionError, FormatError) as error:
            flash(str(error), "error")
        except ToConfirm as change:
            unconfirmed = change.change
        else:
            flash("Settings saved.", "info")
            return redirect(url_for(".project", slug=slug))
    return project_page(project, form=form, k_change=unconfirmed)


def project_page(project: Project, form: FlaskForm | None = None, quality: FlaskForm | None = None,
                 k_change: KChange | None = None, overlap_change: OverlapChange | None = None) -> str:
    """A project's page; a settings form as it was sent (refused, or a change to confirm) instead of the stored
    settings, and the change to confirm above it."""
    task = project_task(project)
    summary = kept_figure(project, "summary")  # kept for a big project, else computed now
    progress = project_progress(project)
    no_gold = nothing_complete(project, progress)
    return render_template("admin/project.html", project=project, task=task, form=form or settings_form(project, task),
                           progress=progress, no_gold=no_gold and no_gold + ". The export's gold file holds no "
                           "row (its header only, or empty where the format has no header); include the pending "
                           "items to export the votes so far.", agreement=summary.value.agreement,
                           gold=summary.value.gold, votes=summary.value.labels, checks=summary.value.checks,
                           undecided=summary.value.undecided, freshness=summary.freshness,
                           rankable=rankable(project), links=format_links(project),
                           export_holds=export_form_text(project),
                           audience=audience_form(project), action=ActionForm(), delete=DeleteProjectForm(),
                           quality=quality or quality_form(project), controls=control_count(project),
                           k_change=k_change, overlap_change=overlap_change)


def control_count(project: Project) -> int:
    """Read with the request's stamp of the figures (which the page's summary has read already): counting the
    control items alone scanned a big project's items."""
    return request_stamp(project).controls


def audience_form(project: Project) -> AudienceForm:
    form = AudienceForm(data={"audience": project.audience, "annotators": [u.id for u in project.annotators]})
    form.annotators.choices = [SelectChoice(u.id, u.username) for u in db.session.scalars(
        select(User).where(User.role == "annotator", User.password_hash.is_not(None)).order_by(User.username))]
    return form


@bp.route("/projects/<slug>/export.zip")
@admin_required
def export(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    try:
        fmt = project_format(project)
    except FormatError as error:
        flash(f"No export: {error}.", "error")
        return redirect(url_for(".project", slug=slug))
    include = request.args.get("include_incomplete") in ("1", "y", "on", "true")
    try:
        buffer = export_zip(fmt, project, include, **export_choices(fmt))
    except ExportWriteError as error:
        failed = ExportNotWritten(f"The export of {project.slug} could not be written on the server "
                                  f"({error.error.strerror or error.error}); nothing was downloaded. "
                                  + ("Free space on the server, then export again." if error.disk_full else ""))
        return render_template("error.html", error=failed), failed.code if error.disk_full else 500
    message = page_message(listed_in_zip(buffer))
    response = send_file(buffer, mimetype="application/zip", as_attachment=True,
                         download_name=f"{project.slug}-{fmt.name}.zip")
    ticket = request.args.get("ticket", "")
    page = url_for(".project", slug=slug)
    if TICKET.fullmatch(ticket):  # the page's script waits for it (static/js/export.js)
        response.set_cookie("export-ticket", ticket, max_age=60, path=page, samesite="Lax", secure=request.is_secure)
    if message is not None:  # the page's script shows the cells it names
        response.set_cookie(FORMULA_COOKIE, message, max_age=60, path=page, samesite="Lax", secure=request.is_secure)
    elif FORMULA_COOKIE in request.cookies:  # an earlier export's cells are not this one's
        response.delete_cookie(FORMULA_COOKIE, path=page)
    return response


TICKET = re.compile(r"[a-z0-9]{8,40}")


class ExportNotWritten(HTTPException):
    code = 507
    name = "Export not written"


@bp.route("/projects/<slug>/ranking")
@admin_required
def ranking(slug: str) -> ResponseReturnValue:
    """What the project's format ranks (e.g. systems by their judgments), as tables."""
    project = project_or_404(slug)
    try:
        fmt = project_format(project)
    except FormatError as error:
        abort(404, str(error))
    if not fmt.ranks(project):
        abort(404, f"{fmt.title} projects rank nothing." if fmt.rank is None else
              f"Project {project.name} has nothing to rank (a best-worst question, for one, has its scores ranked).")
    ranking = kept_figure(project, "ranking")
    return render_template("admin/report.html", project=project, report=ranking.value, freshness=ranking.freshness)


def format_links(project: Project) -> list[tuple[str, str]]:
    """Links to the pages the project's shared task adds (FileFormat.project_links), as (text, URL)."""
    try:
        fmt = project_format(project)
    except FormatError:
        return []
    return fmt.project_links(project) if fmt.project_links else []


def export_form_text(project: Project) -> dict[str, Any] | None:
    """The format's name, what the export zip holds, in words, and the export's options of a few choices (the
    form offers each as a list), for the export form; None without a format."""
    try:
        fmt = project_format(project)
    except FormatError:
        return None
    return {"format": fmt.name, "contents": export_contents(fmt, project),
            "options": [o for o in fmt.export_options if o.choices and not o.cli_only]}


def export_choices(fmt: FileFormat) -> dict[str, Any]:
    """The export options of a few choices that the request names, as `flask export` takes them; a value that is
    not one of the choices is left to the default, as a form could not have sent it."""
    return {o.name: request.args[o.name] for o in fmt.export_options
            if o.choices and not o.cli_only and request.args.get(o.name) in o.choices}


def rankable(project: Project) -> bool:
    try:
        return project_format(project).ranks(project)
    except FormatError:
        return False
