"""Log in and out with a password (browser sessions); the API uses tokens instead (api.py)."""
from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_login import COOKIE_NAME, current_user, login_required, login_user, logout_user

from annotator.core.extensions import db
from annotator.core.models import User
from annotator.people.accounts import authenticate, change_password
from annotator.web.common import home_url
from annotator.web.favicon import ENDPOINT as FAVICON
from annotator.web.forms import LoginForm, PasswordForm

bp = Blueprint("auth", __name__)


def _safe_next(target: str | None, user: User) -> str:
    """Only same-site relative targets: a login link must not redirect to another site."""
    if target and not urlsplit(target).netloc and target.startswith("/") and not target.startswith("//"):
        return target
    return home_url(user)


@bp.before_app_request
def _one_time_password_first() -> ResponseReturnValue | None:
    """An account made with a one-time password chooses its own before anything else (pages only)."""
    # The API first: it has no session cookie, and asking current_user would parse and load one.
    if (request.blueprint != "api" and request.endpoint not in ("auth.password", "auth.logout", "static", FAVICON)
            and current_user.is_authenticated and current_user.must_change_password):
        flash("Please choose your own password first.", "info")
        return redirect(url_for("auth.password"))
    return None


@bp.route("/login", methods=["GET", "POST"])
def login() -> ResponseReturnValue:
    if current_user.is_authenticated:
        return redirect(home_url(current_user))
    form = LoginForm()
    if form.validate_on_submit():
        user = authenticate(form.username.data, form.password.data)
        if user is None:
            flash("Unknown user name or wrong password.", "error")
            return render_template("auth/login.html", form=form), 401
        login_user(user, remember=form.remember.data)
        return redirect(_safe_next(request.args.get("next"), user))
    return render_template("auth/login.html", form=form)


@bp.route("/logout", methods=["POST"])
@login_required
def logout() -> ResponseReturnValue:
    """Log out everywhere: cookies are signed, not stored, so only a new session version voids copies."""
    user = db.session.get_one(User, current_user.id)
    user.end_sessions()
    db.session.commit()
    logout_user()
    flash("You are logged out (in every browser where this account was logged in).", "info")
    return redirect(url_for("auth.login"))


@bp.route("/account/password", methods=["GET", "POST"])
@login_required
def password() -> ResponseReturnValue:
    form = PasswordForm()
    if form.validate_on_submit():
        if not current_user.check_password(form.current.data):
            form.current.errors.append("This is not your current password.")
        else:
            user = db.session.get_one(User, current_user.id)
            revoked = change_password(user, form.new.data)
            user.must_change_password = False
            db.session.commit()
            # The new session version ended this session too: open a new one for this browser.
            login_user(user, remember=current_app.config.get("REMEMBER_COOKIE_NAME", COOKIE_NAME) in request.cookies)
            flash("Your password is changed; you are logged out everywhere else"
                  + (f" and your {revoked} API token(s) are revoked." if revoked else "."), "info")
            return redirect(home_url(user))
    return render_template("auth/password.html", form=form)
