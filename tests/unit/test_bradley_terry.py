"""Bradley-Terry strengths: a published example, ties as half wins, and the fits that do not exist."""
from __future__ import annotations

import pytest

from annotator.estimation.bradley_terry import Comparison, fit, tally

# Agresti, Categorical Data Analysis (2nd ed., 2002), §10.6, Table 10.10: the 1987 American League East.
# WINS[i][j] = games team i won against team j (13 games a pair).
TEAMS = ["Milwaukee", "Detroit", "Toronto", "New York", "Boston", "Cleveland", "Baltimore"]
WINS = [[0, 7, 9, 7, 7, 9, 11], [6, 0, 7, 5, 11, 9, 9], [4, 6, 0, 7, 7, 8, 12], [6, 8, 6, 0, 6, 7, 10],
        [6, 2, 6, 7, 0, 7, 12], [4, 4, 5, 6, 6, 0, 6], [2, 4, 1, 3, 1, 7, 0]]
# Table 10.11 (and BradleyTerry2's BTm on its `baseball` data): Baltimore is the reference, at 0.
PUBLISHED = {"Milwaukee": 1.5814, "Detroit": 1.4364, "Toronto": 1.2945, "New York": 1.2476, "Boston": 1.1077,
             "Cleveland": 0.6839, "Baltimore": 0.0}


def baseball() -> list[Comparison]:
    return [Comparison(TEAMS[i], TEAMS[j], WINS[i][j], WINS[j][i]) for i in range(7) for j in range(i + 1, 7)]


def test_the_1987_american_league_east_gives_agrestis_estimates_to_four_decimals() -> None:
    result = fit(TEAMS, baseball())
    assert result.defined
    assert {team: round(value, 4) for team, value in result.estimate.items()} == PUBLISHED
    # "The standard errors are about 0.3" (Agresti; BradleyTerry2's test rounds them to 0.3).
    assert {round(result.standard_error[t], 1) for t in TEAMS[:-1]} == {0.3}
    assert [t for t, _ in sorted(result.rank.items(), key=lambda kv: kv[1])] == TEAMS


def test_strengths_are_on_a_scale_that_sums_to_100_with_errors() -> None:
    result = fit(TEAMS, baseball())
    assert sum(result.strength.values()) == pytest.approx(100.0)
    assert result.strength["Milwaukee"] > result.strength["Detroit"] > result.strength["Baltimore"]
    assert all(0 < e < result.strength[t] for t, e in result.strength_error.items())


def test_a_tie_is_half_a_win_to_each_side_or_dropped() -> None:
    outcomes = [("A", "B", "A"), ("A", "B", None), ("B", "A", "B"), ("B", "A", None)]
    assert tally(outcomes) == [Comparison("A", "B", 2.0, 2.0)]
    assert tally(outcomes, ties="drop") == [Comparison("A", "B", 1.0, 1.0)]
    assert tally([("A", "B", None)], ties="drop") == []
    with pytest.raises(ValueError, match="neither"):
        tally([("A", "B", "C")])


def test_equal_records_give_equal_strengths_and_shared_ranks() -> None:
    result = fit(["A", "B", "C"], tally([("A", "B", None), ("B", "C", None), ("A", "C", None)]))
    assert result.strength == pytest.approx({"A": 100 / 3, "B": 100 / 3, "C": 100 / 3})
    assert set(result.rank.values()) == {1}


def test_half_wins_move_the_fit_as_the_model_says() -> None:
    # 3 wins and a tie against 1 win: 3.5 to 1.5, so b_A - b_B = log(3.5 / 1.5).
    result = fit(["A", "B"], tally([("A", "B", "A")] * 3 + [("A", "B", None), ("A", "B", "B")]))
    assert result.estimate["A"] == pytest.approx(__import__("math").log(3.5 / 1.5))


@pytest.mark.parametrize("players, outcomes, words", [
    (["A", "B", "C"], [("A", "B", "A"), ("A", "C", "A"), ("B", "C", "B"), ("C", "B", "C")], "A never lost"),
    (["A", "B", "C"], [("A", "B", "A"), ("B", "A", "B"), ("A", "C", "A"), ("B", "C", "B")], "C never won"),
    (["A", "B", "C", "D"], [("A", "B", "A"), ("B", "A", "B"), ("C", "D", "C"), ("D", "C", "D")],
     "fall apart into groups never compared with each other: A, B and C, D"),
    (["A", "B", "C", "D"], [("A", "B", "A"), ("B", "A", "B"), ("C", "D", "C"), ("D", "C", "D"), ("A", "C", "A"),
                            ("B", "D", "B")], "A, B never lost to C, D"),
    (["A"], [], "fewer than two systems"),
])
def test_fits_that_do_not_exist_are_explained_in_words(players, outcomes, words) -> None:
    result = fit(players, tally(outcomes))
    assert not result.defined and words in result.undefined_because
    assert result.strength == {} and result.rank == {}
