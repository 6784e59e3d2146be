"""The admin's items page of a declared project: a span question with boundaries drawn as its text, word by word.

Why: a `span` question with `boundaries: true` ruled by `probability` gives one gold row per word. As the generic
table (one row per word) the sentence is lost, and with it what an admin looks for on this page: which words the
annotators split over, and whether they agreed where a span starts. So each such question is drawn as its text:
every word tinted and barred by its probability (the share of the item's annotators who selected it), with its
B / I / O counts, then the votes as one row of tags per annotator. The questions of other kinds keep the page's
annotations and gold tables (declared/item_page.py), which leave the questions drawn here out.

Read from what the page already has (web/items.py's ItemRow): the gold rows per unit and each vote's label rows.
The counts are those of the votes shown, the probability the gold row's score: both leave out the annotators left
out of gold, as the page does.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotator.declared import boundaries, item_view
from annotator.declared.answers import words
from annotator.declared.definition import Definition, Question

TAGS = boundaries.TAGS


@dataclass(frozen=True)
class HeatWord:
    """One word of the text: its unit (the token's id, or its position), text and, once voted, its figures."""

    unit: str
    text: str
    probability: float | None     # the gold row's score; None while the word has no gold row
    counts: dict[str, int]        # votes per tag (B, I, O)

    @property
    def n(self) -> int:
        return sum(self.counts.values())

    @property
    def heat(self) -> int:
        """The tint's step, 0 to 10 (the probability in tenths, rounded as Python rounds)."""
        return round((self.probability or 0.0) * 10)


@dataclass(frozen=True)
class HeatView:
    """A span question with boundaries on one item: its words and the votes as tags, one row per annotator."""

    question: Question
    words: list[HeatWord]
    votes: list[tuple[str, list[str]]]   # (annotator, each word's tag, "" where the vote has none)


def drawn_questions(definition: Definition) -> list[Question]:
    """The questions this page draws as text: span questions with boundaries (outside a repeat group)."""
    return [q for q in definition.questions if q.kind == "span" and q.boundaries and q.group is None]


def heat_views(definition: Definition, payload: Mapping[str, Any], gold: Mapping[str, Mapping[str, Any]],
               votes: Sequence[tuple[str, Mapping[str, str]]], vote_fields: Mapping[str, str]) -> list[HeatView]:
    """The drawn questions of one item. `payload`: the item as the definition reads it (item_view.view); `gold`,
    `votes` and `vote_fields`: the page's ItemRow (a vote's columns are "<unit> <field>" when the item has
    several fields, else the unit)."""
    views = []
    for question in drawn_questions(definition):
        texts = words(question, payload)
        units = item_view.units(question, payload, len(texts))
        field = boundaries.tag_field(question)

        def tag(vote: Mapping[str, str], unit: str, field: str = field) -> str:
            column = f"{unit} {field}"
            if column in vote:
                return vote[column]
            return vote.get(unit, "") if vote_fields.get(unit) == field else ""

        rows = [(annotator, [tag(vote, unit) for unit in units]) for annotator, vote in votes]
        rows = [(annotator, tags) for annotator, tags in rows if any(tags)]
        heat = []
        for position, (unit, text) in enumerate(zip(units, texts)):
            counts = {t: sum(tags[position] == t for _, tags in rows) for t in TAGS}
            row = gold.get(unit)
            score = row.get("score") if row is not None and row.get("question") == question.id else None
            heat.append(HeatWord(unit, text, float(score) if score is not None else None, counts))
        views.append(HeatView(question, heat, rows))
    return views
