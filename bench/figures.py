"""The figures of one run, from the request records: rates, latencies, statuses.

Latency is per request on the client, from sending to reading the whole body; percentiles are
nearest-rank. submits/s = submits answered 201 / the load phase's wall time; "steady" is the rate
between the 10th and the 90th percentile of completions (no ramp-up, no tail). `ceiling_per_s` is
the submits/s of the empty-Flask ceiling measured in the same invocation, so every engine run says
which share of what Flask + gunicorn + these clients alone can do it reached.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from annotator.engine.invariants import Invariant

from .clients import Record


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile of an ascending list (NaN when empty)."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


@dataclass
class Figures:
    label: str
    wall: float = 0.0
    submits_201: int = 0
    submits_per_s: float = 0.0
    steady_per_s: float = 0.0
    pairs_per_s: float = 0.0
    requests: int = 0
    statuses: dict[str, Counter] = field(default_factory=dict)
    latency_ms: dict[str, dict[str, float]] = field(default_factory=dict)
    invariants: list[Invariant] = field(default_factory=list)
    outcomes: Counter = field(default_factory=Counter)
    slices: list[float] = field(default_factory=list)  # submits/s in each tenth of the wall time
    cpu: dict[str, float] = field(default_factory=dict)
    ceiling_per_s: float | None = None  # the ceiling run's submits/s (None for the ceiling itself)
    # gunicorn's memory from /proc (MB): {"at start": memory_of(...), "after the run": ...}
    memory: dict[str, dict[str, object]] = field(default_factory=dict)
    note: str = ""

    @property
    def ok(self) -> bool:
        return all(c.passed for c in self.invariants)

    @property
    def ceiling_ratio(self) -> float:
        """This run's submits/s as a share of the ceiling's (NaN when there is none to compare with)."""
        return self.submits_per_s / self.ceiling_per_s if self.ceiling_per_s else math.nan


def _latencies(records: list[Record]) -> dict[str, dict[str, float]]:
    by_kind: dict[str, list[float]] = defaultdict(list)
    for r in records:
        ms = (r.end - r.start) * 1000
        by_kind[r.kind].append(ms)
        if r.kind == "next":
            by_kind["next 200" if r.status == 200 else "next other"].append(ms)
    figures = {}
    for kind, values in by_kind.items():
        values.sort()
        figures[kind] = {"n": len(values), "mean": sum(values) / len(values), "p50": percentile(values, 50),
                         "p95": percentile(values, 95), "p99": percentile(values, 99), "max": values[-1]}
    return figures


def _rates(fig: Figures, ends: list[float], first: float) -> None:
    """submits/s overall, per tenth of the run, and between the 10th and 90th percentile of completions."""
    if fig.wall > 0:
        fig.submits_per_s = fig.submits_201 / fig.wall
        fig.pairs_per_s = len(ends) / fig.wall
        width = fig.wall / 10
        counts = Counter(min(int((end - first) / width), 9) for end in ends)
        fig.slices = [counts[n] / width for n in range(10)]
    if len(ends) >= 20:
        a, b = ends[len(ends) // 10], ends[len(ends) * 9 // 10]
        fig.steady_per_s = (len(ends) * 9 // 10 - len(ends) // 10) / (b - a) if b > a else math.nan


def figures_from(label: str, records: list[Record], outcome: dict[str, str]) -> Figures:
    fig = Figures(label, requests=len(records), outcomes=Counter(outcome.values()))
    if not records:
        return fig
    first = min(r.start for r in records)
    fig.wall = max(r.end for r in records) - first
    for r in records:
        fig.statuses.setdefault(r.kind, Counter())[r.status] += 1
    fig.latency_ms = _latencies(records)
    fig.submits_201 = sum(1 for r in records if r.kind == "submit" and r.status == 201)
    _rates(fig, sorted(r.end for r in records if r.kind == "submit" and r.status in (200, 201)), first)
    return fig
