"""Questions repeated for each element of a list: a `repeat` group of a declared definition.

A group is an entry of `questions:` that asks a few questions once per element of a list: per claim (RuArg-2022's
masks, quarantine and vaccines), per dialogue turn, per retrieved document. docs/declared-repeat.md is the user's
reference; in short:

    - repeat: claims                 # the group's id: the answer's key
      label: Claim                   # optional: the word before each element's text on the page
      elements:                      # a fixed list, the same for every item ...
        - {id: masks, text: Wearing masks is beneficial for society}
      elements_from: turns           # ... or the item field holding the item's own list (one of the two)
      questions: [...]               # choice, scale and text questions; `when` names questions of the group

Elements are identified by their id (text, unique in the list: a duplicate is refused with both positions);
an item field's element is {"id": ..., "text": ...}, or bare text numbered "1", "2", ... in order.

The answer to a group is nested, {"<group>": {"<element id>": {"<question id>": value}}}: an API client builds
one small object per element from its own loop over the elements, with the ids as its data has them (flattened
keys would need a separator that no element id may hold, and escaping in the client). Every element must be
answered; within an element the group's questions are checked as top-level ones are (`when` per element).

Label rows: unit = the element's id, field = the question's id. So gold is one row per (item, question,
element), by the question's own rule, and agreement pools a question over elements as a question is pooled
over items (units "<item> / <element>").
"""
from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from annotator.core.hit_values import AnswerError, LabelIn
from annotator.declared import sides
from annotator.declared.asked import group_of
from annotator.declared.control_scoring import ControlScoring, as_counted, scored
from annotator.declared.definition import (
    IDENTIFIER,
    NOT_ASKED,
    RESERVED_FIELDS,
    UNDECIDED,
    Definition,
    DefinitionError,
    Element,
    Question,
    Repeat,
    join_path,
)
from annotator.declared.definition_checks import question
from annotator.declared.item_view import named as named_field
from annotator.declared.item_when import refuse_in_group
from annotator.declared.keys import Keys

KINDS = ("choice", "scale", "text")   # the kinds a group asks: one label row per element each
GROUP_KEYS = ("repeat", "label", "elements", "elements_from", "sides", "questions")
MAX_ELEMENTS = 50
MAX_GROUP_QUESTIONS = 10
ELEMENT_ID_LENGTH = 100    # an element's id is a label's unit
ELEMENT_TEXT_LENGTH = 10_000

Check = Callable[..., tuple[dict[str, Any], list[LabelIn]]]


# --- the definition ---------------------------------------------------------------------------------------

def is_group(entry: Any) -> bool:
    """Whether a `questions:` entry is a group (it has the key `repeat`) rather than a question."""
    return isinstance(entry, dict) and "repeat" in entry


def group(entry: Any, path: str, fields: Mapping[str, Any], earlier: Sequence[Question],
          groups: Sequence[Repeat], k: int | None) -> tuple[Repeat, list[Question]]:
    """The group at `path` and its questions (marked with the group's id); DefinitionError names the key path.

    Question ids are unique across the whole definition (a label's field is the question's id), and a group's
    id differs from every question's and group's: both are keys of the answer."""
    keys = Keys(entry, path, GROUP_KEYS)
    gid = keys.text("repeat", pattern=IDENTIFIER, what="a group id (lower-case letters, digits and _, starting "
                                                       "with a letter, at most 40)")
    if any(q.id == gid for q in earlier) or any(g.id == gid for g in groups):
        raise DefinitionError(keys.at("repeat"), f"{gid!r} is already the id of an earlier question or group; "
                                                 "the answer has one key per question and group, so ids must differ")
    if [keys.has("elements"), keys.has("elements_from"), keys.has("sides")].count(True) != 1:
        raise DefinitionError(path, "give the elements (elements: [{id, text}, ...]), the item field holding "
                                    "each item's list (elements_from: field) or the pairwise question whose two "
                                    "sides are asked about (sides: question id), one of the three")
    elements: tuple[Element, ...] = ()
    source = side_of = None
    if keys.has("sides"):   # the elements are the sides A and B of a pairwise question (declared/sides.py)
        side_of = keys.text("sides", pattern=IDENTIFIER, what="a pairwise question's id")
        elements = sides.side_elements(keys.text("label", "", limit=100))
    elif keys.has("elements_from"):
        source = named_field(keys, "elements_from")
        if source in RESERVED_FIELDS:
            raise DefinitionError(keys.at("elements_from"), f"{source!r} is {RESERVED_FIELDS[source]}; "
                                                            "name another field")
        if source in fields:
            raise DefinitionError(keys.at("elements_from"), f"{source!r} is a shown field; the elements are shown "
                                                            "with their questions, so name a field not in show")
    else:
        elements = _declared_elements(keys)
    entries = keys.listed("questions", required=True)
    if not entries:
        raise DefinitionError(keys.at("questions"), "must list at least one question to ask of each element")
    if len(entries) > MAX_GROUP_QUESTIONS:
        raise DefinitionError(keys.at("questions"), f"lists {len(entries)} questions; at most "
                                                    f"{MAX_GROUP_QUESTIONS} per element")
    asked: list[Question] = []
    for index, sub in enumerate(entries):
        where = f"{keys.at('questions')}[{index}]"
        if is_group(sub):
            raise DefinitionError(join_path(where, "repeat"), "a group cannot hold another group")
        if isinstance(sub, dict) and isinstance(sub.get("kind"), str) and sub["kind"] not in KINDS:
            raise DefinitionError(join_path(where, "kind"), f"a {sub['kind'][:40]!r} question cannot be repeated "
                                                            f"per element; a group asks {', '.join(KINDS)} questions")
        made = question(sub, where, fields, asked, k)   # `when` may name only earlier questions of the group
        refuse_in_group(made, where)   # no item condition per element (item_when.py)
        if any(q.id == made.id for q in earlier) or made.id == gid or any(g.id == made.id for g in groups):
            raise DefinitionError(join_path(where, "id"), f"{made.id!r} is the id of an earlier question or "
                                                          "group; ids must differ across the definition")
        asked.append(dataclasses.replace(made, group=gid))
    return Repeat(gid, tuple(q.id for q in asked), elements, source, keys.text("label", "", limit=100),
                  side_of), asked


def _declared_elements(keys: Keys) -> tuple[Element, ...]:
    entries = keys.listed("elements")
    if not entries:
        raise DefinitionError(keys.at("elements"), "must list at least one element")
    if len(entries) > MAX_ELEMENTS:
        raise DefinitionError(keys.at("elements"), f"lists {len(entries)} elements; at most {MAX_ELEMENTS}")
    found: list[Element] = []
    for index, entry in enumerate(entries):
        where = f"{keys.at('elements')}[{index}]"
        element = Keys(entry, where, ("id", "text"), "a mapping {id, text}")
        eid = element.text("id", limit=ELEMENT_ID_LENGTH)
        if not eid.strip():
            raise DefinitionError(element.at("id"), "an element's id must not be blank")
        if eid in (UNDECIDED, NOT_ASKED):
            raise DefinitionError(element.at("id"), f"{eid!r} is a word gold uses; name the element otherwise")
        earlier = next((n for n, e in enumerate(found) if e.id == eid), None)
        if earlier is not None:
            raise DefinitionError(element.at("id"), f"{eid!r} is also the id of element {earlier + 1} "
                                                    f"({keys.at('elements')}[{earlier}]); ids must differ")
        text = element.text("text", limit=ELEMENT_TEXT_LENGTH)
        if not text.strip():
            raise DefinitionError(element.at("text"), "must not be blank: it is shown above the questions")
        found.append(Element(eid, text))
    return tuple(found)


def refuse_outside_when(entry: Any, path: str, earlier: Sequence[Question]) -> None:
    """A question outside a group cannot depend (`when`) on a group's question: that is asked once per element."""
    if not isinstance(entry, dict) or not isinstance(entry.get("when"), dict):
        return
    for parent in entry["when"]:
        owner = next((q.group for q in earlier if q.id == parent and q.group), None)
        if owner is not None:
            raise DefinitionError(join_path(join_path(path, "when"), str(parent)),
                                  f"{parent!r} is asked once per element of group {owner!r}; a question outside "
                                  "the group cannot depend on it")


def group_questions(definition: Definition, gid: str) -> list[Question]:
    return [q for q in definition.questions if q.group == gid]


def answer_keys(definition: Definition, *, scored: bool = False) -> list[str]:
    """The answer's keys in the definition's order: each top-level question's id, each group's id once.
    `scored`: only what a known answer may give (text questions have none; a group of text questions neither)."""
    keys: list[str] = []
    for q in definition.questions:
        key = q.group or q.id
        if q.derived is not None or key in keys or scored and q.kind == "text" and (q.group is None or all(
                other.kind == "text" for other in group_questions(definition, q.group))):
            continue
        keys.append(key)
    return keys


def first_of_group(definition: Definition, q: Question) -> bool:
    """Whether `q` is its group's first question: where the group stands among the questions."""
    return q.group is not None and group_of(definition, q.group).questions[0] == q.id


# --- elements -----------------------------------------------------------------------------------------------

def elements(repeat: Repeat, payload: Mapping[str, Any]) -> list[Element]:
    """The group's elements for this item: declared, or read from the item's `elements_from` field (as the
    items file was checked: {"id", "text"} objects, or bare text numbered 1, 2, ...)."""
    if repeat.elements_from is None:
        return list(repeat.elements)
    found = []
    for number, entry in enumerate(payload.get(repeat.elements_from) or [], 1):
        if isinstance(entry, Mapping):
            found.append(Element(str(entry.get("id", number)), str(entry.get("text", ""))))
        else:
            found.append(Element(str(number), str(entry)))
    return found


def element_list_problem(value: Any) -> str | None:
    """What is wrong with an item's list of elements (parsed), in words; None when it is a valid one."""
    if not isinstance(value, list) or not value:
        return 'must be a list of at least one element: [{"id": "t1", "text": "..."}, ...] or ["...", "..."]'
    if len(value) > MAX_ELEMENTS:
        return f"lists {len(value)} elements; at most {MAX_ELEMENTS}"
    seen: dict[str, int] = {}
    for number, entry in enumerate(value, 1):
        if isinstance(entry, dict):
            unknown = sorted(set(entry) - {"id", "text"})
            if unknown or not isinstance(entry.get("id"), (str, int)) or isinstance(entry.get("id"), bool) \
                    or not isinstance(entry.get("text"), str):
                return f'element {number} must be {{"id": text, "text": text}} (or bare text)'
            eid, text = str(entry["id"]), entry["text"]
        elif isinstance(entry, str):
            eid, text = str(number), entry
        else:
            return f'element {number} must be {{"id": text, "text": text}} or text'
        if not eid.strip():
            return f"element {number} has an empty id"
        if len(eid) > ELEMENT_ID_LENGTH:
            return f"element {number}'s id is {len(eid)} characters long; at most {ELEMENT_ID_LENGTH}"
        if eid in (UNDECIDED, NOT_ASKED):
            return f"element {number}'s id {eid!r} is a word gold uses; name the element otherwise"
        if eid in seen:
            return f"the element id {eid[:40]!r} is given twice (elements {seen[eid]} and {number}); ids must differ"
        if not text.strip():
            return f"element {number} has no text"
        if len(text) > ELEMENT_TEXT_LENGTH:
            return f"element {number}'s text is {len(text)} characters long; at most {ELEMENT_TEXT_LENGTH}"
        seen[eid] = number
    return None


# --- answers ------------------------------------------------------------------------------------------------

def alone(definition: Definition, gid: str) -> Definition:
    """The group's questions as a definition of their own: what one element's answer is checked against."""
    return dataclasses.replace(definition, questions=tuple(dataclasses.replace(q, group=None)
                                                           for q in group_questions(definition, gid)),
                               repeats=())


def check_group(definition: Definition, gid: str, payload: Mapping[str, Any], value: Any,
                check: Check, presentation: Mapping[str, Any] | None = None
                ) -> tuple[dict[str, dict[str, Any]], list[LabelIn]]:
    """The group's answer as stored ({element id: {question id: value}}, elements in the item's order) and its
    label rows (unit = element id; a sides group's unit is the side's player, as `presentation` showed the sides:
    declared/sides.py). `check` is answers.check_answer, applied to each element's answer.

    AnswerError starts "<group>: <element id>: <question id>: ..." (or the first two) so a client and the page
    can point at what is wrong."""
    listed = elements(group_of(definition, gid), payload)
    ids = [e.id for e in listed]
    shown_ids = ", ".join(map(repr, ids[:10])) + (", ..." if len(ids) > 10 else "")
    if not isinstance(value, dict):
        raise AnswerError(f"{gid}: must be an object {{element id: {{question id: value}}}} with one entry per "
                          f"element ({shown_ids})")
    unknown = [str(key) for key in value if key not in ids]
    if unknown:
        raise AnswerError(f"{gid}: {unknown[0][:40]!r} is not an element of this item (its elements: {shown_ids})")
    own = alone(definition, gid)
    group = group_of(definition, gid)
    units = sides.shown_units(definition, group, payload, presentation) if group.sides else {}
    stored: dict[str, dict[str, Any]] = {}
    labels: list[LabelIn] = []
    for element in listed:
        given = value.get(element.id)
        if given is None:
            raise AnswerError(f"{gid}: {element.id}: no answer; every element is asked")
        if not isinstance(given, dict):
            raise AnswerError(f"{gid}: {element.id}: must be an object {{question id: value}}")
        try:
            answer, rows = check(own, payload, given)
        except AnswerError as error:
            raise AnswerError(f"{gid}: {element.id}: {error}") from None
        stored[element.id] = answer
        labels += [LabelIn(units.get(element.id, element.id), row.field, row.value) for row in rows]
    return stored, labels


def example_group(definition: Definition, gid: str, payload: Mapping[str, Any], rng: random.Random,
                  draw: Callable[[Definition, Mapping[str, Any], random.Random], dict[str, Any]]) -> dict[str, Any]:
    """A valid answer to the group drawn at random; `draw` is answers.example_answer."""
    own = alone(definition, gid)
    return {e.id: draw(own, payload, rng) for e in elements(group_of(definition, gid), payload)}


def public_group(definition: Definition, gid: str, payload: Mapping[str, Any],
                 describe: Callable[[Definition, Mapping[str, Any]], list[dict[str, Any]]]) -> dict[str, Any]:
    """The group as an API client needs it: its elements (id and text) and its questions (`describe` is
    answers.public_questions)."""
    repeat = group_of(definition, gid)
    entry: dict[str, Any] = {"id": gid, "kind": "repeat",
                             "elements": [{"id": e.id, "text": e.text} for e in elements(repeat, payload)],
                             "questions": describe(alone(definition, gid), payload)}
    if repeat.label:
        entry["label"] = repeat.label
    return entry


# --- control items ------------------------------------------------------------------------------------------

def control_scores(definition: Definition, gid: str, answer: Any, reference: Any,
                   agreement: Callable[[Question, Any, Any], float],
                   presentation: Mapping[str, Any] | None = None,
                   scoring: ControlScoring | None = None) -> list[float]:
    """One score per known (element, question) of the group's known answer ({element: {question: value}}):
    `agreement` (controls._agreement) of the annotator's answer, 0 where they gave none. A sides group's known
    answer is in the item's terms, the answer as shown: it is read in the item's terms (declared/sides.py).
    `scoring` (the definition's `control_score:`) picks the questions scored and how a hidden one counts."""
    if not isinstance(reference, Mapping):
        return []
    group = group_of(definition, gid)
    if group.sides:
        answer = sides.in_item_terms(definition, group, answer, presentation)
    given_all = answer if isinstance(answer, Mapping) else {}
    # A known answer may know elements the group does not ask (a data set's claims, of which a project asks some):
    # only the group's own are scored.
    asked = {e.id for e in group.elements} if group.elements and group.elements_from is None else None
    scores = []
    for eid, known_answers in reference.items():
        if not isinstance(known_answers, Mapping) or asked is not None and eid not in asked:
            continue
        entry = given_all.get(eid)
        given: Mapping[str, Any] = entry if isinstance(entry, Mapping) else {}
        for q in group_questions(definition, gid):
            known = as_counted(scoring, q, known_answers, known_answers.get(q.id))   # control_scoring.py
            if q.kind == "text" or not scored(scoring, q) or known is None or known in (UNDECIDED, NOT_ASKED):
                continue
            mine = as_counted(scoring, q, given, given.get(q.id))
            scores.append(0.0 if mine is None else agreement(q, mine, known))
    return scores


def reference_from_gold(definition: Definition, gid: str, rows: Any,
                        payload: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """A group's decided gold on one item ({element: {question: value}}) from its gold rows (`rows`: the item's
    rows of a gold frame); undecided, n/a and a median between two points are left out. A sides group's units
    (players) become the sides in the item's terms, "A" and "B", from the item's `payload`."""
    known: dict[str, dict[str, Any]] = {}
    group = group_of(definition, gid)
    as_side = sides.units_as_sides(definition, group, payload or {}) if group.sides else None
    for q in group_questions(definition, gid):
        if q.gold is None or rows.empty:
            continue
        mine = rows[rows["question"] == q.id]
        for unit, value in zip(mine["unit"], mine["gold"]):
            if value in (UNDECIDED, NOT_ASKED) or as_side is not None and str(unit) not in as_side:
                continue
            unit = as_side[str(unit)] if as_side is not None else unit
            if q.kind == "scale":
                number = float(value)
                if not any(abs(number - p) < 1e-9 for p in q.scale_values()):
                    continue
                known.setdefault(str(unit), {})[q.id] = int(number) if number.is_integer() else number
            elif q.kind == "choice" and q.gold.rule == "share" and value not in q.option_values():
                continue
            else:
                known.setdefault(str(unit), {})[q.id] = str(value)
    return known


def element_text(definition: Definition, q: Question, payload: Mapping[str, Any], unit: str) -> str | None:
    """A group question's gold unit in words: the element's id and text."""
    if q.group is None:
        return None
    group = group_of(definition, q.group)
    side = sides.units_as_sides(definition, group, payload).get(unit, unit) if group.sides else unit
    found = next((e for e in elements(group, payload) if e.id == side), None)
    return f"{unit}: {found.text}" if found is not None else None


# --- gold -------------------------------------------------------------------------------------------------

def candidate_units(definition: Definition, q: Question, decided: Mapping[str, Mapping[str, Mapping[str, Any]]],
                    item: str) -> list[str]:
    """The elements a group question may have n/a gold on when nobody answered it: the declared elements, or
    those its `when` parents have gold on for the item."""
    if q.group is None:
        return []
    repeat = group_of(definition, q.group)
    if repeat.elements_from is None and repeat.sides is None:   # a sides group's units are the item's players
        return [e.id for e in repeat.elements]
    units: dict[str, None] = {}
    for parent, _ in q.when:
        units.update((str(u), None) for u in decided.get(parent, {}).get(item, {}))
    return list(units)


def reference_words(definition: Definition, gid: str, payload: Mapping[str, Any], reference: Any,
                    said: Callable[[Question, Any], str]) -> list[str]:
    """A group's known answer in words, element by element ("masks: Is the sentence about it? Relevant"); `said`
    is a known value of a question in words (controls._words)."""
    if not isinstance(reference, Mapping):
        return []
    parts = []
    for element in elements(group_of(definition, gid), payload):
        known_answers = reference.get(element.id)
        if not isinstance(known_answers, Mapping):
            continue
        for q in group_questions(definition, gid):
            known = known_answers.get(q.id)
            if known is not None and q.kind != "text":
                parts.append(f"{element.id}: {q.prompt} {said(q, known)}")
    return parts


def group_answer_meaning(definition: Definition, repeat: Repeat) -> str:
    """What a group's column of the exported votes holds (the dataset's data card and schema)."""
    where = f"the item field `{repeat.elements_from}`" if repeat.elements_from else \
        f"the two sides of pairwise question {repeat.sides} (A and B in the item's terms)" if repeat.sides else \
        "the definition (" + ", ".join(e.id for e in repeat.elements) + ")"
    asked = ", ".join(f"{q.id} ({q.kind})" for q in group_questions(definition, repeat.id))
    return (f"the answers of group {repeat.id}, asked once per element of {where}, as a JSON object "
            f"{{element id: {{question id: answer}}}}; its questions: {asked}")


def _natural(text: str) -> list[tuple[int, int | str]]:
    """"t2" before "t10": digits compared as numbers, the rest as text."""
    return [(0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", text) if part]


def in_canonical_order(definition: Definition, answer: Mapping[str, Any]) -> dict[str, Any]:
    """The answer with each group's elements and questions in a fixed order, whatever order the database kept
    (PostgreSQL's JSONB orders an object's keys its own way): a declared list's elements in its order, an item's
    in natural order of their ids ("t2" before "t10"), each element's questions in the group's order. So the same
    votes export alike on both engines."""
    out = dict(answer)
    for group in definition.repeats:
        given = out.get(group.id)
        if not isinstance(given, Mapping):
            continue
        declared = [e.id for e in group.elements]
        keys = sorted(given, key=lambda eid: (declared.index(eid), []) if eid in declared else (len(declared),
                                                                                                _natural(str(eid))))
        out[group.id] = {eid: {q: given[eid][q] for q in group.questions if q in given[eid]}
                         if isinstance(given[eid], Mapping) else given[eid] for eid in keys}
    return out


def asked_per_element(definition: Definition, key: str) -> str:
    """What to add to "<key> is not a question" when `key` is a group's question sent at the top of an answer."""
    owner = next((q.group for q in definition.questions if q.id == key and q.group), None)
    if owner is None:
        return ""
    return (f"; {key} is asked once per element of group {owner!r}: answer it as "
            f'{{"{owner}": {{"<element id>": {{"{key}": ...}}}}}}')


def known_answer(definition: Definition, gid: str, payload: Mapping[str, Any], value: Any,
                 check: Callable[[Question, Mapping[str, Any], Any], Any],
                 shown: Callable[[Question, Mapping[str, Any]], bool]) -> dict[str, dict[str, Any]]:
    """A control item's known answer to a group (the items file's `known.<group>`), as stored: {element id:
    {question id: answer}}, some elements and questions only if need be. `check` gives one question's answer as
    stored (AnswerError when it is not one), `shown` is asked.is_shown; ValueError says what is wrong."""
    ids = [e.id for e in elements(group_of(definition, gid), payload)]
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        raise ValueError("must be an object {element id: {question id: answer}}")
    own = alone(definition, gid)
    found: dict[str, dict[str, Any]] = {}
    for eid, given in value.items():
        if eid not in ids:
            raise ValueError(f"{eid[:40]!r} is not an element of this item ({', '.join(ids[:10])})")
        unknown = sorted(set(given) - {q.id for q in own.questions})
        if unknown:
            raise ValueError(f"{eid}: {unknown[0][:40]!r} is not a question of group {gid!r}")
        mine: dict[str, Any] = {}
        for q in own.questions:
            if given.get(q.id) is None:
                continue
            if q.kind == "text":
                raise ValueError(f"{eid}: {q.id} is a text question: it has no known answer")
            if not shown(q, mine) and all(parent in mine for parent, _ in q.when):
                raise ValueError(f"{eid}: {q.id} is not asked when the known answers are these")
            try:
                mine[q.id] = check(q, payload, given[q.id])
            except AnswerError as error:
                raise ValueError(f"{eid}: not a valid answer: {error}") from None
        if mine:
            found[eid] = mine
    return found
