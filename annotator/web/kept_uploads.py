"""A form's files kept between its tries (campaigns/kept_uploads.py), for every page that takes an upload: the
import pages, a leaderboard's gold set and its submissions. The form has a HiddenField `kept` and its file field
validated by forms.file_or_kept."""
from __future__ import annotations

from flask import request
from flask_wtf import FlaskForm
from wtforms import Field

from annotator.campaigns.kept_uploads import keep, kept_files
from annotator.campaigns.uploads import UploadError


def keep_files(form: FlaskForm, field: Field, kept: str = "kept") -> bool:
    """After validating a sent form: keep this try's files (else the last try's) for the next, under the token
    of the form's hidden field `kept`. False, with the reason on the field, when they cannot be kept (a name
    that cannot be a file's, two of one name)."""
    if request.method != "POST" or "csrf_token" in form.errors:
        return True
    data = field.data if isinstance(field.data, list) else [field.data]
    try:
        form[kept].data = keep(data, form[kept].data)
    except UploadError as error:
        form[kept].data = None
        field.errors = [*field.errors, str(error)]
        return False
    return True


def kept_upload(form: FlaskForm) -> tuple[str, bytes]:
    """The one file of a single-file form, as kept: its name and content."""
    [path] = kept_files(form.kept.data)
    return path.name, path.read_bytes()
