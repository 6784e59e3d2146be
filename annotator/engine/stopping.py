"""Stopping an item live: after a vote is counted, whether the item's votes so far are enough under the project's
stopping rule (`stopping:` in a declared definition, docs/declared-stopping.md).

Called by assignment.submit inside the submit's transaction, under the item's lock, and only for a project that
stops early (quality/settings.stops_early: a key looked up on the project row), so a project without a rule runs
none of this. The decision is core/stopping.item_stops, the one the replay (analysis/replay.py) takes, with the
questions' gold of declared/stopping.py. A stopped item gets its target set to the votes it has (so it takes no
new lease and counts as complete wherever targets are read) and `stopped_at`; its open leases are released in the
same transaction, and a late submit of one is refused by the submit's free-slot check (assignment._store_vote).

After each vote the item's certainty under the rule (core/stopping.certainty; COMPLETE once it stops or reaches k) is
written on its row, in the UPDATE that stops it when it stops: the routing (engine/picking.py) serves the least
certain item next.

Cost per vote: one statement reading the item's label rows (for the confidence rule with each voter's mean control
score beside them), plain Python over them, and one UPDATE of the item's row; the checked rule is built once per
definition and kept. With `prior_by` (a prior per group of items, docs/declared-stopping.md), two more: the read
of the item's group's and the project's counts in prior_counts (analysis/prior_counts.py), and, last, the UPSERT that
counts the vote's labels there.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, func, select, update

from annotator.analysis import prior_counts
from annotator.core.models import EXPIRED, ControlAnswer, Label, Project
from annotator.core.quality_settings import quality_settings
from annotator.core.stopping import (
    COMPLETE,
    NO_GROUP,
    Gold,
    Settled,
    Stopping,
    certainty,
    coin_posterior,
    item_stops,
    shrunk_prior,
)
from annotator.declared.definition import Question
from annotator.declared.definition_reader import definition_from_data
from annotator.declared.stopping import domain, gold_of, item_group, question_of
from annotator.engine.picking import ASSIGNMENTS, IS_LEASED, ITEMS, execute

_L = Label.__table__.c
_C = ControlAnswer.__table__.c
# The voter's mean control score beside each label (NULL without control answers), as
# analysis/annotator_figures.accuracies computes it: one built statement instead of the label read and a query
# built per vote, which was two thirds of the confidence rule's cost per submit.
_VOTER_ACCURACY = (select(func.avg(_C.score)).where(_C.project_id == bindparam("project_id"), _C.user_id == _L.user_id)
                   .scalar_subquery())
_ITEM_LABELS = select(_L.field, _L.unit, _L.value, _L.user_id).where(_L.item_id == bindparam("item_id")).order_by(_L.id)
_ITEM_LABELS_ACCURACY = (select(_L.field, _L.unit, _L.value, _L.user_id, _VOTER_ACCURACY.label("accuracy"))
                         .where(_L.item_id == bindparam("item_id")).order_by(_L.id))
_SURE = bindparam("certainty", type_=ITEMS.c.certainty.type)
_STOP = (update(ITEMS).where(ITEMS.c.id == bindparam("stopped_item"))
         .values(target=bindparam("votes", type_=ITEMS.c.target.type),
                 stopped_at=bindparam("stopped_now", type_=ITEMS.c.stopped_at.type), certainty=_SURE))
_CERTAINTY = update(ITEMS).where(ITEMS.c.id == bindparam("stopped_item")).values(certainty=_SURE)
_RELEASE = (update(ASSIGNMENTS).where(ASSIGNMENTS.c.item_id == bindparam("stopped_item"), IS_LEASED)
            .values(status=EXPIRED))

STOPPED_MESSAGE = ("This item was decided by the votes already in before your answer came, so your answer was not "
                   "needed and was not stored. Please take the next HIT.")


@dataclass(frozen=True)
class Rule:
    """A definition's stopping rule with what deciding needs: the questions it stops on, their gold and values."""

    stopping: Stopping
    questions: Mapping[str, Question]
    gold: Gold
    settled: Settled
    counted: prior_counts.PriorBy | None = None   # prior_by: what the vote's count adds to prior_counts


@lru_cache(maxsize=64)
def _rule(definition_json: str) -> Rule | None:
    definition = definition_from_data(json.loads(definition_json))
    if definition.stopping is None:
        return None
    questions = {q.id: q for q in definition.questions if q.gold is not None}
    gold = gold_of(questions)
    return Rule(definition.stopping, questions, gold,
                Settled(gold, lambda unit: domain(questions[question_of(unit)])), prior_counts.prior_by_of(definition))


def rule_of(project: Project) -> Rule | None:
    """The project's checked stopping rule (None without one); built once per definition text."""
    return _rule(json.dumps(project.definition, sort_keys=True)) if project.definition else None


def after_vote(item_id: int, project: Project, votes: int, now: datetime, target: int | None = None,
               payload: Mapping[str, Any] | None = None, labels: Sequence[tuple[str, str, str]] = ()) -> bool:
    """Decide, after the item's `votes`-th vote was stored (its labels written, its row locked), whether it stops;
    when it does, lower its target to `votes`, mark it and release its open leases. True when it stopped.

    `target`: the item's target as the submit read it. An item stopped before and offered again (a vote of it was
    excluded) that is no longer decided goes back to k, so it is not complete with an open gold.
    `payload`, `labels`: the item as stored and the vote's (field, unit, value) label rows, which a rule with
    `prior_by` counts in prior_counts (also at k: the table counts every vote stored)."""
    rule = rule_of(project)
    if rule is None:
        return False
    if rule.counted is None:
        return _decide(rule, item_id, project, votes, now, target, NO_GROUP, labels)
    # The vote is counted in prior_counts last: every submit of the project increments the project's rows, and on
    # PostgreSQL the row lock that takes is held to the commit, so the reads and the decision come first.
    key = item_group(payload, rule.counted.field)
    stopped = _decide(rule, item_id, project, votes, now, target, key, labels)
    prior_counts.add(project.id, item_id, key, labels, rule.counted)
    return stopped


def _decide(rule: Rule, item_id: int, project: Project, votes: int, now: datetime, target: int | None, key: str,
            labels: Sequence[tuple[str, str, str]]) -> bool:
    if votes >= project.k:   # at k the item is complete anyway: routed last
        execute(_CERTAINTY, {"stopped_item": item_id, "certainty": COMPLETE})
        return False
    counts: dict[Hashable, Counter[str]] = {}
    given: dict[Hashable, list[tuple[Any, str]]] = {}
    known: dict[int, float] = {}   # voters' mean control scores (the confidence rule)
    confidence = rule.stopping.kind == "confidence"
    rows = execute(_ITEM_LABELS_ACCURACY, {"item_id": item_id, "project_id": project.id}) if confidence \
        else execute(_ITEM_LABELS, {"item_id": item_id})
    for row in rows:
        if row.field in rule.questions:
            unit = (row.field, row.unit)
            counts.setdefault(unit, Counter())[str(row.value)] += 1
            given.setdefault(unit, []).append((int(row.user_id), str(row.value)))
            if confidence and row.accuracy is not None:
                known[int(row.user_id)] = float(row.accuracy)
    posterior = _posterior(rule, project, known, counts, key, labels) if confidence else None
    if not item_stops(rule.stopping, counts, given, votes, project.k, rule.gold, rule.settled, posterior):
        sure = certainty(rule.stopping, counts, given, votes, project.k, rule.gold, rule.settled, posterior)
        if target is not None and target <= votes:
            execute(_STOP, {"stopped_item": item_id, "votes": None, "stopped_now": None, "certainty": sure})
        else:
            execute(_CERTAINTY, {"stopped_item": item_id, "certainty": sure})
        return False
    execute(_STOP, {"stopped_item": item_id, "votes": votes, "stopped_now": now, "certainty": COMPLETE})
    execute(_RELEASE, {"stopped_item": item_id})
    return True


def _posterior(rule: Rule, project: Project, known: Mapping[int, float], counts: Mapping[Hashable, Counter[str]],
               key: str, labels: Sequence[tuple[str, str, str]]) -> Any:
    """The one-coin posterior as the engine knows the annotators: each voter's mean control score (`known`), the
    quality settings' default_accuracy without one; uniform priors over the question's values, or with `prior_by`
    the item's group's shares among the votes on its other items, shrunk towards the project's
    (core/stopping.shrunk_prior; `counts`, the item's own votes, are taken out of the table's)."""
    default = float(quality_settings(project).default_accuracy)
    group, whole = prior_counts.read(project.id, key) if rule.counted is not None else ({}, {})
    if rule.counted is not None:   # this vote, which after_vote counts in the table after deciding
        for field, unit, value in labels:
            if field in rule.counted.questions:
                whole.setdefault((field, unit), Counter())[str(value)] += 1
                if key != NO_GROUP:
                    group.setdefault((field, unit), Counter())[str(value)] += 1

    def posterior(unit: Hashable, votes: Sequence[tuple[Any, str]]) -> Mapping[str, float]:
        classes = list(domain(rule.questions[question_of(unit)]))
        if rule.counted is None:
            return coin_posterior(classes, [1.0 / len(classes)] * len(classes), known, default, votes)
        prior = shrunk_prior(classes, group.get(unit, Counter()), whole.get(unit, Counter()),
                             counts.get(unit, Counter()), rule.stopping.prior_weight)
        return coin_posterior(classes, [prior[c] for c in classes], known, default, votes)
    return posterior
