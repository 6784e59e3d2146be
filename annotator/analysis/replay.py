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

Reported: the votes of the full campaign (its first k per item) and those used, the share saved, the units whose
gold differs from their gold on the full votes (count and share), Krippendorff's alpha on the full votes and on the
votes used (units rated twice or more, as agreement.py computes it), and, for units whose true value is known,
the accuracy of the gold on both.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotator.analysis.agreement import krippendorff_alpha

Gold = Callable[[Hashable, Mapping[str, int], int], Any]          # (unit, counts of values, n) -> gold
Domain = Callable[[Hashable], Sequence[str]]                        # unit -> the values an answer may give it
Posterior = Callable[[Hashable, Sequence[tuple[Any, str]]], Mapping[str, float]]  # (unit, (coder, value)...) -> P

KINDS = ("decided", "confidence")


class StoppingError(ValueError):
    """A stopping rule written wrongly; the message says what is expected."""


@dataclass(frozen=True)
class Stopping:
    kind: str                 # "decided" or "confidence"
    threshold: float = 0.0    # confidence: the posterior to reach
    min_votes: int = 0        # confidence: the votes an item needs before it may stop

    def text(self) -> str:
        return self.kind if self.kind == "decided" else f"confidence:{self.threshold:g}:{self.min_votes}"


def parse_stopping(text: str) -> Stopping:
    """`decided` or `confidence:P:M` (P above 0 and below 1, M a whole number of at least 1)."""
    parts = text.strip().split(":")
    if parts == ["decided"]:
        return Stopping("decided")
    if parts[0] == "confidence":
        if len(parts) != 3:
            raise StoppingError(f"{text!r}: confidence takes a posterior and a least number of votes, "
                                "confidence:0.95:3")
        try:
            threshold, least = float(parts[1]), int(parts[2])
        except ValueError:
            raise StoppingError(f"{text!r}: confidence:P:M needs a number P and a whole number M, "
                                "confidence:0.95:3") from None
        if not 0 < threshold < 1 or least < 1:
            raise StoppingError(f"{text!r}: P must be above 0 and below 1, and M at least 1")
        return Stopping("confidence", threshold, least)
    raise StoppingError(f"{text!r} is not a stopping rule: use decided or confidence:P:M (confidence:0.95:3)")


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
        return {"stopping": self.stopping, "k": self.k, "items": self.items, "units": self.units,
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
           level: str = "nominal", order: Sequence[str] = ()) -> Replay:
    """Replay `votes` (in the order they came) under `stopping`; `domain` and `posterior` as the module says.

    `truth`: (item, unit) -> the true value, where known. `level` (and for "ordinal" the values' `order`, lowest
    first): Krippendorff's alpha's level of measurement."""
    if k < 1:
        raise ValueError("k must be at least 1")
    if stopping.kind == "confidence" and posterior is None:
        raise ValueError("the confidence rule needs a model's posterior")
    decided = _Decided(gold, domain)
    items: dict[Hashable, _Item] = {}
    beyond = 0
    for vote in votes:
        state = items.setdefault(vote.item, _Item())
        if state.taken >= k:
            beyond += 1
            continue
        state.taken += 1
        for unit, value in vote.values.items():
            state.full.setdefault(unit, Counter())[value] += 1
        if state.stopped:
            continue
        state.used += 1
        for unit, value in vote.values.items():
            state.kept.setdefault(unit, Counter())[value] += 1
            state.given.setdefault(unit, []).append((vote.coder, value))
        if stopping.kind == "decided":
            state.stopped = all(decided(unit, counts, k - state.used) for unit, counts in state.kept.items())
        else:
            assert posterior is not None
            state.stopped = state.used >= stopping.min_votes and all(
                _confident(gold(unit, counts, sum(counts.values())), posterior(unit, state.given[unit]),
                           stopping.threshold) for unit, counts in state.kept.items())
    return _report(items, gold, k, stopping, beyond, truth or {}, level, order)


class _Decided:
    """Whether a unit's gold is settled: the same after any r' <= r further votes, whatever they say (cached:
    a big campaign has few distinct (unit, counts, r) states)."""

    def __init__(self, gold: Gold, domain: Domain):
        self.gold, self.domain = gold, domain
        self.cache: dict[tuple[Hashable, tuple[tuple[str, int], ...], int], bool] = {}

    def __call__(self, unit: Hashable, counts: Counter[str], remaining: int) -> bool:
        key = (unit, tuple(sorted(counts.items())), remaining)
        if key not in self.cache:
            self.cache[key] = self._settled(unit, counts, remaining)
        return self.cache[key]

    def _settled(self, unit: Hashable, counts: Counter[str], remaining: int) -> bool:
        n = sum(counts.values())
        now = self.gold(unit, counts, n)
        values = sorted(set(self.domain(unit)) | set(counts))
        for more in range(1, remaining + 1):
            for added in itertools.combinations_with_replacement(values, more):
                if not same(self.gold(unit, counts + Counter(added), n + more), now):
                    return False
        return True


def same(a: Any, b: Any) -> bool:
    """Equal golds; two NaN scores (no votes) are the same."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _confident(gold: Any, posterior: Mapping[str, float], threshold: float) -> bool:
    return isinstance(gold, str) and posterior.get(gold, 0.0) >= threshold


def _report(items: Mapping[Hashable, _Item], gold: Gold, k: int, stopping: Stopping, beyond: int,
            truth: Mapping[tuple[Any, Any], str], level: str, order: Sequence[str]) -> Replay:
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
                  truth_units, correct_full, correct_used, changed)


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
