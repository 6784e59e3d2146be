"""`cells`: a frame's column as the values iterating it gives, an Arrow-backed text column converted in one call."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from annotator.analysis.label_reader import _text_dtype
from annotator.core.columns import cells

TEXT = ["stance", "premise", "stance", "B", "", "Ответ"]


@pytest.mark.parametrize("column", [
    pd.Series(pd.array(TEXT, dtype=_text_dtype())),                        # the label frames' text columns
    pd.Series(pd.array(TEXT, dtype=pd.StringDtype("pyarrow"))),            # "string": missing is pd.NA
    pd.Series(TEXT, dtype=object),
    pd.Series(pd.array(TEXT, dtype=pd.StringDtype("python"))),
    pd.Series([3, 1, 2], dtype="int64"),
    np.array([3, 1, 2]),
    pd.Series([3, 1, 2], dtype="int64[pyarrow]"),
], ids=["str-pyarrow", "string-pyarrow", "object", "string-python", "int64", "numpy", "int64-pyarrow"])
def test_the_cells_are_the_values_iterating_the_column_gives(column) -> None:  # type: ignore[no-untyped-def]
    assert list(cells(column)) == list(column)
    assert [type(value) for value in cells(column)] == [type(value) for value in column]


@pytest.mark.parametrize("dtype, missing", [(_text_dtype(), "nan"), (pd.StringDtype("pyarrow"), "NA")])
def test_a_missing_text_is_the_columns_own_missing_value(dtype, missing) -> None:  # type: ignore[no-untyped-def]
    column = pd.Series(pd.array(["A", None, "B"], dtype=dtype))
    values = list(cells(column))
    assert values[0] == "A" and values[2] == "B"
    assert values[1] is dtype.na_value
    assert str(values[1]) == str(list(column)[1]) == ("nan" if missing == "nan" else "<NA>")


def test_a_selection_of_rows_keeps_its_order_and_only_its_rows() -> None:
    column = pd.Series(pd.array([f"item-{n % 7}" for n in range(700)], dtype=_text_dtype()))
    chosen = column[column.isin(["item-3", "item-5"])].iloc[::-1]
    assert list(cells(chosen)) == list(chosen) and len(list(cells(chosen))) == 200


def test_an_arrow_text_column_is_converted_in_one_call_not_cell_by_cell(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The reason `cells` exists: pandas' own iteration of such a column makes an Arrow scalar of every cell."""
    column = pd.Series(pd.array(TEXT, dtype=_text_dtype()))

    def refuse(self):  # type: ignore[no-untyped-def]
        raise AssertionError("iterated cell by cell")
    monkeypatch.setattr(type(column.array), "__iter__", refuse)
    assert list(cells(column)) == TEXT
