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

from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from annotator.analysis.control_votes import ControlVotes, control_votes
from annotator.analysis.model_fields import METHODS, PLACES, FieldAggregate, FieldPosteriors
from annotator.analysis.results import computed_gold, labels_frame
from annotator.core.extensions import db
from annotator.core.models import Project, User
from annotator.estimation.dawid_skene import DawidSkeneResult, dawid_skene
from annotator.estimation.one_coin import one_coin
from annotator.tasks import project_task

if TYPE_CHECKING:
    import pandas as pd

def project_dawid_skene(project: Project, labels: pd.DataFrame | None = None, tol: float = 1e-5,
                        max_iter: int = 100, method: str = METHODS[0],
                        seed_controls: bool = False) -> list[FieldAggregate]:
    """Dawid-Skene (or the one-coin model) on each agreement field of the project, compared with the task's gold
    where it has one; `seed_controls`: with the control items' votes and known answers (the module's docstring)."""
    return [f.aggregate() for f in project_model(project, labels, tol, max_iter, method, seed_controls)]


def project_model(project: Project, labels: pd.DataFrame | None = None, tol: float = 1e-5, max_iter: int = 100,
                  method: str = METHODS[0], seed_controls: bool = False) -> list[FieldPosteriors]:
    """What project_dawid_skene gives, as arrays (model_fields.FieldPosteriors): what a big project keeps."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}: one of {', '.join(METHODS)}")
    task = project_task(project)
    labels = labels_frame(project) if labels is None else labels
    gold = task.gold_units(computed_gold(project, labels)) if not labels.empty else {}
    controls = control_votes(project, task) if seed_controls else ControlVotes({}, {}, 0)
    names = _usernames(labels, [frame["coder"] for frame in controls.votes.values()])
    # Fitted one field after another, each field made when the one before is fitted and let go (agreement_fields):
    # at a million labels a RuArg-2022 project's ten fields hold some 190 MB, which sat beside every fit
    # (bench/results/2026-11-28-kept-figures-memory.md, 2026-11-29-kept-figures-memory.md).
    item_of_row, fields = labels["item"], task.agreement_fields(labels)
    del labels   # the fields made last (the pooled ones, RuArg's largest) are fitted without the label rows
    fits = []
    for name, units in fields:
        fits.append(_field(name, units, item_of_row, gold.get(name), names, tol, max_iter, method,
                           controls if seed_controls else None))
        del units
    return fits


def _field(name: str, units: pd.DataFrame, item_of_row: pd.Series, gold: pd.Series | None, names: dict[int, str],
           tol: float, max_iter: int, method: str, controls: ControlVotes | None) -> FieldPosteriors:
    import numpy as np
    import pandas as pd
    votes = units[["unit", "coder", "value"]]
    known: dict[str, str] = {}
    if controls is not None and name in controls.votes:
        extra = controls.votes[name][["unit", "coder", "value"]]
        known = {u: v for u, v in controls.known.get(name, {}).items() if u in set(extra["unit"].astype(str))}
        votes = pd.concat([votes, extra.assign(unit=extra["unit"].astype(str))], ignore_index=True)
    fit = one_coin if method == "one-coin" else dawid_skene
    result = fit(votes, tol=tol, max_iter=max_iter, known=known)
    # The units listed are the counted ones, in the fit's order (the control units seeded it, nothing more).
    rows = np.arange(len(result.units))
    if known:
        counted = set(units["unit"].astype(str).unique())
        rows = np.array([r for r, unit in enumerate(result.units) if str(unit) in counted], dtype=np.int64)
    unit_names = [str(result.units[r]) for r in rows]
    gold_of = {} if gold is None else {str(k): str(v) for k, v in gold.items()}
    # Each unit's item: its last label row's (agreement_units keeps their index); None where a field's rows came
    # from elsewhere. Found on codes, a text object per unit rather than two per row (a million for RuArg-2022's
    # pooled field: 2026-11-29-kept-figures-memory.md).
    traced = np.flatnonzero(units.index.isin(item_of_row.index))
    unit_of, traced_units = pd.factorize(units["unit"].astype(str).iloc[traced])
    last = len(unit_of) - 1 - np.unique(unit_of[::-1], return_index=True)[1]   # each unit's last row, by code
    items_of = dict(zip(list(traced_units),
                        item_of_row.reindex(units.index[traced[last]]).astype(str))) if len(traced) else {}
    posteriors = np.round(result.posteriors[rows], PLACES) if len(rows) else np.zeros((0, len(result.classes)))
    labels = result.posteriors[rows].argmax(axis=1) if len(rows) else np.zeros(0, dtype=np.int64)
    priors = {c: round(float(p), PLACES) for c, p in zip(result.classes, result.priors)}
    seeded = len(known) if controls is not None else None
    if isinstance(result, DawidSkeneResult):
        confusion = {names.get(coder, str(coder)): [[round(float(p), PLACES) for p in row] for row in matrix]
                     for coder, matrix in zip(result.coders, result.confusion)}
        summary = FieldAggregate(name, result.classes, priors, result.iterations, result.converged, gold is not None,
                                 [], confusion, method, seeded=seeded)
    else:
        accuracy = {names.get(coder, str(coder)): round(float(a), PLACES)
                    for coder, a in zip(result.coders, result.accuracy)}
        summary = FieldAggregate(name, result.classes, priors, result.iterations, result.converged, gold is not None,
                                 [], {}, method, accuracy, [names.get(c, str(c)) for c in result.spammers], seeded)
    return FieldPosteriors.of(summary, unit_names, [items_of.get(u) for u in unit_names],
                              [gold_of.get(u) for u in unit_names], labels, posteriors)


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
