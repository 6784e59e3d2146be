"""Which questions a control item scores, and how a question its `when` hid counts: `control_score:` of a
definition.

Why: a campaign moved from a hand-written HIT type keeps its annotators' blocking thresholds only if a control
item scores the same answer the same. By default (declared/controls.py) every known question scores, and one a
known answer's `when` hid is left out. A campaign whose score counted labels instead, a hidden one as a value of
its own (RuArg-2022's six codes per sentence, -1 "irrelevant" included), says so:

    control_score:
      questions: [stance, premise]   # only these score (a group's questions by id); default: every question
      not_asked: true                # hidden by its `when`, in the answer or the known answer, a question counts
                                     # as its `agreement.not_asked` value (declared/unasked.py)

With `not_asked`, each listed question must have `agreement: {not_asked: <value>}`. Bad keys and ids are refused
with their path (DefinitionError).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotator.declared.asked import is_shown
from annotator.declared.definition import NOT_ASKED, UNDECIDED, DefinitionError, Question

KEY = "control_score"


@dataclass(frozen=True)
class ControlScoring:
    questions: tuple[str, ...] | None = None   # None: every question
    not_asked: bool = False


def control_scoring_part(raw: Any, questions: Sequence[Question]) -> ControlScoring | None:
    """The checked `control_score:` mapping, or None when the definition has none."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise DefinitionError(KEY, "must be a mapping {questions: [ids], not_asked: true}")
    for key in raw:
        if key not in ("questions", "not_asked"):
            raise DefinitionError(f"{KEY}.{key}", "unknown key; known here: questions, not_asked")
    by_id = {q.id: q for q in questions}
    listed = raw.get("questions")
    if listed is not None and (not isinstance(listed, list) or not listed
                               or not all(isinstance(q, str) for q in listed)):
        raise DefinitionError(f"{KEY}.questions", "must list question ids")
    for index, qid in enumerate(listed or ()):
        if qid not in by_id:
            raise DefinitionError(f"{KEY}.questions[{index}]", f"{qid[:40]!r} is not a question of the definition "
                                                               f"(questions: {', '.join(by_id)})")
    not_asked = raw.get("not_asked", False)
    if not isinstance(not_asked, bool):
        raise DefinitionError(f"{KEY}.not_asked", "must be true or false")
    if not_asked:
        for qid in listed or by_id:
            if by_id[qid].when and by_id[qid].not_asked is None:
                raise DefinitionError(f"{KEY}.not_asked", f"{qid!r} has a `when` but no agreement.not_asked value "
                                                          "to count where it is hidden")
    return ControlScoring(tuple(listed) if listed is not None else None, not_asked)


def scored(scoring: ControlScoring | None, question: Question) -> bool:
    """Whether a control item scores the question."""
    return scoring is None or scoring.questions is None or question.id in scoring.questions


def as_counted(scoring: ControlScoring | None, question: Question, answers: Mapping[str, Any], value: Any) -> Any:
    """The value a control item compares: `value` itself, or with `not_asked` the question's not-asked value where
    the other answers of the same answer (or known answer) hide it (an earlier answer given, and not one of its
    `when`)."""
    if scoring is None or not scoring.not_asked or question.not_asked is None or not question.when:
        return value
    if value not in (None, NOT_ASKED) and value != UNDECIDED:
        return value
    decided = all(answers.get(parent) not in (None, UNDECIDED) for parent, _ in question.when)
    return question.not_asked if decided and not is_shown(question, answers) else value
