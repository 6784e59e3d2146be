"""Log in and out with a password (browser sessions); the API uses tokens instead (api.py)."""
from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required, login_user, logout_user
from sqlalchemy import select

from ..extensions import db
from ..models import User
from .forms import LoginForm, PasswordForm

bp = Blueprint("auth", __name__)


def _safe_next(target: str | None) -> str:
    """Only same-site relative targets: a login link must not redirect to another site."""
    if target and not urlsplit(target).netloc and target.startswith("/") and not target.startswith("//"):
        return target
    return url_for("annotate.index")


@bp.before_app_request
def _one_time_password_first() -> Response | None:
    """An account made with a one-time password chooses its own before anything else (pages only)."""
    if (current_user.is_authenticated and current_user.must_change_password and request.blueprint != "api"
            and request.endpoint not in ("auth.password", "auth.logout", "static")):
        flash("Please choose your own password first.", "info")
        return redirect(url_for("auth.password"))
    return None


@bp.route("/login", methods=["GET", "POST"])
def login():  # type: ignore[no-untyped-def]
    if current_user.is_authenticated:
        return redirect(url_for("annotate.index"))
    form = LoginForm()
    if form.validate_on_submit():
        user = db.session.scalar(select(User).where(User.username == form.username.data))
        if user is None or not user.check_password(form.password.data) or not user.active:
            flash("Unknown user name or wrong password.", "error")
            return render_template("auth/login.html", form=form), 401
        login_user(user, remember=form.remember.data)
        return redirect(_safe_next(request.args.get("next")))
    return render_template("auth/login.html", form=form)


@bp.route("/logout", methods=["POST"])
@login_required
def logout():  # type: ignore[no-untyped-def]
    logout_user()
    flash("You are logged out.", "info")
    return redirect(url_for("auth.login"))


@bp.route("/account/password", methods=["GET", "POST"])
@login_required
def password():  # type: ignore[no-untyped-def]
    form = PasswordForm()
    if form.validate_on_submit():
        if not current_user.check_password(form.current.data):
            form.current.errors.append("This is not your current password.")
        else:
            current_user.set_password(form.new.data)
            current_user.must_change_password = False
            db.session.commit()
            flash("Your password is changed.", "info")
            return redirect(url_for("annotate.index"))
    return render_template("auth/password.html", form=form)
