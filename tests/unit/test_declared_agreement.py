"""Agreement of declared campaigns: the fields per question, and the coefficients agreement.py computes from them
checked against statsmodels' Fleiss' kappa and krippendorff's alpha called here on the same votes."""
from __future__ import annotations

import random

import krippendorff
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa

from annotator.analysis.agreement import agreement, field_agreement
from annotator.declared.answers import example_answer
from annotator.declared.definition_reader import definition_from_file, definition_from_text
from annotator.declared.gold import agreement_units, declared_gold, gold_units
from tests.support.declared_labels import labels_of
from tests.support.declared_projects import EVERY_KIND, EVERY_KIND_ITEMS, read_jsonl


def define(questions: str):  # type: ignore[no-untyped-def]
    return definition_from_text(f"name: test\nshow: [text]\nquestions:\n{questions}")


CHOICE = define('  - {id: s, kind: choice, options: [a, b, c]}')
# Four annotators on four items (rows: items, columns: annotators).
CHOICES = [["a", "a", "a", "b"], ["b", "b", "b", "b"], ["c", "a", "c", "c"], ["a", "b", "c", "a"]]


def _choice_labels() -> pd.DataFrame:
    return labels_of(CHOICE, {f"i{n}": [{"s": v} for v in row] for n, row in enumerate(CHOICES)})


def test_a_choice_question_is_one_nominal_field_whose_units_name_the_item():
    units = agreement_units(CHOICE, _choice_labels())
    assert list(units) == ["s"]
    assert list(units["s"]["unit"].unique()) == ["i0 / s", "i1 / s", "i2 / s", "i3 / s"]
    assert units["s"].attrs.get("level", "nominal") == "nominal"


def test_agreement_rows_keep_the_label_rows_index():
    labels = _choice_labels()
    units = agreement_units(CHOICE, labels)["s"]
    assert list(units.index) == list(labels.index)
    assert list(units["coder"]) == list(labels["user_id"])


def test_fleiss_kappa_of_a_choice_is_statsmodels_on_the_count_table():
    table = np.array([[row.count(v) for v in "abc"] for row in CHOICES])
    result = field_agreement("s", agreement_units(CHOICE, _choice_labels())["s"])
    assert result.fleiss_kappa.value == pytest.approx(fleiss_kappa(table, method="fleiss"))


def test_krippendorffs_alpha_of_a_choice_is_the_nominal_alpha_of_the_votes():
    codes = {"a": 0, "b": 1, "c": 2}
    reliability = np.array([[codes[row[coder]] for row in CHOICES] for coder in range(4)], dtype=float)
    result = field_agreement("s", agreement_units(CHOICE, _choice_labels())["s"])
    assert result.krippendorff_alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal"))


SCALE_VOTES = [[0, 0.5, 0], [2, 1.5, 2], [1, 1, 0.5], [0.5, 2, 1.5], [1.5, 1.5, 1.5]]


def _scale(level: str):  # type: ignore[no-untyped-def]
    definition = define(f'  - {{id: x, kind: scale, min: 0, max: 2, step: 0.5, agreement: {level}}}')
    labels = labels_of(definition, {f"i{n}": [{"x": v} for v in row] for n, row in enumerate(SCALE_VOTES)})
    return agreement_units(definition, labels)["x"]


def test_an_ordinal_scale_says_its_level_and_every_point_in_order():
    units = _scale("ordinal")
    assert units.attrs == {"level": "ordinal", "order": ["0", "0.5", "1", "1.5", "2"]}


def test_ordinal_alpha_of_a_scale_is_krippendorffs_on_the_numbers():
    reliability = np.array(SCALE_VOTES, dtype=float).T
    result = field_agreement("x", _scale("ordinal"))
    assert result.level == "ordinal"
    assert result.krippendorff_alpha.value == pytest.approx(krippendorff.alpha(
        reliability_data=reliability, level_of_measurement="ordinal", value_domain=[0, 0.5, 1, 1.5, 2]))


def test_interval_alpha_of_a_scale_is_krippendorffs_on_the_numbers():
    reliability = np.array(SCALE_VOTES, dtype=float).T
    result = field_agreement("x", _scale("interval"))
    assert result.level == "interval"
    assert result.krippendorff_alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=reliability, level_of_measurement="interval"))


def test_a_nominal_scale_has_no_order():
    assert "level" not in _scale("nominal").attrs


MULTI = define('  - {id: t, kind: multi, options: [life, love], none: "None"}')


def test_a_multi_question_has_a_pooled_field_then_one_binary_field_per_option():
    labels = labels_of(MULTI, {"i1": [{"t": ["life"]}, {"t": []}], "i2": [{"t": ["life", "love"]}, {"t": ["love"]}]})
    units = agreement_units(MULTI, labels)
    assert list(units) == ["t", "t: life", "t: love"]
    assert list(units["t"]["unit"]) == ["i1 / life", "i1 / love"] * 2 + ["i2 / life", "i2 / love"] * 2
    assert list(units["t: life"]["value"]) == ["1", "0", "1", "0"]
    assert list(units["t: love"]["value"]) == ["0", "0", "1", "1"]


def test_a_multi_question_with_options_from_the_item_has_the_pooled_field_only():
    definition = define('  - {id: kp, kind: multi, options_from: key_points, none: "None"}')
    payloads = {"i1": {"key_points": [{"id": "k1", "text": "one"}, {"id": "k2", "text": "two"}]}}
    labels = labels_of(definition, {"i1": [{"kp": ["k1"]}, {"kp": []}]}, payloads)
    assert list(agreement_units(definition, labels)) == ["kp"]


def test_a_span_is_one_binary_field_over_every_word_and_text_has_no_field():
    definition = define('  - {id: w, kind: span, of: text}\n  - {id: note, kind: text, required: false}')
    labels = labels_of(definition, {"i1": [{"w": [1], "note": "x"}, {"w": []}]}, {"i1": {"text": "a b"}})
    units = agreement_units(definition, labels)
    assert list(units) == ["w"]
    assert list(units["w"]["unit"]) == ["i1 / 0", "i1 / 1"] * 2 and list(units["w"]["value"]) == ["0", "1", "0", "0"]


def test_every_kind_gets_both_coefficients_or_a_reason_in_words():
    definition = definition_from_file(EVERY_KIND)
    items = read_jsonl(EVERY_KIND_ITEMS)
    rng = random.Random(4)
    answers = {item["id"]: [example_answer(definition, item, rng) for _ in range(4)] for item in items}
    labels = labels_of(definition, answers, {item["id"]: item for item in items})
    results = agreement(agreement_units(definition, labels))
    assert [r.field for r in results] == ["sentiment", "sarcastic", "cues", "themes", "themes: life", "themes: love",
                                          "themes: work", "themes: nature", "intensity", "better"]
    for result in results:   # four annotators who vary on every field: each coefficient has a value
        for coefficient in (result.fleiss_kappa, result.krippendorff_alpha):
            assert coefficient.value is not None and -1 <= coefficient.value <= 1, (result.field, coefficient)
    # two of them recomputed from the answers themselves: annotator n gave each item's n-th answer
    sentiment = {r.field: r for r in results}["sentiment"]
    codes = {"negative": 0, "neutral": 1, "positive": 2}
    matrix = np.array([[codes[answers[i["id"]][n]["sentiment"]] for i in items] for n in range(4)], dtype=float)
    assert sentiment.krippendorff_alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"))
    table = np.array([[list(matrix[:, j]).count(c) for c in range(3)] for j in range(len(items))])
    assert sentiment.fleiss_kappa.value == pytest.approx(fleiss_kappa(table))


def test_a_field_every_annotator_answers_alike_has_no_kappa_and_says_why():
    definition = define('  - {id: s, kind: choice, options: [a, b]}')
    results = agreement(agreement_units(definition, labels_of(definition, {
        "i1": [{"s": "a"}, {"s": "a"}], "i2": [{"s": "a"}, {"s": "a"}]})))
    [result] = results
    assert result.fleiss_kappa.value is None and result.fleiss_kappa.undefined_because
    assert result.krippendorff_alpha.value is None and result.krippendorff_alpha.undefined_because


# --- gold units: the decided gold in the agreement fields' values ----------------------------------------------

def test_gold_units_keep_decided_units_only_named_as_the_agreement_units():
    definition = define('  - {id: s, kind: choice, options: [a, b]}')
    gold = declared_gold(definition, labels_of(definition, {"i1": [{"s": "a"}] * 2, "i2": [{"s": "a"}, {"s": "b"}]}))
    assert gold_units(definition, gold)["s"].to_dict() == {"i1 / s": "a"}


def test_gold_units_of_a_share_choice_are_its_options():
    definition = define('  - {id: s, kind: choice, options: ["yes", "no"], gold: {rule: share, value: "yes"}}')
    labels = labels_of(definition, {"i1": [{"s": "yes"}] * 3, "i2": [{"s": "no"}] * 3})
    assert gold_units(definition, declared_gold(definition, labels))["s"].to_dict() == {"i1 / s": "yes",
                                                                                       "i2 / s": "no"}


def test_gold_units_of_a_multi_question_are_pooled_and_per_option():
    labels = labels_of(MULTI, {"i1": [{"t": ["life"]}, {"t": ["life"]}, {"t": []}]})
    found = gold_units(MULTI, declared_gold(MULTI, labels))
    assert found["t"].to_dict() == {"i1 / life": "1", "i1 / love": "0"}
    assert found["t: life"].to_dict() == {"i1 / life": "1"} and found["t: love"].to_dict() == {"i1 / love": "0"}


def test_gold_units_of_a_span_probability_select_words_above_one_half():
    definition = define('  - {id: w, kind: span, of: text}')
    labels = labels_of(definition, {"i1": [{"w": [0, 1]}, {"w": [0]}]}, {"i1": {"text": "a b c"}})
    assert gold_units(definition, declared_gold(definition, labels))["w"].to_dict() == {
        "i1 / 0": "1", "i1 / 1": "0", "i1 / 2": "0"}


def test_gold_units_leave_out_a_median_between_two_points():
    definition = define('  - {id: x, kind: scale, min: 1, max: 5}')
    labels = labels_of(definition, {"i1": [{"x": 2}, {"x": 3}], "i2": [{"x": 4}]})
    assert gold_units(definition, declared_gold(definition, labels))["x"].to_dict() == {"i2 / x": "4"}
