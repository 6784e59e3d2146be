"""An item as a declared definition reads it: key paths resolved, kept fields left out, tokens given as objects
(docs/declared-item-paths.md).

An item is stored as its items file gave it (every field the definition reads, whole, and the fields it keeps), so
exports and the dataset hold the organiser's data unchanged. The HIT, the JSON API's item, the answer checks and the
label rows read the item through `view`: a dictionary of the stored fields in which

  - each key path the definition names (`key_point.text`, `systems.0`) is a key holding the value it leads to;
  - each `options_from` field holds its options with only `id` and `text` (other keys of an option object, such as
    a key point's `position`, are kept in the item and never shown);
  - a span question's field of token objects (`of: words` with `token_text: text`) holds the tokens' texts, and
    the tokens' ids (`token_id`) are under a key no item field can have (`ids_key`), read for the label units.

The public item (tasks/custom.py) sends only the fields the definition reads, from the view: a kept field, the rest
of an object a path reads into, and a token's other keys never reach the annotator.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from annotator.declared import paths
from annotator.declared.definition import (
    FIELD_NAME,
    FIELD_PATH,
    PATH_WHAT,
    RESERVED_FIELDS,
    Definition,
    DefinitionError,
    Question,
)
from annotator.declared.keys import add_once

if TYPE_CHECKING:
    from annotator.declared.keys import Keys

TOKEN_KEYS = ("token_id", "token_text")
TOKEN_ID_LENGTH = 100          # a token's id is a label's unit
MAX_KEPT = 50                  # fields an item may keep
KEPT_LENGTH = 100_000          # a kept field's value, as JSON text


def ids_key(field: str) -> str:
    """Where a view keeps the token ids of `field`: NUL cannot be in an item field's name (the import refuses it)."""
    return f"{field}\x00ids"


@dataclass(frozen=True)
class Viewed:
    """An item with its payload seen through `view` (what a HitItem gives the declared code)."""

    external_id: str
    payload: dict[str, Any]


# --- the definition's keys ----------------------------------------------------------------------------------------

def field_problem(name: str) -> str | None:
    """What is wrong with a field name or key path where a definition names an item field, or None."""
    if not paths.is_path(name):
        return None
    try:
        steps = paths.parse(name)
    except paths.PathError as error:
        return str(error)
    if steps[0] in RESERVED_FIELDS:
        return f"{steps[0]!r} is {RESERVED_FIELDS[str(steps[0])]}; a path starts from another field"
    return None


def check_fields(definition_paths: Mapping[str, str | None]) -> None:
    """Each named field ({key path in the definition: field or key path}) written right; DefinitionError at its key."""
    for where, name in definition_paths.items():
        if name is None:
            continue
        problem = field_problem(name)
        if problem is not None:
            raise DefinitionError(where, problem)


def named_fields(definition: Definition) -> dict[str, str | None]:
    """{where in the definition: the field or path named there} of every key that names an item field."""
    named: dict[str, str | None] = {}
    for index, shown in enumerate(definition.show):
        named[f"show[{index}].field"] = shown.field
        for read in shown.reads:
            named[f"show[{index}].highlights"] = read
    for index, question in enumerate(definition.questions):
        where = f"questions[{index}]"
        named[f"{where}.options_from"] = question.options_from
        named[f"{where}.of"] = question.of
        named[f"{where}.a"], named[f"{where}.b"] = question.a, question.b
        for side, player in enumerate(question.players or ()):
            named[f"{where}.players[{side}]"] = player
    for index, group in enumerate(definition.repeats):
        named[f"repeats[{index}].elements_from"] = group.elements_from
    return named


def token_keys(keys: Keys) -> dict[str, Any]:
    """A span question's `token_id` / `token_text` (both or neither): the keys of its field's token objects."""
    given = {key: keys.text(key, pattern=FIELD_NAME, what="a key of the token objects (letters, digits and _)")
             for key in TOKEN_KEYS if keys.has(key)}
    if len(given) == 1:
        missing = next(key for key in TOKEN_KEYS if key not in given)
        raise DefinitionError(keys.at(missing), "is required with " + ", ".join(given) + ": a token object gives "
                              "its text (token_text) and its id (token_id), the unit of its label rows")
    if given and given["token_id"] == given["token_text"]:
        raise DefinitionError(keys.at("token_text"), "must be another key than token_id: the id is the label's "
                                                     "unit, the text is what the annotator reads")
    return given


def kept_fields(top: Keys, reads: list[str]) -> tuple[str, ...]:
    """The definition's `keep`: item fields stored and exported with the item, never shown nor sent to annotators."""
    entries = top.listed("keep")
    if len(entries) > MAX_KEPT:
        raise DefinitionError("keep", f"lists {len(entries)} fields; at most {MAX_KEPT}")
    roots = {paths.root(name) for name in reads if field_problem(name) is None}
    kept: list[str] = []
    for index, name in enumerate(entries):
        where = f"keep[{index}]"
        if not isinstance(name, str) or not FIELD_NAME.match(name):
            raise DefinitionError(where, "must be an item field's name (letters, digits and _, at most 60): a key of "
                                         "the items file kept with each item")
        if name in RESERVED_FIELDS:
            raise DefinitionError(where, f"{name!r} is {RESERVED_FIELDS[name]}; keep another field")
        if name in roots:
            raise DefinitionError(where, f"{name!r} is a field the definition reads; keep lists the other fields")
        add_once(kept, name, where)
    return tuple(kept)


# --- the stored item and its view ---------------------------------------------------------------------------------

def roots(definition: Definition) -> list[str]:
    """The item fields the definition reads, each once and whole, in order: the stored fields (with `keep`)."""
    found: list[str] = []
    for name in definition.item_fields():
        found += paths.fields_read(name)
    return list(dict.fromkeys(found))


def stored_fields(definition: Definition) -> list[str]:
    """The fields an item of the definition holds: the fields it reads, then those it keeps."""
    return [*roots(definition), *(f for f in definition.keep if f not in roots(definition))]


def token_questions(definition: Definition) -> list[Question]:
    return [q for q in definition.questions if q.kind == "span" and q.token_text and q.of]


def needs_view(definition: Definition) -> bool:
    """Whether the definition reads anything but whole fields (the view of its items differs from the item)."""
    return any(paths.is_path(name) for name in definition.item_fields()) or bool(token_questions(definition)) or \
        any(q.options_from for q in definition.questions) or bool(definition.keep)


def view(definition: Definition, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The item as the definition reads it (see the module's docstring); a path that does not resolve gives None,
    so a page shows what it can of an item the import would refuse."""
    seen = dict(payload)
    for name in definition.item_fields():
        if paths.is_path(name):
            seen[name] = paths.get(payload, name)
    for question in definition.questions:
        if question.options_from and isinstance(seen.get(question.options_from), list):
            seen[question.options_from] = [_option(entry) for entry in seen[question.options_from]]
    for question in token_questions(definition):
        tokens = seen.get(question.of or "")
        if isinstance(tokens, list) and all(isinstance(t, Mapping) for t in tokens):   # else: words, by position
            seen[ids_key(question.of or "")] = [_token(t, question.token_id) for t in tokens]
            seen[question.of or ""] = [_token(t, question.token_text) for t in tokens]
    return seen


def viewed(definition: Definition, item: Any) -> Any:
    """`item` (anything with external_id and payload) with its payload seen through `view`; the item itself when
    the definition reads whole fields only."""
    if not needs_view(definition):
        return item
    return Viewed(str(item.external_id), view(definition, item.payload))


def _option(entry: Any) -> Any:
    if isinstance(entry, Mapping):
        return {key: entry[key] for key in ("id", "text") if key in entry}
    return entry


def _token(token: Any, key: str | None) -> str:
    if isinstance(token, Mapping):
        return str(token.get(key or "", ""))
    return str(token)


def units(question: Question, payload: Mapping[str, Any], count: int) -> list[str]:
    """A span question's label units for the view `payload`: the tokens' ids, or the words' positions."""
    ids = payload.get(ids_key(question.of or "")) if question.token_id else None
    if isinstance(ids, list) and len(ids) == count:
        return [str(i) for i in ids]
    return [str(i) for i in range(count)]


def position(question: Question, payload: Mapping[str, Any], unit: str) -> int | None:
    """The position of a span question's unit (a token's id, or a position as text) in the view `payload`."""
    ids = payload.get(ids_key(question.of or "")) if question.token_id else None
    if isinstance(ids, list):
        return next((n for n, i in enumerate(ids) if str(i) == unit), None)
    return int(unit) if unit.isdigit() else None


# --- the items file -----------------------------------------------------------------------------------------------

def tokens_problem(question: Question, value: Any) -> str | None:
    """What is wrong with a span question's token objects (`token_id` / `token_text`), or None."""
    if not isinstance(value, list) or not value:
        return f"must be a list of at least one token object {{\"{question.token_id}\": ..., " \
               f"\"{question.token_text}\": ...}}"
    ids: dict[str, int] = {}
    for number, token in enumerate(value, 1):
        if not isinstance(token, Mapping):
            return f"token {number} must be an object with {question.token_id!r} and {question.token_text!r}"
        text, ident = token.get(question.token_text), token.get(question.token_id)
        if not isinstance(text, str) or not text.strip():
            return f"token {number}'s {question.token_text!r} must be non-empty text (the word shown)"
        if isinstance(ident, bool) or not isinstance(ident, (str, int)) or not str(ident).strip():
            return f"token {number}'s {question.token_id!r} must be text or a whole number (the word's id)"
        if len(str(ident)) > TOKEN_ID_LENGTH:
            return f"token {number}'s id has {len(str(ident))} characters; at most {TOKEN_ID_LENGTH} (it is a unit)"
        if str(ident) in ids:
            return f"token {number}'s id {str(ident)[:40]!r} is also the id of token {ids[str(ident)]}"
        ids[str(ident)] = number
    return None


def named(keys: Keys, key: str) -> str:
    """The field name or key path at `key` of a definition's mapping, checked; DefinitionError at its key path."""
    name = keys.text(key, pattern=FIELD_PATH, what=PATH_WHAT)
    problem = field_problem(name)
    if problem is not None:
        raise DefinitionError(keys.at(key), problem)
    return name
