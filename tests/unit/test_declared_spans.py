"""The spans question kind (annotator/declared/spans.py): its keys in a definition, the strict check of an answer,
and the label rows an answer gives. Texts: the named-entity example's sentences (examples/ner_spans_items.jsonl)
and the first ReCAM-2021 dev question (tests/data/recam2021) for evidence spans."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.declared.answers import check_answer, public_questions
from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_text
from annotator.declared.spans import word_bounds
from annotator.tasks.base import AnswerError
from tests.conftest import DATA

NER = """name: names
show: [{field: sentence, label: Sentence}]
questions:
  - id: entities
    kind: spans
    of: sentence
    labels: [{value: PER, label: Person}, {value: ORG, label: Organisation}, LOC]
    max: 3
    required: false
"""
SENTENCE = "Ada Lovelace wrote her notes on the Analytical Engine in London."
PAYLOAD = {"sentence": SENTENCE}
RECAM = json.loads((DATA / "recam2021" / "Task_1_dev_excerpt.jsonl").read_text(encoding="utf-8").splitlines()[0])
EVIDENCE = """name: evidence
show: [{field: article, label: Passage}, {field: question, label: Question}]
questions:
  - {id: passage_span, kind: spans, of: article, labels: [evidence], max: 1, required: false}
  - {id: question_span, kind: spans, of: question, labels: [evidence], max: 1, required: false}
"""


def define(text: str = NER):  # type: ignore[no-untyped-def]
    return definition_from_text(text, "task.yaml")


def refused(text: str) -> str:
    with pytest.raises(DefinitionError) as caught:
        define(text)
    return str(caught.value)


def at(stretch: str, label: str, text: str = SENTENCE) -> dict:
    start = text.index(stretch)
    return {"start": start, "end": start + len(stretch), "label": label}


def answer(spans, definition=None, payload=PAYLOAD):  # type: ignore[no-untyped-def]
    return check_answer(definition or define(), payload, {"entities": spans})


def problem(spans, definition=None, payload=PAYLOAD) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(AnswerError) as caught:
        answer(spans, definition, payload)
    return str(caught.value)


# --- the definition -------------------------------------------------------------------------------------------

def test_a_spans_question_keeps_its_labels_limit_and_defaults():
    question = define().questions[0]
    assert question.kind == "spans" and question.of == "sentence"
    assert question.spans is not None
    assert [(o.value, o.label) for o in question.spans.labels] == [("PER", "Person"), ("ORG", "Organisation"),
                                                                   ("LOC", "LOC")]
    assert (question.spans.most, question.spans.whole_words, question.spans.overlap) == (3, True, False)
    assert (question.gold.rule, question.gold.positive, question.agreement) == ("share", 0.5, "nominal")


def test_a_single_label_is_enough():
    question = define(EVIDENCE).questions[0]
    assert question.spans is not None and question.spans.values() == ("evidence",)


def test_labels_are_required_with_their_line():
    assert refused(NER.replace("    labels: [{value: PER, label: Person}, {value: ORG, label: Organisation}, LOC]\n",
                               "")) == "task.yaml: questions[0].labels: is required, line 4"


def test_a_label_named_O_is_refused_as_the_outside_tag():
    assert refused(NER.replace("LOC]", "O]")) == ("task.yaml: questions[0].labels[2]: 'O' is what a word outside "
                                                  "every span is; name the label otherwise, line 7")


def test_a_label_given_twice_is_refused():
    assert "questions[0].labels[2]: 'PER' is listed twice" in refused(NER.replace("LOC]", "PER]"))


def test_max_must_be_a_whole_number_from_one():
    assert "questions[0].max: must be between 1 and 500, not 0, line 8" in refused(NER.replace("max: 3", "max: 0"))


def test_of_must_be_a_shown_text_field():
    assert "questions[0].of: 'title' must be a shown field drawn as text, title, markdown or dialogue (sentence)" in \
        refused(NER.replace("of: sentence", "of: title"))


def test_a_key_of_the_spans_kind_on_another_kind_is_named():
    message = refused("name: t\nshow: [text]\nquestions:\n  - {id: s, kind: choice, options: [a, b], labels: [x]}\n")
    assert "questions[0].labels: is a key of scale, spans and relations questions, not of a choice one" in message


def test_whole_words_and_overlap_are_true_or_false():
    assert "questions[0].overlap: must be true or false, not the text 'yes'" in \
        refused(NER.replace("max: 3", 'max: 3\n    overlap: "yes"'))


def test_the_share_rule_of_spans_has_no_negative_share():
    message = refused(NER + "    gold: {rule: share, positive: 0.6, negative: 0.1}\n")
    assert "questions[0].gold.negative: the share rule of a spans question has no 'negative'" in message


def test_agree_needs_m_within_k():
    message = refused(NER.replace("questions:", "k: 3\nquestions:") + "    gold: {rule: agree, m: 4}\n")
    assert "questions[0].gold.m: m (4) is more than the k (3) annotators an item gets; at most 3" in message


def test_a_per_word_rule_does_not_apply_to_spans():
    assert "questions[0].gold.rule: 'probability' does not apply to a spans question; use one of share, agree" in \
        refused(NER + "    gold: probability\n")


def test_ordinal_agreement_is_refused():
    assert "questions[0].agreement: ordinal needs ordered answers" in refused(NER + "    agreement: ordinal\n")


def test_a_spans_question_cannot_decide_whether_another_is_shown():
    text = NER + "  - {id: more, kind: text, when: {entities: PER}}\n"
    assert "questions[1].when.entities: a spans question cannot decide whether another is shown" in refused(text)


# --- words ----------------------------------------------------------------------------------------------------

def test_punctuation_is_a_word_of_its_own_and_inner_marks_stay_in_words():
    text = "O'Brien (of the U.S.) paid £3.5m, @placeholder."
    assert [text[s:e] for s, e in word_bounds(text)] == ["O'Brien", "(", "of", "the", "U.S", ".", ")", "paid", "£",
                                                         "3.5m", ",", "@placeholder", "."]


# --- answers --------------------------------------------------------------------------------------------------

def test_an_answer_is_stored_in_text_order_without_its_optional_text():
    stored, _ = answer([at("London", "LOC"), {**at("Ada Lovelace", "PER"), "text": "Ada Lovelace"}])
    assert stored == {"entities": [{"start": 0, "end": 12, "label": "PER"}, {"start": 57, "end": 63, "label": "LOC"}]}


def test_marking_nothing_is_an_answer_when_the_question_is_optional():
    assert answer([])[0] == {"entities": []}


def test_marking_nothing_is_refused_when_the_question_is_required():
    assert problem([], define(NER.replace("required: false", "required: true"))) == \
        "entities: mark at least one span (the question is required)"


def test_an_answer_must_be_a_list_of_spans():
    assert problem({"start": 0, "end": 3, "label": "PER"}) == \
        'entities: must be a list of spans {"start": int, "end": int, "label": text} ([] for none)'


def test_a_span_missing_a_key_or_with_an_unknown_one_is_named():
    assert problem([at("London", "LOC"), {"start": 0, "end": 3, "type": "PER"}]) == \
        'entities: span 2: must be an object {"start", "end", "label"} (and optionally "text") (missing label; ' \
        'unknown type)'


def test_offsets_must_be_whole_numbers():
    assert problem([{"start": 0, "end": 3.0, "label": "PER"}]) == \
        "entities: span 1: end must be a whole number (a character offset), not '3.0'"
    assert problem([{"start": True, "end": 3, "label": "PER"}]).startswith("entities: span 1: start must be a whole")


def test_a_span_past_the_end_of_the_text_is_refused():
    assert problem([{"start": 57, "end": 70, "label": "LOC"}]) == \
        "entities: span 1: [57, 70) is not a stretch of the text: it needs 0 <= start < end <= 64 (characters, end " \
        "exclusive)"


def test_an_empty_or_reversed_span_is_refused():
    assert "[4, 4) is not a stretch of the text" in problem([{"start": 4, "end": 4, "label": "PER"}])
    assert "[12, 4) is not a stretch of the text" in problem([{"start": 12, "end": 4, "label": "PER"}])


def test_a_label_outside_the_set_is_refused():
    assert problem([at("London", "GPE")]) == "entities: span 1: 'GPE' is not one of the labels 'PER', 'ORG', 'LOC'"


def test_a_span_must_cover_whole_words():
    assert problem([{"start": 0, "end": 7, "label": "PER"}]) == \
        "entities: span 1: end 7 is not at the end of a word of sentence (the spans of this question cover whole " \
        "words: the nearest word ends are 3, 12)"


def test_overlapping_spans_are_refused_and_both_named():
    assert problem([at("Ada Lovelace", "PER"), at("Lovelace", "ORG")]) == \
        "entities: span 2: overlaps span 1 (0 to 12); the spans of this question may not share a character"


def test_the_same_span_twice_is_refused():
    assert problem([at("London", "LOC"), at("London", "LOC")]) == "entities: span 2: is span 1 again"


def test_more_spans_than_max_are_refused():
    spans = [at("Ada", "PER"), at("notes", "ORG"), at("Engine", "ORG"), at("London", "LOC")]
    assert problem(spans) == "entities: marks 4 spans; at most 3"


def test_text_that_does_not_match_the_offsets_is_refused_with_the_reason():
    text = "Zoë met 👩‍🔬 Dr Mbeki in Durban."
    definition = define()
    start = text.index("Mbeki")
    assert answer([{"start": start, "end": start + 5, "label": "PER", "text": "Mbeki"}], definition,
                  {"sentence": text})[0]["entities"] == [{"start": 15, "end": 20, "label": "PER"}]
    utf16 = len(text[:start].encode("utf-16-le")) // 2   # what a JavaScript client counts
    assert problem([{"start": utf16, "end": utf16 + 5, "label": "PER", "text": "Mbeki"}], definition,
                   {"sentence": text}).endswith("(offsets count code points, not UTF-16 units or bytes)")


def test_without_whole_words_any_characters_may_be_marked_but_not_white_space_at_the_edges():
    definition = define(NER.replace("max: 3", "max: 3\n    whole_words: false"))
    assert answer([{"start": 4, "end": 8, "label": "PER"}], definition)[0] == \
        {"entities": [{"start": 4, "end": 8, "label": "PER"}]}
    assert problem([{"start": 3, "end": 8, "label": "PER"}], definition) == \
        "entities: span 1: ' Love' starts or ends with white space; mark the text only"


def test_overlap_true_lets_spans_nest():
    definition = define(NER.replace("max: 3", "max: 3\n    overlap: true"))
    stored, rows = answer([at("Ada Lovelace", "PER"), at("Lovelace", "ORG")], definition)
    assert stored["entities"] == [at("Ada Lovelace", "PER"), at("Lovelace", "ORG")]
    assert {row.unit: row.value for row in rows}["4:12"] == "PER+ORG"


# --- label rows -----------------------------------------------------------------------------------------------

def test_an_answer_gives_a_row_per_word_and_a_row_per_span():
    _, rows = answer([at("Ada Lovelace", "PER"), at("London", "LOC")])
    words = [(row.unit, row.value) for row in rows if row.unit.count(":") == 1]
    spans = [(row.unit, row.value) for row in rows if row.unit.count(":") == 2]
    assert words[:3] == [("0:3", "PER"), ("4:12", "PER"), ("13:18", "O")]
    assert words[-2:] == [("57:63", "LOC"), ("63:64", "O")]
    assert len(words) == len(word_bounds(SENTENCE)) == 12
    assert spans == [("0:12:PER", "1"), ("57:63:LOC", "1")]
    assert {row.field for row in rows} == {"entities"}


def test_no_span_gives_every_word_O():
    _, rows = answer([])
    assert {row.value for row in rows} == {"O"} and len(rows) == 12


def test_evidence_spans_of_a_recam_question_are_checked_against_each_field():
    definition = define(EVIDENCE)
    payload = {"article": RECAM["article"], "question": RECAM["question"]}
    evidence = at("Previously code-named Project Scorpio", "evidence", RECAM["article"])
    stored, _ = check_answer(definition, payload, {"passage_span": [evidence], "question_span": []})
    assert stored == {"passage_span": [evidence], "question_span": []}
    with pytest.raises(AnswerError) as caught:
        check_answer(definition, payload, {"passage_span": [evidence, at("Xbox One X", "evidence", RECAM["article"])]})
    assert str(caught.value) == "passage_span: marks 2 spans; at most 1"


def test_the_api_describes_the_question_with_its_words_offsets():
    described = public_questions(define(), PAYLOAD)[0]
    assert {k: described[k] for k in ("kind", "of", "max", "whole_words", "overlap")} == \
        {"kind": "spans", "of": "sentence", "max": 3, "whole_words": True, "overlap": False}
    assert described["labels"][0] == {"value": "PER", "label": "Person"}
    assert described["words"][:2] == [{"start": 0, "end": 3, "text": "Ada"},
                                      {"start": 4, "end": 12, "text": "Lovelace"}]


def test_the_docs_recam_example_takes_the_first_dev_questions_evidence():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "declared-spans.md").read_text(encoding="utf-8")
    definition = define(doc.split("**ReCAM-style evidence spans**")[1].split("```yaml")[1].split("```")[0])
    payload = {"article": RECAM["article"], "question": RECAM["question"],
               "options": [RECAM[f"option_{n}"] for n in range(5)]}
    answer = {"option": "secret", "passage_span": [{"start": 39, "end": 76, "label": "evidence"}],
              "question_span": [], "difficulty": "hard"}
    assert RECAM["article"][39:76] == "Previously code-named Project Scorpio"
    assert check_answer(definition, payload, answer)[0] == answer
