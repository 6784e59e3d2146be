"""The cloze HIT type: answers and spans, and ReCAM's selection rules on hand-built votes."""
from __future__ import annotations

import random
from types import SimpleNamespace

import krippendorff
import numpy as np
import pandas as pd
import pytest

from annotator.analysis.agreement import field_agreement
from annotator.shared_tasks.recam2021.files import read_file
from annotator.tasks import AnswerError, LabelIn, settings_with_defaults, task_type
from tests.conftest import DATA

TASK = task_type("cloze")
SETTINGS = settings_with_defaults(TASK, {})
FIRST = read_file(DATA / "recam2021" / "Task_1_dev_excerpt.jsonl").questions[0]
ITEM = SimpleNamespace(external_id="0", payload={"id": "0", "article": FIRST.article, "question": FIRST.question,
                                                  "options": list(FIRST.options)})
SPAN = [0, 12]


def answer(**changes):  # type: ignore[no-untyped-def]
    return {"option": 2, "passage_span": SPAN, "question_span": [0, 9], "difficulty": "medium", **changes}


def votes(*rows) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    """Label rows from (question, annotator, option, difficulty[, passage span, question span]) votes."""
    records = []
    for n, (item, user, option, difficulty, *spans) in enumerate(rows, start=1):
        passage, question = spans or ("0:12", "0:9")
        for field, value in (("option", str(option)), ("difficulty", difficulty), ("passage_span", passage),
                             ("question_span", question)):
            records.append((item, int(item), "question", field, value, user, n))
    return pd.DataFrame(records, columns=["item", "position", "unit", "field", "value", "user_id", "assignment_id"])


def gold(labels: pd.DataFrame, known: dict[str, int], **settings) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    return TASK.gold(labels, {**SETTINGS, **settings}, references={q: {"label": v} for q, v in known.items()})


def fate(frame: pd.DataFrame, item: str) -> tuple[bool, str]:
    row = frame.set_index("item").loc[item]
    return bool(row["kept"]), row["reason"]


def test_defaults_are_the_task_papers_rules() -> None:
    assert TASK.default_k == 3
    assert (SETTINGS["min_accuracy"], SETTINGS["require_spans"], SETTINGS["easy_must_be_right"],
            SETTINGS["keep_share"], SETTINGS["majority_share"]) == (0.40, True, True, 0.5, 0.5)


def test_the_api_item_has_the_documented_shape_and_no_label() -> None:
    shown = TASK.public_item(ITEM)
    assert list(shown) == ["id", "article", "question", "options"] and len(shown["options"]) == 5


def test_an_answer_becomes_four_labels_with_spans_as_start_end() -> None:
    assert TASK.labels(ITEM, answer(question_span=None)) == [
        LabelIn("question", "option", "2"), LabelIn("question", "difficulty", "medium"),
        LabelIn("question", "passage_span", "0:12"), LabelIn("question", "question_span", "")]


@pytest.mark.parametrize("bad, words", [
    (answer(option=5), "not an option index"),
    (answer(option="2"), "not an option index"),
    (answer(option=True), "not an option index"),
    (answer(difficulty="trivial"), "not easy, medium or hard"),
    (answer(passage_span=[5, 5]), "is not a span of the article"),
    (answer(passage_span=[-1, 3]), "is not a span of the article"),
    (answer(passage_span=[0, len(FIRST.article) + 1]), f"end <= {len(FIRST.article)}"),
    (answer(question_span=[3, 2]), "is not a span of the question"),
    (answer(question_span=[0, 1.5]), "two integers"),
    (answer(passage_span="0:12"), "two integers"),
    ({"option": 2, "passage_span": None, "question_span": None}, "missing difficulty"),
    (answer(note="hi"), "unknown note"),
])
def test_bad_answers_are_refused(bad: dict, words: str) -> None:
    with pytest.raises(AnswerError, match=words):
        TASK.labels(ITEM, bad)


def test_a_span_to_the_last_character_is_accepted() -> None:
    end = len(FIRST.article)
    assert TASK.labels(ITEM, answer(passage_span=[end - 1, end]))[2].value == f"{end - 1}:{end}"


def test_offsets_count_characters_not_bytes() -> None:
    item = SimpleNamespace(payload={**ITEM.payload, "article": "Â£22,000 for it"})
    assert TASK.labels(item, answer(passage_span=[0, 8]))[2].value == "0:8"  # 8 characters, 9 UTF-8 bytes


def test_words_know_their_offsets_and_the_placeholder_is_its_own_word() -> None:
    words = TASK.tokens("top - @placeholder console.")
    assert [(w["text"], w["start"], w["end"], w["blank"]) for w in words] == [
        ("top", 0, 3, False), ("-", 4, 5, False), ("@placeholder", 6, 18, True), ("console.", 19, 27, False)]
    assert [w["text"] for w in TASK.tokens("a @placeholder.")] == ["a", "@placeholder", "."]


def test_example_answers_are_valid() -> None:
    rng = random.Random(3)
    for _ in range(50):
        TASK.labels(ITEM, TASK.example_answer(TASK.public_item(ITEM), rng))


# --------------------------------------------------------------------------- the selection rules

def test_a_question_is_kept_when_half_the_valid_annotations_chose_the_known_answer() -> None:
    frame = gold(votes(("0", 1, 2, "medium"), ("0", 2, 2, "hard"), ("0", 3, 1, "hard"), ("0", 4, 0, "hard"),
                       ("1", 1, 4, "medium"), ("1", 2, 4, "medium"), ("1", 3, 4, "medium"), ("1", 4, 4, "medium")),
                 {"0": 2, "1": 4})
    assert fate(frame, "0") == (True, "kept: 2 of 4 valid annotations chose the known answer (0.50 ≥ 0.50)")


def test_a_question_whose_valid_annotations_mostly_missed_is_dropped() -> None:
    frame = gold(votes(("0", 1, 2, "medium"), ("0", 2, 1, "hard"), ("0", 3, 0, "hard"),
                       ("1", 1, 4, "medium"), ("1", 2, 4, "medium"), ("1", 3, 4, "medium")), {"0": 2, "1": 4})
    assert fate(frame, "0") == (False, "dropped: 1 of 3 valid annotations chose the known answer (0.33 < 0.50)")


def test_rule_a_an_annotator_at_40_percent_is_not_above_it() -> None:
    # annotator 9 answers five labelled questions, two right: 0.40, not above 0.40
    rows = [(str(q), 9, 0 if q < 2 else 1, "medium") for q in range(5)]
    rows += [(str(q), u, 0, "medium") for q in range(5) for u in (1, 2)]
    judged = TASK.gold(votes(*rows), SETTINGS, references={str(q): {"label": 0} for q in range(5)})
    assert list(judged["valid"]) == [2, 2, 2, 2, 2]  # annotator 9's five annotations are all invalid
    assert (judged["failed_a"] == 1).all()


def test_rule_a_counts_only_questions_with_a_known_answer() -> None:
    rows = [("0", 9, 0, "medium"), ("1", 9, 3, "medium"), ("1", 1, 3, "medium")]  # 1 of 1 known right
    frame = gold(votes(*rows), {"0": 0})
    assert frame.set_index("item").loc["1", "valid"] == 2


def test_rule_a_cannot_hold_against_an_annotator_without_known_answers() -> None:
    frame = gold(votes(("0", 1, 3, "medium"), ("0", 2, 3, "medium")), {})
    assert fate(frame, "0") == (True, "kept: 2 of 2 valid annotations chose option 3 (1.00 > 0.50)")


def test_rule_b_an_annotation_without_both_spans_is_not_valid() -> None:
    frame = gold(votes(("0", 1, 2, "medium", "", "0:9"), ("0", 2, 2, "medium", "0:12", ""),
                       ("0", 3, 1, "medium"), ("1", 3, 4, "medium")), {"0": 2, "1": 4})  # annotator 3: 0.5
    assert fate(frame, "0") == (False, "dropped: 0 of 1 valid annotations chose the known answer (0.00 < 0.50)")
    assert frame["failed_b"].iloc[0] == 2


def test_rule_b_can_be_switched_off() -> None:
    frame = gold(votes(("0", 1, 2, "medium", "", ""), ("0", 2, 1, "medium", "", "")), {"0": 2}, require_spans=False,
                 min_accuracy=0.0)
    assert fate(frame, "0")[0] is True


def test_rule_c_easy_and_wrong_is_not_valid_but_easy_and_right_is() -> None:
    frame = gold(votes(("0", 1, 2, "easy"), ("0", 2, 1, "easy"), ("1", 1, 3, "medium"), ("1", 2, 3, "medium")),
                 {"0": 2, "1": 3})
    row = frame.set_index("item").loc["0"]
    assert (row["valid"], row["failed_c"], bool(row["kept"])) == (1, 1, True)


def test_a_question_without_a_valid_annotation_is_dropped_with_that_reason() -> None:
    frame = gold(votes(("0", 1, 2, "medium", "", ""),), {"0": 2})
    assert fate(frame, "0") == (False, "dropped: no valid annotation among 1")


def test_a_question_without_a_known_answer_needs_a_real_majority() -> None:
    frame = gold(votes(("5", 1, 0, "hard"), ("5", 2, 1, "hard"), ("6", 1, 3, "hard"), ("6", 2, 3, "hard"),
                       ("6", 3, 4, "hard")), {})
    assert fate(frame, "5") == (False, "dropped: no single most chosen option among 2 valid annotations")
    assert fate(frame, "6") == (True, "kept: 2 of 3 valid annotations chose option 3 (0.67 > 0.50)")
    assert frame.set_index("item").loc["6", "majority"] == 3


def test_the_summary_counts_kept_dropped_and_unlabelled() -> None:
    frame = gold(votes(("0", 1, 2, "medium"), ("1", 1, 0, "medium"), ("2", 1, 4, "medium")), {"0": 2, "1": 1})
    assert TASK.gold_summary(frame).counts == {"kept": 2, "dropped": 1, "kept without a known answer": 1}


def test_checks_count_annotations_failing_each_rule() -> None:
    labels = votes(("0", 1, 2, "easy", "", "0:9"), ("0", 2, 1, "easy"))
    checks = {c.name: (c.flagged, c.of) for c in TASK.checks(labels, gold(labels, {"0": 2}, min_accuracy=0.0), {})}
    assert checks["Annotations with a span left empty (rule b)"] == (1, 2)
    assert checks["Annotations with rated easy but answered wrongly (rule c)"] == (1, 2)


def test_difficulty_agreement_is_ordinal_krippendorff() -> None:
    labels = votes(("0", 1, 0, "easy"), ("0", 2, 0, "medium"), ("1", 1, 0, "hard"), ("1", 2, 0, "hard"),
                   ("2", 1, 0, "easy"), ("2", 2, 0, "hard"))
    result = field_agreement("difficulty", TASK.agreement_units(labels)["difficulty"])
    reliability = np.array([[0, 2, 0], [1, 2, 2]], dtype=float)  # coders x units, easy=0 < medium=1 < hard=2
    assert result.level == "ordinal"
    assert result.krippendorff_alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=reliability, level_of_measurement="ordinal", value_domain=[0, 1, 2]))
    assert result.krippendorff_alpha.value != pytest.approx(
        krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal"))


def test_a_control_answer_scores_the_option_only() -> None:
    assert TASK.control_score(ITEM, answer(option=2, difficulty="easy"), {"label": 2}) == 1.0
    assert TASK.control_score(ITEM, answer(option=1), {"label": 2}) == 0.0
    assert TASK.control_score(ITEM, answer(), None) is None


def test_a_kept_questions_answer_becomes_a_known_answer_and_is_said_in_words() -> None:
    frame = gold(votes(("0", 1, 3, "hard"), ("0", 2, 3, "hard"), ("1", 1, 0, "hard"), ("1", 2, 1, "hard")), {})
    assert TASK.control_reference(ITEM, pd.DataFrame(), frame) == {"label": 3}
    other = SimpleNamespace(external_id="1", payload=ITEM.payload)
    assert TASK.control_reference(other, pd.DataFrame(), frame) is None  # dropped: no majority
    assert TASK.show_reference(ITEM, {"label": 2}) == "option 3, “secret”"


def test_the_kept_questions_option_is_the_gold_dawid_skene_is_compared_with() -> None:
    frame = gold(votes(("0", 1, 2, "hard"), ("0", 2, 2, "hard"), ("5", 1, 3, "hard"), ("5", 2, 3, "hard"),
                       ("6", 1, 0, "hard"), ("6", 2, 1, "hard")), {"0": 2})
    assert TASK.gold_units(frame)["option"].to_dict() == {"0": "2", "5": "3"}  # 6 is dropped: no majority
