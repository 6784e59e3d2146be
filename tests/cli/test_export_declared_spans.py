"""`flask export custom` of a project with a spans question: the named-entity example (examples/ner_spans.yaml),
imported by `flask import custom` from its items file, k = 2, two annotators whose marks the test knows. The votes
keep the spans as the API took them, gold says which spans both annotators made (the example's agree rule, m = 2)
and each word's gold label, and the dataset types the answers as lists of {start, end, label}."""
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
from tests.support.declared_projects import read_jsonl

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ITEMS = EXAMPLES / "ner_spans_items.jsonl"
TEXTS = {row["id"]: row["sentence"] for row in read_jsonl(ITEMS)}


def at(item: str, stretch: str, label: str) -> dict:
    start = TEXTS[item].index(stretch)
    return {"start": start, "end": start + len(stretch), "label": label}


ANSWERS = {
    "ann": {"s1": [at("s1", "Ada Lovelace", "PER"), at("s1", "London", "LOC")],
            "s2": [at("s2", "University of Porto", "ORG"), at("s2", "Douro", "LOC")],
            "s3": [at("s3", "Okafor", "PER"), at("s3", "Lagos", "LOC"), at("s3", "Geneva", "LOC"),
                   at("s3", "World Health Organization", "ORG")],
            "s4": [], "s6": [],
            "s5": [at("s5", "Marta Silva", "PER"), at("s5", "Nordwind Energy", "ORG"),
                   at("s5", "Tour de France", "MISC"), at("s5", "Paris", "LOC")]},
    "bob": {"s1": [at("s1", "Ada Lovelace", "PER"), at("s1", "Analytical Engine", "MISC"), at("s1", "London", "LOC")],
            "s2": [at("s2", "University of Porto", "ORG")],
            "s3": [at("s3", "Okafor", "PER"), at("s3", "Lagos", "LOC"), at("s3", "Geneva", "LOC"),
                   at("s3", "World Health Organization", "ORG")],
            "s4": [], "s6": [],
            "s5": [at("s5", "Marta Silva", "PER"), at("s5", "Nordwind Energy", "ORG"), at("s5", "Paris", "LOC")]},
}


@pytest.fixture
def exported(app, make_user, tmp_path):  # type: ignore[no-untyped-def]
    project = load_project("custom", ITEMS, "ner", definition=EXAMPLES / "ner_spans.yaml", k=2)
    for name, answers in ANSWERS.items():
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, {"entities": answers[lease.item.external_id]})
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "ner", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    return tmp_path


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_votes_keep_the_spans_as_answered(exported):
    rows = _csv(exported / "votes.csv")
    assert [(r["item"], r["annotator"]) for r in rows[:2]] == [("s1", "ann"), ("s1", "bob")]
    assert [json.loads(r["entities"]) for r in rows if r["item"] == "s2"] == [ANSWERS["ann"]["s2"],
                                                                              ANSWERS["bob"]["s2"]]
    assert json.loads(rows[6]["entities"]) == [] and rows[6]["item"] == "s4"
    lines = [json.loads(line) for line in (exported / "votes.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines[1]["answer"] == {"entities": ANSWERS["bob"]["s1"]}


def test_gold_has_the_spans_both_annotators_made_and_every_word_s_label(exported):
    rows = _csv(exported / "gold.csv")
    s1 = {r["unit"]: (r["gold"], r["n"], r["votes"]) for r in rows if r["item"] == "s1"}
    assert s1["0:12:PER"] == ("1", "2", "1: 2, 0: 0")
    assert s1["36:53:MISC"] == ("0", "2", "1: 1, 0: 1")            # only bob marked "Analytical Engine"
    assert (s1["0:3"][0], s1["36:46"][0], s1["57:63"][0]) == ("PER", "O", "LOC")
    assert s1["36:46"][2] == "O: 1, MISC: 1"
    gold_spans = [(r["item"], r["unit"]) for r in rows if r["unit"].count(":") == 2 and r["gold"] == "1"]
    assert gold_spans == [("s1", "0:12:PER"), ("s1", "57:63:LOC"), ("s2", "4:23:ORG"), ("s3", "3:9:PER"),
                          ("s3", "20:25:LOC"), ("s3", "29:35:LOC"), ("s3", "57:82:ORG"), ("s5", "0:11:PER"),
                          ("s5", "19:34:ORG"), ("s5", "69:74:LOC")]
    assert {r["gold"] for r in rows if r["item"] == "s4"} == {"O"}


def test_the_dataset_types_answers_as_lists_of_spans(exported):
    votes = pq.read_table(exported / "dataset" / "votes.parquet")
    assert votes.schema.field("entities").type == pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                                                                      ("label", pa.string())]))
    assert votes.column("entities").to_pylist()[:2] == [ANSWERS["ann"]["s1"], ANSWERS["bob"]["s1"]]
    gold = pq.read_table(exported / "dataset" / "gold.parquet").to_pylist()
    assert {(g["unit"], g["gold"]) for g in gold if g["item"] == "s2" and g["unit"].count(":") == 2} == \
        {("4:23:ORG", "1"), ("57:62:LOC", "0")}
    assert all(g["gold_number"] is None for g in gold)             # labels and span decisions are not numbers


def test_the_data_card_describes_the_spans_question(exported):
    card = (exported / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "- token-classification" in card
    assert "stretches of `sentence`, labels: PER (Person), ORG (Organisation), LOC (Place), MISC (Other name); " \
           "at most 20; whole words; never overlapping" in card
    assert "agree: a span is gold when at least 2 annotators marked exactly it" in card
    assert "| `entities` | `list<struct<start: int64, end: int64, label: string>>` |" in card
    assert "| entities |" in card                                    # its agreement row
