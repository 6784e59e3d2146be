"""Bradley-Terry strengths from paired comparisons, fitted with statsmodels, with the cases where no fit exists.

Why a module of its own: ranking by paired comparisons is a statistical method like agreement.py, used
by any HIT type that compares things two at a time. The model: P(i beats j) = exp(b_i) / (exp(b_i) + exp(b_j)),
fitted as a binomial GLM without intercept on +1/-1 indicator columns, the last player fixed at b = 0
(Agresti, Categorical Data Analysis, 2nd ed., §10.6). A tie counts as half a win to each side, so
wins may be fractional; they enter as proportions weighted by the number of comparisons.

The maximum-likelihood estimate exists only when every split of the players into two groups has a win
each way (Zermelo; Ford 1957): a player who never lost or never won, or comparisons that fall apart
into groups that never meet, leave it undefined. Then `fit` says so in words instead of returning
numbers that only reflect where the optimiser stopped.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from annotator.estimation.ranks import competition_ranks

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class Comparison:
    """`first` against `second`: wins of each (halves for ties)."""

    first: str
    second: str
    first_wins: float
    second_wins: float


@dataclass
class Strengths:
    players: list[str]
    estimate: dict[str, float] = field(default_factory=dict)        # b_i, the last player's fixed at 0
    standard_error: dict[str, float] = field(default_factory=dict)  # of b_i (0 for the reference)
    strength: dict[str, float] = field(default_factory=dict)        # 100 exp(b_i) / sum exp(b): sums to 100
    strength_error: dict[str, float] = field(default_factory=dict)  # delta-method error on that scale
    rank: dict[str, int] = field(default_factory=dict)              # 1 = strongest; equal strengths share
    comparisons: float = 0.0
    undefined_because: str | None = None

    @property
    def defined(self) -> bool:
        return self.undefined_because is None


def tally(outcomes: Iterable[tuple[str, str, str | None]], ties: str = "half") -> list[Comparison]:
    """Comparisons from (first, second, winner) outcomes; winner None is a tie (half each, or dropped)."""
    totals: dict[tuple[str, str], list[float]] = {}
    for first, second, winner in outcomes:
        key, flip = ((first, second), False) if first <= second else ((second, first), True)
        wins = totals.setdefault(key, [0.0, 0.0])
        if winner is None:
            if ties == "half":
                wins[0] += 0.5
                wins[1] += 0.5
        elif winner in (first, second):
            wins[(winner == first) == flip] += 1.0
        else:
            raise ValueError(f"winner {winner!r} is neither {first!r} nor {second!r}")
    return [Comparison(a, b, w[0], w[1]) for (a, b), w in sorted(totals.items()) if w[0] + w[1] > 0]


def _why_undefined(players: list[str], comparisons: list[Comparison]) -> str | None:
    """Why no finite maximum-likelihood fit exists, in words; None when it exists."""
    if len(players) < 2:
        return "fewer than two systems were compared"
    met: dict[str, set[str]] = {p: set() for p in players}
    beat: dict[str, set[str]] = {p: set() for p in players}       # p -> those p beat at least once
    beaten_by: dict[str, set[str]] = {p: set() for p in players}  # p -> those who beat p at least once
    for c in comparisons:
        met[c.first].add(c.second)
        met[c.second].add(c.first)
        for winner, loser, wins in ((c.first, c.second, c.first_wins), (c.second, c.first, c.second_wins)):
            if wins > 0:
                beat[winner].add(loser)
                beaten_by[loser].add(winner)
    everyone = set(players)
    group = _reach(players[0], met)
    if group != everyone:
        return (f"the comparisons fall apart into groups never compared with each other: "
                f"{', '.join(sorted(group))} and {', '.join(sorted(everyone - group))}")
    for which, verb in (([p for p in players if not beaten_by[p]], "lost"),
                        ([p for p in players if not beat[p]], "won")):
        if which:
            return f"{', '.join(which)} never {verb}, so no finite strength fits"
    # Everyone who transitively beat players[0] never lost to anyone outside that set, and everyone
    # players[0] transitively beat never beat anyone outside theirs: a fit needs both to be everyone.
    above = _reach(players[0], beaten_by)
    unbeaten = above if above != everyone else everyone - _reach(players[0], beat)
    if unbeaten:
        return (f"{', '.join(sorted(unbeaten))} never lost to {', '.join(sorted(everyone - unbeaten))}, so no "
                "finite strengths fit (every split of the systems needs a win each way)")
    return None


def _reach(start: str, edges: dict[str, set[str]]) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for nxt in edges[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def fit(players: Iterable[str], comparisons: list[Comparison]) -> Strengths:
    """The Bradley-Terry fit of `comparisons` among `players` (the last player is the reference, b = 0)."""
    import numpy as np
    players = list(dict.fromkeys(players))
    result = Strengths(players, comparisons=sum(c.first_wins + c.second_wins for c in comparisons))
    result.undefined_because = _why_undefined(players, comparisons)
    if not result.defined:
        return result
    index = {p: n for n, p in enumerate(players)}
    design = np.zeros((len(comparisons), len(players) - 1))
    for row, c in enumerate(comparisons):
        for player, sign in ((c.first, 1.0), (c.second, -1.0)):
            if index[player] < len(players) - 1:
                design[row, index[player]] = sign
    games = np.array([c.first_wins + c.second_wins for c in comparisons])
    share = np.array([c.first_wins for c in comparisons]) / games
    # Imported here, not at the top: only this needs statsmodels, and a server worker that never computes it
    # should not carry it (issue 12: every worker's memory counts; figures in
    # bench/results/2026-11-25-figures-from-docstrings.md).
    # The GLM's own modules, not `statsmodels.api`, which imports the whole library (1,272 modules against 841):
    # the demo's first pairwise admin page in a process took 1.1-1.4 s of CPU instead of 1.7-1.9 s.
    from statsmodels.genmod.families import Binomial
    from statsmodels.genmod.generalized_linear_model import GLM
    from statsmodels.tools.sm_exceptions import PerfectSeparationWarning

    with warnings.catch_warnings():
        # Separation is ruled out above; what statsmodels would flag now is a model that fits the data
        # exactly (e.g. nothing but ties), whose estimates are fine.
        warnings.simplefilter("ignore", PerfectSeparationWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        model = GLM(share, design, family=Binomial(), var_weights=games).fit()
    beta = np.append(np.asarray(model.params), 0.0)
    cov = np.zeros((len(players), len(players)))
    cov[:-1, :-1] = np.asarray(model.cov_params())
    p = np.exp(beta) / np.exp(beta).sum()
    jacobian = np.diag(p) - np.outer(p, p)
    strength_cov = jacobian @ cov @ jacobian.T
    ranks = competition_ranks([round(float(v), 12) for v in p])
    for n, player in enumerate(players):
        result.estimate[player] = float(beta[n])
        result.standard_error[player] = float(np.sqrt(cov[n, n]))
        result.strength[player] = float(100 * p[n])
        result.strength_error[player] = float(100 * np.sqrt(max(strength_cov[n, n], 0.0)))
        result.rank[player] = ranks[n]
    return result
