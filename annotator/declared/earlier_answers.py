"""Answers in a built-in HIT type's shape, taken by declared projects of the definition that replaces the type.

Why: the switch to one engine (docs/one-engine.md) makes a shared task's new projects declared projects of its
definition, while API clients keep sending the answers they send today. Each shared task's bridge
(declared/bridge_base.py) converts today's answer of its built-in type into the definition's. A declared
project whose definition is a bridge's definition takes both. Which shape an answer is in is decided here, in
one place, by what the bridge says of the two shapes (`Earlier.is_todays`):
- by default, an answer holding none of the definition's question ids is today's;
- where the definition's question ids are the built-in's answer keys too (ReCAM's option, evidence and
  difficulty), the bridge's own test says (`Bridge.todays_shape`);
- where the shapes share some keys (a set comparison's less_redundant), an answer holding a key only today's
  shape has is today's (`Bridge.earlier_keys`);
- where a key of today's answer names a group of the definition (RuArg's "claims"), an answer that the
  definition's check refuses and that holds no other of its keys is read as today's (`Bridge.shared_keys`), so a
  wrong answer in the definition's own shape gets today's message.
Today's answers are converted, refused with today's message when they are not valid; the definition's own go to
the declared check as they are. Imported votes (campaigns/votes_import.py) go the same way.

A definition that differs from its file in what its answers hold (RuArg's claims, set per project) is matched by
the bridge itself (`Bridge.adapts`), which binds today's converter to it.

The definitions are matched by what decides the answers they take (`answers_key`: the shown fields and the
questions without their gold and agreement), so a project that set its own rule parameters (RuArg's test set: 3
of 4; ReCAM's selection settings) takes today's answers as the file's definition does.

Bridges of types that show sides in a drawn order are used only where the converter reads the declared engine's
drawn order of the lease (`reads_declared_presentation`): today's "A" then means the side the declared page or API
item showed as "A", as it meant the built-in's.
"""
from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from annotator.core.options import Option
from annotator.declared.bridge_base import (
    AnswerConverter,
    ItemKeys,
    KnownScore,
    KnownWords,
    bridges_of,
    no_presentation,
)
from annotator.declared.items import load_definition
from annotator.plugins.registry import SHARED_TASKS


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


@dataclass(frozen=True)
class Earlier:
    """How a declared project of a bridge's definition takes the built-in type's answers (module docstring)."""

    convert: AnswerConverter
    todays_shape: Callable[[Any], bool] | None = None
    only_earlier: frozenset[str] = frozenset()
    shared_keys: frozenset[str] = frozenset()
    task_type: str = ""                    # the built-in type whose answers these are (its name)
    kept_settings: tuple[Option, ...] = ()  # its settings such a project keeps (the bridge's: no rules)
    item_keys: ItemKeys | None = None      # today's API item keys, served beside the definition's (the bridge's)
    known_score: KnownScore | None = None  # a control against a known answer of the built-in's shape (the bridge's)
    known_words: KnownWords | None = None  # ... and its words

    def is_todays(self, answer: Mapping[str, Any], own_keys: frozenset[str]) -> bool:
        """Whether an answer is in the built-in type's shape by its keys (`own_keys`: the definition's answer
        keys); a shared key is decided by the declared check (`falls_back`)."""
        if self.todays_shape is not None:
            return self.todays_shape(answer)
        return not (set(answer) & own_keys) or bool(set(answer) & self.only_earlier)

    def falls_back(self, answer: Mapping[str, Any], own_keys: frozenset[str]) -> bool:
        """Whether an answer the definition's check refused is read as today's: it holds only shared keys."""
        return bool(self.shared_keys) and set(answer) & own_keys <= self.shared_keys


@functools.cache
def _converters() -> tuple[dict[str, Earlier], list[tuple[Callable[[Mapping[str, Any]], AnswerConverter | None],
                                                          Earlier]]]:
    """The bridges' converters by their file's `answers_key`, and those that adapt to other definitions."""
    found: dict[str, Earlier] = {}
    adapting = []
    for task in SHARED_TASKS.values():
        paths = {path.name: path for path in task.definition_paths()}
        for bridge in bridges_of(task):
            drawn = bridge.presentation is not no_presentation and not bridge.reads_declared_presentation
            if drawn or bridge.definition not in paths:
                continue
            earlier = Earlier(bridge.answer, bridge.todays_shape, bridge.earlier_keys, bridge.shared_keys,
                              bridge.task_type, bridge.kept_settings, bridge.item_keys, bridge.known_score,
                              bridge.known_words)
            found[answers_key(load_definition(paths[bridge.definition]).to_data())] = earlier
            if bridge.adapts is not None:
                adapting.append((bridge.adapts, earlier))
    return found, adapting


def converter_for(definition_json: str) -> Earlier | None:
    """How a definition (its `definition_key`) takes a built-in type's answers, or None."""
    data = json.loads(definition_json)
    exact, adapting = _converters()
    found = exact.get(answers_key(data))
    if found is not None:
        return found
    for adapts, earlier in adapting:
        convert = adapts(data)
        if convert is not None:
            return dataclasses.replace(earlier, convert=convert)
    return None


def kept_setting_names(definition: Mapping[str, Any]) -> frozenset[str]:
    """The names of the built-in settings a declared project of this definition (its checked data) keeps as its
    own settings (the bridge's `kept_settings`: no rules, what the shared task's readers read)."""
    earlier = converter_for(definition_key(definition))
    return frozenset(o.name for o in earlier.kept_settings) if earlier is not None else frozenset()
