"""The ReCAM question files: strict reading with located errors, lines kept byte for byte."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.core.errors import FormatError
from annotator.shared_tasks.recam2021.files import parse, read_file
from tests.conftest import DATA, SHARED_DATA

FIXTURES = DATA / "recam2021"
GOOD = {"article": "A short passage.", "question": "It is @placeholder .", "option_0": "a", "option_1": "b",
        "option_2": "c", "option_3": "d", "option_4": "e", "label": 1}


def line(**changes) -> bytes:  # type: ignore[no-untyped-def]
    obj = {k: v for k, v in {**GOOD, **changes}.items() if v is not ...}
    return (json.dumps(obj, ensure_ascii=False) + "\r\n").encode()


def refused(data: bytes) -> FormatError:
    with pytest.raises(FormatError) as caught:
        parse(data, "Task_1_dev.jsonl")
    return caught.value


def test_the_dev_excerpt_is_read_with_labels_and_line_numbers_as_ids() -> None:
    data = read_file(FIXTURES / "Task_1_dev_excerpt.jsonl")
    assert [q.id for q in data.questions] == ["0", "1", "2", "3"]
    assert [q.label for q in data.questions] == [2, 4, 4, 4]
    assert data.newline == "\r\n" and data.labelled
    assert data.questions[0].options == ("end", "free", "secret", "normal", "concentration")


def test_lines_are_kept_exactly_as_read_mojibake_included() -> None:
    raw = (FIXTURES / "Task_1_dev_excerpt.jsonl").read_bytes()
    data = read_file(FIXTURES / "Task_1_dev_excerpt.jsonl")
    assert "".join(q.raw for q in data.questions).encode() == raw
    assert "Â£" in data.questions[1].article


def test_the_test_layout_uses_its_ids_and_has_no_labels() -> None:
    data = read_file(FIXTURES / "Task_1_test_excerpt.jsonl")
    assert [q.id for q in data.questions] == ["0", "1", "2"]
    assert all(q.label is None for q in data.questions) and not data.labelled


def test_trial_files_end_lines_with_lf() -> None:
    assert read_file(FIXTURES / "Task_2_Nonspecificity_excerpt.jsonl").newline == "\n"


def test_a_line_separator_inside_a_string_is_text_not_a_line_break() -> None:
    data = parse(line(article="one\u2028two"), "x.jsonl")
    assert len(data.questions) == 1 and data.questions[0].article == "one\u2028two"


@pytest.mark.parametrize("bad, where, words", [
    (b"{not json}\r\n", (1, None), "not JSON"),
    (b"[1, 2]\r\n", (1, None), "not a JSON object"),
    (line(question="no blank here ."), (1, "question"), "exactly once; it holds it 0 times"),
    (line(question="@placeholder and @placeholder"), (1, "question"), "2 times"),
    (line(option_4=...), (1, "options"), "five options"),
    (line(option_5="f"), (1, "options"), "five options"),
    (line(label=5), (1, "label"), "not an option index 0..4"),
    (line(label="2"), (1, "label"), "not an option index 0..4"),
    (line(article=...), (1, "article"), '"article" is missing'),
    (line(option_2=3), (1, "option_2"), "must be a string"),
    (line(extra=1), (1, "extra"), "unknown field"),
    (line(id="7"), (1, "id"), "not an integer"),
])
def test_bad_lines_are_refused_with_line_and_field(bad: bytes, where: tuple, words: str) -> None:
    error = refused(bad)
    assert (error.line, error.column) == where and words in error.message


def test_errors_name_the_physical_line() -> None:
    error = refused(line() + line() + line(label=9))
    assert error.line == 3 and "Task_1_dev.jsonl, line 3, column label" in str(error)


def test_an_empty_line_between_questions_is_refused() -> None:
    assert refused(line() + b"\r\n" + line()).line == 2


def test_a_repeated_id_is_refused() -> None:
    error = refused(line(id=4, label=...) + line(id=4, label=...))
    assert (error.line, error.column) == (2, "id") and "also on line 1" in error.message


def test_labels_on_some_lines_only_are_refused() -> None:
    error = refused(line() + line(label=...))
    assert (error.line, error.column) == (2, "label")


def test_not_utf8_and_empty_files_are_refused() -> None:
    assert "not UTF-8" in refused(line() + b"\xff\r\n").message
    assert "empty" in refused(b"").message


@pytest.mark.shared_data
@pytest.mark.parametrize("path, count, labelled", [
    ("training_data/Task_1_dev.jsonl", 837, True), ("training_data/Task_2_dev.jsonl", 851, True),
    ("test_data/Task_1_test.jsonl", 2025, False), ("trail_data/Task_1_Imperceptibility.jsonl", 1000, True),
    ("trail_data/Task_2_Nonspecificity.jsonl", 1000, True), ("trail_data/Task_3_Intersection.jsonl", 1000, True),
])
def test_every_published_file_is_read_whole(path: str, count: int, labelled: bool) -> None:
    source = Path(SHARED_DATA) / "recam2021" / "data" / path
    data = read_file(source)
    assert len(data.questions) == count and data.labelled is labelled
    assert "".join(q.raw for q in data.questions).encode() == source.read_bytes()
