"""Key paths: where a definition names an item field, it may name a value inside it (docs/declared-item-paths.md).

A built-in campaign's item is nested: a check item's key point is {"id", "text"}, a comparison names its systems in
a list and keeps each system's summary under the system's name. A key path reaches into it without anyone
rewriting the items:

  key_point.text          the key `text` of the object in the item's field `key_point`
  systems.0               the first element of the list in `systems` (a step of digits indexes a list, 0 first;
                          into an object it is the key of those digits)
  summaries.<systems.0>   a step in angle brackets is another path of the same item whose value (text or a whole
                          number) is the key or index: the summary of the first system
  scores.top\\.1          a backslash keeps the next character in the key: the key `top.1` (write \\\\ for a
                          backslash, \\< and \\> for angle brackets)

The first step is always an item field's name (letters, digits and _: a column of a CSV file); a name without a dot,
brackets or backslash is a field as before. This module is the syntax alone (parse, resolve, the message of a path
that does not resolve); item_view.py applies it to a definition's items.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_LENGTH = 200        # a path's characters
MAX_STEPS = 12          # its steps, references included
ROOT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,59}\Z")
SPECIAL = ".<>\\"
# What a definition's checks accept where a field is named: a field name, or a path starting with one. The pattern is
# a first filter (characters and length); `parse` tells exactly what is wrong with a path it lets through.
PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,59}(?:[.<\\][^\x00-\x1f\x7f]{0,%s})?\Z"
                     .replace("%s", str(MAX_LENGTH - 1)))


class PathError(ValueError):
    """A path that is not written right, or that does not lead to a value of this item; the message says where."""


@dataclass(frozen=True)
class Ref:
    """A step whose key is the value of another path of the item (`<systems.0>`)."""

    steps: tuple[Step, ...]
    text: str


Step = str | Ref


@functools.lru_cache(maxsize=4096)
def is_path(name: str) -> bool:
    """Whether `name` is a key path rather than a plain field name (asked of the same few names on every request:
    kept)."""
    return any(c in name for c in SPECIAL)


def parse(path: str) -> tuple[Step, ...]:
    """The path's steps (keys as text, references as Ref); PathError for a path written wrong."""
    if not path or len(path) > MAX_LENGTH:
        raise PathError(f"a key path has 1 to {MAX_LENGTH} characters")
    steps, end = _steps(path, 0, nested=False)
    if end != len(path):
        raise PathError(f"{path!r}: '>' at character {end + 1} closes no '<'")
    if not isinstance(steps[0], str) or not ROOT.match(steps[0]):
        raise PathError(f"{path!r} must start with an item field's name (letters, digits and _, not starting with a "
                        "digit), as key_point.text does")
    if _count(steps) > MAX_STEPS:
        raise PathError(f"{path!r} has more than {MAX_STEPS} steps")
    return steps


def _steps(text: str, at: int, nested: bool) -> tuple[tuple[Step, ...], int]:
    """Steps from character `at` up to the end (or, `nested`, the '>' closing a reference); (steps, where it ended)."""
    steps: list[Step] = []
    key: list[str] = []
    ref: Ref | None = None
    start = at
    while at < len(text):
        char = text[at]
        if char == "\\":
            if at + 1 == len(text):
                raise PathError(f"{text!r} ends with a backslash: write \\\\ for a backslash in a key")
            key.append(text[at + 1])
            at += 2
            continue
        if char == ">":
            break
        if char == ".":
            steps.append(_one(text, key, ref, start))
            key, ref, at, start = [], None, at + 1, at + 1
            continue
        if char == "<":
            if key or ref is not None:
                raise PathError(f"{text!r}: a reference <...> is a whole step (write a.<b.0>, not a.x<b.0>)")
            inner, close = _steps(text, at + 1, nested=True)
            if close >= len(text):
                raise PathError(f"{text!r}: the '<' at character {at + 1} is not closed by '>'")
            if not isinstance(inner[0], str) or not ROOT.match(inner[0]):
                raise PathError(f"{text!r}: the reference <{text[at + 1:close]}> must start with an item field's name")
            ref = Ref(inner, text[at + 1:close])
            at = close + 1
            if at < len(text) and text[at] not in ".>":
                raise PathError(f"{text!r}: a reference <...> is a whole step (write <b.0>.text)")
            continue
        key.append(char)
        at += 1
    if at < len(text) and not nested:
        return (*steps, _one(text, key, ref, start)), at
    steps.append(_one(text, key, ref, start))
    return tuple(steps), at


def _one(text: str, key: list[str], ref: Ref | None, start: int) -> Step:
    if ref is not None:
        return ref
    if not key:
        raise PathError(f"{text!r} has an empty step at character {start + 1} (two dots, or a dot at an end)")
    return "".join(key)


def _count(steps: tuple[Step, ...]) -> int:
    return sum(1 + (_count(s.steps) if isinstance(s, Ref) else 0) for s in steps)


def root(path: str) -> str:
    """The item field a path starts from (the path itself for a plain name)."""
    if not is_path(path):
        return path
    first = parse(path)[0]
    assert isinstance(first, str), "parse refuses a path that does not start with a name"
    return first


def fields_read(path: str) -> tuple[str, ...]:
    """Every item field the path reads: its root and the roots of its references, in order."""
    if not is_path(path):
        return (path,)
    found: list[str] = []

    def walk(steps: tuple[Step, ...]) -> None:
        if isinstance(steps[0], str):
            found.append(steps[0])
        for step in steps:
            if isinstance(step, Ref):
                walk(step.steps)
    walk(parse(path))
    return tuple(dict.fromkeys(found))


def resolve(item: Mapping[str, Any], path: str) -> Any:
    """The value the path leads to in `item` (an item's fields); PathError naming the step that does not resolve."""
    if not is_path(path):
        if path not in item:
            raise PathError(f"the item has no field {path!r}")
        return item[path]
    return _follow(item, parse(path), path)


def _follow(item: Mapping[str, Any], steps: tuple[Step, ...], path: str, start: Any = None) -> Any:
    """The value `steps` lead to from the item (or from `start`); references are read from the item."""
    value: Any = item if start is None else start
    walked = ""
    for number, step in enumerate(steps):
        if isinstance(step, Ref):
            key = _follow(item, step.steps, path)
            if isinstance(key, bool) or not isinstance(key, (str, int)):
                raise PathError(f"<{step.text}> must be text or a whole number to name a key, not {value_kind(key)}")
            key_text, shown = str(key), f"<{step.text}> ({str(key)[:60]!r})"
        else:
            key_text, shown = step, repr(step)
        where = walked or ("the item" if start is None else "the element")
        if isinstance(value, Mapping):
            if key_text not in value:
                have = ", ".join(repr(k) for k in list(value)[:8])
                raise PathError(f"{where} has no key {shown}" + (f" (it has {have})" if number and have else ""))
            value = value[key_text]
        elif isinstance(value, list):
            if not key_text.isdigit() or not key_text.isascii():
                raise PathError(f"{where} is a list: a step into it is an index (0, 1, ...), not {shown}")
            index = int(key_text)
            if index >= len(value):
                raise PathError(f"{where} has {len(value)} element{'s' if len(value) != 1 else ''}; index {index} "
                                "is past its end (0 is the first)")
            value = value[index]
        else:
            raise PathError(f"{where} is {value_kind(value)}, not an object or a list: {shown} cannot be read in it")
        walked = (walked + "." if walked else "") + (f"<{step.text}>" if isinstance(step, Ref) else _escaped(step))
    return value


def _escaped(key: str) -> str:
    return "".join("\\" + c if c in SPECIAL else c for c in key)


def get(item: Mapping[str, Any], path: str, default: Any = None) -> Any:
    """The value at `path`, or `default` when it does not resolve (a page shows what it can; the import refuses)."""
    try:
        return resolve(item, path)
    except PathError:
        return default


def value_kind(value: Any) -> str:
    """A JSON value's kind in words, for a refusal that says what was found ("the number 3", "a list")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return "text"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, Mapping) else type(value).__name__


def element_problem(key: str) -> str | None:
    """What is wrong with a key path inside each element of a list (a list's `text: 0`, `figure: share`), or None."""
    try:
        steps = parse("_." + key)
    except PathError as error:
        return str(error).replace("'_.", "'")
    if any(isinstance(step, Ref) for step in steps):
        return f"{key!r}: a path inside each element cannot hold a reference <...>"
    return None


def inside(element: Any, key: str) -> Any:
    """The value at `key` (a key, an index, or a path of them: element_problem says it is written right) inside one
    element of a list; PathError when the element has none."""
    if isinstance(element, Mapping) and key in element:
        return element[key]
    return _follow({}, parse("_." + key)[1:], key, start=element)


def get_inside(element: Any, key: str) -> Any:
    """`inside`, or None where the element has nothing at `key` (an element's figure is optional)."""
    try:
        return inside(element, key)
    except PathError:
        return None
