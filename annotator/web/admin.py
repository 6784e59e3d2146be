"""Admin pages: projects and their progress, settings, agreement, gold counts, export; annotators."""
from __future__ import annotations

import io
import tempfile
import zipfile
from functools import wraps
from pathlib import Path
from typing import Any, Callable

import pandas as pd
from flask import Blueprint, abort, flash, redirect, render_template, send_file, url_for
from flask_login import current_user, login_required
from sqlalchemy import func, select

from ..exchange import exchange_for
from ..extensions import db
from ..models import SUBMITTED, Assignment, Project, User
from ..results import gold_frame, gold_summary, labels_frame, project_agreement, project_progress
from ..tasks import settings_with_defaults, task_type
from .common import project_or_404
from .forms import NewUserForm, settings_form

bp = Blueprint("admin", __name__, url_prefix="/admin")


def admin_required(view: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(view)
    @login_required
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not current_user.is_admin:
            abort(403, "This page is for admins.")
        return view(*args, **kwargs)
    return wrapper




@bp.route("/")
@admin_required
def projects():  # type: ignore[no-untyped-def]
    rows = [(p, task_type(p.task_type), project_progress(p))
            for p in db.session.scalars(select(Project).order_by(Project.name))]
    return render_template("admin/projects.html", rows=rows)


@bp.route("/projects/<slug>", methods=["GET", "POST"])
@admin_required
def project(slug: str):  # type: ignore[no-untyped-def]
    project = project_or_404(slug)
    task = task_type(project.task_type)
    form = settings_form(task, name=project.name, k=project.k, lease_minutes=project.lease_minutes,
                         guidelines=project.guidelines, **settings_with_defaults(task, project.settings))
    if form.validate_on_submit():
        error = _save_settings(project, task, form)
        if error is None:
            flash("Settings saved.", "info")
            return redirect(url_for(".project", slug=slug))
        flash(error, "error")
    labels = labels_frame(project)  # read once for agreement and gold
    return render_template("admin/project.html", project=project, task=task, form=form,
                           progress=project_progress(project), agreement=project_agreement(project, labels),
                           gold=gold_summary(project, gold_frame(project, labels)), votes=len(labels))


def _save_settings(project: Project, task, form) -> str | None:  # type: ignore[no-untyped-def]
    values = {s.name: float(form[s.name].data) for s in task.settings if form[s.name].data is not None}
    if "positive_threshold" in values and values.get("negative_threshold", 0) >= values["positive_threshold"]:
        return "The no-match threshold must be below the match threshold."
    project.name, project.k, project.lease_minutes = form.name.data, form.k.data, form.lease_minutes.data
    project.guidelines = form.guidelines.data or ""
    project.settings = {**(project.settings or {}), **values}
    db.session.commit()
    return None


@bp.route("/projects/<slug>/export.zip")
@admin_required
def export(slug: str):  # type: ignore[no-untyped-def]
    project = project_or_404(slug)
    exchange = exchange_for(project.source.get("format", ""))
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in exchange.export_files(project, Path(tmp)):
            archive.write(path, arcname=path.name)
    buffer.seek(0)
    return send_file(buffer, mimetype="application/zip", as_attachment=True,
                     download_name=f"{project.slug}-{exchange.FORMAT}.zip")


def annotator_stats() -> pd.DataFrame:
    """Per user: HITs submitted and the median seconds per HIT (one query, median in pandas)."""
    rows = db.session.execute(select(Assignment.user_id, Assignment.seconds_spent)
                              .where(Assignment.status == SUBMITTED)).all()
    frame = pd.DataFrame(rows, columns=["user_id", "seconds"])
    return frame.groupby("user_id")["seconds"].agg(["count", "median"])


@bp.route("/annotators", methods=["GET", "POST"])
@admin_required
def annotators():  # type: ignore[no-untyped-def]
    form = NewUserForm()
    if form.validate_on_submit():
        if db.session.scalar(select(func.count()).where(User.username == form.username.data)):
            flash(f"There is already a user {form.username.data!r}.", "error")
        else:
            user = User(username=form.username.data, role=form.role.data)
            user.set_password(form.password.data)
            db.session.add(user)
            db.session.commit()
            flash(f"Account {user.username!r} created.", "info")
            return redirect(url_for(".annotators"))
    stats = annotator_stats()
    users = db.session.scalars(select(User).order_by(User.username)).all()
    rows = [(u, int(stats["count"].get(u.id, 0)), stats["median"].get(u.id)) for u in users]
    return render_template("admin/annotators.html", rows=rows, form=form)
