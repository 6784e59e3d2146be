"""SemEval-2020 Task 10: the dev reference numbers of formats-and-scorers.md §2.4, inputs rebuilt with its recipe."""
from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from annotator.core.errors import SubmissionError
from annotator.shared_tasks.emphasis2020 import scorer as emphasis2020

TOLERANCE = 1e-12
REFERENCE = {  # Match_1..4, score: the official evaluate.py's output
    "gold_copy": (1.0, 1.0, 1.0, 1.0, 1.0),
    "random": (0.1836734693877551, 0.28514588859416445, 0.35700757575757547, 0.4446969696969697,
               0.31763097585911615),
    "rescaled": (0.9923469387755102, 0.9124668435013262, 0.7935606060606056, 0.6878787878787879,
                 0.8465632940540575),
    "half": (0.07397959183673469, 0.3395225464190981, 0.3977272727272725, 0.4893939393939394, 0.32515583759426114),
}


def _sentences(path: Path) -> list[list[list[str]]]:
    out, cur = [], []
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line:
            cur.append(line.split("\t"))
        elif cur:
            out.append(cur)
            cur = []
    return out + ([cur] if cur else [])


def _write(path: Path, sents: list[list[list[str]]], value: Callable[[list[str]], str]) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n")
        for s in sents:
            for t in s:
                f.write(f"{t[0]}\t{t[1]}\t{value(t)}\t\n")
            f.write("\n")
    return path


@pytest.fixture(scope="module")
def dev_gold(shared_data: Path) -> Path:
    return shared_data / "emphasis2020" / "train_dev_data" / "dev.txt"


@pytest.fixture(scope="module")
def submissions(dev_gold: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("emphasis")
    dev = _sentences(dev_gold)
    made = {"gold_copy": _write(out / "gold_copy.txt", dev, lambda t: t[4])}
    random.seed(0)
    made["random"] = _write(out / "random.txt", dev, lambda t: repr(random.random()))
    made["rescaled"] = _write(out / "rescaled.txt", dev, lambda t: str(round(10 * float(t[4]) - 5, 3)))
    made["tenfold"] = _write(out / "tenfold.txt", dev, lambda t: str(round(10 * float(t[4]), 3)))  # 0.0 .. 10.0
    made["half"] = _write(out / "half.txt", dev, lambda t: "0.5")
    return made


def _figures(metrics: dict[str, float]) -> tuple[float, ...]:
    return tuple(metrics[k] for k in ("match_1", "match_2", "match_3", "match_4", "score"))


@pytest.mark.parametrize("name", [n for n in REFERENCE if n != "rescaled"])
def test_dev_submissions_reproduce_the_official_numbers(dev_gold: Path, submissions: dict[str, Path],
                                                        name: str) -> None:
    metrics = emphasis2020.score_files(dev_gold, submissions[name]).metrics
    assert _figures(metrics) == pytest.approx(REFERENCE[name], abs=TOLERANCE)


def test_the_rescaled_file_with_negative_scores_is_refused_at_its_first_negative_line(
        dev_gold: Path, submissions: dict[str, Path]) -> None:
    """Task paper, section 5 (Evaluation): participants give "a real value (greater and equal to zero)" per token.
    10·p − 5 gives Q_0_0 (dev line 2) -0.556; the official program would score the file 0.8466."""
    with pytest.raises(SubmissionError) as caught:
        emphasis2020.score_files(dev_gold, submissions["rescaled"])
    assert (caught.value.file, caught.value.line, caught.value.column) == ("rescaled.txt", 2, "score")
    assert "'-0.556' is negative" in str(caught.value)


def test_the_string_comparison_itself_still_gives_the_official_figures_on_the_rescaled_values(
        dev_gold: Path, submissions: dict[str, Path]) -> None:
    """The refusal is the reader's: the comparison, given the values, equals the official program."""
    gold = emphasis2020.read_sentences(dev_gold, gold=True)
    values = [line.split("\t")[2] for line in submissions["rescaled"].read_text().splitlines() if line]
    rescaled, start = [], 0
    for g in gold:
        rescaled.append(emphasis2020.Sentence(g.line, g.ids, values[start:start + len(g.values)]))
        start += len(g.values)
    assert _figures(emphasis2020.score(gold, rescaled).metrics) == pytest.approx(REFERENCE["rescaled"], abs=TOLERANCE)


def test_dev_counts_392_377_352_330_sentences_for_m_1_to_4(dev_gold: Path, submissions: dict[str, Path]) -> None:
    report = emphasis2020.score_files(dev_gold, submissions["random"])
    assert list(report.detail["counted_sentences"].values()) == [392, 377, 352, 330]


def test_numeric_comparison_agrees_on_random_and_gives_one_on_a_rescaled_gold(
        dev_gold: Path, submissions: dict[str, Path]) -> None:
    random_numeric = emphasis2020.score_files(dev_gold, submissions["random"], numeric=True)
    tenfold_numeric = emphasis2020.score_files(dev_gold, submissions["tenfold"], numeric=True)
    assert random_numeric.metrics["score"] == pytest.approx(REFERENCE["random"][4], abs=TOLERANCE)
    assert tenfold_numeric.metrics["score"] == 1.0


def test_ten_times_the_gold_ranks_10_0_below_2_222_as_text_and_the_numeric_figures_come_beside(
        dev_gold: Path, submissions: dict[str, Path]) -> None:
    report = emphasis2020.score_files(dev_gold, submissions["tenfold"])
    assert report.metrics["score"] < 1.0 and report.metrics["match_1"] < 1.0
    assert report.beside == {"numeric comparison": {k: 1.0 for k in report.metrics}}
    assert any("rank differently as text than as numbers" in w for w in report.warnings)


def test_the_copied_gold_has_nothing_beside_its_official_figures(dev_gold: Path,
                                                                 submissions: dict[str, Path]) -> None:
    assert emphasis2020.score_files(dev_gold, submissions["gold_copy"]).beside == {}
