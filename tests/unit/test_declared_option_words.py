"""Words beside the answers (annotator/declared/option_words.py): an option's description and a scale's words on
every point are read from the definition, refused with their key path and line when wrong, stored as the answer's
value is (the words are never the answer), listed by the JSON API's questions, drawn by the form and written on the
data card. The HIT itself (keys, 375 px, axe): tests/browser/test_declared_option_words_hit.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from annotator.declared.answers import check_answer, public_questions
from annotator.declared.definition import DefinitionError, OptionSpec
from annotator.declared.definition_reader import definition_from_file, definition_from_text
from annotator.declared.form import choices_of
from annotator.shared_tasks.custom.data_card import _question_line

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "claim_stance_likert.yaml"
AGREE = ["Strongly disagree", "Disagree", "Neither", "Agree", "Strongly agree"]


def define(questions: str) -> object:
    return definition_from_text(f"name: test\nshow: [text]\nquestions:\n{questions}")


def refused(questions: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        define(questions)
    return caught.value


TONE = define('  - id: tone\n'
              '    kind: choice\n'
              '    options:\n'
              '      - {value: pos, label: Positive, description: "The writer approves of the subject."}\n'
              '      - {value: neg, label: Negative}\n'
              '      - neutral\n'
              '  - id: civil\n'
              '    kind: scale\n'
              f'    labels: [{", ".join(AGREE)}]\n')


def test_an_option_keeps_its_description_and_one_without_has_none():
    assert TONE.question("tone").options == (
        OptionSpec("pos", "Positive", "The writer approves of the subject."), OptionSpec("neg", "Negative"),
        OptionSpec("neutral", "neutral"))


def test_a_scale_keeps_its_words_on_every_point_lowest_first():
    civil = TONE.question("civil")
    assert civil.point_labels == tuple(AGREE) and civil.scale_values() == [1, 2, 3, 4, 5]


def test_the_words_are_not_the_answer_the_value_is():
    answer, _ = check_answer(TONE, {"text": "A fine day."}, {"tone": "pos", "civil": 4})
    assert answer == {"tone": "pos", "civil": 4}


def test_labels_counting_other_than_the_points_are_refused_with_the_points_named():
    error = refused('  - id: civil\n'
                    '    kind: scale\n'
                    '    min: 0\n'
                    '    max: 4\n'
                    '    labels: [low, mid, high]\n')
    assert (error.path, error.line) == ("questions[0].labels", 8)
    assert error.message == ("lists 3 labels; the scale has 5 points (0 to 4): one label per point, lowest first")


def test_labels_with_anchors_are_refused():
    error = refused('  - {id: civil, kind: scale, min: 1, max: 2, anchors: [low, high], labels: [low, high]}\n')
    assert error.path == "questions[0].labels"
    assert "labels" in error.message and "anchors" in error.message and "not both" in error.message


def test_the_same_words_on_two_points_are_refused_at_the_second():
    error = refused('  - {id: civil, kind: scale, min: 1, max: 3, labels: [low, low, high]}\n')
    assert error.path == "questions[0].labels[1]"
    assert "'low' is the label of another point already" in error.message


def test_a_blank_or_unknown_option_key_is_refused_at_its_path():
    blank = refused('  - {id: tone, kind: choice, options: [{value: a, description: "  "}, b]}\n')
    assert blank.path == "questions[0].options[0].description" and "must not be blank" in blank.message
    unknown = refused('  - {id: tone, kind: choice, options: [{value: a, help: "x"}, b]}\n')
    assert unknown.path == "questions[0].options[0].help"
    assert unknown.message.endswith("known here: value, label, description")


def test_the_api_lists_a_description_and_a_scales_words_only_where_given():
    listed = {q["id"]: q for q in public_questions(TONE, {"text": "A fine day."})}
    assert listed["tone"]["options"] == [
        {"value": "pos", "label": "Positive", "description": "The writer approves of the subject."},
        {"value": "neg", "label": "Negative"}, {"value": "neutral", "label": "neutral"}]
    assert listed["civil"]["labels"] == AGREE
    plain = define('  - {id: size, kind: scale, anchors: [small, big]}\n')
    assert "labels" not in public_questions(plain, {"text": "x"})[0]


def test_the_form_draws_the_description_under_its_option_and_the_words_on_their_point():
    tone = choices_of(TONE.question("tone"), {})
    assert [(c.value, c.label, c.key, c.description) for c in tone] == [
        ("pos", "Positive", "1", "The writer approves of the subject."), ("neg", "Negative", "2", ""),
        ("neutral", "neutral", "3", "")]
    civil = choices_of(TONE.question("civil"), {})
    assert [(c.label, c.key, c.words) for c in civil] == [(str(n), str(n), w) for n, w in enumerate(AGREE, 1)]


def test_the_data_card_lists_the_descriptions_and_the_points_words():
    tone = _question_line(TONE.question("tone")).splitlines()
    assert "  - pos: The writer approves of the subject." in tone
    assert not any(line.startswith("  - neg") for line in tone)
    civil = _question_line(TONE.question("civil")).splitlines()
    assert ("  points: 1 = Strongly disagree, 2 = Disagree, 3 = Neither, 4 = Agree, 5 = Strongly agree") in civil


def test_the_example_has_described_options_and_worded_scales_in_and_out_of_a_group():
    example = definition_from_file(EXAMPLE)
    assert all(o.description for o in example.question("stance").options)
    assert len(example.question("civil").point_labels) == 5
    clarity = example.question("clarity")
    assert clarity.group == "aspects" and clarity.point_labels[0] == "Not at all clear"
