"""declared/rule_settings.py: which parameters of a definition's gold rules an organiser may change after the
import, and what changing one writes into the stored definition (the settings form and its action are tested in
tests/actions/test_settings.py and tests/web/test_admin.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.core.options import OptionError
from annotator.declared.definition_reader import definition_from_data, definition_from_file
from annotator.declared.rule_settings import changed_rules, rule_settings, rule_values, with_rules

ROOT = Path(__file__).resolve().parents[2]
SHARED_TASKS = ROOT / "annotator" / "shared_tasks"
DEFINITIONS = sorted([*SHARED_TASKS.glob("*/*.yaml"), *(ROOT / "examples").glob("*.yaml")])


def _stored(path: Path) -> dict:
    return json.loads(json.dumps(definition_from_file(path).to_data()))


def test_each_shared_tasks_definition_offers_the_parameters_its_paper_sets() -> None:
    offered = {p.relative_to(SHARED_TASKS).as_posix(): rule_values(definition_from_file(p))
               for p in sorted(SHARED_TASKS.glob("*/*.yaml"))}
    assert offered["kpa2021/match.yaml"] == {"gold_matches_positive": 0.6, "gold_matches_negative": 0.15}
    assert offered["kpa2021/match_check.yaml"] == {"gold_verdict_ties": "no"}
    assert offered["ruarg2022/stance.yaml"] == {"gold_relevance_m": 2, "gold_stance_m": 2}
    assert offered["ruarg2022/premise.yaml"] == {   # the premise stage: one question per claim whose stance has gold
        "gold_masks_premise_m": 2, "gold_quarantine_premise_m": 2, "gold_vaccines_premise_m": 2}
    assert offered["ruarg2022/stance_premise.yaml"] == {"gold_relevance_m": 2, "gold_stance_m": 2, "gold_premise_m": 2}
    assert offered["emphasis2020/selection.yaml"] == {}     # a probability: nothing to move
    assert offered["kpa2021/set_compare.yaml"] == {"gold_stance_ties": "undecided"}   # the comparisons: Bradley-Terry
    assert offered["recam2021/cloze.yaml"] == {}            # the options are the item's: no tie to name in advance
    assert offered["recam2021/cloze_selection.yaml"] == {
        "gold_passage_span_positive": 0.5, "gold_passage_span_negative": 0.15,
        "gold_question_span_positive": 0.5, "gold_question_span_negative": 0.15}


@pytest.mark.parametrize("path", DEFINITIONS, ids=lambda p: p.name)
def test_writing_every_parameter_back_at_its_value_leaves_the_definition_as_it_was(path: Path) -> None:
    definition = definition_from_file(path)
    values = rule_values(definition)
    assert with_rules(_stored(path), definition, values) == _stored(path)
    assert changed_rules(definition, values) == {}


def test_a_parameter_of_a_question_in_a_repeat_group_is_written_in_its_place() -> None:
    path = SHARED_TASKS / "ruarg2022" / "stance.yaml"
    definition = definition_from_file(path)
    new = with_rules(_stored(path), definition, {"gold_relevance_m": 3})
    [relevance, stance] = definition_from_data(new).questions
    assert (relevance.gold.m, relevance.gold.value, relevance.gold.otherwise) == (3, "relevant", "irrelevant")
    assert stance.gold.m == 2


def test_a_tie_may_give_undecided_or_one_of_the_questions_options_and_nothing_else() -> None:
    definition = definition_from_file(ROOT / "examples" / "claim_stance_likert.yaml")
    [ties] = [s.option for s in rule_settings(definition) if s.question == "stance"]
    assert ties.choices == ("undecided", "favour", "against", "neutral", "unrelated")
    assert changed_rules(definition, {"gold_stance_ties": "neutral"}) == {"gold_stance_ties": ("undecided", "neutral")}
    with pytest.raises(OptionError, match="gold_stance_ties"):
        changed_rules(definition, {"gold_stance_ties": "maybe"})


def test_a_change_the_definition_refuses_says_where_and_why() -> None:
    path = SHARED_TASKS / "kpa2021" / "match.yaml"
    with pytest.raises(OptionError, match=r"negative \(0\.65\) must be below positive \(0\.6\).*questions\[0\]\.gold"):
        with_rules(_stored(path), definition_from_file(path), {"gold_matches_negative": 0.65})


def test_a_rule_given_as_its_name_alone_is_written_as_a_mapping() -> None:
    data = {"name": "n", "show": [{"field": "text"}], "questions": [
        {"id": "ok", "kind": "choice", "prompt": "OK?", "options": [{"value": "y"}, {"value": "n"}], "gold": "agree"}]}
    definition = definition_from_data(data)
    new = with_rules(data, definition, {"gold_ok_m": 3})
    assert definition_from_data(new).questions[0].gold.m == 3
