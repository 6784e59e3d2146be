"""A declared project's gold rules as settings its organiser can change after the import.

Why: the built-in KPA match type let its organiser move the share thresholds (0.6 / 0.15) on the project's settings
form, and the check type its tie; once every campaign became a definition those were the definition's rule, fixed
at the import. A rule's parameters decide only how gold is read from the votes, never what the HIT asks, so they
may change at any time, votes or not (unlike a setting `fixed_once_voted`): the gold, its exports and the kept
figures follow (the figures' stamp digests the definition, figures/kept.py). So every declared project, the shared
tasks' and one's own, offers each question's rule parameters as settings:

  share      positive, negative  (the KPA rule's thresholds)
  agree      m                   (RuArg-2022's "at least m of n")
  majority   ties                (what a tie gives: undecided, or one of the question's own options)

A rule's other keys (its options counted together, a further decision, the option `share` counts) shape what the
gold means, not where its line falls, and stay the definition's. The changed definition is checked as any
definition is (`definition_from_data`: negative below positive, m not above k), and a refusal says which setting and
why, with nothing changed.
"""
from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from annotator.core.options import Option, OptionError
from annotator.declared.definition import UNDECIDED, Definition, DefinitionError, Question
from annotator.declared.definition_reader import definition_from_data


@dataclass(frozen=True)
class RuleSetting:
    """One parameter of one question's gold rule, as a setting (`option`) of the project."""

    option: Option
    question: str
    key: str      # the key of the question's `gold` mapping


def _options(question: Question) -> Iterator[tuple[str, Option]]:
    gold = question.gold
    assert gold is not None
    name = f"gold_{question.id}"
    what = f"{question.id} ({gold.rule})"
    if gold.rule == "share":
        yield "positive", Option(f"{name}_positive", float, gold.positive, minimum=0.0, maximum=1.0, required=True,
                                 label=f"Gold of {what}: positive at or above this share of annotators",
                                 help="shares between the two thresholds are undecided")
        yield "negative", Option(f"{name}_negative", float, gold.negative, minimum=0.0, maximum=1.0, required=True,
                                 label=f"Gold of {what}: negative at or below this share",
                                 help="below the positive threshold")
    elif gold.rule == "agree":
        yield "m", Option(f"{name}_m", int, gold.m, minimum=1, maximum=100, required=True,
                          label=f"Gold of {what}: at least this many annotators agree",
                          help="not more than the project's k")
    elif gold.rule == "majority" and question.kind == "choice" and question.options:
        yield "ties", Option(f"{name}_ties", str, gold.ties, choices=(UNDECIDED, *question.option_values()),
                             required=True, label=f"Gold of {what}: a tie gives",
                             help="undecided (left for adjudication), or this option")


def rule_settings(definition: Definition) -> tuple[RuleSetting, ...]:
    """Every question's rule parameters that may change, in the questions' order."""
    return tuple(RuleSetting(option, question.id, key) for question in definition.questions
                 if question.gold is not None for key, option in _options(question))


def rule_values(definition: Definition) -> dict[str, Any]:
    """The parameters' values now, by setting name."""
    return {setting.option.name: setting.option.default for setting in rule_settings(definition)}


def changed_rules(definition: Definition, given: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    """The settings of `given` (text or typed; None leaves one as it is) whose value differs from the definition's,
    as {name: (now, then)}; OptionError naming the setting for a value that does not fit."""
    changed = {}
    for setting in rule_settings(definition):
        value = given.get(setting.option.name)
        if value is None:
            continue
        parsed = setting.option.parse(value)
        if parsed != setting.option.default:
            changed[setting.option.name] = (setting.option.default, parsed)
    return changed


def with_rules(data: Mapping[str, Any], definition: Definition, changes: Mapping[str, Any]) -> dict[str, Any]:
    """The stored definition `data` with the changed parameters (name -> typed value) written into each question's
    `gold`, checked as any definition is and in its stored form; OptionError saying which setting and why."""
    by_name = {s.option.name: s for s in rule_settings(definition)}
    new = json.loads(json.dumps(data))
    for name, value in changes.items():
        setting = by_name[name]
        if value != setting.option.default:   # a value as it is leaves the stored form as it is
            _stored_gold(new, setting.question, definition)[setting.key] = value
    try:
        checked: dict[str, Any] = json.loads(json.dumps(definition_from_data(new).to_data()))
    except DefinitionError as error:
        raise OptionError(f"the gold rules cannot be saved so: {error.message} ({error.path})") from None
    return checked


def _stored_gold(data: dict[str, Any], question_id: str, definition: Definition) -> dict[str, Any]:
    """The question's `gold` mapping in stored definition data (a repeat or sides group's question in its place),
    written out where the stored form has the rule's name alone or no rule (the kind's default)."""
    def walk(entries: list[Any]) -> Iterator[dict[str, Any]]:
        for entry in entries:
            if isinstance(entry, dict):
                if entry.get("id") == question_id and "kind" in entry:
                    yield entry
                if isinstance(entry.get("questions"), list):
                    yield from walk(entry["questions"])
    found = next(walk(data.get("questions") or []), None)
    rule = next((q.gold for q in definition.questions if q.id == question_id), None)
    if found is None or rule is None:
        raise OptionError(f"question {question_id} has no gold rule to change")
    if not isinstance(found.get("gold"), dict):   # `gold: agree`, or the kind's default rule
        found["gold"] = {"rule": rule.rule}
    gold: dict[str, Any] = found["gold"]
    return gold
