"""RuArg-2022: the reference numbers of formats-and-scorers.md §3.4 (CodaLab program), inputs rebuilt with its
recipe. Gold and submission rows are in the same order except for the shuffled copy, whose official number
comes from the program's alignment by position (``by_position=True``)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from annotator.shared_tasks.ruarg2022 import scorer as ruarg2022

TOLERANCE = 1e-12
REFERENCE = {  # f1_stance, f1_premise
    "gold": (1.0, 1.0),
    "random": (0.14993437251391048, 0.1336010108771314),
    "relevance": (0.3091355967040041, 0.2595825979173855),
    "missing": (0.9468223692518158, 0.9317566035218455),
}
SHUFFLED_BY_POSITION = (0.12013588083511563, 0.11070565796665266)


@pytest.fixture(scope="module")
def files(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("ruarg")
    train = pd.read_csv(shared_data / "ruarg2022" / "data" / "train.tsv", sep="\t")
    cols = list(train.columns[2:])
    gold = train.sample(1500, random_state=7).sort_index()
    rng = np.random.default_rng(0)
    random_sub = gold.copy()
    for c in cols:
        random_sub[c] = rng.integers(-1, 3, size=len(gold))
    relevance_sub = gold.copy()
    for c in cols:
        relevance_sub[c] = np.where(gold[c] == -1, -1, rng.integers(0, 3, size=len(gold)))
    shuffled_sub = gold.sample(frac=1, random_state=1)
    missing_sub = gold.copy()
    missing_sub.loc[missing_sub.index[:150], cols] = np.nan
    made = {"gold": gold, "random": random_sub, "relevance": relevance_sub, "shuffled": shuffled_sub,
            "missing": missing_sub}
    paths = {}
    for name, df in made.items():
        paths[name] = out / f"{name}.tsv"
        df.to_csv(paths[name], sep="\t", index=False, lineterminator="\n")
    return paths


@pytest.mark.parametrize("name", list(REFERENCE))
def test_submissions_in_gold_order_reproduce_the_codalab_numbers(files: dict[str, Path], name: str) -> None:
    metrics = ruarg2022.score_files(files["gold"], files[name]).metrics
    assert (metrics["f1_stance"], metrics["f1_premise"]) == pytest.approx(REFERENCE[name], abs=TOLERANCE)


def test_the_shuffled_gold_scores_one_by_text_id(files: dict[str, Path]) -> None:
    assert ruarg2022.score_files(files["gold"], files["shuffled"]).metrics == {"f1_stance": 1.0, "f1_premise": 1.0}


def test_the_shuffled_gold_aligned_by_position_reproduces_the_codalab_number(files: dict[str, Path]) -> None:
    metrics = ruarg2022.score_files(files["gold"], files["shuffled"], by_position=True).metrics
    assert (metrics["f1_stance"], metrics["f1_premise"]) == pytest.approx(SHUFFLED_BY_POSITION, abs=TOLERANCE)


def test_the_missing_submission_reports_its_900_empty_cells(files: dict[str, Path]) -> None:
    report = ruarg2022.score_files(files["gold"], files["missing"])
    assert report.detail["empty_cells"] == 900


def test_the_last_1000_train_rows_copied_score_premise_8_9ths(shared_data: Path, tmp_path: Path) -> None:
    """§3.3: quarantine_argument has no class 0 there, so the perfect copy loses a third of that claim."""
    train = pd.read_csv(shared_data / "ruarg2022" / "data" / "train.tsv", sep="\t")
    path = tmp_path / "last.tsv"
    train.tail(1000).to_csv(path, sep="\t", index=False, lineterminator="\n")
    metrics = ruarg2022.score_files(path, path).metrics
    assert (metrics["f1_stance"], metrics["f1_premise"]) == (1.0, 0.8888888888888888)
