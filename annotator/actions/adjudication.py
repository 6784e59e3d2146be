"""An admin's decision on an item its task's rule leaves undecided (task types that declare `adjudicable`).

The answer is checked by the task type like any vote (`labels`: AnswerError, nothing stored) and kept once per
item: deciding again replaces the decision. A first decision moves the kept figures' stamp by itself (it counts
the decisions and the newest one); a replaced one changes gold without changing any count, so the kept figures
are dropped.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from annotator.actions.base import action, figures_stale
from annotator.core.audit import Actor, record
from annotator.core.extensions import db
from annotator.core.models import Adjudication, Item, Project
from annotator.tasks import project_task


@action("adjudicate")
def adjudicate(project: Project, item: Item, answer: dict[str, Any], by: Actor) -> Adjudication:
    """Decide the item with `answer` (in the shape of an annotator's answer); the decision as stored."""
    task = project_task(project)
    task.labels(item, answer, task.settings_of(project))  # AnswerError: refused as a vote would be
    current = db.session.scalar(select(Adjudication).where(Adjudication.item_id == item.id))
    if current is None:
        current = Adjudication(project_id=project.id, item_id=item.id, user_id=by[0], answer=answer)
        db.session.add(current)
        replaced = False
    else:
        current.answer, current.user_id = answer, by[0]
        figures_stale(project)
        replaced = True
    record("adjudicate", project, {"item": item.external_id, "replaced": replaced}, actor=by)
    return current
