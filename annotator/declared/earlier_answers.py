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

Only bridges that draw no presentation are used here: an answer of a type that shows sides in a drawn order means
something only with the drawn order mapped too, which this step does not do.
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


def answers_key(data: Mapping[str, Any]) -> str:
    """What of a definition's checked data decides the answers it takes, as one text: its shown fields and its
    questions (a repeat group's too) without their `gold` and `agreement`, which read the answers only, and
    without their wording (prompts, labels, an element's text), which a project may have in its own language."""
    def answered(question: Mapping[str, Any]) -> dict[str, Any]:
        kept = {key: value for key, value in question.items() if key not in ("gold", "agreement", *WORDING)}
        if isinstance(kept.get("questions"), list):
            kept["questions"] = [answered(inner) for inner in kept["questions"]]
        for listed in ("options", "elements"):
            if isinstance(kept.get(listed), list):
                kept[listed] = [_unworded(entry) for entry in kept[listed]]
        return kept
    show = [_unworded(shown) for shown in data["show"]] if isinstance(data.get("show"), list) else data.get("show")
    return json.dumps({"show": show, "questions": [answered(q) for q in data.get("questions", [])]}, sort_keys=True)


WORDING = ("prompt", "label")   # a question's, a group's, an option's and a shown field's words


def _unworded(entry: Any) -> Any:
    """An option, element or shown field without its words (label, an element's text)."""
    if not isinstance(entry, Mapping):
        return entry
    return {key: value for key, value in entry.items() if key not in (*WORDING, "text")}


@functools.cache
def _converters() -> dict[str, tuple[AnswerConverter, frozenset[str]]]:
    from annotator.declared.items import load_definition
    from annotator.shared_tasks.registry import SHARED_TASKS
    found: dict[str, tuple[AnswerConverter, frozenset[str]]] = {}
    for task in SHARED_TASKS.values():
        paths = {path.name: path for path in task.definition_paths()}
        for bridge in task.load_bridges():
            if bridge.presentation is not no_presentation or bridge.definition not in paths:
                continue
            found[answers_key(load_definition(paths[bridge.definition]).to_data())] = (bridge.answer,
                                                                                       bridge.shared_keys)
    return found


def converter_for(definition_json: str) -> tuple[AnswerConverter, frozenset[str]] | None:
    """The converter of the built-in answers a definition (its `definition_key`) takes, and the answer keys the two
    shapes share (the bridge's `shared_keys`), or None."""
    return _converters().get(answers_key(json.loads(definition_json)))
