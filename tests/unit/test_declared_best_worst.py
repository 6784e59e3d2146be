"""A best-worst question: the definition's keys, the balanced design of tuples and its guarantee, the answer's check
and label rows, scores by counting, gold per tuple, agreement (Krippendorff's alpha, the split-half reliability of
the scores against an independent computation with scipy and pandas), control items and the items file, each against
a hand computation."""
from __future__ import annotations

import json
import random
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from annotator.analysis.agreement import field_agreement
from annotator.analysis.split_half import halves, spearman, spearman_brown, split_half_of
from annotator.core.errors import FormatError
from annotator.core.hit_values import AnswerError
from annotator.declared import best_worst
from annotator.declared.adjudication import adjudicated
from annotator.declared.answers import check_answer
from annotator.declared.definition import NOT_ASKED, UNDECIDED, DefinitionError
from annotator.declared.definition_reader import definition_from_file, definition_from_text
from annotator.declared.gold import (
    agreement_units,
    control_reference,
    control_score,
    declared_gold,
    gold_counts,
    show_reference,
)
from annotator.declared.items import iter_items, read_items
from tests.support.declared_labels import labels_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEFINITION = """name: bws
show: [{field: text, label: Tweet}]
questions:
  - id: pos
    kind: best_worst
    text: text
    size: 4
    appearances: 2
    seed: 11
    best: Most positive
    worst: Least positive
"""
# One tuple of four tweets; its payload as the import stores it.
T1 = {"tuple": [{"id": "a", "text": "love it"}, {"id": "b", "text": "fine"}, {"id": "c", "text": "meh"},
                {"id": "d", "text": "awful"}]}
T2 = {"tuple": [{"id": "c", "text": "meh"}, {"id": "a", "text": "love it"}, {"id": "e", "text": "great"},
                {"id": "d", "text": "awful"}]}


def define(extra: str = "") -> object:
    return definition_from_text(DEFINITION + extra)


def test_the_example_validates_and_builds_twelve_balanced_tuples():
    definition = definition_from_file(EXAMPLES / "best_worst_sentiment.yaml")
    question = definition.question("positive")
    assert (question.kind, question.gold.rule, question.agreement, question.when) == \
        ("best_worst", "counting", "ordinal", (("comparable", ("yes",)),))
    assert question.best_worst == best_worst.BestWorst("text", 4, 4, 2026, "Most positive", "Least positive")
    items = read_items(EXAMPLES / "best_worst_sentiment_items.jsonl", definition)
    appear, _ = best_worst.design_counts([best_worst.member_ids(i.payload) for i in items])
    assert len(items) == 12 and set(appear.values()) == {4} and len(appear) == 12


@pytest.mark.parametrize("question, path, said", [
    ("{id: q, kind: best_worst, text: nowhere}", "questions[0].text",
     "'nowhere' must be a shown field drawn as text, title or markdown (text)"),
    ("{id: q, kind: best_worst}", "questions[0].text", "is required"),
    ("{id: q, kind: best_worst, text: text, size: 2}", "questions[0].size", "must be between 3 and 10, not 2"),
    ("{id: q, kind: best_worst, text: text, size: 11}", "questions[0].size", "must be between 3 and 10"),
    ("{id: q, kind: best_worst, text: text, appearances: 0}", "questions[0].appearances", "between 1 and 100"),
    ("{id: q, kind: best_worst, text: text, seed: -1}", "questions[0].seed", "between 0 and"),
    ("{id: q, kind: best_worst, text: text, best: Good, worst: Good}", "questions[0].worst",
     "best and worst must be two different, non-blank words"),
    ("{id: q, kind: best_worst, text: text, gold: majority}", "questions[0].gold.rule",
     "'majority' does not apply to a best_worst question; use one of counting"),
    ("{id: q, kind: best_worst, text: text, gold: {rule: counting, ties: a}}", "questions[0].gold.ties",
     "the counting rule of a best_worst question has no 'ties'"),
    ("{id: q, kind: best_worst, text: text, options: [a, b]}", "questions[0].options", "is a key of"),
])
def test_a_bad_best_worst_question_is_refused_at_its_key(question, path, said):
    with pytest.raises(DefinitionError) as error:
        definition_from_text(f"name: x\nshow: [text]\nquestions:\n  - {question}\n")
    assert error.value.path == path
    assert said in error.value.message


def test_a_definition_has_at_most_one_best_worst_question():
    with pytest.raises(DefinitionError) as error:
        define("  - {id: again, kind: best_worst, text: text}\n")
    assert error.value.path == "questions[1]"
    assert "at most one best_worst question" in error.value.message


@pytest.mark.parametrize("other", ["{id: words, kind: span, of: text}",
                                   "{id: marks, kind: spans, of: text, labels: [PER]}",
                                   "{id: answer, kind: extractive, of: text}"])
def test_no_other_question_may_read_an_item_field_beside_a_best_worst_one(other):
    with pytest.raises(DefinitionError) as error:
        define(f"  - {other}\n")
    assert error.value.path == "questions[1]" and "no other question may read an item's field (text)" in \
        error.value.message


def test_a_best_worst_question_cannot_decide_whether_another_is_shown():
    with pytest.raises(DefinitionError) as error:
        define("  - {id: why, kind: text, when: {pos: a}}\n")
    assert error.value.path == "questions[1].when.pos"
    assert "a best_worst question cannot decide whether another is shown" in error.value.message


# --- the design -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("count, size, appearances", [(12, 4, 4), (10, 4, 2), (9, 3, 1), (5, 4, 4), (7, 5, 5),
                                                     (50, 4, 8), (6, 6, 3), (31, 10, 10)])
def test_every_item_is_in_exactly_appearances_tuples_of_size_different_items(count, size, appearances):
    ids = [f"o{n}" for n in range(count)]
    tuples = best_worst.build_tuples(ids, size, appearances, seed=3)
    appear, _ = best_worst.design_counts(tuples)
    assert len(tuples) == count * appearances // size
    assert all(len(set(t)) == size for t in tuples)
    assert appear == {i: appearances for i in ids}


def test_the_design_is_reproducible_from_its_seed_and_differs_with_another():
    ids = [f"o{n}" for n in range(20)]
    assert best_worst.build_tuples(ids, 4, 8, seed=5) == best_worst.build_tuples(list(ids), 4, 8, seed=5)
    assert best_worst.build_tuples(ids, 4, 8, seed=5) != best_worst.build_tuples(ids, 4, 8, seed=6)


def test_the_kept_design_is_the_drawn_one_whose_pairs_are_most_spread():
    """Of 40 items in 80 tuples of 4 (480 places for a pair), the design kept has as many different pairs as the
    best of the 100 draws, and more than a draw has on average."""
    ids = [f"o{n}" for n in range(40)]
    _, pairs = best_worst.design_counts(best_worst.build_tuples(ids, 4, 8, seed=1))
    drawn = [len(best_worst.design_counts(best_worst._attempt(ids, 4, 8, random.Random(f"1:{n}")))[1])
             for n in range(best_worst.design_tries(40 * 8))]
    assert sum(pairs.values()) == 480 and len(pairs) == max(drawn) > sum(drawn) / len(drawn)


@pytest.mark.parametrize("count, appearances, said", [
    (3, 2, "3 items cannot fill a tuple of 4: give at least 4"),
    (10, 1, "10 items each in 1 tuples of 4 make 10 places, not a multiple of 4; with 10 items, appearances must "
            "be a multiple of 2 (e.g. 2)"),
    (9, 3, "with 9 items, appearances must be a multiple of 4 (e.g. 4)"),
])
def test_a_design_that_cannot_balance_is_refused_saying_what_would(count, appearances, said):
    with pytest.raises(ValueError) as error:
        best_worst.build_tuples([f"o{n}" for n in range(count)], 4, appearances, seed=0)
    assert said in str(error.value)


# --- the answer -----------------------------------------------------------------------------------------------

def test_an_answer_gives_one_row_per_member_best_one_worst_minus_one():
    stored, rows = check_answer(define(), T1, {"pos": {"best": "a", "worst": "d"}})
    assert stored == {"pos": {"best": "a", "worst": "d"}}
    assert [(r.unit, r.field, r.value) for r in rows] == [("a", "pos", "1"), ("b", "pos", "0"), ("c", "pos", "0"),
                                                          ("d", "pos", "-1")]


@pytest.mark.parametrize("answer, said", [
    ({"best": "a", "worst": "a"}, "pos: 'a' is chosen as both best and worst; choose two different items"),
    ({"best": "a", "worst": "e"}, "pos.worst: 'e' is not in this tuple (its items: 'a', 'b', 'c', 'd')"),
    ({"best": "z", "worst": "a"}, "pos.best: 'z' is not in this tuple"),
    ({"best": "a"}, "pos: must be {\"best\": <id>, \"worst\": <id>}"),
    (["a", "d"], "pos: must be {\"best\": <id>, \"worst\": <id>}"),
    ({"best": "a", "worst": 4}, "pos: must be {\"best\": <id>, \"worst\": <id>}"),
])
def test_an_answer_that_is_not_two_different_members_is_refused_naming_why(answer, said):
    with pytest.raises(AnswerError) as error:
        check_answer(define(), T1, {"pos": answer})
    assert said in str(error.value)


# --- scores and gold ------------------------------------------------------------------------------------------

# Tuple t1 (a b c d), three annotators: best a, a, b; worst d, d, c. Tuple t2 (c a e d), two: best e, a; worst d, c.
# By hand: a shown 5 times, best 3 -> 3/5; b 3, best 1 -> 1/3; c 5, best 0, worst 2 -> -2/5; d 5, worst 3 -> -3/5;
# e 2, best 1 -> 1/2.
VOTES = {"t1": [{"pos": {"best": "a", "worst": "d"}}, {"pos": {"best": "a", "worst": "d"}},
                {"pos": {"best": "b", "worst": "c"}}],
         "t2": [{"pos": {"best": "e", "worst": "d"}}, {"pos": {"best": "a", "worst": "c"}}]}
PAYLOADS = {"t1": T1, "t2": T2}


def _gold(definition, votes=VOTES):  # type: ignore[no-untyped-def]
    gold = declared_gold(definition, labels_of(definition, votes, PAYLOADS))
    return {(row.item, row.unit): (row.gold, row.score, row.n, row.votes) for row in gold.itertuples()
            if row.question == "pos"}


def test_each_item_s_score_is_best_minus_worst_over_its_appearances():
    labels = labels_of(define(), VOTES, PAYLOADS)
    scores = best_worst.object_scores(labels[labels["field"] == "pos"])
    assert {oid: (s.appearances, s.best, s.worst) for oid, s in scores.items()} == \
        {"a": (5, 3, 0), "b": (3, 1, 0), "c": (5, 0, 2), "d": (5, 0, 3), "e": (2, 1, 0)}
    assert {oid: s.score for oid, s in scores.items()} == pytest.approx(
        {"a": 3 / 5, "b": 1 / 3, "c": -2 / 5, "d": -3 / 5, "e": 1 / 2})


def test_gold_per_tuple_is_the_majority_best_and_worst_with_the_campaign_score():
    found = _gold(define())
    assert {unit: gold for (item, unit), (gold, *_rest) in found.items() if item == "t1"} == \
        {"a": "best", "b": "neither", "c": "neither", "d": "worst"}
    assert found["t1", "a"][1:] == (pytest.approx(3 / 5), 3, "best 2, worst 0 of 3")
    assert found["t2", "a"][1] == pytest.approx(3 / 5)   # the same item's score in every tuple it is in


def test_a_tie_for_best_or_worst_is_undecided_on_the_tied_members():
    """t2's two votes: best e and a, worst d and c: each pick is a tie of two, so every member is undecided."""
    found = _gold(define())
    assert {unit: gold for (item, unit), (gold, *_rest) in found.items() if item == "t2"} == \
        {"c": UNDECIDED, "a": UNDECIDED, "e": UNDECIDED, "d": UNDECIDED}
    counts = gold_counts(define(), declared_gold(define(), labels_of(define(), VOTES, PAYLOADS)))
    assert counts == {"pos: best and worst decided": 1, f"pos: {UNDECIDED}": 1}


def test_the_order_of_the_votes_does_not_change_the_gold():
    shuffled = {item: list(reversed(votes)) for item, votes in VOTES.items()}
    assert _gold(define(), shuffled) == _gold(define())


WHEN = DEFINITION.replace("    best: Most positive", "    when: {ok: \"yes\"}\n    best: Most positive").replace(
    "questions:\n", "questions:\n  - {id: ok, kind: choice, options: [\"yes\", \"no\"]}\n")


def test_a_tuple_whose_condition_gold_is_no_has_n_a_on_every_member():
    definition = definition_from_text(WHEN)
    votes = {"t1": [{"ok": "no"}, {"ok": "no"}, {"ok": "yes", "pos": {"best": "a", "worst": "d"}}]}
    found = declared_gold(definition, labels_of(definition, votes, PAYLOADS))
    assert {r.unit: r.gold for r in found.itertuples() if r.question == "pos"} == \
        {"a": NOT_ASKED, "b": NOT_ASKED, "c": NOT_ASKED, "d": NOT_ASKED}


def test_the_conditional_question_must_be_left_out_when_its_condition_fails():
    with pytest.raises(AnswerError) as error:
        check_answer(definition_from_text(WHEN), T1, {"ok": "no", "pos": {"best": "a", "worst": "d"}})
    assert "pos: not asked for this answer" in str(error.value)


def test_the_score_table_ranks_every_item_highest_first_with_shared_places():
    definition = define()
    votes = {"t1": [{"pos": {"best": "a", "worst": "d"}}, {"pos": {"best": "b", "worst": "d"}}]}
    rows = best_worst.score_rows(definition, labels_of(definition, votes, PAYLOADS), [T1, T2])
    assert [(r["item"], r["appearances"], r["score"], r["rank"]) for r in rows] == \
        [("a", 2, 0.5, 1), ("b", 2, 0.5, 1), ("c", 2, 0.0, 3), ("d", 2, -1.0, 4), ("e", 0, None, None)]
    assert rows[0]["text"] == "love it"


# --- agreement ------------------------------------------------------------------------------------------------

def test_agreement_is_ordinal_on_worst_neither_best_with_the_item_as_object():
    definition = define()
    [frame] = agreement_units(definition, labels_of(definition, VOTES, PAYLOADS)).values()
    assert frame.attrs["level"] == "ordinal" and frame.attrs["order"] == ["-1", "0", "1"]
    assert frame.attrs["seed"] == 11
    assert sorted(zip(frame["unit"], frame["object"], frame["value"]))[:3] == [("t1 / a", "a", "0"),
                                                                               ("t1 / a", "a", "1"),
                                                                               ("t1 / a", "a", "1")]


def test_alpha_is_krippendorff_s_ordinal_alpha_of_the_picks():
    definition = define()
    [frame] = agreement_units(definition, labels_of(definition, VOTES, PAYLOADS)).values()
    # coders x units (t1/a t1/b t1/c t1/d t2/c t2/a t2/e t2/d); annotator 3 did not vote on t2.
    nan = np.nan
    data = [[1, 0, 0, -1, 0, 0, 1, -1], [1, 0, 0, -1, -1, 1, 0, 0], [0, 1, -1, 0, nan, nan, nan, nan]]
    expected = krippendorff.alpha(reliability_data=np.array(data, dtype=float), level_of_measurement="ordinal")
    assert field_agreement("pos", frame).krippendorff_alpha.value == pytest.approx(expected)


def test_spearman_with_ties_matches_scipy():
    rng = random.Random(4)
    a = [rng.choice([-1, -0.5, 0, 0.5, 1]) for _ in range(30)]
    b = [x + rng.choice([-0.5, 0, 0.5]) for x in a]
    assert spearman(a, b) == pytest.approx(spearmanr(a, b).statistic)


def test_spearman_brown_of_a_half_correlation_of_one_half_is_two_thirds():
    assert spearman_brown(0.5) == pytest.approx(2 / 3) and spearman_brown(1.0) == 1.0


def _simulated_votes(seed: int) -> list[tuple[str, int, str]]:
    """Eight annotators pick best and worst in 30 tuples of 4 of 20 items whose true values are their numbers,
    noisily; (item, annotator, value) rows as the agreement frame has them."""
    rng = random.Random(seed)
    ids = [f"o{n:02d}" for n in range(20)]
    rows = []
    for members in best_worst.build_tuples(ids, 4, 6, seed):
        for annotator in range(1, 9):
            seen = sorted(members, key=lambda m: int(m[1:]) + rng.gauss(0, 6))
            rows += [(m, annotator, "1" if m == seen[-1] else "-1" if m == seen[0] else "0") for m in members]
    return rows


def test_split_half_matches_an_independent_computation_of_the_same_halves():
    """The halves are drawn as documented (random.Random(seed) shuffles the sorted annotators, the first ceil(m/2)
    are one half); scores by pandas, Spearman by scipy, then 2r / (1 + r), averaged over the trials."""
    votes = _simulated_votes(9)
    frame = pd.DataFrame(votes, columns=["object", "coder", "value"])
    frame["value"] = frame["value"].astype(int)
    rng = random.Random(21)
    coders = sorted(frame["coder"].unique().tolist(), key=str)
    corrected, raw = [], []
    for _ in range(10):
        order = coders[:]
        rng.shuffle(order)
        one = order[:(len(order) + 1) // 2]
        left = frame[frame["coder"].isin(one)].groupby("object")["value"].mean()
        right = frame[~frame["coder"].isin(one)].groupby("object")["value"].mean()
        both = left.index.intersection(right.index)
        r = spearmanr(left[both], right[both]).statistic
        raw.append(r)
        corrected.append(2 * r / (1 + r))
    found = split_half_of(votes, seed=21, trials=10)
    assert found.trials == 10 and found.objects == 20
    assert found.r == pytest.approx(sum(raw) / 10) and found.value == pytest.approx(sum(corrected) / 10)
    assert 0.5 < found.value < 1   # noisy annotators of a real order: reliable, not perfect


def test_split_half_is_the_same_on_every_run_and_reported_beside_alpha():
    definition = define()
    votes = {"t1": [{"pos": {"best": "a", "worst": "d"}}]}
    frame = agreement_units(definition, labels_of(definition, votes, PAYLOADS))["pos"]
    result = field_agreement("pos", frame)
    assert result.split_half is not None and result.split_half.value is None
    assert result.split_half.text() == "undefined: fewer than two annotators: no two halves"
    assert "split_half" in result.to_dict() and "split_half" not in field_agreement(
        "x", pd.DataFrame({"unit": ["u"], "coder": [1], "value": ["a"]})).to_dict()
    votes_list = _simulated_votes(2)
    assert split_half_of(votes_list, seed=3) == split_half_of(list(votes_list), seed=3)


def test_halves_split_an_odd_number_of_annotators_larger_first():
    one, two = halves([1, 2, 3, 4, 5], random.Random(0))
    assert (len(one), len(two)) == (3, 2) and one | two == {1, 2, 3, 4, 5}


# --- control items --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("given, score", [({"best": "a", "worst": "d"}, 1.0), ({"best": "a", "worst": "c"}, 0.5),
                                          ({"best": "b", "worst": "d"}, 0.5), ({"best": "d", "worst": "a"}, 0.0)])
def test_a_control_answer_scores_the_share_of_its_two_picks_that_match(given, score):
    assert control_score(define(), T1, {"pos": given}, {"pos": {"best": "a", "worst": "d"}}) == score


def test_a_tuple_s_decided_gold_is_its_known_answer_in_the_hit_s_words():
    definition = define()
    gold = declared_gold(definition, labels_of(definition, VOTES, PAYLOADS))
    known = control_reference(definition, "t1", gold, T1)
    assert known == {"pos": {"best": "a", "worst": "d"}}
    assert control_reference(definition, "t2", gold, T2) is None   # a tie: no known answer
    assert show_reference(definition, T1, known) == "pos Most positive: Tweet 1; Least positive: Tweet 4"


# --- the items file -------------------------------------------------------------------------------------------

def _file(tmp_path: Path, rows: list[dict[str, object]], name: str = "items.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_items_file_lists_the_things_scored_and_the_import_makes_the_tuples(tmp_path):
    rows = [{"id": f"s{n}", "text": f"sentence {n}"} for n in range(1, 9)]
    items = read_items(_file(tmp_path, rows), define())
    assert [i.external_id for i in items] == ["t1", "t2", "t3", "t4"]
    assert all(len(i.payload["tuple"]) == 4 and not i.control for i in items)
    first = items[0].payload["tuple"][0]
    assert first == {"id": first["id"], "text": f"sentence {first['id'][1:]}"}


@pytest.mark.parametrize("rows, said", [
    ([{"id": f"s{n}", "text": "x"} for n in range(1, 8)], "7 items each in 2 tuples of 4 make 14 places, not a "
     "multiple of 4; with 7 items, appearances must be a multiple of 4 (e.g. 4) (questions: pos: size 4, "
     "appearances 2)"),
    ([{"id": "s1", "text": "x"}] * 2 + [{"id": f"s{n}", "text": "x"} for n in range(3, 9)],
     "the id 's1' is also the id of line 1"),
    ([{"id": "s1", "text": "x", "known.pos": {"best": "s1", "worst": "s2"}}], "not a valid answer"),
])
def test_an_items_file_the_design_cannot_use_is_refused_naming_why(tmp_path, rows, said):
    with pytest.raises(FormatError) as error:
        read_items(_file(tmp_path, rows), define())
    assert said in str(error.value)


def test_an_item_with_a_known_answer_to_another_question_is_refused(tmp_path):
    definition = definition_from_text(WHEN)
    rows = [{"id": f"s{n}", "text": "x", **({"known.ok": "yes"} if n == 3 else {})} for n in range(1, 9)]
    with pytest.raises(FormatError) as error:
        read_items(_file(tmp_path, rows), definition)
    assert (error.value.line, error.value.file) == (3, "items.jsonl")
    assert "known.<question> and reference.<question> columns are answers about a tuple" in str(error.value)


def test_an_import_refuses_an_id_given_twice_at_its_line_before_building_any_tuple(tmp_path):
    """An import reads without the preview's id check (iter_items' default): the design needs unique ids, so the
    tuples' reader names the line itself."""
    rows = [{"id": "s1", "text": "x"}, {"id": "s2", "text": "y"}, {"id": "s1", "text": "z"}]
    with pytest.raises(FormatError) as error:
        list(iter_items(_file(tmp_path, rows), define()))
    assert (error.value.line, error.value.message) == (3, "the id 's1' is also the id of line 1")


def test_an_adjudicated_tuple_takes_the_admin_s_picks_in_words_and_keeps_each_item_s_score():
    """t2 is undecided (ties); the admin picks e best and c worst: its rows say so, the scores stay the items'."""
    definition = define()
    gold = declared_gold(definition, labels_of(definition, VOTES, PAYLOADS))
    decided = labels_of(definition, {"t2": [{"pos": {"best": "e", "worst": "c"}}]}, PAYLOADS)
    ruled = adjudicated(definition, gold, decided)
    rows = {r.unit: (r.gold, r.score, r.votes) for r in ruled.itertuples() if r.item == "t2"}
    assert rows == {"c": ("worst", pytest.approx(-2 / 5), "adjudicated"), "a": ("neither", pytest.approx(3 / 5),
                                                                               "adjudicated"),
                    "e": ("best", pytest.approx(1 / 2), "adjudicated"), "d": ("neither", pytest.approx(-3 / 5),
                                                                              "adjudicated")}
