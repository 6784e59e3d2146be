"""Admin: annotator accounts (one, or many from a pasted list), their activity, tokens and access.

Generated passwords and new tokens appear once, on the page that answers the POST (sent with
`Cache-Control: no-store`), and are never stored in the clear.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, abort, flash, make_response, redirect, render_template, url_for
from flask.typing import ResponseReturnValue
from sqlalchemy import select

from annotator.actions import accounts
from annotator.core.audit import who
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, AnnotatorState, ApiToken, Assignment, Project, User
from annotator.people.access import admin_required
from annotator.people.accounts import AccountError, AccountsRefused, NewAccount
from annotator.web.forms import ActionForm, BulkUsersForm, NewUserForm, TokenForm

if TYPE_CHECKING:
    import pandas as pd

bp = Blueprint("accounts", __name__, url_prefix="/admin/annotators")


def annotator_stats() -> pd.DataFrame:
    """Per user: HITs submitted and the median seconds per HIT (one query, median in pandas)."""
    import pandas as pd
    rows = db.session.execute(select(Assignment.user_id, Assignment.seconds_spent)
                              .where(Assignment.status == SUBMITTED))
    # Plain tuples: pandas reads SQLAlchemy's Row objects as sequences one by one (about 9 times slower).
    frame = pd.DataFrame([tuple(row) for row in rows], columns=["user_id", "seconds"])
    return frame.groupby("user_id")["seconds"].agg(["count", "median"])


def _user_or_404(user_id: int) -> User:
    user = db.session.get(User, user_id)
    if user is None:
        abort(404, "There is no such account.")
    return user


def _secrets_page(template: str, **context: Any) -> Response:
    """A page that shows a password or token once: never cached."""
    response = make_response(render_template(template, **context))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.route("", methods=["GET", "POST"])
@admin_required
def index() -> ResponseReturnValue:
    form = NewUserForm()
    if form.validate_on_submit():
        try:
            account = accounts.create_account(form.username.data, form.role.data, form.password.data or None,
                                              not form.password.data, who())
        except AccountError as error:
            flash(f"Not created: {error}.", "error")
        else:
            if form.password.data:
                flash(f"Account {account.user.username!r} created.", "info")
                return redirect(url_for(".index"))
            return _secrets_page("admin/accounts_created.html", accounts=[account])
    return _accounts_page(form, BulkUsersForm(formdata=None))


def _accounts_page(form: NewUserForm, bulk: BulkUsersForm) -> ResponseReturnValue:
    """The annotators page with both forms as they are (a refused one keeps what was typed, with its errors)."""
    stats = annotator_stats()
    users = db.session.scalars(select(User).order_by(User.username)).all()
    rows = [(u, int(stats["count"].get(u.id, 0)), stats["median"].get(u.id)) for u in users]
    status = 400 if form.errors or bulk.errors else 200
    return render_template("admin/annotators.html", rows=rows, form=form, bulk=bulk), status


@bp.post("/bulk")
@admin_required
def bulk() -> ResponseReturnValue:
    """Accounts from a pasted list, all or none: a refused list is shown again as pasted, each problem with its line."""
    form = BulkUsersForm()
    if form.validate_on_submit():
        try:
            made = accounts.create_accounts(form.usernames.data.splitlines(), who())
        except AccountsRefused as error:
            form.usernames.errors = [f"No account created: {problem}." for problem in error.problems]
        else:
            return _secrets_page("admin/accounts_created.html", accounts=made)
    return _accounts_page(NewUserForm(formdata=None), form)


def quality_states(user: User) -> list[tuple[Project, AnnotatorState]]:
    """The projects where quality control has a state for this annotator (quiz, blocked), for the buttons."""
    return [(project, state) for project, state in db.session.execute(
        select(Project, AnnotatorState).join(AnnotatorState, AnnotatorState.project_id == Project.id)
        .where(AnnotatorState.user_id == user.id).order_by(Project.name))]


@bp.route("/<int:user_id>")
@admin_required
def show(user_id: int) -> ResponseReturnValue:
    user = _user_or_404(user_id)
    tokens = db.session.scalars(select(ApiToken).where(ApiToken.user_id == user.id).order_by(ApiToken.id)).all()
    stats = annotator_stats()
    return render_template("admin/annotator.html", user=user, tokens=tokens, token_form=TokenForm(),
                           action=ActionForm(), done=int(stats["count"].get(user.id, 0)),
                           median=stats["median"].get(user.id), quality=quality_states(user))


@bp.post("/<int:user_id>/active")
@admin_required
def toggle_active(user_id: int) -> ResponseReturnValue:
    user = _user_or_404(user_id)
    if ActionForm().validate_on_submit():
        try:
            ended = accounts.set_active(user, not user.active, who())
        except AccountError as error:
            flash(f"Not deactivated: {error}.", "error")
        else:
            flash(f"{user.username} is {'active' if user.active else 'deactivated'}"
                  + (f"; {ended} open HIT(s) released" if ended else "") + ".", "info")
    return redirect(url_for(".show", user_id=user.id))


@bp.post("/<int:user_id>/password")
@admin_required
def new_password(user_id: int) -> ResponseReturnValue:
    user = _user_or_404(user_id)
    if not ActionForm().validate_on_submit():
        return redirect(url_for(".show", user_id=user.id))
    password = accounts.reset_password(user, who())
    return _secrets_page("admin/accounts_created.html", accounts=[NewAccount(user, password)])


@bp.post("/<int:user_id>/tokens")
@admin_required
def new_token(user_id: int) -> ResponseReturnValue:
    user = _user_or_404(user_id)
    form = TokenForm()
    if not form.validate_on_submit():
        return redirect(url_for(".show", user_id=user.id))
    token = accounts.issue_token(user, form.note.data or "", who())
    return _secrets_page("admin/token_created.html", user=user, token=token)


@bp.post("/<int:user_id>/tokens/<int:token_id>/revoke")
@admin_required
def revoke_token(user_id: int, token_id: int) -> ResponseReturnValue:
    token = db.session.get(ApiToken, token_id)
    if token is None or token.user_id != user_id:
        abort(404, "There is no such token.")
    if ActionForm().validate_on_submit():
        accounts.revoke_token(token.user, token_id, who())
        flash("Token revoked: requests with it are refused from now on.", "info")
    return redirect(url_for(".show", user_id=user_id))
