"""Span boundaries: a `span` question with `boundaries: true` keeps where one selected span ends and the next begins.

A plain span question's answer is a set of words, so two selected neighbours are always one stretch. With
boundaries the answer tags every word B, I or O (BIO, as SemEval-2020 Task 10's emphasis data and the built-in
emphasis HIT): B starts a span, I continues the one open before it, O is outside; so two neighbours are one span
(B I) or two (B B), and "an I only after B or I" is the whole validity rule. Nothing selected (all O) is an answer.

The API takes the tags, or the selected positions as a plain span question does (each run of neighbouring positions
is then one span); either is stored as the tags. The label rows are the plain span's (one per word, field the
question's id, "1" / "0": its gold and probability unchanged) plus one per word in the field "<question>.bio" with
the word's tag, the three-tag agreement field the built-in reports as "bio". docs/declared-span-boundaries.md.
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from annotator.core.hit_values import AnswerError, LabelIn

if TYPE_CHECKING:
    import pandas as pd

    from annotator.declared.definition import Question

KEY = "boundaries"
TAGS = ("B", "I", "O")
SUFFIX = ".bio"                 # the tag rows' field: "<question id>.bio"
TAG_WORDS = {"B": "B (starts a span)", "I": "I (continues it)", "O": "O (not selected)"}


def key_part(keys: Any) -> dict[str, Any]:
    """The `boundaries` key of a span question (definition_checks.Keys): true or false, false when left out."""
    return {"boundaries": keys.flag(KEY, False)}


def tag_field(question: Question) -> str:
    return question.id + SUFFIX


def check(question: Question, value: Any, count: int) -> list[str]:
    """The answer as tags, one per word of the `count`; AnswerError names the question and what is wrong.

    Tags (a list of "B", "I", "O") are checked as the built-in emphasis HIT checks them; word positions (a list
    of whole numbers, a plain span question's shape) make one span of each run of neighbours."""
    qid = question.id
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return _tags(qid, value, count)
    if isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        outside = [v for v in value if not 0 <= v < count]
        if outside:
            raise AnswerError(f"{qid}: word {outside[0]} is not in the text ({count} words, 0 to {count - 1})")
        if len(set(value)) != len(value):
            raise AnswerError(f"{qid}: names a word twice")
        chosen = set(value)
        return ["O" if n not in chosen else "I" if n - 1 in chosen else "B" for n in range(count)]
    raise AnswerError(f'{qid}: must be a list of "B", "I" or "O", one per word of {question.of} ({count} words), '
                      "or a list of word positions (0 is the first word)")


def _tags(qid: str, tags: list[str], count: int) -> list[str]:
    if len(tags) != count:
        raise AnswerError(f"{qid}: has {len(tags)} tags but the text has {count} words")
    for position, tag in enumerate(tags):
        if tag not in TAGS:
            raise AnswerError(f'{qid}: tag {tag[:10]!r} of word {position + 1} is not "B", "I" or "O"')
        if tag == "I" and (position == 0 or tags[position - 1] == "O"):
            raise AnswerError(f'{qid}: word {position + 1} is "I" but no span is open before it; a span starts '
                              'with "B"')
    return tags


def labels(question: Question, value: Any, units: list[str]) -> tuple[list[str], list[LabelIn]]:
    """The stored tags and the label rows: per word its selection ("1" / "0", the question's field) and its tag."""
    tags = check(question, value, len(units))
    rows = [LabelIn(unit, question.id, "0" if tag == "O" else "1") for unit, tag in zip(units, tags)]
    return tags, rows + [LabelIn(unit, tag_field(question), tag) for unit, tag in zip(units, tags)]


def positions(question: Question, answer: Any) -> Any:
    """A stored answer as the positions it selects (what a control's overlap and a plain span compare)."""
    if not getattr(question, "boundaries", False) or not isinstance(answer, list):
        return answer
    return [n for n, tag in enumerate(answer) if tag in ("B", "I")]


def example(count: int, rng: random.Random) -> list[str]:
    """Each word selected with probability 0.3; a selected neighbour mostly continues the span (I)."""
    tags: list[str] = []
    for _ in range(count):
        if rng.random() >= 0.3:
            tags.append("O")
        else:
            tags.append("I" if tags and tags[-1] != "O" and rng.random() < 0.7 else "B")
    return tags


def public_part(question: Question) -> dict[str, Any]:
    """What an API client is told: that the answer is the tags, and which they are."""
    return {"boundaries": True, "tags": list(TAGS)} if question.boundaries else {}


def agreement_fields(question: Question, labels_frame: pd.DataFrame, names: Any) -> dict[str, pd.DataFrame]:
    """The three-tag agreement field "<question>.bio" (nominal), every word of every item; none without the key.

    `names` makes the unit names ("<item> / <unit>") as the question's own field has them."""
    import pandas as pd
    if question.kind != "span" or not question.boundaries:
        return {}
    rows = labels_frame[labels_frame["field"] == tag_field(question)]
    return {tag_field(question): pd.DataFrame({"unit": names(rows["item"], rows["unit"]), "coder": rows["user_id"],
                                               "value": rows["value"].astype(str)}, index=rows.index)}


def value_words(field: str, value: str) -> str | None:
    """A tag row's value in words, None for another field."""
    return TAG_WORDS.get(value, value) if field.endswith(SUFFIX) else None


def answer_words(question: Question) -> str:
    """The dataset's words for a boundaries question's answer."""
    return f"the tag of each word of `{question.of}`: B starts a span, I continues it, O is outside"


def card_words(question: Question) -> str:
    """What the data card adds to a span question's line: nothing without boundaries."""
    if not question.boundaries:
        return ""
    return f", each tagged B / I / O (spans kept apart; the tags are also the agreement field {tag_field(question)})"
