"""The hand-transcribed check of MTurk's CreateHIT request (tests/support/mturk_shape.py), shown bad requests first.

Three tests rest on `problems(request) == []`; a checker that finds nothing would pass them all. Each request
here breaks one rule botocore's service model (or MTurk's documented limits) sets, and the checker must name it.
"""
from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.support.mturk_shape import EXTERNAL_QUESTION, problems

NS = EXTERNAL_QUESTION.strip("{}")
QUESTION = (f'<ExternalQuestion xmlns="{NS}"><ExternalURL>https://annotate.example.org/crowd/mturk/kpa</ExternalURL>'
            "<FrameHeight>0</FrameHeight></ExternalQuestion>")
VALID: dict[str, Any] = {
    "Title": "Match arguments to key points", "Description": "Read an argument; tick the key points it makes.",
    "Reward": "0.50", "LifetimeInSeconds": 86400, "AssignmentDurationInSeconds": 1800, "MaxAssignments": 3,
    "Question": QUESTION,
    "QualificationRequirements": [
        {"QualificationTypeId": "00000000000000000071", "Comparator": "In",
         "LocaleValues": [{"Country": "US"}, {"Country": "GB"}], "ActionsGuarded": "DiscoverPreviewAndAccept"},
        {"QualificationTypeId": "000000000000000000L0", "Comparator": "GreaterThanOrEqualTo", "IntegerValues": [95]},
    ],
}


def test_a_well_formed_request_has_no_problem():
    assert problems(VALID) == []


def _broken(change: str) -> dict[str, Any]:
    request = copy.deepcopy(VALID)
    requirement = request["QualificationRequirements"][0]
    if change == "unknown member":
        request["Rewards"] = "1.00"
    elif change == "missing":
        del request["Title"]
    elif change == "type":
        request["MaxAssignments"] = "3"
    elif change == "bool for int":
        request["LifetimeInSeconds"] = True
    elif change == "reward":
        request["Reward"] = "$0.50"
    elif change == "no question":
        del request["Question"]
    elif change == "http":
        request["Question"] = QUESTION.replace("https://", "http://")
    elif change == "height":
        request["Question"] = QUESTION.replace("<FrameHeight>0", "<FrameHeight>tall")
    elif change == "not external":
        request["Question"] = QUESTION.replace("ExternalQuestion", "HTMLQuestion")
    elif change == "comparator":
        requirement["Comparator"] = "Within"
    elif change == "actions":
        requirement["ActionsGuarded"] = "Everything"
    elif change == "locale on another qualification":
        request["QualificationRequirements"][1]["LocaleValues"] = [{"Country": "US"}]
    elif change == "locale":
        requirement["LocaleValues"] = [{"Country": "USA"}]
    elif change == "values with exists":
        request["QualificationRequirements"][1]["Comparator"] = "Exists"
    elif change == "eleven requirements":
        request["QualificationRequirements"] = [copy.deepcopy(requirement) for _ in range(11)]
    return request


@pytest.mark.parametrize("change, named", [
    ("unknown member", "unknown member Rewards"), ("missing", "missing Title"),
    ("type", "MaxAssignments is str, not int"), ("bool for int", "LifetimeInSeconds is bool, not int"),
    ("reward", "Reward '$0.50' is not a CurrencyAmount"), ("no question", "neither Question nor HITLayoutId"),
    ("http", "is not https"), ("height", "FrameHeight 'tall' is not a number"),
    ("not external", "not an ExternalQuestion"), ("comparator", "Comparator 'Within'"),
    ("actions", "ActionsGuarded 'Everything'"),
    ("locale on another qualification", "LocaleValues on a qualification that is not Worker_Locale"),
    ("locale", "Locale {'Country': 'USA'}"), ("values with exists", "values with Exists"),
    ("eleven requirements", "11 qualification requirements, more than 10"),
])
def test_a_request_that_breaks_one_rule_is_refused_naming_it(change, named):
    found = problems(_broken(change))
    assert any(named in p for p in found), found
