"""Part 2: each task type scores an answer against a control item's known answer (0..1), and turns gold into one."""
from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from annotator.analysis.results import LABEL_COLUMNS
from annotator.core.models import Item
from annotator.declared.items import load_definition
from annotator.tasks import TASK_TYPES, TaskType, settings_with_defaults, task_type
from annotator.tasks.custom import DeclaredTask
from tests.conftest import TESTS

SHARED_TASKS = TESTS.parent / "annotator" / "shared_tasks"


def _kpa(definition: str) -> TaskType:
    """The declared type bound to a KPA-2021 definition, as a project of it has it (with its bridge: KPA's projects
    are declared ones since the built-in types are gone, docs/one-engine.md)."""
    data = load_definition(SHARED_TASKS / "kpa2021" / definition).to_data()
    return task_type("custom").for_project(SimpleNamespace(definition=data))


def _item(payload: dict) -> Item:
    return Item(external_id=payload["id"], position=0, payload=payload)


KPA = _item({"id": "arg_1", "topic": "t", "stance": 1, "argument": "a",
             "key_points": [{"id": "kp1", "text": "one"}, {"id": "kp2", "text": "two"}, {"id": "kp3", "text": "three"},
                            {"id": "kp4", "text": "four"}]})


@pytest.mark.parametrize("matches, score", [(["kp1"], 1.0), ([], 0.75), (["kp1", "kp2"], 0.75), (["kp2", "kp3"], 0.25)])
def test_key_point_matching_is_scored_per_known_key_point(matches, score):
    reference = {"kp1": 1, "kp2": 0, "kp3": 0, "kp4": 0}
    assert _kpa("match.yaml").control_score(KPA, {"matches": matches}, reference) == score


def test_key_point_matching_scores_only_the_key_points_the_reference_labels():
    assert _kpa("match.yaml").control_score(KPA, {"matches": ["kp1", "kp4"]}, {"kp1": 1}) == 1.0


WORDS = _item({"id": "S", "words": [{"id": f"S_{n}", "text": w} for n, w in enumerate("Save the date now".split())]})
PROBABILITIES = {"S_0": 0.9, "S_1": 0.1, "S_2": 0.6, "S_3": 0.3}


# SemEval-2020 emphasis is a declared project of its shared task's definition (the built-in type is gone).
EMPHASIS = DeclaredTask(load_definition(SHARED_TASKS / "emphasis2020" / "selection.yaml"))


@pytest.mark.parametrize("tags, score", [(["B", "O", "B", "O"], 1.0), (["B", "O", "O", "O"], 0.5),
                                         (["B", "I", "I", "I"], 0.5), (["O", "O", "O", "O"], 0.0)])
def test_emphasis_is_scored_by_overlap_with_the_words_most_annotators_emphasised(tags, score):
    """The Jaccard overlap with the words of p > 0.5 (S_0 and S_2), as the paper's annotators' top words."""
    assert EMPHASIS.control_score(WORDS, {"emphasis": tags}, {"emphasis": PROBABILITIES}) == score


def test_emphasis_gold_probabilities_become_the_reference():
    """Two annotators: B O B O and B I O O give the words 2/2, 1/2, 1/2 and 0/2 of the votes."""
    rows, row = [], 0
    for user, tags in ((1, "BOBO"), (2, "BIOO")):
        for n, tag in enumerate(tags):
            for field, value in (("emphasis", "0" if tag == "O" else "1"), ("emphasis.bio", tag)):
                rows.append(("S", 0, f"S_{n}", field, value, user, row))
                row += 1
    labels = pd.DataFrame(rows, columns=LABEL_COLUMNS)
    gold = EMPHASIS.gold(labels, settings_with_defaults(EMPHASIS, None))
    assert EMPHASIS.control_reference(WORDS, labels, gold) == {"emphasis": {"S_0": 1.0, "S_1": 0.5, "S_2": 0.5,
                                                                            "S_3": 0.0}}


SENTENCE = _item({"id": "17041", "text": "Маски полезны."})
# RuArg-2022 is a declared project of its shared task's definition (the built-in stance_premise type is gone); its
# known answer is the file's labels in the definition's terms: masks for (2) with no argument (1), the other two
# claims irrelevant (the data set's -1 for both labels).
RUARG = DeclaredTask(load_definition(SHARED_TASKS / "ruarg2022" / "stance_premise.yaml"))
RUARG_REFERENCE = {"claims": {"masks": {"relevance": "relevant", "stance": "2", "premise": "1"},
                              "quarantine": {"relevance": "irrelevant"}, "vaccines": {"relevance": "irrelevant"}}}


def test_stance_and_premise_are_scored_per_label_irrelevant_a_code_of_both():
    """Six codes (stance and premise of three claims), as the paper's labels: masks' stance right and premise wrong,
    quarantine irrelevant as known (both right), vaccines relevant where it is not (both wrong): 3 of 6."""
    answer = {"claims": {"masks": {"relevance": "relevant", "stance": "2", "premise": "2"},
                         "quarantine": {"relevance": "irrelevant"},
                         "vaccines": {"relevance": "relevant", "stance": "0", "premise": "0"}}}
    assert RUARG.control_score(SENTENCE, answer, RUARG_REFERENCE) == pytest.approx(3 / 6)


def test_stance_and_premise_gold_decided_by_two_of_three_becomes_the_known_answer():
    """Three annotators: masks for with no argument by all three, quarantine and vaccines irrelevant by two: the
    decided gold is the file's labels of RUARG_REFERENCE."""
    votes = [RUARG_REFERENCE,
             {"claims": {"masks": {"relevance": "relevant", "stance": "2", "premise": "1"},
                         "quarantine": {"relevance": "relevant", "stance": "0", "premise": "0"},
                         "vaccines": {"relevance": "irrelevant"}}},
             {"claims": {"masks": {"relevance": "relevant", "stance": "2", "premise": "1"},
                         "quarantine": {"relevance": "irrelevant"},
                         "vaccines": {"relevance": "relevant", "stance": "1", "premise": "1"}}}]
    rows = [("17041", 0, label.unit, label.field, label.value, user, user * 100 + n)
            for user, answer in enumerate(votes, 1) for n, label in enumerate(RUARG.labels(SENTENCE, answer))]
    labels = pd.DataFrame(rows, columns=LABEL_COLUMNS)
    gold = RUARG.gold(labels, settings_with_defaults(RUARG, None))
    assert RUARG.control_reference(SENTENCE, labels, gold) == RUARG_REFERENCE


PAIR = _item({"id": "p1", "topic": "t", "stance": 1, "argument": "a", "key_point": {"id": "k", "text": "kp"}})


@pytest.mark.parametrize("verdict, score", [("yes", 1.0), ("no", 0.0), ("faulty", 0.0)])
def test_a_match_check_is_scored_on_its_verdict(verdict, score):
    assert _kpa("match_check.yaml").control_score(PAIR, {"verdict": verdict}, {"verdict": "yes"}) == score


@pytest.mark.parametrize("name", sorted(TASK_TYPES))   # the declared type alone, since the switch to one engine
def test_every_type_so_far_can_have_control_items(name):
    assert type(task_type(name)).control_score is not TaskType.control_score
