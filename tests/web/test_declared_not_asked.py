"""A declared project whose agreement counts "not asked" as a value, with a figure per element
(examples/review_aspects.yaml: per aspect of a review, is it mentioned, then the sentiment when it is): what
`flask agreement` reports, what the export's gold and data card hold, and that the not-asked value is never an
answer the API takes. Each test reads what the app stored back in a fresh session.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from sqlalchemy import select

from annotator.analysis.agreement import field_agreement
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Project
from annotator.engine import assignment as engine
from tests.support.declared_projects import make_declared_project, read_jsonl

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ASPECTS = ("price", "delivery", "quality")
# Per review, each annotator's sentiment per aspect (None: the aspect is not mentioned).
SAID: dict[str, list[tuple[str | None, ...]]] = {
    "r1": [("positive", "positive", "negative"), ("positive", None, "negative"), ("positive", "positive", "mixed")],
    "r2": [(None, None, "positive"), (None, None, "positive"), ("positive", None, "positive")],
    "r3": [(None, "negative", "positive"), (None, "negative", "positive"), (None, "negative", None)],
    "r4": [("negative", None, None), ("negative", None, None), ("negative", None, None)],
}


def _answer(review: str, annotator: int) -> dict[str, Any]:
    said = SAID[review][annotator]
    return {"aspects": {aspect: {"mentioned": "yes", "sentiment": given} if given else {"mentioned": "no"}
                        for aspect, given in zip(ASPECTS, said)}}


def _project() -> Project:
    return make_declared_project("reviews", EXAMPLES / "review_aspects.yaml",
                                 items=read_jsonl(EXAMPLES / "review_aspects_items.jsonl"))


@pytest.fixture
def reviews(app, make_user):  # type: ignore[no-untyped-def]
    project = _project()
    for n in range(3):
        user = make_user(f"ann{n}")
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, _answer(lease.item.external_id, n))
    db.session.remove()
    return project


def _agreement(app) -> dict[str, dict[str, Any]]:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["agreement", "--project", "reviews", "--json"])
    assert result.exit_code == 0, result.output
    return {f["field"]: f for f in json.loads(result.output)["fields"]}


def test_flask_agreement_counts_every_review_and_aspect_as_a_unit_of_the_sentiment(app, reviews):
    fields = _agreement(app)
    assert list(fields) == ["mentioned", "sentiment", "sentiment / price", "sentiment / delivery",
                            "sentiment / quality"]
    assert fields["sentiment"]["units"] == fields["mentioned"]["units"] == 4 * 3
    assert [fields[f"sentiment / {aspect}"]["units"] for aspect in ASPECTS] == [4, 4, 4]


def test_each_aspects_figure_counts_not_mentioned_as_a_value_of_the_sentiment(app, reviews):
    """Price: r1 positive x3, r2 not mentioned x2 and positive, r3 not mentioned x3, r4 negative x3."""
    price = _agreement(app)["sentiment / price"]
    said = [("r1", "positive")] * 3 + [("r2", "not_mentioned")] * 2 + [("r2", "positive")] + \
        [("r3", "not_mentioned")] * 3 + [("r4", "negative")] * 3
    hand = field_agreement("hand", pd.DataFrame({"unit": [u for u, _ in said], "coder": [0, 1, 2] * 4,
                                                 "value": [v for _, v in said]}))
    assert price["krippendorff_alpha"]["value"] == pytest.approx(hand.krippendorff_alpha.value)
    assert price["fleiss_kappa"]["value"] == pytest.approx(hand.fleiss_kappa.value)
    assert hand.krippendorff_alpha.value is not None and hand.krippendorff_alpha.value > 0.7


def test_the_exported_gold_is_n_a_where_an_aspect_is_not_mentioned(app, reviews, tmp_path):
    out = tmp_path / "out"
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "reviews", "--out", str(out)])
    assert result.exit_code == 0, result.output
    gold = {(g["item"], g["question"], g["unit"]): g["gold"]
            for g in csv.DictReader(io.StringIO((out / "gold.csv").read_text(encoding="utf-8")))}
    assert gold[("r2", "sentiment", "price")] == "n/a" and gold[("r3", "sentiment", "price")] == "n/a"
    assert gold[("r1", "sentiment", "price")] == "positive" and gold[("r4", "mentioned", "delivery")] == "no"
    assert "not_mentioned" not in set(gold.values())   # gold is not agreement's


def test_the_data_card_says_how_the_sentiment_agreement_counts_and_lists_each_aspects_figure(app, reviews,
                                                                                               tmp_path):
    out = tmp_path / "out"
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "reviews", "--out", str(out)])
    assert result.exit_code == 0, result.output
    card = (out / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "agreement: an annotator not asked it (its `when` not met) counts as answering 'not_mentioned'" in card
    assert "| sentiment / delivery | 4 |" in card


def test_the_not_asked_value_is_not_an_answer_the_api_takes(app, api_client):
    _project()
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/reviews/next").get_json()["assignment"]
    answer = _answer(assignment["item"]["id"], 0)
    answer["aspects"]["delivery"] = {"mentioned": "yes", "sentiment": "not_mentioned"}
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": answer})
    assert response.status_code == 422
    assert response.get_json()["error"] == ("aspects: delivery: sentiment: 'not_mentioned' is not one of 'positive', "
                                            "'negative', 'mixed'")
    db.session.remove()
    mine = db.session.scalars(select(Assignment).where(Assignment.id == int(assignment["id"]))).one()
    assert mine.status != SUBMITTED and mine.answer is None
