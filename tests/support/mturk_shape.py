"""What boto3's `create_hit(**request)` and `aws mturk create-hit --cli-input-json` accept, checked by hand.

Transcribed from botocore's service model of MTurk (botocore/data/mturk/2017-01-17/service-2.json, shapes
CreateHITRequest, QualificationRequirement, Locale, Comparator, HITAccessActions, CurrencyAmount,
CountryParameters) so the tests need neither boto3 nor the network. botocore validates parameters against
exactly these: unknown members, missing required ones, wrong types, enum values and string lengths.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

CREATE_HIT_MEMBERS = {
    "MaxAssignments": int, "AutoApprovalDelayInSeconds": int, "LifetimeInSeconds": int,
    "AssignmentDurationInSeconds": int, "Reward": str, "Title": str, "Keywords": str, "Description": str,
    "Question": str, "RequesterAnnotation": str, "QualificationRequirements": list, "UniqueRequestToken": str,
    "AssignmentReviewPolicy": dict, "HITReviewPolicy": dict, "HITLayoutId": str, "HITLayoutParameters": list,
}
CREATE_HIT_REQUIRED = {"LifetimeInSeconds", "AssignmentDurationInSeconds", "Reward", "Title", "Description"}
CURRENCY_AMOUNT = re.compile(r"^[0-9]+(\.)?[0-9]{0,2}$")
REQUIREMENT_MEMBERS = {"QualificationTypeId": str, "Comparator": str, "IntegerValues": list, "LocaleValues": list,
                       "RequiredToPreview": bool, "ActionsGuarded": str}
COMPARATORS = {"LessThan", "LessThanOrEqualTo", "GreaterThan", "GreaterThanOrEqualTo", "EqualTo", "NotEqualTo",
               "Exists", "DoesNotExist", "In", "NotIn"}
ACTIONS_GUARDED = {"Accept", "PreviewAndAccept", "DiscoverPreviewAndAccept"}
EXTERNAL_QUESTION = "{http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd}"


def problems(request: dict[str, Any]) -> list[str]:
    """Everything in `request` that botocore (or MTurk's documented limits) would refuse; [] when none."""
    found = [f"unknown member {k}" for k in request if k not in CREATE_HIT_MEMBERS]
    found += [f"missing {k}" for k in sorted(CREATE_HIT_REQUIRED - set(request))]
    for key, value in request.items():
        kind = CREATE_HIT_MEMBERS.get(key)
        if kind is not None and (not isinstance(value, kind) or isinstance(value, bool) and kind is int):
            found.append(f"{key} is {type(value).__name__}, not {kind.__name__}")
    if isinstance(request.get("Reward"), str) and not CURRENCY_AMOUNT.match(request["Reward"]):
        found.append(f"Reward {request['Reward']!r} is not a CurrencyAmount")
    if "Question" not in request and "HITLayoutId" not in request:
        found.append("neither Question nor HITLayoutId")
    if isinstance(request.get("Question"), str):
        found += _question_problems(request["Question"])
    requirements = request.get("QualificationRequirements", [])
    if len(requirements) > 10:
        found.append(f"{len(requirements)} qualification requirements, more than 10")
    for n, requirement in enumerate(requirements):
        found += [f"requirement {n}: {p}" for p in _requirement_problems(requirement)]
    return found


def _question_problems(question: str) -> list[str]:
    if len(question.encode()) > 65535:
        return ["Question longer than 65,535 bytes"]
    root = ET.fromstring(question.encode())
    if root.tag != f"{EXTERNAL_QUESTION}ExternalQuestion":
        return [f"Question is a {root.tag}, not an ExternalQuestion"]
    url = root.findtext(f"{EXTERNAL_QUESTION}ExternalURL") or ""
    height = root.findtext(f"{EXTERNAL_QUESTION}FrameHeight") or ""
    return ([] if url.startswith("https://") else [f"ExternalURL {url!r} is not https"]) + \
        ([] if height.isdigit() else [f"FrameHeight {height!r} is not a number"])


def _requirement_problems(requirement: dict[str, Any]) -> list[str]:
    found = [f"unknown member {k}" for k in requirement if k not in REQUIREMENT_MEMBERS]
    found += [f"missing {k}" for k in ("QualificationTypeId", "Comparator") if k not in requirement]
    comparator = requirement.get("Comparator")
    if comparator not in COMPARATORS:
        found.append(f"Comparator {comparator!r}")
    if "ActionsGuarded" in requirement and requirement["ActionsGuarded"] not in ACTIONS_GUARDED:
        found.append(f"ActionsGuarded {requirement['ActionsGuarded']!r}")
    integers, locales = requirement.get("IntegerValues"), requirement.get("LocaleValues")
    if comparator in ("Exists", "DoesNotExist") and (integers or locales):
        found.append(f"values with {comparator}")
    if integers is not None and not all(isinstance(v, int) and not isinstance(v, bool) for v in integers):
        found.append(f"IntegerValues {integers!r}")
    if locales is not None:
        if requirement.get("QualificationTypeId") != "00000000000000000071":
            found.append("LocaleValues on a qualification that is not Worker_Locale")
        if comparator in ("EqualTo", "NotEqualTo") and len(locales) != 1 or len(locales) > 30:
            found.append(f"{len(locales)} LocaleValues with {comparator}")
        for locale in locales:
            if set(locale) - {"Country", "Subdivision"} or not isinstance(locale.get("Country"), str) \
                    or len(locale["Country"]) != 2:
                found.append(f"Locale {locale!r}")
    return found
