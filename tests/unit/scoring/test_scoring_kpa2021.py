"""KPA-2021 Track 1: each quirk of the official scorer (formats-and-scorers.md §1.3, §1.6) on hand-built inputs."""
from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from annotator.core.errors import FormatError, SubmissionError
from annotator.shared_tasks.kpa2021 import scorer as kpa2021

T = "Topic T"
ONE_KP = [("k1", T, 1)]
FOUR_ARGS = [(f"a{i}", T, 1) for i in range(1, 5)]
FOUR_LABELS = [("a1", "k1", 1), ("a2", "k1", 0), ("a3", "k1", 0), ("a4", "k1", 0)]


def score(kpa_gold, json_file, arguments, key_points, labels, predictions, **options) -> kpa2021.ScoreReport:
    return kpa2021.score_files(kpa_gold(arguments, key_points, labels), json_file(predictions), **options)


# --- step 1: best key point per argument -------------------------------------------------------------------

def test_a_tie_between_key_points_goes_to_the_first_in_json_order(kpa_gold, json_file) -> None:
    args = [("a1", T, 1), ("a2", T, 1)]
    kps = [("k1", T, 1), ("k2", T, 1)]
    labels = [("a1", "k1", 0), ("a1", "k2", 1), ("a2", "k1", 0), ("a2", "k2", 0)]
    k2_first = score(kpa_gold, json_file, args, kps, labels, {"a1": {"k2": 0.9, "k1": 0.9}, "a2": {"k1": 0.1}})
    k1_first = score(kpa_gold, json_file, args, kps, labels, {"a1": {"k1": 0.9, "k2": 0.9}, "a2": {"k1": 0.1}})
    assert (k2_first.metrics["strict"], k1_first.metrics["strict"]) == (1.0, 0.0)
    assert any("1 argument(s) have several key points with the same top score" in w for w in k2_first.warnings)


def test_unknown_key_point_ids_are_ignored_even_with_the_highest_score_and_reported(kpa_gold, json_file) -> None:
    report = score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS,
                   {"a1": {"kp_unknown": 9.0, "k1": 0.5}, "a2": {"k1": 0.4}, "a3": {"k1": 0.3}, "a4": {"k1": 0.2}})
    assert report.metrics["strict"] == 0.5  # a1 kept its k1 pair: AP 1 x 1 positive / N=2
    assert any("1 key-point id(s) are not in key_points_dev.csv" in w and "kp_unknown" in w for w in report.warnings)


def test_predictions_for_ids_that_are_not_arguments_are_dropped_and_reported(kpa_gold, json_file) -> None:
    report = score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS,
                   {"a1": {"k1": 0.5}, "a2": {"k1": 0.4}, "a3": {"k1": 0.3}, "a4": {"k1": 0.2}, "arg_x": {"k1": 1}})
    assert report.detail["arguments"] == 4
    assert any("1 prediction key(s) are not arguments of the dev split and were dropped: arg_x" in w
               for w in report.warnings)


# --- steps 2 and 4: dummies, the cut, 0.99 ---------------------------------------------------------------

def test_unanswered_arguments_count_in_n_and_the_cut_is_floor_of_half(kpa_gold, json_file) -> None:
    args = [(f"a{i}", T, 1) for i in range(1, 6)]
    report = score(kpa_gold, json_file, args, ONE_KP, [(a, "k1", 0) for a, _, _ in args], {"a1": {"k1": 0.5}})
    group = report.detail["groups"][0]
    assert (group["n"], group["N"], report.detail["answered"]) == (5, 2, 1)


def test_a_dummy_in_the_top_half_is_rescored_099_and_outranks_a_real_0_5(kpa_gold, json_file) -> None:
    head = score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS, {"a1": {"k1": 0.5}})
    plain = score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS, {"a1": {"k1": 0.5}}, variant="plain-ap")
    # top half = a1 (0.5, positive) and one dummy (0 -> 0.99, negative): precision 1/2 at full recall
    assert (plain.metrics["strict"], head.metrics["strict"]) == (0.5, 0.25)
    assert any("3 of 4 arguments have no valid prediction" in w and "the 1 that fell in a top half" in w
               for w in head.warnings)


def test_a_real_score_above_099_still_outranks_the_dummies(kpa_gold, json_file) -> None:
    plain = score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS, {"a1": {"k1": 0.995}}, variant="plain-ap")
    head = score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS, {"a1": {"k1": 0.995}})
    assert (plain.metrics["strict"], head.metrics["strict"]) == (1.0, 0.5)


def test_negative_scores_rank_below_the_dummies_zero_so_dummies_fill_the_top_half(kpa_gold, json_file) -> None:
    report = score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS, {"a1": {"k1": -0.5}}, variant="plain-ap")
    assert report.metrics["strict"] == 0.0
    assert report.detail["groups"][0]["dummies_in_top"] == 2


def test_the_official_variant_divides_by_n_and_plain_ap_does_not(kpa_gold, json_file) -> None:
    predictions = {"a1": {"k1": 0.4}, "a2": {"k1": 0.9}, "a3": {"k1": 0.1}, "a4": {"k1": 0.2}}
    head = score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS, predictions)
    plain = score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS, predictions, variant="plain-ap")
    # top half: a2 (0.9, negative), a1 (0.4, positive): AP = 1/2; HEAD multiplies by 1 positive / N = 2
    assert (plain.metrics["strict"], head.metrics["strict"]) == (0.5, 0.25)


def test_p_at_50_strict_is_the_share_of_strict_positives_in_the_top_half(kpa_gold, json_file) -> None:
    report = score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS, {"a1": {"k1": 0.5}})
    assert report.metrics["p_at_50_strict"] == 0.5


def test_the_cut_orders_rows_exactly_like_pandas_sort_values() -> None:
    """The same numpy call as pandas, so ties at the cut fall the same way as the official program's here."""
    rng = np.random.default_rng(3)
    for size in (7, 16, 17, 40, 121, 300):
        for dtype in (np.float64, np.int64):
            scores = rng.integers(0, 3, size=size).astype(dtype)
            expected = pd.DataFrame({"score": scores}).sort_values("score", ascending=False).head(size // 2).index
            assert kpa2021.top_half(scores).tolist() == expected.tolist()


def test_equal_scores_across_the_cut_warn_that_the_result_is_machine_dependent(kpa_gold, json_file) -> None:
    report = score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS, {a: {"k1": 0.5} for a, _, _ in FOUR_ARGS})
    assert report.detail["groups"][0]["tie_at_cut"] is True
    assert any("straddle the 50% cut" in w for w in report.warnings)


def test_a_cut_through_tied_dummies_only_does_not_warn(kpa_gold, json_file) -> None:
    args = [(f"a{i}", T, 1) for i in range(1, 7)]
    report = score(kpa_gold, json_file, args, ONE_KP, [(a, "k1", 0) for a, _, _ in args], {"a1": {"k1": 0.5}})
    assert not any("straddle" in w for w in report.warnings)


# --- step 3: labels, off-topic and undecided pairs ------------------------------------------------------

def test_a_best_key_point_of_another_topic_is_a_relaxed_positive_with_a_warning(kpa_gold, json_file) -> None:
    args = [("a1", T, 1), ("a2", T, 1)]
    kps = [("k1", T, 1), ("x1", "Topic U", 1)]
    predictions = {"a1": {"x1": 0.9}, "a2": {"k1": 0.1}}
    report = score(kpa_gold, json_file, args, kps, [("a1", "k1", 1), ("a2", "k1", 0)], predictions)
    assert (report.metrics["strict"], report.metrics["relaxed"]) == (0.0, 1.0)
    assert any("1 argument(s) have as best key point one of another topic or stance" in w for w in report.warnings)


def test_strict_topics_counts_an_off_topic_best_key_point_wrong_in_both_modes(kpa_gold, json_file) -> None:
    args = [("a1", T, 1), ("a2", T, 1)]
    kps = [("k1", T, 1), ("x1", T, -1)]  # same topic, other stance: off-topic too
    report = score(kpa_gold, json_file, args, kps, [("a1", "k1", 1), ("a2", "k1", 0)],
                   {"a1": {"x1": 0.9}, "a2": {"k1": 0.1}}, strict_topics=True)
    assert (report.metrics["strict"], report.metrics["relaxed"]) == (0.0, 0.0)


def test_an_undecided_pair_is_a_strict_negative_and_a_relaxed_positive(kpa_gold, json_file) -> None:
    args = [("a1", T, 1), ("a2", T, 1)]
    kps = [("k1", T, 1), ("k2", T, 1)]
    labels = [("a1", "k1", 0), ("a2", "k1", 0)]  # (a1, k2) absent = undecided
    report = score(kpa_gold, json_file, args, kps, labels, {"a1": {"k2": 0.9}, "a2": {"k1": 0.1}})
    assert (report.metrics["strict"], report.metrics["relaxed"]) == (0.0, 1.0)


# --- step 5 and the cases the official program crashes on -----------------------------------------------

def test_groups_are_averaged_with_numpy_mean_in_sorted_topic_stance_order(kpa_gold, json_file) -> None:
    args = [("b1", "B", -1), ("b2", "B", -1), ("a1", "A", 1), ("a2", "A", 1)]
    kps = [("kb", "B", -1), ("ka", "A", 1)]
    labels = [("b1", "kb", 1), ("b2", "kb", 0), ("a1", "ka", 0), ("a2", "ka", 1)]
    report = score(kpa_gold, json_file, args, kps, labels, {"b1": {"kb": 0.9}, "b2": {"kb": 0.1},
                                                            "a1": {"ka": 0.9}, "a2": {"ka": 0.1}})
    assert [(g["topic"], g["stance"], g["strict"]) for g in report.detail["groups"]] == [("A", 1, 0.0),
                                                                                        ("B", -1, 1.0)]
    assert report.metrics["strict"] == 0.5


def test_a_group_of_one_argument_is_left_out_of_the_mean_with_a_warning(kpa_gold, json_file) -> None:
    args = FOUR_ARGS + [("s1", "Single", 1)]
    kps = ONE_KP + [("ks", "Single", 1)]
    report = score(kpa_gold, json_file, args, kps, FOUR_LABELS + [("s1", "ks", 1)],
                   {"a1": {"k1": 0.5}, "s1": {"ks": 0.9}}, variant="plain-ap")
    assert [g["topic"] for g in report.detail["groups"]] == [T]
    assert report.metrics["strict"] == 0.5
    assert any("1 topic+stance group(s) have a single argument" in w for w in report.warnings)


def test_gold_without_any_group_of_two_arguments_is_a_format_error(kpa_gold, json_file) -> None:
    with pytest.raises(FormatError, match="no topic\\+stance group of the dev split has two or more arguments"):
        score(kpa_gold, json_file, [("a1", T, 1)], ONE_KP, [("a1", "k1", 1)], {"a1": {"k1": 0.5}})


def test_all_integer_scores_are_scored_as_pandas_1_5_did_and_warned_about(kpa_gold, json_file) -> None:
    as_int = {"a1": {"k1": 4}, "a2": {"k1": 3}, "a3": {"k1": 2}, "a4": {"k1": 1}}
    report = score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS, as_int)
    as_float = score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS,
                     {a: {"k1": float(v["k1"])} for a, v in as_int.items()})
    assert report.detail["score_dtype"] == "int64" and as_float.detail["score_dtype"] == "float64"
    assert report.metrics == as_float.metrics
    assert any("crashes on it with pandas >= 3" in w for w in report.warnings)


def test_one_unanswered_argument_makes_integer_scores_float64_as_in_pandas(kpa_gold, json_file) -> None:
    report = score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS, {"a1": {"k1": 4}, "a2": {"k1": 3}})
    assert report.detail["score_dtype"] == "float64"


def test_js_divergence_compares_top_half_best_matches_with_gold_matches(kpa_gold, json_file) -> None:
    kps = [("k1", T, 1), ("k2", T, 1)]
    labels = [("a1", "k1", 1), ("a2", "k1", 1), ("a3", "k2", 1), ("a4", "k1", 0), ("a4", "k2", 0)]
    predictions = {"a1": {"k1": 0.9}, "a2": {"k1": 0.8}, "a3": {"k1": 0.1}, "a4": {"k2": 0.05}}
    report = score(kpa_gold, json_file, FOUR_ARGS, kps, labels, predictions)
    p, q = (1.0, 0.0), (2 / 3, 1 / 3)  # top half a1, a2 both on k1; gold: k1 twice, k2 once
    mid = [(a + b) / 2 for a, b in zip(p, q)]
    def kl(x: tuple[float, float]) -> float:
        return sum(a * math.log2(a / m) for a, m in zip(x, mid) if a > 0)

    assert report.detail["groups"][0]["js_divergence"] == pytest.approx((kl(p) + kl(q)) / 2, abs=1e-12)


# --- files and malformed submissions ---------------------------------------------------------------------

def test_the_split_option_reads_the_split_named_files(kpa_gold, json_file) -> None:
    gold = kpa_gold(FOUR_ARGS, ONE_KP, FOUR_LABELS, split="test")
    report = kpa2021.score_files(gold, json_file({"a1": {"k1": 0.5}}), split="test")
    assert report.detail["split"] == "test"
    with pytest.raises(FormatError, match="arguments_dev.csv"):
        kpa2021.score_files(gold, json_file({"a1": {"k1": 0.5}}), split="dev")


def test_without_a_split_the_one_the_gold_files_name_is_read(kpa_gold, json_file) -> None:
    """No silent "dev": a gold folder of *_test.csv files is the test split."""
    gold = kpa_gold(FOUR_ARGS, ONE_KP, FOUR_LABELS, split="test")
    assert kpa2021.score_files(gold, json_file({"a1": {"k1": 0.5}})).detail["split"] == "test"


def test_a_codalab_zip_holding_predictions_p_scores_like_the_json(kpa_gold, json_file, tmp_path: Path) -> None:
    predictions = {"a1": {"k1": 0.5}, "a3": {"k1": 0.7}}
    archive = tmp_path / "submission.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("predictions.p", json.dumps(predictions))
    gold = kpa_gold(FOUR_ARGS, ONE_KP, FOUR_LABELS)
    assert kpa2021.score_files(gold, archive).metrics == kpa2021.score_files(gold, json_file(predictions)).metrics


def test_a_zip_with_two_files_is_refused_naming_them(kpa_gold, tmp_path: Path) -> None:
    archive = tmp_path / "submission.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("predictions.p", "{}")
        z.writestr("notes.txt", "hello")
    with pytest.raises(SubmissionError, match="exactly one JSON file; it holds predictions.p, notes.txt"):
        kpa2021.score_files(kpa_gold(FOUR_ARGS, ONE_KP, FOUR_LABELS), archive)


def test_invalid_json_is_refused_with_its_line_and_column(kpa_gold, tmp_path: Path) -> None:
    path = tmp_path / "predictions.json"
    path.write_text('{"a1": {"k1": 0.5},\n "a2": {"k1": 0.4,}}')
    with pytest.raises(SubmissionError) as caught:
        kpa2021.score_files(kpa_gold(FOUR_ARGS, ONE_KP, FOUR_LABELS), path)
    assert (caught.value.file, caught.value.line, caught.value.column) == ("predictions.json", 2, "19")
    assert "not valid JSON" in str(caught.value)


@pytest.mark.parametrize("predictions, message", [
    ([["a1", "k1", 0.5]], "expected a JSON object {arg_id: {key_point_id: score}}, got a list"),
    ({"a1": ["k1", 0.5]}, "argument 'a1': expected an object {key_point_id: score}"),
    ({"a1": {"k1": "0.5"}}, "argument 'a1', key point 'k1': score \"0.5\" is not a number"),
    ({"a1": {"k1": None}}, "argument 'a1', key point 'k1': score null is not a number"),
    ({"a1": {"k1": True}}, "argument 'a1', key point 'k1': score true is not a number"),
    ({"a1": {"k1": float("nan")}}, "argument 'a1', key point 'k1': score nan is not a finite number"),
    ({"a1": {"k1": float("inf")}}, "argument 'a1', key point 'k1': score inf is not a finite number"),
], ids=["list", "argument-not-object", "string-score", "null-score", "bool-score", "nan", "infinity"])
def test_malformed_predictions_are_refused_naming_argument_and_key_point(kpa_gold, json_file, predictions,
                                                                         message: str) -> None:
    with pytest.raises(SubmissionError) as caught:
        kpa2021.score_files(kpa_gold(FOUR_ARGS, ONE_KP, FOUR_LABELS), json_file(predictions))
    assert message in str(caught.value) and caught.value.file == "predictions.json"


def test_a_gold_stance_other_than_plus_or_minus_one_is_a_located_format_error(kpa_gold, json_file) -> None:
    with pytest.raises(FormatError) as caught:
        score(kpa_gold, json_file, [("a1", T, 0)], ONE_KP, [], {})
    assert (caught.value.file, caught.value.line, caught.value.column) == ("arguments_dev.csv", 2, "stance")


def test_an_unknown_variant_is_refused(kpa_gold, json_file) -> None:
    with pytest.raises(ValueError, match="variant must be one of"):
        score(kpa_gold, json_file, FOUR_ARGS, ONE_KP, FOUR_LABELS, {}, variant="latest")


# --- a real excerpt ------------------------------------------------------------------------------------------

def test_an_oracle_on_the_dev_excerpt_gets_plain_ap_one_and_head_below_one(excerpts: Path, json_file) -> None:
    gold = kpa2021.read_gold(excerpts / "kpa2021", "dev")
    assert (len(gold.arguments), len(gold.key_points), len(gold.labels)) == (16, 10, 72)
    oracle = {a: {k: float(gold.labels.get((a, k), 0.5)) + 1e-4 * i for i, k in enumerate(gold.key_points)
                  if gold.key_points[k] == (t, s)} for a, t, s in gold.arguments}
    plain = kpa2021.score_files(excerpts / "kpa2021", json_file(oracle), variant="plain-ap")
    head = kpa2021.score_files(excerpts / "kpa2021", json_file(oracle))
    assert (plain.metrics["strict"], plain.metrics["relaxed"]) == (1.0, 1.0)
    assert [(g["n"], g["N"], g["positives_strict"]) for g in head.detail["groups"]] == [(8, 4, 4), (8, 4, 4)]
    assert head.warnings == []
