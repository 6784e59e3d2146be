"""`flask import` and `flask export custom` of definitions that read nested items (docs/declared-item-paths.md): the
dataset keeps each item's fields as the items file gave them (objects and lists nested, kept fields too) and its card
says what each holds, the votes and gold are those of the questions, and a span over token objects has the words'
ids as its units."""
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
from tests.support.declared_projects import DECLARED, read_jsonl

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "examples" / "kpa2021_track2_check.yaml"
CHECK_ITEMS = ROOT / "examples" / "kpa2021_track2_check_items.jsonl"
EMPHASIS = ROOT / "annotator" / "shared_tasks" / "emphasis2020" / "selection.yaml"
EMPHASIS_ITEMS = DECLARED / "emphasis_items.jsonl"
COMPARE = ROOT / "annotator" / "shared_tasks" / "kpa2021" / "set_compare.yaml"


def _export(app, out: Path, slug: str) -> None:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", slug, "--out", str(out)])
    assert result.exit_code == 0, result.output


def _rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text("utf-8"))))


@pytest.fixture
def check(app, make_user):  # type: ignore[no-untyped-def]
    """The check example (3 items, k = 3) judged by three annotators: the first item yes by all, the others no."""
    project = load_project("custom", CHECK_ITEMS, "check", definition=CHECK, k=3)
    first = read_jsonl(CHECK_ITEMS)[0]["id"]
    for name in ("ann", "bob", "cat"):
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, {"verdict": "yes" if lease.item.external_id == first else "no"})
    return project


def test_the_dataset_keeps_the_nested_and_kept_fields_as_the_items_gave_them(app, check, tmp_path):
    _export(app, tmp_path / "out", "check")
    path = tmp_path / "out" / "dataset" / "items.parquet"
    schema = {f.name: f.type for f in pq.read_schema(path)}
    assert pa.types.is_struct(schema["key_point"]) and pa.types.is_list(schema["systems"])
    # Fields by name: PostgreSQL's JSONB keeps an object's keys in an order of its own.
    assert {f.name: f.type for f in schema["key_point"]} == {"id": pa.string(), "text": pa.string()}
    assert {f.name: f.type for f in schema["systems"].value_type} == \
        {"name": pa.string(), "key_point_id": pa.string(), "score": pa.float64()}
    rows = {r["id"]: r for r in pq.read_table(path).to_pylist()}
    for item in read_jsonl(CHECK_ITEMS):
        assert (rows[item["id"]]["key_point"], rows[item["id"]]["systems"], rows[item["id"]]["arg_id"]) == \
            (item["key_point"], item["systems"], item["arg_id"])


def test_the_card_says_what_a_path_reads_and_that_a_kept_field_is_never_shown(app, check, tmp_path):
    _export(app, tmp_path / "out", "check")
    card = (tmp_path / "out" / "dataset" / "README.md").read_text("utf-8")
    assert "the item's field `key_point`, as the items file gave it; at the key path `key_point.text`, shown to " \
           "the annotator as text ('Key point')" in card
    assert "the item's field `systems`: kept with the item as the items file gave it, never shown to annotators" \
        in card


def test_the_votes_and_gold_of_a_check_read_by_key_path(app, check, tmp_path):
    _export(app, tmp_path / "out", "check")
    first = read_jsonl(CHECK_ITEMS)[0]["id"]
    votes = _rows(tmp_path / "out" / "votes.csv")
    assert len(votes) == 9 and {v["verdict"] for v in votes if v["item"] == first} == {"yes"}
    gold = {(g["item"], g["unit"]): g["gold"] for g in _rows(tmp_path / "out" / "gold.csv")}
    assert gold == {(item["id"], "verdict"): "yes" if item["id"] == first else "not yes"
                    for item in read_jsonl(CHECK_ITEMS)}


def test_a_span_over_token_objects_exports_the_word_ids_as_gold_units(app, make_user, tmp_path):
    project = load_project("custom", EMPHASIS_ITEMS, "emph", definition=EMPHASIS, k=2)
    for name in ("ann", "bob"):
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, {"emphasis": [0] if name == "ann" else [0, 1]})
    _export(app, tmp_path / "out", "emph")
    gold = {(g["item"], g["unit"]): float(g["gold"]) for g in _rows(tmp_path / "out" / "gold.csv")}
    expected = {(item["id"], word["id"]): {0: 1.0, 1: 0.5}.get(n, 0.0)
                for item in read_jsonl(EMPHASIS_ITEMS) for n, word in enumerate(item["words"])}
    assert gold == expected
    words = pq.read_table(tmp_path / "out" / "dataset" / "items.parquet").column("words").to_pylist()
    assert words == [item["words"] for item in read_jsonl(EMPHASIS_ITEMS)]   # pos travels with the item


def test_the_card_of_the_set_comparison_says_which_field_a_reference_reads(app, tmp_path):
    load_project("custom", DECLARED / "compare_items.jsonl", "cmp", definition=COMPARE)
    _export(app, tmp_path / "out", "cmp")
    card = (tmp_path / "out" / "dataset" / "README.md").read_text("utf-8")
    assert "the item's field `systems`, as the items file gave it; its value names the key read by the key path " \
           "`summaries.<systems.0>`" in card
    assert "at the key path `systems.0`, what A of question less_redundant is (ranked by Bradley-Terry)" in card
    rows = pq.read_table(tmp_path / "out" / "dataset" / "items.parquet").to_pylist()
    # [text, share] rows mix kinds, which Parquet cannot type: the summaries are JSON text, as the card says
    assert [(r["systems"], json.loads(r["summaries"])) for r in rows] == \
        [(item["systems"], item["summaries"]) for item in read_jsonl(DECLARED / "compare_items.jsonl")]
    assert "the item's field `summaries`, as the items file gave it (its values mix kinds" in card
