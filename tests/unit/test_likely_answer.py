"""TaskType.likely_answer: the answer the demo's annotators give most of the time, one rule per type."""
from __future__ import annotations

import random
from pathlib import Path

from annotator.declared.items import load_definition
from annotator.tasks.custom import DeclaredTask

RNG = random.Random(0)


def test_a_declared_campaign_without_a_known_answer_gives_its_example_answer() -> None:
    # RuArg-2022, a declared project of its definition since the built-in stance_premise type went
    stance = DeclaredTask(load_definition(Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks" /
                                          "ruarg2022" / "stance_premise.yaml"))
    item = {"id": "17041", "text": "Маски полезны."}
    assert stance.likely_answer(item, None, random.Random(1)) == stance.example_answer(item, random.Random(1))


def test_key_point_matching_answers_the_reference_in_the_definitions_terms() -> None:
    """A KPA match project is a declared project of match.yaml (the built-in type, which read the labels file's
    {key point: 1 / 0}, is gone): a reference {"matches": [...]} is the answer given."""
    definition = load_definition(Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks" / "kpa2021"
                                 / "match.yaml")
    item = {"id": "a", "topic": "t", "stance": 1, "argument": "x",
            "key_points": [{"id": "kp_1", "text": "a"}, {"id": "kp_2", "text": "b"}, {"id": "kp_3", "text": "c"}]}
    answer = DeclaredTask(definition).likely_answer(item, {"matches": ["kp_2", "kp_3"]}, RNG)
    assert answer == {"matches": ["kp_2", "kp_3"]}


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
