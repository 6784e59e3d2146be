"""Agreement of extractive answers between annotators: exact match and token F1, pairwise, averaged.

Why beside Krippendorff's alpha: an extractive question's agreement frame (annotator/declared/extractive.py) has one
row per (item, annotator) whose value is the exact span ("<start>:<end>", or "unanswerable"), so alpha and kappa
count "the Analytical Engine" and "Analytical Engine" as two answers. The figures of SQuAD's evaluation see them as
nearly the same: each pair of annotators of an item is compared by exact match and token F1 of their answers' texts
after SQuAD's normalisation (core/answer_text.py; an unanswerable answer is the empty answer). The frame carries
each answer's text in a column `answer_text` (None for unanswerable).

How the pairs are averaged: per item, the mean over every unordered pair of its annotators (an item answered by m
annotators has m (m - 1) / 2 pairs); over the campaign, the mean of those item means, so that an item with five
annotators weighs as much as one with two. Items answered by one annotator are left out (nothing to compare).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from annotator.core.answer_text import exact_match, token_f1

if TYPE_CHECKING:
    import pandas as pd

TEXT = "answer_text"   # the frame's column of each answer's text (None: unanswerable)


@dataclass(frozen=True)
class AnswerMatch:
    exact_match: float | None          # the mean over items of the mean over their pairs of annotators
    f1: float | None
    undefined_because: str | None = None
    items: int = 0                     # items answered by two or more annotators
    pairs: int = 0                     # pairs of annotators compared, over those items

    def text(self, digits: int = 3) -> str:
        if self.exact_match is None or self.f1 is None:
            return f"undefined: {self.undefined_because}"
        items = f"{self.items} item" + ("s" if self.items != 1 else "")
        pairs = f"{self.pairs} pair" + ("s" if self.pairs != 1 else "")
        return (f"exact match {self.exact_match:.{digits}f}, token F1 {self.f1:.{digits}f} (pairs of annotators, "
                f"mean over {items}, {pairs})")


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, float) and math.isnan(value):
        return None
    return str(value)


def pair_figures(answers: list[str | None]) -> tuple[float, float, int] | None:
    """(mean exact match, mean token F1, pairs) over every pair of the answers of one item; None under two."""
    pairs = list(itertools.combinations(answers, 2))
    if not pairs:
        return None
    return (sum(exact_match(a, b) for a, b in pairs) / len(pairs), sum(token_f1(a, b) for a, b in pairs) / len(pairs),
            len(pairs))


def answer_match(units: pd.DataFrame) -> AnswerMatch:
    """The figures over the units (items) of an agreement frame with columns unit, coder and answer_text."""
    if units.empty:
        return AnswerMatch(None, None, "no votes yet")
    by_unit: dict[object, dict[object, str | None]] = {}
    for unit, coder, text in zip(units["unit"], units["coder"], units[TEXT]):
        by_unit.setdefault(unit, {})[coder] = _text(text)
    found = [f for answers in by_unit.values() if (f := pair_figures(list(answers.values()))) is not None]
    if not found:
        return AnswerMatch(None, None, "no item was answered by two or more annotators")
    return AnswerMatch(sum(f[0] for f in found) / len(found), sum(f[1] for f in found) / len(found), None,
                       len(found), sum(f[2] for f in found))
