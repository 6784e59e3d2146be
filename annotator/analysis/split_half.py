"""Split-half reliability of best-worst scores: how far the scores would come out the same from other annotators.

Why beside Krippendorff's alpha: best-worst scaling wants reliable *scores* per object (an object's (best -
worst) / appearances over every tuple it was in), not agreement on one tuple; the field the literature reports is
split-half reliability (Kiritchenko & Mohammad 2017). Per trial the annotators are shuffled with a seeded
random.Random and cut into two halves (the first ceil(m / 2) and the rest); each half scores every object from its
own votes only; Spearman's rho between the two halves' scores, over the objects both halves scored, is the
split-half correlation r, and the Spearman-Brown formula 2r / (1 + r) corrects it to the full number of
annotators. The reported value is the mean over `trials` trials (100 by default, as the paper) of the corrected
figure, with the mean uncorrected r beside it. Rho is Pearson's correlation of the ranks, ties given their mean rank.

Input: an agreement frame with columns coder, value ("1" best, "-1" worst, "0" neither) and `object` (the scored
thing); its attrs' `seed` seeds the halves, so the figure is the same on every run.
"""
from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

TRIALS = 100
MIN_OBJECTS = 3     # fewer scored by both halves: no correlation worth the name


@dataclass(frozen=True)
class SplitHalf:
    value: float | None                   # the mean Spearman-Brown corrected r over the trials that gave one
    undefined_because: str | None = None
    r: float | None = None                # the mean uncorrected split-half Spearman r
    trials: int = 0                       # trials that gave a correlation
    objects: int = 0                      # objects scored (by anybody)
    seed: int = 0

    def text(self, digits: int = 3) -> str:
        if self.value is None:
            return f"undefined: {self.undefined_because}"
        return (f"{self.value:.{digits}f} (Spearman-Brown corrected; split-half r {self.r:.{digits}f}, mean of "
                f"{self.trials} random halves of the annotators, {self.objects} items, seed {self.seed})")


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties given the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    found = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for i in range(start, end + 1):
            found[order[i]] = (start + end) / 2 + 1
        start = end + 1
    return found


def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Spearman's rho of two paired lists; None when either is constant (or fewer than two pairs)."""
    if len(a) != len(b) or len(a) < 2:
        return None
    ra, rb = ranks(a), ranks(b)
    mean_a, mean_b = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - mean_a) * (y - mean_b) for x, y in zip(ra, rb))
    var_a = sum((x - mean_a) ** 2 for x in ra)
    var_b = sum((y - mean_b) ** 2 for y in rb)
    if var_a == 0 or var_b == 0:
        return None
    return cov / math.sqrt(var_a * var_b)


def spearman_brown(r: float) -> float:
    """The reliability of the whole from the correlation of two halves: 2r / (1 + r) (-1 stays -1)."""
    return 2 * r / (1 + r) if r != -1 else -1.0


def scores(votes: Sequence[tuple[Any, Any, str]], coders: set[Any]) -> dict[Any, float]:
    """Each object's (best - worst) / appearances from the votes (object, coder, value) of `coders` only."""
    counts: dict[Any, list[int]] = {}
    for obj, coder, value in votes:
        if coder in coders:
            seen = counts.setdefault(obj, [0, 0])
            seen[0] += 1
            seen[1] += 1 if value == "1" else -1 if value == "-1" else 0
    return {obj: net / shown for obj, (shown, net) in counts.items()}


def halves(coders: Sequence[Any], rng: random.Random) -> tuple[set[Any], set[Any]]:
    """The coders shuffled and cut in two, the first half the larger by one when their number is odd."""
    order = list(coders)
    rng.shuffle(order)
    cut = (len(order) + 1) // 2
    return set(order[:cut]), set(order[cut:])


def split_half_of(votes: Sequence[tuple[Any, Any, str]], seed: int = 0, trials: int = TRIALS) -> SplitHalf:
    """The split-half reliability of the votes (object, coder, value), `trials` seeded random halves."""
    coders = sorted({coder for _, coder, _ in votes}, key=str)
    objects = len({obj for obj, _, _ in votes})
    if len(coders) < 2:
        return SplitHalf(None, "fewer than two annotators: no two halves", objects=objects, seed=seed)
    rng = random.Random(seed)
    found: list[float] = []
    for _ in range(trials):
        one, two = halves(coders, rng)
        left, right = scores(votes, one), scores(votes, two)
        both = [obj for obj in left if obj in right]
        if len(both) < MIN_OBJECTS:
            continue
        r = spearman([left[o] for o in both], [right[o] for o in both])
        if r is not None:
            found.append(r)
    if not found:
        return SplitHalf(None, f"no split of the annotators gave two halves that both scored {MIN_OBJECTS} or more "
                               "items with differing scores", objects=objects, seed=seed)
    mean_r = sum(found) / len(found)
    corrected = sum(spearman_brown(r) for r in found) / len(found)
    return SplitHalf(corrected, None, mean_r, len(found), objects, seed)


def split_half(units: pd.DataFrame) -> SplitHalf:
    """The figure of an agreement frame (columns coder, value, object; attrs' seed)."""
    attrs: Mapping[str, Any] = units.attrs
    seed = int(attrs.get("seed", 0))
    if units.empty:
        return SplitHalf(None, "no votes yet", seed=seed)
    votes = list(zip(units["object"].astype(str), units["coder"], units["value"].astype(str)))
    return split_half_of(votes, seed)
