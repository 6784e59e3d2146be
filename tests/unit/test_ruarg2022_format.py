"""Specification of the RuArg-2022 reader and writer (annotator.shared_tasks.ruarg2022.files)."""
from __future__ import annotations

from pathlib import Path

import pytest

from annotator.core.errors import FormatError
from annotator.shared_tasks.ruarg2022.files import file_text, parse, read_file
from tests.conftest import DATA, SHARED_DATA

EXCERPTS = DATA / "ruarg2022"
HEADER = "text_id\ttext\tmasks_stance\tmasks_argument\tquarantine_stance\tquarantine_argument\tvaccines_stance\t" \
         "vaccines_argument"


def _round_trip(path: Path) -> bytes:
    data = read_file(path)
    return file_text([(r.text_id, r.text, r.labels) for r in data.rows], data.layout, data.newline).encode()


@pytest.mark.parametrize("name", ["train_excerpt.tsv", "test_excerpt.tsv"])
def test_the_excerpts_are_written_back_byte_for_byte(name: str) -> None:
    assert _round_trip(EXCERPTS / name) == (EXCERPTS / name).read_bytes()


@pytest.mark.shared_data
@pytest.mark.parametrize("name, rows", [("train.tsv", 6717), ("test-no_labels.tsv", 1402)])
def test_the_full_files_are_written_back_byte_for_byte(name: str, rows: int) -> None:
    path = SHARED_DATA / "ruarg2022" / "data" / name
    assert len(read_file(path).rows) == rows and _round_trip(path) == path.read_bytes()


def test_the_three_layouts_and_line_endings_are_recognised() -> None:
    train, test, val = (read_file(EXCERPTS / f"{n}_excerpt.tsv") for n in ("train", "test", "val"))
    assert (train.layout, train.newline, test.layout, test.newline, val.layout, val.newline) == \
        ("labelled", "\r\n", "empty", "\n", "text", "\r\n")
    first = train.rows[0]
    assert (first.text_id, first.line) == (17024, 2)
    assert first.labels == {"masks": (-1, -1), "quarantine": (1, 1), "vaccines": (-1, -1)}
    assert test.rows[0].labels is None and val.rows[0].labels is None


def test_quoted_texts_lose_their_quotes_and_keep_their_doubled_quotes_as_one() -> None:
    row = next(r for r in read_file(EXCERPTS / "train_excerpt.tsv").rows if r.text_id == 17096)
    assert row.text == 'Т.Е. после "мёртвого сезона" карантина надо будет заплатить в два раза больше.'


def _refused(text: str) -> FormatError:
    with pytest.raises(FormatError) as caught:
        parse(text.encode("utf-8"), "bad.tsv")
    return caught.value


ROW = "1\tA sentence.\t2\t1\t-1\t-1\t-1\t-1"


@pytest.mark.parametrize("text, line, column, message", [
    ("text_id\tsentence\n1\tx\n", 1, "text", "the header must be"),
    (HEADER.replace("masks_argument", "masks_premise") + "\n", 1, "masks_argument", "the header must be"),
    (f"{HEADER}\n{ROW}\n{ROW}\n", 3, "text_id", "text_id 1 is also on line 2"),
    (f"{HEADER}\nx1\tA.\t2\t1\t-1\t-1\t-1\t-1\n", 2, "text_id", "text_id 'x1' is not an integer"),
    (f"{HEADER}\n1\tA.\t3\t1\t-1\t-1\t-1\t-1\n", 2, "masks_stance", "label '3'"),
    (f"{HEADER}\n1\tA.\t2.0\t1\t-1\t-1\t-1\t-1\n", 2, "masks_stance", "label '2.0'"),
    (f"{HEADER}\n1\tA.\t2\t\t-1\t-1\t-1\t-1\n", 2, "masks_argument", "an empty cell among filled ones"),
    (f"{HEADER}\n1\tA.\t-1\t2\t-1\t-1\t-1\t-1\n", 2, "masks_argument", "irrelevant (-1) for one label but not"),
    (f"{HEADER}\n1\tA.\t2\t1\t-1\t-1\t-1\n", 2, None, "7 fields where the header has 8"),
    (f"{HEADER}\n1\t\"never closed\t2\t1\t-1\t-1\t-1\t-1\n2\tB.\t2\t1\t-1\t-1\t-1\t-1\n", 2, None,
     "a quoted text is never closed"),
    (f"{HEADER}\n1\t\"quoted\"then\t2\t1\t-1\t-1\t-1\t-1\n", 2, None, "broken quoting"),
    (f"{HEADER}\n1\t \t2\t1\t-1\t-1\t-1\t-1\n", 2, "text", "the text is empty"),
    (f"{HEADER}\n1\tA.\t\t\t\t\t\t\n{ROW.replace('1', '2', 1)}\n", 3, "masks_stance", "labelled throughout"),
    (f"{HEADER}\r\n{ROW}\n", 2, None, "line endings are mixed"),
    (f"{HEADER}\n", 2, None, "no sentence"),
])
def test_bad_input_is_refused_with_file_line_and_column(text: str, line: int, column: str | None, message: str) -> None:
    error = _refused(text)
    assert (error.file, error.line, error.column) == ("bad.tsv", line, column), str(error)
    assert message in error.message


def test_an_empty_file_and_bytes_that_are_not_utf8_are_refused() -> None:
    assert "empty" in _refused("").message
    with pytest.raises(FormatError) as caught:
        parse(f"{HEADER}\n1\tA\xff\n".encode("latin-1"), "bad.tsv")
    assert caught.value.line == 2 and "not UTF-8" in caught.value.message


def test_other_claims_name_the_label_columns_when_written() -> None:
    text = file_text([(5, "x", {"bikes": (2, 0)})], "labelled", "\n", claims=("bikes",))
    assert text == "text_id\ttext\tbikes_stance\tbikes_argument\n5\tx\t2\t0\n"
