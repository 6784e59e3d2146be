"""Answers in a built-in HIT type's shape, taken by declared projects of the definition that replaces the type.

Why: the switch to one engine (docs/one-engine.md) makes a shared task's new projects declared projects of its
definition, while API clients keep sending the answers they send today. Each shared task's bridge
(shared_tasks/bridge_base.py) converts today's answer of its built-in type into the definition's. A declared
project whose definition is a bridge's definition takes both: an answer holding none of the definition's
question ids is read as today's shape and converted (refused with today's message when it is not one), any other
goes to the declared check as it is. Where the definition's question ids are the built-in's answer keys too
(ReCAM's option, evidence and difficulty), the bridge says which shape an answer is in (`Bridge.todays_shape`).
Imported votes (campaigns/votes_import.py) go the same way.

A definition is known by its questions, not its gold: a project whose rule parameters differ from the file's
(ReCAM's selection settings given with the import) asks the same questions and takes the same answers.

Only bridges that draw no presentation are used here: an answer of a type that shows sides in a drawn order means
something only with the drawn order mapped too, which this step does not do.
"""
from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from annotator.shared_tasks.bridge_base import AnswerConverter, no_presentation


def definition_key(data: Mapping[str, Any]) -> str:
    """A definition's checked data as one text, the same for the file's data and the project's stored copy."""
    return json.dumps(data, sort_keys=True)


def questions_key(data: Mapping[str, Any]) -> str:
    """What a definition asks, as one text: its checked data without the questions' gold (rule parameters change
    the gold of the same answers, not what an answer is)."""
    questions = [{key: value for key, value in question.items() if key != "gold"}
                 for question in data.get("questions", ())]
    return definition_key({**data, "questions": questions})


@dataclass(frozen=True)
class EarlierAnswers:
    """A built-in type's answers taken by a definition: which answers are in that type's shape, and their conversion."""

    convert: AnswerConverter
    todays_shape: Callable[[Any], bool] | None      # the bridge's own test, where the ids are today's keys too

    def read(self, answer: Any, payload: Mapping[str, Any], keys: frozenset[str]) -> Any:
        """The answer in the definition's terms (`keys`: its answer's keys): today's shape converted (AnswerError
        with today's message), the definition's own as it is, for the declared check."""
        if self.todays_shape is not None:
            todays = self.todays_shape(answer)
        else:
            todays = isinstance(answer, dict) and not set(answer) & keys
        return self.convert(answer, payload, None) if todays else answer


@functools.cache
def _converters() -> dict[str, EarlierAnswers]:
    from annotator.declared.items import load_definition
    from annotator.shared_tasks.registry import SHARED_TASKS
    found: dict[str, EarlierAnswers] = {}
    for task in SHARED_TASKS.values():
        paths = {path.name: path for path in task.definition_paths()}
        for bridge in task.load_bridges():
            if bridge.presentation is not no_presentation or bridge.definition not in paths:
                continue
            data = load_definition(paths[bridge.definition]).to_data()
            found[questions_key(data)] = EarlierAnswers(bridge.answer, bridge.todays_shape)
    return found


def converter_for(definition_json: str) -> EarlierAnswers | None:
    """The built-in answers a definition (its `definition_key`) takes, or None."""
    return _converters().get(questions_key(json.loads(definition_json)))
