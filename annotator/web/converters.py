"""URL converters: `<int:...>` is bounded to the id columns' range, so a huge id is a 404, not a 500; a text
segment (`<slug>`, `<string:...>`) never holds a NUL character, which PostgreSQL's text columns cannot compare
against (`/crowd/%00/...` answered 500 there: the driver refuses the parameter), so such a URL is a 404 too.

Werkzeug's int converter takes any number of digits; a 30-digit id overflowed SQLite's 64 bits and a
12-digit one PostgreSQL's 32-bit integer columns, both as a 500 from the database driver. Every id
column is a 32-bit INTEGER, so anything past 2**31 - 1 cannot name a row and does not match the route.
"""
from __future__ import annotations

from werkzeug.routing import IntegerConverter, Map, UnicodeConverter

MAX_ID = 2**31 - 1


class BoundedIntConverter(IntegerConverter):
    """`int` with max=MAX_ID unless a route gives another: a larger number does not match (404)."""

    def __init__(self, map: Map, fixed_digits: int = 0, min: int | None = None, max: int | None = MAX_ID,
                 signed: bool = False) -> None:
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)


class TextConverter(UnicodeConverter):
    """The default converter of a path segment, without the NUL character: a segment holding one does not match."""

    def __init__(self, map: Map, minlength: int = 1, maxlength: int | None = None, length: int | None = None) -> None:
        super().__init__(map, minlength=minlength, maxlength=maxlength, length=length)
        self.regex = self.regex.replace("[^/]", r"[^/\x00]", 1)   # werkzeug's pattern is "[^/]{min,max}"
