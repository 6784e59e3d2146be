"""The archive's value codec: a database value as JSON and back, chosen by the column's type (archive.py says why).

Kept apart from the archive's reading and writing so that each module stays short; archive.py re-exports it.
"""
from __future__ import annotations

import base64
import json
import math
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Column, DateTime, Float, Integer, LargeBinary, String, Text, null

KINDS = ("int", "float", "bool", "text", "datetime", "bytes", "json")
# Integer columns are at most 64-bit signed on either engine; a larger number in a file is refused where it is
# read (file, line, column), not as an overflow of the driver in the middle of an insert.
INT_MIN, INT_MAX = -(2 ** 63), 2 ** 63 - 1
_JSON_WRAPPER = "$json"
_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def column_kind(column: Column[Any]) -> str:
    """The codec of a column, from its SQLAlchemy type."""
    kind = column.type
    for cls, name in ((JSON, "json"), (Boolean, "bool"), (DateTime, "datetime"), (Float, "float"),
                      (Integer, "int"), (LargeBinary, "bytes"), (String, "text"), (Text, "text")):
        if isinstance(kind, cls):
            return name
    raise TypeError(f"{column.table.name}.{column.name}: no archive codec for {kind!r}")


def encode(kind: str, value: Any) -> Any:
    """A database value as JSON. JSON columns come as their stored text (see `read_expression`)."""
    if value is None:
        return None
    if kind == "float":
        value = float(value)
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if kind == "datetime":
        return value.isoformat()
    if kind == "bytes":
        return base64.b64encode(bytes(value)).decode("ascii")
    if kind == "json":
        document = json.loads(value) if isinstance(value, str) else value
        wrap = document is None or (isinstance(document, dict) and set(document) == {_JSON_WRAPPER})
        return {_JSON_WRAPPER: document} if wrap else document
    if kind == "bool":
        return bool(value)
    if kind == "int":
        return int(value)
    return value


def decode(kind: str, value: Any, nullable: bool) -> Any:
    """A value of the file as the database takes it; ValueError says what is wrong with it."""
    if value is None:
        if not nullable:
            raise ValueError("null in a column that must have a value")
        return null() if kind == "json" else None
    if kind == "json":
        if isinstance(value, dict) and set(value) == {_JSON_WRAPPER}:
            inner = value[_JSON_WRAPPER]
            return JSON.NULL if inner is None else inner
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected an integer, found {value!r}")
        if not INT_MIN <= value <= INT_MAX:
            raise ValueError(f"the integer {value} is out of range (64-bit signed)")
        return value
    if kind == "float":
        if isinstance(value, str) and value in _NON_FINITE:
            return _NON_FINITE[value]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"expected a number, found {value!r}")
        return float(value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, found {value!r}")
        return value
    if not isinstance(value, str):
        raise ValueError(f"expected a string, found {value!r}")
    if kind == "datetime":
        return datetime.fromisoformat(value)
    if kind == "bytes":
        return base64.b64decode(value, validate=True)
    return value
