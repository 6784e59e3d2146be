"""The definition key `stopping:` (annotator/declared/stopping.py): `decided` or {confidence, min_votes}, each
refusal with its key path, line and what would fit; the example under examples/ reads.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from annotator.core.stopping import Stopping
from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_file, definition_from_text
from annotator.declared.items import read_items

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
QUESTIONS = """questions:
  - id: sentiment
    kind: choice
    prompt: Sentiment?
    options: [positive, negative, neutral]
    gold: {rule: majority}
"""


def definition(stopping: str, questions: str = QUESTIONS, k: str = "k: 5\n"):
    return definition_from_text(f"name: test\n{k}show: [text]\n{stopping}{questions}")


def refused(stopping: str, questions: str = QUESTIONS, k: str = "k: 5\n") -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        definition(stopping, questions, k)
    return caught.value


def test_without_the_key_an_item_keeps_a_fixed_k():
    assert definition("").stopping is None


def test_decided_is_read():
    assert definition("stopping: decided\n").stopping == Stopping("decided")


def test_confidence_is_read_with_its_least_number_of_votes():
    assert definition("stopping: {confidence: 0.95, min_votes: 3}\n").stopping == Stopping("confidence", 0.95, 3)


def test_confidence_without_min_votes_may_stop_after_one_vote():
    assert definition("stopping: {confidence: 0.9}\n").stopping == Stopping("confidence", 0.9, 1)


def test_the_example_validates_and_its_items_read():
    example = definition_from_file(EXAMPLES / "sentiment_stopping.yaml")
    assert example.stopping == Stopping("decided") and example.k == 5
    assert len(read_items(EXAMPLES / "sentiment_stopping_items.jsonl", example)) == 6


def test_the_example_with_a_prior_per_word_validates_and_its_items_share_words():
    example = definition_from_file(EXAMPLES / "word_emphasis_prior.yaml")
    assert example.stopping == Stopping("confidence", 0.985, 2, prior_by="word") and example.k == 5
    items = read_items(EXAMPLES / "word_emphasis_prior_items.jsonl", example)
    words = [item.payload["word"].casefold() for item in items]
    assert len(items) == 23 and {"never", "dream", "stop", "best"} <= {w for w in words if words.count(w) > 1}


@pytest.mark.parametrize("stopping, path, message", [
    ("stopping: decide\n", "stopping", "must be decided or a mapping {confidence: 0.95, min_votes: 3}, not 'decide'"),
    ("stopping: 3\n", "stopping", "must be decided or a mapping"),
    ("stopping: {confidence: 1.5, min_votes: 3}\n", "stopping.confidence", "must be between 0 and 1, not 1.5"),
    ("stopping: {confidence: 1, min_votes: 3}\n", "stopping.confidence", "must be above 0 and below 1, not 1"),
    ("stopping: {confidence: 0.9, min_votes: 2.5}\n", "stopping.min_votes", "must be a whole number"),
    ("stopping: {confidence: 0.9, min_votes: 0}\n", "stopping.min_votes", "must be between 1 and 100, not 0"),
    ("stopping: {confidence: 0.9, min_votes: 6}\n", "stopping.min_votes", "is 6, more than k (5)"),
    ("stopping: {min_votes: 3}\n", "stopping.confidence", "is required"),
    ("stopping: {confidence: 0.9, least: 3}\n", "stopping.least", "unknown key"),
])
def test_a_wrong_rule_is_refused_with_its_key_path_and_line(stopping, path, message):
    error = refused(stopping)
    assert error.path == path and message in error.message and error.line == 4


@pytest.mark.parametrize("question, why", [
    ("  - {id: note, kind: choice, prompt: Sure, options: [a, b], gold: {rule: dawid_skene}}\n",
     "question 'note' cannot stop an item: its rule (dawid_skene) is not one of majority, share, agree, median"),
    ("  - {id: who, kind: choice, prompt: Who, options_from: names, gold: {rule: majority}}\n",
     "question 'who' cannot stop an item: its options come from the item (options_from)"),
    ("  - {id: why, kind: choice, prompt: Why, options: [a, b], when: {sentiment: negative},"
     " gold: {rule: majority}}\n", "question 'why' cannot stop an item: it is not asked of every item"),
])
def test_a_question_the_rule_cannot_decide_refuses_stopping(question, why):
    error = refused("stopping: decided\n", QUESTIONS + question)
    assert error.path == "stopping" and why in error.message


def test_a_definition_without_gold_has_nothing_to_stop_on():
    error = refused("stopping: decided\n", "questions:\n  - {id: note, kind: text, prompt: Note}\n")
    assert error.path == "stopping" and "no question has a gold rule" in error.message


def test_a_question_without_gold_does_not_keep_an_item_open():
    stopping = definition("stopping: decided\n", QUESTIONS + "  - {id: note, kind: text, prompt: Note}\n").stopping
    assert stopping == Stopping("decided")


# --------------------------------------------------------------------------- a prior per group of items (prior_by)

def test_prior_by_names_a_shown_field_and_weighs_five_votes_unless_told():
    stopping = definition("stopping: {confidence: 0.985, min_votes: 2, prior_by: text}\n").stopping
    assert stopping == Stopping("confidence", 0.985, 2, "text", 5.0)


def test_prior_weight_is_read_with_prior_by():
    stopping = definition("stopping: {confidence: 0.985, min_votes: 2, prior_by: text, prior_weight: 12}\n").stopping
    assert (stopping.prior_by, stopping.prior_weight) == ("text", 12.0)


def test_prior_by_may_name_a_kept_field():
    text = ("name: test\nk: 5\nshow: [text]\nkeep: [word]\nstopping: {confidence: 0.9, prior_by: word}\n" + QUESTIONS)
    assert definition_from_text(text).stopping.prior_by == "word"


@pytest.mark.parametrize("stopping, path, message", [
    ("stopping: {confidence: 0.9, prior_by: wrod}\n", "stopping.prior_by",
     "must name an item field the definition declares (shown, read or kept), not 'wrod'; declared here: text"),
    ("stopping: {confidence: 0.9, prior_by: [text]}\n", "stopping.prior_by", "not a list; declared here: text"),
    ("stopping: {confidence: 0.9, prior_by: text, prior_weight: 0}\n", "stopping.prior_weight", "must be above 0"),
    ("stopping: {confidence: 0.9, prior_by: text, prior_weight: many}\n", "stopping.prior_weight",
     "must be a number"),
    ("stopping: {confidence: 0.9, prior_weight: 5}\n", "stopping.prior_weight",
     "weighs the prior of prior_by, which is not given"),
    ("stopping: {confidence: 0.9, prior: text}\n", "stopping.prior", "unknown key (did you mean 'prior_by'?)"),
])
def test_a_wrong_prior_is_refused_with_its_key_path_and_line(stopping, path, message):
    error = refused(stopping)
    assert error.path == path and message in error.message and error.line == 4
