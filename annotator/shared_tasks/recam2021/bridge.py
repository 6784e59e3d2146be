"""The bridge from the built-in "cloze" HIT type to its definition (cloze_selection.yaml, the whole ReCAM campaign).

Why: the built-in type is to be served by the declared engine; the answers API clients send today and the votes
existing projects hold must carry over. Today's answer is `{"option": 0..4, "passage_span": [start, end] | null,
"question_span": [start, end] | null, "difficulty": "easy" | "medium" | "hard"}` (character spans, end
exclusive); the definition's is the same option (`values: index`) and difficulty, and each evidence span as a
`spans` answer of one mark labelled "evidence" or none (`[]`). `convert_answer` turns one into the other and
refuses what today's code refuses (the declared check alone would take the option "2" as text); `map_vote` maps a
stored vote to the definition's answer and label rows; `map_reference` a built-in item's known answer
(`{"label": n}`) to the definition's (`{"option": "n"}`); `definition_for` the project's selection settings
(min_accuracy, require_spans, easy_must_be_right, keep_share, majority_share) to the parameters of the
definition's `recam_selection` rule, so a project with its own settings keeps its own gold (the base's
Bridge has no project settings: a migration calls `definition_for` itself). `CLOZE` is the registered Bridge.

The built-in's import stores ReCAM's `label` as the reference of every item, which rules a and c read; a declared
item carries the same reference, not as a control item, from an items file's `reference.option` column
(docs/declared-references.md), and a migration stores `map_reference`'s value as the item's reference.

Evidence off word edges carries over: the definition's evidence questions take any offset of the text (`edges:
code_points`, docs/declared-span-edges.md), as the built-in's API did: inside a word, with white space at an edge,
or between a letter and its combining mark (the last two only an API client could send; the built-in's page marks
whole words). Their agreement rows are per character of the text; the mark keeps its offsets as given. The bridge
carries every vote over (`not_carried_over` is empty).
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from annotator.declared.answers import check_answer
from annotator.declared.bridge_base import Bridge, LabelRow
from annotator.declared.definition import Definition
from annotator.declared.definition_reader import definition_from_data
from annotator.declared.item_view import view
from annotator.declared.items import load_definition
from annotator.tasks.base import AnswerError, LabelIn

DEFINITION = Path(__file__).with_name("cloze_selection.yaml")
UNIT = "question"                          # the built-in's one unit per vote
KEYS = ("option", "passage_span", "question_span", "difficulty")
DIFFICULTIES = ("easy", "medium", "hard")
EVIDENCE = "evidence"                      # the single label of the definition's evidence questions
SPAN_TEXT = {"passage_span": "article", "question_span": "question"}
# The built-in project's selection settings: the `recam_selection` rule's parameters of the same names.
SELECTION_SETTINGS = ("min_accuracy", "require_spans", "easy_must_be_right", "keep_share", "majority_share")
SHAPE = ('{"option": 0..4, "passage_span": [start, end] | null, "question_span": [start, end] | null, '
         '"difficulty": "easy" | "medium" | "hard"}')


def definition_for(settings: Mapping[str, Any] | None) -> Definition:
    """cloze_selection.yaml with the project's selection settings as its rule's parameters (the defaults are the
    rule's own, so a project that changed none gets the file as it is)."""
    definition = load_definition(DEFINITION)
    chosen = {key: value for key, value in (settings or {}).items() if key in SELECTION_SETTINGS}
    if not chosen:
        return definition
    data = definition.to_data()
    option = next(q for q in data["questions"] if q["id"] == "option")
    option["gold"] = {**option["gold"], **chosen}
    return definition_from_data(data)


def convert_answer(answer: Any, payload: Mapping[str, Any],
                   presentation: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Today's answer in the definition's shape; AnswerError, with today's message, for what today's code refuses."""
    if not isinstance(answer, dict):
        raise AnswerError(f"the answer must be an object {SHAPE}")
    missing = [key for key in KEYS if key not in answer]
    unknown = sorted(str(key) for key in answer if key not in KEYS)
    if missing or unknown:
        what = "; ".join(part for part in (f"missing {', '.join(sorted(missing))}" if missing else "",
                                           f"unknown {', '.join(unknown)}" if unknown else "") if part)
        raise AnswerError(f"the answer must be an object {SHAPE} ({what})")
    option, options = answer["option"], len(payload.get("options") or ())
    if type(option) is not int or not 0 <= option < options:
        raise AnswerError(f"option {_json(option)} is not an option index 0..{options - 1}")
    if answer["difficulty"] not in DIFFICULTIES:
        raise AnswerError(f"difficulty {_json(answer['difficulty'])} is not easy, medium or hard")
    return {"option": option, "difficulty": answer["difficulty"],
            **{key: _marks(answer[key], key, str(payload.get(field, "")), field) for key, field in SPAN_TEXT.items()}}


def _json(value: Any) -> str:
    return json.dumps(value)[:20]


def _marks(span: Any, key: str, text: str, what: str) -> list[dict[str, Any]]:
    """A built-in [start, end] (or null) as the spans answer of one evidence mark (or none)."""
    if span is None:
        return []
    if not isinstance(span, list) or len(span) != 2 or not all(type(v) is int for v in span):
        raise AnswerError(f'"{key}" must be [start, end] (two integers) or null')
    start, end = span
    if not 0 <= start < end <= len(text):
        raise AnswerError(f'"{key}" [{start}, {end}] is not a span of the {what}: it needs '
                          f"0 <= start < end <= {len(text)} (characters, end exclusive; null for no span)")
    return [{"start": start, "end": end, "label": EVIDENCE}]


def todays_shape(answer: Any) -> bool:
    """Whether an API answer is today's rather than the definition's, whose question ids are today's keys: today's
    gives each evidence as [start, end] or null, the definition's as a list of marks (objects; `[]` for none) or
    leaves it out. So every answer today's API took is converted, and every one it refused (each has its evidence
    null or numbers, an option given as text too) is refused with today's message; an answer whose evidence is marks
    is the definition's, whatever its option (the converter's own output, the option a number, is one)."""
    if not isinstance(answer, dict):
        return True
    return any(key in answer and not (isinstance(answer[key], list) and all(isinstance(m, dict) for m in answer[key]))
               for key in SPAN_TEXT)


def map_vote(definition: Definition, payload: Mapping[str, Any],
             stored_answer: Any) -> tuple[dict[str, Any], list[LabelIn]]:
    """A stored built-in vote as the definition's stored answer and label rows (the declared engine's check)."""
    # the item as the definition reads it (token objects, option objects), as the declared HIT checks it
    return check_answer(definition, view(definition, payload), convert_answer(stored_answer, payload))


def map_labels(rows: Sequence[LabelRow], payload: Mapping[str, Any]) -> list[LabelRow]:
    """One vote's built-in rows (unit "question": option, difficulty, and each span as "start:end" or "") as the
    definition's rows: the vote is read back from its rows and checked as the declared engine checks it, since a
    span's rows are per word of the text (the item is needed)."""
    found = {field: value for unit, field, value in rows if unit == UNIT}
    if len(rows) != len(KEYS) or set(found) != set(KEYS) or not found["option"].isdigit():
        raise ValueError(f"{list(rows)!r} is not one cloze vote's label rows (unit {UNIT!r}: {', '.join(KEYS)})")
    answer = {"option": int(found["option"]), "difficulty": found["difficulty"],
              **{key: _span_of(found[key]) for key in SPAN_TEXT}}
    _, mapped = map_vote(load_definition(DEFINITION), payload, answer)
    return [LabelRow(row.unit, row.field, row.value) for row in mapped]


def _span_of(value: str) -> list[int] | None:
    """A built-in span row's value, "start:end" or "" for none, as the answer's [start, end] or null."""
    if not value:
        return None
    start, _, end = value.partition(":")
    if not (start.isdigit() and end.isdigit()):
        raise ValueError(f"span {value!r} is not start:end")
    return [int(start), int(end)]


def map_reference(reference: Any) -> dict[str, str] | None:
    """A built-in item's known answer `{"label": n}` as the definition's `{"option": "n"}` (None when none)."""
    if not isinstance(reference, Mapping) or type(reference.get("label")) is not int:
        return None
    return {"option": str(reference["label"])}


CLOZE = Bridge(task_type="cloze", definition=DEFINITION.name, answer=convert_answer, labels=map_labels,
               todays_shape=todays_shape)
