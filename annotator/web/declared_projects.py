"""Admin: a declared campaign's project from the browser: upload the definition and the items, see what is
wrong (file, line, column or key path) or a preview of the HIT as annotators will see it, then create it.

Two steps, nothing in the database before the second: "Check and preview" reads both files (the same checks
as `flask import`), and on success keeps the two uploaded files in a staging folder under the instance folder,
named by a random token that only this admin's session holds; "Create the project" imports them from there
through the one import path (the action actions/imports.import_project), all or nothing, and removes the
folder. Staged uploads older than a day are removed whenever a new one is staged. "Create the project" on the
upload form skips the preview. A refused try keeps each field's files (campaigns/kept_uploads.py): only the file
that was wrong is chosen again.

More items for a declared project (`/admin/projects/declared/<slug>/more`): an items file checked against the
project's own definition, imported through the same path, all or nothing.
"""
from __future__ import annotations

import json
import secrets
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, session, url_for
from flask.typing import ResponseReturnValue
from flask_wtf.file import FileField, FileRequired, MultipleFileField
from sqlalchemy import select
from wtforms import HiddenField, IntegerField, StringField
from wtforms.validators import DataRequired, Length, NumberRange, Optional, Regexp

from annotator.actions.imports import import_project
from annotator.campaigns.file_kinds import kind_hint
from annotator.campaigns.import_refused import ImportRefused
from annotator.campaigns.kept_uploads import discard, kept_files
from annotator.campaigns.uploads import UploadError, UploadLimits, input_path, save_uploads
from annotator.core.audit import who
from annotator.core.errors import LocatedError
from annotator.core.extensions import db
from annotator.core.forms import Form
from annotator.core.models import Project
from annotator.core.private_files import private_folder, write_private_text
from annotator.declared.definition import Definition
from annotator.declared.items import iter_items, load_definition
from annotator.people.access import admin_required
from annotator.shared_tasks.custom.exchange import FORMAT as fmt
from annotator.tasks.custom import DeclaredTask
from annotator.web.common import project_or_404
from annotator.web.forms import file_or_kept
from annotator.web.hit_preview import render_preview as hit_preview
from annotator.web.kept_uploads import keep_files

bp = Blueprint("declared", __name__, url_prefix="/admin/projects/declared")

STAGING = "staged-declared-projects"
SESSION_KEY = "declared_staged"
MAX_AGE = 24 * 3600
TOKEN_LENGTH = 32


class DeclaredProjectForm(Form):
    definition = FileField("Definition (YAML or JSON)",
                           validators=[file_or_kept("Choose the definition file.", "kept_definition")],
                           description="What the HIT shows and asks, the gold rules and agreement levels.")
    beside = MultipleFileField("Files the definition names (e.g. guidelines: guidelines.md)",
                               description="Kept next to the definition, as they are next to it on your disk.")
    items = FileField("Items (CSV, TSV or JSON Lines)",
                      validators=[file_or_kept("Choose the items file.", "kept_items")],
                      description="One column (key) per field the definition reads; optional id and known.<question> "
                                  "columns (control items).")
    slug = StringField("Slug (in URLs: lower-case letters, digits, - and _)", validators=[
        DataRequired(), Length(max=80),
        Regexp(r"^[a-z0-9][a-z0-9_-]*$", message="Lower-case letters, digits, - and _ only, starting with a letter "
                                                 "or digit.")])
    name = StringField("Name (blank: the definition's name)", validators=[Optional(), Length(max=200)])
    k = IntegerField("Annotators per item (k; blank: the definition's k, else 3)",
                     validators=[Optional(), NumberRange(1, 1000)])
    lease_minutes = IntegerField("Lease (minutes)", default=30, validators=[DataRequired(), NumberRange(1, 24 * 60)])
    # The files of the last try, each field's under its own token (campaigns/kept_uploads.py): a refused form
    # keeps them, and a file not chosen again is taken from there.
    kept_definition = HiddenField()
    kept_beside = HiddenField()
    kept_items = HiddenField()

    def kept_tokens(self) -> list[str | None]:
        return [self.kept_definition.data, self.kept_beside.data, self.kept_items.data]


class MoreItemsForm(Form):
    items = FileField("Items (CSV, TSV or JSON Lines, or a zip of the file)",
                      validators=[FileRequired("Choose the items file.")],
                      description="The columns the project's definition reads, ids new to the project.")


class CreateForm(Form):
    token = HiddenField(validators=[DataRequired(), Length(min=TOKEN_LENGTH, max=TOKEN_LENGTH)])


@dataclass(frozen=True)
class Checked:
    definition: Definition
    items: int
    controls: int
    first: dict[str, Any]


def render_preview(definition: Definition, payload: dict[str, Any]) -> str:
    """The HIT page for one item, as annotators will see it (the declared HIT page's own preview)."""
    return hit_preview(DeclaredTask(definition), definition, payload)


def _staging_root() -> Path:
    return Path(current_app.config.get("INSTANCE_DIR") or current_app.instance_path) / STAGING


def _sweep(root: Path) -> None:
    """Remove staged uploads older than a day (an admin who previewed and never created)."""
    if not root.is_dir():
        return
    for folder in root.iterdir():
        try:
            if time.time() - folder.stat().st_mtime > MAX_AGE:
                shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue


def _stage(form: DeclaredProjectForm) -> Path:
    """The uploads written into a fresh staging folder (with the upload checks of every page: sizes, names, zips),
    with the form's project fields; its path."""
    root = _staging_root()
    _sweep(root)
    folder = root / secrets.token_hex(TOKEN_LENGTH // 2)
    private_folder(folder, exist_ok=False)
    limits = UploadLimits.from_config(current_app.config)
    try:
        definition = save_uploads(_kept_streams(form.kept_definition.data), folder / "definition", limits)
        if len(definition) != 1 or definition[0].parent != folder / "definition":
            raise UploadError("the definition is one YAML or JSON file, not a zip",
                              file=definition[0].name if definition else None)
        items = input_path(save_uploads(_kept_streams(form.kept_items.data), folder / "items", limits),
                           folder / "items", "file")   # a zip of the one file is fine too
        for name, stream in _kept_streams(form.kept_beside.data):   # next to the definition (a zip: its folder)
            save_uploads([(name, stream)], folder / "definition", limits)
        meta = {"slug": form.slug.data, "name": form.name.data or None, "k": form.k.data,
                "lease_minutes": form.lease_minutes.data, "definition": definition[0].name,
                "items": items.relative_to(folder).as_posix()}
        write_private_text(folder / "project.json", json.dumps(meta))
    except OSError as error:   # the disk full, say: in words, and nothing staged stays
        shutil.rmtree(folder, ignore_errors=True)
        raise UploadError(f"the uploaded files could not be kept on the server ({error.strerror or error})") from None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder


def _kept_streams(token: str | None) -> Iterator[tuple[str, BinaryIO]]:
    """The files kept under the token (the form's last try's, or this one's), as (name, stream), each open only
    while it is copied: an items file of 60 MB is not read into memory."""
    for path in kept_files(token):
        with path.open("rb") as stream:
            yield path.name, stream


def _files(folder: Path) -> tuple[Path, Path]:
    meta = json.loads((folder / "project.json").read_text(encoding="utf-8"))
    return folder / "definition" / meta["definition"], folder / meta["items"]


def _check(folder: Path) -> Checked:
    """Both files read and checked as `flask import` checks them, ids against each other too (FormatError,
    located); nothing is stored. The items are read as a stream: only the first is kept, for the preview."""
    definition_path, items_path = _files(folder)
    definition = load_definition(definition_path)
    first: dict[str, Any] = {}
    count = controls = 0
    for item in iter_items(items_path, definition, check_ids=True):
        first = first or {"id": item.external_id, **item.payload}
        count += 1
        controls += item.control
    return Checked(definition, count, controls, first)


def _refused(error: Exception) -> dict[str, Any]:
    located = error if isinstance(error, LocatedError) else error.__cause__ \
        if isinstance(error.__cause__, LocatedError) else None
    message = located.message if isinstance(located, LocatedError) else str(error)
    return {"message": message.removesuffix("\nNothing was imported."),
            "file": located.file if located else None, "line": located.line if located else None,
            "column": located.column if located else None}


def _items_hint(items: Path | None, refused: dict[str, Any]) -> str | None:
    """What the items file looks like, when the problem is in it and it is not CSV, TSV or JSON Lines."""
    if items is None or not items.is_file() or refused.get("file") != items.name:
        return None
    return kind_hint(items, fmt.kinds, fmt.expects)


def _staged_items(folder: Path | None) -> Path | None:
    try:
        return _files(folder)[1] if folder is not None else None
    except (OSError, ValueError, KeyError):
        return None


def _slug_taken(slug: str) -> bool:
    return db.session.scalar(select(Project.id).where(Project.slug == slug)) is not None


def _create(folder: Path) -> ResponseReturnValue:
    """Import the staged files into the new project, all or nothing (the import checks all of them as it reads
    them, and refuses a slug taken since they were checked). The caller removes the staging folder, whatever the
    outcome."""
    meta = json.loads((folder / "project.json").read_text(encoding="utf-8"))
    definition_path, items_path = _files(folder)
    try:
        result = import_project(fmt, items_path, slug=meta["slug"], name=meta["name"], k=meta["k"],
                                lease_minutes=meta["lease_minutes"], options={"definition": definition_path},
                                new=True, by=who())
    finally:
        session.pop(SESSION_KEY, None)
    flash(f"Project {result.project.name!r} created with {result.items} items.", "info")
    return redirect(url_for("admin.project", slug=result.project.slug))


@bp.route("/new", methods=["GET", "POST"])
@admin_required
def new() -> ResponseReturnValue:
    form, refused, checked, preview = DeclaredProjectForm(), None, None, None
    token = None
    valid = form.validate_on_submit()
    kept = [keep_files(form, form.definition, "kept_definition"), keep_files(form, form.beside, "kept_beside"),
            keep_files(form, form.items, "kept_items")]
    if valid and all(kept):
        if _slug_taken(form.slug.data):
            form.slug.errors.append("There is already a project with this slug.")
        else:
            folder = None
            try:
                folder = _stage(form)
                if request.form.get("action") == "create":   # no preview: the import checks as it reads
                    response = _create(folder)
                    shutil.rmtree(folder, ignore_errors=True)
                    for kept_token in form.kept_tokens():
                        discard(kept_token)
                    return response
                checked = _check(folder)
                preview = render_preview(checked.definition, checked.first)
                token = folder.name
                session[SESSION_KEY] = token
            except (LocatedError, ImportRefused) as error:
                refused, checked = _refused(error), None
                refused["hint"] = _items_hint(_staged_items(folder), refused)
                if folder is not None:
                    shutil.rmtree(folder, ignore_errors=True)
            except BaseException:   # whatever else ends the try, its staged files do not stay behind
                if folder is not None:
                    shutil.rmtree(folder, ignore_errors=True)
                raise
    status = 400 if refused or form.errors else 200
    return render_template("admin/declared_new.html", form=form, refused=refused, checked=checked,
                           preview=preview, create=CreateForm(data={"token": token}) if token else None,
                           kept=[path for t in form.kept_tokens() for path in kept_files(t)]), status


@bp.post("/create")
@admin_required
def create() -> ResponseReturnValue:
    form = CreateForm()
    token = form.token.data or ""
    if not form.validate_on_submit() or token != session.get(SESSION_KEY) or not token.isalnum():
        flash("Nothing was created: the checked files are no longer here (check and preview them again).", "error")
        return redirect(url_for("declared.new"))
    folder = _staging_root() / token
    if not folder.is_dir():
        flash("Nothing was created: the checked files are no longer here (check and preview them again).", "error")
        return redirect(url_for("declared.new"))
    try:
        return _create(folder)
    except ImportRefused as error:
        return render_template("admin/declared_new.html", form=DeclaredProjectForm(), refused=_refused(error),
                               checked=None, preview=None, create=None), 400
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@bp.route("/<slug>/more", methods=["GET", "POST"])
@admin_required
def more(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    if project.definition is None:
        abort(404, f"Project {slug!r} is not a declared campaign.")
    form, refused = MoreItemsForm(), None
    if form.validate_on_submit():
        root = _staging_root()
        folder = root / secrets.token_hex(TOKEN_LENGTH // 2)
        try:
            private_folder(folder, exist_ok=False)
            definition = folder / "definition.json"   # the project's own, as checked when it was created
            write_private_text(definition, json.dumps(project.definition, ensure_ascii=False))
            items = input_path(save_uploads([(form.items.data.filename or "", form.items.data.stream)],
                                            folder / "items", UploadLimits.from_config(current_app.config)),
                               folder / "items", "file")
            result = import_project(fmt, items, slug=slug, options={"definition": definition}, by=who())
        except UploadError as error:
            refused = _refused(error)
        except ImportRefused as error:
            refused = _refused(error)
            refused["hint"] = _items_hint(items, refused)
        else:
            flash(f"{result.items} items added.", "info")
            return redirect(url_for("admin.project", slug=slug))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return render_template("admin/declared_more.html", form=form, refused=refused, project=project), \
        400 if refused or form.errors else 200
