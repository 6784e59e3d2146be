"""`flask export custom` of projects with the two kinds of judgement beyond one choice: the soft-label example
(examples/soft_labels_sentiment.yaml, distributions of 100 and, when sarcastic, of 10 points) and the graded
preference example (examples/graded_pairwise_responses.yaml, seven grades and three), each imported by `flask
import custom` from its items file, k = 2, two annotators whose answers the test knows. The votes keep the shares
as given (a grade in the item's terms), gold gives the mean shares and the hard label, or each pair's side and mean
grade, and the dataset types a distribution as a share per option; the data cards say what the rows mean."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment
from annotator.declared.graded import flipped
from annotator.engine import assignment as engine
from tests.conftest import load_project

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# r1: means positive 60, neutral 10, negative 30 (hard label positive); r2 sarcastic for both, meant by the 10
# points: praise 1 + 2 = 3 -> 1.5, complaint 9 + 8 -> 8.5; r3 all neutral; r4 positive 100 and 90.
SOFT = {
    "ann": {"r1": {"sentiment": {"positive": 70, "neutral": 0, "negative": 30}, "sarcastic": "no"},
            "r2": {"sentiment": {"positive": 80, "neutral": 0, "negative": 20}, "sarcastic": "yes",
                   "meant": {"praise": 1, "complaint": 9}},
            "r3": {"sentiment": {"positive": 0, "neutral": 100, "negative": 0}, "sarcastic": "no"},
            "r4": {"sentiment": {"positive": 100, "neutral": 0, "negative": 0}, "sarcastic": "no"}},
    "bob": {"r1": {"sentiment": {"positive": 50, "neutral": 20, "negative": 30}, "sarcastic": "no"},
            "r2": {"sentiment": {"positive": 10, "neutral": 10, "negative": 80}, "sarcastic": "yes",
                   "meant": {"praise": 2, "complaint": 8}},
            "r3": {"sentiment": {"positive": 0, "neutral": 100, "negative": 0}, "sarcastic": "no"},
            "r4": {"sentiment": {"positive": 90, "neutral": 10, "negative": 0}, "sarcastic": "no"}},
}
# Graded, in the item's terms (the test gives each lease the grade as shown: flipped when the lease swapped A / B).
GRADED = {
    "ann": {"g1": {"preference": "A3", "correctness": "A1"}, "g2": {"preference": "B2", "correctness": "B1"},
            "g3": {"preference": "A1", "correctness": "A1"}, "g4": {"preference": "equal", "correctness": "equal"}},
    "bob": {"g1": {"preference": "A2", "correctness": "A1"}, "g2": {"preference": "B3", "correctness": "equal"},
            "g3": {"preference": "B1", "correctness": "A1"}, "g4": {"preference": "A1", "correctness": "equal"}},
}


def _export(app, make_user, tmp_path, slug, stem, answers, as_shown=False):  # type: ignore[no-untyped-def]
    project = load_project("custom", EXAMPLES / f"{stem}_items.jsonl", slug, definition=EXAMPLES / f"{stem}.yaml",
                           k=2)
    for name, given in answers.items():
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            answer = dict(given[lease.item.external_id])
            if as_shown:   # the lease's drawn sides: the page would have shown b as A
                answer = {q: flipped(v) if q in ((lease.presentation or {}).get("swapped") or ()) else v
                          for q, v in answer.items()}
            engine.submit(lease.id, user, answer)
    out = tmp_path / slug
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", slug, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def soft(app, make_user, tmp_path):  # type: ignore[no-untyped-def]
    return _export(app, make_user, tmp_path, "soft", "soft_labels_sentiment", SOFT)


@pytest.fixture
def graded(app, make_user, tmp_path):  # type: ignore[no-untyped-def]
    return _export(app, make_user, tmp_path, "graded", "graded_pairwise_responses", GRADED, as_shown=True)


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_votes_keep_the_shares_as_given(soft):
    rows = _csv(soft / "votes.csv")
    assert [(r["item"], r["annotator"], json.loads(r["sentiment"])) for r in rows[:2]] == \
        [("r1", "ann", SOFT["ann"]["r1"]["sentiment"]), ("r1", "bob", SOFT["bob"]["r1"]["sentiment"])]
    assert [r["meant"] for r in rows if r["item"] == "r1"] == ["", ""]
    lines = [json.loads(line) for line in (soft / "votes.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines[3]["answer"] == SOFT["bob"]["r2"]


def test_gold_gives_the_mean_shares_and_the_hard_label(soft):
    rows = _csv(soft / "gold.csv")
    sentiment = {(r["item"], r["unit"]): (r["gold"], r["score"], r["votes"]) for r in rows
                 if r["question"] == "sentiment"}
    assert sentiment["r1", "positive"] == ("60", "0.6", "50: 1, 70: 1")
    assert sentiment["r1", "negative"][:2] == ("30", "0.3") and sentiment["r1", "sentiment"][:2] == ("positive", "0.6")
    assert sentiment["r2", "sentiment"][0] == "negative" and sentiment["r3", "sentiment"][0] == "neutral"
    meant = {(r["item"], r["unit"]): r["gold"] for r in rows if r["question"] == "meant"}
    assert (meant["r2", "praise"], meant["r2", "complaint"], meant["r2", "meant"]) == ("1.5", "8.5", "complaint")
    assert {meant["r1", unit] for unit in ("praise", "complaint", "meant")} == {"n/a"}   # not sarcastic: not asked


def test_the_dataset_types_a_distribution_as_a_share_per_option(soft):
    votes = pq.read_table(soft / "dataset" / "votes.parquet")
    assert votes.schema.field("sentiment").type == pa.struct([("positive", pa.int64()), ("neutral", pa.int64()),
                                                              ("negative", pa.int64())])
    assert votes.column("meant").to_pylist()[2:4] == [{"praise": 1, "complaint": 9}, {"praise": 2, "complaint": 8}]
    gold = pq.read_table(soft / "dataset" / "gold.parquet").to_pylist()
    assert [(g["unit"], g["gold"], g["gold_number"]) for g in gold
            if g["item"] == "r4" and g["question"] == "sentiment"] == \
        [("positive", "95", 95.0), ("neutral", "5", 5.0), ("negative", "0", 0.0), ("sentiment", "positive", None)]


def test_the_data_card_describes_the_soft_labels(soft):
    card = (soft / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "answered as a share of 100 for every option (whole numbers adding up to 100)" in card
    assert "mean: each option's mean share of 10 over the annotators (the soft label" in card
    assert "the answer to question sentiment: each option's share of 100 ({option: share}, whole numbers adding up " \
           "to 100)" in card
    assert "for a distribution question each option's mean share" in card


def test_graded_votes_are_exported_in_the_item_s_terms(app, graded):
    rows = _csv(graded / "votes.csv")
    assert [(r["item"], r["annotator"], r["preference"]) for r in rows] == \
        [(item, name, GRADED[name][item]["preference"]) for item in ("g1", "g2", "g3", "g4") for name in GRADED]
    db.session.remove()
    shown = {a.presentation is not None and "preference" in (a.presentation.get("swapped") or ())
             for a in db.session.scalars(select(Assignment))}
    assert shown == {True, False}   # the draw swapped some leases and not others: the flip was exercised


def test_graded_gold_is_the_collapsed_majority_or_the_mean_grade(graded):
    rows = _csv(graded / "gold.csv")
    preference = {r["item"]: (r["gold"], r["votes"]) for r in rows if r["question"] == "preference"}
    assert preference["g1"] == ("A", "A: 2") and preference["g2"] == ("B", "B: 2")
    assert preference["g3"] == ("undecided", "A: 1, B: 1")
    correctness = {r["item"]: (r["gold"], r["score"], r["votes"]) for r in rows if r["question"] == "correctness"}
    assert correctness["g2"] == ("B", "0.5", "equal: 1, B1: 1") and correctness["g4"] == ("equal", "0", "equal: 2")
    assert correctness["g1"] == ("A", "-1", "A1: 2")


def test_the_graded_data_card_lists_the_grades_and_both_fits(graded):
    card = (graded / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "graded, 7 grades: A3 = A is much better, A2 = A is better" in card
    assert "the label rows `preference.grade` hold the signed grade (A strongest -3, B strongest 3)" in card
    assert "mean_grade: each pair's mean signed grade" in card
    assert "| rank | player | strength | graded strength | wins | losses | ties |" in card
