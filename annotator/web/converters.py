"""URL converters: `<int:...>` is bounded to the id columns' range, so a huge id is a 404, not a 500.

Werkzeug's int converter takes any number of digits; a 30-digit id overflowed SQLite's 64 bits and a
12-digit one PostgreSQL's 32-bit integer columns, both as a 500 from the database driver. Every id
column is a 32-bit INTEGER, so anything past 2**31 - 1 cannot name a row and does not match the route.
"""
from __future__ import annotations

from werkzeug.routing import IntegerConverter, Map

MAX_ID = 2**31 - 1


class BoundedIntConverter(IntegerConverter):
    """`int` with max=MAX_ID unless a route gives another: a larger number does not match (404)."""

    def __init__(self, map: Map, fixed_digits: int = 0, min: int | None = None, max: int | None = MAX_ID,
                 signed: bool = False) -> None:
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)
