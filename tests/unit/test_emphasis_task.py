"""The emphasis HIT type: what a valid answer is, what annotators see, gold (B/I/O counts, probability), units."""
from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from annotator.tasks import TASK_TYPES, AnswerError, LabelIn
from annotator.tasks.emphasis import Emphasis

TASK = Emphasis()
WORDS = ["Save", "the", "Date"]


def _item(words: list[str] = WORDS, sentence: str = "S_0"):  # type: ignore[no-untyped-def]
    """Stands in for an Item row: the task type reads only `payload`."""
    return SimpleNamespace(payload={"id": sentence, "words": [
        {"id": f"{sentence}_{n}", "text": w, "pos": "NN"} for n, w in enumerate(words)]})


def _labels(sentence: str, votes: list[str]) -> pd.DataFrame:
    """One vote per string of tags ("OBI" = O, B, I), as results.labels_frame returns them."""
    rows = [{"item": sentence, "position": 0, "unit": f"{sentence}_{n}", "field": "bio", "value": tag,
             "user_id": user, "assignment_id": user} for user, tags in enumerate(votes, 1)
            for n, tag in enumerate(tags)]
    return pd.DataFrame(rows)


def test_the_type_is_registered_as_emphasis_with_nine_annotators_per_item() -> None:
    assert TASK_TYPES["emphasis"].default_k == 9
    assert TASK_TYPES["emphasis"].template == "hits/emphasis.html"


def test_an_answer_becomes_one_bio_label_per_word_keyed_by_word_id() -> None:
    assert TASK.labels(_item(), {"tags": ["B", "I", "O"]}) == [
        LabelIn("S_0_0", "bio", "B"), LabelIn("S_0_1", "bio", "I"), LabelIn("S_0_2", "bio", "O")]


def test_nothing_emphasised_is_a_valid_answer() -> None:
    assert [label.value for label in TASK.labels(_item(), {"tags": ["O", "O", "O"]})] == ["O", "O", "O"]


def test_split_spans_are_valid_answers() -> None:
    assert [label.value for label in TASK.labels(_item(), {"tags": ["B", "B", "I"]})] == ["B", "B", "I"]


@pytest.mark.parametrize("answer, message", [
    ({"tags": ["B", "O"]}, "has 2 tags but the text has 3 words"),
    ({"tags": ["B", "O", "O", "O"]}, "has 4 tags but the text has 3 words"),
    ({"tags": ["I", "O", "O"]}, 'word 1 is "I" but no span is open'),
    ({"tags": ["B", "O", "I"]}, 'word 3 is "I" but no span is open'),
    ({"tags": ["B", "X", "O"]}, "tag 'X' of word 2 is not"),
    ({"tags": ["b", "o", "o"]}, "tag 'b' of word 1 is not"),
    ({"tags": "BIO"}, '"tags" must be a list'),
    ({"tags": [1, 0, 0]}, '"tags" must be a list'),
    ({"matches": []}, 'the answer must be an object {"tags"'),
    (["B", "I", "O"], 'the answer must be an object {"tags"'),
])
def test_invalid_answers_are_refused_with_what_is_wrong(answer, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AnswerError) as info:
        TASK.labels(_item(), answer)
    assert message in str(info.value)


def test_annotators_see_word_ids_and_words_but_no_pos_tags() -> None:
    assert TASK.public_item(_item()) == {"id": "S_0", "words": [
        {"id": "S_0_0", "text": "Save"}, {"id": "S_0_1", "text": "the"}, {"id": "S_0_2", "text": "Date"}]}


def test_gold_counts_b_i_o_per_word_and_the_probability_is_b_plus_i_over_the_votes() -> None:
    # S_0 of train.txt: O|B|B|B|B|B|B|B|B, O|I|O|O|I|I|O|O|I, B|I|O|O|I|I|B|B|I (columns are votes)
    votes = ["OOB", "BII", "BOO", "BOO", "BII", "BII", "BOB", "BOB", "BII"]
    gold = TASK.gold(_labels("S_0", votes), {})
    assert gold[["unit", "B", "I", "O", "n"]].values.tolist() == [
        ["S_0_0", 8, 0, 1, 9], ["S_0_1", 0, 4, 5, 9], ["S_0_2", 3, 4, 2, 9]]
    assert [repr(p) for p in gold["probability"]] == ["0.8888888888888888", "0.4444444444444444",
                                                       "0.7777777777777778"]


def test_gold_n_is_the_number_of_votes_the_item_has_so_far() -> None:
    gold = TASK.gold(_labels("S_0", ["BIO", "BOO", "OOO"]), {})
    assert gold["n"].tolist() == [3, 3, 3]
    assert gold["probability"].tolist() == [2 / 3, 1 / 3, 0.0]


def test_gold_keeps_word_order_past_ten_words() -> None:
    gold = TASK.gold(_labels("Q_1", ["O" * 12, "B" + "O" * 11]), {})
    assert gold["unit"].tolist() == [f"Q_1_{n}" for n in range(12)]


def test_gold_of_no_votes_is_empty_with_the_gold_columns() -> None:
    gold = TASK.gold(_labels("S_0", []).reindex(columns=["item", "unit", "field", "value", "user_id"]), {})
    assert gold.empty and list(gold.columns) == ["item", "unit", "B", "I", "O", "n", "probability"]


def test_gold_summary_counts_words_by_how_many_emphasised_them() -> None:
    gold = TASK.gold(_labels("S_0", ["BIO", "BOO", "OOO"]), {})
    assert TASK.gold_summary(gold).counts == {"words": 3, "emphasised by most (p > 0.5)": 1,
                                              "by some (0 < p ≤ 0.5)": 1, "by nobody (p = 0)": 1}


def test_agreement_units_are_emphasised_or_not_first_then_the_three_tags() -> None:
    units = TASK.agreement_units(_labels("S_0", ["BIO", "OBI"]))
    assert list(units) == ["emphasis", "bio"]
    assert units["emphasis"]["value"].tolist() == ["1", "1", "0", "0", "1", "1"]
    assert units["bio"]["value"].tolist() == ["B", "I", "O", "O", "B", "I"]
    assert units["emphasis"]["unit"].tolist()[:3] == ["S_0_0", "S_0_1", "S_0_2"]
