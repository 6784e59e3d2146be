"""The two Track-2 HIT types: the match check (yes / no / faulty) and the key-point set comparison."""
from __future__ import annotations

import random
from types import SimpleNamespace

import pandas as pd
import pytest

from annotator.shared_tasks.kpa2021.compare_exchange import _winner
from annotator.tasks import AnswerError, LabelIn, settings_with_defaults, task_type

CHECK, COMPARE = task_type("kp_match_check"), task_type("kp_set_compare")
PAIR = SimpleNamespace(external_id="arg_1_0~abc", payload={
    "id": "arg_1_0~abc", "arg_id": "arg_1_0", "topic": "T", "stance": -1, "argument": "An argument.",
    "key_point": {"id": "abc", "text": "A key point"}, "systems": [{"name": "secret-system", "key_point_id": "k",
                                                                     "score": 0.9}]})
SETS = SimpleNamespace(external_id="t1con:x:y", payload={
    "id": "t1con:x:y", "topic": "T", "stance": -1, "systems": ["x", "y"],
    "summaries": {"x": [["x one", 0.6], ["x two", 0.4]], "y": [["y one", 1.0]]}})
ANSWER = {"stance_a": "all_contest", "stance_b": "most_support", "less_redundant": "A", "more_central": "equal"}


def test_the_check_item_never_shows_which_system_proposed_the_pair() -> None:
    item = CHECK.public_item(PAIR)
    assert item == {"id": "arg_1_0~abc", "topic": "T", "stance": -1, "argument": "An argument.",
                    "key_point": {"id": "abc", "text": "A key point"}}
    assert "secret-system" not in repr(item)


@pytest.mark.parametrize("answer", [{"verdict": "maybe"}, {"verdict": "yes", "x": 1}, {}, ["yes"]])
def test_a_check_answer_is_yes_no_or_faulty(answer) -> None:
    assert CHECK.labels(PAIR, {"verdict": "faulty"}) == [LabelIn("pair", "verdict", "faulty")]
    with pytest.raises(AnswerError):
        CHECK.labels(PAIR, answer)


def _check_labels(votes: dict[str, list[str]]) -> pd.DataFrame:
    rows = [(item, 0, "pair", "verdict", v, n, hash((item, n))) for item, vs in votes.items() for n, v in enumerate(vs)]
    return pd.DataFrame(rows, columns=["item", "position", "unit", "field", "value", "user_id", "assignment_id"])


def test_check_gold_is_the_majority_of_yes_against_no_and_faulty_with_the_tie_a_setting() -> None:
    labels = _check_labels({"a": ["yes", "yes", "no"], "b": ["yes", "faulty", "no"], "c": ["yes", "faulty"],
                            "d": ["faulty", "faulty", "yes"]})
    gold = CHECK.gold(labels, settings_with_defaults(CHECK, {})).set_index("item")
    assert gold["label"].to_dict() == {"a": 1, "b": 0, "c": 0, "d": 0}
    assert gold.loc["d", "faulty_majority"] and not gold.loc["b", "faulty_majority"]
    assert CHECK.gold(labels, {"tie": "match"}).set_index("item").loc["c", "label"] == 1


def test_the_check_gold_counts_each_pair_once_a_mostly_faulty_one_apart_from_the_other_no_matches() -> None:
    labels = _check_labels({"a": ["yes", "yes", "no"], "b": ["yes", "faulty", "no"], "c": ["yes", "faulty"],
                            "d": ["faulty", "faulty", "yes"]})
    gold = CHECK.gold(labels, settings_with_defaults(CHECK, {}))
    counts = CHECK.gold_summary(gold).counts
    assert counts == {"match": 1, "no match": 2, "no match, mostly faulty key point": 1}
    assert sum(counts.values()) == len(gold) == 4


def test_which_system_is_a_is_drawn_and_both_orders_occur() -> None:
    rng = random.Random(5)
    drawn = {tuple(COMPARE.presentation(SETS, rng).values()) for _ in range(40)}
    assert drawn == {("x", "y"), ("y", "x")}


def test_the_sets_are_shown_in_the_drawn_order_with_prevalence_and_without_system_names() -> None:
    shown = COMPARE.public_item(SETS, None, {"a": "y", "b": "x"})
    assert shown == {"id": "t1con:x:y", "topic": "T", "stance": -1,
                     "summary_a": [{"text": "y one", "prevalence": 1.0}],
                     "summary_b": [{"text": "x one", "prevalence": 0.6}, {"text": "x two", "prevalence": 0.4}]}


def test_sets_imported_before_prevalence_was_kept_show_their_texts_without_one() -> None:
    old = SimpleNamespace(external_id="t1con:x:y", payload={**SETS.payload, "summaries": {"x": ["x one"], "y": []}})
    assert COMPARE.public_item(old, None, {"a": "x", "b": "y"})["summary_a"] == [{"text": "x one", "prevalence": None}]


def test_the_drawn_order_is_undone_in_the_labels() -> None:
    as_shown = COMPARE.labels(SETS, ANSWER, None, {"a": "y", "b": "x"})
    assert as_shown == [LabelIn("stance y", "stance", "all_contest"), LabelIn("stance x", "stance", "most_support"),
                        LabelIn("pair", "less_redundant", "y"), LabelIn("pair", "more_central", "equal")]
    in_order = COMPARE.labels(SETS, ANSWER, None, {"a": "x", "b": "y"})
    assert LabelIn("pair", "less_redundant", "x") in in_order


@pytest.mark.parametrize("bad, words", [
    ({**ANSWER, "less_redundant": "C"}, 'not "A", "B" or "equal"'),
    ({**ANSWER, "stance_a": "pro"}, 'stance_a "pro" is not one of'),
    ({**ANSWER, "stance_a": ["all_support"]}, 'stance_a ["all_support"] is not one of'),  # was a TypeError: a 500
    ({**ANSWER, "more_central": {"A": 1}}, 'more_central {"A": 1} is not "A", "B" or "equal"'),
    ({k: v for k, v in ANSWER.items() if k != "more_central"}, "exactly"),
    ({**ANSWER, "comment": "x"}, "exactly"),
])
def test_comparison_answers_that_do_not_fit_are_refused(bad, words) -> None:
    with pytest.raises(AnswerError) as caught:
        COMPARE.labels(SETS, bad, None, {"a": "x", "b": "y"})
    assert words in str(caught.value)


@pytest.mark.parametrize("stance, stance_a, stance_b, winner", [
    (-1, "all_contest", "most_contest", "x"),   # a con set should contest the topic throughout
    (-1, "most_contest", "all_contest", "y"),
    (1, "all_support", "all_support", None),    # both right: a tie
    (1, "most_support", "all_contest", None),   # both wrong: a tie
])
def test_the_stance_question_gives_a_win_to_the_set_judged_right_when_the_other_is_not(stance, stance_a, stance_b,
                                                                                      winner) -> None:
    judgment = {"stance": stance, "system_a": "x", "system_b": "y", "stance_a": stance_a, "stance_b": stance_b}
    assert _winner(judgment, "stance") == winner


def test_less_redundant_and_more_central_wins_are_the_judged_system_or_a_tie() -> None:
    judgment = {"less_redundant": "y", "more_central": "equal"}
    assert (_winner(judgment, "less_redundant"), _winner(judgment, "more_central")) == ("y", None)


def test_example_answers_are_valid_answers() -> None:
    rng = random.Random(2)
    for _ in range(30):
        assert CHECK.labels(PAIR, CHECK.example_answer(CHECK.public_item(PAIR), rng))
        shown = COMPARE.presentation(SETS, rng)
        assert len(COMPARE.labels(SETS, COMPARE.example_answer(COMPARE.public_item(SETS, None, shown), rng),
                                  None, shown)) == 4
