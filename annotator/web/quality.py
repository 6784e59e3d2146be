"""Admin: a project's quality control: its settings, control items, and the annotators (quiz, blocking).

The rules themselves live in annotator/quality; these views parse the forms and change rows only through the
domain actions (annotator/actions), which check, write and record.
"""
from __future__ import annotations

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from annotator.actions import blocking
from annotator.actions import controls as control_actions
from annotator.actions.settings import ToConfirm, change_quality_settings
from annotator.core.audit import who
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import Item, Project, User
from annotator.core.options import OptionError
from annotator.figures.kept_figures import kept_figure
from annotator.people.access import admin_required
from annotator.quality import QUALITY_OPTIONS, quality_settings
from annotator.quality.annotators import annotator_table, table_csv
from annotator.quality.bulk_controls import controls_csv, read_control_file
from annotator.quality.controls import ControlRefused
from annotator.web.admin import project_page
from annotator.web.common import project_or_404
from annotator.web.forms import ActionForm, option_values, quality_form, whole_number

bp = Blueprint("quality", __name__, url_prefix="/admin/projects/<slug>")


@bp.post("/quality")
@admin_required
def settings(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    form = quality_form(project, request.form)
    if not form.validate():
        flash("Quality settings not saved: " + "; ".join(e for errors in form.errors.values() for e in errors), "error")
        return redirect(url_for("admin.project", slug=slug, _anchor="quality"))
    try:
        change_quality_settings(project, option_values(form, QUALITY_OPTIONS),
                                whole_number(request.form.get("confirm_max_k")), who())
    except (OptionError, FormatError) as error:
        flash(f"Quality settings not saved: {error}", "error")
        return redirect(url_for("admin.project", slug=slug, _anchor="quality"))
    except ToConfirm as unconfirmed:  # the page with the form as sent and what saving it does, nothing saved
        return project_page(project, quality=form, overlap_change=unconfirmed.change)
    flash("Quality settings saved.", "info")
    return redirect(url_for("admin.project", slug=slug, _anchor="quality"))


@bp.post("/items/<int:item_id>/control")
@admin_required
def control(slug: str, item_id: int) -> ResponseReturnValue:
    """Make the item a control item (known answer: its reference, else its current gold), or stop that."""
    project = project_or_404(slug)
    item = db.session.get(Item, item_id)
    if item is None or item.project_id != project.id or not ActionForm().validate_on_submit():
        abort(404, "There is no such item in this project.")
    external_id = item.external_id
    if request.form.get("control") == "off":
        control_actions.make_ordinary(project, item, who())
        flash(f"Item {external_id} is an ordinary item again.", "info")
    else:
        try:
            control_actions.make_control(project, item, who())
        except ControlRefused as error:
            flash(str(error), "error")
            return redirect(request.referrer or url_for("items.index", slug=slug))
        flash(f"Item {external_id} is a control item now.", "info")
    return redirect(request.referrer or url_for("items.index", slug=slug))


@bp.get("/controls.csv")
@admin_required
def controls_file(slug: str) -> ResponseReturnValue:
    """The project's control items with their known answers, as a file the upload below reads back."""
    project = project_or_404(slug)
    return Response(controls_csv(project), mimetype="text/csv",
                    headers={"Content-Disposition": f"attachment; filename={project.slug}-controls.csv"})


def _whole(value: str | None, field: str) -> int:
    try:
        return int((value or "").strip())
    except ValueError:
        raise ControlRefused(f"field {field}: {value!r} is not a whole number.") from None


@bp.post("/controls")
@admin_required
def controls(slug: str) -> ResponseReturnValue:
    """Mark (action=add) or unmark (action=remove) the items of an uploaded controls CSV, draw n random items
    with a known answer (action=draw, fields n and seed), or unmark all (action=remove-all): all or nothing,
    the first bad line or field named."""
    project = project_or_404(slug)
    back = redirect(url_for("admin.project", slug=slug, _anchor="quality"))
    if not ActionForm().validate_on_submit():
        flash("Control items not changed: the form expired, please try again.", "error")
        return back
    action = request.form.get("action")
    by = who()
    try:
        if action == "remove-all":
            count = control_actions.remove_controls(project, None, "", by)
            message = f"{count} control items are ordinary items again."
        elif action == "draw":
            n, seed = (_whole(request.form.get(field), field) for field in ("n", "seed"))
            count = len(control_actions.draw_controls(project, n, seed, by))
            message = f"{count} items drawn with seed {seed} are control items now."
        elif action not in ("add", "remove"):
            raise ControlRefused(f"field action: {action!r} is none of add, remove, draw, remove-all.")
        else:
            upload = request.files.get("file")
            if upload is None or not upload.filename:
                raise ControlRefused("Choose a CSV file of item ids (column item, optionally answer).")
            try:
                text = upload.read().decode("utf-8")
            except UnicodeDecodeError as error:
                raise ControlRefused(f"{upload.filename}: not UTF-8 text (byte {error.start}).") from None
            lines = read_control_file(text, upload.filename, answers=action != "remove")
            if action == "remove":
                count = control_actions.remove_controls(project, lines, upload.filename, by)
                message = f"{count} items of {upload.filename} are ordinary items again."
            else:
                count = control_actions.add_controls(project, lines, upload.filename, by)
                message = f"{count} items of {upload.filename} are control items now."
    except ControlRefused as error:
        flash(f"Control items not changed: {error}", "error")
        return back
    flash(message, "info")
    return back


@bp.get("/annotators")
@admin_required
def annotators(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    figures = kept_figure(project, "annotators")  # kept for a big project, else computed now
    table = annotator_table(project, figures.value)
    if request.args.get("format") == "csv":
        return Response(table_csv(table), mimetype="text/csv",
                        headers={"Content-Disposition": f"attachment; filename={project.slug}-annotators.csv"})
    return render_template("admin/quality_annotators.html", project=project, rows=table, freshness=figures.freshness,
                           quality=quality_settings(project), action=ActionForm())


def _annotator(project: Project, user_id: int) -> User:
    user = db.session.get(User, user_id)
    if user is None or not ActionForm().validate_on_submit():
        abort(404, "There is no such annotator.")
    return user


@bp.post("/annotators/<int:user_id>/retry")
@admin_required
def retry(slug: str, user_id: int) -> ResponseReturnValue:
    project = project_or_404(slug)
    user = _annotator(project, user_id)
    blocking.allow_retry(project, user, who())
    flash(f"{user.username} may take the qualification quiz again.", "info")
    return redirect(url_for(".annotators", slug=slug))


@bp.post("/annotators/<int:user_id>/unblock")
@admin_required
def unblock_annotator(slug: str, user_id: int) -> ResponseReturnValue:
    project = project_or_404(slug)
    user = _annotator(project, user_id)
    blocking.unblock(project, user, who())
    flash(f"{user.username} is unblocked; votes already taken out stay out.", "info")
    return redirect(url_for(".annotators", slug=slug))
