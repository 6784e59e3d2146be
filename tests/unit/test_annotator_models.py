"""Dawid-Skene seeded with known answers, and the one-coin competence model, against a second implementation.

tests/data/dawid_skene/independent_models.json holds the figures of plain-loop implementations of both models
(make_independent.py beside it, written apart from annotator/analysis) on a synthetic campaign with two spammers
and twelve control items.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pandas as pd
import pytest

from annotator.estimation.dawid_skene import dawid_skene
from annotator.estimation.one_coin import one_coin

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "dawid_skene" / "independent_models.json")
                  .read_text(encoding="utf-8"))
VOTES = pd.DataFrame(DATA["votes"], columns=["unit", "coder", "value"])


def by_unit(units: list[str], posteriors: object) -> dict[str, list[float]]:
    return {unit: list(map(float, row)) for unit, row in zip(units, posteriors)}  # type: ignore[call-overload]


@pytest.mark.parametrize("model, fit", [("dawid_skene", dawid_skene), ("one_coin", one_coin)])
@pytest.mark.parametrize("seeded", [True, False])
def test_posteriors_labels_and_priors_are_the_independent_implementations(model, fit, seeded) -> None:
    expected = DATA[f"{model}_{'seeded' if seeded else 'unseeded'}"]
    result = fit(VOTES, known=DATA["known"] if seeded else None)
    assert result.classes == DATA["classes"]
    assert result.iterations == expected["iterations"]
    posteriors = by_unit(result.units, result.posteriors)
    for unit, probas in expected["posteriors"].items():
        assert posteriors[unit] == pytest.approx(probas, abs=1e-8)
    assert dict(zip(result.units, result.labels)) == expected["labels"]
    assert result.priors.tolist() == pytest.approx(expected["priors"], abs=1e-8)


@pytest.mark.parametrize("fit", [dawid_skene, one_coin])
def test_known_answers_are_fixed_even_against_the_votes(fit) -> None:
    seeded, unseeded = fit(VOTES, known=DATA["known"]), fit(VOTES)
    posteriors = by_unit(seeded.units, seeded.posteriors)
    for unit, answer in DATA["known"].items():
        assert posteriors[unit] == [1.0 if c == answer else 0.0 for c in DATA["classes"]]
    # control item u03 is "neu"; its votes (pos, neu, neg, pos, pos) say "pos" without the known answer
    assert DATA["known"]["u03"] == "neu"
    assert sorted(VOTES[VOTES["unit"] == "u03"]["value"]) == ["neg", "neu", "pos", "pos", "pos"]
    assert (dict(zip(seeded.units, seeded.labels))["u03"], dict(zip(unseeded.units, unseeded.labels))["u03"]) \
        == ("neu", "pos")


def test_a_known_class_nobody_gave_joins_the_classes() -> None:
    votes = pd.DataFrame([("a", "x", "yes"), ("a", "y", "yes"), ("b", "x", "yes")], columns=["unit", "coder", "value"])
    result = dawid_skene(votes, known={"b": "no"})
    assert result.classes == ["no", "yes"]
    assert dict(zip(result.units, result.labels))["b"] == "no"


def test_one_coin_accuracy_and_spammer_scores_are_the_independent_implementations() -> None:
    expected = DATA["one_coin_seeded"]
    result = one_coin(VOTES, known=DATA["known"])
    assert dict(zip(result.coders, result.accuracy.tolist())) == pytest.approx(expected["accuracy"], abs=1e-8)
    assert dict(zip(result.coders, result.spammer_scores.tolist())) == pytest.approx(expected["spammer_score"],
                                                                                     abs=1e-8)


def synthetic(seed: int) -> tuple[pd.DataFrame, set[str]]:
    """400 items, 3 classes, 12 annotators (k = 5 of them per item): 9 honest of accuracy 0.6 to 0.9, and three
    spammers: one at random, one always "pos", one alternating "neg" and "neu" whatever the item."""
    rng = random.Random(seed)
    classes = ["neg", "neu", "pos"]
    honest = {f"h{n}": 0.6 + 0.3 * n / 8 for n in range(9)}
    spammers = {"random", "always_pos", "alternating"}
    rows, turn = [], 0
    for item in range(400):
        true = rng.choice(classes)
        for coder in rng.sample(sorted(honest.keys() | spammers), 5):
            if coder in honest:
                value = true if rng.random() < honest[coder] else rng.choice([c for c in classes if c != true])
            elif coder == "random":
                value = rng.choice(classes)
            elif coder == "always_pos":
                value = "pos"
            else:
                turn += 1
                value = classes[turn % 2]
            rows.append((f"i{item}", coder, value))
    return pd.DataFrame(rows, columns=["unit", "coder", "value"]), spammers


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_spammers_of_a_synthetic_campaign_are_found_and_no_honest_annotator(seed: int) -> None:
    votes, spammers = synthetic(seed)
    assert set(one_coin(votes).spammers) == spammers


def test_no_votes_give_an_empty_result() -> None:
    result = one_coin(pd.DataFrame(columns=["unit", "coder", "value"]))
    assert (result.units, result.labels, result.spammers) == ([], [], [])
