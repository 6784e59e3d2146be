"""`flask export custom` of a spans question with attributes (examples/mqm_errors.yaml), k = 2, two annotators whose
marks the test knows: the votes keep each mark's severity, gold has a severity row per span and the MQM score per
item, the dataset types the severity as a field of each mark, and the data card describes both."""
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
CAT = {"start": 4, "end": 7, "label": "accuracy"}       # t1: "The cat is sleeping soundly."
VISIT = {"start": 8, "end": 13, "label": "fluency"}     # t2: "We have visit the museum yesterday."
ANSWERS = {
    "ann": {"t1": [{**CAT, "severity": "major"}], "t2": [{**VISIT, "severity": "minor"}], "t3": [], "t4": []},
    "bob": {"t1": [{**CAT, "severity": "critical"}], "t2": [{**VISIT, "severity": "minor"}], "t3": [], "t4": []},
}


@pytest.fixture
def exported(app, make_user, tmp_path):  # type: ignore[no-untyped-def]
    project = load_project("custom", EXAMPLES / "mqm_errors_items.jsonl", "mqm",
                           definition=EXAMPLES / "mqm_errors.yaml", k=2)
    for name, answers in ANSWERS.items():
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, {"errors": answers[lease.item.external_id]})
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "mqm", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    return tmp_path


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_votes_keep_each_mark_s_severity(exported):
    rows = {(r["item"], r["annotator"]): json.loads(r["errors"]) for r in _csv(exported / "votes.csv")}
    assert sorted(m["severity"] for (item, _), marks in rows.items() if item == "t1" for m in marks) == \
        ["critical", "major"]


def test_gold_has_a_severity_per_span_and_the_score_per_item(exported):
    gold = {(r["item"], r["question"], r["unit"]): (r["gold"], r["votes"]) for r in _csv(exported / "gold.csv")}
    assert gold["t1", "errors", "4:7:accuracy"][0] == "1"
    assert gold["t1", "errors.severity", "4:7:accuracy"] == ("undecided", "major: 1, critical: 1")
    assert gold["t2", "errors.severity", "8:13:fluency"] == ("minor", "minor: 2")
    assert gold["t1", "errors.mqm", "errors"] == ("15", "5: 1, 25: 1")   # (5 + 25) / 2
    assert gold["t3", "errors.mqm", "errors"] == ("0", "0: 2")


def test_the_dataset_types_the_severity_as_a_field_of_each_mark(exported):
    votes = pq.read_table(exported / "dataset" / "votes.parquet")
    assert votes.schema.field("errors").type == pa.list_(pa.struct([
        pa.field("start", pa.int64()), pa.field("end", pa.int64()), pa.field("label", pa.string()),
        pa.field("severity", pa.string())]))
    assert {m["severity"] for marks in votes.column("errors").to_pylist() for m in marks} == \
        {"major", "critical", "minor"}


def test_the_data_card_describes_the_attributes_and_the_score(exported):
    card = (exported / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "each mark's severity: minor, major, critical; gold per span by majority of those who marked exactly " \
           "it, a tie undecided" in card
    assert "score (mqm): per vote, the sum of its marks' weights of severity (minor 1, major 5, critical 25); per " \
           "item, the mean over its annotators" in card
    assert "`<id>.<attribute>` for the attribute of each span marked" in card
    assert "; each mark's severity: one of minor, major, critical" in card
