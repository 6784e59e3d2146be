"""One mAP per generation system over the pairs its judges decided (KPA-2021 Track 2, the matching aspect).

The overview (§3.3.2): each argument with its top key point, only the top 50% considered, a binary label from
the judges' majority, and "a single mAP score" (Table 3 has one mAP column). The task README has a *sample* of
the top-50% pairs labelled. A pair left out of the sample has no label, so it is left out here too; running the
Track-1 scorer on the verdicts instead counts it wrong (strict) or right (relaxed), two figures that measure the
sample's size more than the system. When every pair is judged the two agree with this one.

Per topic+stance: the judged pairs in the Track-1 order (by score; equal scores are one threshold, as sklearn
treats them), their AP, then the mean over the topic+stance groups that have a judged pair. Where the paper and
the Track-1 code part, the code is the default and the other is offered (`variant`):

* "official" (the Track-1 code's HEAD): AP x positives / N with N the group's judged pairs, so a group reaches 1
  only when every judged pair matches (the paper: "a perfect score of 1 can only be achieved when all top 50%
  matches are correct"); "plain-ap": sklearn's AP alone, the code the evaluation phase presumably ran.
* Arguments the system left without a prediction that still fall in the top half are, as in the Track-1 code,
  known false positives scored 0.99: nobody needs to judge them.
"""
from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from annotator.shared_tasks.kpa2021 import track2_files as track2
from annotator.shared_tasks.kpa2021.files import Argument
from annotator.shared_tasks.kpa2021.scorer import DUMMY_SCORE_IN_TOP, VARIANTS

__all__ = ["VARIANTS", "JudgedMap", "judged_map"]


@dataclass(frozen=True)
class JudgedMap:
    value: float | None            # None: no group has a judged pair yet
    judged: int                    # judged pairs of the system's top half
    groups: list[dict[str, Any]] = field(default_factory=list)


def _ap(labels: list[int], scores: list[float]) -> float:
    """sklearn's average precision; 0 for a group without a positive (sklearn warns and gives 0 too)."""
    if not any(labels):
        return 0.0
    from sklearn.metrics import average_precision_score  # heavy: imported where it is used (docs/architecture.md)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(average_precision_score(y_true=labels, y_score=scores))


def judged_map(split: str, arguments: list[Argument], run: track2.SystemRun, labels: dict[tuple[str, str], int],
               *, variant: str = "official") -> JudgedMap:
    """The system's mAP over its judged top-half pairs; `labels` maps (arg_id, key_point_id) to 1 or 0."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, not {variant!r}")
    where = {a.arg_id: (a.topic, a.stance) for a in arguments}
    sizes = Counter(where.values())
    pairs = track2.evaluated_pairs(split, arguments, run)
    # The top half holds floor(n/2) arguments of each group; those not among the pairs had no prediction: the
    # Track-1 code's dummies, judged wrong without a judge.
    kept = Counter(where[arg_id] for arg_id, _, _ in pairs)
    unanswered = {group: size // 2 - kept[group] for group, size in sizes.items()}
    rows: dict[tuple[str, int], list[tuple[int, float]]] = {}
    for arg_id, kp_id, score in pairs:
        if (arg_id, kp_id) in labels:
            rows.setdefault(where[arg_id], []).append((int(labels[(arg_id, kp_id)]), float(score)))
    judged = sum(len(group) for group in rows.values())
    groups: list[dict[str, Any]] = []
    for key in sorted(rows):
        group = rows[key] + [(0, DUMMY_SCORE_IN_TOP)] * unanswered.get(key, 0)
        y_true, y_score = [label for label, _ in group], [score for _, score in group]
        positives = sum(y_true)
        ap = _ap(y_true, y_score)
        value = ap * positives / len(group) if variant == "official" else ap
        groups.append({"topic": key[0], "stance": key[1], "judged": len(rows[key]),
                       "unanswered": unanswered.get(key, 0), "matches": positives, "ap": value})
    mean = sum(g["ap"] for g in groups) / len(groups) if groups else None
    return JudgedMap(mean, judged, groups)
