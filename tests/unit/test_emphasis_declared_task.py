"""SemEval-2020 emphasis as the declared engine serves it (selection.yaml; the built-in type is gone): what a valid
answer is, what annotators see, gold (each word's probability, its votes), the agreement's units.

These are the built-in type's own tests (test_emphasis_task.py) set on the declared project: the same answers, the
same refusals (in the definition's answer shape, `{"emphasis": [tags]}`; today's `{"tags": [...]}` is converted by
the bridge, tests/web/test_api_answer_shapes_declared_emphasis.py) and the same figures, worked out by hand from
the paper's rule (Shirani et al., SemEval-2020: a word's probability is the share of its annotators who selected it).
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

from annotator.declared.items import load_definition
from annotator.tasks import AnswerError, LabelIn, settings_with_defaults
from annotator.tasks.custom import DeclaredTask
from tests.conftest import TESTS

DEFINITION = load_definition(TESTS.parent / "annotator" / "shared_tasks" / "emphasis2020" / "selection.yaml")
TASK = DeclaredTask(DEFINITION)
WORDS = ["Save", "the", "Date"]


def _item(words: list[str] = WORDS, sentence: str = "S_0") -> Any:
    """Stands in for an Item row as the emphasis2020 import makes it (word ids, words and POS tags)."""
    return SimpleNamespace(external_id=sentence, payload={"id": sentence, "words": [
        {"id": f"{sentence}_{n}", "text": w, "pos": "NN"} for n, w in enumerate(words)]})


def _labels(sentence: str, votes: list[str]) -> pd.DataFrame:
    """One vote per string of tags ("OBI" = O, B, I), as results.labels_frame returns a declared project's rows:
    per word, selected or not (`emphasis`) and the tag (`emphasis.bio`)."""
    rows = [{"item": sentence, "position": 0, "unit": f"{sentence}_{n}", "field": field, "value": value,
             "user_id": user, "assignment_id": user} for user, tags in enumerate(votes, 1)
            for n, tag in enumerate(tags)
            for field, value in (("emphasis", "0" if tag == "O" else "1"), ("emphasis.bio", tag))]
    return pd.DataFrame(rows)


def _gold(sentence: str, votes: list[str]) -> pd.DataFrame:
    return TASK.gold(_labels(sentence, votes), settings_with_defaults(TASK, None))


def test_the_definition_asks_nine_annotators_per_text() -> None:
    assert DEFINITION.k == 9


def test_an_answer_becomes_per_word_selected_or_not_and_its_tag_keyed_by_word_id() -> None:
    assert TASK.labels(_item(), {"emphasis": ["B", "I", "O"]}) == [
        LabelIn("S_0_0", "emphasis", "1"), LabelIn("S_0_1", "emphasis", "1"), LabelIn("S_0_2", "emphasis", "0"),
        LabelIn("S_0_0", "emphasis.bio", "B"), LabelIn("S_0_1", "emphasis.bio", "I"),
        LabelIn("S_0_2", "emphasis.bio", "O")]


def test_nothing_emphasised_is_a_valid_answer() -> None:
    rows = TASK.labels(_item(), {"emphasis": ["O", "O", "O"]})
    assert [row.value for row in rows if row.field == "emphasis.bio"] == ["O", "O", "O"]


def test_split_spans_are_valid_answers() -> None:
    rows = TASK.labels(_item(), {"emphasis": ["B", "B", "I"]})
    assert [row.value for row in rows if row.field == "emphasis.bio"] == ["B", "B", "I"]


@pytest.mark.parametrize("answer, message", [
    ({"emphasis": ["B", "O"]}, "has 2 tags but the text has 3 words"),
    ({"emphasis": ["B", "O", "O", "O"]}, "has 4 tags but the text has 3 words"),
    ({"emphasis": ["I", "O", "O"]}, 'word 1 is "I" but no span is open'),
    ({"emphasis": ["B", "O", "I"]}, 'word 3 is "I" but no span is open'),
    ({"emphasis": ["B", "X", "O"]}, "tag 'X' of word 2 is not"),
    ({"emphasis": ["b", "o", "o"]}, "tag 'b' of word 1 is not"),
    ({"emphasis": "BIO"}, 'must be a list of "B", "I" or "O"'),
    ({"matches": []}, "'matches' is not a question of this HIT"),
    (["B", "I", "O"], "the answer must be a JSON object"),
])
def test_invalid_answers_are_refused_with_what_is_wrong(answer: Any, message: str) -> None:
    with pytest.raises(AnswerError) as info:
        TASK.labels(_item(), answer)
    assert message in str(info.value)


def test_annotators_see_the_words_but_no_pos_tags() -> None:
    assert TASK.public_item(_item()) == {"id": "S_0", "words": ["Save", "the", "Date"]}


def test_the_probability_is_the_share_of_the_votes_that_selected_the_word() -> None:
    # S_0 of train.txt: O|B|B|B|B|B|B|B|B, O|I|O|O|I|I|O|O|I, B|I|O|O|I|I|B|B|I (columns are votes): 8, 4 and 7 of 9
    votes = ["OOB", "BII", "BOO", "BOO", "BII", "BII", "BOB", "BOB", "BII"]
    gold = _gold("S_0", votes)
    assert gold[["unit", "n", "votes"]].values.tolist() == [
        ["S_0_0", 9, "1: 8, 0: 1"], ["S_0_1", 9, "1: 4, 0: 5"], ["S_0_2", 9, "1: 7, 0: 2"]]
    assert [repr(p) for p in gold["score"]] == ["0.8888888888888888", "0.4444444444444444", "0.7777777777777778"]


def test_n_is_the_number_of_votes_the_item_has_so_far() -> None:
    gold = _gold("S_0", ["BIO", "BOO", "OOO"])
    assert gold["n"].tolist() == [3, 3, 3]
    assert gold["score"].tolist() == [2 / 3, 1 / 3, 0.0]


def test_gold_keeps_word_order_past_ten_words() -> None:
    assert _gold("Q_1", ["O" * 12, "B" + "O" * 11])["unit"].tolist() == [f"Q_1_{n}" for n in range(12)]


def test_gold_summary_counts_words_by_how_many_emphasised_them() -> None:
    assert TASK.gold_summary(_gold("S_0", ["BIO", "BOO", "OOO"])).counts == {
        "emphasis: p > 0.5": 1, "emphasis: 0 < p ≤ 0.5": 1, "emphasis: p = 0": 1}


def test_agreement_units_are_emphasised_or_not_first_then_the_three_tags() -> None:
    units = TASK.agreement_units(_labels("S_0", ["BIO", "OBI"]))
    assert list(units) == ["emphasis", "emphasis.bio"]
    assert units["emphasis"]["value"].tolist() == ["1", "1", "0", "0", "1", "1"]
    assert units["emphasis.bio"]["value"].tolist() == ["B", "I", "O", "O", "B", "I"]
    assert units["emphasis"]["unit"].tolist()[:3] == ["S_0 / S_0_0", "S_0 / S_0_1", "S_0 / S_0_2"]
