"""`flask export custom` of a project with a relations question: the example (examples/ner_relations.yaml), imported by
`flask import custom` from its items file, k = 2, two annotators whose answers the test knows. The votes keep each
relation as {from, to, label} (CSV and JSONL), the dataset types the answer as a list of structs, gold holds one row per
relation given, the data card says what the question asks and how its gold and relation F1 are derived, and `flask
agreement` reports relation F1 between the annotators."""
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
SENTENCES = {item["id"]: item["sentence"] for item in read_jsonl(EXAMPLES / "ner_relations_items.jsonl")}


def unit(item: str, words: str, label: str) -> str:
    start = SENTENCES[item].index(words)
    return f"{start}:{start + len(words)}:{label}"


def marks(item: str, *names: tuple[str, str]) -> list[dict]:
    found = []
    for words, label in names:
        start = SENTENCES[item].index(words)
        found.append({"start": start, "end": start + len(words), "label": label})
    return found


def link(item: str, source: tuple[str, str], target: tuple[str, str], label: str) -> dict:
    return {"from": unit(item, *source), "to": unit(item, *target), "label": label}


ADA, ENGINES, LONDON = ("Ada Lovelace", "PER"), ("Analytical Engines", "ORG"), ("London", "LOC")
GRACE, MILLS, PORTO = ("Grace Okafor", "PER"), ("Orbital Mills", "ORG"), ("Porto", "LOC")
WORKS, LOCATED = link("r1", ADA, ENGINES, "works_for"), link("r1", ENGINES, LONDON, "located_in")
FOUNDED, BASED = link("r2", GRACE, MILLS, "founded"), link("r2", MILLS, PORTO, "located_in")
R1, R2 = marks("r1", ADA, ENGINES, LONDON), marks("r2", GRACE, MILLS, PORTO)
ANSWERS = {
    "ann": {"r1": {"entities": R1, "links": [WORKS, LOCATED]}, "r2": {"entities": R2, "links": [FOUNDED, BASED]},
            "r3": {"entities": []}, "r4": {"entities": []}, "r5": {"entities": []}},
    "bob": {"r1": {"entities": R1, "links": [WORKS]}, "r2": {"entities": R2, "links": [FOUNDED]},
            "r3": {"entities": []}, "r4": {"entities": []}, "r5": {"entities": []}},
}


@pytest.fixture
def exported(app, make_user, tmp_path):  # type: ignore[no-untyped-def]
    project = load_project("custom", EXAMPLES / "ner_relations_items.jsonl", "rel",
                           definition=EXAMPLES / "ner_relations.yaml", k=2)
    for name, answers in ANSWERS.items():
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, answers[lease.item.external_id])
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "rel", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    return tmp_path


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_votes_keep_each_relation_with_its_ends_and_type(exported):
    rows = {(r["item"], r["annotator"]): r for r in _csv(exported / "votes.csv")}
    assert json.loads(rows["r1", "ann"]["links"]) == [WORKS, LOCATED]
    assert rows["r3", "ann"]["links"] == ""
    assert list(json.loads(rows["r2", "bob"]["links"])[0]) == ["from", "to", "label"]
    lines = [json.loads(line) for line in (exported / "votes.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted((line["answer"].get("links") or [] for line in lines if line["item"] == "r2"), key=len) == \
        [[FOUNDED], [FOUNDED, BASED]]


def test_gold_has_a_row_per_relation_given(exported):
    gold = {(r["item"], r["unit"]): (r["gold"], r["n"], r["score"], r["votes"]) for r in _csv(exported / "gold.csv")
            if r["question"] == "links"}
    assert gold == {
        ("r1", "0:12:PER->23:41:ORG:works_for"): ("1", "2", "1", "1: 2, 0: 0"),
        ("r1", "23:41:ORG->45:51:LOC:located_in"): ("0", "2", "0.5", "1: 1, 0: 1"),
        ("r2", f"{FOUNDED['from']}->{FOUNDED['to']}:founded"): ("1", "2", "1", "1: 2, 0: 0"),
        ("r2", f"{BASED['from']}->{BASED['to']}:located_in"): ("0", "2", "0.5", "1: 1, 0: 1"),
    }


def test_the_dataset_types_the_answer_as_a_list_of_relations(exported):
    votes = pq.read_table(exported / "dataset" / "votes.parquet")
    assert votes.schema.field("links").type == pa.list_(pa.struct([
        pa.field("from", pa.string()), pa.field("to", pa.string()), pa.field("label", pa.string())]))
    typed = {(row["item"], row["annotator"]): row["links"] for row in votes.to_pylist()}
    annotator = next(name for (item, name) in typed if item == "r1" and len(typed[item, name] or []) == 2)
    assert typed["r1", annotator] == [WORKS, LOCATED]
    assert typed["r3", annotator] is None


def test_the_data_card_describes_the_question_its_gold_and_relation_f1(exported):
    card = (exported / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "relations between the marks of `entities`, each {from, to, label} (ends by their start:end:label), at " \
           "most 20; types: works_for (works for) from PER to ORG; located_in (is located in) from ORG/LOC to LOC; " \
           "founded from PER to ORG" in card
    assert "agree: a relation is gold when at least 2 annotators of the item (those who answered its spans " \
           "question) gave exactly it (both ends and the type) and both its ends are gold spans" in card
    assert "for a relations question a relation given, <from>-><to>:<type>" in card
    assert "the relations between the marks of question entities in the same answer, each {from, to, label}" in card
    assert "- links: relation F1 0.667 (pairs of annotators, pooled over 5 items, 5 pairs: 2 × 2 in common / 6 " \
           "given)" in card


def test_flask_agreement_reports_relation_f1(exported, app):
    """Pairs per item: r1 and r2 share one relation of 2 + 1 given; r3 to r5 none given. 2 * 2 / 6 = 2/3."""
    result = app.test_cli_runner().invoke(args=["agreement", "--project", "rel", "--json"])
    assert result.exit_code == 0, result.output
    fields = {f["field"]: f for f in json.loads(result.output)["fields"]}
    match = fields["links"]["relation_match"]
    assert (match["f1"], match["items"], match["pairs"], match["common"], match["given"]) == \
        (pytest.approx(2 / 3), 5, 5, 2, 6)
    assert "relation_match" not in fields["entities"]
    table = app.test_cli_runner().invoke(args=["agreement", "--project", "rel"]).output
    assert "Relations' match     relation F1 0.667" in table
