"""`flask export custom`: a declared campaign's votes, gold and publishable dataset, checked file by file on a
small project whose votes the test knows (the three quotes of tests/data/declared, k = 2, two annotators)."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import select
from statsmodels.stats.inter_rater import fleiss_kappa

from annotator.analysis.results import gold_frame
from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project
from annotator.engine import assignment as engine
from tests.conftest import load_project
from tests.declared_projects import EVERY_KIND, EVERY_KIND_ITEMS

QIDS = ["sentiment", "sarcastic", "cues", "themes", "intensity", "better", "comment"]
ANSWERS = {
    "ann": {"Q_0": {"sentiment": "neutral", "sarcastic": "no", "themes": ["life"], "intensity": 2, "better": "A",
                    "comment": "fine"},
            "S_1": {"sentiment": "positive", "sarcastic": "no", "themes": ["nature"], "intensity": 3, "better": "B"},
            "S_78": {"sentiment": "positive", "sarcastic": "yes", "cues": [0, 2], "themes": [], "intensity": 4,
                     "better": "A"}},
    "bob": {"Q_0": {"sentiment": "neutral", "sarcastic": "no", "themes": ["life", "work"], "intensity": 3,
                    "better": "A"},
            "S_1": {"sentiment": "positive", "sarcastic": "no", "themes": ["nature"], "intensity": 3,
                    "better": "equal"},
            "S_78": {"sentiment": "negative", "sarcastic": "yes", "cues": [2], "themes": ["life"], "intensity": 5,
                     "better": "B"}},
}


def _import(slug: str = "quotes", k: int = 2) -> Project:
    return load_project("custom", EVERY_KIND_ITEMS, slug, definition=EVERY_KIND, k=k)


@pytest.fixture
def voted(app, make_user):  # type: ignore[no-untyped-def]
    """Project `quotes` (k = 2) with ann's then bob's answers to all three quotes: every item complete."""
    project = _import()
    for name, answers in ANSWERS.items():
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, answers[lease.item.external_id])
    return project


def _export(app, out: Path, slug: str = "quotes"):  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", slug, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return result


def _votes_in_item_terms() -> list[dict]:
    """Every vote as the database holds it, read afresh, pairwise choices turned into the item's terms."""
    db.session.remove()
    rows = db.session.execute(select(Item.external_id, Assignment.user_id, Assignment.submitted_at,
                                     Assignment.answer, Assignment.presentation)
                              .join(Item, Item.id == Assignment.item_id).order_by(Item.position, Assignment.id)).all()
    names = {1: "ann", 2: "bob"}
    out = []
    for item, user_id, submitted, answer, presentation in rows:
        answer = dict(answer)
        if "better" in ((presentation or {}).get("swapped") or []):
            answer["better"] = {"A": "B", "B": "A"}.get(answer["better"], answer["better"])
        out.append({"item": item, "annotator": names[user_id], "submitted_at": submitted.isoformat(timespec="seconds"),
                    "answer": answer})
    return out


def test_votes_jsonl_holds_every_vote_in_the_items_terms(app, voted, tmp_path):
    _export(app, tmp_path / "out")
    written = [json.loads(line) for line in (tmp_path / "out" / "votes.jsonl").read_text("utf-8").splitlines()]
    expected = _votes_in_item_terms()
    assert written == expected
    given = {(v["item"], v["annotator"]): v["answer"] for v in written}
    assert given[("Q_0", "ann")] == ANSWERS["ann"]["Q_0"] | {"better": given[("Q_0", "ann")]["better"]}
    assert len(written) == 6


def test_votes_csv_has_one_column_per_question_and_lists_as_json(app, voted, tmp_path):
    _export(app, tmp_path / "out")
    text = (tmp_path / "out" / "votes.csv").read_text("utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["item", "annotator", "submitted_at", *QIDS]

    def cell(value):  # type: ignore[no-untyped-def]
        return "" if value is None else value if isinstance(value, str) else json.dumps(value)
    assert rows[1:] == [[v["item"], v["annotator"], v["submitted_at"], *(cell(v["answer"].get(q)) for q in QIDS)]
                        for v in _votes_in_item_terms()]
    assert rows[6][3:8] == ["negative", "yes", "[2]", '["life"]', "5"]


def test_gold_files_hold_the_gold_frame_row_by_row(app, voted, tmp_path):
    _export(app, tmp_path / "out")
    db.session.remove()
    gold = gold_frame(db.session.scalar(select(Project)))
    rows = list(csv.reader(io.StringIO((tmp_path / "out" / "gold.csv").read_text("utf-8"))))
    assert rows[0] == ["item", "question", "unit", "gold", "n", "score", "votes"]
    assert len(rows) - 1 == len(gold)
    lines = [json.loads(line) for line in (tmp_path / "out" / "gold.jsonl").read_text("utf-8").splitlines()]
    assert lines == [{k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
                     for row in gold.to_dict(orient="records")]

    def text(value):  # type: ignore[no-untyped-def]
        if isinstance(value, float):
            return str(int(value)) if value.is_integer() else repr(value)
        return "" if value is None else str(value)
    assert rows[1:] == [[text(row[c]) for c in rows[0]] for row in lines]
    sentiment = {r["item"]: (r["gold"], r["n"]) for r in lines if r["question"] == "sentiment"}
    # neutral twice; positive twice; positive against negative: a tie, undecided by the definition
    assert sentiment == {"Q_0": ("neutral", 2), "S_1": ("positive", 2), "S_78": ("undecided", 2)}


def test_the_dataset_parquet_files_read_back_with_pandas(app, voted, tmp_path):
    _export(app, tmp_path / "out")
    folder = tmp_path / "out" / "dataset"
    items = pd.read_parquet(folder / "items.parquet")
    assert list(items.columns) == ["id", "text", "other", "text_id", "other_id", "control"]
    assert list(items["id"]) == ["Q_0", "S_1", "S_78"] and not items["control"].any()
    votes = pd.read_parquet(folder / "votes.parquet")
    assert list(votes.columns) == ["item", "annotator", "submitted_at", *QIDS, "answer"]
    assert sorted(set(votes["annotator"])) == ["annotator_1", "annotator_2"]   # no usernames in the dataset
    assert [json.loads(a) for a in votes["answer"]] == [v["answer"] for v in _votes_in_item_terms()]
    gold = pd.read_parquet(folder / "gold.parquet")
    assert len(gold) == len(list(csv.reader(io.StringIO((tmp_path / "out" / "gold.csv").read_text("utf-8"))))) - 1


def test_the_data_card_states_the_definition_counts_agreement_and_licence(app, voted, tmp_path):
    _export(app, tmp_path / "out")
    card = (tmp_path / "out" / "dataset" / "README.md").read_text("utf-8")
    assert card.startswith("# Quotes - tone, cues and pairs\n\nHow quotes read to people")
    for line in ("- Items: 3", "- Votes: 6", "- Annotators: 2", "- k (annotators per item): 2",
                 "- Licence: CC BY 4.0 (definition); the quotes are test excerpts only",
                 "- **sentiment** (choice): What is the quote's sentiment?",
                 "  options: negative, neutral, positive",
                 "  gold: majority: the answer most annotators gave; a tie gives undecided",
                 "  gold: share: the share of annotators answering 'yes'; at or above 0.6 gives 'yes', at or below "
                 "0.15 gives 'no', in between undecided",
                 "  asked only when sarcastic is yes"):
        assert line in card.splitlines(), line
    # Fleiss' kappa of sentiment from the votes: Q_0 neutral x2, S_1 positive x2, S_78 positive + negative
    table = [[0, 2, 0], [0, 0, 2], [1, 0, 1]]
    kappa = f"{fleiss_kappa(table):.3f}"
    row = next(line for line in card.splitlines() if line.startswith("| sentiment |"))
    assert f"| {kappa} |" in row and row.endswith("| nominal |")
    assert "| sentiment | 3 | 1 | 1 | 0 |" in card   # one undecided item of three
    assert "## Bradley-Terry strengths: better" in card


def test_the_licence_line_says_when_none_is_declared(app, make_user, tmp_path):
    definition = tmp_path / "task.yaml"
    definition.write_text("name: Tone\nshow: [text]\nquestions:\n  - {id: tone, kind: choice, options: [a, b]}\n",
                          encoding="utf-8")
    items = tmp_path / "items.csv"
    items.write_text("id,text\n1,One quote\n", encoding="utf-8")
    load_project("custom", items, "tone", definition=definition)
    _export(app, tmp_path / "out", slug="tone")
    assert "- Licence: no licence declared" in (tmp_path / "out" / "dataset" / "README.md").read_text("utf-8")


def test_with_no_vote_every_file_is_written_and_the_command_says_why(app, tmp_path):
    _import()
    result = _export(app, tmp_path / "out")
    out = tmp_path / "out"
    assert (out / "votes.jsonl").read_text("utf-8") == ""
    assert (out / "votes.csv").read_text("utf-8") == "item,annotator,submitted_at," + ",".join(QIDS) + "\n"
    assert (out / "gold.csv").read_text("utf-8") == "item,question,unit,gold,n,score,votes\n"
    assert all((out / "dataset" / name).is_file() for name in ("items.parquet", "votes.parquet", "gold.parquet",
                                                               "README.md"))
    assert "No vote counts yet: votes.jsonl is empty" in result.output
    assert "No item of project quotes is complete yet (no vote yet" in result.output


def test_votes_on_control_items_are_not_in_the_export(app, make_user, tmp_path):
    """Control items (known.* columns) check annotators; their answers are neither votes nor gold."""
    load_project("custom", EVERY_KIND_ITEMS.parent / "controls.csv", "quotes", definition=EVERY_KIND, k=1)
    user = make_user("ann")
    project = db.session.scalar(select(Project))
    project.quality = {"control_rate": 1.0}   # controls served first, then the ordinary item
    db.session.commit()
    answered = []
    while (lease := engine.next_for(user, project)) is not None:
        answered.append(lease.item.external_id)
        engine.submit(lease.id, user, ANSWERS["ann"][lease.item.external_id])
    assert sorted(answered) == ["Q_0", "S_1", "S_78"]
    _export(app, tmp_path / "out")
    votes = [json.loads(line) for line in (tmp_path / "out" / "votes.jsonl").read_text("utf-8").splitlines()]
    assert [v["item"] for v in votes] == ["S_1"]
    items = pd.read_parquet(tmp_path / "out" / "dataset" / "items.parquet")
    assert list(zip(items["id"], items["control"])) == [("Q_0", True), ("S_1", False), ("S_78", True)]


def test_include_incomplete_exports_the_votes_of_pending_items(app, make_user, tmp_path):
    project = _import(k=3)
    user = make_user("ann")
    lease = engine.next_for(user, project)
    engine.submit(lease.id, user, ANSWERS["ann"][lease.item.external_id])
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "quotes", "--out",
                                                str(tmp_path / "out"), "--include-incomplete"])
    assert result.exit_code == 0, result.output
    votes = (tmp_path / "out" / "votes.jsonl").read_text("utf-8").splitlines()
    assert len(votes) == 1 and json.loads(votes[0])["item"] == lease.item.external_id
    assert "INCOMPLETE ITEMS INCLUDED" in (tmp_path / "out" / "README.txt").read_text("utf-8")
    card = (tmp_path / "out" / "dataset" / "README.md").read_text("utf-8")
    assert "- Counted: every item, pending ones included, control items left out" in card
