"""The KPA-2021 import options that are rules, made into a project's definition at its import.

Why: the built-in match type (removed since, docs/one-engine.md) let its organiser change the share thresholds
(0.6 / 0.15, ArgKP's), and the built-in check type how a tie of "yes" against "no" + "faulty" counts (no match, or
match). A declared project's rules are its definition's, so the same options given with an import
(`--positive-threshold 0.7`, `--tie match`; the options below, the built-in settings' names, checks and defaults)
write the rule into the new project's copy of match.yaml / match_check.yaml, as migration 0023_kpa_declared wrote it
for a built-in project: the share rule's `positive` / `negative`, the majority's `ties: "yes"`. Settings that are no
rules (the check's mAP variant, the comparison's "equal" and linked check project) stay project settings (the
bridges' `kept_settings`), and are not read here.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from annotator.core.errors import FormatError
from annotator.core.options import Option
from annotator.declared.definition_reader import definition_from_data

TIE_MATCH, TIE_NO_MATCH, MATCH_ANSWER, NO_MATCH_ANSWER = "match", "no_match", "yes", "no"
POSITIVE, NEGATIVE = 0.60, 0.15   # ArgKP's share thresholds, match.yaml's

THRESHOLD_OPTIONS = (
    Option("positive_threshold", float, POSITIVE, label="Match when at least this share of annotators matched",
           help="ArgKP: 0.60", minimum=0.0, maximum=1.0, required=True),
    Option("negative_threshold", float, NEGATIVE, label="No match when at most this share matched",
           help="ArgKP: 0.15; pairs between the two are undecided", minimum=0.0, maximum=1.0, required=True),
)
TIE_OPTION = Option("tie", str, TIE_NO_MATCH, label="A tie of yes against no + faulty counts as",
                    help="the overview paper leaves it open; no_match is the cautious reading",
                    choices=(TIE_NO_MATCH, TIE_MATCH), required=True)


def _question(data: dict[str, Any], question_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(q for q in data["questions"] if q["id"] == question_id)
    return found


def _checked(data: dict[str, Any]) -> dict[str, Any]:
    """The changed definition checked as any definition is, and in the stored (JSON) form."""
    checked: dict[str, Any] = json.loads(json.dumps(definition_from_data(data).to_data()))
    return checked


def match_definition(definition: dict[str, Any], settings: Mapping[str, Any]) -> dict[str, Any]:
    """match.yaml with the share rule's thresholds of the import (the built-in kp_match's positive_threshold and
    negative_threshold; their defaults are the file's 0.6 and 0.15)."""
    positive, negative = float(settings["positive_threshold"]), float(settings["negative_threshold"])
    if negative >= positive:
        raise FormatError(f"negative_threshold {negative} must be below positive_threshold {positive}: a pair at or "
                          "above the one is a match, at or below the other no match")
    data = json.loads(json.dumps(definition))
    gold = _question(data, "matches")["gold"]
    gold["positive"], gold["negative"] = positive, negative
    return _checked(data)


def check_definition(definition: dict[str, Any], settings: Mapping[str, Any]) -> dict[str, Any]:
    """match_check.yaml with the tie of the import (the built-in kp_match_check's tie: no_match, the file's
    `ties: "no"`, or match, `ties: "yes"`)."""
    data = json.loads(json.dumps(definition))
    _question(data, "verdict")["gold"]["ties"] = MATCH_ANSWER if settings["tie"] == TIE_MATCH else NO_MATCH_ANSWER
    return _checked(data)


def _stored_question(definition: Mapping[str, Any], question_id: str) -> Mapping[str, Any] | None:
    return next((q for q in definition.get("questions") or () if isinstance(q, Mapping) and q.get("id") == question_id),
                None)


def match_settings(definition: Mapping[str, Any]) -> dict[str, Any]:
    """The inverse of match_definition (the format's `settings_of_definition`): the thresholds a project's definition
    holds, as the import options that made them, so that a further import that gives none keeps them (and one that
    gives other thresholds is refused: a project's definition does not change by an import). Nothing for a definition
    that is not match.yaml's."""
    question = _stored_question(definition, "matches")
    gold = question.get("gold") if question is not None else None
    if not isinstance(gold, Mapping) or gold.get("rule") != "share":
        return {}
    return {"positive_threshold": float(gold.get("positive", POSITIVE)),
            "negative_threshold": float(gold.get("negative", NEGATIVE))}


def check_settings(definition: Mapping[str, Any]) -> dict[str, Any]:
    """The inverse of check_definition: the tie a project's match_check.yaml holds, as the import option."""
    question = _stored_question(definition, "verdict")
    gold = question.get("gold") if question is not None else None
    if not isinstance(gold, Mapping) or gold.get("rule") != "majority":
        return {}
    return {"tie": TIE_MATCH if gold.get("ties") == MATCH_ANSWER else TIE_NO_MATCH}
