"""Gold rules of declared campaigns, rule by rule, against counts made by hand on answers checked as the HIT does."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize

from annotator.declared.definition import NOT_ASKED, UNDECIDED
from annotator.declared.definition_reader import definition_from_text
from annotator.declared.gold import GOLD_COLUMNS, declared_gold, gold_counts, strengths
from tests.support.declared_labels import labels_of

SHOW = "show: [text]\n"


def define(questions: str) -> object:
    return definition_from_text(f"name: test\n{SHOW}questions:\n{questions}")


def gold_of(definition, answers, payloads=None) -> pd.DataFrame:
    return declared_gold(definition, labels_of(definition, answers, payloads))


def one(gold: pd.DataFrame, item: str = "i1", question: str | None = None, unit: str | None = None) -> pd.Series:
    rows = gold[(gold["item"] == item) & ((gold["question"] == question) if question else True)
                & ((gold["unit"] == unit) if unit is not None else True)]
    assert len(rows) == 1, rows
    return rows.iloc[0]


SENTIMENT = define('  - {id: s, kind: choice, options: [negative, neutral, positive], gold: {rule: majority}}')


# --- majority --------------------------------------------------------------------------------------------

def test_majority_is_the_most_given_option_with_its_count_over_n_as_score():
    row = one(gold_of(SENTIMENT, {"i1": [{"s": "positive"}, {"s": "negative"}, {"s": "positive"}]}))
    assert (row["gold"], row["n"], row["score"]) == ("positive", 3, pytest.approx(2 / 3))


def test_votes_are_counted_in_words_in_the_options_order():
    row = one(gold_of(SENTIMENT, {"i1": [{"s": "positive"}, {"s": "negative"}, {"s": "positive"}]}))
    assert row["votes"] == "negative: 1, positive: 2"


def test_a_majority_tie_is_undecided():
    row = one(gold_of(SENTIMENT, {"i1": [{"s": "positive"}, {"s": "negative"}]}))
    assert row["gold"] == UNDECIDED


def test_a_majority_tie_gives_the_option_named_by_ties():
    definition = define('  - {id: s, kind: choice, options: [negative, neutral, positive], '
                        'gold: {rule: majority, ties: neutral}}')
    row = one(gold_of(definition, {"i1": [{"s": "positive"}, {"s": "negative"}]}))
    assert row["gold"] == "neutral"


THEMES = define('  - {id: t, kind: multi, options: [life, love, work], none: "None", gold: {rule: majority}}')


@pytest.mark.parametrize("ticks, gold", [(3, "1"), (2, UNDECIDED), (1, "0"), (0, "0")])
def test_multi_majority_chooses_an_option_ticked_by_more_than_half(ticks, gold):
    answers = [{"t": ["life"]}] * ticks + [{"t": []}] * (4 - ticks)
    row = one(gold_of(THEMES, {"i1": answers}), unit="life")
    assert (row["gold"], row["n"], row["score"]) == (gold, 4, ticks / 4)


def test_multi_gives_one_row_per_option_in_the_options_order():
    gold = gold_of(THEMES, {"i1": [{"t": ["work"]}]})
    assert list(gold["unit"]) == ["life", "love", "work"] and list(gold["gold"]) == ["0", "0", "1"]


# --- share (KPA) ---------------------------------------------------------------------------------------------

SARCASTIC = define('  - {id: sarc, kind: choice, options: ["yes", "no"], '
                   'gold: {rule: share, value: "yes", positive: 0.6, negative: 0.15}}')


@pytest.mark.parametrize("yes, n, gold", [
    (3, 5, "yes"),           # 3/5 = 0.60 exactly: at the positive share
    (6, 10, "yes"),          # 0.60 exactly again
    (5, 8, "yes"),
    (7, 12, UNDECIDED),      # 0.583, just under 0.60
    (2, 5, UNDECIDED),
    (1, 6, UNDECIDED),       # 0.167 is above 0.15
    (2, 13, UNDECIDED),      # 0.154, just over 0.15
    (3, 20, "no"),           # 0.15 exactly: at the negative share
    (1, 8, "no"),            # below the negative share: the other of the two options
    (0, 3, "no"),
])
def test_share_of_a_choice_follows_the_kpa_thresholds(yes, n, gold):
    row = one(gold_of(SARCASTIC, {"i1": [{"sarc": "yes"}] * yes + [{"sarc": "no"}] * (n - yes)}))
    assert (row["gold"], row["score"]) == (gold, pytest.approx(yes / n))


def test_share_of_a_choice_of_three_options_says_not_the_value_at_the_negative_share():
    definition = define('  - {id: s, kind: choice, options: [pos, neu, neg], '
                        'gold: {rule: share, value: pos, positive: 0.6, negative: 0.15}}')
    row = one(gold_of(definition, {"i1": [{"s": "neu"}, {"s": "neg"}, {"s": "neg"}]}))
    assert row["gold"] == "not pos"


def test_share_of_a_multi_question_decides_each_option_as_1_0_or_undecided():
    definition = define('  - {id: t, kind: multi, options: [a, b, c], none: "None", gold: {rule: share}}')
    answers = [{"t": ["a"]}, {"t": ["a", "b"]}, {"t": ["a"]}, {"t": []}, {"t": ["a"]}]   # a 4/5, b 1/5, c 0/5
    gold = gold_of(definition, {"i1": answers})
    assert dict(zip(gold["unit"], gold["gold"])) == {"a": "1", "b": UNDECIDED, "c": "0"}


def test_share_of_a_span_decides_each_word():
    definition = define('  - {id: w, kind: span, of: text, gold: {rule: share, positive: 0.5, negative: 0.2}}')
    payload = {"i1": {"text": "one two three"}}
    gold = gold_of(definition, {"i1": [{"w": [0, 1]}, {"w": [0]}, {"w": []}]}, payload)
    assert list(gold["gold"]) == ["1", UNDECIDED, "0"]         # 2/3, 1/3, 0/3


# --- agree (m of n) --------------------------------------------------------------------------------------

RELEVANCE = define('  - {id: rel, kind: choice, options: [relevant, irrelevant], '
                   'gold: {rule: agree, m: 2, value: relevant, otherwise: irrelevant}}')


@pytest.mark.parametrize("relevant, n, gold", [(2, 3, "relevant"), (3, 3, "relevant"), (1, 3, "irrelevant"),
                                               (2, 4, "relevant"), (0, 2, "irrelevant")])
def test_agree_with_a_value_gives_it_when_at_least_m_gave_it_else_otherwise(relevant, n, gold):
    answers = [{"rel": "relevant"}] * relevant + [{"rel": "irrelevant"}] * (n - relevant)
    assert one(gold_of(RELEVANCE, {"i1": answers}))["gold"] == gold


STANCE = define('  - {id: st, kind: choice, options: ["2", "0", "1"], gold: {rule: agree, m: 2}}')


@pytest.mark.parametrize("codes, gold", [
    (["2", "2", "0"], "2"),
    (["2", "0", "1"], UNDECIDED),           # nobody reaches m
    (["2", "2", "0", "0"], UNDECIDED),      # two codes reach m
    (["1", "1", "1", "0"], "1"),
])
def test_agree_without_a_value_gives_the_one_option_at_least_m_gave(codes, gold):
    row = one(gold_of(STANCE, {"i1": [{"st": c} for c in codes]}))
    assert row["gold"] == gold


def test_agree_score_is_the_winning_count_over_n():
    row = one(gold_of(STANCE, {"i1": [{"st": "2"}, {"st": "2"}, {"st": "0"}]}))
    assert row["score"] == pytest.approx(2 / 3)


# --- median and mean ---------------------------------------------------------------------------------------

def test_median_of_an_odd_count_is_the_middle_number():
    definition = define('  - {id: x, kind: scale, min: 1, max: 5, gold: {rule: median}}')
    row = one(gold_of(definition, {"i1": [{"x": 5}, {"x": 1}, {"x": 2}]}))
    assert (row["gold"], row["score"]) == ("2", 2.0)


def test_median_of_an_even_count_is_the_mean_of_the_two_middle_numbers():
    definition = define('  - {id: x, kind: scale, min: 1, max: 5, gold: {rule: median}}')
    row = one(gold_of(definition, {"i1": [{"x": 5}, {"x": 1}, {"x": 2}, {"x": 3}]}))
    assert (row["gold"], row["score"]) == ("2.5", 2.5)


def test_mean_is_the_mean_of_the_numbers_given():
    definition = define('  - {id: x, kind: scale, min: 0, max: 10, gold: {rule: mean}}')
    row = one(gold_of(definition, {"i1": [{"x": 1}, {"x": 2}, {"x": 10}]}))
    assert row["score"] == pytest.approx(13 / 3) and float(row["gold"]) == pytest.approx(13 / 3)


def test_majority_of_a_scale_is_its_most_given_point():
    definition = define('  - {id: x, kind: scale, min: 1, max: 5, gold: {rule: majority}}')
    assert one(gold_of(definition, {"i1": [{"x": 4}, {"x": 4}, {"x": 2}]}))["gold"] == "4"


# --- probability ----------------------------------------------------------------------------------------------

def test_probability_of_a_span_word_is_the_share_of_annotators_who_selected_it():
    definition = define('  - {id: w, kind: span, of: text}')
    payload = {"i1": {"text": "a b c d"}}
    gold = gold_of(definition, {"i1": [{"w": [0, 1]}, {"w": [1]}, {"w": [1, 3]}, {"w": []}]}, payload)
    assert list(gold["unit"]) == ["0", "1", "2", "3"]
    assert list(gold["gold"]) == [0.25, 0.75, 0.0, 0.25] and list(gold["score"]) == [0.25, 0.75, 0.0, 0.25]
    assert list(gold["n"]) == [4] * 4


# --- when -----------------------------------------------------------------------------------------------------

WHEN = define('  - {id: rel, kind: choice, options: [relevant, irrelevant], '
              'gold: {rule: agree, m: 2, value: relevant, otherwise: irrelevant}}\n'
              '  - {id: st, kind: choice, options: ["2", "0", "1"], when: {rel: relevant}, '
              'gold: {rule: agree, m: 2}}')


def test_a_when_question_is_not_asked_where_the_parents_gold_fails_its_condition():
    gold = gold_of(WHEN, {"i1": [{"rel": "relevant", "st": "2"}, {"rel": "irrelevant"}, {"rel": "irrelevant"}]})
    row = one(gold, question="st")
    assert (row["gold"], row["n"], row["votes"]) == (NOT_ASKED, 1, "2: 1")
    assert math.isnan(row["score"])


def test_a_when_question_nobody_answered_is_not_asked_too():
    gold = gold_of(WHEN, {"i1": [{"rel": "irrelevant"}] * 3})
    row = one(gold, question="st")
    assert (row["gold"], row["n"], row["unit"]) == (NOT_ASKED, 0, "st")


def test_a_when_question_follows_its_rule_over_those_who_answered_it_where_the_parent_meets_the_condition():
    gold = gold_of(WHEN, {"i1": [{"rel": "relevant", "st": "2"}, {"rel": "relevant", "st": "2"},
                                 {"rel": "irrelevant"}]})
    row = one(gold, question="st")
    assert (row["gold"], row["n"]) == ("2", 2)


def test_a_when_question_follows_its_rule_where_the_parents_gold_is_undecided():
    definition = define('  - {id: p, kind: choice, options: [x, y], gold: majority}\n'
                        '  - {id: c, kind: choice, options: [u, v], when: {p: x}, gold: majority}')
    gold = gold_of(definition, {"i1": [{"p": "x", "c": "u"}, {"p": "y"}]})
    assert one(gold, question="p")["gold"] == UNDECIDED and one(gold, question="c")["gold"] == "u"


def test_a_share_parents_negative_gold_fails_the_condition_on_its_value():
    definition = define('  - {id: sarc, kind: choice, options: ["yes", "no"], gold: {rule: share, value: "yes"}}\n'
                        '  - {id: why, kind: choice, options: [a, b], when: {sarc: "yes"}, gold: majority}')
    gold = gold_of(definition, {"i1": [{"sarc": "yes", "why": "a"}] + [{"sarc": "no"}] * 7})
    assert one(gold, question="why")["gold"] == NOT_ASKED


def test_a_multi_parent_fails_the_condition_when_every_wanted_option_is_decidedly_not_ticked():
    definition = define('  - {id: t, kind: multi, options: [a, b], none: "None", gold: majority}\n'
                        '  - {id: c, kind: choice, options: [u, v], when: {t: a}, gold: majority}')
    shown = gold_of(definition, {"i1": [{"t": ["a"], "c": "u"}, {"t": ["a"], "c": "u"}, {"t": []}]})
    hidden = gold_of(definition, {"i1": [{"t": ["a"], "c": "u"}, {"t": []}, {"t": []}]})
    assert one(shown, question="c")["gold"] == "u" and one(hidden, question="c")["gold"] == NOT_ASKED


# --- Dawid-Skene ------------------------------------------------------------------------------------------------

CROWDKIT = json.loads((Path(__file__).resolve().parents[1] / "data" / "dawid_skene" / "crowdkit_declared.json")
                      .read_text(encoding="utf-8"))   # crowd-kit's Dawid-Skene on synthetic votes (how: beside it)


def test_dawid_skene_gold_is_crowd_kits_label_with_its_posterior_as_score():
    """30 items, 5 annotators of accuracies 0.9 to 0.35; Dawid-Skene differs from the majority on 3 items."""
    fixture = CROWDKIT["choice"]
    definition = define('  - {id: s, kind: choice, options: [neg, neu, pos], gold: {rule: dawid_skene}}')
    gold = declared_gold(definition, labels_of(definition, {item: [{"s": v} for v in votes]
                                                            for item, votes in fixture["votes"].items()}))
    assert dict(zip(gold["item"], gold["gold"])) == fixture["labels"]
    expected = [max(fixture["probas"][item].values()) for item in gold["item"]]
    assert list(gold["score"]) == pytest.approx(expected, abs=5e-3)   # equal up to the two stopping rules


# --- Bradley-Terry ---------------------------------------------------------------------------------------------

POSTER = definition_from_text("name: posters\nshow: [text, other]\nquestions:\n"
                              "  - {id: better, kind: pairwise, a: text, b: other, players: [a_id, b_id]}")


def _pair_payloads(pairs: dict[str, tuple[str, str]]) -> dict[str, dict[str, str]]:
    return {item: {"text": a, "other": b, "a_id": a, "b_id": b} for item, (a, b) in pairs.items()}


PAIR_ITEMS = {"p1": ("x", "y"), "p2": ("y", "z"), "p3": ("z", "x")}
PAIR_VOTES = {"p1": ["A", "A", "B", "B"], "p2": ["A", "B", "A", "A"], "p3": ["A", "B", "B", "equal"]}


def _bt_by_hand() -> dict[str, float]:
    """Maximum likelihood of the Bradley-Terry model with scipy, "equal" half a win each (x, y, z)."""
    wins = {("x", "y"): 2, ("y", "x"): 2, ("y", "z"): 3, ("z", "y"): 1, ("z", "x"): 1.5, ("x", "z"): 2.5}
    names = ["x", "y", "z"]

    def minus_loglik(free: np.ndarray) -> float:
        b = dict(zip(names, [*free, 0.0]))
        return -sum(w * (b[i] - np.logaddexp(b[i], b[j])) for (i, j), w in wins.items())

    best = minimize(minus_loglik, np.zeros(2), method="BFGS", options={"gtol": 1e-10})
    b = dict(zip(names, [*best.x, 0.0]))
    return {n: math.exp(v) for n, v in b.items()}


def test_bradley_terry_gold_is_the_items_majority_and_score_the_fitted_chance_that_a_beats_b():
    answers = {item: [{"better": v} for v in votes] for item, votes in PAIR_VOTES.items()}
    gold = declared_gold(POSTER, labels_of(POSTER, answers, _pair_payloads(PAIR_ITEMS)))
    strength = _bt_by_hand()
    assert list(gold["gold"]) == [UNDECIDED, "A", "B"]
    for (a, b), score in zip(PAIR_ITEMS.values(), gold["score"]):
        assert score == pytest.approx(strength[a] / (strength[a] + strength[b]), abs=1e-5)


def test_strengths_rank_the_players_by_the_fitted_model_with_their_record():
    answers = {item: [{"better": v} for v in votes] for item, votes in PAIR_VOTES.items()}
    table = strengths(POSTER, labels_of(POSTER, answers, _pair_payloads(PAIR_ITEMS)))["better"]
    by_hand = _bt_by_hand()
    total = sum(by_hand.values())
    assert table.attrs["undefined_because"] is None
    assert list(table["player"]) == sorted(by_hand, key=lambda p: -by_hand[p])
    assert list(table["rank"]) == [1, 2, 3]
    for row in table.itertuples():
        assert row.strength == pytest.approx(100 * by_hand[row.player] / total, abs=1e-3)
    record = {row.player: (row.wins, row.losses, row.ties) for row in table.itertuples()}
    assert record == {"x": (4, 3, 1), "y": (5, 3, 0), "z": (2, 5, 1)}


def test_strengths_say_in_words_why_no_fit_exists():
    answers = {"p1": [{"better": "A"}] * 3}
    table = strengths(POSTER, labels_of(POSTER, answers, _pair_payloads({"p1": ("x", "y")})))["better"]
    assert "never lost" in table.attrs["undefined_because"]
    assert table["strength"].isna().all() and list(table["wins"]) == [3, 0]


def test_bradley_terry_score_is_nan_when_no_fit_exists():
    answers = {"p1": [{"better": "A"}] * 3}
    gold = declared_gold(POSTER, labels_of(POSTER, answers, _pair_payloads({"p1": ("x", "y")})))
    assert gold.loc[0, "gold"] == "A" and math.isnan(gold.loc[0, "score"])


# --- the frame and the counts ----------------------------------------------------------------------------------

def test_gold_has_one_row_per_item_question_and_unit_items_in_label_order_then_questions_in_definition_order():
    definition = define('  - {id: s, kind: choice, options: [a, b]}\n  - {id: t, kind: multi, options: [u, v]}\n'
                        '  - {id: c, kind: text, required: false}')
    gold = gold_of(definition, {"i2": [{"s": "a", "t": ["u"], "c": "hm"}], "i1": [{"s": "b", "t": ["v"]}]})
    assert list(gold.columns) == GOLD_COLUMNS
    assert list(zip(gold["item"], gold["question"], gold["unit"])) == [
        ("i2", "s", "s"), ("i2", "t", "u"), ("i2", "t", "v"), ("i1", "s", "s"), ("i1", "t", "u"), ("i1", "t", "v")]


def test_no_labels_give_an_empty_gold_frame_with_its_columns():
    gold = declared_gold(SENTIMENT, labels_of(SENTIMENT, {}))
    assert gold.empty and list(gold.columns) == GOLD_COLUMNS


def test_gold_counts_count_each_questions_classes_with_undecided_and_not_asked():
    gold = gold_of(WHEN, {"i1": [{"rel": "relevant", "st": "2"}, {"rel": "relevant", "st": "2"}, {"rel": "irrelevant"}],
                          "i2": [{"rel": "irrelevant"}] * 3,
                          "i3": [{"rel": "relevant", "st": "2"}, {"rel": "relevant", "st": "0"}]})
    assert gold_counts(WHEN, gold) == {
        "rel: relevant": 2, "rel: irrelevant": 1, "rel: undecided": 0,
        "st: 2": 1, "st: 0": 0, "st: 1": 0, "st: undecided": 1, "st: n/a": 1}


def test_gold_counts_of_a_span_probability_count_three_bands():
    definition = define('  - {id: w, kind: span, of: text}')
    gold = gold_of(definition, {"i1": [{"w": [0, 1]}, {"w": [0]}]}, {"i1": {"text": "a b c"}})
    assert gold_counts(definition, gold) == {"w: p > 0.5": 1, "w: 0 < p ≤ 0.5": 1, "w: p = 0": 1}


# --- binary units: the rules' options on multi questions -------------------------------------------------------

def test_agree_on_a_multi_question_decides_each_option_by_the_value_at_least_m_gave():
    definition = define('  - {id: t, kind: multi, options: [a, b, c], none: "None", gold: {rule: agree, m: 3}}')
    answers = [{"t": ["a", "b"]}, {"t": ["a", "b"]}, {"t": ["a"]}, {"t": ["c"]}, {"t": ["c"]}, {"t": ["c"]}]
    gold = gold_of(definition, {"i1": answers})                 # a 3 of 6, b 2, c 3: "1" and "0" reach 3 for a, c
    assert dict(zip(gold["unit"], gold["gold"])) == {"a": UNDECIDED, "b": "0", "c": UNDECIDED}


def test_a_multi_tie_named_by_ties_ticks_that_option_and_leaves_the_others_undecided():
    definition = define('  - {id: t, kind: multi, options: [a, b], none: "None", gold: {rule: majority, ties: a}}')
    gold = gold_of(definition, {"i1": [{"t": ["a", "b"]}, {"t": []}]})
    assert dict(zip(gold["unit"], gold["gold"])) == {"a": "1", "b": UNDECIDED}


def test_dawid_skene_on_a_multi_question_pools_its_options_into_one_model_of_1_and_0():
    """crowd-kit's labels of the binary units "item/option", all in one model (fixture beside crowdkit_declared)."""
    fixture = CROWDKIT["multi"]
    definition = define('  - {id: t, kind: multi, options: [a, b, c], none: "None", gold: dawid_skene}')
    gold = declared_gold(definition, labels_of(definition, {item: [{"t": ticked} for ticked in answers]
                                                            for item, answers in fixture["votes"].items()}))
    assert {f"{item}/{unit}": value for item, unit, value in zip(gold["item"], gold["unit"], gold["gold"])} == \
        fixture["labels"]
    expected = [max(fixture["probas"][f"{item}/{unit}"].values()) for item, unit in zip(gold["item"], gold["unit"])]
    assert list(gold["score"]) == pytest.approx(expected, abs=5e-3)   # equal up to the two stopping rules


def test_votes_of_options_read_from_the_item_come_in_the_order_they_were_first_given():
    definition = define('  - {id: kp, kind: choice, options_from: key_points}')
    payloads = {"i1": {"key_points": ["k2", "k1"]}}
    row = one(gold_of(definition, {"i1": [{"kp": "k1"}, {"kp": "k2"}, {"kp": "k1"}]}, payloads))
    assert (row["gold"], row["votes"]) == ("k1", "k1: 2, k2: 1")


def test_strengths_before_any_comparison_say_so():
    table = strengths(POSTER, labels_of(POSTER, {}))["better"]
    assert table.empty and table.attrs["undefined_because"] == "no comparison has been made yet"


def test_a_scale_parents_median_meets_a_condition_on_its_point_or_on_either_neighbour():
    definition = define('  - {id: x, kind: scale, min: 1, max: 5}\n'
                        '  - {id: why, kind: choice, options: [a, b], when: {x: [4, 5]}, gold: majority}')
    on_point = gold_of(definition, {"i1": [{"x": 4, "why": "a"}, {"x": 4, "why": "a"}, {"x": 1}]})
    between = gold_of(definition, {"i1": [{"x": 3}, {"x": 4, "why": "a"}, {"x": 1}, {"x": 5, "why": "a"}]})
    below = gold_of(definition, {"i1": [{"x": 3}, {"x": 3}, {"x": 4, "why": "a"}]})
    assert one(on_point, question="why")["gold"] == "a"
    assert one(between, question="why")["gold"] == "a"               # median 3.5: its neighbour 4 is wanted
    assert one(below, question="why")["gold"] == NOT_ASKED            # median 3
