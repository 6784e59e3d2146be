"""Control items: picking one for an annotator, scoring an answer to one, and marking items as controls.

A control item is served like any other (same page, same API shape: the engine leases it through the
same Assignment), but it has no k: any annotator can get it once (unique (item, user)), it never
completes and its label rows never reach gold or agreement (results.counted_items). Its answer's score
(the task type's `control_score` against `Item.reference`) is one `control_answers` row.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, bindparam, func, select

from annotator.analysis.results import labels_frame
from annotator.core.extensions import db
from annotator.core.models import QUIZ_PENDING, Assignment, ControlAnswer, Item, Project, User
from annotator.core.quality_settings import Quality
from annotator.core.statements import ITEM_COLUMNS, ITEMS, execute
from annotator.figures.kept import results_changed
from annotator.figures.kept_gold import gold_frame
from annotator.quality.state import state_of
from annotator.tasks import project_task
from annotator.tasks.base import TaskType


@dataclass(frozen=True)
class ControlOutcome:
    """What one control answer scored, with the known answer in words (for the optional feedback)."""

    score: float
    correct: bool
    known: str
    quiz_attempt: int | None


_PICK = (select(*ITEM_COLUMNS)
         .where(ITEMS.c.project_id == bindparam("project_id"), ITEMS.c.is_control.is_(True),
                ITEMS.c.id.not_in(select(Assignment.item_id).where(Assignment.user_id == bindparam("user_id"),
                                                                   Assignment.project_id == bindparam("project_id"))))
         .order_by(ITEMS.c.done_count, ITEMS.c.position).limit(1))


def pick(user: User, project: Project) -> Row[Any] | None:
    """A control item this annotator has not had, the least answered first; None when there is none.

    No lock: a control has no slot to run out of, and the unique (item, user) keeps it once per annotator.
    """
    return execute(_PICK, {"project_id": project.id, "user_id": user.id}).first()


def record(assignment: Any, item: Any, project: Project, answer: Any, q: Quality) -> ControlOutcome:
    """Score the answer against the item's known answer and store it (inside the submit's transaction).

    `assignment` is the one answered (its id, user_id and presentation are read), `item` its item (an
    `Item` or a row of its columns: id and what the task type reads). A control whose type
    cannot score it (or whose reference is gone) scores 0 and says so in `known`.
    """
    task = project_task(project)
    settings = task.settings_of(project)
    reference = db.session.scalar(select(Item.reference).where(Item.id == item.id))  # the known answer
    score = task.control_score(item, answer, reference, settings, assignment.presentation)
    attempt = None
    if q.quiz:
        state = state_of(assignment.user_id, project.id)
        if state is None or state.quiz_status == QUIZ_PENDING:
            attempt = state.quiz_attempt if state is not None else 1
    value = float(score) if score is not None else 0.0
    db.session.add(ControlAnswer(assignment_id=assignment.id, project_id=project.id, item_id=item.id,
                                 user_id=assignment.user_id, score=value, quiz_attempt=attempt))
    db.session.flush()
    known = task.show_reference(item, reference, settings) if score is not None else "(no known answer)"
    return ControlOutcome(value, value >= 1.0 - 1e-9, known, attempt)


def accuracy(project_id: int, user_id: int) -> tuple[int, float | None]:
    """(control answers, mean score) of one annotator in one project: one query."""
    count, mean = db.session.execute(select(func.count(), func.avg(ControlAnswer.score))
                                     .where(ControlAnswer.project_id == project_id,
                                            ControlAnswer.user_id == user_id)).one()
    return int(count), None if mean is None else float(mean)


class ControlRefused(ValueError):
    """An item cannot become a control item; the message says why."""


def make_control(item: Item, project: Project) -> None:
    """Turn the item into a control: its imported reference is the known answer, else its current gold.

    The gold is read with pending items included (the admin looks at this one item and decides).
    Refused when the task type cannot score controls or the item has neither reference nor decided gold.
    """
    task = project_task(project)
    if type(task).control_score is TaskType.control_score:  # the base class's: this type scores nothing
        raise ControlRefused(f"{task.title} HITs cannot be control items: the task type does not score answers.")
    if item.reference is None:
        labels = labels_frame(project, include_incomplete=True)
        labels = labels[labels["item"] == item.external_id]
        reference = task.control_reference(item, labels, gold_frame(project, labels))
        if reference is None:
            raise ControlRefused(f"Item {item.external_id} has no reference answer and no decided gold yet, so there "
                                 "is no known answer to check annotators against.")
        item.reference = reference
    item.is_control = True
    results_changed(project.id)  # kept figures: see bulk_controls.controls_changed
