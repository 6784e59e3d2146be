"""Answers to a declared HIT: which questions an item shows, what a valid answer is, and its label rows.

The answer is one JSON object, `{"<question id>": value, ...}` (the API's `{"answer": {...}}`, and what the
HIT page's form stands for). Values by kind:
  choice    the option's value (text)                    multi   a list of option values ([] = none)
  scale     a number on the scale                         span    a list of word positions (0-based) of `of`
  pairwise  "A", "B" or "equal", in the terms shown       text    text up to max_length
  spans     a list of {"start", "end", "label"}: character offsets of `of` and a declared label (spans.py)
  span with `boundaries: true`: a "B" / "I" / "O" tag per word, or positions (each run one span) (boundaries.py)
  ranking   a list of every option value once, best first (ranking.py)
  best_worst {"best": <id>, "worst": <id>}: two different members of the tuple (best_worst.py)
  extractive  {"start", "end"}: one stretch of `of` (character offsets), or {"unanswerable": true} (extractive.py)
  distribution  {option: share}, every option a whole number, the shares adding up to `total` (distribution.py)
  pairwise with `grades`: "A3" .. "A1", "equal", "B1" .. "B3", in the terms shown (graded.py)
  relations  a list of {"from", "to", "label"}: two marks of the same answer's spans question `of` by their units
             "<start>:<end>:<label>", and a declared type (relations.py); [] where `of` is not answered
A question hidden by `when` must be left out (or null); an optional question may be.

Label rows (unit, field, value), the form every analysis reads; field is the question's id ("<id>.bio" too below):
  choice, scale, text             one row, unit = question id, value = the answer
  pairwise                        one row, value in the item's terms ("A" is field `a`, whatever side the page
                                  showed it on); unit = question id, or with `players` ["<A>", "<B>"] (pair_unit)
  multi                           one row per option of the item, unit = option value, value "1" / "0"
  span                            one row per word of the field, unit = word position, value "1" / "0"; with
                                  boundaries also one per word in field "<id>.bio", value its tag (boundaries.py)
  spans                           one row per word, unit "<start>:<end>", value its label or "O"; one per span,
                                  unit "<start>:<end>:<label>", value "1" (annotator/declared/spans.py)
  ranking                         one row per option, unit = option value, value its rank "1" (best) .. "n"
  best_worst                      one row per member of the tuple, unit = its id, value "1" best, "-1" worst, "0"
                                  neither (best_worst.py)
  extractive                      unit = question id, value "<start>:<end>" or "unanswerable"; and the stretch's
                                  text in field "<id>.text" (extractive.py)
  distribution                    one row per option, unit = option value, value its share ("70")
  pairwise with `grades`          the collapsed "A" / "B" / "equal" row as above, and one in field "<id>.grade",
                                  value the signed grade in the item's terms, "-3" (A much better) .. "3" (graded.py)
  relations                       one row per relation, unit "<from unit>-><to unit>", value its type (relations.py)
A question not shown (or optional and left out) has no rows: its gold counts only the annotators who answered.
"""
from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from annotator.core.hit_values import AnswerError, LabelIn
from annotator.declared import (
    best_worst,
    boundaries,
    derived,
    distribution,
    extractive,
    graded,
    item_view,
    item_when,
    option_values,
    ranking,
    relations,
    repeat,
    sides,
    spans,
)
from annotator.declared.asked import is_shown, pair_unit
from annotator.declared.definition import PAIRWISE_VALUES, Definition, OptionSpec, Question, number_text

SWAPPED = "swapped"   # presentation key: the page shows field b on the left as "A"


def item_options(question: Question, payload: Mapping[str, Any]) -> tuple[OptionSpec, ...]:
    """The options of a choice / multi question for this item: declared, or read from `options_from`.

    An item field of options is a list of text, or of {"id", "text"} objects (the key points of an argument).
    """
    if question.options_from is None:
        return question.options
    if question.numbered:   # `values: index`: "0", "1", ... (declared/option_values.py)
        return option_values.numbered_options(payload.get(question.options_from) or [])
    options = []
    for entry in payload.get(question.options_from) or []:
        if isinstance(entry, Mapping):   # each fallback looked up only when needed: this runs on every request
            value = entry["id"] if "id" in entry else entry.get("value", "")
            text = entry["text"] if "text" in entry else entry["label"] if "label" in entry else entry.get("id", "")
            options.append(OptionSpec(str(value), str(text)))
        else:
            options.append(OptionSpec(str(entry), str(entry)))
    return tuple(options)


def words(question: Question, payload: Mapping[str, Any]) -> list[str]:
    """The words of a span question's field: the text split on white space (a list of tokens is kept as is)."""
    value = payload.get(question.of or "", "")
    if isinstance(value, list):
        return [str(token) for token in value]
    return str(value if value is not None else "").split()


def check_answer(definition: Definition, payload: Mapping[str, Any], answer: Any,
                 presentation: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], list[LabelIn]]:
    """The answer as stored (only the shown questions, values in canonical form) and its label rows.

    AnswerError names the question (its id) and says what would fit.
    """
    if not isinstance(answer, dict):
        raise AnswerError("the answer must be a JSON object {question id: value}")
    known = repeat.answer_keys(definition)
    unknown = sorted(str(k) for k in answer if k not in known)
    if unknown:
        raise AnswerError(f"{unknown[0][:40]!r} is not a question of this HIT (its questions: {', '.join(known)})"
                          + repeat.asked_per_element(definition, unknown[0]))
    if (problem := item_when.refusal(definition, payload, answer)) is not None:
        raise AnswerError(problem)
    definition = item_when.for_item(definition, payload)   # the questions this item asks (item_when.py)
    stored: dict[str, Any] = {}
    labels: list[LabelIn] = []
    for question in definition.questions:
        if question.group is not None:   # asked per element: the group's answer, checked once (declared/repeat.py)
            if repeat.first_of_group(definition, question):
                stored[question.group], rows = repeat.check_group(definition, question.group, payload,
                                                                  answer.get(question.group), check_answer,
                                                                  presentation)
                labels += rows
            continue
        if question.derived is not None:   # not asked: its row is made from the answers so far (derived.py)
            labels += derived.rows(definition, question, payload, stored, presentation)
            continue
        value = answer.get(question.id)
        if not is_shown(question, stored):
            if value is not None:
                raise AnswerError(f"{question.id}: not asked for this answer (it is shown only when "
                                  f"{_condition(question)}); leave it out")
            continue
        if value is None or value == "" and question.kind == "text":
            if question.required and relations.needed(question, stored):   # relations: where two marks exist
                raise AnswerError(f"{question.id}: an answer is required")
            continue
        if question.kind == "relations":   # its ends are marks of the same answer's spans question (relations.py)
            canonical, rows = relations.check(question, stored.get(relations.rules_of(question).of), value)
        else:
            canonical, rows = _CHECKS[question.kind](question, payload, value, presentation or {})
        stored[question.id] = canonical
        labels += rows
    return stored, labels


def _condition(question: Question) -> str:
    return " and ".join(f"{parent} is {' or '.join(map(repr, values))}" for parent, values in question.when)


def _choice(question: Question, payload: Mapping[str, Any], value: Any,
            presentation: Mapping[str, Any]) -> tuple[Any, list[LabelIn]]:
    values = [o.value for o in item_options(question, payload)]
    text = number_text(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value
    if not isinstance(text, str) or text not in values:
        raise AnswerError(f"{question.id}: {str(value)[:40]!r} is not one of {', '.join(map(repr, values))}")
    return text, [LabelIn(question.id, question.id, text)]


def _multi(question: Question, payload: Mapping[str, Any], value: Any,
           presentation: Mapping[str, Any]) -> tuple[Any, list[LabelIn]]:
    values = [o.value for o in item_options(question, payload)]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AnswerError(f"{question.id}: must be a list of option values ([] for none of them)")
    unknown = [v for v in value if v not in values]
    if unknown:
        raise AnswerError(f"{question.id}: {unknown[0][:40]!r} is not one of {', '.join(map(repr, values))}")
    if len(set(value)) != len(value):
        raise AnswerError(f"{question.id}: names an option twice")
    if not value and question.required and question.none is None:
        raise AnswerError(f"{question.id}: choose at least one option")
    chosen = set(value)
    ordered = [v for v in values if v in chosen]
    return ordered, [LabelIn(v, question.id, "1" if v in chosen else "0") for v in values]


def _scale(question: Question, payload: Mapping[str, Any], value: Any,
           presentation: Mapping[str, Any]) -> tuple[Any, list[LabelIn]]:
    points = question.scale_values()
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not any(abs(value - p) < 1e-9 for p in points):
        raise AnswerError(f"{question.id}: must be a number from {number_text(question.minimum)} to "
                          f"{number_text(question.maximum)} in steps of {number_text(question.step)}")
    point = min(points, key=lambda p: abs(value - p))
    number = int(point) if float(point).is_integer() else point
    return number, [LabelIn(question.id, question.id, number_text(point))]


def _span(question: Question, payload: Mapping[str, Any], value: Any,
          presentation: Mapping[str, Any]) -> tuple[Any, list[LabelIn]]:
    count = len(words(question, payload))
    if question.boundaries:   # the tags B / I / O per word (declared/boundaries.py)
        return boundaries.labels(question, value, item_view.units(question, payload, count))
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise AnswerError(f"{question.id}: must be a list of word positions (0 is the first word of {question.of})")
    outside = [v for v in value if not 0 <= v < count]
    if outside:
        raise AnswerError(f"{question.id}: word {outside[0]} is not in the text ({count} words, 0 to {count - 1})")
    if len(set(value)) != len(value):
        raise AnswerError(f"{question.id}: names a word twice")
    chosen = set(value)  # none selected is an answer: "nothing here" (as the emphasis HIT's all-O vote)
    units = item_view.units(question, payload, count)   # the words' positions, or their ids (token_id)
    return sorted(chosen), [LabelIn(units[i], question.id, "1" if i in chosen else "0") for i in range(count)]


def _pairwise(question: Question, payload: Mapping[str, Any], value: Any,
              presentation: Mapping[str, Any]) -> tuple[Any, list[LabelIn]]:
    allowed = graded.values(question) if question.grades else \
        PAIRWISE_VALUES if question.allow_equal else PAIRWISE_VALUES[:2]
    if not isinstance(value, str) or value not in allowed:
        raise AnswerError(f"{question.id}: must be {', '.join(map(repr, allowed))}")
    in_item_terms = graded.flipped(value) if swapped(question, presentation) else value
    unit = pair_unit(question, payload)
    if not question.grades:
        return value, [LabelIn(unit, question.id, in_item_terms)]
    return value, [LabelIn(unit, question.id, graded.collapsed(in_item_terms)),           # a win, a loss or a tie
                   LabelIn(unit, graded.field(question), str(graded.signed(in_item_terms)))]


def _text(question: Question, payload: Mapping[str, Any], value: Any,
          presentation: Mapping[str, Any]) -> tuple[Any, list[LabelIn]]:
    if not isinstance(value, str):
        raise AnswerError(f"{question.id}: must be text")
    value = value.strip()
    if len(value) > question.max_length:
        raise AnswerError(f"{question.id}: is {len(value)} characters long; at most {question.max_length}")
    if not value and question.required:
        raise AnswerError(f"{question.id}: an answer is required")
    return value, [LabelIn(question.id, question.id, value)] if value else []


def _spans(question: Question, payload: Mapping[str, Any], value: Any,
           presentation: Mapping[str, Any]) -> tuple[Any, list[LabelIn]]:
    """spans.check, looked up when called: this module is loaded while spans.py is (spans.py reads tasks.base, whose
    package registers the declared type, which reads this module), so `spans.check` does not exist yet then."""
    return spans.check(question, payload, value, presentation)


def _ranking(question: Question, payload: Mapping[str, Any], value: Any,
             presentation: Mapping[str, Any]) -> tuple[Any, list[LabelIn]]:
    return ranking.check(question, value)


def _best_worst(question: Question, payload: Mapping[str, Any], value: Any,
                presentation: Mapping[str, Any]) -> tuple[Any, list[LabelIn]]:
    return best_worst.check(question, payload, value)


def _extractive(question: Question, payload: Mapping[str, Any], value: Any,
                presentation: Mapping[str, Any]) -> tuple[Any, list[LabelIn]]:
    return extractive.check(question, payload, value)


def _distribution(question: Question, payload: Mapping[str, Any], value: Any,
                  presentation: Mapping[str, Any]) -> tuple[Any, list[LabelIn]]:
    return distribution.check(question, value)


_CHECKS = {"choice": _choice, "multi": _multi, "scale": _scale, "span": _span, "pairwise": _pairwise, "text": _text,
           "spans": _spans, "ranking": _ranking, "best_worst": _best_worst, "extractive": _extractive,
           "distribution": _distribution}


def swapped(question: Question, presentation: Mapping[str, Any] | None) -> bool:
    return question.id in ((presentation or {}).get(SWAPPED) or ())


def presentation_drawn(definition: Definition) -> bool:
    """Whether `presentation` draws anything for this definition (it has a pairwise question)."""
    return any(q.kind == "pairwise" and q.derived is None for q in definition.questions)


def presentation(definition: Definition, rng: random.Random) -> dict[str, Any] | None:
    """Which pairwise questions show field b on the left, drawn per annotator so position does not bias the choice:
    each question on its own, or all at once with `pairwise_order: per_hit` (declared/sides.py)."""
    return sides.draw(definition, rng)


def example_answer(definition: Definition, public: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """A valid answer drawn at random (load and concurrency tests): every shown question, optional ones too."""
    definition = item_when.for_item(definition, public)
    answer: dict[str, Any] = {}
    for question in definition.questions:
        if question.group is not None:
            if repeat.first_of_group(definition, question):
                answer[question.group] = repeat.example_group(definition, question.group, public, rng, example_answer)
            continue
        if question.derived is not None or not is_shown(question, answer):
            continue
        kind = question.kind
        if kind == "choice":
            answer[question.id] = rng.choice([o.value for o in item_options(question, public)])
        elif kind == "multi":
            values = [o.value for o in item_options(question, public)]
            least = 0 if question.none is not None or not question.required else 1
            answer[question.id] = [v for v in values if rng.random() < 0.3] or \
                ([] if least == 0 else [rng.choice(values)])
        elif kind == "scale":
            point = rng.choice(question.scale_values())
            answer[question.id] = int(point) if float(point).is_integer() else point
        elif kind == "span":
            count = len(words(question, public))
            chosen = [i for i in range(count) if rng.random() < 0.3]
            answer[question.id] = boundaries.example(count, rng) if question.boundaries else chosen
        elif kind == "pairwise" and question.grades:
            answer[question.id] = graded.example_answer(question, rng)
        elif kind == "pairwise":
            answer[question.id] = rng.choice(PAIRWISE_VALUES if question.allow_equal else PAIRWISE_VALUES[:2])
        elif kind == "spans":
            answer[question.id] = spans.example_answer(question, public, rng)
        elif kind == "ranking":
            answer[question.id] = ranking.example_answer(question, rng)
        elif kind == "best_worst":
            answer[question.id] = best_worst.example_answer(public, rng)
        elif kind == "extractive":
            answer[question.id] = extractive.example_answer(question, public, rng)
        elif kind == "distribution":
            answer[question.id] = distribution.example_answer(question, rng)
        elif kind == "relations":   # between the marks drawn above for its spans question
            answer[question.id] = relations.example_answer(question, answer.get(relations.rules_of(question).of), rng)
        else:
            answer[question.id] = rng.choice(["fine", "unclear wording", "ok"])
    return answer


def public_questions(definition: Definition, payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The questions of this item as an API client needs them to answer: ids, prompts and what each accepts
    (a choice's options for this item, a span's words by position), never a gold rule. A question the item does
    not ask (its item condition, item_when.py) is not listed."""
    definition = item_when.for_item(definition, payload)
    described = []
    for question in definition.questions:
        if question.group is not None:
            if repeat.first_of_group(definition, question):
                described.append(repeat.public_group(definition, question.group, payload, public_questions))
            continue
        if question.derived is not None:   # answered by no one (derived.py)
            continue
        entry: dict[str, Any] = {"id": question.id, "kind": question.kind, "prompt": question.prompt,
                                 "required": question.required}
        if question.when:
            entry["when"] = {parent: list(values) for parent, values in question.when}
        if question.kind in ("choice", "multi"):
            entry["options"] = [{"value": o.value, "label": o.label, **({"description": o.description}
                                                                        if o.description else {})}
                                for o in item_options(question, payload)]
            if question.none is not None:
                entry["none"] = question.none
        elif question.kind == "scale":
            entry.update(min=question.minimum, max=question.maximum, step=question.step, anchors=list(question.anchors))
            if question.point_labels:   # words on every point, lowest first (option_words.py)
                entry["labels"] = list(question.point_labels)
        elif question.kind == "span":
            entry.update(of=question.of, words=words(question, payload), **boundaries.public_part(question))
        elif question.kind == "pairwise" and question.grades:
            entry.update(graded.public_part(question))   # the graded values with their words (graded.py)
        elif question.kind == "pairwise":
            entry["answers"] = list(PAIRWISE_VALUES if question.allow_equal else PAIRWISE_VALUES[:2])
        elif question.kind == "spans":
            entry.update(spans.public_question(question, payload))
        elif question.kind == "ranking":
            entry.update(ranking.public_question(question))
        elif question.kind == "best_worst":
            entry.update(best_worst.public_question(question, payload))
        elif question.kind == "extractive":
            entry.update(extractive.public_question(question, payload))
        elif question.kind == "distribution":
            entry.update(distribution.public_question(question))
        elif question.kind == "relations":
            entry.update(relations.public_question(question))
        else:
            entry["max_length"] = question.max_length
        described.append(entry)
    return described
