"""Dawid-Skene EM against crowd-kit's published results on its toy data (tests/data/dawid_skene/)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from annotator.estimation.dawid_skene import dawid_skene

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "dawid_skene" / "crowdkit_toy.json")
                  .read_text(encoding="utf-8"))


def frame(rows: list[list[str]], order: tuple[str, str, str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(order)).rename(columns={"task": "unit", "worker": "coder", "label": "value"})


@pytest.mark.parametrize("max_iter, tol", DATA["toy"]["runs"])
def test_toy_labels_are_crowd_kits(max_iter: int, tol: float) -> None:
    result = dawid_skene(frame(DATA["toy"]["answers"], ("worker", "task", "label")), tol=tol, max_iter=max_iter)
    assert dict(zip(result.units, result.labels)) == DATA["toy"]["labels"]


def test_simple_labels_find_the_fraudster_out() -> None:
    result = dawid_skene(frame(DATA["simple"]["answers"], ("worker", "task", "label")))
    assert dict(zip(result.units, result.labels)) == DATA["simple"]["labels"]


@pytest.mark.parametrize("iteration", ["0", "1"])
def test_step_by_step_posteriors_priors_and_confusion_are_crowd_kits(iteration: str) -> None:
    expected = DATA["step_by_step"]["iterations"][iteration]
    result = dawid_skene(frame(DATA["step_by_step"]["answers"], ("task", "worker", "label")), tol=0,
                         max_iter=int(iteration))
    assert result.classes == ["no", "yes"]
    posteriors = result.posterior_frame()
    for unit, probas in expected["probas"].items():
        assert posteriors.loc[unit].to_list() == pytest.approx(probas, abs=0.005)
    assert result.priors.tolist() == pytest.approx(expected["priors"], abs=0.005)
    assert dict(zip(result.units, result.labels)) == expected["labels"]
    for worker, given, if_no, if_yes in expected["errors"]:  # crowd-kit: P(given | true) by true column
        matrix = result.confusion_frame(worker)
        assert [matrix.loc["no", given], matrix.loc["yes", given]] == pytest.approx([if_no, if_yes], abs=0.005)


@pytest.mark.parametrize("overlap", DATA["overlap"]["overlaps"])
def test_symmetric_overlap_keeps_the_vote_shares(overlap: int) -> None:
    rows = [[task, worker, "yes" if (worker - task) % 3 else "no"] for worker in range(overlap) for task in range(3)]
    result = dawid_skene(frame(rows, ("task", "worker", "label")), max_iter=20)
    assert result.posteriors.tolist() == [pytest.approx(DATA["overlap"]["probas"], abs=0.005)] * 3
    assert result.priors.tolist() == pytest.approx(DATA["overlap"]["priors"], abs=0.005)
    assert result.labels == [DATA["overlap"]["label"]] * 3


def test_rows_sum_to_one_and_convergence_is_reported() -> None:
    result = dawid_skene(frame(DATA["toy"]["answers"], ("worker", "task", "label")), tol=1e-5, max_iter=1000)
    assert result.converged and result.iterations < 1000
    assert np.allclose(result.posteriors.sum(axis=1), 1)
    assert np.allclose(result.confusion.sum(axis=2), 1)
    assert result.priors.sum() == pytest.approx(1)


def test_max_iter_stops_before_convergence() -> None:
    result = dawid_skene(frame(DATA["toy"]["answers"], ("worker", "task", "label")), tol=0, max_iter=3)
    assert (result.iterations, result.converged) == (3, False)


def test_no_votes_give_an_empty_result() -> None:
    result = dawid_skene(pd.DataFrame(columns=["unit", "coder", "value"]))
    assert (result.units, result.labels, result.classes) == ([], [], [])
