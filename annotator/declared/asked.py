"""What a definition asks, read from the model alone: whether a question is asked given a vote's earlier answers
(its `when`), the unit of a pairwise question's label rows, a repeat group by its id.

Below the answer checks (answers.py), the groups (repeat.py), derived comparisons and the "not asked" agreement
value, which all read these, so that none of them imports another for them.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from annotator.declared.definition import Definition, Question, Repeat, number_text


def is_shown(question: Question, answer: Mapping[str, Any]) -> bool:
    """Whether the question is asked, given the answers to the earlier ones (its `when`)."""
    for parent, wanted in question.when:
        given = answer.get(parent)
        if given is None:
            return False
        given_values = [str(v) for v in given] if isinstance(given, list) else \
            [number_text(given) if isinstance(given, (int, float)) and not isinstance(given, bool) else str(given)]
        if not set(given_values) & set(wanted):
            return False
    return True


def pair_unit(question: Question, payload: Mapping[str, Any]) -> str:
    """A pairwise label's unit: the question's id, or with `players` the JSON pair ["<A>", "<B>"] of what A and B
    are, so that Bradley-Terry strengths can be fitted from the label rows alone."""
    if not question.players:
        return question.id
    return json.dumps([str(payload.get(question.players[0], "")), str(payload.get(question.players[1], ""))],
                      ensure_ascii=False)


def group_of(definition: Definition, gid: str) -> Repeat:
    return next(g for g in definition.repeats if g.id == gid)
