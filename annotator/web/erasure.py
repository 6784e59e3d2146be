"""Admin: erasing a person (annotator/people/erasure.py): a form naming them, a preview, then the confirmation.

The person is named in POSTed forms only, never in a URL (URLs end up in server logs and browser history).
"""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, url_for
from flask.typing import ResponseReturnValue
from flask_wtf import FlaskForm
from wtforms import BooleanField, HiddenField, SelectField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length

from annotator.core.extensions import db
from annotator.core.models import User
from annotator.people.erasure import ErasureError, erase, find_person, preview
from annotator.web.admin import admin_required

bp = Blueprint("erasure", __name__, url_prefix="/admin/erase")

KINDS = [SelectChoice("account", "Account (user name)"), SelectChoice("prolific", "Prolific ID"),
         SelectChoice("mturk", "MTurk worker ID")]


class FindPersonForm(FlaskForm):
    kind = SelectField("Who", choices=KINDS, default="account")
    identity = StringField("Name or ID", validators=[DataRequired(), Length(max=200)])
    delete_votes = BooleanField("Delete their votes too (gold and agreement change; shown before you confirm)")


class ConfirmErasureForm(FlaskForm):
    user_id = HiddenField(validators=[DataRequired()])
    delete_votes = HiddenField()


@bp.route("", methods=["GET", "POST"])
@admin_required
def index() -> ResponseReturnValue:
    form = FindPersonForm()
    if form.validate_on_submit():
        try:
            user = find_person(**{form.kind.data: form.identity.data})
        except ErasureError as error:
            form.identity.errors = [f"Not found: {error}."]
        else:
            chosen = {"user_id": user.id, "delete_votes": "1" if form.delete_votes.data else ""}
            confirm = ConfirmErasureForm(data=chosen)
            return render_template("admin/erase_preview.html", shown=preview(user, form.delete_votes.data),
                                   delete_votes=form.delete_votes.data, confirm=confirm)
    return render_template("admin/erase.html", form=form), 400 if form.errors else 200


@bp.post("/confirm")
@admin_required
def confirm() -> ResponseReturnValue:
    form = ConfirmErasureForm()
    if not form.validate_on_submit() or not str(form.user_id.data).isdigit():
        flash("Nothing was erased: the form expired, please start again.", "error")
        return redirect(url_for(".index"))
    user = db.session.get(User, int(form.user_id.data))
    if user is None or user.is_admin:
        abort(404, "There is no such annotator account.")
    done = erase(user, delete_votes=form.delete_votes.data == "1")
    flash(f"Erased: the account is now {done.pseudonym}; {done.votes_kept} votes kept, {done.votes_deleted} deleted, "
          f"{done.crowd_sessions} study session(s) scrubbed, {done.tokens} API token(s) removed.", "info")
    return redirect(url_for(".index"))
