"""Agreement of relations between annotators: relation F1, pairwise per item, pooled over the campaign.

Why beside Krippendorff's alpha: a relations question's agreement frame (annotator/declared/relations.py) has one row
per (item, annotator) whose value is the whole set of relations given, so alpha counts two sets that differ in one
relation of ten as two different answers. Relation extraction is scored by F1 over the relations (both ends and the
type exactly), as brat's and the shared tasks' scorers do; between annotators no one is the reference, and F1 is
symmetric, so each unordered pair of the item's annotators is compared.

Pooled, not averaged: over every item and every pair of its annotators (A, B),

    F1 = 2 * sum |A ∩ B| / (sum |A| + sum |B|)

so a pair who both gave no relation adds nothing to either side (their agreement on "none" is not counted as
perfect, nor as a miss), and an item with many relations weighs as many relations. Items answered by one annotator
are left out (nothing to compare). The frame carries each vote's set in a column `relation_set`.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

SET = "relation_set"   # the frame's column of each vote's relations (a frozenset of "<from>-><to> <type>")


@dataclass(frozen=True)
class RelationMatch:
    f1: float | None
    undefined_because: str | None = None
    items: int = 0        # items answered by two or more annotators
    pairs: int = 0        # pairs of annotators compared, over those items
    common: int = 0       # sum over pairs of the relations both gave
    given: int = 0        # sum over pairs of |A| + |B|

    def text(self, digits: int = 3) -> str:
        if self.f1 is None:
            return f"undefined: {self.undefined_because}"
        items = f"{self.items} item" + ("s" if self.items != 1 else "")
        pairs = f"{self.pairs} pair" + ("s" if self.pairs != 1 else "")
        return (f"relation F1 {self.f1:.{digits}f} (pairs of annotators, pooled over {items}, {pairs}: "
                f"2 × {self.common} in common / {self.given} given)")


def pooled_f1(items: Iterable[list[frozenset[str]]]) -> RelationMatch:
    """The figure over items, each the list of its annotators' sets of relations."""
    compared = pairs = common = given = 0
    for sets in items:
        pairs_here = list(itertools.combinations(sets, 2))
        if not pairs_here:
            continue
        compared += 1
        pairs += len(pairs_here)
        common += sum(len(a & b) for a, b in pairs_here)
        given += sum(len(a) + len(b) for a, b in pairs_here)
    if not compared:
        return RelationMatch(None, "no item was answered by two or more annotators")
    if not given:
        return RelationMatch(None, "no annotator gave a relation on an item another annotator also answered",
                             compared, pairs)
    return RelationMatch(2 * common / given, None, compared, pairs, common, given)


def relation_match(units: pd.DataFrame) -> RelationMatch:
    """The figure over the units (items) of an agreement frame with columns unit, coder and relation_set."""
    if units.empty:
        return RelationMatch(None, "no votes yet")
    by_unit: dict[object, dict[object, frozenset[str]]] = {}
    for unit, coder, found in zip(units["unit"], units["coder"], units[SET]):
        by_unit.setdefault(unit, {})[coder] = frozenset(found)
    return pooled_f1(list(answers.values()) for answers in by_unit.values())
