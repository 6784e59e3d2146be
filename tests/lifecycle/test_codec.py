"""The archive's value codec: what a column holds comes back equal through a line of JSON, for every kind."""
from __future__ import annotations

import json
import math
from datetime import datetime

from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import JSON, null
from sqlalchemy.sql.elements import Null

from annotator.lifecycle.archive import decode, encode
from tests.support.property_checks import SETTINGS

JSON_DOCUMENTS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)
VALUES = {
    "int": st.integers(-2**63, 2**63 - 1),
    "float": st.floats(),
    "bool": st.booleans(),
    "text": st.text(),
    "datetime": st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)),
    "bytes": st.binary(),
}


def through_a_line(kind: str, value: object) -> object:
    return decode(kind, json.loads(json.dumps(encode(kind, value))), nullable=True)


@SETTINGS
@given(st.sampled_from(sorted(VALUES)).flatmap(lambda kind: st.tuples(st.just(kind), VALUES[kind])))
def test_a_value_of_every_kind_comes_back_equal(case: tuple[str, object]) -> None:
    kind, value = case
    back = through_a_line(kind, value)
    if isinstance(value, float) and math.isnan(value):
        assert isinstance(back, float) and math.isnan(back)
    else:
        assert back == value and type(back) is type(value)


@SETTINGS
@given(JSON_DOCUMENTS)
def test_a_json_document_comes_back_equal_and_a_json_null_stays_apart_from_sql_null(document: object) -> None:
    back = through_a_line("json", json.dumps(document))  # JSON columns are read as their stored text
    assert back is JSON.NULL if document is None else back == document


def test_sql_null_in_a_json_column_comes_back_as_sql_null() -> None:
    assert isinstance(through_a_line("json", None), Null) and isinstance(null(), Null)


def test_a_document_that_looks_like_the_wrapper_is_wrapped_too() -> None:
    assert through_a_line("json", json.dumps({"$json": 1})) == {"$json": 1}
