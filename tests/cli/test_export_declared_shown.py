"""`flask import` and `flask export custom` of declared campaigns that show lists and highlights: the import refuses a
bad file whole, and the export keeps the lists and highlights in the dataset as the items gave them, beside the
votes and the gold of the questions (display kinds add no label rows of their own)."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sqlalchemy import func, select

from annotator.campaigns.import_refused import ImportRefused
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.engine import assignment as engine
from tests.conftest import load_project
from tests.support.declared_projects import DECLARED, read_jsonl

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KPA = EXAMPLES / "kpa2021_track2_compare.yaml"
KPA_ITEMS = EXAMPLES / "kpa2021_track2_compare_items.jsonl"


def _export(app, out: Path, slug: str) -> None:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", slug, "--out", str(out)])
    assert result.exit_code == 0, result.output


@pytest.fixture
def kpsets(app, make_user):  # type: ignore[no-untyped-def]
    """The KPA-2021 track 2 example (6 pairs of summaries, k = 3) judged by three annotators: A wins unless the
    pair holds gamma, whose summary then loses."""
    project = load_project("custom", KPA_ITEMS, "kpsets", definition=KPA, k=3)
    for name in ("ann", "bob", "cat"):
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            payload = lease.item.payload
            winner = "B" if payload["system_a"] == "gamma" else "A"
            swapped = "better" in ((lease.presentation or {}).get("swapped") or [])
            engine.submit(lease.id, user, {"better": {"A": "B", "B": "A"}[winner] if swapped else winner})
    return project


def test_the_dataset_keeps_each_summary_as_a_list_of_key_points_with_their_prevalence(app, kpsets, tmp_path):
    _export(app, tmp_path / "out", "kpsets")
    path = tmp_path / "out" / "dataset" / "items.parquet"
    point = pa.struct([("key_point", pa.string()), ("prevalence", pa.float64())])
    schema = {f.name: f.type for f in pq.read_schema(path)}
    assert schema["summary_a"] == pa.list_(point) and schema["summary_b"] == pa.list_(point)
    rows = pq.read_table(path).to_pylist()
    assert [r["summary_a"] for r in rows] == [item["summary_a"] for item in read_jsonl(KPA_ITEMS)]


def test_the_votes_and_gold_are_those_of_the_pairwise_question_in_the_items_terms(app, kpsets, tmp_path):
    _export(app, tmp_path / "out", "kpsets")
    votes = list(csv.DictReader(io.StringIO((tmp_path / "out" / "votes.csv").read_text("utf-8"))))
    assert len(votes) == 18 and set(votes[0]) == {"item", "annotator", "submitted_at", "better"}
    expected = {item["id"]: "B" if item["system_a"] == "gamma" else "A" for item in read_jsonl(KPA_ITEMS)}
    assert all(v["better"] == expected[v["item"]] for v in votes)
    gold = list(csv.DictReader(io.StringIO((tmp_path / "out" / "gold.csv").read_text("utf-8"))))
    assert {(g["item"], g["unit"], g["gold"]) for g in gold} >= {
        ("alpha-beta-con", '["alpha", "beta"]', "A"), ("beta-gamma-pro", '["beta", "gamma"]', "A")}


def test_highlights_of_both_shapes_are_kept_as_json_text_in_the_dataset(app, make_user, tmp_path):
    load_project("custom", DECLARED / "shown_kinds.jsonl", "shown", definition=DECLARED / "shown_kinds.yaml")
    _export(app, tmp_path / "out", "shown")
    table = pq.read_table(tmp_path / "out" / "dataset" / "items.parquet")
    assert table.schema.field("argument_highlights").type == pa.string()
    assert [json.loads(v) for v in table.column("argument_highlights").to_pylist()] == \
        [item["argument_highlights"] for item in read_jsonl(DECLARED / "shown_kinds.jsonl")]
    card = (tmp_path / "out" / "dataset" / "README.md").read_text("utf-8")
    assert "the item's field `argument_highlights`: the highlighted stretches of `argument` ([start, end] or " \
           "{start, end, label}: character offsets, end exclusive)" in card


def test_an_import_with_one_bad_highlight_keeps_nothing(app, tmp_path):
    rows = read_jsonl(DECLARED / "shown_kinds.jsonl")
    rows[1]["argument_highlights"] = [[30, 99]]
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(ImportRefused) as caught:
        load_project("custom", items, "shown", definition=DECLARED / "shown_kinds.yaml")
    assert str(caught.value).startswith('items.jsonl, line 2, column "argument_highlights": highlight 1 [30, 99] is '
                                        "not a stretch of 'argument': it needs 0 <= start < end <= 43")
    assert "Nothing was imported." in str(caught.value)
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Project)) == 0
    assert db.session.scalar(select(func.count()).select_from(Item)) == 0
