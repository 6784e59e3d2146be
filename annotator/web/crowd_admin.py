"""The admin's page of a project's crowd study links: create or change them, see their URLs and sessions; who
may take the study (MTurk qualifications, Prolific screeners) and the MTurk create-HIT request to download."""
from __future__ import annotations

import json

from flask import Blueprint, Response, current_app, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_wtf import FlaskForm
from sqlalchemy import func, select
from wtforms import BooleanField, HiddenField, IntegerField, StringField
from wtforms.validators import AnyOf, DataRequired, Length, NumberRange, Optional

from annotator.actions.crowd_links import change_filters, save_link
from annotator.core.audit import who
from annotator.core.extensions import db
from annotator.core.forms import Form
from annotator.core.models import CROWD_PLATFORMS, CrowdLink, CrowdSession, Project
from annotator.core.options import OptionError
from annotator.people.access import admin_required
from annotator.people.crowd import CrowdError, base_url_warning, entry_url
from annotator.people.crowd_filters import CROWD_OPTIONS, crowd_settings, filters_in_words, prolific_screeners
from annotator.people.crowd_limits import account_cap, accounts_made
from annotator.people.mturk_request import ENVIRONMENTS, create_hit_request
from annotator.web.common import project_or_404
from annotator.web.forms import option_values, options_form

bp = Blueprint("crowd_admin", __name__, url_prefix="/admin")

TITLES = {"prolific": "Prolific", "mturk": "Amazon Mechanical Turk (ExternalQuestion)"}


class CrowdLinkForm(Form):
    platform = HiddenField(validators=[AnyOf(CROWD_PLATFORMS)])
    hits = IntegerField("HITs per study session", validators=[DataRequired(), NumberRange(min=1)])
    completion_code = StringField("Completion code", validators=[DataRequired(), Length(max=80)])
    screen_out_code = StringField("Screen-out code (given to blocked workers or who fail the quiz)",
                                  validators=[Optional(), Length(max=80)])
    new_secret = BooleanField("New secret (every link given out before stops working)")


@bp.route("/projects/<slug>/crowd", methods=["GET", "POST"])
@admin_required
def links(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    # One form per platform on the page, told apart by their prefix.
    which = next((p for p in CROWD_PLATFORMS if f"{p}-platform" in request.form), CROWD_PLATFORMS[0])
    posted = CrowdLinkForm(prefix=which)
    if posted.validate_on_submit():
        try:
            save_link(project, posted.platform.data, posted.hits.data, posted.completion_code.data.strip(),
                      (posted.screen_out_code.data or "").strip(), bool(posted.new_secret.data), who())
        except CrowdError as error:
            flash(str(error), "error")
        else:
            flash(f"The {TITLES[posted.platform.data]} link is saved.", "info")
            return redirect(url_for(".links", slug=slug))
    elif request.method == "POST":
        flash("The link was not saved: " + "; ".join(e for errors in posted.errors.values() for e in errors), "error")
    settings = crowd_settings(project)
    return render_template("admin/crowd.html", project=project, titles=TITLES, cards=_cards(project),
                           filters=filters_form(project), in_words=filters_in_words(settings),
                           screeners=prolific_screeners(settings), environments=ENVIRONMENTS,
                           base_url_warning=None if current_app.config.get("PUBLIC_BASE_URL") else
                           base_url_warning(request.host_url))


def filters_form(project: Project, formdata: object = None) -> FlaskForm:
    return options_form(CROWD_OPTIONS, crowd_settings(project), "CrowdFiltersForm", formdata)


@bp.post("/projects/<slug>/crowd/filters")
@admin_required
def filters(slug: str) -> ResponseReturnValue:
    """Save the worker filters and the MTurk HIT's settings: all of them, or none with the reason."""
    project = project_or_404(slug)
    form = filters_form(project, request.form)
    if not form.validate():
        problems = (f"{form[name].label.text}: {error}" for name, errors in form.errors.items() for error in errors)
        flash("Crowd settings not saved: " + "; ".join(problems), "error")
        return redirect(url_for(".links", slug=slug, _anchor="crowd-filters"))
    try:
        change_filters(project, option_values(form, CROWD_OPTIONS), who(), replace=True)
    except OptionError as error:
        flash(f"Crowd settings not saved: {error}", "error")
        return redirect(url_for(".links", slug=slug, _anchor="crowd-filters"))
    flash("Crowd settings saved.", "info")
    return redirect(url_for(".links", slug=slug, _anchor="crowd-filters"))


@bp.get("/projects/<slug>/crowd/mturk-create-hit.json")
@admin_required
def mturk_request(slug: str) -> ResponseReturnValue:
    """The create-HIT request as a file for `aws mturk create-hit --cli-input-json` or boto3's create_hit."""
    project = project_or_404(slug)
    environment = request.args.get("environment", "production")
    base = (current_app.config.get("PUBLIC_BASE_URL") or request.url_root).rstrip("/")
    try:
        body = create_hit_request(project, base, environment)
    except CrowdError as error:
        flash(f"No create-HIT file: {error}", "error")
        return redirect(url_for(".links", slug=slug, _anchor="crowd-mturk"))
    name = f"{project.slug}-mturk-create-hit{'-sandbox' if environment == 'sandbox' else ''}.json"
    return Response(json.dumps(body, indent=2, ensure_ascii=False) + "\n", mimetype="application/json",
                    headers={"Content-Disposition": f"attachment; filename={name}"})


def _cards(project: Project) -> list[dict]:
    base = current_app.config.get("PUBLIC_BASE_URL") or request.url_root
    found = {link.platform: link for link in db.session.scalars(select(CrowdLink)
                                                                .where(CrowdLink.project_id == project.id))}
    cards = []
    for platform in CROWD_PLATFORMS:
        link = found.get(platform)
        data = ({"platform": platform, "hits": link.hits, "completion_code": link.completion_code,
                 "screen_out_code": link.screen_out_code} if link else {"platform": platform, "hits": 10})
        cards.append({"platform": platform, "link": link,
                      "form": CrowdLinkForm(formdata=None, data=data, prefix=platform),
                      "url": entry_url(link, base) if link else None, "sessions": _sessions(link),
                      "accounts": (accounts_made(link), account_cap(link)) if link else None})
    return cards


def _sessions(link: CrowdLink | None) -> dict[str, int]:
    if link is None:
        return {}
    started, completed, screened = db.session.execute(
        select(func.count(), func.count(CrowdSession.completed_at), func.count(CrowdSession.screened_out))
        .where(CrowdSession.link_id == link.id)).one()
    return {"started": int(started), "completed": int(completed), "screened out": int(screened)}
