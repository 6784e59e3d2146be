"""KPA-2021 Track 1, step 1: which key point an argument is paired with when several share its top score.

The official code takes the *first* maximal key point in the JSON object's order (Python ``max`` over the
dict's items). The overview paper (section 3.3.1 and its footnote 4) says the key point is "randomly chosen
in case of a tie", each such experiment repeated 10 times with different random seeds and the results
averaged. Where the paper and the code disagree the scorer follows the code by default and offers the
paper's rule as an option (``random_ties``); this module holds both rules so that the scorer only has to run
its pipeline once per pairing.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from annotator.shared_tasks.kpa2021.scorer_io import Predictions

RUNS = 10  # the paper's repetitions of an experiment with ties (footnote 4)

Pair = tuple[str, Any]  # (key_point_id, score)


@dataclass(frozen=True)
class BestPairs:
    """Per JSON entry its first maximal valid key point, and the entries whose maximum is shared.

    ``best`` covers *all* JSON keys, arguments of the split or not: the unknown ones still decide the
    score column's dtype, as in the official DataFrame. ``tied`` maps an entry to its maximal key points
    in JSON order (two or more), the candidates of a random pick.
    """

    best: dict[str, Pair]
    invalid: list[str]
    tied: dict[str, list[Pair]]

    def drawn(self, seed: int) -> dict[str, Pair]:
        """The pairing of one run of the paper's rule: each tied entry gets one of its maxima at random.

        One ``random.Random(seed)`` draws for the tied entries in JSON order, so a seed always gives the same
        pairing (Python keeps ``Random.choice`` reproducible for a given seed across versions).
        """
        rng = random.Random(seed)
        return {arg_id: rng.choice(self.tied[arg_id]) if arg_id in self.tied else pair
                for arg_id, pair in self.best.items()}


def best_key_points(key_points: dict[str, Any], predictions: Predictions) -> BestPairs:
    """Key-point ids absent from the key-point file are dropped (first-met order kept for the warning); of
    the rest, the first maximum is the official pair, and every key point equal to it is a tie candidate."""
    best: dict[str, Pair] = {}
    invalid: dict[str, None] = {}
    tied: dict[str, list[Pair]] = {}
    for arg_id, kps in predictions.items():
        valid = []
        for kp_id, value in kps.items():
            if kp_id in key_points:
                valid.append((kp_id, value))
            else:
                invalid.setdefault(kp_id)
        if not valid:
            continue
        top = max(valid, key=lambda pair: pair[1])  # max keeps the first of equal maxima, as the official code
        best[arg_id] = top
        maxima = [pair for pair in valid if pair[1] == top[1]]
        if len(maxima) > 1:
            tied[arg_id] = maxima
    return BestPairs(best, list(invalid), tied)


def run_seeds(seed: int) -> list[int]:
    """The seeds of the paper's 10 runs: ``seed`` and the nine after it, recorded with the score."""
    return [seed + k for k in range(RUNS)]
