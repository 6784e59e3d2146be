"""Gold and agreement figures of nominal votes worked out by their textbook formulas, apart from annotator.analysis:
the expected values of tests that once compared a declared project with a built-in type that is gone since.

Fleiss' kappa (Fleiss 1971) over units that all have the same number of ratings; Krippendorff's alpha for nominal
data from the coincidence matrix (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"), units with one
rating left out as pairable values require.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import permutations


def fleiss_kappa(ratings: Mapping[str, Sequence[str]]) -> float:
    counts = [Counter(values) for values in ratings.values()]
    raters = {sum(c.values()) for c in counts}
    assert len(raters) == 1, "Fleiss' kappa as written here takes the same number of ratings per unit"
    n, units = raters.pop(), len(counts)
    agreement = sum((sum(k * k for k in c.values()) - n) / (n * (n - 1)) for c in counts) / units
    totals = Counter[str]()
    for c in counts:
        totals.update(c)
    chance = sum((t / (units * n)) ** 2 for t in totals.values())
    return (agreement - chance) / (1 - chance)


def krippendorff_alpha(ratings: Mapping[str, Sequence[str]]) -> float:
    coincidences = Counter[tuple[str, str]]()
    for values in ratings.values():
        if len(values) < 2:
            continue
        for a, b in permutations(range(len(values)), 2):
            coincidences[(values[a], values[b])] += 1 / (len(values) - 1)
    margins = Counter[str]()
    for (c, _), o in coincidences.items():
        margins[c] += o
    total = sum(margins.values())
    observed = sum(o for (c, k), o in coincidences.items() if c != k)
    expected = sum(margins[c] * margins[k] for c in margins for k in margins if c != k)
    return 1 - (total - 1) * observed / expected
