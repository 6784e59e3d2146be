"""Other aggregations of a project's votes beside its task's threshold rule: Dawid-Skene (or the one-coin model) per
categorical field.

The fields are the task type's agreement fields (`agreement_units`: unit, coder, value rows), so every
type gets it without code of its own; a type that says what its gold is per unit (`gold_units`) also gets
each unit compared with the rule's gold. Read-only: nothing here changes gold or exports.

`seed_controls`: the control items' votes join the model and their known answers are fixed (control_votes.py,
dawid_skene.py's docstring), so each annotator's confusions (or accuracy) rest on answers known for certain too. The
control units are the model's data, not the project's units: the units listed are the counted ones only.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from annotator.analysis.control_votes import ControlVotes, control_votes
from annotator.analysis.dawid_skene import DawidSkeneResult, dawid_skene
from annotator.analysis.one_coin import one_coin
from annotator.analysis.results import computed_gold, labels_frame
from annotator.core.extensions import db
from annotator.core.models import Project, User
from annotator.tasks import project_task

if TYPE_CHECKING:
    import pandas as pd

METHODS = ("dawid-skene", "one-coin")


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
    method: str = METHODS[0]
    accuracy: dict[str, float] = dataclasses.field(default_factory=dict)    # one-coin: annotator -> accuracy
    spammers: list[str] = dataclasses.field(default_factory=list)          # one-coin: likely spammers
    seeded: int | None = None     # with seed_controls: the control units whose known answer was fixed

    @property
    def differing(self) -> int:
        return sum(1 for u in self.units if u.differs)

    def to_dict(self) -> dict[str, Any]:
        data = {"field": self.field, "classes": self.classes, "priors": self.priors,
                "iterations": self.iterations, "converged": self.converged, "compared_with_gold": self.compared,
                "differing_from_gold": self.differing if self.compared else None,
                "units": [{"unit": u.unit, "label": u.label, "posterior": u.posterior, "gold": u.gold,
                           "differs": u.differs} for u in self.units]}
        if self.method == "one-coin":
            data.update(accuracy=self.accuracy, spammers=self.spammers)
        else:
            data["confusion"] = {"rows": "true class", "columns": "given class", "by_annotator": self.confusion}
        if self.seeded is not None:
            data["seeded_control_units"] = self.seeded
        return data


def project_dawid_skene(project: Project, labels: pd.DataFrame | None = None, tol: float = 1e-5,
                        max_iter: int = 100, method: str = METHODS[0],
                        seed_controls: bool = False) -> list[FieldAggregate]:
    """Dawid-Skene (or the one-coin model) on each agreement field of the project, compared with the task's gold
    where it has one; `seed_controls`: with the control items' votes and known answers (the module's docstring)."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}: one of {', '.join(METHODS)}")
    task = project_task(project)
    labels = labels_frame(project) if labels is None else labels
    gold = task.gold_units(computed_gold(project, labels)) if not labels.empty else {}
    controls = control_votes(project, task) if seed_controls else ControlVotes({}, {}, 0)
    names = _usernames(labels, [frame["coder"] for frame in controls.votes.values()])
    return [_field(name, units, gold.get(name), names, tol, max_iter, method,
                   controls if seed_controls else None)
            for name, units in task.agreement_units(labels).items()]


def _field(name: str, units: pd.DataFrame, gold: pd.Series | None, names: dict[int, str], tol: float,
           max_iter: int, method: str, controls: ControlVotes | None) -> FieldAggregate:
    import pandas as pd
    votes = units[["unit", "coder", "value"]]
    known: dict[str, str] = {}
    if controls is not None and name in controls.votes:
        extra = controls.votes[name][["unit", "coder", "value"]]
        known = {u: v for u, v in controls.known.get(name, {}).items() if u in set(extra["unit"].astype(str))}
        votes = pd.concat([votes, extra.assign(unit=extra["unit"].astype(str))], ignore_index=True)
    counted = set(units["unit"].astype(str)) if known else None
    fit = one_coin if method == "one-coin" else dawid_skene
    result = fit(votes, tol=tol, max_iter=max_iter, known=known)
    gold_of = {} if gold is None else {str(k): str(v) for k, v in gold.items()}
    rows = [UnitAggregate(str(unit), label, {c: round(float(p), 6) for c, p in zip(result.classes, probas)},
                          gold_of.get(str(unit)))
            for unit, label, probas in zip(result.units, result.labels, result.posteriors)
            if counted is None or str(unit) in counted]
    priors = {c: round(float(p), 6) for c, p in zip(result.classes, result.priors)}
    seeded = len(known) if controls is not None else None
    if isinstance(result, DawidSkeneResult):
        confusion = {names.get(coder, str(coder)): [[round(float(p), 6) for p in row] for row in matrix]
                     for coder, matrix in zip(result.coders, result.confusion)}
        return FieldAggregate(name, result.classes, priors, result.iterations, result.converged, gold is not None,
                              rows, confusion, method, seeded=seeded)
    accuracy = {names.get(coder, str(coder)): round(float(a), 6) for coder, a in zip(result.coders, result.accuracy)}
    return FieldAggregate(name, result.classes, priors, result.iterations, result.converged, gold is not None, rows,
                          {}, method, accuracy, [names.get(c, str(c)) for c in result.spammers], seeded)


def posterior_table(fields: list[FieldAggregate]) -> tuple[list[str], list[list[Any]]]:
    """(header, rows) of every unit's posteriors as columns: field, unit, the rule's gold, the model's label, its
    posterior, whether they differ, then "p(<class>)" per class of any field (empty for another field's class)."""
    classes = list(dict.fromkeys(c for f in fields for c in f.classes))
    header = ["field", "unit", "gold", "label", "posterior", "differs", *(f"p({c})" for c in classes)]
    rows = [[f.field, u.unit, "" if u.gold is None else u.gold, u.label, u.confidence,
             "" if u.differs is None else str(u.differs).lower(), *(u.posterior.get(c, "") for c in classes)]
            for f in fields for u in f.units]
    return header, rows


def _usernames(labels: pd.DataFrame, more: list[pd.Series] | None = None) -> dict[int, str]:
    ids = [int(i) for i in labels["user_id"].unique()] if not labels.empty else []
    ids += [int(i) for series in more or [] for i in series.unique()]
    if not ids:
        return {}
    return {user_id: name for user_id, name in db.session.execute(select(User.id, User.username)
                                                                 .where(User.id.in_(ids)))}
