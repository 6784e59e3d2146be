"""The ArgKP gold rule: >= 60% of a pair's annotators matched it is a match, <= 15% no match.

Held on match.yaml, the definition every KPA-2021 match project is a declared project of (the built-in kp_match type
is gone: docs/one-engine.md): its `share` rule over the `matches` question, one row per (argument, key point)."""
from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest

from annotator.analysis.results import LABEL_COLUMNS
from annotator.declared.definition import UNDECIDED
from annotator.declared.definition_reader import definition_from_data
from annotator.declared.items import load_definition
from annotator.shared_tasks.kpa2021.declared_gold import MATCH_DEFINITION
from annotator.shared_tasks.kpa2021.declared_rules import match_definition
from annotator.tasks.custom import DeclaredTask

MATCH = DeclaredTask(load_definition(MATCH_DEFINITION))


def _labels(votes: dict[str, list[int]]) -> pd.DataFrame:
    """key point -> one 0/1 per annotator, all for the item arg_1_0, as the declared engine stores them."""
    rows = [("arg_1_0", 0, kp, "matches", str(v), n, n) for kp, values in votes.items() for n, v in enumerate(values)]
    return pd.DataFrame(rows, columns=LABEL_COLUMNS)


def _gold(votes: dict[str, list[int]], task: DeclaredTask = MATCH) -> pd.DataFrame:
    return task.gold(_labels(votes), {})


@pytest.mark.parametrize("votes, label", [
    ([1, 1, 1, 0, 0], "1"),                  # 3/5 = 0.60 exactly: a match
    ([1, 1, 1, 1, 1, 0, 0, 0], "1"),         # 5/8 = 0.625
    ([1, 1, 0, 0, 0], UNDECIDED),            # 2/5 = 0.40
    ([1, 1, 1, 1, 0, 0, 0, 0], UNDECIDED),   # 4/8 = 0.50
    ([1, 0, 0, 0, 0, 0, 0, 0], "0"),         # 1/8 = 0.125
    ([0, 0, 0, 0, 0, 0, 0, 0], "0"),
    ([1, 0, 0, 0, 0, 0], UNDECIDED),         # 1/6 = 0.167 is above 0.15
    ([1] * 6 + [0] * 4, "1"),                # 6/10 = 0.60 exactly
    ([1] * 9 + [0] * 6, "1"),                # 9/15 = 0.60 exactly
    ([1] * 7 + [0] * 5, UNDECIDED),          # 7/12 = 0.583, just under 0.60
    ([1] * 3 + [0] * 17, "0"),               # 3/20 = 0.15 exactly: no match
    ([1] * 2 + [0] * 11, UNDECIDED),         # 2/13 = 0.154, just over 0.15
])
def test_gold_label_follows_the_thresholds(votes, label):
    assert _gold({"kp_1_0": votes}).loc[0, "gold"] == label


@pytest.mark.parametrize("n", range(1, 41))
def test_gold_label_is_the_exact_fraction_against_the_thresholds(n):
    """Every share of up to 40 annotators, judged as an exact fraction against 3/5 and 3/20."""
    votes = {f"kp_{matched}": [1] * matched + [0] * (n - matched) for matched in range(n + 1)}
    gold = _gold(votes)
    expected = {f"kp_{m}": "1" if Fraction(m, n) >= Fraction(3, 5) else "0" if Fraction(m, n) <= Fraction(3, 20)
                else UNDECIDED for m in range(n + 1)}
    assert dict(zip(gold["unit"], gold["gold"])) == expected


def test_gold_reports_annotators_and_share():
    gold = _gold({"kp_1_0": [1, 1, 0, 1], "kp_1_1": [0, 0, 0, 0]})
    assert gold[["unit", "n", "score"]].values.tolist() == [["kp_1_0", 4, 0.75], ["kp_1_1", 4, 0.0]]


def test_thresholds_given_with_the_import_are_the_rules():
    """`--positive-threshold 0.8 --negative-threshold 0.3` write the share rule of the project's definition."""
    strict = DeclaredTask(definition_from_data(match_definition(
        load_definition(MATCH_DEFINITION).to_data(), {"positive_threshold": 0.8, "negative_threshold": 0.3})))
    assert _gold({"kp": [1, 1, 1, 0, 0]}, strict).loc[0, "gold"] == UNDECIDED       # 0.6: a match at 0.6 / 0.15
    assert _gold({"kp": [1, 1, 1, 0, 0]}).loc[0, "gold"] == "1"


def test_gold_of_no_votes_is_empty():
    assert _gold({}).empty
