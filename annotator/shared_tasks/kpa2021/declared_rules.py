"""The built-in KPA-2021 settings that are rules, made into a declared project's definition at its import.

Why: a built-in match project lets its organiser change the share thresholds (0.6 / 0.15, ArgKP's), and a built-in
check project how a tie of "yes" against "no" + "faulty" counts (no match, or match). A declared project's rules are
its definition's (docs/one-engine.md), so the same settings given with a declared import (`--positive-threshold 0.7`,
`--tie match`) write the rule into the new project's copy of match.yaml / match_check.yaml, as the bridge's
docstring says a migration would: the share rule's `positive` / `negative`, the majority's `ties: "yes"`. Settings
that are no rules (the check's mAP variant, the comparison's "equal" and linked check project) stay project settings
(the bridges' `kept_settings`), and are ignored here.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from annotator.core.errors import FormatError
from annotator.declared.definition_reader import definition_from_data

TIE_MATCH, MATCH_ANSWER, NO_MATCH_ANSWER = "match", "yes", "no"


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
