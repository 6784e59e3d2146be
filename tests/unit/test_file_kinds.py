"""What an uploaded file looks like, for a refused import's message (annotator/campaigns/file_kinds.py)."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from annotator.campaigns.file_kinds import kind_hint, looks_like
from tests.conftest import DATA


def _xlsx() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
    return buffer.getvalue()


@pytest.mark.parametrize(("content", "kind"), [
    ((DATA / "recam2021" / "Task_1_dev_excerpt.jsonl").read_bytes(), "JSON Lines"),
    ((DATA / "ruarg2022" / "train_excerpt.tsv").read_bytes(), "TSV"),
    ((DATA / "emphasis2020" / "dev_excerpt.txt").read_bytes(), "TSV"),
    ((DATA / "kpa2021" / "arguments_test.csv").read_bytes(), "CSV"),
    (b'id;text;score\nq1;"Es ist kalt; sehr kalt.";0,5\nq2;Es regnet.;1,0\n', "CSV"),  # semicolons, decimal commas
    (b"One sentence; and another clause.\nA second line.\n", "plain text"),
    (b'{"items": [1, 2]}', "JSON"),
    (_xlsx(), "an Excel workbook (.xlsx)"),
    (b"%PDF-1.7\n...", "a PDF document"),
    (b"", "an empty file"),
    (b"\x1c", "an empty file"),  # a line end to str.splitlines, found by tests/properties/test_upload_properties.py
])
def test_a_file_is_recognised_by_its_first_bytes(tmp_path: Path, content: bytes, kind: str) -> None:
    path = tmp_path / "upload.txt"
    path.write_bytes(content)
    assert looks_like(path) == kind


def test_the_hint_names_what_the_file_looks_like_and_what_was_expected(tmp_path: Path) -> None:
    path = tmp_path / "dev.txt"
    path.write_bytes((DATA / "recam2021" / "Task_1_dev_excerpt.jsonl").read_bytes())
    assert kind_hint(path, ("TSV",), "one token file") == \
        "dev.txt looks like JSON Lines; this import expects one token file."


def test_a_file_of_an_expected_kind_gets_no_hint(tmp_path: Path) -> None:
    """Its problem is inside the file: the parser's own message (file, line, column) says it."""
    path = tmp_path / "train.tsv"
    path.write_bytes((DATA / "ruarg2022" / "train_excerpt.tsv").read_bytes())
    assert kind_hint(path, ("TSV",), "one TSV file") is None
