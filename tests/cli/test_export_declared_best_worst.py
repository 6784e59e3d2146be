"""`flask import custom` and `flask export custom` of a best-worst project: the example (examples/
best_worst_sentiment.yaml) imported from its items file of twelve reviews, which the import puts in twelve tuples
of four, k = 2. Two annotators judge by a known order (the lower a review's number, the more positive); one says the
reviews of one tuple cannot be compared. The votes keep the picks as given, gold names each tuple's best and worst
with the review's score, scores.csv / scores.jsonl / dataset/scores.parquet hold one row per review, typed, and the
data card says how the tuples were built and how reliable the scores are."""
from __future__ import annotations

import csv
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy.stats import spearmanr

from annotator.engine import assignment as engine
from tests.conftest import load_project

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _answer(name: str, item: str, payload: dict[str, Any]) -> dict[str, Any]:
    ids = sorted(m["id"] for m in payload["tuple"])
    if name == "bob" and item == "t01":
        return {"comparable": "no"}
    return {"comparable": "yes", "positive": {"best": ids[0], "worst": ids[-1]}}


@pytest.fixture
def exported(app, make_user, tmp_path):  # type: ignore[no-untyped-def]
    project = load_project("custom", EXAMPLES / "best_worst_sentiment_items.jsonl", "bws",
                           definition=EXAMPLES / "best_worst_sentiment.yaml", k=2)
    for name in ("ann", "bob"):
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, _answer(name, lease.item.external_id, lease.item.payload))
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "bws", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    return tmp_path


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_the_import_stores_twelve_balanced_tuples(exported):
    items = pq.read_table(exported / "dataset" / "items.parquet").to_pylist()
    assert [i["id"] for i in items] == [f"t{n:02d}" for n in range(1, 13)]
    appear = Counter(m["id"] for i in items for m in i["tuple"])
    assert appear == {f"r{n:02d}": 4 for n in range(1, 13)}
    assert items[0]["tuple"][0]["text"]


def test_votes_keep_the_picks_as_given(exported):
    rows = _csv(exported / "votes.csv")
    t01 = [r for r in rows if r["item"] == "t01"]
    assert [(r["annotator"], r["comparable"], r["positive"]) for r in t01][1] == ("bob", "no", "")
    assert set(json.loads(t01[0]["positive"])) == {"best", "worst"}
    table = pq.read_table(exported / "dataset" / "votes.parquet")
    assert table.schema.field("positive").type == pa.struct([("best", pa.string()), ("worst", pa.string())])
    assert table.column("positive").to_pylist()[1] is None


def test_gold_names_each_tuple_s_best_and_worst_with_the_review_s_score(exported):
    rows = [r for r in _csv(exported / "gold.csv") if r["question"] == "positive"]
    t02 = {r["unit"]: r for r in rows if r["item"] == "t02"}
    best, worst = min(t02), max(t02)
    assert (t02[best]["gold"], t02[worst]["gold"]) == ("best", "worst")
    assert {r["gold"] for unit, r in t02.items() if unit not in (best, worst)} == {"neither"}
    t01 = {r["unit"]: (r["gold"], r["n"]) for r in rows if r["item"] == "t01"}   # ann's vote alone decides it
    assert (t01[min(t01)], t01[max(t01)]) == (("best", "1"), ("worst", "1"))
    assert float(next(r["score"] for r in rows if r["unit"] == "r01")) == 1.0   # always the most positive


def test_scores_hold_one_row_per_review_highest_first(exported):
    rows = _csv(exported / "scores.csv")
    assert [r["item"] for r in rows][:1] == ["r01"] and [r["item"] for r in rows][-1] == "r12"
    assert (rows[0]["score"], rows[0]["rank"], rows[-1]["score"]) == ("1", "1", "-1")
    assert sorted(r["item"] for r in rows) == [f"r{n:02d}" for n in range(1, 13)]
    assert sum(int(r["appearances"]) for r in rows) == 4 * (12 * 2 - 1)   # 23 votes on tuples of four
    items = pq.read_table(exported / "dataset" / "items.parquet").to_pylist()
    first = next(i for i in items if i["id"] == "t01")
    shown = 8 - any(m["id"] == "r01" for m in first["tuple"])   # bob did not judge t01
    lines = [json.loads(line) for line in (exported / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines[0] == {"question": "positive", "item": "r01", "text": next(
        m["text"] for i in items for m in i["tuple"] if m["id"] == "r01"), "appearances": shown, "best": shown,
        "worst": 0, "score": 1.0, "rank": 1}
    table = pq.read_table(exported / "dataset" / "scores.parquet")
    assert table.schema.field("score").type == pa.float64() and table.schema.field("rank").type == pa.int64()
    assert table.column("item").to_pylist() == [r["item"] for r in rows]


def test_the_data_card_says_how_the_tuples_were_built_and_the_split_half_reliability(exported):
    card = (exported / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "every item is in 4 tuples, built by a balanced design from seed 2026" in card
    assert "positive: split-half reliability of the best-worst scores" in card
    assert "(best - worst) / appearances" in card
    assert "text-ranking" in card


def test_flask_agreement_reports_the_split_half_reliability_computed_from_the_exported_votes(exported, app):
    """Two annotators: every split is ann against bob, so the figure is Spearman's rho of their own scores (scipy,
    from votes.jsonl and the tuples), Spearman-Brown corrected."""
    items = {i["id"]: [m["id"] for m in i["tuple"]]
             for i in pq.read_table(exported / "dataset" / "items.parquet").to_pylist()}
    net: dict[str, dict[str, list[int]]] = {"ann": {}, "bob": {}}
    for line in (exported / "votes.jsonl").read_text(encoding="utf-8").splitlines():
        vote = json.loads(line)
        picks = vote["answer"].get("positive")
        for member in items[vote["item"]] if picks else []:
            value = 1 if member == picks["best"] else -1 if member == picks["worst"] else 0
            net[vote["annotator"]].setdefault(member, []).append(value)
    both = sorted(set(net["ann"]) & set(net["bob"]))
    r = spearmanr([sum(net["ann"][m]) / len(net["ann"][m]) for m in both],
                  [sum(net["bob"][m]) / len(net["bob"][m]) for m in both]).statistic
    result = app.test_cli_runner().invoke(args=["agreement", "--project", "bws", "--json"])
    assert result.exit_code == 0, result.output
    fields = {f["field"]: f for f in json.loads(result.output)["fields"]}
    half = fields["positive"]["split_half"]
    assert (half["r"], half["value"], half["objects"], half["seed"]) == \
        (pytest.approx(r), pytest.approx(2 * r / (1 + r)), 12, 2026)
    assert "split_half" not in fields["comparable"]
    table = app.test_cli_runner().invoke(args=["agreement", "--project", "bws"]).output
    assert f"split-half reliability {2 * r / (1 + r):.3f} (Spearman-Brown corrected; split-half r {r:.3f}" in table
