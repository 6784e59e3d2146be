"""Item conditions: a question asked only of the items whose field holds a value (`when: {item.claims: masks}`).

`when` shows a question by an earlier answer of the same vote; an item condition asks it by what the item says.
RuArg-2022's second stage asks the premise of the claims its first stage found a sentence relevant to: the item
lists them (`{"id": "17024", "text": "...", "claims": ["masks", "vaccines"]}`), and the premise of masks is asked
where the list holds "masks":

    - id: masks_premise
      kind: choice
      when: {item.claims: masks}
      options: ["2", "0", "1"]

A key `item.<field>` of `when` names an item field (a plain name: letters, digits and _), its value one or a list
of values as text. The question is asked of an item when the field holds one of them: a list field when one of its
entries is one, a text or number field when it is one. Answer conditions and item conditions may stand in one
`when`; all must be met. For an item that does not meet it the question is not asked at all: not drawn on the HIT,
not listed in the API's questions, an answer to it refused ("masks_premise: not asked for this item (it is asked
only when the item's claims holds 'masks'); leave it out"), no label rows, so no gold row and no agreement row.

The field becomes one the items file must give (`Definition.item_fields`): a list of text or numbers (JSON in a
CSV / TSV cell, as `[...]`), or text. A group's questions (asked per element) and questions with `agreement.not_asked`
take no item condition (docs/declared-item-when.md says why). A field shown on the HIT may be a condition's too; it
is then checked as a shown field.

definition_checks.py calls `item_part` (and `_when` leaves these keys to it); answers.py, form.py and repeat_form.py
`for_item` and `refusal`; items.py `fields` and `item_value`; the data card `card_words`.
"""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from annotator.declared.definition import (
    RESERVED_FIELDS,
    Definition,
    DefinitionError,
    Question,
    join_path,
    number_text,
)
from annotator.declared.keys import Keys, plain_text
from annotator.declared.paths import ROOT

PREFIX = "item."
MAX_VALUES = 200
VALUE_LENGTH = 200       # an entry of a condition field (a claim's key, a category)


def is_item_key(key: Any) -> bool:
    return isinstance(key, str) and key.startswith(PREFIX)


def item_part(keys: Keys) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The `item.<field>` keys of the question's `when`, checked: ((field, values), ...)."""
    condition = keys.data.get("when")
    if not isinstance(condition, dict):
        return ()
    found = []
    for key, wanted in condition.items():
        if not is_item_key(key):
            continue
        path = join_path(keys.at("when"), key)
        field = key[len(PREFIX):]
        if not ROOT.match(field):
            raise DefinitionError(path, f"{field[:60]!r} is not an item field's name (letters, digits and _, "
                                        "starting with a letter or _): item.<field>")
        if field in RESERVED_FIELDS:
            raise DefinitionError(path, f"{field!r} is {RESERVED_FIELDS[field]}; name another field")
        values = wanted if isinstance(wanted, list) else [wanted]
        if not values:
            raise DefinitionError(path, "must be a value, or a list of values, the item's field is to hold")
        texts = tuple(dict.fromkeys(_value_text(v, f"{path}[{i}]" if isinstance(wanted, list) else path)
                                    for i, v in enumerate(values)))
        found.append((field, texts))
    return tuple(found)


def refuse_in_group(question: Question, path: str) -> None:
    """A group's questions are asked of every element: an item condition is for a question outside the group."""
    if question.item_when:
        raise DefinitionError(join_path(path, "when"), "an item condition (item.<field>) asks a question of some "
                                                       "items only; a group's questions are asked of every element: "
                                                       "put it on a question outside the group")


def _value_text(value: Any, path: str) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return plain_text(number_text(value), path, VALUE_LENGTH)
    text = plain_text(value, path, VALUE_LENGTH, "a value the item's field holds (text)")
    if not text.strip():
        raise DefinitionError(path, "must not be blank")
    return text


def refuse_with_not_asked(question: Question, keys: Keys) -> None:
    """`not_asked` counts the votes an earlier answer hid the question from; with an item condition, every vote on
    an item that does not meet it would count too, though it was never a choice of the annotator's."""
    if question.item_when and question.not_asked is not None:
        raise DefinitionError(join_path(keys.at("agreement"), "not_asked"),
                              "counts the votes an earlier answer hid this question from; it is also asked only "
                              "of some items (item.<field>), whose other items nobody is asked it: leave one out")


def fields(definition: Definition) -> list[str]:
    """The item fields the definition's item conditions read, in order."""
    return list(dict.fromkeys(field for q in definition.questions for field, _ in q.item_when))


def holds(value: Any, wanted: tuple[str, ...]) -> bool:
    """Whether an item's field value holds one of `wanted`: a list by its entries, a text or number as itself."""
    entries = value if isinstance(value, list) else [value]
    return any(_text(entry) in wanted for entry in entries if entry is not None)


def _text(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number_text(value)
    return str(value)


def asked(question: Question, payload: Mapping[str, Any]) -> bool:
    """Whether the question is asked of this item (every item condition met; always without one)."""
    return all(holds(payload.get(field), wanted) for field, wanted in question.item_when)


def for_item(definition: Definition, payload: Mapping[str, Any]) -> Definition:
    """The definition as this item asks it: without the questions its item conditions leave out."""
    if not any(q.item_when for q in definition.questions):
        return definition
    return dataclasses.replace(definition, questions=tuple(q for q in definition.questions if asked(q, payload)))


def condition_words(question: Question) -> str:
    return " and ".join(f"the item's {field} holds {' or '.join(map(repr, wanted))}"
                        for field, wanted in question.item_when)


def refusal(definition: Definition, payload: Mapping[str, Any], answer: Mapping[str, Any]) -> str | None:
    """What is wrong with an answer that answers a question this item does not ask, or None."""
    for question in definition.questions:
        if question.item_when and answer.get(question.id) is not None and not asked(question, payload):
            return (f"{question.id}: not asked for this item (it is asked only when {condition_words(question)}); "
                    "leave it out")
    return None


def item_value(value: Any, table: bool) -> Any:
    """An items file's value of a condition field, as stored: a list of text or numbers, or a text or number;
    ValueError says what is wrong. In a CSV / TSV cell a list is JSON (`["masks", "vaccines"]`)."""
    if table and isinstance(value, str) and value.lstrip().startswith("["):
        try:
            value = json.loads(value)
        except ValueError:
            raise ValueError('must be a JSON list (["masks", "vaccines"]) or a text') from None
    entries = value if isinstance(value, list) else [value]
    if len(entries) > MAX_VALUES:
        raise ValueError(f"lists {len(entries)} values; at most {MAX_VALUES}")
    for entry in entries:
        if isinstance(entry, bool) or not isinstance(entry, (str, int, float)):
            raise ValueError("must be a list of text or numbers, or a text: the values a question's "
                             "`when: {item.<field>: ...}` looks for")
        if len(str(entry)) > VALUE_LENGTH:
            raise ValueError(f"holds a value of {len(str(entry))} characters; at most {VALUE_LENGTH}")
    return value


def card_words(question: Question) -> str | None:
    """The data card's words for the question's item conditions, or None."""
    return f"asked only when {condition_words(question)}" if question.item_when else None
