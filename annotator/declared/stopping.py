"""A declared campaign's stopping rule (`stopping:` in its definition, docs/declared-stopping.md), and the gold and
values of the questions an item stops on, which the replay (analysis/replay_project.py) and the live engine
(engine/stopping.py) both read, so that both decide by the one decision of core/stopping.py with the same gold.

    stopping: decided                               # stop when no vote still to come can change the gold
    stopping: {confidence: 0.95, min_votes: 3}      # stop when the model is that sure, after that many votes
    stopping: {confidence: 0.985, min_votes: 2, prior_by: word}   # the model's prior learned per word (group)

k stays the cap. A definition with `stopping:` is refused unless every question with a gold rule can stop: its
rule is one unit at a time over values the definition lists (majority, share, agree or median of a choice, scale,
multi or pairwise question), and it is asked of every item (no `when`, no `repeat`). Otherwise an item could stop
while a question the engine cannot judge was still open, and its gold would not be the one k votes give.
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from annotator.core.stopping import PRIOR_WEIGHT, Gold, Stopping, group_key
from annotator.declared import paths
from annotator.declared.definition import DefinitionError, Question, answer_values
from annotator.declared.gold import is_numeric, unit_gold
from annotator.declared.keys import Keys, kind

RULES = ("majority", "share", "agree", "median")
KINDS = ("choice", "scale", "multi", "pairwise")
BINARY = ("1", "0")
KEY = "stopping"


def replayable(question: Question) -> str | None:
    """Why a stopping rule cannot decide on the question, or None when it can (replay: on the votes seen)."""
    if question.gold is None:
        return "it has no gold rule"
    if question.kind not in KINDS:
        return f"a {question.kind} question's gold is not a rule over values"
    if question.gold.rule not in RULES:
        return f"its rule ({question.gold.rule}) is not one of {', '.join(RULES)}"
    if question.when or question.item_when or question.group:
        return "it is not asked of every item (when / repeat), so its units are not known before the votes"
    return None


def stoppable(question: Question) -> str | None:
    """As `replayable`, and its values known before any vote (the live engine must know what a vote may say)."""
    why = replayable(question)
    if why is None and question.kind != "multi" and not answer_values(question):
        return "its options come from the item (options_from), so the values a vote may give are not listed"
    return why


def stopping_part(top: Keys, questions: Sequence[Question], k: int | None,
                  fields: Sequence[str] = ()) -> Stopping | None:
    """The definition's `stopping:`, checked: `decided` or {confidence: P, min_votes: M} with optionally
    prior_by: FIELD (one of `fields`, the item fields the definition declares) and prior_weight: W; None when
    absent."""
    if not top.has(KEY):
        return None
    value, path = top.data[KEY], top.at(KEY)
    if value == "decided":
        stopping = Stopping("decided")
    elif isinstance(value, dict):
        keys = Keys(value, path, ("confidence", "min_votes", "prior_by", "prior_weight"))
        if not keys.has("confidence"):
            raise DefinitionError(keys.at("confidence"), "is required: the posterior an item's answer must reach "
                                                         "(above 0 and below 1), e.g. {confidence: 0.95, min_votes: 3}")
        threshold = keys.number("confidence", 0.0, low=0, high=1)
        if not 0 < threshold < 1:
            raise DefinitionError(keys.at("confidence"), f"must be above 0 and below 1, not {threshold:g}")
        least = int(keys.number("min_votes", 1, low=1, high=100, integer=True))
        if k is not None and least > k:
            raise DefinitionError(keys.at("min_votes"), f"is {least}, more than k ({k}): no item could stop early")
        stopping = Stopping("confidence", threshold, least, *prior_part(keys, fields))
    else:
        shown = repr(value) if isinstance(value, str) else kind(value)
        raise DefinitionError(path, f"must be decided or a mapping {{confidence: 0.95, min_votes: 3}}, not {shown}")
    judged = [q for q in questions if q.gold is not None]
    if not judged:
        raise DefinitionError(path, "no question has a gold rule, so there is nothing to stop on")
    for question in judged:
        why = stoppable(question)
        if why is not None:
            raise DefinitionError(path, f"question {question.id!r} cannot stop an item: {why}; stopping needs every "
                                        "question with gold to be one it can decide")
    return stopping


def prior_part(keys: Keys, fields: Sequence[str]) -> tuple[str | None, float]:
    """`prior_by` (an item field the definition declares: shown, read or kept) and `prior_weight` (above 0)."""
    if not keys.has("prior_by"):
        if keys.has("prior_weight"):
            raise DefinitionError(keys.at("prior_weight"), "weighs the prior of prior_by, which is not given: add "
                                                           "prior_by: <item field>, or leave prior_weight out")
        return None, PRIOR_WEIGHT
    field = keys.data["prior_by"]
    declared = ", ".join(fields) or "none"
    if not isinstance(field, str) or field not in fields:
        shown = repr(field) if isinstance(field, str) else kind(field)
        raise DefinitionError(keys.at("prior_by"), f"must name an item field the definition declares (shown, read "
                                                   f"or kept), not {shown}; declared here: {declared}")
    weight = keys.number("prior_weight", PRIOR_WEIGHT, low=0, high=1_000_000)
    if weight <= 0:
        raise DefinitionError(keys.at("prior_weight"), f"must be above 0 (the votes the project's shares weigh in "
                                                       f"a group's prior), not {weight:g}")
    return field, weight


def item_group(payload: Mapping[str, Any] | None, field: str) -> str:
    """The group key (core/stopping.group_key) of an item stored as `payload`, by its `prior_by` field (a field's
    name or a key path into one)."""
    value = paths.get(payload or {}, field) if paths.is_path(field) else (payload or {}).get(field)
    return group_key(value)


def question_of(unit: Hashable) -> str:
    """The question of a unit written (question, label unit)."""
    return str(unit[0]) if isinstance(unit, tuple) else str(unit)


def domain(question: Question, seen: Sequence[str] = ()) -> Sequence[str]:
    """What a vote may give a unit: the question's values (a multi option: ticked or not), else those seen."""
    if question.kind == "multi":
        return BINARY
    return answer_values(question) or seen


def gold_of(questions: Mapping[str, Question]) -> Gold:
    """Gold of a unit (question, label unit) from its counts, by the question's rule, exactly as gold.py decides."""
    def gold(unit: Hashable, counts: Mapping[str, int], n: int) -> Any:
        question_id, name = unit if isinstance(unit, tuple) else (unit, unit)
        question = questions[question_id]
        numbers = [float(v) for v, c in counts.items() for _ in range(c)] if is_numeric(question) else []
        return unit_gold(question, counts, n, name, sorted(numbers))[0]
    return gold
