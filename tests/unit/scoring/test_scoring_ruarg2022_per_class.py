"""RuArg-2022 per-class precision, recall and F1 per claim, as the organisers' Tables 5-10 report them.

The test set's gold labels are not public, so each case rebuilds one table row: the gold class counts of
the test set are Table 3's (row "test" of the claim), and the predictions are a confusion matrix whose
per-class figures round to the paper's row (found by search; any matrix that fits would do). The scorer's
figures, rounded to two decimals as the paper prints them, must be that row, irrelevant class included and
the macro average taken over against, other and for only.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from annotator.shared_tasks.ruarg2022.scorer import COLUMNS, score_files

CLASSES = (-1, 0, 1, 2)  # rows and columns of a matrix: irrelevant, against, other / no argument, for

CASES = {
    # Table 5, row camalibi (masks stance); gold per class from Table 3, Masks, test: 731 irrelevant,
    # 123 against, 401 other, 147 for.
    "table 5 camalibi": ("masks_stance", [[728, 0, 3, 0], [0, 81, 42, 0], [3, 18, 331, 49], [0, 21, 36, 90]],
                         [(1.00, 1.00, 1.00), (0.68, 0.66, 0.67), (0.80, 0.83, 0.81), (0.65, 0.61, 0.63),
                          (0.71, 0.70, 0.70)]),
    # Table 6, row camalibi (masks premise); Table 3, Masks, test: 731, 85 against, 523 no argument, 63 for.
    "table 6 camalibi": ("masks_argument", [[728, 0, 3, 0], [0, 62, 23, 0], [3, 10, 490, 20], [0, 7, 3, 53]],
                         [(1.00, 1.00, 1.00), (0.78, 0.73, 0.76), (0.94, 0.94, 0.94), (0.73, 0.84, 0.78),
                          (0.82, 0.84, 0.83)]),
    # Table 9, row sopilnyak (quarantine stance): no right "against" at all, precision 0 counted in the macro
    # average; Table 3, Quarantine, test: 972 irrelevant, 40 against, 274 other, 116 for.
    "table 9 sopilnyak": ("quarantine_stance", [[968, 0, 4, 0], [0, 0, 40, 0], [2, 0, 218, 54], [13, 5, 20, 78]],
                          [(0.98, 1.00, 0.99), (0.00, 0.00, 0.00), (0.77, 0.80, 0.78), (0.59, 0.67, 0.63),
                           (0.45, 0.49, 0.47)]),
}


def files(tmp_path: Path, column: str, matrix: list[list[int]]) -> tuple[Path, Path]:
    """Gold and predictions of len(test set) sentences: `column` as the matrix says, every other label -1."""
    pairs = [(g, p) for i, g in enumerate(CLASSES) for j, p in enumerate(CLASSES) for _ in range(matrix[i][j])]
    ids = list(range(1, len(pairs) + 1))
    paths = []
    for name, side in (("gold.tsv", 0), ("answer.tsv", 1)):
        table = pd.DataFrame({"text_id": ids, "text": [f"sentence {i}" for i in ids],
                              **{c: [pair[side] for pair in pairs] if c == column else -1 for c in COLUMNS}})
        table.to_csv(tmp_path / name, sep="\t", index=False, lineterminator="\n")
        paths.append(tmp_path / name)
    return paths[0], paths[1]


@pytest.mark.parametrize("case", list(CASES))
def test_per_class_precision_recall_and_f1_are_the_papers_table_row(tmp_path: Path, case: str) -> None:
    column, matrix, expected = CASES[case]
    assert sum(map(sum, matrix)) == 1402  # the test set's size (Table 3)
    claim, kind = column.split("_")
    report = score_files(*files(tmp_path, column, matrix))
    rows = [r for r in report.detail["classes"]
            if r["claim"] == claim and r["task"] == ("premise" if kind == "argument" else kind)]
    assert [r["class"] for r in rows][::4] == ["irrelevant", "macro average"]
    assert [tuple(round(r[m] + 1e-12, 2) for m in ("precision", "recall", "f1")) for r in rows] == expected


def test_the_macro_average_f1_is_the_official_per_claim_score(tmp_path: Path) -> None:
    column, matrix, _ = CASES["table 5 camalibi"]
    report = score_files(*files(tmp_path, column, matrix))
    macro = next(r for r in report.detail["classes"] if r["claim"] == "masks" and r["task"] == "stance"
                 and r["class"] == "macro average")
    official = next(r for r in report.detail["columns"] if r["column"] == column)["f1_macro"]
    assert macro["f1"] == pytest.approx(official, abs=1e-15)
    assert (macro["gold"], macro["predicted"]) == (671, 671)


def test_flask_score_prints_the_per_class_table(app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    column, matrix, _ = CASES["table 9 sopilnyak"]
    gold, answer = files(tmp_path, column, matrix)
    result = app.test_cli_runner().invoke(
        args=["score", "ruarg2022", "--gold", str(gold), "--predictions", str(answer)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    header = lines.index("classes:") + 1
    assert lines[header].split() == ["claim", "task", "class", "precision", "recall", "f1", "gold", "predicted"]
    against = next(line.split() for line in lines[header:] if line.split()[:3] == ["quarantine", "stance", "against"])
    assert against[3:] == ["0.000000", "0.000000", "0.000000", "40", "5"]
