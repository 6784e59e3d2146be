"""`flask export custom --model dawid-skene`: gold gains the annotator model's label and posterior per unit of a
categorical question, in the CSV, the JSON Lines, the Parquet table and the data card.

On tests/support/model_campaign.py's campaign the values must be the seeded Dawid-Skene of a second implementation
(tests/data/dawid_skene/make_independent.py), and the same as `flask aggregate --seed-controls --csv` writes; on the
every-kind campaign, the rows of other kinds of question get none and the default export stays without them.
"""
from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from annotator.engine import assignment as engine
from tests.cli.test_export_declared import ANSWERS
from tests.conftest import load_project
from tests.support.declared_projects import EVERY_KIND, EVERY_KIND_ITEMS
from tests.support.model_campaign import MODEL, SEEDED, SLUG, voted_campaign

COLUMNS = ["item", "question", "unit", "gold", "n", "score", "votes", "model_label", "model_posterior"]


@pytest.fixture
def campaign(app, make_user, run_shared):  # type: ignore[no-untyped-def]
    return voted_campaign(make_user, run_shared)


@pytest.fixture
def quotes(app, make_user):  # type: ignore[no-untyped-def]
    """The every-kind campaign's three quotes (k = 2), answered by test_export_declared.py's two annotators."""
    project = load_project("custom", EVERY_KIND_ITEMS, "quotes", definition=EVERY_KIND, k=2)
    for name, answers in ANSWERS.items():
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, answers[lease.item.external_id])
    return project


def _export(app, out: Path, slug: str, *more: str) -> None:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", slug, "--out", str(out), *more])
    assert result.exit_code == 0, result.output


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text("utf-8"))))


def test_gold_gains_the_seeded_models_label_and_posterior_in_every_file(app, campaign, tmp_path) -> None:
    _export(app, tmp_path / "out", SLUG, "--model", "dawid-skene")
    rows = _csv(tmp_path / "out" / "gold.csv")
    assert list(rows[0]) == COLUMNS
    counted = [u for u in SEEDED["labels"] if u not in MODEL["known"]]
    assert [r["item"] for r in rows] == counted
    for row in rows:
        probas = SEEDED["posteriors"][row["item"]]
        assert row["model_label"] == SEEDED["labels"][row["item"]]
        assert float(row["model_posterior"]) == pytest.approx(max(probas), abs=5e-7)
    lines = [json.loads(line) for line in (tmp_path / "out" / "gold.jsonl").read_text("utf-8").splitlines()]
    table = pq.read_table(tmp_path / "out" / "dataset" / "gold.parquet").to_pylist()
    for written in (lines, table):
        assert [(r["model_label"], r["model_posterior"]) for r in written] == \
            [(r["model_label"], float(r["model_posterior"])) for r in rows]
    card = (tmp_path / "out" / "dataset" / "README.md").read_text("utf-8")
    assert "| `model_label` | `string` | the annotator model's most likely answer" in card
    assert "| `model_posterior` | `double` | the model's posterior probability" in card


def test_the_columns_are_what_flask_aggregate_writes(app, campaign, tmp_path) -> None:
    _export(app, tmp_path / "out", SLUG, "--model", "dawid-skene")
    done = app.test_cli_runner().invoke(args=["aggregate", "--project", SLUG, "--seed-controls",
                                              "--csv", str(tmp_path / "aggregate.csv")])
    assert done.exit_code == 0, done.output
    aggregated = {r["unit"]: (r["label"], float(r["posterior"])) for r in _csv(tmp_path / "aggregate.csv")}
    exported = {f"{r['item']} / {r['unit']}": (r["model_label"], float(r["model_posterior"]))
                for r in _csv(tmp_path / "out" / "gold.csv")}
    assert exported == aggregated


def test_only_categorical_questions_get_the_columns_and_the_default_export_has_none(app, quotes, tmp_path) -> None:
    _export(app, tmp_path / "model", "quotes", "--model", "dawid-skene")
    _export(app, tmp_path / "plain", "quotes")
    rows = _csv(tmp_path / "model" / "gold.csv")
    with_label = {r["question"] for r in rows if r["model_label"]}
    assert with_label == {"sentiment", "sarcastic", "themes", "better"}    # choice, multi and pairwise
    assert all(r["model_posterior"] == "" for r in rows if r["question"] in ("cues", "intensity"))
    # two annotators who agree on Q_0's sentiment: the model follows them
    [q0] = [r for r in rows if r["item"] == "Q_0" and r["question"] == "sentiment"]
    assert q0["model_label"] == "neutral" and float(q0["model_posterior"]) > 0.5
    plain = _csv(tmp_path / "plain" / "gold.csv")
    assert list(plain[0]) == COLUMNS[:7]
    assert [{k: r[k] for k in COLUMNS[:7]} for r in rows] == plain
    assert "model_label" not in (tmp_path / "plain" / "dataset" / "README.md").read_text("utf-8")


def test_the_admin_pages_zip_has_the_columns_when_the_form_asks(app, campaign, login) -> None:
    client = login("boss")
    form = client.get(f"/admin/projects/{SLUG}").get_data(as_text=True)
    assert '<select name="model" id="export-model"' in form and '<option value="dawid-skene">' in form
    for asked, columns in (("dawid-skene", COLUMNS), ("none", COLUMNS[:7]), ("nonsense", COLUMNS[:7])):
        response = client.get(f"/admin/projects/{SLUG}/export.zip?model={asked}")
        assert response.status_code == 200
        with zipfile.ZipFile(io.BytesIO(response.data)) as archive:
            header = archive.read("gold.csv").decode("utf-8").splitlines()[0]
        assert header.split(",") == columns, asked
