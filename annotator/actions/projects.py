"""A project as a whole: archived or open again, who may annotate it, deleted while it has no votes.

None of these changes what the votes give (an archived project keeps every vote), so no kept figure goes stale.
"""
from __future__ import annotations

from sqlalchemy import select

from annotator.actions.base import action
from annotator.campaigns.projects import has_votes
from annotator.core.audit import Actor, record
from annotator.core.extensions import db
from annotator.core.models import Project, User


class ProjectRefused(ValueError):
    """The project cannot be changed so; the message says why."""


@action("project.archive")
def set_archived(project: Project, archived: bool, by: Actor) -> None:
    """Archive the project (closed to annotators, every vote kept) or open it again."""
    project.archived = archived
    record("project.archive", project, {"archived": archived}, actor=by)


@action("project.audience")
def set_audience(project: Project, audience: str, user_ids: list[int], by: Actor) -> None:
    """Who may annotate: the audience and the accounts chosen (ids of accounts that are gone are left out)."""
    project.audience = audience
    project.annotators = list(db.session.scalars(select(User).where(User.id.in_(user_ids)))) if user_ids else []
    record("project.audience", project, {"audience": audience, "user_ids": sorted(u.id for u in project.annotators)},
           actor=by)


@action("project.delete")
def delete_project(project: Project, by: Actor) -> None:
    """Delete the project with its items. ProjectRefused when it has votes: archiving keeps them."""
    if has_votes(project):
        raise ProjectRefused("the project has votes. Archive it instead; that keeps them.")
    record("project.delete", project, {"name": project.name, "task_type": project.task_type}, actor=by)
    db.session.delete(project)
