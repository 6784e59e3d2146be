"""JSON text whose numbers PostgreSQL's JSONB gives back as the numbers that were written.

JSONB keeps a number as `numeric`, which writes it back without an exponent: Python writes the float 1e16 as
`1e+16` (every float of 1e16 or more in size has an exponent and no point), JSONB gives back
`10000000000000000`, and json reads an int: 1e308 came back as 10**308, another number than the float (a
score written so in a system's file, stored, exported and compared, was then not the score read). Such a float
is written here in full with a point (`10000000000000000.0`, the float's exact value), which `numeric` keeps
as written, so it reads back as the same float; SQLite keeps JSON text as it is and needs none of this.

`numeric` has no negative zero: -0.0 reads back as 0.0 (equal to it, but written `0.0` by an export).
"""
from __future__ import annotations

import json
import secrets
from typing import Any

_EXPONENT = "e+"  # in Python's text of every float from 1e16 in size, and of no other number


def dumps(value: Any) -> str:
    """`json.dumps(value)`, but with every float of 1e16 or more in size written in full with a point.

    The common case costs one search of the text: only a text with "e+" in it (such a float, or a string or a
    key holding those two characters) is made again.
    """
    text = json.dumps(value)
    if _EXPONENT not in text:
        return text
    marks: dict[str, str] = {}
    marked = _marked(value, secrets.token_hex(8), marks)
    if not marks:
        return text
    text = json.dumps(marked)
    for mark, number in marks.items():
        text = text.replace(json.dumps(mark), number, 1)
    return text


def _marked(value: Any, nonce: str, marks: dict[str, str]) -> Any:
    """`value` with each float that has an exponent replaced by a string no other value holds (the nonce is
    random per call), which `dumps` replaces in the text by the float written in full."""
    if isinstance(value, float):
        if _EXPONENT in repr(value):
            mark = f"\uf8ff{nonce}:{len(marks)}\uf8ff"
            marks[mark] = f"{value:.1f}"
            return mark
        return value
    if isinstance(value, dict):
        return {key: _marked(item, nonce, marks) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_marked(item, nonce, marks) for item in value]
    return value
