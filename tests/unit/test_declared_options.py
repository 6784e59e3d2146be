"""Options numbered by position, the ordinal choice, a majority over groups of options (strict "more than half")
and agreement over merged options (annotator/declared/option_values.py and groups.py): the definition's checks,
the answers and label rows, each rule against hand counts (ties, exactly half, groups), and the agreement frames.
"""
from __future__ import annotations

import json

import pandas as pd
import pytest

from annotator.analysis.agreement import field_agreement
from annotator.core.errors import FormatError
from annotator.declared.answers import check_answer, item_options, public_questions
from annotator.declared.definition import UNDECIDED, DefinitionError
from annotator.declared.definition_reader import definition_from_data, definition_from_text
from annotator.declared.gold import agreement_units, declared_gold, gold_counts, gold_units
from annotator.declared.items import read_items
from annotator.tasks.base import AnswerError
from tests.support.declared_labels import labels_of


def define(questions: str) -> object:
    return definition_from_text(f"name: test\nshow: [text]\nquestions:\n{questions}")


def refused(questions: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        define(questions)
    return caught.value


CHECK = define('  - id: verdict\n'
               '    kind: choice\n'
               '    options: ["yes", "no", faulty]\n'
               '    gold: {rule: majority, strict: true, groups: {"no": ["no", faulty]}, ties: "no"}\n'
               '    agreement: {level: nominal, merged: {match: {match: ["yes"], no match: ["no", faulty]}}}\n')
CLOZE = define('  - {id: option, kind: choice, options_from: options, values: index}\n'
               '  - {id: difficulty, kind: choice, options: [easy, medium, hard], gold: median, agreement: ordinal}\n')
OPTIONS = {"options": ["grew", "fell", "stayed", "doubled", "halved"]}


def verdicts(*given: str) -> dict[str, list[dict[str, str]]]:
    return {"i1": [{"verdict": v} for v in given]}


def check_gold(*given: str) -> pd.Series:
    gold = declared_gold(CHECK, labels_of(CHECK, verdicts(*given)))
    [row] = gold.itertuples()
    return row


# --- the definition ----------------------------------------------------------------------------------------

def test_values_index_numbers_the_items_options():
    [option, _] = CLOZE.questions
    assert option.numbered and option.options_from == "options"


def test_values_index_is_refused_on_declared_options_with_its_path_and_line():
    error = refused('  - id: q\n    kind: choice\n    options: [a, b]\n    values: index\n')
    assert (error.path, error.line) == ("questions[0].values", 7)   # three lines of name and show first
    assert "options_from" in error.message


def test_values_must_be_text_or_index():
    error = refused('  - {id: q, kind: choice, options_from: options, values: position}\n')
    assert error.path == "questions[0].values" and "'position' is not one of text, index" in error.message


def test_values_index_is_not_a_key_of_a_scale():
    error = refused('  - {id: q, kind: scale, values: index}\n')
    assert error.path == "questions[0].values" and "is a key of choice and multi questions" in error.message


def test_an_ordinal_choice_keeps_its_level():
    assert CLOZE.questions[1].agreement == "ordinal"


def test_ordinal_agreement_on_an_items_own_options_is_refused():
    error = refused('  - {id: q, kind: choice, options_from: options, agreement: ordinal}\n')
    assert error.path == "questions[0].agreement" and "no declared order" in error.message


def test_interval_agreement_on_a_choice_is_refused_pointing_to_a_scale():
    error = refused('  - {id: q, kind: choice, options: [low, high], agreement: interval}\n')
    assert error.path == "questions[0].agreement" and "use a scale question" in error.message


def test_ordinal_agreement_on_a_multi_question_is_still_refused():
    error = refused('  - {id: q, kind: multi, options: [a, b], agreement: ordinal}\n')
    assert "its agreement is nominal" in error.message


def test_the_median_of_a_nominal_choice_is_refused():
    error = refused('  - id: q\n    kind: choice\n    options: [easy, hard]\n    gold: median\n')
    assert (error.path, error.line) == ("questions[0].gold.rule", 7)
    assert "agreement: ordinal" in error.message


def test_a_group_must_be_named_by_an_option():
    error = refused('  - {id: q, kind: choice, options: [a, b, c], gold: {rule: majority, groups: {ab: [a, b]}}}\n')
    assert error.path == "questions[0].gold.groups.ab" and "is not an option (a, b, c)" in error.message


def test_a_groups_member_must_be_an_option():
    error = refused('  - {id: q, kind: choice, options: [a, b, c], gold: {rule: majority, groups: {a: [a, d]}}}\n')
    assert error.path == "questions[0].gold.groups.a[1]" and "'d' is not an option" in error.message


def test_an_option_counts_in_one_group_only():
    error = refused('  - {id: q, kind: choice, options: [a, b, c, d], '
                    'gold: {rule: majority, groups: {a: [c], b: [c]}}}\n')
    assert error.path == "questions[0].gold.groups.b[0]" and "already counted as 'a'" in error.message


def test_a_group_name_counted_in_another_group_is_refused():
    error = refused('  - {id: q, kind: choice, options: [a, b, c], gold: {rule: majority, groups: {a: [b], c: [a]}}}\n')
    assert error.path == "questions[0].gold.groups.a"
    assert error.message == "'a' names a group and is counted in the group 'c'; one or the other"


def test_groups_need_declared_options():
    error = refused('  - {id: q, kind: choice, options_from: options, gold: {rule: majority, groups: {a: [b]}}}\n')
    assert error.path == "questions[0].gold.groups" and "declared" in error.message


def test_groups_are_a_key_of_the_majority_rule_only():
    error = refused('  - {id: q, kind: choice, options: [a, b], gold: {rule: share, value: a, groups: {a: [b]}}}\n')
    assert error.path == "questions[0].gold.groups" and "the share rule has no 'groups'" in error.message


def test_strict_is_refused_on_a_multi_question_whose_majority_is_already_more_than_half():
    error = refused('  - {id: q, kind: multi, options: [a, b], gold: {rule: majority, strict: true}}\n')
    assert error.path == "questions[0].gold.strict" and "already more than half" in error.message


def test_a_merged_figure_is_read_with_its_categories():
    [question] = CHECK.questions
    assert question.merged == (("match", (("match", ("yes",)), ("no match", ("no", "faulty")))),)
    assert question.agreement == "nominal"


def test_a_merged_figure_that_merges_nothing_is_refused():
    error = refused('  - {id: q, kind: choice, options: [a, b, c], agreement: {merged: {same: {x: [a], y: [b]}}}}\n')
    assert error.path == "questions[0].agreement.merged.same" and "merges nothing" in error.message


def test_a_merged_figures_name_must_be_an_id():
    error = refused('  - {id: q, kind: choice, options: [a, b, c], agreement: {merged: {"A b": {x: [a, b]}}}}\n')
    assert error.path == "questions[0].agreement.merged.A b" and "must be an id" in error.message


def test_an_unknown_key_in_the_agreement_mapping_is_refused():
    error = refused('  - {id: q, kind: choice, options: [a, b], agreement: {level: nominal, merge: {}}}\n')
    assert error.path == "questions[0].agreement.merge" and "did you mean 'merged'" in error.message


def test_a_bad_level_in_the_agreement_mapping_names_the_level_key():
    error = refused('  - {id: q, kind: choice, options: [a, b], agreement: {level: ratio}}\n')
    assert error.path == "questions[0].agreement.level"


def test_the_stored_definition_reads_back_the_same():
    for definition in (CHECK, CLOZE):
        assert definition_from_data(definition.to_data()).questions == definition.questions


# --- answers and label rows --------------------------------------------------------------------------------

def test_numbered_options_are_the_positions_labelled_with_their_text():
    option = CLOZE.questions[0]
    assert [(o.value, o.label) for o in item_options(option, OPTIONS)][:2] == [("0", "grew"), ("1", "fell")]


def test_an_answer_by_position_is_stored_as_its_position():
    stored, rows = check_answer(CLOZE, OPTIONS, {"option": 3, "difficulty": "hard"})
    assert stored == {"option": "3", "difficulty": "hard"}
    assert [(r.unit, r.field, r.value) for r in rows] == [("option", "option", "3"),
                                                           ("difficulty", "difficulty", "hard")]


def test_an_answer_by_the_options_text_is_refused_naming_the_positions():
    with pytest.raises(AnswerError) as caught:
        check_answer(CLOZE, OPTIONS, {"option": "grew", "difficulty": "easy"})
    assert str(caught.value) == "option: 'grew' is not one of '0', '1', '2', '3', '4'"


def test_a_position_past_the_items_options_is_refused():
    with pytest.raises(AnswerError):
        check_answer(CLOZE, OPTIONS, {"option": 5, "difficulty": "easy"})


def test_the_api_describes_numbered_options_with_their_text():
    [option, difficulty] = public_questions(CLOZE, OPTIONS)
    assert option["options"][4] == {"value": "4", "label": "halved"}
    assert [o["value"] for o in difficulty["options"]] == ["easy", "medium", "hard"]


# --- a majority over groups, strict ------------------------------------------------------------------------

def test_yes_by_more_than_half_is_a_match():
    row = check_gold("yes", "yes", "no")
    assert (row.gold, row.score) == ("yes", pytest.approx(2 / 3))


def test_faulty_counts_as_no():
    assert check_gold("yes", "no", "faulty").gold == "no"


def test_exactly_half_yes_is_a_tie_and_gives_ties():
    assert check_gold("yes", "yes", "no", "faulty").gold == "no"


def test_the_votes_still_list_the_three_verdicts():
    assert check_gold("yes", "faulty", "faulty").votes == "yes: 1, faulty: 2"


@pytest.mark.parametrize("yes, n, gold", [(51, 100, "yes"), (50, 100, "no"), (51, 101, "yes"), (50, 101, "no"),
                                          (101, 201, "yes"), (100, 201, "no")])
def test_more_than_half_is_exact_beyond_a_hundred_annotators(yes, n, gold):
    # The share trick (positive 0.505) it replaces said "undecided" for 50 of 99 and "yes" for 101 of 201 only by luck
    assert check_gold(*(["yes"] * yes + ["faulty"] * (n - yes))).gold == gold


def test_strict_without_groups_leaves_a_plurality_below_half_to_ties():
    definition = define('  - {id: s, kind: choice, options: [a, b, c], gold: {rule: majority, strict: true}}\n')
    gold = declared_gold(definition, labels_of(definition, {"i1": [{"s": v} for v in ("a", "a", "b", "c")]}))
    assert (gold.iloc[0]["gold"], gold.iloc[0]["score"]) == (UNDECIDED, 0.5)


def test_without_strict_the_plurality_wins_as_before():
    definition = define('  - {id: s, kind: choice, options: [a, b, c], gold: {rule: majority}}\n')
    gold = declared_gold(definition, labels_of(definition, {"i1": [{"s": v} for v in ("a", "a", "b", "c")]}))
    assert gold.iloc[0]["gold"] == "a"


def test_groups_without_strict_compare_the_merged_counts():
    definition = define('  - {id: s, kind: choice, options: [a, b, c], gold: {rule: majority, groups: {b: [c]}}}\n')
    gold = declared_gold(definition, labels_of(definition, {"i1": [{"s": v} for v in ("a", "a", "b", "c", "c")]}))
    assert (gold.iloc[0]["gold"], gold.iloc[0]["score"]) == ("b", pytest.approx(3 / 5))


def test_strict_on_a_scale_needs_more_than_half_on_one_point():
    definition = define('  - {id: s, kind: scale, min: 1, max: 3, gold: {rule: majority, strict: true}}\n')
    gold = declared_gold(definition, labels_of(definition, {"i1": [{"s": 2}, {"s": 2}, {"s": 3}],
                                                            "i2": [{"s": 2}, {"s": 3}]}))
    assert list(gold["gold"]) == ["2", UNDECIDED]


# --- the ordinal choice's median ---------------------------------------------------------------------------

def difficulty_gold(*given: str) -> tuple[str, float]:
    answers = {"i1": [{"option": 0, "difficulty": d} for d in given]}
    gold = declared_gold(CLOZE, labels_of(CLOZE, answers, {"i1": OPTIONS}))
    row = gold[gold["question"] == "difficulty"].iloc[0]
    return row["gold"], row["score"]


def test_the_median_of_an_odd_count_is_the_middle_rating_in_the_declared_order():
    assert difficulty_gold("hard", "easy", "medium") == ("medium", 2.0)
    assert difficulty_gold("hard", "easy", "hard") == ("hard", 3.0)


def test_the_median_of_an_even_count_with_equal_middle_ratings_is_that_rating():
    assert difficulty_gold("easy", "medium", "medium", "hard") == ("medium", 2.0)


def test_the_median_between_two_ratings_is_undecided_with_the_position_between_them():
    gold, score = difficulty_gold("easy", "medium")
    assert gold == UNDECIDED and score == 1.5


def test_the_numbered_options_majority_gives_the_position():
    answers = {"i1": [{"option": 2, "difficulty": "easy"}, {"option": 2, "difficulty": "easy"},
                      {"option": 0, "difficulty": "easy"}]}
    gold = declared_gold(CLOZE, labels_of(CLOZE, answers, {"i1": OPTIONS}))
    assert gold[gold["question"] == "option"].iloc[0]["gold"] == "2"


# --- agreement ---------------------------------------------------------------------------------------------

def test_an_ordinal_choice_is_measured_in_the_declared_order():
    answers = {"i1": [{"option": 0, "difficulty": "easy"}, {"option": 1, "difficulty": "medium"}],
               "i2": [{"option": 0, "difficulty": "hard"}, {"option": 0, "difficulty": "hard"}]}
    fields = agreement_units(CLOZE, labels_of(CLOZE, answers, {"i1": OPTIONS, "i2": OPTIONS}))
    assert fields["difficulty"].attrs == {"level": "ordinal", "order": ["easy", "medium", "hard"]}
    assert "level" not in fields["option"].attrs
    assert field_agreement("difficulty", fields["difficulty"]).level == "ordinal"


def test_a_merged_figure_maps_each_answer_into_its_categories():
    labels = labels_of(CHECK, {"i1": [{"verdict": "yes"}, {"verdict": "faulty"}, {"verdict": "no"}]})
    fields = agreement_units(CHECK, labels)
    assert list(fields) == ["verdict", "verdict: match"]
    assert list(fields["verdict"]["value"]) == ["yes", "faulty", "no"]
    assert list(fields["verdict: match"]["value"]) == ["match", "no match", "no match"]


def test_a_merged_figure_is_the_agreement_of_the_merged_answers():
    # i1: yes, faulty; i2: no, faulty. Over three verdicts: no unit agrees; merged: i2 agrees (no match twice).
    labels = labels_of(CHECK, {"i1": [{"verdict": "yes"}, {"verdict": "faulty"}],
                               "i2": [{"verdict": "no"}, {"verdict": "faulty"}]})
    fields = agreement_units(CHECK, labels)
    three, merged = field_agreement("verdict", fields["verdict"]), field_agreement("match", fields["verdict: match"])
    assert merged.categories == ["match", "no match"] and three.categories == ["faulty", "no", "yes"]
    assert merged.krippendorff_alpha.value is not None and three.krippendorff_alpha.value is not None
    assert merged.krippendorff_alpha.value > three.krippendorff_alpha.value


def test_a_merged_figures_gold_units_map_the_gold_into_its_categories():
    labels = labels_of(CHECK, {"i1": [{"verdict": "yes"}] * 3, "i2": [{"verdict": "faulty"}] * 3})
    units = gold_units(CHECK, declared_gold(CHECK, labels))
    assert dict(units["verdict"]) == {"i1 / verdict": "yes", "i2 / verdict": "no"}
    assert dict(units["verdict: match"]) == {"i1 / verdict": "match", "i2 / verdict": "no match"}


def test_an_undecided_unit_has_no_merged_gold_unit():
    definition = define('  - id: verdict\n    kind: choice\n    options: ["yes", "no", faulty]\n'
                        '    gold: {rule: majority, strict: true, groups: {"no": [faulty]}}\n'
                        '    agreement: {merged: {match: {no match: ["no", faulty]}}}\n')
    units = gold_units(definition, declared_gold(definition, labels_of(definition, verdicts("yes", "no"))))
    assert units["verdict"].empty and units["verdict: match"].empty


# --- a control item's known answer -------------------------------------------------------------------------

def _read(tmp_path, row: dict) -> list:  # type: ignore[no-untyped-def]
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return read_items(path, CLOZE)


def test_a_known_answer_by_position_is_the_control_items_reference(app, tmp_path):
    [item] = _read(tmp_path, {"id": "q1", "text": "a passage", **OPTIONS, "known.option": 3})
    assert item.reference == {"option": "3"}


def test_a_known_answer_by_text_is_refused_with_its_line_and_column(app, tmp_path):
    with pytest.raises(FormatError) as caught:
        _read(tmp_path, {"id": "q1", "text": "a passage", **OPTIONS, "known.option": "doubled"})
    assert "line 1" in str(caught.value) and "known.option" in str(caught.value)
    assert "'doubled' is not one of '0', '1', '2', '3', '4'" in str(caught.value)


# --- a figure pooled over several questions ----------------------------------------------------------------

POOLED = define('  - {id: masks, kind: choice, options: [for, against], agreement: {pooled: stance}}\n'
                '  - {id: vaccines, kind: choice, options: [for, against], agreement: {pooled: stance}}\n'
                '  - {id: note, kind: choice, options: [for, against]}\n')


def test_a_pooled_figure_holds_each_questions_answers_as_units_of_their_own():
    answers = {"i1": [{"masks": "for", "vaccines": "against", "note": "for"},
                      {"masks": "for", "vaccines": "for", "note": "against"}]}
    fields = agreement_units(POOLED, labels_of(POOLED, answers))
    assert list(fields) == ["masks", "vaccines", "note", "stance (pooled)"]
    pooled = fields["stance (pooled)"]
    assert sorted(set(pooled["unit"])) == ["masks: i1 / masks", "vaccines: i1 / vaccines"]
    assert list(pooled["value"]) == ["for", "for", "against", "for"]


def test_a_pooled_figure_is_the_agreement_of_all_its_questions_answers_together():
    # masks: both say for (agree); vaccines: for / against (disagree) -- pooled: one unit of two agrees
    answers = {"i1": [{"masks": "for", "vaccines": "for", "note": "for"},
                      {"masks": "for", "vaccines": "against", "note": "for"}],
               "i2": [{"masks": "against", "vaccines": "against", "note": "for"},
                      {"masks": "against", "vaccines": "against", "note": "for"}]}
    fields = agreement_units(POOLED, labels_of(POOLED, answers))
    hand = pd.DataFrame({"unit": ["m1", "m1", "v1", "v1", "m2", "m2", "v2", "v2"], "coder": [1, 2] * 4,
                         "value": ["for", "for", "for", "against", "against", "against", "against", "against"]})
    found = field_agreement("pooled", fields["stance (pooled)"])
    expected = field_agreement("hand", hand)
    assert found.units == expected.units == 4
    assert found.krippendorff_alpha.value == pytest.approx(expected.krippendorff_alpha.value)
    assert found.fleiss_kappa.value == pytest.approx(expected.fleiss_kappa.value)


def test_a_pooled_figures_gold_units_are_its_questions_gold():
    answers = {"i1": [{"masks": "for", "vaccines": "against", "note": "for"}] * 3}
    units = gold_units(POOLED, declared_gold(POOLED, labels_of(POOLED, answers)))
    assert dict(units["stance (pooled)"]) == {"masks: i1 / masks": "for", "vaccines: i1 / vaccines": "against"}


def test_a_pooled_figures_name_must_be_an_id():
    error = refused('  - {id: q, kind: choice, options: [a, b], agreement: {pooled: All labels}}\n')
    assert error.path == "questions[0].agreement.pooled" and "must be a figure's name, an id" in error.message


@pytest.mark.parametrize("question", [
    '{id: q, kind: multi, options: [a, b], agreement: {pooled: p}}',
    '{id: q, kind: scale, agreement: {level: interval, pooled: p}}',
    '{id: q, kind: choice, options: [a, b], agreement: {level: ordinal, pooled: p}}',
])
def test_only_nominal_single_answer_questions_are_pooled(question):
    error = refused(f'  - {question}\n')
    assert error.path == "questions[0].agreement.pooled" and "a pooled figure is nominal" in error.message


def test_a_repeat_groups_questions_pool_each_elements_answer_as_a_unit():
    definition = definition_from_text(
        "name: claims\nshow: [text]\nquestions:\n"
        "  - repeat: claims\n"
        "    elements: [{id: masks, text: Masks help.}, {id: vaccines, text: Vaccines help.}]\n"
        "    questions:\n"
        "      - {id: relevance, kind: choice, options: [relevant, irrelevant], agreement: {pooled: labels}}\n"
        "  - {id: tone, kind: choice, options: [relevant, irrelevant], agreement: {pooled: labels}}\n")
    answer = {"claims": {"masks": {"relevance": "relevant"}, "vaccines": {"relevance": "irrelevant"}},
              "tone": "relevant"}
    pooled = agreement_units(definition, labels_of(definition, {"s1": [answer, answer]}))["labels (pooled)"]
    assert sorted(set(pooled["unit"])) == ["relevance: s1 / masks", "relevance: s1 / vaccines", "tone: s1 / tone"]


def test_the_admins_summary_leaves_out_an_option_that_counts_as_another():
    gold = declared_gold(CHECK, labels_of(CHECK, {"i1": [{"verdict": "yes"}] * 3, "i2": [{"verdict": "faulty"}] * 3}))
    assert gold_counts(CHECK, gold) == {"verdict: yes": 1, "verdict: no": 1, "verdict: undecided": 0}
