"""The bridge from the built-in "emphasis" HIT type to its definition (selection.yaml).

Why: the built-in type is to be served by the declared engine. Two things must survive that switch: the answers
API clients send today (`{"tags": ["B", "I", "O", ...]}`, one tag per word) and the votes stored by existing
projects (label rows `(word id, "bio", B|I|O)`). `convert_answer` turns today's answer into the definition's
(`{"emphasis": [word positions]}`), refusing what today's code refuses, so the declared engine's own check then
runs on a well-formed answer; `map_vote` is the mapping of one stored vote to the definition's answer and label
rows, and `map_label` the same per label row. All are pure: they read no database. `EMPHASIS` is the Bridge
(bridge_base.py) the shared task registers.

The definition's span question keeps the boundaries (`boundaries: true`, docs/declared-span-boundaries.md): its
answer is the same tags, and each word gives two rows, `(word id, "emphasis", "1" | "0")` (selected or not: the
probability's input) and `(word id, "emphasis.bio", tag)` (the tag: the agreement over the three tags). So the
built-in's B after B (two spans side by side) and B then I (one span) stay apart, and nothing is lost.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from annotator.declared.answers import check_answer
from annotator.declared.bridge_base import Bridge, LabelRow
from annotator.declared.definition import Definition
from annotator.declared.item_view import view
from annotator.tasks.base import AnswerError, LabelIn

DEFINITION = Path(__file__).with_name("selection.yaml")
QUESTION = "emphasis"          # the definition's span question over the words
BUILT_IN_FIELD = "bio"         # the built-in's label field: one row per word, its tag
TAGS = ("B", "I", "O")
SELECTED, NOT_SELECTED = "1", "0"
TAG_FIELD = f"{QUESTION}.bio"  # the definition's per-word tag rows (declared/boundaries.py)


def convert_answer(answer: Any, payload: Mapping[str, Any],
                   presentation: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Today's `{"tags": [...]}` as the definition's `{"emphasis": [the same tags]}`.

    AnswerError with today's message for every answer today's code refuses: a refusal stays a refusal, and the
    message still names the word and the tag at fault."""
    if not isinstance(answer, dict) or "tags" not in answer:
        raise AnswerError('the answer must be an object {"tags": [...]}, one "B", "I" or "O" per word')
    unknown = sorted(str(key) for key in answer if key != "tags")
    if unknown:
        raise AnswerError(f"unknown key(s) {', '.join(repr(k) for k in unknown)} in the answer: it has only tags")
    tags = checked_tags(answer["tags"], len(payload.get("words") or ()))
    return {QUESTION: tags}


def checked_tags(tags: Any, words: int) -> list[str]:
    """The tags if they are a valid B / I / O sequence for `words` words (I only inside an open span)."""
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise AnswerError('"tags" must be a list of "B", "I" or "O", one per word')
    if len(tags) != words:
        raise AnswerError(f'"tags" has {len(tags)} tags but the text has {words} words')
    for position, tag in enumerate(tags):
        if tag not in TAGS:
            raise AnswerError(f'tag {tag[:20]!r} of word {position + 1} is not "B", "I" or "O"')
        if tag == "I" and (position == 0 or tags[position - 1] == "O"):
            raise AnswerError(f'word {position + 1} is "I" but no span is open before it; a span starts with "B"')
    return tags


def map_vote(definition: Definition, payload: Mapping[str, Any],
             stored_answer: Any) -> tuple[dict[str, Any], list[LabelIn]]:
    """A stored built-in vote as the definition's stored answer and label rows (the declared engine's check)."""
    # the item as the definition reads it (token objects, option objects), as the declared HIT checks it
    return check_answer(definition, view(definition, payload), convert_answer(stored_answer, payload))


def map_label(unit: str, field: str, value: str) -> tuple[LabelRow, LabelRow]:
    """One built-in label row `(word id, "bio", tag)` as the definition's two: `(word id, "emphasis", "1" | "0")`
    and `(word id, "emphasis.bio", tag)`.

    The word's id is the unit on both sides (the definition's `token_id: id`); B and I both mean selected."""
    if field != BUILT_IN_FIELD or value not in TAGS:
        raise ValueError(f"({unit!r}, {field!r}, {value!r}) is not an emphasis label row (field 'bio', value B, I "
                         "or O)")
    return LabelRow(unit, QUESTION, NOT_SELECTED if value == "O" else SELECTED), LabelRow(unit, TAG_FIELD, value)


def map_labels(rows: Sequence[LabelRow], payload: Mapping[str, Any]) -> list[LabelRow]:
    """One vote's built-in rows as the definition's: row by row (the item is not needed)."""
    return [mapped for row in rows for mapped in map_label(*row)]


EMPHASIS = Bridge(task_type="emphasis", definition=DEFINITION.name, answer=convert_answer, labels=map_labels)
