"""How alike two annotators' distributions of one item are: the total variation distance, pairwise, averaged.

Why beside Krippendorff's alpha: a distribution question's agreement frame (annotator/declared/distribution.py) has
a row per (item, option, annotator) with that option's share, and alpha over those shares says whether annotators give
an option the same share, with units that are not independent (an item's shares add up to the total). Fleiss' kappa
on the same rows counts each share as a name (30 and 31 as different as 0 and 100). What an organiser of a soft-label
campaign wants to read is how far apart two annotators' distributions of an item are: the total variation distance,
half the summed absolute differences of the shares, as a share of the total, 0 for the same distribution and 1 for
distributions on disjoint options. It is the distance a control answer is scored by (1 − distance:
docs/declared-soft-labels.md, "Control items").

How the pairs are averaged: per item, the mean over every unordered pair of its annotators; over the campaign, the
mean of those item means, so that an item with five annotators weighs as much as one with two. Items answered by one
annotator are left out (nothing to compare), and so are an item's rows that hold no share (the question not asked).
The frame carries each row's item and option in columns `distribution_item` and `distribution_option`, and the
total in its attrs.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from annotator.declared.distribution import total_variation

if TYPE_CHECKING:
    import pandas as pd

ITEM = "distribution_item"       # the frame's column of each row's item
OPTION = "distribution_option"   # and of its option


@dataclass(frozen=True)
class DistributionMatch:
    distance: float | None          # the mean over items of the mean over their pairs of annotators
    undefined_because: str | None = None
    items: int = 0                  # items answered by two or more annotators
    pairs: int = 0                  # pairs of annotators compared, over those items
    total: int = 100

    def text(self, digits: int = 3) -> str:
        if self.distance is None:
            return f"undefined: {self.undefined_because}"
        items = f"{self.items} item" + ("s" if self.items != 1 else "")
        pairs = f"{self.pairs} pair" + ("s" if self.pairs != 1 else "")
        return (f"{self.distance:.{digits}f} of the total apart (total variation distance: 0 the same distribution, "
                f"1 disjoint; {self.distance * self.total:.1f} of {self.total} points on other options), mean over "
                f"{items}, {pairs} of annotators")


def distribution_match(units: pd.DataFrame) -> DistributionMatch:
    """The figure over an agreement frame with columns coder, value (a share), distribution_item and
    distribution_option, and attrs["total"]."""
    total = int(units.attrs.get("total", 100))
    if units.empty:
        return DistributionMatch(None, "no votes yet", total=total)
    by_item: dict[str, dict[object, dict[str, int]]] = {}
    for item, option, coder, value in zip(units[ITEM], units[OPTION], units["coder"], units["value"]):
        if str(value).isdigit():
            by_item.setdefault(str(item), {}).setdefault(coder, {})[str(option)] = int(value)
    means, pairs = [], 0
    for answers in by_item.values():
        here = [total_variation(a, b, total) for a, b in itertools.combinations(answers.values(), 2)]
        if here:
            means.append(sum(here) / len(here))
            pairs += len(here)
    if not means:
        return DistributionMatch(None, "no item was answered by two or more annotators", total=total)
    return DistributionMatch(sum(means) / len(means), None, len(means), pairs, total)
