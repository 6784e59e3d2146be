"""Small helpers every blueprint shares."""
from __future__ import annotations

from flask import abort
from sqlalchemy import select

from ..extensions import db
from ..models import Project


def project_or_404(slug: str) -> Project:
    """The project `slug`; a 404 naming it otherwise (HTML pages, or JSON inside the API)."""
    project = db.session.scalar(select(Project).where(Project.slug == slug))
    if project is None:
        abort(404, f"There is no project {slug!r}.")
    return project
