"""Answers in a built-in HIT type's shape, taken by declared projects of the definition that replaces the type.

Why: the switch to one engine (docs/one-engine.md) makes a shared task's new projects declared projects of its
definition, while API clients keep sending the answers they send today. Each shared task's bridge
(shared_tasks/bridge_base.py) converts today's answer of its built-in type into the definition's. A declared
project whose definition is a bridge's definition takes both: an answer holding none of the definition's
question ids is read as today's shape and converted (refused with today's message when it is not one), any other
goes to the declared check as it is, except where the two shapes share a key (the bridge's `shared_keys`): an
answer that the definition's check refuses and that holds none of its other keys is read as today's. Imported votes
(campaigns/votes_import.py) go the same way.

The definitions are matched by what decides the answers they take (`answers_key`: the shown fields and the
questions without their gold and agreement), so a project that set its own m of a definition's rule (RuArg's test
set: 3 of 4) takes today's answers as the file's definition does.

Today's shape is told by its keys: an answer holding none of the definition's question ids, or one holding a key
only today's shape has (the bridge's `earlier_keys`, where the shapes share some keys).

Bridges of types that show sides in a drawn order are used only where the converter reads the declared engine's
drawn order of the lease (`reads_declared_presentation`): today's "A" then means the side the declared page or API
item showed as "A", as it meant the built-in's.
"""
from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any, NamedTuple

from annotator.shared_tasks.bridge_base import AnswerConverter, ItemKeys, no_presentation


def definition_key(data: Mapping[str, Any]) -> str:
    """A definition's checked data as one text, the same for the file's data and the project's stored copy."""
    return json.dumps(data, sort_keys=True)


def answers_key(data: Mapping[str, Any]) -> str:
    """What of a definition's checked data decides the answers it takes, as one text: its shown fields and its
    questions (a repeat group's too) without their `gold` and `agreement`, which read the answers only."""
    def answered(question: Mapping[str, Any]) -> dict[str, Any]:
        kept = {key: value for key, value in question.items() if key not in ("gold", "agreement")}
        if isinstance(kept.get("questions"), list):
            kept["questions"] = [answered(inner) for inner in kept["questions"]]
        return kept
    return json.dumps({"show": data.get("show"), "questions": [answered(q) for q in data.get("questions", [])]},
                      sort_keys=True)


class Earlier(NamedTuple):
    """How a declared project of a bridge's definition takes the built-in type's answers: the bridge's converter,
    the keys both shapes use (`shared_keys`) and the keys only today's shape has (`earlier_keys`); and the built-in
    type (`task_type`) whose settings named in `kept_settings` such a project keeps (the bridge's, not rules)."""
    convert: AnswerConverter
    shared_keys: frozenset[str]
    only_earlier: frozenset[str]
    task_type: str = ""
    kept_settings: tuple[str, ...] = ()
    item_keys: ItemKeys | None = None   # today's API item keys, served beside the definition's (the bridge's)


@functools.cache
def _converters() -> dict[str, Earlier]:
    from annotator.declared.items import load_definition
    from annotator.shared_tasks.registry import SHARED_TASKS
    found: dict[str, Earlier] = {}
    for task in SHARED_TASKS.values():
        paths = {path.name: path for path in task.definition_paths()}
        for bridge in task.load_bridges():
            drawn = bridge.presentation is not no_presentation and not bridge.reads_declared_presentation
            if drawn or bridge.definition not in paths:
                continue
            found[answers_key(load_definition(paths[bridge.definition]).to_data())] = Earlier(
                bridge.answer, bridge.shared_keys, bridge.earlier_keys, bridge.task_type, bridge.kept_settings,
                bridge.item_keys)
    return found


def converter_for(definition_json: str) -> Earlier | None:
    """How a definition (its `definition_key`) takes a built-in type's answers, or None."""
    return _converters().get(answers_key(json.loads(definition_json)))


def kept_setting_names(definition: Mapping[str, Any]) -> frozenset[str]:
    """The names of the built-in settings a declared project of this definition (its checked data) keeps as its
    own settings (the bridge's `kept_settings`: no rules, what the shared task's readers read)."""
    earlier = converter_for(definition_key(definition))
    return frozenset(earlier.kept_settings) if earlier is not None else frozenset()


def is_earlier(answer: Mapping[str, Any], own_keys: frozenset[str], only_earlier: frozenset[str]) -> bool:
    """Whether an answer is in the built-in shape: none of the definition's keys, or a key only that shape has."""
    return not (set(answer) & own_keys) or bool(set(answer) & only_earlier)
