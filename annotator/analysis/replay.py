"""A finished campaign's votes replayed in the order they came, under a stopping rule: what stopping would have saved
and what it would have changed.

A pure function of the ordered votes, the gold rule, k and the stopping rule; annotator/analysis/replay_project.py
reads a project's votes into it and `flask replay` prints it. Each vote is one annotator's answer to one item: a
value per unit (a choice question's unit is the question, a multi question's units its options). An item is
replayed vote by vote; once the rule stops it, its later votes are not taken (saved). Only an item's first k votes
are replayed at all: a vote beyond k is counted apart (`votes_beyond_k`) and left out of both golds.

The rules:

  decided          stop an item when no votes still to come can change the gold of any of its units: for every
                   number r of further votes from 0 to k minus the votes taken, and every way r annotators could
                   answer (each value the question allows, any mix), the gold rule gives the gold it gives now. So
                   an item's gold after stopping is its gold after any number of further votes up to k, its full
                   gold included: a decided stop never changes gold, by construction (a property test checks it).
                   Every size from 0, not only k minus the votes taken, because an item may end with fewer votes
                   than k (a finished campaign's last items, a lowered k).
  confidence:P:M   stop an item after at least M votes when, for every unit, the model of the annotators gives the
                   gold its rule gives now a posterior of at least P (a unit whose gold is not one of the values,
                   e.g. undecided, is not confident). The model is the one-coin model (one_coin.py): each
                   annotator's accuracy and the class priors, fitted by the caller (replay_project.py: on the
                   campaign's full votes, see there why), and the posterior of a unit from the votes taken so far.
  confidence:P:M:FIELD[:W]
                   the same with a prior per group of items (`prior_by`): a unit's class priors are its group's
                   shares among the votes taken so far on the group's other items, shrunk towards the shares over
                   every other item's votes taken so far with W votes (5 when not given); core/stopping.shrunk_prior
                   on counts kept as the votes are taken (GroupCounts), as the live engine keeps its table
                   prior_counts, so that the replay's priors are the engine's, vote for vote.

Routing (`routing=True`, `flask replay --routing`): the live engine gives each annotator the least certain item
they may take (engine/routing.py). Replayed, the annotators ask in the order their votes came, and each request
takes that annotator's stored vote on the item the routing would have given them (`_routed`): the same votes, in
another order within each item, and so other stops.

Reported: the votes of the full campaign (its first k per item) and those used, the share saved, the units whose
gold differs from their gold on the full votes (count and share), Krippendorff's alpha on the full votes and on the
votes used (units rated twice or more, as agreement.py computes it), and, for units whose true value is known,
the accuracy of the gold on both.
"""
from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotator.analysis.agreement import krippendorff_alpha

# The rules and their one decision live in core/stopping.py, which the live engine reads too; re-exported here.
from annotator.core.stopping import KINDS as KINDS
from annotator.core.stopping import (
    NO_GROUP,
    Domain,
    Gold,
    GroupCounts,
    Posterior,
    Priored,
    Settled,
    Stopping,
    certainty,
    item_stops,
    same,
)
from annotator.core.stopping import StoppingError as StoppingError
from annotator.core.stopping import parse_stopping as parse_stopping

UNVOTED = -1.0   # the routing's rank of an item with no vote taken: before every voted one


@dataclass(frozen=True)
class Vote:
    item: Hashable
    coder: Hashable
    values: Mapping[Hashable, str]   # unit -> the value this vote gave it


@dataclass
class Replay:
    stopping: str
    k: int
    items: int
    units: int
    votes_full: int              # the first k votes of every item
    votes_used: int
    votes_beyond_k: int
    gold_changed: int            # units whose gold on the votes used is not their gold on the full votes
    alpha_full: float | None
    alpha_used: float | None
    truth_units: int = 0         # units whose true value is known
    correct_full: int = 0
    correct_used: int = 0
    changed: list[tuple[Any, Any]] = field(default_factory=list)   # (item, unit) of each changed gold
    routing: bool = False        # the votes taken in the routing's order (replay._routed), not as they came
    stopped_items: list[Any] = field(default_factory=list)   # the items the rule stopped, in the order they came

    @property
    def saved_share(self) -> float:
        return (self.votes_full - self.votes_used) / self.votes_full if self.votes_full else 0.0

    @property
    def gold_changed_share(self) -> float:
        return self.gold_changed / self.units if self.units else 0.0

    def accuracy(self, used: bool) -> float | None:
        if not self.truth_units:
            return None
        return (self.correct_used if used else self.correct_full) / self.truth_units

    def to_dict(self) -> dict[str, Any]:
        return {"stopping": self.stopping, "routing": self.routing, "k": self.k, "items": self.items,
                "units": self.units,
                "votes_full": self.votes_full, "votes_used": self.votes_used,
                "saved_share": self.saved_share, "votes_beyond_k": self.votes_beyond_k,
                "gold_changed": self.gold_changed, "gold_changed_share": self.gold_changed_share,
                "alpha_before": self.alpha_full, "alpha_after": self.alpha_used,
                "truth_units": self.truth_units, "accuracy_full": self.accuracy(False),
                "accuracy_used": self.accuracy(True)}


@dataclass
class _Item:
    taken: int = 0           # votes replayed (at most k)
    used: int = 0            # votes used before the item stopped
    stopped: bool = False
    full: dict[Hashable, Counter[str]] = field(default_factory=dict)
    kept: dict[Hashable, Counter[str]] = field(default_factory=dict)
    given: dict[Hashable, list[tuple[Any, str]]] = field(default_factory=dict)   # unit -> (coder, value) used


def replay(votes: Iterable[Vote], gold: Gold, k: int, stopping: Stopping, domain: Domain,
           posterior: Posterior | None = None, truth: Mapping[tuple[Any, Any], str] | None = None,
           level: str = "nominal", order: Sequence[str] = (), routing: bool = False,
           priored: Priored | None = None, groups: Mapping[Hashable, str] | None = None) -> Replay:
    """Replay `votes` (in the order they came) under `stopping`; `domain` and `posterior` as the module says.

    `truth`: (item, unit) -> the true value, where known. `level` (and for "ordinal" the values' `order`, lowest
    first): Krippendorff's alpha's level of measurement. `routing`: the votes are taken in the order the live
    routing would have taken them (`_routed`), not the order they came. With `prior_by`, `priored` is the model's
    posterior given a unit's priors (instead of `posterior`) and `groups` each item's group key (none: NO_GROUP)."""
    if k < 1:
        raise ValueError("k must be at least 1")
    if stopping.prior_by is not None and priored is None:
        raise ValueError("a prior per group needs a model's posterior given the priors")
    if stopping.kind == "confidence" and posterior is None and stopping.prior_by is None:
        raise ValueError("the confidence rule needs a model's posterior")
    decided = Settled(gold, domain)   # the live engine decides with the same (engine/stopping.py)
    items: dict[Hashable, _Item] = {}
    beyond = 0
    within: list[Vote] = []
    for vote in votes:
        state = items.setdefault(vote.item, _Item())
        if state.taken >= k:
            beyond += 1
            continue
        state.taken += 1
        for unit, value in vote.values.items():
            state.full.setdefault(unit, Counter())[value] += 1
        within.append(vote)

    counts = GroupCounts() if stopping.prior_by is not None else None
    key = groups or {}

    def model(item: Hashable) -> Posterior | None:
        """The posterior the rule reads for `item` now: with prior_by, the model's given the priors the counts so
        far give its units (the engine's, after the same votes)."""
        if counts is None or priored is None:
            return posterior
        state, group = items[item], key.get(item, NO_GROUP)
        return lambda unit, given: priored(unit, given, counts.prior(
            unit, group, domain(unit), state.kept.get(unit, Counter()), stopping.prior_weight))

    def sure(item: Hashable) -> float | None:
        """The item's certainty as the engine writes it after a vote (None: taken no vote yet; routed first)."""
        state = items[item]
        if state.stopped:
            return None
        return certainty(stopping, state.kept, state.given, state.used, k, gold, decided, model(item))

    for vote in (_routed(within, sure) if routing else within):
        state = items[vote.item]
        if state.stopped:
            continue
        state.used += 1
        for unit, value in vote.values.items():
            state.kept.setdefault(unit, Counter())[value] += 1
            state.given.setdefault(unit, []).append((vote.coder, value))
            if counts is not None:   # the engine counts a stored vote before it decides
                counts.add(unit, key.get(vote.item, NO_GROUP), value)
        state.stopped = item_stops(stopping, state.kept, state.given, state.used, k, gold, decided, model(vote.item))
    return _report(items, gold, k, stopping, beyond, truth or {}, level, order, routing)


def _routed(votes: Sequence[Vote], sure: Callable[[Hashable], float | None]) -> Iterator[Vote]:
    """The votes in the order the live routing (engine/routing.py) would have taken them, simulated.

    The annotators ask in the order their stored votes came: each stored vote is one request of its annotator.
    A request is served the item the routing would give: among the items that hold a vote of this annotator not
    taken yet and have not stopped, one with no vote taken first, else the least certain (`sure`, read after each
    vote as the engine writes it); ties go to the item that came first (the engine breaks them in an order of the
    annotator's own, which a replay has no reason to imitate). That vote is taken next. A request with nothing to
    serve is lost, as a live annotator told "nothing left" would be. Every vote of an item that never stops is
    taken in the end: an annotator asks as often as they voted, and only their votes on stopped items are left.
    Lazy heaps, one per annotator: an entry is stale when the item's certainty changed since it was pushed."""
    first: dict[Hashable, int] = {}
    waiting: dict[Hashable, dict[Hashable, Vote]] = {}      # annotator -> item -> their vote not taken yet
    heaps: dict[Hashable, list[tuple[float, int, int, Hashable]]] = {}
    version: dict[Hashable, int] = {}
    for vote in votes:
        first.setdefault(vote.item, len(first))
        version.setdefault(vote.item, 0)
        waiting.setdefault(vote.coder, {})[vote.item] = vote
        heapq.heappush(heaps.setdefault(vote.coder, []), (UNVOTED, first[vote.item], 0, vote.item))
    voters: dict[Hashable, set[Hashable]] = {}
    for coder, mine in waiting.items():
        for item in mine:
            voters.setdefault(item, set()).add(coder)
    for vote in votes:
        coder = vote.coder
        heap, mine = heaps[coder], waiting[coder]
        while heap:
            _, _, seen, item = heapq.heappop(heap)
            if seen == version[item] and item in mine:
                break
        else:
            continue   # nothing left for this annotator
        taken = mine.pop(item)
        voters[item].discard(coder)
        yield taken
        version[item] += 1
        now = sure(item)
        if now is None:   # stopped: nobody is routed to it again
            continue
        for other in voters[item]:
            heapq.heappush(heaps[other], (now, first[item], version[item], item))


def _report(items: Mapping[Hashable, _Item], gold: Gold, k: int, stopping: Stopping, beyond: int,
            truth: Mapping[tuple[Any, Any], str], level: str, order: Sequence[str], routing: bool) -> Replay:
    changed: list[tuple[Any, Any]] = []
    units = truth_units = correct_full = correct_used = 0
    for item, state in items.items():
        for unit, counts in state.full.items():
            units += 1
            kept = state.kept.get(unit, Counter())
            full_gold = gold(unit, counts, sum(counts.values()))
            used_gold = gold(unit, kept, sum(kept.values()))
            if not same(full_gold, used_gold):
                changed.append((item, unit))
            if (item, unit) in truth:
                truth_units += 1
                correct_full += str(full_gold) == str(truth[(item, unit)])
                correct_used += str(used_gold) == str(truth[(item, unit)])
    return Replay(stopping.text(), k, len(items), units, sum(s.taken for s in items.values()),
                  sum(s.used for s in items.values()), beyond, len(changed),
                  _alpha(items, level, order, used=False), _alpha(items, level, order, used=True),
                  truth_units, correct_full, correct_used, changed, routing,
                  [item for item, state in items.items() if state.stopped])


def _alpha(items: Mapping[Hashable, _Item], level: str, order: Sequence[str], used: bool) -> float | None:
    """Krippendorff's alpha over every unit (as agreement.py computes it: from the units x values counts)."""
    import pandas as pd

    rows = [((item, unit), n, value) for item, state in items.items()
            for unit, counts in (state.kept if used else state.full).items()
            for value, count in counts.items() for n in range(count)]
    frame = pd.DataFrame({"unit": pd.Series([str(r[0]) for r in rows], dtype=object),
                          "coder": [r[1] for r in rows], "value": [r[2] for r in rows]})
    frame.attrs["level"] = level
    if order:
        frame.attrs["order"] = list(order)
    return krippendorff_alpha(frame).value
