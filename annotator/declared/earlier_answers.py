"""Answers in a built-in HIT type's shape, taken by declared projects of the definition that replaces the type.

Why: the switch to one engine (docs/one-engine.md) makes a shared task's new projects declared projects of its
definition, while API clients keep sending the answers they send today. Each shared task's bridge
(shared_tasks/bridge_base.py) converts today's answer of its built-in type into the definition's. A declared
project whose definition is a bridge's definition takes both: an answer holding none of the definition's
question ids is read as today's shape and converted (refused with today's message when it is not one), any other
goes to the declared check as it is. Imported votes (campaigns/votes_import.py) go the same way.

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
from typing import Any

from annotator.shared_tasks.bridge_base import AnswerConverter, no_presentation


def definition_key(data: Mapping[str, Any]) -> str:
    """A definition's checked data as one text, the same for the file's data and the project's stored copy."""
    return json.dumps(data, sort_keys=True)


@functools.cache
def _bridges() -> dict[str, tuple[AnswerConverter, frozenset[str]]]:
    from annotator.declared.items import load_definition
    from annotator.shared_tasks.registry import SHARED_TASKS
    found: dict[str, tuple[AnswerConverter, frozenset[str]]] = {}
    for task in SHARED_TASKS.values():
        paths = {path.name: path for path in task.definition_paths()}
        for bridge in task.load_bridges():
            drawn = bridge.presentation is not no_presentation and not bridge.reads_declared_presentation
            if drawn or bridge.definition not in paths:
                continue
            found[definition_key(load_definition(paths[bridge.definition]).to_data())] = (bridge.answer,
                                                                                          bridge.earlier_keys)
    return found


def converter_for(definition_json: str) -> AnswerConverter | None:
    """The converter of the built-in answers a definition (its `definition_key`) takes, or None."""
    found = _bridges().get(definition_json)
    return None if found is None else found[0]


def earlier_keys(definition_json: str) -> frozenset[str]:
    """The keys only the built-in answers a definition takes have, where they share others with its own."""
    found = _bridges().get(definition_json)
    return frozenset() if found is None else found[1]


def is_earlier(answer: Mapping[str, Any], own_keys: frozenset[str], only_earlier: frozenset[str]) -> bool:
    """Whether an answer is in the built-in shape: none of the definition's keys, or a key only that shape has."""
    return not (set(answer) & own_keys) or bool(set(answer) & only_earlier)
