"""A declared campaign's stored values in its own words, for the admin's HTML pages: each option's label from
the definition, chosen / not chosen for a multi's boxes, selected / not selected for a span's words.

Exports and the API keep the stored values (TaskType.label_words says why).
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from annotator.core.hit_values import plain_words
from annotator.declared import (
    best_worst,
    boundaries,
    distribution,
    extractive,
    graded,
    groups,
    item_view,
    ranking,
    relations,
    repeat,
    spans,
    unasked,
)
from annotator.declared.answers import item_options, words
from annotator.declared.definition import NOT_ASKED, UNDECIDED, Definition

KIND_WORDS = {"multi": {"1": "chosen", "0": "not chosen"}, "span": {"1": "selected", "0": "not selected"},
              "pairwise": {"A": "A", "B": "B", "equal": "About equal"}}
ALWAYS = {UNDECIDED: "Undecided", NOT_ASKED: "Not asked"}


def value_words(definition: Definition, field: str, value: Any) -> str:
    """`field`: a question's id, "<id>: <option>" (a multi question's agreement per option), "<id> / <element>"
    (a group question's figure on one element) or "<name> (pooled)" (a figure pooled over questions)."""
    said = plain_words(value)
    if (tag := boundaries.value_words(field, said)) is not None:
        return tag
    if field.endswith(graded.SUFFIX):   # a graded pairwise question's signed grade: its words (graded.py)
        question = next((q for q in definition.questions if graded.field(q) == field and q.grades), None)
        if question is not None:
            return graded.grade_words(question).get(said, said)
    if field.endswith(groups.POOLED):   # a figure pooled over questions (RuArg's "all labels"): in their words
        pooled = [q.id for q in definition.questions if q.pooled == field.removesuffix(groups.POOLED)]
        if pooled:   # a value the questions word differently in each of their words: "other / no argument"
            return " / ".join(dict.fromkeys(value_words(definition, question, said) for question in pooled))
    question = next((q for q in definition.questions if q.id == unasked.field_question(field.split(": ")[0])), None)
    if question is None:
        return said
    words = {o.value: o.label for o in question.options} if question.kind == "choice" else \
        KIND_WORDS.get(question.kind, {})
    if question.kind == "spans":
        words = spans.value_words(question)
    if question.kind == "ranking":
        words = ranking.value_words(question)   # "1": "ranked 1st"
    if question.kind == "best_worst":
        words = best_worst.value_words(question)   # "1": the best's words, "-1": the worst's
    if question.kind == "extractive":
        words = extractive.value_words(question)   # "unanswerable" in the box's words; a stretch as its offsets
    if question.kind == "distribution":
        words = distribution.value_words(question)   # the hard label's option
    if question.kind == "relations":
        words = relations.value_words(question)   # a type's words; related / not related
    if question.grades:   # a graded pairwise question's mean_grade tally ("A2: 1"): the grades' words
        words = {**words, **dict(zip(graded.values(question), question.grades))}
    return {**ALWAYS, **words}.get(said, said)


DECIDED_WORDS = {"1": "yes", "0": "no"}


def gold_row_words(definition: Definition, row: Mapping[str, Any], said: dict[str, str]) -> dict[str, str]:
    """A gold row's gold and its votes' tally ("yes: 1, no: 2") in the words of the row's question."""
    question = row.get("question")
    if not isinstance(question, str):
        return said
    said = {**said, "gold": value_words(definition, question, row.get("gold"))}
    asked = next((q for q in definition.questions if q.id == question), None)
    for decision in asked.decisions() if asked is not None else ():
        # a further decision (gold.also) is "1" / "0": said yes / no, as a truth value is on every page
        if (value := row.get(decision.name)) in DECIDED_WORDS:
            said[decision.name] = DECIDED_WORDS[value]
    if isinstance(row.get("votes"), str):
        parts = [part.rpartition(": ") for part in row["votes"].split(", ")]
        said["votes"] = ", ".join(f"{value_words(definition, question, value)}: {count}" if sep else value
                                  for value, sep, count in parts)
    return said


# agreement.py's "<item> / <unit>" where the unit is a pairwise question's players (asked.pair_unit)
PAIR_OPENS = ' / ["'


def agreement_unit_words(definition: Definition, field: str, unit: str) -> str:
    """An agreement unit ("<item> / <unit>", declared/agreement.py) as a page says it: a pairwise question's players
    (stored as a JSON pair, '["alpha", "beta"]') as "alpha vs beta"; any other unit as it is."""
    question = next((q for q in definition.questions if q.id == field), None)
    at = unit.rfind(PAIR_OPENS)
    if question is None or question.kind != "pairwise" or not question.players or at < 0:
        return unit
    try:
        pair = json.loads(unit[at + 3:])
    except ValueError:
        return unit
    if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
        return unit
    return f"{unit[:at]} / {pair[0]} vs {pair[1]}"


def unit_words(definition: Definition, payload: Mapping[str, Any], row: Mapping[str, Any]) -> str | None:
    """A gold row's unit in words: a span's word (its unit is the word's position in the field), the two
    things a pairwise question compared (its unit is their ids); None for the other kinds, whose unit is the
    question's id or an option's value."""
    question = next((q for q in definition.questions if q.id == row.get("question")), None)
    unit = str(row.get("unit", ""))
    if question is None:
        return None
    if question.group is not None:
        return repeat.element_text(definition, question, payload, unit)
    if question.kind == "span" and (at := item_view.position(question, payload, unit)) is not None:
        said = words(question, payload)
        where = f"{unit}, position {at}" if question.token_id else f"position {at}"
        return f"{said[at]} ({where})" if at < len(said) else None
    if question.kind == "spans":
        return spans.unit_words(question, payload, unit)
    if question.kind == "ranking":
        return ranking.unit_words(question, unit)
    if question.kind == "best_worst":
        return best_worst.unit_words(question, payload, unit)
    if question.kind == "distribution":
        return distribution.unit_words(question, unit)
    if question.kind == "relations":   # “Ada Lovelace” (Person) works for “Analytical Engines” (Organisation)
        return relations.unit_words(question, relations.spans_question(definition.questions, question), payload, unit)
    if question.kind == "pairwise" and question.a and question.b:
        return f"{question.a}: {payload.get(question.a, '')} / {question.b}: {payload.get(question.b, '')}"
    if question.kind == "multi" and question.options_from is not None:
        # an option read from the item (a key point of an argument): its unit is the option's value (its id), its
        # words the option's text, as the built-in kp_match type said its key points
        label = next((o.label for o in item_options(question, payload) if o.value == unit), None)
        return label if label and label != unit else None
    return None
