"""`flask export custom` of a project with an extractive question: the example (examples/extractive_qa.yaml), imported
by `flask import custom` from its items file, k = 2, two annotators whose answers the test knows. The votes keep each
answer with its text, gold is the answer both gave (undecided on a tie, n/a where the question made no sense), the
dataset types the answer as a struct, the data card says how gold and the answers' match are derived, and `flask
agreement` reports exact match and token F1 between the annotators."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from annotator.engine import assignment as engine
from tests.conftest import load_project

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ENGINE = {"start": 48, "end": 65}          # q1: "Analytical Engine"
YEAR, IN_YEAR = {"start": 84, "end": 88}, {"start": 81, "end": 88}   # q2: "1990", "in 1990"
BABBAGE = {"start": 106, "end": 121}       # q5 (the control item): "Charles Babbage"
NONE = {"unanswerable": True}
ANSWERS = {
    "ann": {"q1": {"sensible": "yes", "answer_span": ENGINE}, "q2": {"sensible": "yes", "answer_span": YEAR},
            "q3": {"sensible": "yes", "answer_span": NONE}, "q4": {"sensible": "no"},
            "q5": {"sensible": "yes", "answer_span": BABBAGE}},
    "bob": {"q1": {"sensible": "yes", "answer_span": ENGINE}, "q2": {"sensible": "yes", "answer_span": IN_YEAR},
            "q3": {"sensible": "yes", "answer_span": NONE}, "q4": {"sensible": "no"},
            "q5": {"sensible": "yes", "answer_span": BABBAGE}},
}


@pytest.fixture
def exported(app, make_user, tmp_path):  # type: ignore[no-untyped-def]
    project = load_project("custom", EXAMPLES / "extractive_qa_items.jsonl", "qa",
                           definition=EXAMPLES / "extractive_qa.yaml", k=2)
    for name, answers in ANSWERS.items():
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, answers[lease.item.external_id])
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "qa", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    return tmp_path


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_votes_keep_each_answer_with_its_text(exported):
    rows = {(r["item"], r["annotator"]): r for r in _csv(exported / "votes.csv")}
    assert json.loads(rows["q2", "bob"]["answer_span"]) == {"start": 81, "end": 88, "text": "in 1990"}
    assert json.loads(rows["q3", "ann"]["answer_span"]) == {"unanswerable": True}
    assert rows["q4", "ann"]["answer_span"] == ""
    lines = [json.loads(line) for line in (exported / "votes.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [line["answer"]["answer_span"] for line in lines if line["item"] == "q1"] == \
        [{"start": 48, "end": 65, "text": "Analytical Engine"}] * 2


def test_gold_is_the_answer_both_gave_undecided_on_a_tie_and_not_asked_where_it_made_no_sense(exported):
    gold = {r["item"]: (r["unit"], r["gold"], r["n"], r["score"], r["votes"]) for r in _csv(exported / "gold.csv")
            if r["question"] == "answer_span"}
    assert gold == {"q1": ("answer_span", "48:65", "2", "1", "48:65: 2"),
                    "q2": ("answer_span", "undecided", "2", "0.5", "81:88: 1, 84:88: 1"),
                    "q3": ("answer_span", "unanswerable", "2", "1", "unanswerable: 2"),
                    "q4": ("answer_span", "n/a", "0", "", "")}   # the control item q5 is not in gold


def test_the_dataset_types_the_answer_as_a_struct(exported):
    votes = pq.read_table(exported / "dataset" / "votes.parquet")
    assert votes.schema.field("answer_span").type == pa.struct([
        pa.field("start", pa.int64()), pa.field("end", pa.int64()), pa.field("text", pa.string()),
        pa.field("unanswerable", pa.bool_())])
    typed = {(row["item"], row["annotator"]): row["answer_span"] for row in votes.to_pylist()}
    annotator = next(name for (item, name) in typed if item == "q2" and typed[item, name]["start"] == 84)
    assert typed["q2", annotator] == {"start": 84, "end": 88, "text": "1990", "unanswerable": False}
    assert typed["q3", annotator] == {"start": None, "end": None, "text": None, "unanswerable": True}
    assert typed["q4", annotator] is None
    gold = pq.read_table(exported / "dataset" / "gold.parquet").to_pylist()
    assert [(g["gold"], g["gold_number"]) for g in gold if g["item"] == "q1" and g["question"] == "answer_span"] == \
        [("48:65", None)]


def test_the_data_card_describes_the_question_its_gold_and_the_answers_match(exported):
    card = (exported / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "- question-answering" in card
    assert "one stretch of `passage` (whole words), or unanswerable (“The passage does not answer the question”)" \
        in card
    assert "majority: the answer most annotators gave, compared exactly (the same offsets; unanswerable is one " \
           "answer among the stretches); a tie gives undecided" in card
    assert "for an extractive question (unit: its id) the answer most annotators gave, <start>:<end>" in card
    assert "the passage whose stretch answers question answer_span (offsets count its characters)" in card
    assert "- answer_span: SQuAD's exact match 0.667, token F1 0.889 (pairs of annotators, mean over 3 items, " \
           "3 pairs)" in card


def test_flask_agreement_reports_exact_match_and_token_f1(exported, app):
    """Pairs per item: q1 the same stretch (1, 1); q2 "1990" and "in 1990" (EM 0; F1: 1 shared token, P 1/2, R 1,
    F1 2/3); q3 both unanswerable (1, 1). Means: EM 2/3, F1 (1 + 2/3 + 1) / 3 = 8/9."""
    result = app.test_cli_runner().invoke(args=["agreement", "--project", "qa", "--json"])
    assert result.exit_code == 0, result.output
    fields = {f["field"]: f for f in json.loads(result.output)["fields"]}
    match = fields["answer_span"]["answer_match"]
    assert (match["exact_match"], match["f1"], match["items"], match["pairs"]) == \
        (pytest.approx(2 / 3), pytest.approx(8 / 9), 3, 3)
    assert "answer_match" not in fields["sensible"]
    table = app.test_cli_runner().invoke(args=["agreement", "--project", "qa"]).output
    assert "Answers' match       exact match 0.667, token F1 0.889" in table
