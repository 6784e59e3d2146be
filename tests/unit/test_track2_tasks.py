"""KPA-2021's two Track-2 HITs, the match check (yes / no / faulty) and the key-point set comparison: declared
projects of match_check.yaml and set_compare.yaml, with their bridges (the built-in types are gone:
docs/one-engine.md), as a project of each definition has its type."""
from __future__ import annotations

import random
from types import SimpleNamespace

import pandas as pd
import pytest

from annotator.analysis.results import LABEL_COLUMNS
from annotator.declared.items import load_definition
from annotator.shared_tasks.kpa2021.compare_exchange import _winner
from annotator.shared_tasks.kpa2021.declared_gold import CHECK_DEFINITION, COMPARE_DEFINITION
from annotator.shared_tasks.kpa2021.declared_rules import check_definition
from annotator.tasks import AnswerError, LabelIn, TaskType, task_type


def _bound(definition: dict) -> TaskType:
    return task_type("custom").for_project(SimpleNamespace(definition=definition))


CHECK_DATA = load_definition(CHECK_DEFINITION).to_data()
CHECK, COMPARE = _bound(CHECK_DATA), _bound(load_definition(COMPARE_DEFINITION).to_data())
PAIR = SimpleNamespace(external_id="arg_1_0~abc", payload={
    "id": "arg_1_0~abc", "arg_id": "arg_1_0", "topic": "T", "stance": -1, "argument": "An argument.",
    "key_point": {"id": "abc", "text": "A key point"}, "systems": [{"name": "secret-system", "key_point_id": "k",
                                                                     "score": 0.9}]})
SETS = SimpleNamespace(external_id="t1con:x:y", payload={
    "id": "t1con:x:y", "topic": "T", "stance": -1, "systems": ["x", "y"],
    "summaries": {"x": [["x one", 0.6], ["x two", 0.4]], "y": [["y one", 1.0]]}})
ANSWER = {"each_summary": {"A": {"stance": "all_contest"}, "B": {"stance": "most_support"}}, "less_redundant": "A",
          "more_central": "equal"}
SWAPPED = {"swapped": ["less_redundant", "more_central"]}   # field b, the item's second system, shown as A
IN_ORDER: dict = {"swapped": []}


def test_the_check_item_never_shows_which_system_proposed_the_pair() -> None:
    item = CHECK.public_item(PAIR)
    assert item == {"id": "arg_1_0~abc", "topic": "T", "stance": -1, "argument": "An argument.",
                    "key_point.text": "A key point", "key_point": {"id": "abc", "text": "A key point"}}
    assert "secret-system" not in repr(item)


@pytest.mark.parametrize("answer", [{"verdict": "maybe"}, {"verdict": "yes", "x": 1}, {}, ["yes"]])
def test_a_check_answer_is_yes_no_or_faulty(answer) -> None:
    assert CHECK.labels(PAIR, {"verdict": "faulty"}) == [LabelIn("verdict", "verdict", "faulty")]
    with pytest.raises(AnswerError):
        CHECK.labels(PAIR, answer)


def _check_labels(votes: dict[str, list[str]]) -> pd.DataFrame:
    rows = [(item, 0, "verdict", "verdict", v, n, hash((item, n))) for item, vs in votes.items()
            for n, v in enumerate(vs)]
    return pd.DataFrame(rows, columns=LABEL_COLUMNS)


VERDICTS = {"a": ["yes", "yes", "no"], "b": ["yes", "faulty", "no"], "c": ["yes", "faulty"],
            "d": ["faulty", "faulty", "yes"]}


def test_check_gold_is_the_majority_of_yes_against_no_and_faulty_with_the_tie_given_at_the_import() -> None:
    labels = _check_labels(VERDICTS)
    gold = CHECK.gold(labels, {}).set_index("item")
    assert gold["gold"].to_dict() == {"a": "yes", "b": "no", "c": "no", "d": "no"}
    assert gold.loc["d", "faulty_majority"] == "1" and gold.loc["b", "faulty_majority"] == "0"
    tie_a_match = _bound(check_definition(CHECK_DATA, {"tie": "match"}))   # `--tie match`
    assert tie_a_match.gold(labels, {}).set_index("item").loc["c", "gold"] == "yes"


def test_the_check_gold_counts_each_pair_once_a_mostly_faulty_one_apart() -> None:
    gold = CHECK.gold(_check_labels(VERDICTS), {})
    counts = CHECK.gold_summary(gold).counts
    assert (counts["verdict: yes"], counts["verdict: no"]) == (1, 3) and len(gold) == 4
    assert (counts["faulty_majority: 1"], counts["faulty_majority: 0"]) == (1, 3)


def test_which_system_is_a_is_drawn_and_both_orders_occur() -> None:
    rng = random.Random(5)
    drawn = {tuple(COMPARE.presentation(SETS, rng)["swapped"]) for _ in range(40)}
    assert drawn == {(), ("less_redundant", "more_central")}


def test_the_sets_are_shown_in_the_drawn_order_with_prevalence_and_without_system_names() -> None:
    shown = COMPARE.public_item(SETS, None, SWAPPED)
    assert (shown["summary_a"], shown["summary_b"]) == (
        [{"text": "y one", "prevalence": 1.0}],
        [{"text": "x one", "prevalence": 0.6}, {"text": "x two", "prevalence": 0.4}])
    assert shown["sides"]["less_redundant"]["A"]["value"] == [["y one", 1.0]]
    assert "systems" not in shown and "x" not in shown and "y" not in shown


def test_sets_imported_before_prevalence_was_kept_show_their_texts_without_one() -> None:
    old = SimpleNamespace(external_id="t1con:x:y", payload={**SETS.payload, "summaries": {"x": ["x one"], "y": []}})
    assert COMPARE.public_item(old, None, IN_ORDER)["summary_a"] == [{"text": "x one", "prevalence": None}]


def test_the_drawn_order_is_undone_in_the_labels() -> None:
    """The stances under the system's name, the comparisons in the item's terms (A: its first system)."""
    pair = '["x", "y"]'
    as_shown = COMPARE.labels(SETS, ANSWER, None, SWAPPED)
    assert as_shown[:4] == [LabelIn("y", "stance", "all_contest"), LabelIn("x", "stance", "most_support"),
                            LabelIn(pair, "less_redundant", "B"), LabelIn(pair, "more_central", "equal")]
    in_order = COMPARE.labels(SETS, ANSWER, None, IN_ORDER)
    assert LabelIn(pair, "less_redundant", "A") in in_order and LabelIn("x", "stance", "all_contest") in in_order


@pytest.mark.parametrize("bad, words", [
    ({**ANSWER, "less_redundant": "C"}, "less_redundant"),
    ({**ANSWER, "each_summary": {"A": {"stance": "pro"}, "B": {"stance": "most_support"}}}, "'pro' is not one of"),
    ({**ANSWER, "more_central": {"A": 1}}, "more_central"),
    ({k: v for k, v in ANSWER.items() if k != "more_central"}, "more_central: an answer is required"),
    ({**ANSWER, "comment": "x"}, "'comment' is not a question of this HIT"),
])
def test_comparison_answers_that_do_not_fit_are_refused(bad, words) -> None:
    with pytest.raises(AnswerError) as caught:
        COMPARE.labels(SETS, bad, None, IN_ORDER)
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
                                  None, shown)) == 5   # two stances, two comparisons and the derived right stance
