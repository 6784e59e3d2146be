"""A frame's column as Python values, for the loops that read votes cell by cell.

The label frames keep their text in Arrow buffers (annotator/analysis/label_reader.py), and pandas iterates such a
column by making an Arrow scalar of each cell and converting it (`ArrowExtensionArray.__iter__`; `Series.tolist()`
does the same): on 200,000 cells 0.22-0.28 s, against 0.015-0.02 s for Arrow's own conversion of the whole column.
The declared rules, the exports and the replay read votes one by one, and spent a few per cent of a test run there
(bench/results/2026-11-29-test-suite-interpreter.md).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def cells(column: Iterable[Any]) -> Iterable[Any]:
    """The column's values in order, as iterating it gives them: an Arrow-backed text column converted in one call
    (a missing value as the column's own missing value), any other column as it is."""
    # pandas' string dtypes ("str", and "string" with pd.NA) told apart by their names and storage: this module is
    # imported where pandas is not (the app starts without it), and a column handed here already brought it.
    dtype: Any = getattr(column, "dtype", None)
    if (getattr(dtype, "name", None) not in ("str", "string") or getattr(dtype, "storage", None) != "pyarrow"
            or not hasattr(getattr(column, "array", None), "__arrow_array__")):
        return column
    values: list[Any] = column.array.__arrow_array__().to_pylist()  # type: ignore[attr-defined]
    if None in values:
        missing = dtype.na_value
        return [missing if value is None else value for value in values]
    return values
