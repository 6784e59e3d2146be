"""Small helpers every blueprint shares."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

from flask import abort, url_for
from sqlalchemy import bindparam, select

from annotator.campaigns.projects import closed_to
from annotator.core.extensions import db
from annotator.core.models import Project, User

_PROJECT_BY_SLUG = select(Project).where(Project.slug == bindparam("slug"))  # built once: it is on every HIT request


def no_such_project(slug: str) -> NoReturn:
    """The 404 of a missing project; also what a project closed to its caller answers where saying that it
    exists would tell too much (the API's progress)."""
    abort(404, f"There is no project {slug!r}.")


def project_or_404(slug: str) -> Project:
    """The project `slug`; a 404 naming it otherwise (HTML pages, or JSON inside the API)."""
    project = db.session.scalar(_PROJECT_BY_SLUG, {"slug": slug})
    if project is None:
        no_such_project(slug)
    return project


def open_project(slug: str, user: User, loaded: Project | None = None) -> Project:
    """The project `slug` if `user` may take HITs of it now; 403 saying why not otherwise.

    `loaded`: the row, when the caller read it already (the API reads it with the token, in one statement).
    """
    project = loaded or project_or_404(slug)
    reason = closed_to(project, user)
    if reason:
        abort(403, reason)
    return project


@dataclass(frozen=True)
class Page:
    """Page `number` of a list of `total` entries shown `per_page` at a time (the items page, the adjudication
    list); `pages` is at least 1, so that an empty list has a first page."""

    number: int
    total: int
    per_page: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def start(self) -> int:
        """The index of the page's first entry in the list."""
        return (self.number - 1) * self.per_page

    @property
    def stop(self) -> int:
        return self.start + self.per_page

    @property
    def first(self) -> int:
        """The list number of the page's first entry (an <ol>'s start)."""
        return self.start + 1


def home_url(user: User) -> str:
    """Where a logged-in person starts: an admin runs campaigns (the admin's projects), an annotator takes HITs.

    An admin on the annotator's list saw "0 of 0 HITs done / Nothing left for you here" on a first login.
    """
    return url_for("admin.projects") if user.is_admin else url_for("annotate.index")
