"""Reading one mapping of a definition: known keys only, typed values, and the key path in every refusal.

Why a module of its own: every check of a definition reads mappings this way (the questions' keys in
definition_checks.py, a kind's own keys in spans.py, repeat.py, shown.py, ...), and those modules are read by
definition_checks.py; with Keys there, each of them and definition_checks.py imported each other.
"""
from __future__ import annotations

import difflib
import math
import re
from typing import Any

from annotator.declared.definition import QUOTE_YES_NO, DefinitionError, join_path


class Keys:
    """Reads one mapping of the definition, refusing keys it does not know, with the key path in every error."""

    def __init__(self, data: Any, path: str, known: tuple[str, ...], what: str = "a mapping (key: value)"):
        if not isinstance(data, dict):
            raise DefinitionError(path, f"must be {what}, not {kind(data)}")
        for key in data:
            if not isinstance(key, str):
                raise DefinitionError(path, f"its keys must be names, not {kind(key)}; known here: "
                                            f"{', '.join(known)}")
            if key not in known:
                close = difflib.get_close_matches(key, known, 1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise DefinitionError(join_path(path, key), f"unknown key{hint}; known here: {', '.join(known)}")
        self.data, self.path = data, path

    def at(self, key: str) -> str:
        return join_path(self.path, key)

    def has(self, key: str) -> bool:
        return key in self.data and self.data[key] is not None

    def text(self, key: str, default: str | None = None, *, limit: int = 200, pattern: re.Pattern[str] | None = None,
             what: str = "") -> str:
        value = self.data.get(key)
        if value is None:
            if default is None:
                raise DefinitionError(self.at(key), "is required")
            return default
        value = plain_text(value, self.at(key), limit)
        if pattern is not None and not pattern.match(value):
            raise DefinitionError(self.at(key), f"{value[:60]!r} is not {what}")
        return value

    def number(self, key: str, default: float, *, low: float | None = None, high: float | None = None,
               integer: bool = False) -> float:
        value = self.data.get(key)
        value = default if value is None else value
        low_words, high_words = number_words(low), number_words(high)
        bounds = f"between {low_words} and {high_words}" if low is not None and high is not None else \
            f"at least {low_words}" if low is not None else f"at most {high_words}" if high is not None else ""
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not finite(value):
            raise DefinitionError(self.at(key), f"must be {'a whole' if integer else 'a'} number {bounds}, "
                                                f"not {kind(value)}".replace("  ", " "))
        if integer and value != int(value):
            raise DefinitionError(self.at(key), f"must be a whole number {bounds}, not {number_words(value)}")
        if low is not None and value < low or high is not None and value > high:
            raise DefinitionError(self.at(key), f"must be {bounds}, not {number_words(value)}")
        return int(value) if integer else float(value)

    def flag(self, key: str, default: bool) -> bool:
        value = self.data.get(key)
        value = default if value is None else value
        if not isinstance(value, bool):
            raise DefinitionError(self.at(key), f"must be true or false, not {kind(value)}")
        return value

    def listed(self, key: str, *, required: bool = False) -> list[Any]:
        value = self.data.get(key)
        if value is None:
            if required:
                raise DefinitionError(self.at(key), "is required")
            return []
        if not isinstance(value, list):
            raise DefinitionError(self.at(key), f"must be a list, not {kind(value)}")
        return value


def plain_text(value: Any, path: str, limit: int = 200, what: str = "text") -> str:
    """A text value: text, or a number written without quotes (3 is "3"); never true/false, NaN or a NUL."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) or \
            not isinstance(value, str) and not finite(value):
        hint = QUOTE_YES_NO if isinstance(value, bool) else ""
        raise DefinitionError(path, f"must be {what}, not {kind(value)}{hint}")
    text = value if isinstance(value, str) else str(value)
    if len(text) > limit:
        raise DefinitionError(path, f"is {len(text)} characters long; at most {limit}")
    if "\x00" in text:
        raise DefinitionError(path, "holds a NUL character (\\0); remove it")
    if any("\ud800" <= c <= "\udfff" for c in text):
        raise DefinitionError(path, "holds a lone surrogate (\\ud800-\\udfff), which is not a character")
    return text


def add_once(seen: list[str], value: str, path: str) -> None:
    """Append `value` to `seen`, the entries of a list read so far; one listed before is refused at `path`: a
    definition's lists (options, labels, grades, codes, fields) name each thing once."""
    if value in seen:
        raise DefinitionError(path, f"{value[:40]!r} is listed twice")
    seen.append(value)


def finite(value: int | float) -> bool:
    """A number a definition can hold: finite, and an integer of at most 18 digits (5,000 digits is not one)."""
    return abs(value) < 10**18 if isinstance(value, int) else math.isfinite(value)


def kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"{str(value).lower()} (true/false)"
    if isinstance(value, int) and not finite(value):
        return f"a number of {len(str(abs(value))) if value.bit_length() < 10_000 else 'thousands of'} digits"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__} (quote it to make it text)"


def number_words(value: float | None) -> str:
    return "" if value is None else f"{value:g}"
