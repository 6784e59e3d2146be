"""Each HIT type says its stored values in its own words (TaskType.label_words), for the admin's HTML pages;
the stored values themselves (exports, the API) are not touched by it."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from annotator.declared.items import load_definition
from annotator.tasks.custom import DeclaredTask

SHARED_TASKS = Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks"


def _kpa(definition: str) -> DeclaredTask:
    """KPA-2021's definitions: every KPA project is a declared project of one (the built-in types are gone)."""
    return DeclaredTask(load_definition(SHARED_TASKS / "kpa2021" / definition))


@pytest.mark.parametrize(("definition", "field", "value", "words"), [
    ("match.yaml", "matches", "1", "chosen"),
    ("match.yaml", "matches", "0", "not chosen"),
    ("match.yaml", "matches", "undecided", "Undecided"),
    ("match_check.yaml", "verdict", "faulty", "Faulty key point (unclear, not a point, or not of this stance)"),
    ("match_check.yaml", "verdict", "yes", "Yes, the key point matches the argument"),
    ("match_check.yaml", "faulty_majority", np.bool_(True), "yes"),
    ("set_compare.yaml", "more_central", "equal", "About equal"),
    ("set_compare.yaml", "stance", "all_support", "All key points support the topic"),
])
def test_the_kpa_definitions_say_their_codes_in_words(definition: str, field: str, value: object, words: str) -> None:
    """KPA-2021's stored values in the definitions' words (the built-in types said "Match", "Faulty key point",
    "Less redundant: alpha" where the comparison's rows were system names; the declared rows are A / B / equal)."""
    assert _kpa(definition).label_words(field, value) == words


def test_values_no_type_knows_are_said_plainly() -> None:
    """Truth values read yes / no and a missing value a dash, whatever the type; counts stay numbers."""
    task = _kpa("match.yaml")
    assert (task.label_words("x", True), task.label_words("x", None), task.label_words("x", 3)) == ("yes", "–", "3")
    assert task.label_words("share", 1 / 3) == "0.333"


def test_a_declared_campaign_says_its_options_by_their_labels() -> None:
    """A definition gives each option's words: the pages use them instead of the stored value (here the questions
    of a repeat group, whose label rows are the claim's unit and the question's id)."""
    task = DeclaredTask(load_definition(SHARED_TASKS / "ruarg2022" / "stance_premise.yaml"))
    assert task.label_words("premise", "1") == "no argument"
    # RuArg-2022's codes (its projects are declared ones since the built-in stance_premise type went)
    assert [task.label_words("stance", code) for code in ("2", "0", "1")] == ["for", "against", "other"]
    assert task.label_words("premise", "0") == "against"
    # the figure pooled over both (the built-in's "all labels"): a value each words otherwise, in both their words
    assert task.label_words("all_labels (pooled)", "1") == "other / no argument"
    assert task.label_words("all_labels (pooled)", "2") == "for"
    assert task.label_words("relevance", "irrelevant") == "Not relevant"
    assert task.label_words("stance", "undecided") == "Undecided"


@pytest.mark.parametrize(("field", "value", "words"), [
    ("emphasis", "1", "selected"), ("emphasis", "0", "not selected"), ("emphasis.bio", "O", "O (not selected)"),
    ("emphasis.bio", "B", "B (starts a span)")])
def test_a_declared_span_with_boundaries_says_selected_and_its_tags(field: str, value: str, words: str) -> None:
    """SemEval-2020 emphasis, a declared project of its definition since the built-in type is gone: the word
    selected or not, and its B / I / O tag in words (the built-in said "Emphasised" and "O (not emphasised)")."""
    task = DeclaredTask(load_definition(SHARED_TASKS / "emphasis2020" / "selection.yaml"))
    assert task.label_words(field, value) == words


def test_a_field_name_reads_as_words() -> None:
    assert _kpa("set_compare.yaml").field_words("less_redundant") == "less redundant"


@pytest.mark.parametrize(("field", "value", "words"), [
    ("passage_span", "evidence", "Evidence"), ("question_span", "O", "outside every span"),
    ("passage_span", "1", "marked"), ("difficulty", "hard", "hard")])
def test_the_recam_definition_says_its_evidence_in_words(field: str, value: str, words: str) -> None:
    """SemEval-2021 ReCAM, a declared project of its definition since the built-in cloze type is gone: a character
    in the evidence or outside it, and a mark, in words (the built-in had no per-character rows)."""
    task = DeclaredTask(load_definition(SHARED_TASKS / "recam2021" / "cloze_selection.yaml"))
    assert task.label_words(field, value) == words
