"""Who takes part in the KPA-2021 Track-2 projects, proposed from the rankings that decide it."""
from __future__ import annotations

import pytest

from annotator.core.errors import FormatError
from annotator.shared_tasks.kpa2021.track2_proposals import best_of, name_key, track_1_top
from tests.support.kpa_track2_tables import TABLE_2_TOP_10, TABLE_3_MAP, track_1_leaderboard


def test_the_3_best_by_matching_are_the_first_three_of_table_3() -> None:
    """Overview Table 3 (Generation Track), mAP: BarH 0.885, SMatchToPR 0.818, Enigma 0.491 are rows 1-3."""
    assert best_of(TABLE_3_MAP) == (["BarH", "SMatchToPR", "Enigma"], None)


def test_systems_without_a_judged_pair_are_never_proposed_and_a_tie_at_the_cut_is_said() -> None:
    chosen, note = best_of({"a": 0.5, "b": None, "c": 0.4, "d": 0.3, "e": 0.3})
    assert chosen == ["a", "c", "d"] and note == "e has the same mAP as d; add it to the list to compare it too"


def test_a_team_is_its_track_2_folder_whatever_the_case_and_signs() -> None:
    assert name_key("NLP@UIT") == name_key("nlp_uit") == name_key("Nlp-Uit") == "nlpuit"


def test_the_track_1_top_10_of_table_2_are_proposed(app) -> None:  # type: ignore[no-untyped-def]
    """Overview Table 2, Rank 1-10: SMatchToPR ... XLNet (MatchTStm and mozhiwen share rank 5); RoBERTa-LC (11)
    and pa_vincent (12) are left out."""
    proposed = track_1_top(str(track_1_leaderboard().id))
    assert list(proposed.options["only"]) == TABLE_2_TOP_10
    [table] = proposed.report.tables
    assert [row[1] for row in table.rows if row[-1] == "yes"] == TABLE_2_TOP_10
    assert [row[1] for row in table.rows][10:12] == ["RoBERTa-LC", "pa_vincent"]


def test_a_team_counts_once_by_its_best_place(app) -> None:  # type: ignore[no-untyped-def]
    from annotator.core.extensions import db
    from annotator.core.models import Submission
    board = track_1_leaderboard()
    db.session.add(Submission(gold_set=board, team="SMatchToPR", system="second run", filename="p.p",
                              content=b"{}", report={}, metrics={"strict": 0.7, "relaxed": 0.9, "p_at_50_strict": 0.8}))
    db.session.commit()
    proposed = track_1_top(str(board.id))
    assert sorted(proposed.options["only"]) == sorted(TABLE_2_TOP_10)  # still ten teams: XLNet keeps its place
    second = next(row for row in proposed.report.tables[0].rows if row[2] == "second run")
    assert second[-1] == "" and second[0] <= 10


def test_an_empty_or_unknown_leaderboard_proposes_nothing_and_says_why(app) -> None:  # type: ignore[no-untyped-def]
    from annotator.core.extensions import db
    from annotator.core.models import GoldSet
    with pytest.raises(FormatError, match="there is no Track-1 leaderboard 'x'"):
        track_1_top("x")
    empty = GoldSet(name="nobody yet", task="kpa2021", filename="g.zip", content=b"", options={})
    db.session.add(empty)
    db.session.commit()
    with pytest.raises(FormatError, match="'nobody yet' has no submission yet"):
        track_1_top(str(empty.id))
