"""KPA-2021 Track 1 leaderboard places against the overview paper's Table 2 (Matching Track results).

Friedman et al., "Overview of the 2021 Key Point Analysis Shared Task", Table 2: each model's strict and
relaxed mAP with its rank on each in brackets, and the Rank column, the place by the mean of the two ranks.
Two pairs of models have equal mean ranks and share a place: MatchTStm and mozhiwen (mean 5, both 5th, the
next is 7th) and BarH and np-quadrat (mean 12.5, both 13th, the next is 15th). Within a shared place the
table lists the higher mean mAP first.

One figure is adjusted: the table prints SMatchToPR's relaxed mAP as 0.927 but ranks it (4), the rank of
Enigma's 0.928, and builds the Rank column from those bracketed ranks (with 0.927 ranked 5th, SMatchToPR and
NLP@UIT would share the first place, not be 1st and 2nd). The two must have tied in the figures the ranks
came from, so SMatchToPR gets Enigma's 0.928 here.
"""
from __future__ import annotations

from annotator.lookups.scorers import SCORERS, ScoreReport, places, rank

# Table 2, rows in the table's order: model, Rank, strict mAP (r), relaxed mAP (r).
TABLE_2 = [
    ("SMatchToPR", 1, 0.789, 1, 0.928, 4),  # relaxed printed 0.927 (4): see the module docstring
    ("NLP@UIT", 2, 0.746, 3, 0.93, 3),
    ("ModrnTalk", 3, 0.754, 2, 0.902, 6),
    ("Enigma", 4, 0.739, 5, 0.928, 4),
    ("MatchTStm", 5, 0.745, 4, 0.902, 6),
    ("mozhiwen", 5, 0.681, 9, 0.948, 1),
    ("fengdoudou", 7, 0.676, 10, 0.944, 2),
    ("poledro", 8, 0.717, 6, 0.901, 8),
    ("Fibelkorn", 9, 0.706, 7, 0.872, 12),
    ("XLNet", 10, 0.684, 8, 0.869, 13),
    ("RoBERTa-LC", 11, 0.661, 13, 0.885, 10),
    ("pa_vincent", 12, 0.596, 15, 0.893, 9),
    ("BarH", 13, 0.674, 11, 0.865, 14),
    ("np-quadrat", 13, 0.601, 14, 0.877, 11),
    ("niksss", 15, 0.672, 12, 0.857, 15),
    ("SiamBERT", 16, 0.555, 16, 0.729, 16),
    ("yamenajjour", 17, 0.539, 17, 0.682, 17),
    ("danielwaechtleruni", 18, 0.39, 18, 0.601, 18),
]
SUBMITTED = sorted(TABLE_2, key=lambda row: row[0].lower())  # the order they reach the leaderboard: by name


def _reports() -> list[ScoreReport]:
    return [ScoreReport("kpa2021", {"strict": strict, "relaxed": relaxed, "p_at_50_strict": 0.0})
            for _, _, strict, _, relaxed, _ in SUBMITTED]


def test_equal_mean_ranks_share_a_place_as_in_table_2() -> None:
    got = dict(zip((row[0] for row in SUBMITTED), places("kpa2021", _reports())))
    assert got == {model: place for model, place, *_ in TABLE_2}
    assert (got["MatchTStm"], got["mozhiwen"], got["fengdoudou"]) == (5, 5, 7)
    assert (got["BarH"], got["np-quadrat"], got["niksss"]) == (13, 13, 15)


def test_the_leaderboard_lists_the_models_in_table_2s_order() -> None:
    """Within a shared place, the higher mean mAP first: MatchTStm (0.8235) before mozhiwen (0.8145), BarH
    (0.7695) before np-quadrat (0.739)."""
    assert [SUBMITTED[i][0] for i in rank("kpa2021", _reports())] == [row[0] for row in TABLE_2]


def test_the_mean_rank_column_is_the_mean_of_the_bracketed_ranks() -> None:
    mean_rank = SCORERS["kpa2021"].rules["mean_rank"].value
    assert mean_rank is not None
    got = mean_rank([r.metrics for r in _reports()])
    assert got == [(strict_rank + relaxed_rank) / 2 for *_, strict_rank, _, relaxed_rank in SUBMITTED]


def test_a_single_metric_ranking_shares_places_between_equal_values() -> None:
    """Table 2's relaxed mAP column: ModrnTalk and MatchTStm, 0.902, are both 6th, poledro 8th."""
    got = places("kpa2021", _reports(), by="relaxed")
    relaxed = {row[0]: place for row, place in zip(SUBMITTED, got)}
    assert (relaxed["ModrnTalk"], relaxed["MatchTStm"], relaxed["poledro"]) == (6, 6, 8)
    assert relaxed == {model: relaxed_rank for model, *_, relaxed_rank in TABLE_2}
