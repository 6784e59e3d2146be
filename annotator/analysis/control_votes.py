"""The control items' votes and known answers, as the agreement fields' (unit, coder, value) rows: what seeds an
annotator model (dawid_skene.py, one_coin.py) with the answers known for certain.

Control items never count in gold or agreement (results.labels_frame leaves them out), but their votes are the
best evidence of how each annotator answers: there the truth is known. The known answer is an answer, so the task
type turns it into label rows as it does a vote (`labels`), and its agreement fields (`agreement_units`) name the
units and values exactly as the votes' are named. A known answer the type refuses as a whole answer (one that
knows only some questions of a declared campaign) cannot be turned into rows this way and seeds nothing; it is
counted, so the caller can say so.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from annotator.analysis.results import LABEL_COLUMNS
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Label, Project
from annotator.tasks import AnswerError, TaskType

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class ControlVotes:
    votes: dict[str, pd.DataFrame]         # field -> the control items' (unit, coder, value) rows
    known: dict[str, dict[str, str]]       # field -> unit -> its known value
    refused: int                           # control items whose known answer could not be read as label rows


def control_votes(project: Project, task: TaskType) -> ControlVotes:
    """The project's control items' submitted votes and known values, per agreement field."""
    import pandas as pd

    rows = db.session.execute(
        select(Item.external_id, Item.position, Label.unit, Label.field, Label.value, Label.user_id,
               Label.assignment_id)
        .join(Item, Item.id == Label.item_id).join(Assignment, Assignment.id == Label.assignment_id)
        .where(Label.project_id == project.id, Item.is_control.is_(True), Assignment.status == SUBMITTED,
               Assignment.excluded.is_(False))
        .order_by(Item.position, Label.assignment_id, Label.id)).all()
    votes = pd.DataFrame([tuple(r) for r in rows], columns=LABEL_COLUMNS)
    known_rows: list[tuple[Any, ...]] = []
    refused = 0
    settings = task.settings_of(project)
    for item in db.session.scalars(select(Item).where(Item.project_id == project.id, Item.is_control.is_(True),
                                                      Item.reference.is_not(None)).order_by(Item.position)):
        try:
            labels = task.labels(item, item.reference, settings)
        except AnswerError:
            refused += 1
            continue
        known_rows += [(item.external_id, item.position, label.unit, label.field, label.value, 0, 0)
                       for label in labels]
    known_frame = pd.DataFrame(known_rows, columns=LABEL_COLUMNS)
    fields = task.agreement_units(votes) if not votes.empty else {}
    known_fields = task.agreement_units(known_frame) if not known_frame.empty else {}
    known = {name: {str(u): str(v) for u, v in zip(frame["unit"], frame["value"])}
             for name, frame in known_fields.items()}
    return ControlVotes(fields, known, refused)
