"""JSON from strangers, bounded: nesting depth, non-finite numbers, NUL and lone surrogates.

Python's json module accepts what no database column should keep: NaN and Infinity (and 1e999, which
becomes inf), "\\u0000" (PostgreSQL's JSONB and text refuse it: a 500), and lone surrogates such as
"\\ud800" (not encodable as UTF-8: a 500 again); and it recurses once per nesting level, so 100,000
"[" raise RecursionError (a 500). Bodies are checked here before anything reads them further.
"""
from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 32
_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONBodyError(ValueError):
    """The bytes are not a JSON document this server reads (400)."""


class JSONValueError(ValueError):
    """A JSON value that cannot be stored (422): the message names where it is."""


def nesting_depth(raw: bytes) -> int:
    """The deepest nesting of [ and { outside strings, found without recursing."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # "
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def _no_constant(name: str) -> Any:
    raise JSONValueError(f"{name} is not a number this server stores: send finite numbers only")


def loads(raw: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """The parsed document; JSONBodyError for bytes that are not JSON or nest deeper than `max_depth`,
    JSONValueError for NaN / Infinity."""
    if nesting_depth(raw) > max_depth:
        raise JSONBodyError(f"the JSON nests deeper than {max_depth} levels")
    try:
        return json.loads(raw, parse_constant=_no_constant)
    except JSONValueError:
        raise
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
        raise JSONBodyError(f"the body is not JSON: {error}") from None


def loads_text(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """One JSON value from a line of a file or a form's field, with the bounds of `loads`; the messages say what
    is wrong without calling it a body (JSONBodyError), JSONValueError for NaN / Infinity. A number of more
    digits than Python converts (4,300) is refused in words instead of naming the interpreter's setting."""
    if text.count("[") + text.count("{") > max_depth and nesting_depth(text.encode("utf-8", "surrogatepass")) \
            > max_depth:
        raise JSONBodyError(f"lists and objects nest more than {max_depth} levels deep")
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except JSONValueError:
        raise
    except json.JSONDecodeError as error:
        raise JSONBodyError(f"not valid JSON ({error.msg}, character {error.colno})") from None
    except ValueError as error:
        if "digits" in str(error):
            raise JSONBodyError("a number has more digits than the 4300 a number here may have") from None
        raise JSONBodyError(f"not valid JSON ({error})") from None


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONValueError(f"{text[:40]} is too large a number to store: send finite numbers only")
    return value


def _text_problem(text: str) -> str | None:
    if "\x00" in text:
        return "contains the NUL character (\\u0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate (\\ud800-\\udfff without its pair)"
    return None


def _text_fine(text: str) -> bool:
    return "\x00" not in text and (text.isascii() or _SURROGATE.search(text) is None)


def _fine(value: Any) -> bool:
    """Whether `value` holds nothing check_value refuses: the fast walk, without the paths a message needs (an
    import checks a million items with it)."""
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, str):
            if not _text_fine(current):
                return False
        elif isinstance(current, float):
            if not math.isfinite(current):
                return False
        elif isinstance(current, dict):
            for key, item in current.items():
                if isinstance(key, str) and not _text_fine(key):
                    return False
                stack.append(item)
        elif isinstance(current, list):
            stack.extend(current)
    return True


def check_value(value: Any, where: str = "answer") -> None:
    """Refuse (JSONValueError naming the place) non-finite numbers and text no database keeps, at any depth."""
    if _fine(value):
        return
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        current, path = stack.pop()
        if isinstance(current, float) and not math.isfinite(current):
            raise JSONValueError(f"{path} is {current}: send finite numbers only")
        if isinstance(current, str):
            problem = _text_problem(current)
            if problem:
                raise JSONValueError(f"{path} {problem}")
        elif isinstance(current, dict):
            for key, item in current.items():
                problem = _text_problem(key) if isinstance(key, str) else None
                if problem:
                    raise JSONValueError(f"a key of {path} {problem}")
                stack.append((item, f"{path}.{key}"))
        elif isinstance(current, list):
            stack.extend((item, f"{path}[{n}]") for n, item in enumerate(current))
