"""The stance project's admin page "Create / extend the premise stage": `flask premise-stage` in a form.

It shows, before anything is made, how many of the stance stage's decided sentences are relevant to a
claim and how many of them the premise stage holds already; the form then calls the command's own
action (stages.create_premise_stage, the logged-in admin acting), so the page and the command cannot differ.
"""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, url_for
from flask.typing import ResponseReturnValue
from wtforms import IntegerField, StringField
from wtforms.validators import DataRequired, Length, NumberRange, Optional, Regexp

from annotator.campaigns.import_refused import ImportRefused
from annotator.core.audit import who
from annotator.core.errors import FormatError
from annotator.core.forms import Form
from annotator.people.access import admin_required
from annotator.shared_tasks.ruarg2022 import stages

bp = Blueprint("premise_stage", __name__, url_prefix="/admin")


class PremiseStageForm(Form):
    slug = StringField("Slug of the premise-stage project (new, or the one to extend)", validators=[
        DataRequired(), Length(max=80),
        Regexp(r"^[a-z0-9][a-z0-9_-]*$", message="Lower-case letters, digits, - and _ only, starting with a "
                                                  "letter or digit.")])
    name = StringField("Name (of a new project; empty: the slug)", validators=[Optional(), Length(max=200)])
    k = IntegerField("Annotators per sentence (k)", validators=[Optional(), NumberRange(1, 1000)])
    agree = IntegerField("A premise needs the same code from at least this many annotators (m of n)",
                         validators=[Optional(), NumberRange(1, 100)])


@bp.route("/projects/<slug>/premise-stage", methods=["GET", "POST"])
@admin_required
def show(slug: str) -> ResponseReturnValue:
    try:
        preview = stages.premise_preview(stages.stance_stage(slug))
    except FormatError as error:
        abort(404, str(error))
    first = preview.premises[0] if preview.premises else None
    form = PremiseStageForm(data={"slug": first.slug, "k": first.k, "agree": stages.agree_of(first)}
                            if first else {"slug": f"{slug[:72]}-premise", "k": 3, "agree": 2})
    refused = None
    if form.validate_on_submit():
        try:
            result = stages.create_premise_stage(slug, form.slug.data, name=form.name.data or None, k=form.k.data,
                                                 agree=form.agree.data, by=who())
        except ImportRefused as error:
            refused = str(error)
        else:
            flash(result.summary(slug), "info")
            return redirect(url_for("admin.project", slug=result.project.slug))
    return render_template("admin/premise_stage.html", preview=preview, form=form, refused=refused), \
        400 if refused or form.errors else 200
