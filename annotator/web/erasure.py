"""Admin: erasing a person (annotator/people/erasure.py): a form naming them, a preview, then the confirmation.

The person is named in POSTed forms only, never in a URL (URLs end up in server logs and browser history).
"""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, url_for
from flask.typing import ResponseReturnValue
from wtforms import BooleanField, HiddenField, IntegerField, SelectField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length, NumberRange
from wtforms.widgets import HiddenInput

from annotator.core.extensions import db
from annotator.core.forms import Form
from annotator.core.models import User
from annotator.people.access import admin_required
from annotator.people.erasure import ErasureError, erase, find_person, is_erased, preview

bp = Blueprint("erasure", __name__, url_prefix="/admin/erase")

KINDS = [SelectChoice("account", "Account (user name)"), SelectChoice("prolific", "Prolific ID"),
         SelectChoice("mturk", "MTurk worker ID")]


class FindPersonForm(Form):
    kind = SelectField("Who", choices=KINDS, default="account")
    identity = StringField("Name or ID", validators=[DataRequired(), Length(max=200)])
    delete_votes = BooleanField("Delete their votes too (gold and agreement change; shown before you confirm)")


class ConfirmErasureForm(Form):
    user_id = IntegerField(widget=HiddenInput(), validators=[DataRequired(), NumberRange(min=1, max=2**31 - 1)])
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
    if not form.validate_on_submit():
        problems = "; ".join(f"{name}: {' '.join(errors)}" for name, errors in form.errors.items())
        flash(f"Nothing was erased: the form expired or was altered ({problems}), please start again.", "error")
        return redirect(url_for(".index"))
    user = db.session.get(User, form.user_id.data)
    if user is None or user.is_admin:
        abort(404, "There is no such annotator account.")
    if is_erased(user):  # the confirmation sent twice (or from an old page)
        flash(f"Nothing was erased: this account is already erased (it is {user.username}).", "error")
        return redirect(url_for(".index"))
    try:
        done = erase(user, delete_votes=form.delete_votes.data == "1")
    except ErasureError as error:
        flash(f"Nothing was erased: {error}.", "error")
        return redirect(url_for(".index"))
    flash(f"Erased: the account is now {done.pseudonym}; {done.votes_kept} votes kept, {done.votes_deleted} deleted, "
          f"{done.crowd_sessions} study session(s) scrubbed, {done.tokens} API token(s) removed. On disk: "
          f"{done.on_disk.text}.", "info" if done.on_disk.done else "error")
    return redirect(url_for(".index"))
