"""RuArg-2022: the CodaLab program's rules (formats-and-scorers.md §3.3) and the id matching that replaces its
alignment by position, on hand-built tables and an excerpt of train.tsv."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score

from annotator.core.errors import FormatError, SubmissionError
from annotator.shared_tasks.ruarg2022 import scorer as ruarg2022
from annotator.shared_tasks.ruarg2022.scorer import COLUMNS

ALL_CLASSES = [0, 1, 2, -1, 0, 1]


def table(ids: list[int], **columns: list) -> pd.DataFrame:
    """A table with every label column equal to (the start of) ALL_CLASSES unless given."""
    data = {"text_id": ids, "text": [f"text {i}" for i in ids]}
    data.update({c: columns.get(c, ALL_CLASSES[:len(ids)]) for c in COLUMNS})
    return pd.DataFrame(data)


def save(df: pd.DataFrame, path: Path) -> Path:
    df.to_csv(path, sep="\t", index=False, lineterminator="\n")
    return path


def score(tmp_path: Path, gold: pd.DataFrame, submission: pd.DataFrame, **options) -> ruarg2022.ScoreReport:
    return ruarg2022.score_files(save(gold, tmp_path / "gold.tsv"), save(submission, tmp_path / "answer.tsv"),
                                 **options)


IDS = [101, 102, 103, 104, 105, 106]


def test_a_class_absent_from_gold_and_submission_scores_f1_zero_even_for_a_perfect_copy(tmp_path: Path) -> None:
    gold = table(IDS, quarantine_argument=[1, 2, 1, -1, 2, 1])  # no class 0
    report = score(tmp_path, gold, gold)
    assert report.metrics["f1_stance"] == 1.0
    assert report.metrics["f1_premise"] == (1.0 + 1.0 + 2 / 3) / 3
    assert any("0 in quarantine_argument" in w and "zero_division" in w for w in report.warnings)


def test_the_task_scores_are_per_claim_sklearn_macro_f1_summed_masks_vaccines_quarantine(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    ids = list(range(1, 41))
    gold = table(ids, **{c: rng.integers(-1, 3, 40).tolist() for c in COLUMNS})
    submission = table(ids, **{c: rng.integers(-1, 3, 40).tolist() for c in COLUMNS})
    report = score(tmp_path, gold, submission)
    f1 = {c: f1_score(gold[c], submission[c], labels=[2, 1, 0], average="macro") for c in COLUMNS}
    for kind, name in (("stance", "f1_stance"), ("argument", "f1_premise")):
        expected = (f1[f"masks_{kind}"] + f1[f"vaccines_{kind}"] + f1[f"quarantine_{kind}"]) / 3
        assert report.metrics[name] == expected
    assert [row["column"] for row in report.detail["columns"]] == [
        "masks_stance", "masks_argument", "vaccines_stance", "vaccines_argument", "quarantine_stance",
        "quarantine_argument"]


def test_irrelevant_predicted_as_other_is_a_false_positive_of_class_1(tmp_path: Path) -> None:
    gold = table([1, 2, 3, 4], masks_stance=[-1, 1, 0, 2])
    submission = table([1, 2, 3, 4], masks_stance=[1, 1, 0, 2])
    row = next(r for r in score(tmp_path, gold, submission).detail["columns"] if r["column"] == "masks_stance")
    assert (row["f1_2"], row["f1_1"], row["f1_0"]) == (1.0, 2 / 3, 1.0)


def test_rows_are_matched_by_text_id_so_a_shuffled_copy_scores_like_the_ordered_one(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    gold = table(list(range(1, 31)), **{c: rng.integers(-1, 3, 30).tolist() for c in COLUMNS})
    shuffled = gold.sample(frac=1, random_state=2)
    report = score(tmp_path, gold, shuffled)
    assert report.metrics == {"f1_stance": 1.0, "f1_premise": 1.0}
    official = score(tmp_path, gold, shuffled, by_position=True).metrics
    assert official["f1_stance"] < 1.0
    assert any("CodaLab program aligns rows by position and would report "
               f"f1_stance {official['f1_stance']!r}" in w for w in report.warnings)


def test_missing_and_extra_text_ids_are_refused_and_named(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError) as caught:
        score(tmp_path, table(IDS), table([101, 102, 103, 104, 105, 999]))
    assert "1 text_id(s) of the gold are missing: 106; 1 text_id(s) are not in the gold: 999" in str(caught.value)
    assert caught.value.file == "answer.tsv"


def test_duplicate_text_ids_in_the_submission_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError, match="duplicate text_id\\(s\\): 105"):
        score(tmp_path, table(IDS), table([101, 102, 103, 104, 105, 105]))


def test_empty_cells_become_100_and_count_wrong_with_a_warning(tmp_path: Path) -> None:
    gold = table(IDS)
    empty = table(IDS, masks_stance=[0, None, 2, -1, None, 1])
    hundred = table(IDS, masks_stance=[0, 100, 2, -1, 100, 1])
    report = score(tmp_path, gold, empty)
    assert report.metrics == score(tmp_path, gold, hundred).metrics
    assert report.metrics["f1_stance"] < 1.0
    assert any("2 empty label cell(s) in the submission were set to 100" in w for w in report.warnings)


def test_labels_outside_minus_one_to_two_count_wrong_with_a_warning(tmp_path: Path) -> None:
    report = score(tmp_path, table(IDS), table(IDS, vaccines_argument=[0, 1, 2, -1, 0, 7]))
    assert report.metrics["f1_premise"] < 1.0
    assert any("1 submission label(s) are not -1, 0, 1 or 2" in w for w in report.warnings)


def test_a_missing_column_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError) as caught:
        score(tmp_path, table(IDS), table(IDS).drop(columns=["vaccines_stance"]))
    assert caught.value.column == "vaccines_stance" and caught.value.file == "answer.tsv"


def test_a_non_numeric_label_is_refused_with_line_and_column(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError) as caught:
        score(tmp_path, table(IDS), table(IDS, quarantine_stance=[0, 1, "for", -1, 0, 1]))
    assert (caught.value.line, caught.value.column) == (4, "quarantine_stance")
    assert "'for' is not a number" in str(caught.value)


def test_position_alignment_needs_the_same_number_of_rows(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError, match="the submission has 5 rows, the gold 6"):
        score(tmp_path, table(IDS), table(IDS[:5]), by_position=True)


def test_a_gold_file_without_labels_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError) as caught:
        score(tmp_path, table(IDS, masks_stance=[None] * 6), table(IDS))
    assert (caught.value.file, caught.value.line, caught.value.column) == ("gold.tsv", 2, "masks_stance")


def test_the_train_excerpt_reads_csv_quoted_texts_and_scores_its_copy(excerpts: Path) -> None:
    path = excerpts / "ruarg2022" / "train_excerpt.tsv"
    gold = ruarg2022.read_table(path, gold=True)
    quoted = gold.loc[gold["text_id"] == 17096, "text"].item()
    assert quoted.startswith('Т.Е. после "мёртвого сезона"')
    report = ruarg2022.score_files(path, path)
    absent = sum(r[f"gold_{c}"] == 0 for r in report.detail["columns"] for c in (0, 1, 2))
    assert absent > 0 and report.metrics["f1_stance"] < 1.0  # classes missing from 9 rows score F1 0


@pytest.mark.parametrize("name", ["answer.tsv.gz", "answer.zip", "answer.xz"])
def test_a_file_is_read_as_it_is_whatever_its_name_says(tmp_path: Path, name: str) -> None:
    """Before: pandas guessed a compression from the name, and a plain TSV so named failed with BadZipFile or
    OSError (a 500 on the leaderboard)."""
    excerpt = Path(__file__).resolve().parents[2] / "data" / "scoring" / "ruarg2022" / "train_excerpt.tsv"
    path = tmp_path / name
    path.write_bytes(excerpt.read_bytes())
    assert len(ruarg2022.read_table(path, gold=True)) == 9
