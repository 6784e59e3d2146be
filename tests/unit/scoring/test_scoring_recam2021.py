"""SemEval-2021 Task 4 (ReCAM): accuracy and the rules for irregular answer files (formats-and-scorers.md §4.3),
plus the reference numbers of the example submission against the dev files."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from annotator.core.errors import FormatError, SubmissionError
from annotator.shared_tasks.recam2021 import scorer as recam2021

TOLERANCE = 1e-12
LABELS = [2, 4, 4, 0, 1]


def write_gold(path: Path, labels: list[int]) -> Path:
    lines = [json.dumps({"article": "a", "question": "q @placeholder", **{f"option_{i}": f"w{i}" for i in range(5)},
                         "label": label}) for label in labels]
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode())
    return path


def write_answers(path: Path, text: str) -> Path:
    path.write_bytes(text.encode())
    return path


@pytest.fixture
def gold(tmp_path: Path) -> Path:
    return write_gold(tmp_path / "Task_1_dev.jsonl", LABELS)


def score_text(gold: Path, tmp_path: Path, text: str, **options) -> recam2021.ScoreReport:
    return recam2021.score_files(gold, write_answers(tmp_path / "subtask1.csv", text), **options)


def test_accuracy_is_correct_answers_over_gold_questions(gold: Path, tmp_path: Path) -> None:
    report = score_text(gold, tmp_path, "0,2\r\n1,4\r\n2,0\r\n3,0\r\n4,3\r\n")
    assert report.metrics == {"accuracy": 3 / 5}
    assert report.warnings == []


def test_lf_and_crlf_files_score_the_same(gold: Path, tmp_path: Path) -> None:
    crlf = score_text(gold, tmp_path, "0,2\r\n1,4\r\n2,0\r\n3,0\r\n4,3\r\n")
    lf = score_text(gold, tmp_path, "0,2\n1,4\n2,0\n3,0\n4,3")
    assert crlf.metrics == lf.metrics


def test_a_missing_index_counts_wrong_and_is_reported(gold: Path, tmp_path: Path) -> None:
    report = score_text(gold, tmp_path, "0,2\n2,4\n4,1\n")
    assert report.metrics == {"accuracy": 3 / 5}
    assert report.detail["missing"] == 2
    assert any("2 question(s) have no answer and count as wrong: indices 1, 3" in w for w in report.warnings)


@pytest.mark.parametrize("text, line, message", [
    ("index,label\n0,2\n", 1, "looks like a header row"),
    ("0,2\n1,four\n", 2, "expected two integers"),
    ("0,2\n1,2.0\n", 2, "expected two integers"),
    ("0,2\n1,2,3\n", 2, "expected two integers"),
    ("0,2\n5,1\n", 2, "index 5 is not a question of the gold (0..4)"),
    ("0,2\n-1,1\n", 2, "index -1 is not a question of the gold"),
    ("0,2\n1,4\n0,3\n", 3, "index 0 was already answered on line 1"),
    ("0,2\n1,5\n", 2, "option 5 is not 0..4"),
], ids=["header", "word", "float", "three-fields", "unknown-index", "negative-index", "duplicate", "option-5"])
def test_irregular_lines_are_refused_with_their_line_number(gold: Path, tmp_path: Path, text: str, line: int,
                                                            message: str) -> None:
    with pytest.raises(SubmissionError) as caught:
        score_text(gold, tmp_path, text)
    assert (caught.value.file, caught.value.line) == ("subtask1.csv", line)
    assert message in str(caught.value)


def test_a_zip_holding_one_subtask_file_is_scored_without_choosing(gold: Path, tmp_path: Path) -> None:
    archive = tmp_path / "answer.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("subtask2.csv", "0,2\r\n1,4\r\n2,4\r\n3,0\r\n4,1\r\n")
    assert recam2021.score_files(gold, archive).metrics == {"accuracy": 1.0}


def test_a_zip_holding_both_files_scores_the_chosen_subtask(gold: Path, tmp_path: Path) -> None:
    archive = tmp_path / "answer.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("subtask1.csv", "0,2\n1,4\n2,4\n3,0\n4,1\n")
        z.writestr("subtask2.csv", "0,0\n1,0\n2,0\n3,0\n4,0\n")
    assert recam2021.score_files(gold, archive, subtask=1).metrics == {"accuracy": 1.0}
    assert recam2021.score_files(gold, archive, subtask=2).metrics == {"accuracy": 0.2}
    with pytest.raises(SubmissionError, match="choose the subtask"):
        recam2021.score_files(gold, archive)


def test_a_subtask_file_inside_a_folder_of_the_zip_is_refused_with_a_hint(gold: Path, tmp_path: Path) -> None:
    archive = tmp_path / "answer.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("answers/subtask1.csv", "0,2\n")
    with pytest.raises(SubmissionError, match="no subtask1.csv at its root \\(found answers/subtask1.csv"):
        recam2021.score_files(gold, archive, subtask=1)


def test_a_gold_file_without_labels_is_a_located_format_error(tmp_path: Path) -> None:
    path = tmp_path / "Task_1_test.jsonl"
    path.write_text('{"id": 0, "article": "a", "question": "q"}\n')
    with pytest.raises(FormatError) as caught:
        recam2021.read_gold(path)
    assert (caught.value.file, caught.value.line, caught.value.column) == ("Task_1_test.jsonl", 1, "label")


def test_the_excerpt_answers_are_all_right_and_a_dropped_line_counts_wrong(excerpts: Path, tmp_path: Path) -> None:
    folder = excerpts / "recam2021"
    gold = folder / "Task_1_dev_excerpt.jsonl"
    assert recam2021.read_gold(gold) == [2, 4, 4]
    assert recam2021.score_files(gold, folder / "subtask1_excerpt.csv").metrics == {"accuracy": 1.0}
    two = write_answers(tmp_path / "two.csv",
                        "".join((folder / "subtask1_excerpt.csv").read_text().splitlines(True)[:2]))
    assert recam2021.score_files(gold, two).metrics == {"accuracy": 2 / 3}


# --- reference numbers (§4.3) -----------------------------------------------------------------------------------

@pytest.mark.parametrize("subtask, expected, correct", [(1, 0.5782556750298686, 484), (2, 0.5464159811985899, 465)])
def test_the_example_submission_reproduces_the_reference_accuracy(shared_data: Path, subtask: int, expected: float,
                                                                  correct: int) -> None:
    data = shared_data / "recam2021" / "data"
    gold = data / "training_data" / f"Task_{subtask}_dev.jsonl"
    plain = recam2021.score_files(gold, data / "submission example" / f"subtask{subtask}.csv")
    zipped = recam2021.score_files(gold, data / "submission example" / "practice_data.zip", subtask=subtask)
    assert plain.metrics["accuracy"] == pytest.approx(expected, abs=TOLERANCE)
    assert zipped.metrics == plain.metrics
    assert plain.detail["correct"] == correct
