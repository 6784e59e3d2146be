"""Typed, directed relations between labelled spans: the `relations` question kind of a declared campaign.

A relations question refers to an earlier `spans` question of the same definition (`of`) and asks the annotator to
link that question's marks, in the same answer, by declared types ("works for", "is located in"), as Label Studio's
`<Relations>` and brat's relations do. The spans question's answer keeps exactly its shape; a relation names its
two ends by their units, "<start>:<end>:<label>" (spans.Span.unit), which are the marks of that same answer:

    {"entities": [{"start": 0, "end": 12, "label": "PER"}, {"start": 23, "end": 41, "label": "ORG"}],
     "links": [{"from": "0:12:PER", "to": "23:41:ORG", "label": "works_for"}]}

Each type may say which span labels it allows at each end (`from`, `to`); a relation goes one way (from is not
to), so "A works for B" and "B works for A" are two relations.

Label rows (field = the question's id): one per relation, unit "<from unit>-><to unit>" ("0:12:PER->23:41:ORG"),
value its type. No relation leaves no rows, so the annotators of an item are counted from the spans question's rows,
which every vote that answered it has (a relations question has no `when` of its own: it is asked with its spans
question).

Gold (`share` or `agree`, as a spans question's): one row per distinct relation anyone gave (its ends and its type),
unit "<from unit>-><to unit>:<type>"; "1" when enough annotators gave exactly it and both its ends are gold spans
of the spans question, "undecided" when it reaches the rule and an end's gold is undecided (and no end is "0"), "n/a"
when the spans question was not asked there, "0" otherwise. Agreement: relation F1 between annotators, pooled over
the pairs of annotators of every item (annotator/analysis/relation_match.py). The keys, the API's checks and the
figures are in docs/declared-relations.md; this module is their code.
"""
from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from annotator.core.columns import cells
from annotator.core.hit_values import AnswerError, LabelIn
from annotator.declared import spans
from annotator.declared.definition import (
    NOT_ASKED,
    RELATIONS_DEFAULT_MAX,
    UNDECIDED,
    DefinitionError,
    GoldRule,
    Question,
    RelationRules,
    RelationType,
)
from annotator.declared.keys import add_once, plain_text

if TYPE_CHECKING:
    import pandas as pd

    from annotator.declared.keys import Keys

KIND = "relations"
KEYS = ("of", "labels", "max")
ARROW = "->"                     # joins a relation's two ends in its unit
TYPE_KEYS = ("value", "label", "from", "to")
ANSWER_KEYS = ("from", "to", "label")
MAX_TYPES = 50
MAX_RELATIONS = 500              # the most `max` may allow
CAPTION_LENGTH = 200
TYPE_VALUE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}\Z")
GOLD_KEYS = {"share": ("rule", "positive"), "agree": ("rule", "m")}
DEFAULT_SHARE = 0.5
RELATED, NOT_RELATED = "1", "0"
SHAPE = 'a list of relations {"from": "<start>:<end>:<label>", "to": "<start>:<end>:<label>", "label": <type>} ' \
        "([] for none)"


@dataclass(frozen=True, order=True)
class Relation:
    """One relation of an answer: the units of its two ends (marks of the spans question) and its type."""

    source: str
    target: str
    label: str

    @property
    def unit(self) -> str:
        """The label row's unit: "<from unit>-><to unit>"."""
        return f"{self.source}{ARROW}{self.target}"

    @property
    def gold_unit(self) -> str:
        """The gold row's unit: "<from unit>-><to unit>:<type>" (two types between the same ends are two rows)."""
        return f"{self.unit}:{self.label}"

    def as_answer(self) -> dict[str, str]:
        return {"from": self.source, "to": self.target, "label": self.label}


def rules_of(question: Question) -> RelationRules:
    assert question.relations is not None, "a relations question always has its rules"
    return question.relations


# --- the definition -------------------------------------------------------------------------------------------

def kind_parts(keys: Keys, earlier: Sequence[Question]) -> dict[str, Any]:
    """`of`, `labels` and `max` of a relations question, checked (definition_checks calls it with the questions
    before it): `of` names an earlier spans question, each type's `from` / `to` are labels of that question."""
    of = keys.text("of", limit=40)
    spans_questions = [q for q in earlier if q.kind == spans.KIND]
    source = next((q for q in spans_questions if q.id == of), None)
    if source is None:
        listed = ", ".join(q.id for q in spans_questions) or "none is asked before this one"
        why = f"{of[:40]!r} is a {next(q.kind for q in earlier if q.id == of)} question" \
            if any(q.id == of for q in earlier) else f"{of[:40]!r} is not an earlier question"
        raise DefinitionError(keys.at("of"), f"{why}; of names the spans question, asked before this one, whose "
                                             f"marks are related (spans questions: {listed})")
    labels = spans.rules_of(source).values()
    joined = [label for label in labels if ARROW in label]
    if joined:
        raise DefinitionError(keys.at("of"), f"the spans question {of!r} has a label holding {ARROW!r} "
                                             f"({joined[0]!r}), which joins a relation's two ends in its unit; "
                                             "rename that label")
    entries = keys.listed("labels", required=True)
    if not entries:
        raise DefinitionError(keys.at("labels"), "must list at least one type of relation "
                                                 "(labels: [{value: works_for, label: works for}])")
    if len(entries) > MAX_TYPES:
        raise DefinitionError(keys.at("labels"), f"lists {len(entries)} types; at most {MAX_TYPES}")
    types: list[RelationType] = []
    for index, entry in enumerate(entries):
        made = _type(entry, f"{keys.at('labels')}[{index}]", labels, of)
        if any(t.value == made.value for t in types):
            path = f"{keys.at('labels')}[{index}]" + (".value" if isinstance(entry, dict) else "")
            raise DefinitionError(path, f"{made.value!r} is listed twice")
        types.append(made)
    most = int(keys.number("max", RELATIONS_DEFAULT_MAX, low=1, high=MAX_RELATIONS, integer=True))
    return {"relations": RelationRules(of, tuple(types), most)}


def _type(entry: Any, path: str, labels: Sequence[str], of: str) -> RelationType:
    """One entry of `labels`: a type's value, or {value, label, from, to}."""
    data = entry if isinstance(entry, dict) else {"value": entry}
    if isinstance(entry, dict):
        unknown = [str(key) for key in entry if key not in TYPE_KEYS]
        if unknown:
            raise DefinitionError(f"{path}.{unknown[0]}", f"unknown key; known here: {', '.join(TYPE_KEYS)}")
    where = f"{path}.value" if isinstance(entry, dict) else path
    if data.get("value") is None:
        raise DefinitionError(where, "is required")
    value = plain_text(data["value"], where, 40, "a type's value")
    if not TYPE_VALUE.match(value):
        raise DefinitionError(where, f"{value[:40]!r} is not an identifier: a letter, then letters, digits and _ "
                                     "(at most 40), such as works_for")
    if value == UNDECIDED:
        raise DefinitionError(where, f"{value!r} is what gold says when it is not decided; name the type otherwise")
    caption = plain_text(data["label"], f"{path}.label", CAPTION_LENGTH) if data.get("label") is not None else value
    ends: list[tuple[str, ...]] = []
    for key in ("from", "to"):
        given = data.get(key)
        if given is None:
            ends.append(())
            continue
        listed = given if isinstance(given, list) else [given]
        if not listed:
            raise DefinitionError(f"{path}.{key}", f"must list at least one label of {of!r} (leave {key} out to "
                                                   "allow any)")
        found: list[str] = []
        for number, label in enumerate(listed):
            at = f"{path}.{key}[{number}]" if isinstance(given, list) else f"{path}.{key}"
            text = plain_text(label, at, 40, "a label of the spans question")
            if text not in labels:
                raise DefinitionError(at, f"{text[:40]!r} is not a label of the spans question {of!r} "
                                          f"({', '.join(labels)})")
            add_once(found, text, at)
        ends.append(tuple(found))
    return RelationType(value, caption.strip() or value, ends[0], ends[1])


def gold_rule(gold: Keys, rule: str, k: int | None) -> GoldRule:
    """`share` (a relation is gold when at least `positive` of the item's annotators gave exactly it; default 0.5)
    or `agree` (when at least `m` did; default 2), as a spans question's."""
    allowed = GOLD_KEYS[rule]
    for key in gold.data:
        if key not in allowed:
            raise DefinitionError(gold.at(key), f"the {rule} rule of a relations question has no {key!r}; its "
                                                f"keys: {', '.join(allowed)} (a relation is gold or not)")
    if rule == "share":
        positive = gold.number("positive", DEFAULT_SHARE, low=0, high=1)
        if positive == 0:
            raise DefinitionError(gold.at("positive"), "must be above 0: at 0 every relation would be gold")
        return GoldRule(rule="share", positive=positive)
    m = int(gold.number("m", 2, low=1, high=100, integer=True))
    if k is not None and m > k:
        raise DefinitionError(gold.at("m" if gold.has("m") else "rule"),
                              f"m ({m}) is more than the k ({k}) annotators an item gets; at most {k}")
    return GoldRule(rule="agree", m=m)


def item_condition(rules: RelationRules, earlier: Sequence[Question]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The spans question's item conditions (`when: {item.<field>: ...}`), which the relations question takes as its
    own: it is asked of exactly the items its spans question is asked of, so the two are never parted."""
    return next(q.item_when for q in earlier if q.id == rules.of)


def refuse_when(keys: Keys) -> None:
    """A relations question is asked with its spans question: a `when` of its own is refused (put it on `of`)."""
    if keys.has("when"):
        raise DefinitionError(keys.at("when"), "a relations question is asked whenever its spans question is; put "
                                               "the condition on that question (its relations must then be empty "
                                               "where it is not asked)")


# --- answers --------------------------------------------------------------------------------------------------

def mark_units(marks: Any) -> list[str]:
    """The units of a checked spans answer's marks, in its order."""
    if not isinstance(marks, list):
        return []
    return [spans.Span(m["start"], m["end"], m["label"]).unit for m in marks if isinstance(m, Mapping)]


def needed(question: Question, stored: Mapping[str, Any]) -> bool:
    """Whether a required question must be answered given the answers so far: any kind but relations always; a
    relations question only where its spans question's answer has two marks or more (else no relation can be)."""
    if question.kind != KIND:
        return True
    return len(mark_units(stored.get(rules_of(question).of))) >= 2


def check(question: Question, marks: Any, value: Any) -> tuple[list[dict[str, str]], list[LabelIn]]:
    """The relations as stored (in the marks' order) and their label rows. `marks` is the same answer's checked
    answer to the spans question (None when it was not asked or left out). AnswerError names the relation and what
    is wrong: "links: relation 2: to '5:9:LOC' is not one of this answer's marks of entities"."""
    rules = rules_of(question)
    qid = question.id
    if not isinstance(value, list):
        raise AnswerError(f"{qid}: must be {SHAPE}")
    if marks is None and value:
        raise AnswerError(f"{qid}: {rules.of} is not answered in this answer (not asked, or left out), so there is "
                          "no mark to relate; send [] or leave it out")
    if len(value) > rules.most:
        raise AnswerError(f"{qid}: gives {len(value)} relations; at most {rules.most}")
    units = mark_units(marks)
    if not value and question.required and len(units) >= 2:
        raise AnswerError(f"{qid}: give at least one relation between the marks (the question is required)")
    order = {unit: n for n, unit in enumerate(units)}
    found: list[Relation] = []
    for number, entry in enumerate(value, start=1):
        where = f"{qid}: relation {number}"
        relation = _relation(entry, where, rules, order)
        if relation in found:
            raise AnswerError(f"{where}: is relation {found.index(relation) + 1} again")
        found.append(relation)
    types = {value: n for n, value in enumerate(rules.values())}
    found.sort(key=lambda r: (order[r.source], order[r.target], types[r.label]))
    return [r.as_answer() for r in found], rows(question, found)


def _relation(entry: Any, where: str, rules: RelationRules, order: Mapping[str, int]) -> Relation:
    if not isinstance(entry, dict):
        raise AnswerError(f"{where}: must be an object {{\"from\", \"to\", \"label\"}}; the answer is {SHAPE}")
    unknown = sorted(str(key)[:40] for key in entry if key not in ANSWER_KEYS)
    missing = [key for key in ANSWER_KEYS if key not in entry]
    if unknown or missing:
        said = "; ".join(part for part in (f"missing {', '.join(missing)}" if missing else "",
                                           f"unknown {', '.join(unknown)}" if unknown else "") if part)
        raise AnswerError(f"{where}: must be an object {{\"from\", \"to\", \"label\"}} ({said})")
    label = entry["label"]
    kind = rules.type_of(label) if isinstance(label, str) else None
    if kind is None:
        raise AnswerError(f"{where}: {str(label)[:40]!r} is not one of the types "
                          f"{', '.join(map(repr, rules.values()))}")
    ends = []
    for key in ("from", "to"):
        unit = entry[key]
        if not isinstance(unit, str) or unit not in order:
            marks = ", ".join(list(order)[:10]) + (", ..." if len(order) > 10 else "") if order else "none"
            raise AnswerError(f"{where}: {key} {str(unit)[:60]!r} is not one of this answer's marks of {rules.of} "
                              f"(\"<start>:<end>:<label>\"; its marks: {marks})")
        ends.append(unit)
    source, target = ends
    if source == target:
        raise AnswerError(f"{where}: from and to are the same mark ({source}); a relation links two marks")
    source_label, target_label = _label(source), _label(target)
    if not kind.allows(source_label, target_label):
        end, label = ("from", source_label) if kind.sources and source_label not in kind.sources else \
            ("to", target_label)
        raise AnswerError(f"{where}: {kind.value} does not go {end} a mark labelled {label} (it goes from "
                          f"{'/'.join(kind.sources) or 'any label'} to {'/'.join(kind.targets) or 'any label'})")
    return Relation(source, target, label)


def _label(unit: str) -> str:
    span = spans.span_of(unit)
    return span.label if span is not None else ""


def rows(question: Question, relations: Sequence[Relation]) -> list[LabelIn]:
    """One label row per relation: unit "<from>-><to>", value its type."""
    return [LabelIn(r.unit, question.id, r.label) for r in relations]


def parse_unit(unit: Any) -> tuple[spans.Span, spans.Span] | None:
    """The two ends of a label row's unit "<from>-><to>", or None."""
    source, sep, target = str(unit).partition(ARROW)
    first, second = spans.span_of(source), spans.span_of(target)
    return (first, second) if sep and first is not None and second is not None else None


def parse_gold_unit(unit: Any) -> Relation | None:
    """The relation a gold row's unit "<from>-><to>:<type>" names, or None."""
    ends, sep, label = str(unit).rpartition(":")
    pair = parse_unit(ends) if sep else None
    if pair is None or not TYPE_VALUE.match(label):
        return None
    return Relation(pair[0].unit, pair[1].unit, label)


def example_answer(question: Question, marks: Any, rng: random.Random) -> list[dict[str, str]]:
    """A valid answer drawn at random from the answer's marks: up to three relations of allowed types."""
    units = mark_units(marks)
    rules = rules_of(question)
    found: list[Relation] = []
    pairs = [(a, b) for a in units for b in units if a != b]
    rng.shuffle(pairs)
    for source, target in pairs:
        if len(found) >= min(3, rules.most):
            break
        allowed = [t for t in rules.types if t.allows(_label(source), _label(target))]
        if allowed and rng.random() < 0.6:
            found.append(Relation(source, target, rng.choice(allowed).value))
    if question.required and not found and len(units) >= 2:
        for source, target in pairs:
            allowed = [t for t in rules.types if t.allows(_label(source), _label(target))]
            if allowed:
                found.append(Relation(source, target, allowed[0].value))
                break
    return [r.as_answer() for r in found]


def public_question(question: Question) -> dict[str, Any]:
    """What an API client needs to answer: the spans question, the types with their allowed ends, the limit."""
    rules = rules_of(question)
    return {"of": rules.of, "max": rules.most,
            "labels": [{"value": t.value, "label": t.label, "from": list(t.sources), "to": list(t.targets)}
                       for t in rules.types]}


@dataclass(frozen=True)
class TypeView:
    """One type as the HIT's Relation select offers it: its value, its words and its ends in words."""

    value: str
    label: str
    sources: tuple[str, ...]
    targets: tuple[str, ...]
    words: str          # "works for (Person → Organisation)"


@dataclass(frozen=True)
class RelationsView:
    """What the HIT's partial (templates/hits/_declared_relations.html) draws of one relations question."""

    of: str                            # the spans question's id
    of_prompt: str
    types: tuple[TypeView, ...]
    captions: dict[str, str]           # the spans question's labels in words
    most: int

    @property
    def script_types(self) -> list[dict[str, Any]]:
        """The types as the script reads them: [{value, label, from: [...], to: [...]}]."""
        return [{"value": t.value, "label": t.label, "from": list(t.sources), "to": list(t.targets)}
                for t in self.types]


def view(question: Question, of: Question) -> RelationsView:
    rules = rules_of(question)
    labels = spans.rules_of(of).labels
    captions = {label.value: label.label for label in labels}

    def said(ends: Sequence[str]) -> str:
        return " or ".join(captions.get(end, end) for end in ends) or "any name"

    types = tuple(TypeView(t.value, t.label, t.sources, t.targets,
                           f"{t.label} ({said(t.sources)} → {said(t.targets)})") for t in rules.types)
    return RelationsView(of.id, of.prompt, types, captions, rules.most)


# --- gold -----------------------------------------------------------------------------------------------------

def reaches(count: int, n: int, rule: GoldRule) -> bool:
    if n == 0:
        return False
    if rule.rule == "agree":
        return count >= rule.m
    return count / n >= rule.positive


def end_gold(golds: Sequence[str]) -> str:
    """What the gold of a relation's two ends allows: "n/a" when either is not asked, "0" when either is not gold,
    "undecided" when either is undecided, else "1"."""
    if NOT_ASKED in golds:
        return NOT_ASKED
    if any(g not in ("1", UNDECIDED) for g in golds):
        return NOT_RELATED
    return UNDECIDED if UNDECIDED in golds else RELATED


def question_gold(question: Question, votes: pd.DataFrame, of_votes: pd.DataFrame,
                  of_gold: Mapping[str, Mapping[str, Any]]) -> list[tuple[Any, ...]]:
    """(item, question, unit, gold, n, score, votes) rows of one relations question, items in label order.

    Per item, one row per distinct relation anyone gave (unit "<from>-><to>:<type>"); n the annotators who answered
    the spans question there (its rows), count those who gave exactly this relation, score count / n. Gold "1" when
    the count reaches the rule and both ends are gold spans of the spans question (`of_gold`: item -> span unit ->
    gold); "undecided" when it reaches the rule and an end is undecided (the other gold or undecided); "n/a" when an
    end is n/a (the spans question not asked there); "0" otherwise.
    """
    assert question.gold is not None
    rule = question.gold
    annotators: dict[str, set[Any]] = {}
    for item, user in zip(cells(of_votes["item"]), _users(of_votes)):
        annotators.setdefault(item, set()).add(user)
    given: dict[str, dict[Relation, set[Any]]] = {}
    for item, unit, value, user in zip(cells(votes["item"]), cells(votes["unit"]), cells(votes["value"]),
                                       _users(votes)):
        pair = parse_unit(unit)
        if pair is not None:
            given.setdefault(item, {}).setdefault(Relation(pair[0].unit, pair[1].unit, str(value)), set()).add(user)
    found: list[tuple[Any, ...]] = []
    types = {value: n for n, value in enumerate(rules_of(question).values())}
    for item, relations in given.items():
        n = len(annotators.get(item, set()) | {user for users in relations.values() for user in users})
        spans_gold = of_gold.get(item, {})
        for relation in sorted(relations, key=lambda r: (_place(r.source), _place(r.target),
                                                         types.get(r.label, len(types)))):
            count = len(relations[relation])
            ends = end_gold([str(spans_gold.get(relation.source, NOT_RELATED)),
                             str(spans_gold.get(relation.target, NOT_RELATED))])
            gold = NOT_ASKED if ends == NOT_ASKED else ends if reaches(count, n, rule) else NOT_RELATED
            found.append((item, question.id, relation.gold_unit, gold, n,
                          count / n if n and gold != NOT_ASKED else math.nan, f"1: {count}, 0: {n - count}"))
    return found


def _place(unit: str) -> tuple[int, int, str]:
    span = spans.span_of(unit)
    return (span.start, span.end, span.label) if span is not None else (-1, -1, unit)


def _users(votes: pd.DataFrame) -> list[Any]:
    return votes["user_id"].tolist() if "user_id" in votes else list(range(len(votes)))


def gold_relations(rows: pd.DataFrame) -> list[dict[str, str]] | None:
    """The gold relations of one item's rows as an answer; None when one is undecided or not asked (then there is
    no one known answer)."""
    found = []
    for unit, gold in zip(rows["unit"], rows["gold"]):
        if str(gold) in (UNDECIDED, NOT_ASKED):
            return None
        relation = parse_gold_unit(unit)
        if relation is not None and str(gold) == RELATED:
            found.append(relation)
    return [r.as_answer() for r in sorted(found, key=lambda r: (_place(r.source), _place(r.target), r.label))]


def gold_counts(question: Question, rows: pd.DataFrame, conditional: bool) -> dict[str, int]:
    """The admin's summary: relations that are gold, not gold, undecided (and not asked, where the spans question
    has a `when`: `conditional`)."""
    values = [str(g) for g in rows["gold"]] if not rows.empty else []
    qid = question.id
    counts = {f"{qid}: gold relations": values.count(RELATED), f"{qid}: relations not gold": values.count(NOT_RELATED),
              f"{qid}: {UNDECIDED} relations": values.count(UNDECIDED)}
    if conditional:
        counts[f"{qid}: {NOT_ASKED}"] = values.count(NOT_ASKED)
    return counts


# --- agreement ------------------------------------------------------------------------------------------------

def answer_sets(question: Question, labels: pd.DataFrame) -> list[tuple[Any, str, Any, frozenset[str]]]:
    """(a label row's index, item, annotator, the set of relations given) of every vote that answered the spans
    question, in label order; a relation is "<from>-><to> <type>". The annotators come from the spans question's
    rows: one who gave no relation has none of this question's. The index is the vote's first row of the spans
    question (so that each entry can be traced back to its item, as every agreement frame's rows can)."""
    rules = rules_of(question)
    given: dict[tuple[str, Any], tuple[Any, set[str]]] = {}
    of_rows = labels[labels["field"] == rules.of]
    for index, item, user in zip(of_rows.index, cells(of_rows["item"]), of_rows["user_id"].tolist()):
        given.setdefault((item, user), (index, set()))
    mine = labels[labels["field"] == question.id]
    for index, item, user, unit, value in zip(mine.index, cells(mine["item"]), mine["user_id"].tolist(),
                                              cells(mine["unit"]), cells(mine["value"])):
        given.setdefault((item, user), (index, set()))[1].add(f"{unit} {value}")
    return [(index, item, user, frozenset(found)) for (item, user), (index, found) in given.items()]


# --- control items --------------------------------------------------------------------------------------------

def f1_score(given: Any, known: Any) -> float:
    """How right a relations answer is against the known one: F1 of the two sets of relations (ends and type
    exactly); 1 when both are empty."""
    chosen, right = _as_set(given), _as_set(known)
    if not chosen and not right:
        return 1.0
    return 2 * len(chosen & right) / (len(chosen) + len(right))


def _as_set(value: Any) -> set[tuple[Any, Any, Any]]:
    if not isinstance(value, list):
        return set()
    return {(r.get("from"), r.get("to"), r.get("label")) for r in value if isinstance(r, Mapping)}


def relation_words(question: Question, of: Question, payload: Mapping[str, Any], source: str, target: str,
                   label: str) -> str:
    """One relation in words: “Ada Lovelace” (Person) works for “Analytical Engines” (Organisation)."""
    return f"{_end_words(of, payload, source)} {rules_of(question).caption(label)} {_end_words(of, payload, target)}"


def _end_words(of: Question, payload: Mapping[str, Any], unit: str) -> str:
    span = spans.span_of(unit)
    if span is None:
        return unit
    text = spans.text_of(of, payload)
    return f"“{text[span.start:span.end]}” ({spans.rules_of(of).caption(span.label)})"


def reference_words(question: Question, of: Question, payload: Mapping[str, Any], known: Any) -> str:
    """A known answer in words, relation by relation; "no relation" for none."""
    parts = [relation_words(question, of, payload, str(r.get("from")), str(r.get("to")), str(r.get("label")))
             for r in known if isinstance(r, Mapping)] if isinstance(known, list) else []
    return "; ".join(parts) if parts else "no relation"


# --- the admin's words ----------------------------------------------------------------------------------------

def value_words(question: Question) -> dict[str, str]:
    """Stored values in words: a type's caption; "related" / "not related" for a gold row."""
    return {RELATED: "related", NOT_RELATED: "not related",
            **{t.value: t.label for t in rules_of(question).types}}


def unit_words(question: Question, of: Question, payload: Mapping[str, Any], unit: str) -> str | None:
    """A gold row's unit ("<from>-><to>:<type>") or a label row's ("<from>-><to>") in words."""
    relation = parse_gold_unit(unit)
    if relation is not None:
        return relation_words(question, of, payload, relation.source, relation.target, relation.label)
    pair = parse_unit(unit)
    if pair is not None:
        return f"{_end_words(of, payload, pair[0].unit)} → {_end_words(of, payload, pair[1].unit)}"
    return None


def answer_words(question: Question, of: Question, payload: Mapping[str, Any],
                 given: Sequence[tuple[str, str]]) -> str:
    """One vote's relations (its label rows: unit, type) in words, "; " between them."""
    parts = []
    for unit, label in given:
        pair = parse_unit(unit)
        if pair is not None:
            parts.append(relation_words(question, of, payload, pair[0].unit, pair[1].unit, label))
    return "; ".join(parts)


def spans_question(definition_questions: Sequence[Question], question: Question) -> Question:
    """The spans question a relations question relates the marks of."""
    of = rules_of(question).of
    return next(q for q in definition_questions if q.id == of)

