"""Other aggregations of a project's votes beside its task's threshold rule: Dawid-Skene per categorical field.

The fields are the task type's agreement fields (`agreement_units`: unit, coder, value rows), so every
type gets it without code of its own; a type that says what its gold is per unit (`gold_units`) also gets
each unit compared with the rule's gold. Read-only: nothing here changes gold or exports.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from annotator.analysis.dawid_skene import dawid_skene
from annotator.analysis.results import computed_gold, labels_frame
from annotator.core.extensions import db
from annotator.core.models import Project, User
from annotator.tasks import project_task

if TYPE_CHECKING:
    import pandas as pd

METHODS = ("dawid-skene",)


@dataclass
class UnitAggregate:
    unit: str
    label: str
    posterior: dict[str, float]   # class -> probability
    gold: str | None              # the task rule's value, None when the rule has none for this unit

    @property
    def confidence(self) -> float:
        return self.posterior[self.label]

    @property
    def differs(self) -> bool | None:
        return None if self.gold is None else self.gold != self.label


@dataclass
class FieldAggregate:
    field: str
    classes: list[str]
    priors: dict[str, float]
    iterations: int
    converged: bool
    compared: bool                # the task type gives a gold value per unit for this field
    # dataclasses.field: the name `field` is this class's first attribute.
    units: list[UnitAggregate] = dataclasses.field(default_factory=list)
    confusion: dict[str, list[list[float]]] = dataclasses.field(default_factory=dict)  # annotator -> true x given

    @property
    def differing(self) -> int:
        return sum(1 for u in self.units if u.differs)

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "classes": self.classes, "priors": self.priors,
                "iterations": self.iterations, "converged": self.converged, "compared_with_gold": self.compared,
                "differing_from_gold": self.differing if self.compared else None,
                "units": [{"unit": u.unit, "label": u.label, "posterior": u.posterior, "gold": u.gold,
                           "differs": u.differs} for u in self.units],
                "confusion": {"rows": "true class", "columns": "given class", "by_annotator": self.confusion}}


def project_dawid_skene(project: Project, labels: pd.DataFrame | None = None, tol: float = 1e-5,
                        max_iter: int = 100) -> list[FieldAggregate]:
    """Dawid-Skene on each agreement field of the project, compared with the task's gold where it has one."""
    task = project_task(project)
    labels = labels_frame(project) if labels is None else labels
    gold = task.gold_units(computed_gold(project, labels)) if not labels.empty else {}
    names = _usernames(labels)
    return [_field(name, units, gold.get(name), names, tol, max_iter)
            for name, units in task.agreement_units(labels).items()]


def _field(name: str, units: pd.DataFrame, gold: pd.Series | None, names: dict[int, str], tol: float,
           max_iter: int) -> FieldAggregate:
    result = dawid_skene(units[["unit", "coder", "value"]], tol=tol, max_iter=max_iter)
    gold_of = {} if gold is None else {str(k): str(v) for k, v in gold.items()}
    rows = [UnitAggregate(str(unit), label, {c: round(float(p), 6) for c, p in zip(result.classes, probas)},
                          gold_of.get(str(unit)))
            for unit, label, probas in zip(result.units, result.labels, result.posteriors)]
    confusion = {names.get(coder, str(coder)): [[round(float(p), 6) for p in row] for row in matrix]
                 for coder, matrix in zip(result.coders, result.confusion)}
    return FieldAggregate(name, result.classes, {c: round(float(p), 6) for c, p in zip(result.classes, result.priors)},
                          result.iterations, result.converged, gold is not None, rows, confusion)


def _usernames(labels: pd.DataFrame) -> dict[int, str]:
    ids = [int(i) for i in labels["user_id"].unique()] if not labels.empty else []
    if not ids:
        return {}
    return {user_id: name for user_id, name in db.session.execute(select(User.id, User.username)
                                                                 .where(User.id.in_(ids)))}
