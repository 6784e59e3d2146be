"""Declared attributes of a spans question's marks, and an MQM-style score from their weights.

Why: error annotation of machine translation (MQM: Lommel et al., 2014; Freitag et al., 2021) marks each error as a
stretch with a category (the spans question's label: accuracy, fluency, ...) and a severity (minor, major,
critical), and scores a segment by the weights of its errors' severities. A spans question may declare
`attributes` (each mark then carries one value of each) and `score: {rule: mqm, attribute, weights}`. Without
`attributes` a spans question, its answers and its rows are exactly what they were.

A mark of the answer is `{"start", "end", "label", "severity": "major"}`: each declared attribute's id is a key,
its value one of the attribute's values (every attribute is required on every mark). Label rows, besides the spans
question's own (spans.py):
  unit "<start>:<end>:<label>", field "<id>.<attribute>"   value: the mark's value of the attribute
  unit "<id>", field "<id>.mqm"                             value: the vote's score, the sum of its marks' weights
                                                            (with `score`; 0 for no mark)

Gold (rows after the spans question's own, question "<id>.<attribute>" and "<id>.mqm"): per span anyone marked, the
value most of the annotators who marked exactly that span (same offsets and label) gave it, undecided on a tie, n/a
where the question was not asked; per item, the mean of its annotators' scores. The keys, the API and the figures
are in docs/declared-span-attributes.md.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from annotator.core.hit_values import AnswerError, LabelIn
from annotator.declared.definition import (
    IDENTIFIER,
    NOT_ASKED,
    UNDECIDED,
    DefinitionError,
    OptionSpec,
    Question,
    SpanAttribute,
    SpanRules,
    SpanScore,
    number_text,
)
from annotator.declared.keys import Keys

if TYPE_CHECKING:
    import pandas as pd

KEYS = ("attributes", "score")
RESERVED = ("start", "end", "label", "text")   # a mark's own keys: an attribute cannot be named so
SCORE_RULES = ("mqm",)
SCORE = "mqm"
MAX_ATTRIBUTES = 5
MAX_VALUES = 20
VALUE_LENGTH = 40


# --- the definition -------------------------------------------------------------------------------------------

def parts(keys: Keys) -> dict[str, Any]:
    """`attributes` and `score` of a spans question, checked: {} when it declares neither."""
    if not keys.has("attributes"):
        if keys.has("score"):
            raise DefinitionError(keys.at("score"), "scores the marks by an attribute's weights: declare the "
                                                    "attributes first (attributes: [{id: severity, values: [minor, "
                                                    "major, critical]}])")
        return {}
    entries = keys.listed("attributes", required=True)
    if not entries or len(entries) > MAX_ATTRIBUTES:
        raise DefinitionError(keys.at("attributes"), f"must list 1 to {MAX_ATTRIBUTES} attributes, not "
                                                     f"{len(entries)}")
    attributes: list[SpanAttribute] = []
    for index, entry in enumerate(entries):
        path = f"{keys.at('attributes')}[{index}]"
        one = Keys(entry, path, ("id", "label", "values"), "a mapping {id, label, values}")
        aid = one.text("id", pattern=IDENTIFIER, what="an id (lower-case letters, digits and _, starting with a "
                                                        "letter, at most 40)")
        if aid in RESERVED:
            raise DefinitionError(one.at("id"), f"{aid!r} is a key of every mark ({', '.join(RESERVED)}); name the "
                                                "attribute otherwise")
        if any(a.id == aid for a in attributes):
            raise DefinitionError(one.at("id"), f"{aid!r} is the id of an earlier attribute; ids must differ")
        attributes.append(SpanAttribute(aid, one.text("label", aid, limit=200), _values(one)))
    return {"attributes": tuple(attributes), "score": _score(keys, tuple(attributes))}


def _values(one: Keys) -> tuple[OptionSpec, ...]:
    entries = one.listed("values", required=True)
    if not 2 <= len(entries) <= MAX_VALUES:
        raise DefinitionError(one.at("values"), f"must list 2 to {MAX_VALUES} values, not {len(entries)}")
    values: list[OptionSpec] = []
    for index, entry in enumerate(entries):
        path = f"{one.at('values')}[{index}]"
        caption = ""
        if isinstance(entry, dict):
            value_keys = Keys(entry, path, ("value", "label"))
            caption = value_keys.text("label", "", limit=200)
            path, entry = value_keys.at("value"), entry.get("value")
        if isinstance(entry, bool) or not isinstance(entry, (str, int)) or not str(entry).strip() \
                or str(entry) != str(entry).strip() or len(str(entry)) > VALUE_LENGTH:
            raise DefinitionError(path, f"a value is text of at most {VALUE_LENGTH} characters, not blank nor "
                                        "starting or ending with a space" + ("; quote it" if isinstance(entry, bool)
                                                                             else ""))
        value = str(entry)
        if value in (UNDECIDED, NOT_ASKED):
            raise DefinitionError(path, f"{value!r} is what gold says when it is not decided; name the value "
                                        "otherwise")
        if any(v.value == value for v in values):
            raise DefinitionError(path, f"{value!r} is listed twice")
        values.append(OptionSpec(value, caption or value))
    return tuple(values)


def _score(keys: Keys, attributes: tuple[SpanAttribute, ...]) -> SpanScore | None:
    if not keys.has("score"):
        return None
    score = Keys(keys.data["score"], keys.at("score"), ("rule", "attribute", "weights"),
                 "a mapping {rule: mqm, attribute, weights}")
    rule = score.text("rule")
    if rule not in SCORE_RULES:
        raise DefinitionError(score.at("rule"), f"{rule[:40]!r} is not a score rule of spans; use "
                                                f"{', '.join(SCORE_RULES)}")
    ids = [a.id for a in attributes]
    if not score.has("attribute") and len(ids) > 1:
        raise DefinitionError(score.at("attribute"), f"is required with several attributes: one of {', '.join(ids)}")
    aid = score.text("attribute", ids[0])
    attribute = next((a for a in attributes if a.id == aid), None)
    if attribute is None:
        raise DefinitionError(score.at("attribute"), f"{aid[:40]!r} is not an attribute ({', '.join(ids)})")
    raw = score.data.get("weights")
    if not isinstance(raw, dict):
        raise DefinitionError(score.at("weights"), "must map each value of the attribute to its weight: {" +
                              ", ".join(f"{v}: ..." for v in attribute.value_names()) + "}")
    weights = Keys(raw, score.at("weights"), attribute.value_names(), "a mapping {value: weight}")
    missing = [v for v in attribute.value_names() if not weights.has(v)]
    if missing:
        raise DefinitionError(score.at("weights"), f"gives no weight to {', '.join(map(repr, missing))}; every value "
                                                   f"of {aid} needs one (0 for none)")
    return SpanScore(rule, aid, tuple((v, weights.number(v, 0, low=0, high=1000)) for v in attribute.value_names()))


# --- answers --------------------------------------------------------------------------------------------------

def field(question: Question, attribute: str) -> str:
    """The label field of an attribute: "<id>.<attribute>" (an id cannot hold a dot, so it never clashes)."""
    return f"{question.id}.{attribute}"


def score_field(question: Question) -> str:
    return f"{question.id}.{SCORE}"


def gold_fields(question: Question) -> tuple[str, ...]:
    """The label fields of a question that have gold rows of their own (its attributes', its score's); () for a
    question without attributes."""
    rules = question.spans if question.kind == "spans" else None
    if rules is None or not rules.attributes:
        return ()
    return (*(field(question, a.id) for a in rules.attributes), *((score_field(question),) if rules.score else ()))


def agreement_fields(question: Question) -> tuple[str, ...]:
    """The agreement fields of the attributes, "<id>.<attribute>": each span marked a unit, the value each annotator
    who marked exactly it gave (nominal); whether annotators who found the same error rate it alike."""
    rules = question.spans if question.kind == "spans" else None
    return tuple(field(question, a.id) for a in rules.attributes) if rules is not None else ()


def mark_keys(rules: SpanRules) -> tuple[str, ...]:
    """The keys a mark may have besides start, end, label and text."""
    return tuple(a.id for a in rules.attributes)


def mark_values(rules: SpanRules, entry: Mapping[str, Any], where: str) -> dict[str, str]:
    """A mark's attribute values, checked: AnswerError names the mark, the attribute and what it may be."""
    found = {}
    for attribute in rules.attributes:
        given = entry.get(attribute.id)
        listed = ", ".join(map(repr, attribute.value_names()))
        if given is None:
            raise AnswerError(f"{where}: has no {attribute.id} (one of {listed})")
        if not isinstance(given, str) or given not in attribute.value_names():
            raise AnswerError(f"{where}: {attribute.id} {str(given)[:40]!r} is not one of {listed}")
        found[attribute.id] = given
    return found


def weight(rules: SpanRules, values: Mapping[str, str]) -> float:
    """One mark's weight under the question's score (0 without one)."""
    if rules.score is None:
        return 0.0
    return dict(rules.score.weights).get(values.get(rules.score.attribute, ""), 0.0)


def rows(question: Question, rules: SpanRules, marks: Sequence[tuple[str, Mapping[str, str]]]) -> list[LabelIn]:
    """The attribute rows of a vote's marks ((unit, values) each) and, with a score, the vote's score row."""
    found = [LabelIn(unit, field(question, a.id), values[a.id]) for unit, values in marks for a in rules.attributes]
    if rules.score is not None:
        found.append(LabelIn(question.id, score_field(question),
                             number_text(sum(weight(rules, values) for _, values in marks))))
    return found


# --- gold -----------------------------------------------------------------------------------------------------

def question_gold(question: Question, rules: SpanRules, labels: pd.DataFrame,
                  found: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The attribute and score gold rows of a spans question, from all `labels` and the question's own gold rows
    `found` (which say which spans were marked and where the question was not asked)."""
    if not rules.attributes:
        return []
    not_asked = {row[0] for row in found if row[3] == NOT_ASKED}
    spans = [(row[0], row[2]) for row in found if _is_span(row[2])]
    extra: list[tuple[Any, ...]] = []
    for attribute in rules.attributes:
        given = labels[labels["field"] == field(question, attribute.id)]
        tallies: dict[tuple[Any, str], Counter[str]] = {}
        for item, unit, value in zip(given["item"], given["unit"], given["value"]):
            tallies.setdefault((item, str(unit)), Counter())[str(value)] += 1
        for item, unit in spans:
            tally = tallies.get((item, unit), Counter())
            n = sum(tally.values())
            gold, score = _majority(tally, n)
            words = ", ".join(f"{v}: {tally[v]}" for v in attribute.value_names() if tally.get(v))
            extra.append((item, field(question, attribute.id), unit, NOT_ASKED if item in not_asked else gold, n,
                          math.nan if item in not_asked else score, words))
    if rules.score is not None:
        scores = labels[labels["field"] == score_field(question)]
        by_item: dict[Any, list[float]] = {}
        for item, value in zip(scores["item"], scores["value"]):
            by_item.setdefault(item, []).append(float(value))
        for item, values in by_item.items():
            mean = sum(values) / len(values)
            said = ", ".join(f"{number_text(v)}: {c}" for v, c in sorted(Counter(values).items()))
            extra.append((item, score_field(question), question.id,
                          NOT_ASKED if item in not_asked else number_text(round(mean, 10)), len(values),
                          math.nan if item in not_asked else mean, said))
    return extra


def _is_span(unit: Any) -> bool:
    parts = str(unit).split(":", 2)
    return len(parts) == 3 and parts[0].isdigit() and parts[1].isdigit()


def _majority(tally: Counter[str], n: int) -> tuple[str, float]:
    if n == 0:
        return UNDECIDED, math.nan
    top = max(tally.values())
    winners = [v for v, c in tally.items() if c == top]
    return (winners[0] if len(winners) == 1 else UNDECIDED), top / n
