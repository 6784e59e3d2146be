"""Control items of a declared campaign: a known answer is an answer object, scored question by question.

The known answer (`Item.reference`, or the decided gold of `control_reference`) has the shape of an answer,
{question id: value}, possibly for only some questions (a span by probability may be known as every word's
probability, {unit: probability}: the words most annotators selected are then the known selection); pairwise
values are in the item's terms ("A" is field `a`). A further decision marked `known` (also.py) that holds on
the unit names the known answer instead of the gold. `control_score` is the mean over the known questions of 1 / 0
for an equal answer (choice, scale, pairwise, the latter mapped from the sides the annotator was shown) and the
Jaccard overlap for multi and span (1 when both are empty); spans by the same overlap of their exact spans (start,
end and label: spans.py); a ranking by the share of option pairs in the known order ((1 + Kendall's tau) / 2:
ranking.py); a best-worst tuple by the share of its two picks that match (1, 0.5, 0: best_worst.py); an extractive
answer by its token F1 against the known one (SQuAD's: extractive.py); a distribution by 1 - the total variation
distance (distribution.py); relations by the F1 of their sets, ends and type exactly (1 when both are empty:
relations.py); a graded pairwise answer by its side (graded.py). A known question the annotator did
not answer (hidden by `when`, or optional and left out) scores 0. Text questions are not scored. A definition's
`control_score:` may score only some questions, and count one hidden by its `when` as its agreement's not-asked
value (declared/control_scoring.py).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from annotator.declared import (
    best_worst,
    boundaries,
    distribution,
    extractive,
    graded,
    item_view,
    ranking,
    relations,
    repeat,
    rules,
    spans,
)
from annotator.declared.answers import item_options, swapped, words
from annotator.declared.control_scoring import KEY as CONTROL_KEY
from annotator.declared.control_scoring import as_counted, control_scoring_part, scored
from annotator.declared.definition import NOT_ASKED, UNDECIDED, Definition, Question, number_text

if TYPE_CHECKING:
    import pandas as pd

SIDES = {"A": "B", "B": "A"}


def control_score(definition: Definition, payload: Mapping[str, Any], answer: Any, reference: Any,
                  presentation: Mapping[str, Any] | None = None) -> float | None:
    """Mean over the reference's scorable questions of how right the answer is; None when none can be scored."""
    if not isinstance(reference, Mapping) or not isinstance(answer, Mapping):
        return None
    scoring = control_scoring_part(definition.data.get(CONTROL_KEY), definition.questions)
    scores = []
    for question in definition.questions:
        if question.group is not None:   # known per element: {group: {element: {question: value}}}
            if repeat.first_of_group(definition, question):
                scores += repeat.control_scores(definition, question.group, answer.get(question.group),
                                                reference.get(question.group), _agreement, presentation, scoring)
            continue
        known = as_counted(scoring, question, reference, reference.get(question.id))
        if question.kind == "text" or question.derived is not None or not scored(scoring, question) or \
                known is None or known in (UNDECIDED, NOT_ASKED):
            continue
        given = as_counted(scoring, question, answer, answer.get(question.id))
        if given is None:
            scores.append(0.0)
            continue
        if question.kind == "pairwise":   # a grade ("A2") is scored as its side, as its label row counts it
            given = graded.flipped(str(given)) if swapped(question, presentation) else str(given)
            if question.grades:
                given, known = _side(given), _side(known)
        if question.kind == "span" and isinstance(known, Mapping):   # every word's probability: its top words
            known = most_selected(question, payload, known)
        if question.kind == "extractive":   # the texts are compared, read from the passage (extractive.py)
            scores.append(extractive.control_score(question, payload, given, known))
            continue
        scores.append(_agreement(question, boundaries.positions(question, given), known))
    return sum(scores) / len(scores) if scores else None


def most_selected(question: Question, payload: Mapping[str, Any], probabilities: Mapping[str, Any]) -> list[int]:
    """The positions of the words a span's known probabilities ({unit: probability}) say most annotators selected
    (more than half), the words a control answer is compared with."""
    chosen = []
    for unit, p in probabilities.items():
        try:
            top = float(p) > 0.5
        except (TypeError, ValueError):
            continue
        if top and (at := item_view.position(question, payload, str(unit))) is not None:
            chosen.append(at)
    return sorted(chosen)


def _side(value: Any) -> Any:
    """A graded pairwise value ("A2") as its side ("A"); anything else as it is."""
    text = str(value)
    return graded.collapsed(text) if text == graded.TIE or graded.flipped(text) != text else value


def _agreement(question: Question, given: Any, known: Any) -> float:
    if question.kind == "spans":
        return spans.overlap_score(given, known)
    if question.kind == "ranking":
        return ranking.pair_score(given, known)
    if question.kind == "best_worst":
        return best_worst.control_score(given, known)
    if question.kind == "distribution":
        return distribution.distance_score(given, known, question.total)
    if question.kind == "relations":
        return relations.f1_score(given, known)
    if question.kind in ("multi", "span"):
        chosen = {str(v) for v in given} if isinstance(given, list) else set()
        right = {str(v) for v in known} if isinstance(known, list) else set()
        union = chosen | right
        return 1.0 if not union else len(chosen & right) / len(union)
    if question.kind == "scale":
        try:
            return float(abs(float(given) - float(known)) < 1e-9)
        except (TypeError, ValueError):
            return 0.0
    return float(str(given) == str(known))


def control_reference(definition: Definition, external_id: str, gold: pd.DataFrame,
                      payload: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The item's decided gold as an answer object; None when no question of the item is decided.

    A multi question or a share-ruled span is known only when every option / word of the item is decided. A span by
    probability is known as every word's probability ({unit: probability}, the unit a token's id or a word's
    position): a control answer is then scored against the words more than half the annotators selected, and the
    figures stay with the item. A median or mean between two points of the scale, an undecided question and one
    not asked (n/a) are left out.
    """
    rows = gold[gold["item"] == external_id] if not gold.empty else gold
    known: dict[str, Any] = {}
    for question in definition.questions:
        if question.group is not None:
            if repeat.first_of_group(definition, question):
                known.update({question.group: found} if (found := repeat.reference_from_gold(
                    definition, question.group, rows, payload)) else {})
            continue
        if question.gold is None or question.derived is not None:   # a derived question has no known answer
            continue
        mine = rows[rows["question"] == question.id] if not rows.empty else rows
        if question.kind == "relations":   # known where its spans question is: no relation given is none known
            related = relations.gold_relations(mine) if relations.rules_of(question).of in known else None
            if related is not None:
                known[question.id] = related
            continue
        if mine.empty:
            continue
        if question.kind == "spans":
            if (marks := spans.gold_spans(mine)) is not None:
                known[question.id] = marks
            continue
        if question.kind == "ranking":
            if (order := ranking.gold_ranking(mine)) is not None:
                known[question.id] = order
            continue
        if question.kind == "best_worst":
            if (picks := best_worst.gold_answer(mine)) is not None:
                known[question.id] = picks
            continue
        if question.kind == "extractive":
            if (answer := extractive.gold_answer(mine)) is not None:
                known[question.id] = answer
            continue
        if question.kind == "distribution":
            if (shares := distribution.gold_distribution(question, mine)) is not None:
                known[question.id] = shares
            continue
        values = list(mine["gold"])
        if any(v == NOT_ASKED for v in values):
            continue
        if question.kind == "span" and question.gold.rule == "probability":
            known[question.id] = {str(unit): float(p) for unit, p in zip(mine["unit"], mine["score"])}
            continue
        if question.kind in ("multi", "span"):
            if any(v not in rules.BINARY for v in values):
                continue
            else:
                chosen = [unit for unit, v in zip(mine["unit"], values) if v == rules.TICKED]
            known[question.id] = [str(u) for u in chosen] if question.kind != "span" else \
                [p for u in chosen if (p := item_view.position(question, payload or {}, str(u))) is not None]
            continue
        value = values[0]
        if (said := _known_by_decision(question, mine)) is not None:
            known[question.id] = said
            continue
        if value == UNDECIDED:
            continue
        if question.kind == "choice" and question.gold.rule == "share":
            if value not in question.option_values():
                continue  # "not <value>" of three or more options: no one known answer
        if question.kind == "scale":
            number = float(value)
            if not any(abs(number - p) < 1e-9 for p in question.scale_values()) or math.isnan(number):
                continue
            known[question.id] = int(number) if number.is_integer() else number
            continue
        known[question.id] = str(value)
    return known or None


def _known_by_decision(question: Question, rows: pd.DataFrame) -> str | None:
    """The value of the question's first further decision marked `known` that is "1" on the unit, else None
    (also.py): such a decision names the known answer where it holds, whatever the question's gold says."""
    for decision in question.decisions():
        if decision.known and decision.name in rows.columns and str(rows[decision.name].iloc[0]) == rules.TICKED:
            return decision.values[0]
    return None


def show_reference(definition: Definition, payload: Mapping[str, Any], reference: Any) -> str:
    """The known answer in words, question by question: option labels, the words of a span, the field's label."""
    if not isinstance(reference, Mapping):
        return str(reference)
    parts = []
    for question in definition.questions:
        if question.group is not None:
            if repeat.first_of_group(definition, question):
                parts += repeat.reference_words(definition, question.group, payload, reference.get(question.group),
                                                lambda q, known: _words(definition, q, payload, known))
            continue
        known = reference.get(question.id)
        if known is None or question.kind == "text" or question.derived is not None:
            continue
        parts.append(f"{question.prompt} {_words(definition, question, payload, known)}")
    return "; ".join(parts) if parts else "No known answer."


def _words(definition: Definition, question: Question, payload: Mapping[str, Any], known: Any) -> str:
    if question.kind in ("choice", "multi"):
        labels = {o.value: o.label for o in item_options(question, payload)}
        if question.kind == "choice":
            return labels.get(str(known), str(known))
        chosen = [labels.get(str(v), str(v)) for v in known] if isinstance(known, list) else []
        return ", ".join(chosen) if chosen else (question.none or "none of them")
    if question.kind == "span":
        text = words(question, payload)
        if isinstance(known, Mapping):   # every word's probability
            top = [text[i] for i in most_selected(question, payload, known) if i < len(text)]
            return (" ".join(top) if top else "no word") + " (selected by most annotators)"

        chosen = [text[int(i)] for i in known if 0 <= int(i) < len(text)] if isinstance(known, list) else []
        return " ".join(chosen) if chosen else "no word"
    if question.kind == "spans":
        return spans.reference_words(question, payload, known)
    if question.kind == "ranking":
        return ranking.reference_words(question, known)
    if question.kind == "best_worst":
        return best_worst.reference_words(definition, question, payload, known)
    if question.kind == "extractive":
        return extractive.reference_words(question, payload, known)
    if question.kind == "distribution":
        return distribution.reference_words(question, known)
    if question.kind == "relations":
        return relations.reference_words(question, relations.spans_question(definition.questions, question), payload,
                                         known)
    if question.kind == "pairwise":
        known = _side(known)
        field = {"A": question.a, "B": question.b}.get(str(known))
        if field is None:
            return "equal"
        shown = next((s for s in definition.show if s.field == field), None)
        return shown.label if shown is not None and shown.label else str(payload.get(field, field))
    if isinstance(known, (int, float)) and not isinstance(known, bool):
        return number_text(known)
    return str(known)
