"""Answers in a built-in HIT type's shape, taken by declared projects of the definition that replaces the type.

Why: the switch to one engine (docs/one-engine.md) makes a shared task's new projects declared projects of its
definition, while API clients keep sending the answers they send today. Each shared task's bridge
(shared_tasks/bridge_base.py) converts today's answer of its built-in type into the definition's. A declared
project whose definition is a bridge's definition takes both: an answer holding none of the definition's
question ids is read as today's shape and converted (refused with today's message when it is not one), any other
goes to the declared check as it is. Imported votes (campaigns/votes_import.py) go the same way.

Only bridges that draw no presentation are used here: an answer of a type that shows sides in a drawn order means
something only with the drawn order mapped too, which this step does not do.
"""
from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from annotator.declared.items import load_definition
from annotator.shared_tasks.bridge_base import AnswerConverter, no_presentation
from annotator.shared_tasks.registry import SHARED_TASKS


def definition_key(data: Mapping[str, Any]) -> str:
    """A definition's checked data as one text, the same for the file's data and the project's stored copy."""
    return json.dumps(data, sort_keys=True)


@functools.cache
def _converters() -> dict[str, AnswerConverter]:
    found: dict[str, AnswerConverter] = {}
    for task in SHARED_TASKS.values():
        paths = {path.name: path for path in task.definition_paths()}
        for bridge in task.load_bridges():
            if bridge.presentation is not no_presentation or bridge.definition not in paths:
                continue
            found[definition_key(load_definition(paths[bridge.definition]).to_data())] = bridge.answer
    return found


def converter_for(definition_json: str) -> AnswerConverter | None:
    """The converter of the built-in answers a definition (its `definition_key`) takes, or None."""
    return _converters().get(definition_json)
