"""TaskType.likely_answer: the answer the demo's annotators give most of the time, one rule per type."""
from __future__ import annotations

import random
from pathlib import Path

from annotator.declared.items import load_definition
from annotator.tasks import task_type
from annotator.tasks.custom import DeclaredTask

RNG = random.Random(0)


def test_a_declared_campaign_without_a_known_answer_gives_its_example_answer() -> None:
    # RuArg-2022, a declared project of its definition since the built-in stance_premise type went
    stance = DeclaredTask(load_definition(Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks" /
                                          "ruarg2022" / "stance_premise.yaml"))
    item = {"id": "17041", "text": "Маски полезны."}
    assert stance.likely_answer(item, None, random.Random(1)) == stance.example_answer(item, random.Random(1))


def test_key_point_matching_answers_the_reference_labels() -> None:
    item = {"key_points": [{"id": "kp_1", "text": "a"}, {"id": "kp_2", "text": "b"}, {"id": "kp_3", "text": "c"}]}
    answer = task_type("kp_match").likely_answer(item, {"kp_1": 0, "kp_2": 1, "kp_3": 1}, RNG)
    assert answer == {"matches": ["kp_2", "kp_3"]}


def test_the_match_check_says_yes_when_key_point_and_argument_share_a_word_beyond_the_topic() -> None:
    item = {"topic": "We should abandon the use of school uniform", "argument": "uniforms reduce bullying at school",
            "key_point": {"id": "x", "text": "Uniforms reduce bullying"}}
    check = task_type("kp_match_check")
    assert check.likely_answer(item, None, RNG) == {"verdict": "yes"}
    other = {**item, "key_point": {"id": "y", "text": "Uniforms save money"}}
    assert check.likely_answer(other, None, RNG) == {"verdict": "no"}


def test_the_comparison_prefers_the_summary_that_covers_more_and_repeats_less() -> None:
    wide = [{"text": "Uniforms reduce bullying", "prevalence": 0.4}, {"text": "Families save money", "prevalence": 0.3}]
    narrow = [{"text": "Uniforms are good", "prevalence": 0.1}, {"text": "Uniforms are good again", "prevalence": 0.1}]
    answer = task_type("kp_set_compare").likely_answer({"stance": -1, "summary_a": narrow, "summary_b": wide},
                                                       None, RNG)
    assert answer == {"stance_a": "all_contest", "stance_b": "all_contest", "less_redundant": "B",
                      "more_central": "B"}


def test_a_declared_campaign_gives_the_items_reference_answers_and_an_example_answer_elsewhere() -> None:
    """ReCAM's definition: the reference {"option": "1"} is the option given; the evidence and difficulty, which
    the reference does not give, are the example answer's (drawn with the same seed)."""
    definition = load_definition(Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks" / "recam2021"
                                 / "cloze_selection.yaml")
    task = DeclaredTask(definition)
    item = {"id": "q", "article": "The library opened again.", "question": "It @placeholder again .",
            "options": ["closed", "opened", "sold", "hid", "lost"]}
    answer = task.likely_answer(item, {"option": "1"}, random.Random(7))
    assert task.example_answer(item, random.Random(7))["option"] != "1"   # the seed draws another option
    assert answer == {**task.example_answer(item, random.Random(7)), "option": "1"}
    assert set(answer) == {"option", "passage_span", "question_span", "difficulty"}
    assert task.likely_answer(item, None, random.Random(7)) == task.example_answer(item, random.Random(7))
