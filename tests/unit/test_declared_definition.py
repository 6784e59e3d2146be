"""The declared definition's validator: one rule (and its message, key path and line) per test.

The example of issue 26 and tests/data/declared/every_kind.yaml are accepted; every refusal is a DefinitionError
naming the key path, the line where that key (or its nearest parent in the file) is written, and what would fit.
"""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from annotator.declared.definition import DefinitionError, GoldRule
from annotator.declared.definition_reader import definition_from_data, definition_from_file, definition_from_text
from tests.support.declared_projects import EVERY_KIND

ISSUE_EXAMPLE = """\
name: Sarcasm and sentiment
guidelines: guidelines.md
show:
  - {field: text, as: text}
questions:
  - {id: sentiment, kind: choice, prompt: "Sentiment?", options: [negative, neutral, positive],
     gold: {rule: majority, ties: undecided}, agreement: nominal}
  - {id: sarcastic, kind: choice, options: ["yes", "no"], gold: {rule: share, value: "yes", positive: 0.6, negative: 0.15}}
  - {id: cues, kind: span, of: text, when: {sarcastic: "yes"}, gold: {rule: probability}}
  - {id: intensity, kind: scale, min: 1, max: 5, gold: {rule: median}, agreement: ordinal}
"""  # noqa: E501 (the issue's text as it was written)

AB = {"kind": "choice", "options": ["a", "b"]}
BASE = {"name": "n", "show": [{"field": "text"}, {"field": "other"}],
        "questions": [{"id": "q", "kind": "choice", "options": ["a", "b"]}]}


def with_question(**question: object) -> dict:
    return {**BASE, "questions": [{"id": "q", "kind": "choice", "options": ["a", "b"]},
                                  {"id": "r", **question}]}


def refused(source: str | dict) -> DefinitionError:
    """The DefinitionError for YAML text or data (data is also tried as JSON text: same path and message)."""
    with pytest.raises(DefinitionError) as caught:
        definition_from_text(source) if isinstance(source, str) else definition_from_data(source)
    if isinstance(source, dict):
        with pytest.raises(DefinitionError) as as_json:
            definition_from_text(json.dumps(source))
        assert (as_json.value.path, as_json.value.message) == (caught.value.path, caught.value.message)
    return caught.value


def yaml(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# --- accepted ----------------------------------------------------------------------------------------------

def test_the_issue_example_is_accepted_with_guidelines_read_next_to_it(tmp_path: Path):
    (tmp_path / "guidelines.md").write_text("# Read each quote twice\n", encoding="utf-8")
    (tmp_path / "sarcasm.yaml").write_text(ISSUE_EXAMPLE, encoding="utf-8")
    definition = definition_from_file(tmp_path / "sarcasm.yaml")
    assert [q.id for q in definition.questions] == ["sentiment", "sarcastic", "cues", "intensity"]
    assert definition.guidelines == "# Read each quote twice\n"
    sarcastic = definition.question("sarcastic")
    assert sarcastic.gold == GoldRule("share", value="yes", positive=0.6, negative=0.15)
    assert definition.question("cues").when == (("sarcastic", ("yes",)),)
    assert definition.question("intensity").agreement == "ordinal"
    assert definition_from_data(definition.to_data()) == definition


def test_every_kind_yaml_is_accepted_and_round_trips_through_json():
    definition = definition_from_file(EVERY_KIND)
    assert [q.kind for q in definition.questions] == ["choice", "choice", "span", "multi", "scale", "pairwise", "text"]
    assert definition_from_text(json.dumps(definition.to_data())) == definition


def test_json_text_is_read_as_json_exponents_and_tabs_included():
    data = with_question(kind="scale", min=0, max=1e-3, step=1e-4)
    definition = definition_from_text(json.dumps(data, indent="\t"))
    assert definition.questions[1].step == pytest.approx(1e-4)


# --- defaults ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("kind", "extra", "rule", "level"), [
    ("choice", {"options": ["a", "b"]}, "majority", "nominal"),
    ("multi", {"options": ["a", "b"]}, "majority", "nominal"),
    ("scale", {}, "median", "interval"),
    ("span", {"of": "text"}, "probability", "nominal"),
    ("pairwise", {"a": "text", "b": "other"}, "bradley_terry", "nominal"),
])
def test_gold_rule_and_agreement_level_default_per_kind(kind: str, extra: dict, rule: str, level: str):
    question = definition_from_data(with_question(kind=kind, **extra)).questions[1]
    assert (question.gold, question.agreement) == (GoldRule(rule), level)


def test_a_text_question_has_no_gold_and_no_agreement():
    question = definition_from_data(with_question(kind="text")).questions[1]
    assert (question.gold, question.agreement, question.max_length) == (None, None, 500)
    assert refused(with_question(kind="text", gold="majority")).path == "questions[1].gold"
    assert refused(with_question(kind="text", agreement="nominal")).path == "questions[1].agreement"


def test_a_gold_rule_may_be_given_by_its_name_alone():
    question = definition_from_data(with_question(kind="scale", gold="mean")).questions[1]
    assert question.gold == GoldRule("mean")


def test_share_thresholds_default_to_60_and_15_percent():
    data = with_question(kind="multi", options=["a", "b"], gold={"rule": "share"})
    gold = definition_from_data(data).questions[1].gold
    assert (gold.positive, gold.negative) == (0.6, 0.15)


def test_prompt_defaults_to_the_id_and_required_to_true_null_meaning_the_default():
    question = definition_from_data(with_question(kind="text", required=None)).questions[1]
    assert (question.prompt, question.required) == ("r", True)


# --- lines -------------------------------------------------------------------------------------------------

def test_the_line_of_a_key_in_flow_style_spanning_lines():
    text = ISSUE_EXAMPLE.replace("positive: 0.6", "positive: 1.6")
    error = refused(text)
    assert (error.path, error.line) == ("questions[1].gold.positive", 8)
    assert str(error) == "definition: questions[1].gold.positive: must be between 0 and 1, not 1.6, line 8"


def test_the_line_of_a_key_in_block_style():
    error = refused(yaml("""
        name: n
        show: [text]
        questions:
          - id: q
            kind: choice
            options: [a, b]
            gold:
              rule: share
              value: a
              positive: 1.6
        """))
    assert (error.path, error.line) == ("questions[0].gold.positive", 10)
    assert error.message == "must be between 0 and 1, not 1.6"


def test_a_missing_key_is_placed_on_its_nearest_parent():
    error = refused(yaml("""
        name: n
        show: [text]
        questions:
          - id: q
            kind: span
        """))
    assert (error.path, error.line, error.message) == ("questions[0].of", 4, "is required")


def test_the_line_of_a_second_entry_of_a_flow_list_on_its_own_line():
    error = refused(yaml("""
        name: n
        show: [text]
        questions: [{id: q, kind: choice, options: [a, b]},
                    {id: q, kind: text}]
        """))
    assert (error.path, error.line) == ("questions[1].id", 4)
    assert "earlier question" in error.message


def test_a_yaml_syntax_error_names_its_line():
    error = refused("name: n\nshow: [text\nquestions: []\n")
    assert (error.path, error.line) == ("", 3)
    assert error.message == ("not valid YAML: the list in brackets [ ] opened at line 2, column 7 is not closed "
                             "(expected ',' or ']', but got ':')")


SPACES = "; use spaces consistently (the same number of them for every key of one mapping)"


def test_a_key_indented_more_than_the_key_above_is_named_with_where_it_should_start():
    error = refused(textwrap.dedent("""\
        name: Sarcasm
        show: [text]
        questions:
          - id: sarcastic
            kind: choice
              options: ["yes", "no"]
        """))
    assert (error.line, error.column) == (6, 7)
    assert error.message == ("not valid YAML: this line (column 7) is indented more than line 5 above it (its key: "
                             "column 5), which already has its value, so nothing can be nested under it; start this "
                             "line in column 5 to make it a key beside line 5's" + SPACES)
    assert str(error).endswith(", line 6, column 7")


def test_a_key_indented_less_than_the_key_above_is_named_instead_of_the_parsers_block_end():
    error = refused(textwrap.dedent("""\
        name: Sarcasm
        show: [text]
        questions:
          - id: sarcastic
           kind: choice
        """))
    assert (error.line, error.column) == (5, 4)
    assert error.message == ("not valid YAML: this line (column 4) is indented less than line 4 above it (its key: "
                             "column 5), and no key or list entry above it starts in column 4: start it in column 5 "
                             "to make it a key beside line 4's, or in column 1 or 3 to end that block" + SPACES)
    assert "<block" not in error.message


def test_a_top_level_key_indented_less_than_a_nested_one_says_where_the_top_level_keys_start():
    error = refused("name: Sarcasm\nquestions:\n    - id: q\n      kind: choice\n  show: [text]\n")
    assert (error.line, error.column) == (5, 3)
    assert "start it in column 7 to make it a key beside line 4's, or in column 1 or 5 to end that block" in \
        error.message


def test_a_list_entry_out_of_line_with_the_entries_above_says_where_they_start():
    error = refused(textwrap.dedent("""\
        name: Sarcasm
        show: [text]
        questions:
          - id: sarcastic
            kind: choice
            options: ["yes", "no"]
         - id: tone
        """))
    assert (error.line, error.column) == (7, 2)
    assert error.message == ("not valid YAML: this line (column 2) is indented less than line 6 above it (its key: "
                             "column 5); a list entry starts where the entries above it start their - (column 3)"
                             + SPACES)


def test_a_key_without_its_colon_is_named_on_its_own_line():
    error = refused("name: Sarcasm\nshow\nquestions: []\n")
    assert (error.line, error.column) == (2, 1)
    assert error.message.startswith("not valid YAML: this line has no colon after its key; write it as key: value")


def test_a_tab_that_indents_a_line_is_named_as_such():
    error = refused("name: Sarcasm\nshow: [text]\nquestions:\n\t- {id: q, kind: choice, options: [a, b]}\n")
    assert (error.line, error.column) == (4, 1)
    assert error.message == "not valid YAML: a tab indents this line, and tabs cannot indent YAML; indent with spaces"


def test_a_tab_between_a_key_and_its_value_is_named_with_its_column():
    error = refused("name: Sarcasm\nk:\t3\nshow: [text]\n")
    assert (error.line, error.column) == (2, 3)
    assert error.message == ("not valid YAML: a tab in column 3, where YAML takes only spaces (tabs cannot indent "
                             "YAML, nor separate a key from its value); use spaces")


def test_a_colon_inside_a_value_asks_for_quotes():
    error = refused("name: Tone: of quotes\nshow: [text]\n")
    assert (error.line, error.column) == (1, 11)
    assert "a colon followed by a space inside a value" in error.message and 'put the value in quotes' in error.message


def test_an_unclosed_quote_says_where_it_was_opened():
    error = refused("name: 'Tone\nshow: [text]\n")
    assert error.message.startswith("not valid YAML: the quoted text opened at line 1, column 7 is not closed")


def test_json_errors_name_the_line_too():
    text = json.dumps(with_question(kind="scale", step=0.3), indent=2)
    error = refused(text)
    assert error.path == "questions[1].step"
    assert text.splitlines()[error.line - 1].strip().startswith('"step"')


# --- reading -----------------------------------------------------------------------------------------------

def test_a_key_written_twice_is_refused_with_both_lines():
    error = refused("name: n\nshow: [text]\nname: m\nquestions: [{id: q, kind: text}]\n")
    assert (error.path, error.line) == ("name", 3)
    assert "twice" in error.message and "lines 1 and 3" in error.message


def test_deep_nesting_is_refused_not_a_recursion_error():
    error = refused("name: n\nshow: [text]\nquestions: " + "[" * 5000 + "]" * 5000 + "\n")
    assert error.line == 3 and "nest" in error.message


def test_aliases_do_not_blow_up():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8))
    error = refused(bomb + "name: n\n")
    assert error.path == "a" and "unknown key" in error.message


def test_a_number_of_thousands_of_digits_is_refused_with_its_path():
    error = refused("name: n\nshow: [text]\nk: " + "9" * 5000 + "\nquestions: [{id: q, kind: text}]\n")
    assert (error.path, error.line) == ("k", 3)


def test_a_file_that_is_not_utf8_names_the_line_of_the_bad_byte(tmp_path: Path):
    path = tmp_path / "d.yaml"
    path.write_bytes(b"name: n\nshow: [text]\nquestions: [{id: q, kind: text, prompt: \"caf\xe9\"}]\n")
    error = refused_file(path)
    assert error.line == 3 and "not UTF-8" in error.message and "0xe9" in error.message


def test_a_missing_file_is_a_definition_error(tmp_path: Path):
    assert "cannot be read" in refused_file(tmp_path / "nothing.yaml").message


def refused_file(path: Path) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        definition_from_file(path)
    return caught.value


def test_an_empty_document_is_refused_as_not_a_mapping():
    error = refused("")
    assert (error.path, error.line) == ("", 1) and "must be a mapping" in error.message


# --- top level ---------------------------------------------------------------------------------------------

def test_name_show_and_questions_are_required():
    assert refused({"show": ["text"], "questions": []}).path == "name"
    assert refused({"name": "n", "questions": []}).path == "show"
    assert refused({"name": "n", "show": ["text"]}).path == "questions"


def test_an_unknown_key_suggests_the_known_one_it_resembles():
    error = refused({**BASE, "questoins": []})
    assert error.path == "questoins" and "did you mean 'questions'?" in error.message


def test_licence_and_license_are_one_key():
    assert definition_from_data({**BASE, "license": "CC BY 4.0"}).licence == "CC BY 4.0"
    assert definition_from_data({**BASE, "license": "CC0"}).to_data()["licence"] == "CC0"
    assert refused({**BASE, "licence": "a", "license": "b"}).path == "license"


def test_language_is_one_code_or_a_list_of_codes():
    assert definition_from_data({**BASE, "language": "ru"}).language == ("ru",)
    assert definition_from_data({**BASE, "language": ["en", "pt-BR"]}).language == ("en", "pt-BR")
    assert definition_from_data(BASE).language == ()


def test_a_language_that_is_not_a_code_is_refused_by_its_place_in_the_list():
    error = refused({**BASE, "language": ["en", "English"]})
    assert (error.path, error.message) == ("language[1]", "'English' is not a language code: two or three "
                                           "lower-case letters (ISO 639: en, de, ru), with a region after a hyphen "
                                           "if needed (pt-BR)")
    assert refused({**BASE, "language": ["en", "en"]}).message == "'en' is listed twice"


def test_norwegian_written_bare_is_read_as_false_and_refused_with_the_quoting_hint():
    error = refused("name: n\nlanguage: no\nshow: [text]\nquestions: [{id: q, kind: choice, options: [a, b]}]\n")
    assert error.path == "language" and error.line == 2 and 'quote "yes" and "no"' in error.message


def test_k_is_a_whole_number_from_1_to_100():
    assert definition_from_data({**BASE, "k": 5}).k == 5
    assert refused({**BASE, "k": 0}).message == "must be between 1 and 100, not 0"
    assert refused({**BASE, "k": 2.5}).message == "must be a whole number between 1 and 100, not 2.5"


def test_yes_unquoted_is_refused_where_text_is_expected_with_the_hint_to_quote_it():
    error = refused("name: yes\nshow: [text]\nquestions: [{id: q, kind: text}]\n")
    assert error.path == "name" and 'quote "yes" and "no"' in error.message


def test_nan_and_infinity_are_not_numbers_nor_text():
    assert "nan" in refused({**BASE, "k": float("nan")}).message
    assert refused(with_question(kind="choice", options=["a", float("inf")])).path == "questions[1].options[1]"


def test_nul_and_lone_surrogates_are_refused_in_text():
    assert "NUL" in refused({**BASE, "name": "a\x00b"}).message
    assert "surrogate" in refused({**BASE, "name": "a\ud800"}).message


# --- show ----------------------------------------------------------------------------------------------------

def test_show_entries_are_field_names_or_mappings_and_as_is_one_of_four():
    definition = definition_from_data({**BASE, "show": ["text", {"field": "picture", "as": "image_url"}]})
    assert [(s.field, s.kind) for s in definition.show] == [("text", "text"), ("picture", "image_url")]
    error = refused({**BASE, "show": [{"field": "text", "as": "html"}]})
    assert error.path == "show[0].as" and "text, title, markdown, image_url" in error.message


def test_the_id_field_cannot_be_shown_and_a_field_only_once():
    assert "item's id" in refused({**BASE, "show": ["id"]}).message
    assert refused({**BASE, "show": ["text", "text"]}).path == "show[1].field"


def test_a_field_name_with_a_final_newline_is_not_a_field_name():
    assert refused({**BASE, "show": ["text\n"]}).path == "show[0].field"


# --- questions ---------------------------------------------------------------------------------------------

def test_ids_are_lower_case_identifiers_without_a_final_newline():
    assert refused(with_question(id="Bad", kind="text")).path == "questions[1].id"
    assert refused(with_question(id="ok\n", kind="text")).path == "questions[1].id"


def test_an_unknown_kind_lists_the_kinds():
    error = refused(with_question(kind="hotspot"))
    assert error.path == "questions[1].kind" and "choice, multi, scale, span, pairwise, text, spans, ranking" in \
        error.message


def test_a_key_of_another_kind_is_named_as_such():
    error = refused(with_question(**AB, min=1))
    assert error.path == "questions[1].min" and "is a key of scale questions" in error.message


def test_choice_needs_options_or_options_from_not_both():
    assert "one of the two" in refused(with_question(kind="choice")).message
    assert "one of the two" in refused(with_question(**AB, options_from="kps")).message
    assert definition_from_data(with_question(kind="choice", options_from="kps")).questions[1].options_from == "kps"


def test_options_are_two_or_more_distinct_values():
    error = refused(with_question(kind="choice", options=["a"]))
    assert (error.path, error.message) == ("questions[1].options", "must list at least two options, not 1")
    error = refused(with_question(kind="choice", options=["a", "b", "a"]))
    assert (error.path, error.message) == ("questions[1].options[2]", "'a' is listed twice")


def test_an_option_cannot_be_called_undecided():
    assert refused(with_question(kind="choice", options=["a", "undecided"])).path == "questions[1].options[1]"


def test_an_option_may_have_a_label_and_a_number_is_its_text():
    data = with_question(kind="choice", options=[{"value": "p", "label": "Positive"}, 2])
    question = definition_from_data(data).questions[1]
    assert [(o.value, o.label) for o in question.options] == [("p", "Positive"), ("2", "2")]


def test_option_texts_have_a_length_limit_in_either_form():
    assert refused(with_question(kind="choice", options=["a", "x" * 101])).path == "questions[1].options[1]"
    error = refused(with_question(kind="choice", options=["a", {"value": "x" * 101}]))
    assert error.path == "questions[1].options[1].value"


def test_scale_max_must_be_above_min():
    error = refused(with_question(kind="scale", min=5, max=5))
    assert error.path == "questions[1].max" and "above min (5)" in error.message


def test_scale_min_alone_above_the_default_max_is_blamed_on_min():
    assert refused(with_question(kind="scale", min=7)).path == "questions[1].min"


def test_scale_step_must_divide_the_range():
    error = refused(with_question(kind="scale", min=1, max=5, step=3))
    assert error.path == "questions[1].step" and "whole steps" in error.message
    tenths = definition_from_data(with_question(kind="scale", min=0, max=1, step=0.1)).questions[1]
    assert tenths.scale_values()[3] == 0.3


def test_scale_has_at_most_101_points():
    assert "at most 101" in refused(with_question(kind="scale", min=0, max=1000, step=1)).message


def test_scale_anchors_are_two_texts():
    assert refused(with_question(kind="scale", anchors=["low"])).path == "questions[1].anchors"
    assert refused(with_question(kind="scale", anchors=["low", True])).path == "questions[1].anchors[1]"


def test_span_of_must_be_a_shown_text_field():
    error = refused({**BASE, "show": ["text", {"field": "pic", "as": "image_url"}],
                     "questions": [{"id": "s", "kind": "span", "of": "pic"}]})
    assert error.path == "questions[0].of" and "(text)" in error.message


def test_pairwise_compares_two_different_shown_fields():
    assert refused(with_question(kind="pairwise", a="text", b="nope")).path == "questions[1].b"
    assert refused(with_question(kind="pairwise", a="text", b="text")).path == "questions[1].b"
    error = refused(with_question(kind="pairwise", a="text", b="other", players=["x", "x"]))
    assert error.path == "questions[1].players"


def test_text_max_length_is_1_to_10000():
    assert refused(with_question(kind="text", max_length=0)).path == "questions[1].max_length"


# --- when ----------------------------------------------------------------------------------------------------

def test_when_names_an_earlier_question_and_one_of_its_answers():
    question = definition_from_data(with_question(kind="text", when={"q": ["a", "b"]})).questions[1]
    assert question.when == (("q", ("a", "b")),)


def test_when_naming_a_later_or_unknown_question_lists_the_earlier_ones():
    error = refused({**BASE, "questions": [{"id": "q", "kind": "text", "when": {"r": "a"}},
                                           {"id": "r", "kind": "choice", "options": ["a", "b"]}]})
    assert (error.path, error.message) == ("questions[0].when.r", "'r' is not an earlier question "
                                           "(earlier questions: none: this is the first question)")


def test_when_cannot_name_the_question_itself():
    assert "itself" in refused(with_question(**AB, when={"r": "a"})).message


def test_when_with_an_answer_the_question_cannot_have():
    error = refused(with_question(kind="text", when={"q": "c"}))
    assert (error.path, error.message) == ("questions[1].when.q", "'c' is not an answer of 'q' (a, b)")


def test_when_on_a_scale_takes_numbers_on_the_scale():
    data = {**BASE, "questions": [{"id": "s", "kind": "scale"}, {"id": "t", "kind": "text", "when": {"s": [4, 5]}}]}
    assert definition_from_data(data).questions[1].when == (("s", ("4", "5")),)
    data["questions"][1]["when"] = {"s": 4.5}
    assert "not an answer of 's'" in refused(data).message


def test_when_on_a_text_question_is_refused():
    data = {**BASE, "questions": [{"id": "t", "kind": "text"}, {"id": "u", "kind": "text", "when": {"t": "x"}}]}
    assert "cannot decide" in refused(data).message


def test_when_with_yes_unquoted_hints_at_quoting():
    error = refused(ISSUE_EXAMPLE.replace('when: {sarcastic: "yes"}', "when: {sarcastic: yes}"))
    assert (error.path, error.line) == ("questions[2].when.sarcastic", 9) and 'quote "yes"' in error.message


# --- gold rules --------------------------------------------------------------------------------------------------

def test_a_rule_not_fitting_the_kind_lists_the_ones_that_do():
    error = refused(with_question(kind="span", of="text", gold="median"))
    assert (error.path, error.message) == ("questions[1].gold.rule", "'median' does not apply to a span question; "
                                           "use one of probability, share")


def test_majority_ties_are_undecided_or_an_answer():
    assert definition_from_data(with_question(**AB, gold={"rule": "majority", "ties": "b"}))
    assert refused(with_question(**AB, gold={"rule": "majority", "ties": "c"})).path \
        == "questions[1].gold.ties"


def test_share_of_a_choice_needs_the_counted_value():
    error = refused(with_question(**AB, gold={"rule": "share"}))
    assert error.path == "questions[1].gold.value" and "is required" in error.message


def test_share_of_multi_or_span_has_no_value():
    error = refused(with_question(kind="span", of="text", gold={"rule": "share", "value": "x"}))
    assert "leave value out" in error.message


def test_share_negative_must_be_below_positive():
    gold = {"rule": "share", "positive": 0.3, "negative": 0.5}
    error = refused(with_question(kind="multi", options=["a", "b"], gold=gold))
    assert error.path == "questions[1].gold.negative" and "below positive (0.3)" in error.message


def test_agree_m_value_and_otherwise():
    data = with_question(**AB, gold={"rule": "agree", "m": 3, "value": "a", "otherwise": "b"})
    gold = definition_from_data(data).questions[1].gold
    assert gold == GoldRule("agree", m=3, value="a", otherwise="b")
    assert refused(with_question(**AB, gold={"rule": "agree", "otherwise": "c"})).path \
        == "questions[1].gold.otherwise"


def test_agree_m_cannot_exceed_k():
    error = refused({**with_question(**AB, gold={"rule": "agree", "m": 4}), "k": 3})
    assert error.path == "questions[1].gold.m" and "at most 3" in error.message


def test_a_key_another_rule_has_is_named_with_the_rules_keys():
    error = refused(with_question(**AB, gold={"rule": "majority", "m": 2}))
    assert (error.path, error.message) == ("questions[1].gold.m",
                                           "the majority rule has no 'm'; its keys: rule, ties, strict, groups, "
                                           "also")


@pytest.mark.parametrize(("kind", "extra", "rule"), [
    ("choice", {"options": ["a", "b"]}, "dawid_skene"), ("multi", {"options": ["a", "b"]}, "dawid_skene"),
    ("scale", {}, "mean"), ("scale", {}, "majority"), ("scale", {}, "agree"),
    ("pairwise", {"a": "text", "b": "other"}, "majority"), ("pairwise", {"a": "text", "b": "other"}, "dawid_skene"),
])
def test_other_rules_per_kind(kind: str, extra: dict, rule: str):
    assert definition_from_data(with_question(kind=kind, gold=rule, **extra)).questions[1].gold.rule == rule


def test_pairwise_ties_may_be_equal_only_when_equal_is_allowed():
    ok = with_question(kind="pairwise", a="text", b="other", gold={"rule": "majority", "ties": "equal"})
    assert definition_from_data(ok).questions[1].gold.ties == "equal"
    assert refused({**ok, "questions": [ok["questions"][0], {**ok["questions"][1], "allow_equal": False}]}).path \
        == "questions[1].gold.ties"


# --- agreement ---------------------------------------------------------------------------------------------------

def test_ordinal_and_interval_are_for_scales_and_ordinal_for_choices_only():
    # an ordinal choice (docs/declared-options.md) is tested in tests/unit/test_declared_options.py
    assert definition_from_data(with_question(kind="scale", agreement="ordinal")).questions[1].agreement == "ordinal"
    error = refused(with_question(kind="multi", options=["a", "b"], agreement="ordinal"))
    assert error.path == "questions[1].agreement" and "nominal" in error.message
    error = refused(with_question(**AB, agreement="interval"))
    assert error.path == "questions[1].agreement" and "nominal or ordinal" in error.message
    assert refused(with_question(kind="scale", agreement="ratio")).path == "questions[1].agreement"


# --- guidelines ----------------------------------------------------------------------------------------------

def test_guidelines_outside_the_definitions_folder_are_refused(tmp_path: Path):
    (tmp_path / "secret.md").write_text("no", encoding="utf-8")
    folder = tmp_path / "campaign"
    folder.mkdir()
    (folder / "d.yaml").write_text(ISSUE_EXAMPLE.replace("guidelines.md", "../secret.md"), encoding="utf-8")
    error = refused_file(folder / "d.yaml")
    assert (error.path, error.line) == ("guidelines", 2) and "outside the definition's folder" in error.message


def test_guidelines_naming_a_missing_file_are_refused(tmp_path: Path):
    (tmp_path / "d.yaml").write_text(ISSUE_EXAMPLE, encoding="utf-8")
    error = refused_file(tmp_path / "d.yaml")
    assert (error.path, error.line) == ("guidelines", 2) and "cannot be read" in error.message


def test_guidelines_written_out_are_kept_as_text(tmp_path: Path):
    (tmp_path / "d.yaml").write_text(ISSUE_EXAMPLE.replace("guidelines.md", "Read twice."), encoding="utf-8")
    assert definition_from_file(tmp_path / "d.yaml").guidelines == "Read twice."


def test_guidelines_with_a_nul_in_the_file_name_are_refused_as_a_definition_error(tmp_path: Path):
    (tmp_path / "d.yaml").write_text(ISSUE_EXAMPLE.replace("guidelines.md", '"a\\0.md"'), encoding="utf-8")
    assert refused_file(tmp_path / "d.yaml").path == "guidelines"


def test_an_escaped_surrogate_pair_in_yaml_is_one_character_as_in_json():
    text = 'name: "\\ud83d\\ude00"\nshow: [text]\nquestions: [{id: q, kind: text}]\n'
    assert definition_from_text(text).name == "\U0001F600"


def test_a_character_yaml_does_not_allow_is_named_with_its_line():
    error = refused("name: n\nshow: [text]\nquestions: [{id: q, kind: text, prompt: \"a\x07\"}]\n")
    assert error.line == 3 and "U+0007" in error.message
