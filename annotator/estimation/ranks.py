"""Ranks of values where equal values share a rank: Bradley-Terry's strengths and the shared tasks' scorers
rank alike. Here, below both, so that analysis needs nothing of the shared tasks to rank."""
from __future__ import annotations


def competition_ranks(values: list[float]) -> list[int]:
    """1 + the number of strictly better values ("1224" ranking: equal values share a rank)."""
    return [1 + sum(other > v for other in values) for v in values]
