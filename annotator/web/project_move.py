"""The admin's way to move a project between servers: download its archive, upload one (project_move.py).

Short views over annotator/lifecycle: the archive is written to a temporary file (a project can be larger than
is wise to hold in memory) and removed once sent; an upload is checked whole and imported in one
transaction, so a refused archive changes nothing and the page says why.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from flask import Blueprint, current_app, flash, redirect, render_template, send_file, url_for
from flask.typing import ResponseReturnValue
from flask_wtf.file import FileField, FileRequired
from wtforms import BooleanField, StringField
from wtforms.validators import Length, NoneOf, Optional, Regexp

from annotator.campaigns.projects import RESERVED_SLUGS
from annotator.campaigns.uploads import UploadError, UploadLimits, check_zip
from annotator.core.forms import Form
from annotator.lifecycle.archive import ArchiveError
from annotator.lifecycle.project_move import export_project, import_project
from annotator.people.access import admin_required
from annotator.web.common import project_or_404

bp = Blueprint("project_move", __name__, url_prefix="/admin/projects")


class ProjectArchiveForm(Form):
    archive = FileField("Project archive (.zip from “Download the project archive” or `flask project export-all`)",
                        validators=[FileRequired("Choose the archive to import.")])
    slug = StringField("Import under another slug (empty: the archive's)",
                       validators=[Optional(), Length(max=80), Regexp(r"^[a-z0-9][a-z0-9_-]*$",
                                   message="Lower-case letters, digits, - and _ only."),
                       NoneOf(sorted(RESERVED_SLUGS), message="This is the address of an admin page: choose another.")])
    reuse_accounts = BooleanField("Accounts whose names exist here are the same people: give them their votes")


@bp.route("/<slug>/archive.zip")
@admin_required
def download(slug: str) -> ResponseReturnValue:
    """The project whole, as `flask project export-all` writes it."""
    project = project_or_404(slug)
    folder = Path(tempfile.mkdtemp(prefix="project-archive-"))
    try:
        written = export_project(project.slug, folder / f"{project.slug}-archive.zip")
        response = send_file(written.path, mimetype="application/zip", as_attachment=True,
                             download_name=written.path.name)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)  # nothing will be sent: the folder would be left behind
        raise
    response.call_on_close(lambda: shutil.rmtree(folder, ignore_errors=True))
    return response


@bp.route("/import-archive", methods=["GET", "POST"])
@admin_required
def upload() -> ResponseReturnValue:
    """The upload form; a valid upload is imported whole or refused with the reason (nothing changed)."""
    form = ProjectArchiveForm()
    if not form.validate_on_submit():
        return render_template("admin/import_archive.html", form=form), 400 if form.is_submitted() else 200
    with tempfile.TemporaryDirectory(prefix="project-archive-") as folder:
        path = Path(folder) / "upload.zip"
        form.archive.data.save(path)
        try:
            # A stranger's zip: the same bounds as every other upload (size, ratio, members) before it is read.
            check_zip(path, UploadLimits.from_config(current_app.config))
            imported = import_project(path, slug=form.slug.data or None, reuse_accounts=form.reuse_accounts.data)
        except (ArchiveError, UploadError) as error:
            flash(f"Nothing was imported: {str(error).replace('upload.zip', form.archive.data.filename or 'the file')}",
                  "error")
            return render_template("admin/import_archive.html", form=form), 400
    flash(f"Imported project {imported.slug}: {sum(imported.rows.values())} rows, {imported.accounts_created} "
          f"accounts created (disabled, without password), {imported.accounts_reused} reused.", "info")
    return redirect(url_for("admin.project", slug=imported.slug))
