"""Dynamic overlap (incremental relabeling, as Toloka describes it): stop an item early when its votes agree.

An item first needs k votes (the project's k is the minimum). When the k-th (or a later) vote comes
in, each unit's majority answer gets a posterior: every vote weighted by its annotator's accuracy on
control items (`default_accuracy` without any), a uniform prior over the answers seen, and a vote
for another answer counting as one of the K - 1 wrong ones:

    P(a) ∝ Π_votes (q_j if vote_j = a else (1 - q_j) / (K - 1)),   K = max(2, answers seen)

(with K = 2 when all votes agree, so the answer nobody gave keeps its share).

If every (unit, field)'s majority has posterior >= `confidence`, the item is complete; otherwise its
`target` goes up by one, until `max_k`. `update_target` runs in submit under the item's row lock, so
concurrent submits on both engines see each other's votes and raise the target once per vote.
"""
from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import select, update

from annotator.analysis.annotator_figures import accuracies
from annotator.core.extensions import db
from annotator.core.models import Item, Label, Project
from annotator.core.quality_settings import Quality, target_of

Vote = tuple[str, str, str, int]  # unit, field, value, user id


def majority_posteriors(votes: Iterable[Vote],
                        accuracy: Mapping[int, float]) -> dict[tuple[str, str], tuple[str, float]]:
    """Per (unit, field): the answer with the highest posterior and that posterior."""
    by_unit: dict[tuple[str, str], list[tuple[str, float]]] = defaultdict(list)
    for unit, field, value, user in votes:
        by_unit[(unit, field)].append((value, min(max(accuracy[user], 0.01), 0.99)))
    out = {}
    for key, given in by_unit.items():
        answers = sorted({value for value, _ in given})
        size = max(2, len(answers))  # K: when every vote agrees, the other answer is still possible
        logs = {a: sum(math.log(q) if v == a else math.log((1 - q) / (size - 1)) for v, q in given) for a in answers}
        unseen = sum(math.log((1 - q) / (size - 1)) for _, q in given)  # an answer nobody gave
        top = max(logs.values())
        total = sum(math.exp(v - top) for v in logs.values()) + (size - len(answers)) * math.exp(unseen - top)
        best = max(answers, key=lambda a: logs[a])
        out[key] = (best, 1.0 / total)
    return out


def confident(votes: list[Vote], accuracy: Mapping[int, float], confidence: float) -> bool:
    return all(p >= confidence - 1e-12 for _, p in majority_posteriors(votes, accuracy).values())


def update_target(item: Any, project: Project, q: Quality, votes_now: int) -> None:
    """After a vote on `item` (locked by the caller; an `Item` or a row with its id and target): raise its
    target by one when its votes are not yet sure."""
    target = target_of(item, project)
    if votes_now < target or target >= q.max_k:
        return
    votes: list[Vote] = [(u, f, v, int(user)) for u, f, v, user in db.session.execute(
        select(Label.unit, Label.field, Label.value, Label.user_id).where(Label.item_id == item.id))]
    known = accuracies(project.id, sorted({v[3] for v in votes}))
    accuracy = {user: known[user][1] if user in known else q.default_accuracy for *_, user in votes}
    if not confident(votes, accuracy, q.confidence):
        db.session.execute(update(Item).where(Item.id == item.id).values(target=target + 1))
