"""Further decisions per unit from one question's votes (`gold.also`, annotator/declared/also.py): the definition's
checks with the key path of each refusal, each rule against hand counts, and the gold frame's columns."""
from __future__ import annotations

from typing import Any

import pytest

from annotator.declared.definition import NOT_ASKED, UNDECIDED, Definition, DefinitionError
from annotator.declared.definition_reader import definition_from_text
from annotator.declared.gold import GOLD_COLUMNS, declared_gold, gold_counts
from tests.support.declared_labels import labels_of

VERDICT = '  - id: verdict\n    kind: choice\n    options: ["yes", "no", faulty]\n'


def define(questions: str, k: int | None = None) -> Definition:
    return definition_from_text(f"name: test\n{f'k: {k}' if k else ''}\nshow: [text]\nquestions:\n{questions}")


def with_also(also: str, gold: str = "rule: majority") -> Definition:
    return define(f"{VERDICT}    gold: {{{gold}, also: {{{also}}}}}\n")


def refused(questions: str, k: int | None = None) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        define(questions, k)
    return caught.value


def refused_also(also: str) -> DefinitionError:
    return refused(f"{VERDICT}    gold: {{rule: majority, also: {{{also}}}}}\n")


def decided(definition: Definition, *given: str, name: str = "d") -> Any:
    gold = declared_gold(definition, labels_of(definition, {"i1": [{"verdict": v} for v in given]}))
    [row] = gold.itertuples()
    return getattr(row, name)


# --- the rules ----------------------------------------------------------------------------------------------------

STRICT = with_also("d: {value: faulty, rule: majority, strict: true}")


def test_a_strict_majority_decision_is_1_when_more_than_half_gave_the_value():
    assert decided(STRICT, "faulty", "faulty", "yes") == "1"


def test_a_strict_majority_decision_is_0_at_exactly_half():
    assert decided(STRICT, "faulty", "faulty", "yes", "no") == "0"


def test_a_strict_majority_decision_counts_the_other_answers_together_against_the_value():
    """faulty is the most given answer (2 of 5) but not more than half of the annotators."""
    assert decided(STRICT, "faulty", "faulty", "yes", "no", "no") == "0"


def test_a_majority_decision_gives_its_ties_at_exactly_half():
    assert decided(with_also("d: {value: faulty}"), "faulty", "yes") == UNDECIDED
    assert decided(with_also('d: {value: faulty, ties: "1"}'), "faulty", "yes") == "1"


def test_a_share_decision_is_decided_by_its_thresholds():
    definition = with_also("d: {value: faulty, rule: share, positive: 0.6, negative: 0.2}")
    assert [decided(definition, *given) for given in (("faulty", "faulty", "yes"), ("faulty", "yes"),
                                                      ("yes", "yes", "no", "no", "faulty"))] == ["1", UNDECIDED, "0"]


def test_an_agree_decision_is_1_when_at_least_m_gave_the_value():
    definition = with_also('d: {value: "yes", rule: agree, m: 2, otherwise: "0"}')
    assert decided(definition, "yes", "yes", "no", "no", "no") == "1"
    assert decided(definition, "yes", "no", "no") == "0"


def test_a_decision_over_a_list_of_values_counts_them_together():
    definition = with_also('d: {value: ["no", faulty], rule: majority, strict: true}')
    assert decided(definition, "no", "faulty", "yes") == "1"


def test_a_decision_does_not_change_the_question_s_gold():
    plain = define(f'{VERDICT}    gold: {{rule: majority, strict: true, groups: {{"no": ["no", faulty]}}, '
                   'ties: "no"}\n')
    grouped = with_also("d: {value: faulty, strict: true}", 'rule: majority, strict: true, groups: {"no": ["no", '
                                                           'faulty]}, ties: "no"')
    answers = {"i1": [{"verdict": v} for v in ("faulty", "faulty", "yes")], "i2": [{"verdict": "yes"}] * 2}
    assert declared_gold(grouped, labels_of(grouped, answers))[GOLD_COLUMNS].equals(
        declared_gold(plain, labels_of(plain, answers)))


def test_a_scale_decision_counts_a_point():
    definition = define("  - id: stars\n    kind: scale\n"
                        "    gold: {rule: median, also: {top: {value: 5, strict: true}}}\n")
    gold = declared_gold(definition, labels_of(definition, {"i1": [{"stars": 5}, {"stars": 5}, {"stars": 2}]}))
    assert list(gold["top"]) == ["1"]


def test_a_pairwise_decision_counts_a_side():
    definition = definition_from_text("name: test\nshow: [first, second]\nquestions:\n"
                                      "  - id: better\n    kind: pairwise\n    a: first\n    b: second\n"
                                      "    gold: {rule: majority, "
                                      "also: {mostly_equal: {value: equal, strict: true}}}\n")
    gold = declared_gold(definition, labels_of(definition, {"i1": [{"better": "equal"}] * 2 + [{"better": "A"}]}))
    assert list(gold["mostly_equal"]) == ["1"]


def test_a_decision_is_n_a_where_its_question_was_not_asked():
    definition = define('  - {id: sarcastic, kind: choice, options: ["yes", "no"]}\n'
                        '  - id: target\n    kind: choice\n    options: [person, group]\n    when: {sarcastic: "yes"}\n'
                        '    gold: {rule: majority, also: {personal: {value: person, strict: true}}}\n')
    gold = declared_gold(definition, labels_of(definition, {"i1": [{"sarcastic": "no"}] * 3}))
    assert list(gold.loc[gold["question"] == "target", "personal"]) == [NOT_ASKED]


# --- the gold frame -----------------------------------------------------------------------------------------------

def test_the_decision_s_column_is_empty_on_the_other_questions_rows():
    definition = define(f"{VERDICT}    gold: {{rule: majority, also: {{d: {{value: faulty}}}}}}\n"
                        "  - {id: stars, kind: scale}\n")
    gold = declared_gold(definition, labels_of(definition, {"i1": [{"verdict": "faulty", "stars": 3}]}))
    assert list(gold.columns) == [*GOLD_COLUMNS, "d"]
    assert dict(zip(gold["question"], gold["d"])) == {"verdict": "1", "stars": None}


def test_a_definition_without_decisions_has_the_gold_columns_it_always_had():
    definition = define(VERDICT)
    assert list(declared_gold(definition, labels_of(definition, {"i1": [{"verdict": "yes"}]})).columns) == GOLD_COLUMNS


def test_the_gold_of_no_votes_has_the_decision_s_column():
    assert list(declared_gold(STRICT, labels_of(STRICT, {})).columns) == [*GOLD_COLUMNS, "d"]


def test_the_admin_summary_counts_each_decision_s_outcomes():
    gold = declared_gold(STRICT, labels_of(STRICT, {"i1": [{"verdict": "faulty"}] * 2,
                                                    "i2": [{"verdict": "yes"}] * 2, "i3": [{"verdict": "no"}] * 2}))
    counts = gold_counts(STRICT, gold)
    assert (counts["d: 1"], counts["d: 0"], counts[f"d: {UNDECIDED}"]) == (1, 2, 0)


# --- the definition's checks --------------------------------------------------------------------------------------

def test_a_decision_s_value_must_be_an_answer_of_the_question():
    error = refused_also("d: {value: broken}")
    assert error.path == "questions[0].gold.also.d.value" and "'broken' is not an answer" in error.message


def test_a_decision_needs_a_value():
    error = refused_also("d: {rule: majority}")
    assert error.path == "questions[0].gold.also.d.value" and "is required" in error.message


def test_a_decision_s_name_must_be_an_id():
    error = refused_also("Mostly Faulty: {value: faulty}")
    assert error.path == "questions[0].gold.also.Mostly Faulty" and "must be an id" in error.message


def test_a_decision_cannot_be_named_as_a_gold_column():
    error = refused_also("votes: {value: faulty}")
    assert error.path == "questions[0].gold.also.votes" and "is a column of the gold already" in error.message


def test_two_questions_cannot_name_a_decision_alike():
    error = refused(f"{VERDICT}    gold: {{rule: majority, also: {{d: {{value: faulty}}}}}}\n"
                    "  - id: second\n    kind: choice\n    options: [a, b]\n"
                    "    gold: {rule: majority, also: {d: {value: a}}}\n")
    assert error.path == "questions[1].gold.also.d" and "names a decision of question 'verdict'" in error.message


def test_a_decision_s_rule_must_be_majority_share_or_agree():
    error = refused_also("d: {value: faulty, rule: dawid_skene}")
    assert error.path == "questions[0].gold.also.d.rule" and "majority, share, agree" in error.message


def test_a_decision_s_keys_are_its_rule_s():
    error = refused_also("d: {value: faulty, rule: majority, m: 2}")
    assert error.path == "questions[0].gold.also.d.m" and "unknown key" in error.message


def test_a_decision_s_outcome_is_1_0_or_undecided():
    error = refused_also("d: {value: faulty, ties: faulty}")
    assert error.path == "questions[0].gold.also.d.ties" and "is not an outcome" in error.message


def test_a_strict_decision_has_no_ties():
    error = refused_also('d: {value: faulty, strict: true, ties: "1"}')
    assert error.path == "questions[0].gold.also.d.ties" and "leave ties out" in error.message


def test_an_agree_decision_s_m_is_at_most_k():
    error = refused(f"{VERDICT}    gold: {{rule: majority, also: {{d: {{value: faulty, rule: agree, m: 4}}}}}}\n", k=3)
    assert error.path == "questions[0].gold.also.d.m" and "at most 3" in error.message


def test_a_multi_question_has_no_further_decisions():
    error = refused("  - id: topics\n    kind: multi\n    options: [a, b]\n"
                    "    gold: {rule: majority, also: {d: {value: a}}}\n")
    assert error.path == "questions[0].gold.also" and "not a multi question" in error.message


def test_also_must_map_names_to_rules():
    error = refused(f"{VERDICT}    gold: {{rule: majority, also: [faulty]}}\n")
    assert error.path == "questions[0].gold.also" and "must map a decision's name to its rule" in error.message


def _known(definition: Definition, *given: str) -> Any:
    from annotator.declared.controls import control_reference
    gold = declared_gold(definition, labels_of(definition, {"i1": [{"verdict": v} for v in given]}))
    return control_reference(definition, "i1", gold, {"text": "t"})


def test_a_known_decision_that_holds_names_the_known_answer_instead_of_the_gold():
    definition = with_also("d: {value: faulty, rule: majority, strict: true, known: true}",
                           'rule: majority, strict: true, groups: {"no": ["no", faulty]}')
    assert _known(definition, "faulty", "faulty", "no") == {"verdict": "faulty"}   # gold "no", mostly faulty


def test_a_known_decision_that_does_not_hold_leaves_the_gold_as_the_known_answer():
    definition = with_also("d: {value: faulty, rule: majority, strict: true, known: true}",
                           'rule: majority, strict: true, groups: {"no": ["no", faulty]}')
    assert _known(definition, "faulty", "no", "no") == {"verdict": "no"}


def test_a_decision_not_marked_known_leaves_the_gold_as_the_known_answer():
    definition = with_also("d: {value: faulty, rule: majority, strict: true}",
                           'rule: majority, strict: true, groups: {"no": ["no", faulty]}')
    assert _known(definition, "faulty", "faulty", "no") == {"verdict": "no"}


def test_a_known_decision_must_count_one_value():
    error = refused_also('d: {value: ["no", faulty], known: true}')
    assert error.path == "questions[0].gold.also.d.known" and "one answer" in str(error)
