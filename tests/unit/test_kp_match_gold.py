"""The ArgKP gold rule: >= 60% of a pair's annotators matched it is a match, <= 15% no match."""
from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest

from annotator.tasks.kp_match import UNDECIDED, KeyPointMatch

SETTINGS = {"positive_threshold": 0.60, "negative_threshold": 0.15}


def _labels(votes: dict[str, list[int]]) -> pd.DataFrame:
    """key point -> one 0/1 per annotator, all for the item arg_1_0."""
    return pd.DataFrame([{"item": "arg_1_0", "unit": kp, "field": "match", "value": str(v), "user_id": n}
                         for kp, values in votes.items() for n, v in enumerate(values)])


@pytest.mark.parametrize("votes, label", [
    ([1, 1, 1, 0, 0], 1),                  # 3/5 = 0.60 exactly: a match
    ([1, 1, 1, 1, 1, 0, 0, 0], 1),         # 5/8 = 0.625
    ([1, 1, 0, 0, 0], UNDECIDED),          # 2/5 = 0.40
    ([1, 1, 1, 1, 0, 0, 0, 0], UNDECIDED), # 4/8 = 0.50
    ([1, 0, 0, 0, 0, 0, 0, 0], 0),         # 1/8 = 0.125
    ([0, 0, 0, 0, 0, 0, 0, 0], 0),
    ([1, 0, 0, 0, 0, 0], UNDECIDED),       # 1/6 = 0.167 is above 0.15
    ([1] * 6 + [0] * 4, 1),                # 6/10 = 0.60 exactly
    ([1] * 9 + [0] * 6, 1),                # 9/15 = 0.60 exactly
    ([1] * 7 + [0] * 5, UNDECIDED),        # 7/12 = 0.583, just under 0.60
    ([1] * 3 + [0] * 17, 0),               # 3/20 = 0.15 exactly: no match
    ([1] * 2 + [0] * 11, UNDECIDED),       # 2/13 = 0.154, just over 0.15
])
def test_gold_label_follows_the_thresholds(votes, label):
    gold = KeyPointMatch().gold(_labels({"kp_1_0": votes}), SETTINGS)
    assert gold.loc[0, "label"] == label


@pytest.mark.parametrize("n", range(1, 41))
def test_gold_label_is_the_exact_fraction_against_the_thresholds(n):
    """Every share of up to 40 annotators, judged as an exact fraction against 3/5 and 3/20."""
    votes = {f"kp_{matched}": [1] * matched + [0] * (n - matched) for matched in range(n + 1)}
    gold = KeyPointMatch().gold(_labels(votes), SETTINGS)
    expected = [1 if Fraction(m, n) >= Fraction(3, 5) else 0 if Fraction(m, n) <= Fraction(3, 20) else UNDECIDED
                for m in range(n + 1)]
    assert list(gold["label"]) == expected


def test_gold_reports_annotators_matched_and_share():
    gold = KeyPointMatch().gold(_labels({"kp_1_0": [1, 1, 0, 1], "kp_1_1": [0, 0, 0, 0]}), SETTINGS)
    assert gold[["unit", "annotators", "matched", "share"]].values.tolist() == [
        ["kp_1_0", 4, 3, 0.75], ["kp_1_1", 4, 0, 0.0]]


def test_thresholds_are_project_settings():
    strict = {"positive_threshold": 0.8, "negative_threshold": 0.3}
    gold = KeyPointMatch().gold(_labels({"kp": [1, 1, 1, 0, 0]}), strict)
    assert gold.loc[0, "label"] == UNDECIDED


def test_gold_of_no_votes_is_empty():
    gold = KeyPointMatch().gold(pd.DataFrame(columns=["item", "unit", "field", "value", "user_id"]), SETTINGS)
    assert gold.empty and list(gold.columns) == ["item", "unit", "annotators", "matched", "share", "label"]


def test_a_projects_settings_are_its_stored_ones_completed_with_the_types_defaults():
    """`settings_of` gives the type's methods the project's settings: a stored threshold wins, an unset one is the
    paper's, and a key the type does not have is left out."""
    from annotator.core.models import Project
    project = Project(task_type="kp_match", settings={"positive_threshold": 0.8, "no_such_setting": 1})
    assert KeyPointMatch().settings_of(project) == {"positive_threshold": 0.8, "negative_threshold": 0.15}
    assert KeyPointMatch().settings_of(Project(task_type="kp_match", settings=None)) == SETTINGS
