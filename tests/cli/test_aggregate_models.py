"""`flask aggregate --method one-coin|dawid-skene --seed-controls` on a declared campaign with control items.

The campaign is the one of tests/data/dawid_skene/independent_models.json (60 items, 7 annotators, 12 control
items with known answers); the expected posteriors and spammer scores are those of the plain-loop implementations
there (make_independent.py), which fit the control items' votes with their answers fixed."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import select

from annotator.campaigns.votes_import import import_votes
from annotator.core.extensions import db
from annotator.core.models import Project

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "dawid_skene" / "independent_models.json")
                  .read_text(encoding="utf-8"))
CODERS = sorted({coder for _, coder, _ in DATA["votes"]})   # vote column n + 1 is CODERS[n]
DEFINITION = """\
name: Sentiment with control items
k: 5
show:
  - {field: text, label: Text}
questions:
  - {id: sentiment, kind: choice, prompt: "Sentiment?", options: [neg, neu, pos], gold: majority}
"""


@pytest.fixture
def campaign(app: Flask, tmp_path: Path) -> str:
    units = sorted(DATA["truth"])
    items = [{"id": u, "text": f"text {u}", **({"known.sentiment": DATA["known"][u]} if u in DATA["known"] else {})}
             for u in units]
    (tmp_path / "task.yaml").write_text(DEFINITION, encoding="utf-8")
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    result = app.test_cli_runner().invoke(args=["import", "custom", str(tmp_path / "items.jsonl"), "--definition",
                                                str(tmp_path / "task.yaml"), "--project", "models"])
    assert result.exit_code == 0, result.output
    answers: dict[str, list[dict[str, str] | None]] = {u: [None] * len(CODERS) for u in units}
    for unit, coder, value in DATA["votes"]:
        answers[unit][CODERS.index(coder)] = {"sentiment": value}
    with app.app_context():
        import_votes(db.session.scalar(select(Project).where(Project.slug == "models")), answers)
        db.session.commit()
    return "models"


def aggregate(app: Flask, *args: str) -> dict:  # type: ignore[type-arg]
    result = app.test_cli_runner().invoke(args=["aggregate", "--project", "models", *args, "--json"])
    assert result.exit_code == 0, result.output
    [field] = json.loads(result.output)["fields"]
    return field  # type: ignore[no-any-return]


@pytest.mark.parametrize("method, expected", [("one-coin", "one_coin_seeded"), ("dawid-skene", "dawid_skene_seeded")])
def test_seeded_posteriors_of_the_counted_items_are_the_independent_implementations(
        app: Flask, campaign: str, method: str, expected: str) -> None:
    field = aggregate(app, "--method", method, "--seed-controls")
    assert field["seeded_control_units"] == 12
    posteriors = {u["unit"].split(" / ")[0]: [u["posterior"][c] for c in DATA["classes"]] for u in field["units"]}
    assert sorted(posteriors) == sorted(set(DATA["truth"]) - set(DATA["known"]))   # control items are not listed
    for unit, probas in posteriors.items():
        assert probas == pytest.approx(DATA[expected]["posteriors"][unit], abs=2e-6)   # the output's 6 decimals


def test_one_coin_names_the_annotators_below_the_spammer_score(app: Flask, campaign: str) -> None:
    field = aggregate(app, "--method", "one-coin", "--seed-controls")
    scores = DATA["one_coin_seeded"]["spammer_score"]
    low = [f"models-annotator-{CODERS.index(c) + 1}" for c in sorted(scores, key=scores.get) if scores[c] < 0.3]
    assert low == ["models-annotator-1"] and CODERS[0] == "always_pos"
    assert field["spammers"] == low


def test_without_seeding_the_control_items_stay_out(app: Flask, campaign: str) -> None:
    field = aggregate(app, "--method", "dawid-skene")
    assert "seeded_control_units" not in field and len(field["units"]) == 48


def test_the_posteriors_are_written_as_columns(app: Flask, campaign: str, tmp_path: Path) -> None:
    out = tmp_path / "posteriors.csv"
    result = app.test_cli_runner().invoke(args=["aggregate", "--project", "models", "--method", "one-coin",
                                                "--seed-controls", "--csv", str(out)])
    assert result.exit_code == 0, result.output
    with out.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["field", "unit", "gold", "label", "posterior", "differs", "p(neg)", "p(neu)", "p(pos)"]
    assert len(rows) == 48
    expected = DATA["one_coin_seeded"]
    for row in rows:
        unit = row["unit"].split(" / ")[0]
        assert [float(row[f"p({c})"]) for c in DATA["classes"]] == pytest.approx(expected["posteriors"][unit],
                                                                                 abs=2e-6)
        assert row["label"] == expected["labels"][unit]
