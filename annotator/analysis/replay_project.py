"""A declared project's stored votes replayed under a stopping rule (replay.py): what `flask replay` prints.

The votes are the ones that count (results.labels_frame: complete items, no control item), in the order they came:
by submission time, then by the vote's id (imported votes share one time; their ids keep the file's order). The
questions replayed are those whose gold is a rule of one unit at a time over values (majority, share, agree,
median of a choice, scale, multi or pairwise question) asked of every item; the others are named in the report
with the reason, and an item stops when every replayed question's units are settled. The true value of a unit is
the item's reference answer to the question (`reference.<question>` or a control's `known.`, docs/declared-
references.md), where it has one: a choice, scale or pairwise answer.

The confidence rule's model is a one-coin model fitted per question on the full votes: the annotators' accuracies
as the finished campaign shows them. A live engine would know them only from the control items and the votes so
far, so the replay shows what the rule does with a well-informed model, not what a first day of a campaign would
give. With a prior per group (`confidence:P:M:FIELD`), those accuracies are kept and the fitted class priors give
way to each unit's group prior (replay.py), from FIELD of the items as stored (declared/stopping.item_group), FIELD
one the definition declares, as a definition's `prior_by` must be.
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from annotator.analysis.replay import Replay, Stopping, Vote, replay
from annotator.analysis.results import labels_frame
from annotator.core.columns import cells
from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project
from annotator.core.stopping import coin_posterior
from annotator.declared import TYPE_NAME as DECLARED_TYPE
from annotator.declared import graded
from annotator.declared.definition import Definition, Question, answer_values, number_text
from annotator.declared.definition_reader import definition_from_data
from annotator.declared.stopping import BINARY as BINARY
from annotator.declared.stopping import KINDS as KINDS
from annotator.declared.stopping import RULES as RULES
from annotator.declared.stopping import domain, gold_of, item_group, question_of
from annotator.declared.stopping import replayable as replayable
from annotator.estimation.one_coin import OneCoinResult, one_coin, unit_posterior

if TYPE_CHECKING:
    import pandas as pd



class ReplayRefused(ValueError):
    """The project cannot be replayed; the message says why."""


@dataclass
class ProjectReplay:
    project: str
    questions: list[str]
    left_out: dict[str, str]            # question -> why it is not replayed
    result: Replay
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"project": self.project, "questions": self.questions, "left_out": self.left_out,
                **self.result.to_dict()}


def project_replay(project: Project, stopping: Stopping, k: int | None = None, routing: bool = False) -> ProjectReplay:
    """Replay the project's counted votes under `stopping` with cap `k` (the project's k by default); `routing`:
    in the order the live routing would have taken them (replay._routed)."""
    if project.task_type != DECLARED_TYPE or not project.definition:
        raise ReplayRefused(f"project {project.slug!r} is not a declared campaign: the replay reads a definition's "
                            "questions and their gold rules")
    definition = definition_from_data(project.definition)
    left_out = {q.id: why for q in definition.questions if (why := replayable(q)) is not None}
    questions = {q.id: q for q in definition.questions if q.id not in left_out}
    if not questions:
        raise ReplayRefused(f"project {project.slug!r} has no question the replay can stop on: "
                            + "; ".join(f"{q}: {why}" for q, why in left_out.items()))
    labels = labels_frame(project)
    labels = labels[labels["field"].isin(list(questions))]
    if labels.empty:
        raise ReplayRefused(f"project {project.slug!r} has no counted votes yet (complete items' votes count)")
    votes = _ordered_votes(project, labels)
    seen = _values_seen(labels)
    levels = {q.agreement or "nominal" for q in questions.values()}
    groups = _groups(project, definition, stopping.prior_by) if stopping.prior_by is not None else None
    fitted = _fitted(questions, labels) if stopping.kind == "confidence" else None
    posterior = _posterior(fitted) if fitted is not None else None
    priored = _priored(fitted) if fitted is not None and groups is not None else None
    result = replay(votes, gold_of(questions), k or project.k, stopping,
                    lambda unit: domain(questions[question_of(unit)], seen[question_of(unit)]), posterior=posterior,
                    truth=_truth(project, questions), level="nominal" if len(levels) > 1 else levels.pop(),
                    order=_order(questions), routing=routing, priored=priored, groups=groups)
    return ProjectReplay(project.slug, list(questions), left_out, result)


def _ordered_votes(project: Project, labels: pd.DataFrame) -> list[Vote]:
    """One Vote per assignment, by submission time then id; units as (question, unit)."""
    when = dict(db.session.execute(select(Assignment.id, Assignment.submitted_at)
                                   .where(Assignment.project_id == project.id)).all())
    by_vote: dict[int, tuple[Any, Any, dict[Hashable, str]]] = {}
    for item, unit, question, value, user, assignment in zip(
            cells(labels["item"]), cells(labels["unit"]), cells(labels["field"]), cells(labels["value"]),
            labels["user_id"].tolist(), labels["assignment_id"].tolist()):
        entry = by_vote.get(assignment)
        if entry is None:
            entry = by_vote[assignment] = (item, user, {})
        entry[2][(question, unit)] = str(value)
    order = sorted(by_vote, key=lambda a: (when.get(a) is None, str(when.get(a) or ""), a))
    return [Vote(*by_vote[a]) for a in order]


def _values_seen(labels: pd.DataFrame) -> dict[str, list[str]]:
    return {str(q): sorted(set(map(str, group))) for q, group in labels.groupby("field")["value"]}


def _order(questions: Mapping[str, Question]) -> list[str]:
    """The values lowest first (alpha's order, as agreement_units gives it) when the one question replayed is
    measured at the ordinal or interval level: its points' positions, not their text's sort ("10" after "9")."""
    if len(questions) == 1:
        question = next(iter(questions.values()))
        if question.agreement in ("ordinal", "interval"):
            return list(answer_values(question) or ())
    return []


def _fitted(questions: Mapping[str, Question], labels: pd.DataFrame) -> dict[str, OneCoinResult]:
    fitted: dict[str, OneCoinResult] = {}
    for question in questions:
        rows = labels[labels["field"] == question]
        frame = rows.assign(unit=rows["item"].astype(str) + "\x00" + rows["unit"].astype(str),
                            coder=rows["user_id"])[["unit", "coder", "value"]]
        fitted[question] = one_coin(frame)
    return fitted


def _posterior(fitted: Mapping[str, OneCoinResult]) -> Any:
    def posterior(unit: Hashable, given: Sequence[tuple[Any, str]]) -> Mapping[str, float]:
        return unit_posterior(fitted[question_of(unit)], given)
    return posterior


def _priored(fitted: Mapping[str, OneCoinResult]) -> Any:
    """The fitted accuracies (a coder the model has not seen: their mean) with the priors the replay gives."""
    accuracy = {q: (dict(zip(r.coders, r.accuracy.tolist())),
                    float(r.accuracy.mean()) if len(r.accuracy) else 0.5) for q, r in fitted.items()}

    def posterior(unit: Hashable, given: Sequence[tuple[Any, str]], prior: Mapping[str, float]) -> Mapping[str, float]:
        known, mean = accuracy[question_of(unit)]
        return coin_posterior(list(prior), list(prior.values()), known, mean, given)
    return posterior


def _groups(project: Project, definition: Definition, field: str) -> dict[Any, str]:
    """Each item's group key (external id -> key) by `field`, which must be an item field the definition declares."""
    declared = [*definition.item_fields(), *definition.keep]
    if field not in declared:
        raise ReplayRefused(f"{field!r} is not an item field the definition of project {project.slug!r} declares, so "
                            f"it cannot group the items' priors; its item fields: {', '.join(declared) or 'none'}")
    return {external_id: item_group(payload, field) for external_id, payload in db.session.execute(
        select(Item.external_id, Item.payload).where(Item.project_id == project.id))}


def _truth(project: Project, questions: Mapping[str, Question]) -> dict[tuple[Any, Any], str]:
    """(item, (question, unit)) -> the item's reference answer, for choice, scale and pairwise questions."""
    truth: dict[tuple[Any, Any], str] = {}
    for external_id, reference in db.session.execute(
            select(Item.external_id, Item.reference).where(Item.project_id == project.id,
                                                           Item.reference.is_not(None))):
        for question_id, answer in (reference or {}).items():
            question = questions.get(question_id)
            if question is None or question.kind == "multi" or isinstance(answer, (list, dict)):
                continue
            value = number_text(answer) if isinstance(answer, (int, float)) and not isinstance(answer, bool) \
                else str(answer)
            if question.grades and value in graded.values(question):   # a grade's side, as its label row holds
                value = graded.collapsed(value)
            truth[(external_id, (question_id, question_id))] = value
    return truth
