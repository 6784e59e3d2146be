"""Who may open a page: the guard every admin page and action wears, wherever its blueprint is declared.

It lives with the accounts rather than in web/ because a shared task's folder (below web/) declares admin pages
of its own (RuArg-2022's premise stage), and a page must be guarded the same way wherever it is written.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from flask import abort
from flask_login import current_user, login_required


def admin_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """`login_required`, and a 403 for an account that is not an admin's: every admin page and action."""
    @wraps(view)
    @login_required
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not current_user.is_admin:
            abort(403, "This page is for admins.")
        return view(*args, **kwargs)
    return wrapper
