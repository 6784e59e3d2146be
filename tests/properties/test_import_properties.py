"""Property: an import of any mutation of real files either succeeds or is refused with a located
message (file, and line or column where the reader knows them) and changes nothing.

The inputs start from the real excerpts in tests/data and Hypothesis changes one thing: a field of a
row to any text (NUL, lone surrogates excluded only where a file cannot hold them: none here, the text
is written as UTF-8 with surrogates replaced), a line dropped or repeated, the header damaged.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import DATA
from tests.support.property_checks import change_whole_line, import_stored_whole_or_refused

SETTINGS = settings(max_examples=30, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=60)


def _import_and_check(fmt_name: str, path: Path, expected_file: str, **options) -> None:  # type: ignore[no-untyped-def]
    """Stored whole, or refused naming the file (and line or column) or the item, with no table changed."""
    # A change in one file may be found in another that refers to it (a key point id, in the labels).
    import_stored_whole_or_refused(fmt_name, path, (expected_file, ".csv", ".txt", ".jsonl"), **options)


def _kpa_rows(name: str) -> list[list[str]]:
    return list(csv.reader(open(DATA / "kpa2021" / name, encoding="utf-8", newline="")))


@pytest.mark.parametrize("file", ["arguments_test.csv", "key_points_test.csv"])
@given(data=st.data())
@SETTINGS
def test_a_kpa_file_with_one_field_changed(app, tmp_path_factory, file, data):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("kpa")
    for name in ("arguments_test.csv", "key_points_test.csv", "labels_test.csv"):
        rows = _kpa_rows(name)
        if name == file:
            row = data.draw(st.integers(0, len(rows) - 1), label="row")
            column = data.draw(st.integers(0, len(rows[row]) - 1), label="column")
            rows[row][column] = data.draw(TEXT, label="value")
        buffer = io.StringIO()
        csv.writer(buffer).writerows(rows)
        (folder / name).write_text(buffer.getvalue(), encoding="utf-8")
    _import_and_check("kpa2021", folder, file, split="test")


@given(data=st.data())
@SETTINGS
def test_an_emphasis_file_with_one_line_changed(app, tmp_path_factory, data):  # type: ignore[no-untyped-def]
    lines = (DATA / "emphasis2020" / "dev_excerpt.txt").read_text(encoding="utf-8").split("\n")[:60]
    number = data.draw(st.integers(0, len(lines) - 1), label="line")
    change = data.draw(st.sampled_from(["replace", "drop", "repeat", "field"]), label="change")
    if not change_whole_line(data, lines, change, number, TEXT):
        fields = lines[number].split("\t")
        fields[data.draw(st.integers(0, len(fields) - 1), label="field")] = data.draw(TEXT, label="value")
        lines[number] = "\t".join(fields)
    path = tmp_path_factory.mktemp("emph") / "dev.txt"
    path.write_text("\n".join(lines), encoding="utf-8")
    _import_and_check("emphasis2020", path, "dev.txt")


@pytest.mark.parametrize("value", ["a\x00b", "\ud800"], ids=["nul", "lone-surrogate-escaped"])
def test_a_kpa_argument_with_text_no_database_keeps(app, tmp_path, value):  # type: ignore[no-untyped-def]
    rows = _kpa_rows("arguments_test.csv")
    rows[1][1] = value
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    for name in ("key_points_test.csv", "labels_test.csv"):
        (tmp_path / name).write_bytes((DATA / "kpa2021" / name).read_bytes())
    (tmp_path / "arguments_test.csv").write_text(buffer.getvalue(), encoding="utf-8", errors="surrogatepass")
    _import_and_check("kpa2021", tmp_path, "arguments_test.csv", split="test")


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-10, 10) | TEXT,
                           lambda inner: st.lists(inner, max_size=3), max_leaves=4)


@given(data=st.data())
@SETTINGS
def test_a_recam_file_with_one_line_changed(app, tmp_path_factory, data):  # type: ignore[no-untyped-def]
    import json
    lines = (DATA / "recam2021" / "Task_1_dev_excerpt.jsonl").read_bytes().decode("utf-8").split("\r\n")[:-1]
    number = data.draw(st.integers(0, len(lines) - 1), label="line")
    change = data.draw(st.sampled_from(["replace", "drop", "repeat", "field", "remove"]), label="change")
    if not change_whole_line(data, lines, change, number, TEXT):
        obj = json.loads(lines[number])
        key = data.draw(st.sampled_from(sorted(obj) + ["id", "option_5"]), label="key")
        if change == "remove":
            obj.pop(key, None)
        else:
            obj[key] = data.draw(JSON_VALUES, label="value")
        lines[number] = json.dumps(obj, ensure_ascii=data.draw(st.booleans(), label="ascii"))
    path = tmp_path_factory.mktemp("recam") / "Task_1_dev.jsonl"
    path.write_text("".join(line + "\r\n" for line in lines), encoding="utf-8")
    _import_and_check("recam2021", path, "Task_1_dev.jsonl")
