"""Stopping rules: when an item's votes so far are enough. One decision, read by the replay of a finished campaign
(analysis/replay.py) and by the live engine after each vote (engine/stopping.py), so that what a replay measures
is what the engine does.

Pure and light (the standard library only): the engine runs it inside a submit, under the item's lock.

  decided          an item stops when no votes still to come can change the gold of any of its units: for every
                   number r of further votes from 0 to the votes still allowed, and every way r annotators could
                   answer (each value the question allows, any mix), the gold rule gives the gold it gives now.
  confidence       an item stops after at least `min_votes` votes when, for every unit, the annotators' model
                   (the one-coin model: each annotator right with their own accuracy, else any other value) gives
                   the gold its rule gives now a posterior of at least `threshold`.
  prior_by         (confidence) the model's class priors of an item's unit are learned from the votes on the other
                   items of its group (the items whose `prior_by` field has the same value, `group_key`), shrunk
                   towards the project's shares (`shrunk_prior`); the counts are the live engine's table
                   prior_counts and the replay's `GroupCounts`, kept in the order the votes are taken.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Gold = Callable[[Hashable, Mapping[str, int], int], Any]          # (unit, counts of values, n) -> gold
Domain = Callable[[Hashable], Sequence[str]]                        # unit -> the values an answer may give it
Posterior = Callable[[Hashable, Sequence[tuple[Any, str]]], Mapping[str, float]]  # (unit, (coder, value)...) -> P
# prior_by: (unit, (coder, value)..., the unit's class priors) -> P
Priored = Callable[[Hashable, Sequence[tuple[Any, str]], Mapping[str, float]], Mapping[str, float]]

KINDS = ("decided", "confidence")
TINY = 1e-300


class StoppingError(ValueError):
    """A stopping rule written wrongly; the message says what is expected."""


PRIOR_WEIGHT = 5.0   # prior_by: the votes the project's shares weigh in a group's prior (the measured design's)


@dataclass(frozen=True)
class Stopping:
    kind: str                 # "decided" or "confidence"
    threshold: float = 0.0    # confidence: the posterior to reach
    min_votes: int = 0        # confidence: the votes an item needs before it may stop
    prior_by: str | None = None          # confidence: the item field whose value groups items sharing a prior
    prior_weight: float = PRIOR_WEIGHT   # prior_by: the project's shares count as this many votes of the group

    def text(self) -> str:
        if self.kind == "decided":
            return self.kind
        text = f"confidence:{self.threshold:g}:{self.min_votes}"
        if self.prior_by is not None:
            text += f":{self.prior_by}" + (f":{self.prior_weight:g}" if self.prior_weight != PRIOR_WEIGHT else "")
        return text


def parse_stopping(text: str) -> Stopping:
    """`decided` or `confidence:P:M` (P above 0 and below 1, M a whole number of at least 1), optionally with the
    item field of a prior per group and its weight: `confidence:P:M:FIELD` or `confidence:P:M:FIELD:W` (W above 0,
    5 when not given)."""
    parts = text.strip().split(":")
    if parts == ["decided"]:
        return Stopping("decided")
    if parts[0] == "confidence":
        if len(parts) not in (3, 4, 5):
            raise StoppingError(f"{text!r}: confidence takes a posterior and a least number of votes, and "
                                "optionally an item field and a weight, confidence:0.95:3 or confidence:0.985:2:word")
        try:
            threshold, least = float(parts[1]), int(parts[2])
        except ValueError:
            raise StoppingError(f"{text!r}: confidence:P:M needs a number P and a whole number M, "
                                "confidence:0.95:3") from None
        if not 0 < threshold < 1 or least < 1:
            raise StoppingError(f"{text!r}: P must be above 0 and below 1, and M at least 1")
        if len(parts) == 3:
            return Stopping("confidence", threshold, least)
        field = parts[3].strip()
        if not field:
            raise StoppingError(f"{text!r}: the fourth part names the item field of the prior, "
                                "confidence:0.985:2:word")
        weight = PRIOR_WEIGHT
        if len(parts) == 5:
            try:
                weight = float(parts[4])
            except ValueError:
                raise StoppingError(f"{text!r}: the prior's weight must be a number, confidence:0.985:2:word:5") \
                    from None
            if not 0 < weight < math.inf:
                raise StoppingError(f"{text!r}: the prior's weight must be above 0, confidence:0.985:2:word:5")
        return Stopping("confidence", threshold, least, field, weight)
    raise StoppingError(f"{text!r} is not a stopping rule: use decided or confidence:P:M (confidence:0.95:3), "
                        "or confidence:P:M:FIELD for a prior per group of items (confidence:0.985:2:word)")


# --- prior_by: a prior per group of items -------------------------------------------------------------------------

NO_GROUP = ""        # the group key of an item whose field is missing or blank; also the key of the project's row
KEY_LENGTH = 200     # a longer key is kept as its start and a digest of the whole (an index holds the key)


def group_key(value: Any) -> str:
    """The group of an item whose `prior_by` field holds `value`: text with its white space runs made one space,
    trimmed and case-folded ("The", " the" and "THE" are one group: the measured design lower-cased the word);
    a number, true/false, a list or a mapping as its JSON text. Missing (None) or blank: NO_GROUP, the item's prior
    is the project's shares."""
    if value is None:
        return NO_GROUP
    text = " ".join(value.split()).casefold() if isinstance(value, str) else \
        json.dumps(value, sort_keys=True, ensure_ascii=False)
    if len(text) > KEY_LENGTH:
        text = text[:KEY_LENGTH - 41] + "#" + hashlib.sha1(text.encode("utf-8")).hexdigest()
    return text


def shrunk_prior(classes: Sequence[str], group: Mapping[str, int], project: Mapping[str, int],
                 own: Mapping[str, int], weight: float) -> dict[str, float]:
    """A unit's class priors under `prior_by`: its group's share of each class among the votes on the OTHER items
    of the group, shrunk towards the project's shares with `weight` votes; the project's shares are add-one
    (every class at least a little likely) over the votes on every other item.

        project_c = (P_c - own_c + 1) / (P - own + K)
        prior_c   = (G_c - own_c + weight * project_c) / (G - own + weight)

    `group` and `project` hold the counts with the item's own votes in (as the table keeps them), `own` the item's
    own votes, taken out here so that they count once, in the likelihood. An item without a group passes an empty
    `group`: its prior is the project's shares. Votes for a value outside `classes` are not counted."""
    k = len(classes)
    others = {c: max(int(project.get(c, 0)) - int(own.get(c, 0)), 0) for c in classes}
    total = sum(others.values())
    base = {c: (others[c] + 1) / (total + k) for c in classes}
    mates = {c: max(int(group.get(c, 0)) - int(own.get(c, 0)), 0) for c in classes}
    shared = sum(mates.values())
    return {c: (mates[c] + weight * base[c]) / (shared + weight) for c in classes}


class GroupCounts:
    """The replay's twin of the engine's table prior_counts: votes per (unit, group key, value), and per (unit,
    value) over the project (the row of key NO_GROUP), added as the votes are taken."""

    def __init__(self) -> None:
        self.counts: dict[tuple[Hashable, str], Counter[str]] = {}

    def add(self, unit: Hashable, key: str, value: str) -> None:
        self.counts.setdefault((unit, NO_GROUP), Counter())[value] += 1
        if key != NO_GROUP:
            self.counts.setdefault((unit, key), Counter())[value] += 1

    def prior(self, unit: Hashable, key: str, classes: Sequence[str], own: Mapping[str, int],
              weight: float) -> dict[str, float]:
        group = self.counts.get((unit, key), Counter()) if key != NO_GROUP else Counter()
        return shrunk_prior(classes, group, self.counts.get((unit, NO_GROUP), Counter()), own, weight)


def same(a: Any, b: Any) -> bool:
    """Equal golds; two NaN scores (no votes) are the same."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


class Settled:
    """Whether a unit's gold is settled: the same after any r' <= r further votes, whatever they say (cached:
    a big campaign has few distinct (unit, counts, r) states)."""

    def __init__(self, gold: Gold, domain: Domain):
        self.gold, self.domain = gold, domain

        self.cache: dict[tuple[Hashable, tuple[tuple[str, int], ...], int], int] = {}

    def __call__(self, unit: Hashable, counts: Counter[str], remaining: int) -> bool:
        return self.margin(unit, counts, remaining) > remaining

    def margin(self, unit: Hashable, counts: Counter[str], remaining: int) -> int:
        """The fewest further votes, at most `remaining`, that could change the unit's gold; `remaining + 1` when
        none can (settled). The one search serves both the stop and the routing's certainty (`certainty`)."""
        key = (unit, tuple(sorted(counts.items())), remaining)
        if key not in self.cache:
            if len(self.cache) > 100_000:   # a long-lived engine process: bounded
                self.cache.clear()
            self.cache[key] = self._margin(unit, counts, remaining)
        return self.cache[key]

    def _margin(self, unit: Hashable, counts: Counter[str], remaining: int) -> int:
        n = sum(counts.values())
        now = self.gold(unit, counts, n)
        values = sorted(set(self.domain(unit)) | set(counts))
        for more in range(1, remaining + 1):
            for added in itertools.combinations_with_replacement(values, more):
                if not same(self.gold(unit, counts + Counter(added), n + more), now):
                    return more
        return remaining + 1


def confident(gold: Any, posterior: Mapping[str, float], threshold: float) -> bool:
    """Whether the model gives the rule's gold at least `threshold`; a gold that is not a value never is."""
    return isinstance(gold, str) and _gold_posterior(gold, posterior) >= threshold


def item_stops(stopping: Stopping, counts: Mapping[Hashable, Counter[str]],
               given: Mapping[Hashable, Sequence[tuple[Any, str]]], votes: int, cap: int, gold: Gold,
               settled: Settled, posterior: Posterior | None = None) -> bool:
    """The decision: whether an item with `votes` votes (its units' `counts`, and per unit the (coder, value)
    `given`) may stop under `stopping`, with at most `cap` votes in all. An item with no unit never stops."""
    if not counts:
        return False
    if stopping.kind == "decided":
        return all(settled(unit, unit_counts, cap - votes) for unit, unit_counts in counts.items())
    if posterior is None:
        raise ValueError("the confidence rule needs a model's posterior")
    return votes >= stopping.min_votes and all(
        confident(gold(unit, unit_counts, sum(unit_counts.values())), posterior(unit, given.get(unit, ())),
                  stopping.threshold) for unit, unit_counts in counts.items())


COMPLETE = 2.0   # the certainty written on an item that takes no more votes (stopped or at its cap): routed last


def certainty(stopping: Stopping, counts: Mapping[Hashable, Counter[str]],
              given: Mapping[Hashable, Sequence[tuple[Any, str]]], votes: int, cap: int, gold: Gold,
              settled: Settled, posterior: Posterior | None = None) -> float:
    """How sure an item's gold is under `stopping`, from 0 (the next vote may change it) up; the routing serves the
    least sure first (engine/routing.py), the item where a vote is worth most. An item's figure is its least sure
    unit's, since it stops only when all are.

      decided      (m - 1) / r per unit, r the votes still allowed (cap - votes) and m the fewest further votes
                   that could change the unit's gold (Settled.margin): the share of the votes left that could all go
                   against the gold without changing it. 0 for a tie or a single vote of a majority; 1 or more
                   exactly when the unit is settled (m > r), i.e. when `decided` stops it.
      confidence   the model's posterior of the unit's gold (0 when the gold is not a value, e.g. undecided): what
                   the rule compares with its threshold.
    An item with no unit yet is 0."""
    if not counts:
        return 0.0
    remaining = cap - votes
    if stopping.kind == "decided":
        if remaining <= 0:
            return 1.0
        return min((settled.margin(unit, unit_counts, remaining) - 1) / remaining
                   for unit, unit_counts in counts.items())
    if posterior is None:
        raise ValueError("the confidence rule needs a model's posterior")
    return min(_gold_posterior(gold(unit, unit_counts, sum(unit_counts.values())),
                               posterior(unit, given.get(unit, ()))) for unit, unit_counts in counts.items())


def _gold_posterior(gold: Any, posterior: Mapping[str, float]) -> float:
    return float(posterior.get(gold, 0.0)) if isinstance(gold, str) else 0.0


def coin_posterior(classes: Sequence[str], priors: Sequence[float], accuracy: Mapping[Any, float], default: float,
                   given: Sequence[tuple[Any, str]]) -> dict[str, float]:
    """A unit's class posterior under the one-coin model: the priors times, per (coder, value) vote, a_w for the
    class it gave and (1 - a_w) / (K - 1) for each other class; a coder not in `accuracy` counts with `default`,
    a value outside the classes says nothing and is skipped."""
    k = len(classes)
    if k == 0:
        return {}
    logs = [math.log(max(float(p), TINY)) for p in priors]
    position = {c: i for i, c in enumerate(classes)}
    for coder, value in given:
        if value not in position:
            continue
        a = accuracy.get(coder, default)
        wrong = math.log(max((1 - a) / (k - 1), TINY)) if k > 1 else 0.0
        right = math.log(max(a, TINY))
        logs = [x + (right if i == position[value] else wrong) for i, x in enumerate(logs)]
    top = max(logs)
    weights = [math.exp(x - top) for x in logs]
    total = sum(weights)
    return {c: w / total for c, w in zip(classes, weights)}
