"""Admin leaderboards: gold sets (uploaded or from a project), scored submissions, rankings."""
from __future__ import annotations

import tempfile
from pathlib import Path

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_wtf import FlaskForm
from sqlalchemy import select

from annotator.actions import leaderboard as leaderboard_actions
from annotator.campaigns import leaderboard
from annotator.campaigns.file_kinds import kind_hint
from annotator.campaigns.kept_uploads import discard, kept_files
from annotator.campaigns.uploads import UploadError, safe_name
from annotator.core.audit import who
from annotator.core.errors import FormatError, SubmissionError
from annotator.core.extensions import db
from annotator.core.models import GoldSet, Project
from annotator.core.options import OptionError
from annotator.lookups.scorer_base import Scorer
from annotator.lookups.scorers import SCORERS
from annotator.people.access import admin_required
from annotator.web.admin import rankable
from annotator.web.common import project_or_404
from annotator.web.forms import GoldSetForm, SubmissionForm, option_defaults, option_values, with_options
from annotator.web.kept_uploads import keep_files, kept_upload

bp = Blueprint("leaderboards", __name__, url_prefix="/admin/leaderboards")


@bp.route("/")
@admin_required
def index() -> ResponseReturnValue:
    gold_sets = db.session.scalars(select(GoldSet).order_by(GoldSet.created_at.desc())).all()
    ranked = [p for p in db.session.scalars(select(Project).order_by(Project.name)) if rankable(p)]
    return render_template("admin/leaderboards.html", gold_sets=gold_sets, scorers=SCORERS, ranked=ranked)


@bp.route("/new/<task>", methods=["GET", "POST"])
@admin_required
def new(task: str) -> ResponseReturnValue:
    if task not in SCORERS:
        abort(404, f"There is no scorer {task!r}.")
    scorer = SCORERS[task]
    form = with_options(GoldSetForm, scorer.options, f"{task}GoldSetForm")()
    valid = form.validate_on_submit()
    if keep_files(form, form.file) and valid:
        filename, content = kept_upload(form)
        try:
            gold_set = leaderboard_actions.create_gold_set(form.name.data, task, filename, content,
                                                           option_values(form, scorer.options), who())
        except (FormatError, OptionError) as error:
            flash(f"This gold set cannot be used: {error}", "error")
            return render_template("admin/new_leaderboard.html", scorer=scorer, form=form,
                                   kept=kept_files(form.kept.data)), 400
        discard(form.kept.data)
        return redirect(url_for(".show", gold_set_id=gold_set.id))
    # A form sent with errors (no file, a bad option) says so with its status too, as the import pages do.
    return render_template("admin/new_leaderboard.html", scorer=scorer, form=form,
                           kept=kept_files(form.kept.data)), 400 if form.errors else 200


@bp.route("/from-project/<slug>", methods=["POST"])
@admin_required
def from_project(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    try:
        gold_set = leaderboard_actions.gold_set_from_project(project, who())
    except (FormatError, KeyError) as error:
        flash(f"No leaderboard from this project yet: {error}", "error")
        return redirect(url_for("admin.project", slug=slug))
    return redirect(url_for(".show", gold_set_id=gold_set.id))


@bp.route("/<int:gold_set_id>", methods=["GET", "POST"])
@admin_required
def show(gold_set_id: int) -> ResponseReturnValue:
    gold_set = db.get_or_404(GoldSet, gold_set_id, description="There is no such leaderboard.")
    scorer = SCORERS[gold_set.task]
    form, chosen = submission_form(gold_set, scorer), [scorer.option(n) for n in scorer.submission_options]
    status = 200
    valid = form.validate_on_submit()
    if keep_files(form, form.file) and valid:
        filename, content = kept_upload(form)
        try:
            leaderboard_actions.submit(gold_set, form.team.data, form.system.data, filename, content,
                                       option_values(form, chosen), who())
        except (SubmissionError, FormatError) as error:
            looks = submission_kind_hint(scorer, filename, content)
            flash(f"The submission was not scored: {looks + ' ' if looks else ''}{error}", "error")
            status = 400
        else:
            discard(form.kept.data)
            flash(f"{form.team.data} / {form.system.data} scored.", "info")
            return redirect(url_for(".show", gold_set_id=gold_set.id))
    if form.errors:
        status = 400
    by = request.args.get("by") if request.args.get("by") in scorer.rankings else None
    standings = leaderboard.standings(gold_set, by=by)
    alternatives = any(values for s in standings for values in s.beside.values())
    return render_template("admin/leaderboard.html", gold_set=gold_set, scorer=scorer, form=form,
                           kept=kept_files(form.kept.data), standings=standings, alternatives=alternatives,
                           by=by or scorer.rankings[0]), status


def submission_kind_hint(scorer: Scorer, filename: str, content: bytes) -> str | None:
    """What a refused submission looks like, when it is not a kind the scorer reads."""
    try:
        name = safe_name(filename)
    except UploadError:
        name = "submission"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(content)
        return kind_hint(path, scorer.submission_kinds, scorer.predictions, "the scorer")


def submission_form(gold_set: GoldSet, scorer: Scorer) -> FlaskForm:
    """The submission form, with the subtask (or track) choice where the task had several: proposed from the gold
    set's own option, else from its file's name (Task_1_dev.jsonl: subtask 1), shown and changeable."""
    chosen = [scorer.option(name) for name in scorer.submission_options]
    if not chosen:
        return SubmissionForm()
    guessed = scorer.guess_options(gold_set.filename) if scorer.guess_options else {}
    values = {o.name: gold_set.options.get(o.name, guessed.get(o.name)) for o in chosen}
    form_class = with_options(SubmissionForm, chosen, f"{scorer.name}SubmissionForm")
    return form_class(data=option_defaults(chosen, values))


@bp.route("/<int:gold_set_id>/submissions/<int:submission_id>")
@admin_required
def submission(gold_set_id: int, submission_id: int) -> ResponseReturnValue:
    gold_set = db.get_or_404(GoldSet, gold_set_id)
    entry = next((s for s in gold_set.submissions if s.id == submission_id), None)
    if entry is None:
        abort(404, "There is no such submission.")
    report = leaderboard.stored_report(gold_set, entry)
    return render_template("admin/submission.html", gold_set=gold_set, entry=entry, text=report.to_text())
