"""Files into a project: a new project, or more items into one, as `flask import`, `flask demo` and the admin's
upload pages (a format's new-project and more-items forms, a declared campaign's) all make them.

All or nothing: a file with a problem raises ImportRefused, its cause the located FormatError or OptionError (file,
line, column) and its message ending "Nothing was imported.", and nothing is kept, no event either. Once the import
is committed, PostgreSQL's planner is given the new rows' statistics (`refresh_statistics`). New items change what
the votes give only through the stamp's counts, so no kept figure is dropped here.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import select

from annotator.actions.base import action
from annotator.campaigns.import_refused import refused_as_import
from annotator.campaigns.imports import ImportResult, import_files
from annotator.campaigns.projects import refresh_statistics
from annotator.core.audit import Actor, record
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.lookups.formats import FileFormat


@action("import", after_commit=refresh_statistics)
def import_project(fmt: FileFormat, path: Path, *, slug: str, by: Actor, name: str | None = None,
                   k: int | None = None, lease_minutes: int | None = None, options: Mapping[str, Any] | None = None,
                   settings: Mapping[str, Any] | None = None, guidelines: str | None = None,
                   new: bool = False) -> ImportResult:
    """Load `path` with the format into project `slug`, created with the type's defaults when new
    (campaigns/imports.import_files: `options` the format's, `settings` the HIT type's).

    `guidelines`: the new project's, where the form gives them (None keeps what the project has, or its
    definition's). `new`: the project must not exist yet; a page that found the slug free may have lost it since.
    """
    with refused_as_import():
        if new and db.session.scalar(select(Project.id).where(Project.slug == slug)) is not None:
            raise FormatError(f"there is already a project {slug!r}; choose another slug")
        result = import_files(fmt, path, slug=slug, name=name, k=k, lease_minutes=lease_minutes, options=options,
                              settings=settings)
    if guidelines is not None:
        result.project.guidelines = guidelines
    record("import", result.project, {"format": fmt.name, "created": result.created, "items": result.items,
                                      "votes": result.votes}, actor=by)
    return result
