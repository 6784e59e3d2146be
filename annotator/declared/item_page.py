"""A declared campaign's item on the admin's items page: each annotation's answers in words, and the gold rows that
say a decision.

Why: the built-in HIT types drew their items page themselves (templates/admin/items/<type>.html): each annotation
with its answers as text (the option's words, the evidence quoted), next to the decision. A declared project had only
the generic gold table, where a spans question with `edges: characters` or `code_points` lists a row per character
of its text (agreement's units, hundreds per item), burying the rows of the marks, which carry its decisions.
Here, for every definition: the table of annotations (one row per vote, one column per question: a choice's option
label, a multi's chosen options, a span's selected words, a spans question's marks quoted with their label, a
ranking's order, an extractive answer quoted, a distribution's shares, each relation in words), and the gold rows
less the per-character ones (the marks' rows and every other question's rows stay).

Questions of a `repeat` group are left to the gold table (their rows are per element of the group); span questions
with boundaries are drawn as their text (declared/item_heat.py) and left out of both tables.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from annotator.declared import (
    best_worst,
    distribution,
    extractive,
    graded,
    item_heat,
    item_view,
    ranking,
    relations,
    span_attributes,
    spans,
)
from annotator.declared.answers import item_options
from annotator.declared.definition import Definition, Question
from annotator.declared.words import unit_words, value_words

NONE = "none"


def _rows_of(labels: Mapping[str, Any], fields: Mapping[str, str], question: Question,
             field: str | None = None) -> list[tuple[str, str]]:
    """(unit, value) of one vote's rows of the question (or of another of its fields, a mark's attribute); a vote's
    columns are "<unit> <field>" (items.item_rows). A graded pairwise question's rows are its signed grades'
    (graded.py): they say more than the side."""
    name = field or (graded.field(question) if question.grades else question.id)
    found = []
    for column, value in labels.items():
        if fields.get(column) == name:
            unit = column[:-len(name) - 1] if column.endswith(f" {name}") else column
            found.append((unit, str(value)))
    return found


def _attributes_of(labels: Mapping[str, Any], fields: Mapping[str, str],
                   question: Question) -> dict[str, list[str]]:
    """A vote's marks' attribute values ({mark unit: [value, ...]} in the declared order; span_attributes.py)."""
    found: dict[str, list[str]] = {}
    for name in span_attributes.agreement_fields(question):
        for unit, value in _rows_of(labels, fields, question, name):
            found.setdefault(unit, []).append(value)
    return found


def answer_words(definition: Definition, payload: Mapping[str, Any], question: Question,
                 rows: Sequence[tuple[str, str]], attributes: Mapping[str, Sequence[str]] | None = None) -> str:
    """One vote's answer to one question, in words (`attributes`: a spans question's marks' values by mark)."""
    if question.kind == "spans":
        text = spans.text_of(question, payload)
        rules = spans.rules_of(question)
        marks = [span for span in (spans.span_of(unit) for unit, value in rows if value == "1") if span is not None]
        return "; ".join(f"“{text[m.start:m.end]}”" + (f" as {rules.caption(m.label)}" if len(rules.labels) > 1 else "")
                         + (f" ({', '.join(values)})" if (values := (attributes or {}).get(m.unit)) else "")
                         for m in sorted(marks, key=lambda m: (m.start, m.end))) or NONE
    if question.kind == "relations":   # its rows: "<from>-><to>" -> type; in words, each relation
        return relations.answer_words(question, relations.spans_question(definition.questions, question), payload,
                                      rows) or NONE
    if question.kind == "ranking":   # its rows: option -> rank; in words, the order
        ranked = sorted((int(value), unit) for unit, value in rows if value.isdigit())
        return ranking.reference_words(question, [unit for _, unit in ranked]) if ranked else NONE
    if question.kind == "best_worst":   # its rows: member -> 1 / -1 / 0; in words, the two picks
        picks = {value: unit for unit, value in rows}
        known = {best_worst.BEST: picks.get(best_worst.VALUES[best_worst.BEST]),
                 best_worst.WORST: picks.get(best_worst.VALUES[best_worst.WORST])}
        return best_worst.reference_words(definition, question, payload, known) if all(known.values()) else NONE
    if question.kind == "extractive":   # its row: "<start>:<end>" or "unanswerable"; in words, the stretch quoted
        return "; ".join(extractive.stored_words(question, payload, value) for unit, value in rows
                         if unit == question.id) or NONE
    if question.grades:   # its rows: the signed grade in the item's terms; in words, the grade's
        return ", ".join(graded.grade_words(question).get(value, value) for _, value in rows) or NONE
    if question.kind == "distribution":   # its rows: option -> share; in words, each option's share
        return distribution.reference_words(question, dict(rows)) if rows else NONE
    if question.kind == "span":
        chosen = [unit_words(definition, payload, {"question": question.id, "unit": unit}) or unit
                  for unit, value in rows if value == "1"]
        return ", ".join(chosen) or NONE
    labels = {option.value: option.label for option in item_options(question, payload)} \
        if question.kind in ("choice", "multi") else {}
    if question.kind == "multi":
        chosen = [labels.get(unit) or value_words(definition, question.id, unit) for unit, value in rows
                  if value == "1"]
        return ", ".join(chosen) or NONE
    own = [value for unit, value in rows if unit == question.id]
    return ", ".join(labels.get(value) or value_words(definition, question.id, value) for value in own)


def vote_table(definition: Definition, payload: Mapping[str, Any],
               votes: Iterable[tuple[str, Mapping[str, Any]]], fields: Mapping[str, str]
               ) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """(the questions' ids, one row per vote: the annotator and each question's answer in words)."""
    viewed = item_view.view(definition, payload)
    drawn = {q.id for q in item_heat.drawn_questions(definition)}
    questions = [q for q in definition.questions if q.group is None and q.id not in drawn]
    return ([q.id for q in questions],
            [(annotator, [answer_words(definition, viewed, q, _rows_of(labels, fields, q),
                                       _attributes_of(labels, fields, q)) for q in questions])
             for annotator, labels in votes])


def shown_gold(definition: Definition, gold: Mapping[str, Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The gold rows worth reading one by one: all but a character-edged spans question's rows per character and
    the rows of the questions drawn as their text (declared/item_heat.py)."""
    per_character = {q.id for q in definition.questions if q.kind == "spans" and spans.rules_of(q).characters}
    drawn = {q.id for q in item_heat.drawn_questions(definition)}
    return {unit: row for unit, row in gold.items() if row.get("question") not in drawn
            and (row.get("question") not in per_character or spans.span_of(row.get("unit")) is not None)}
