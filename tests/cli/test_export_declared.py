"""`flask export custom`: a declared campaign's votes, gold and publishable dataset, checked file by file on a
small project whose votes the test knows (the three quotes of tests/data/declared, k = 2, two annotators)."""
from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from sqlalchemy import select
from statsmodels.stats.inter_rater import fleiss_kappa

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project
from annotator.engine import assignment as engine
from annotator.figures.kept_gold import gold_frame
from annotator.shared_tasks.custom.data_card import hub_licence
from tests.conftest import load_project
from tests.support.declared_projects import EVERY_KIND, EVERY_KIND_ITEMS

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


def _schema(path: Path) -> dict[str, pa.DataType]:
    return {field.name: field.type for field in pq.read_schema(path)}


def test_votes_parquet_types_each_answer_by_its_question_kind(app, voted, tmp_path):
    _export(app, tmp_path / "out")
    path = tmp_path / "out" / "dataset" / "votes.parquet"
    assert _schema(path) == {"item": pa.string(), "annotator": pa.string(),
                             "submitted_at": pa.timestamp("ms", tz="UTC"),
                             "sentiment": pa.string(), "sarcastic": pa.string(), "cues": pa.list_(pa.int64()),
                             "themes": pa.list_(pa.string()), "intensity": pa.int64(), "better": pa.string(),
                             "comment": pa.string(), "answer": pa.string()}
    rows = pq.read_table(path).to_pylist()
    expected = _votes_in_item_terms()
    assert [r["submitted_at"] for r in rows] == [
        datetime.fromisoformat(v["submitted_at"]).replace(tzinfo=UTC) for v in expected]
    bob_on_s78 = rows[5]
    assert (bob_on_s78["item"], bob_on_s78["cues"], bob_on_s78["themes"], bob_on_s78["intensity"]) == \
        ("S_78", [2], ["life"], 5)
    assert rows[0]["cues"] is None and rows[0]["comment"] == "fine" and rows[1]["comment"] is None
    assert [r["better"] for r in rows] == [v["answer"]["better"] for v in expected]


def test_a_scale_with_fractional_steps_is_written_as_floats(app, make_user, tmp_path):
    definition = tmp_path / "task.yaml"
    definition.write_text("name: Warmth\nshow: [text]\nquestions:\n"
                          "  - {id: warmth, kind: scale, min: 0, max: 2, step: 0.5}\n", encoding="utf-8")
    items = tmp_path / "items.csv"
    items.write_text("id,text\n1,A warm welcome to everyone who came.\n", encoding="utf-8")
    project = load_project("custom", items, "warmth", definition=definition, k=1)
    ann = make_user("ann")
    lease = engine.next_for(ann, project)
    engine.submit(lease.id, ann, {"warmth": 1.5})
    _export(app, tmp_path / "out", slug="warmth")
    votes = tmp_path / "out" / "dataset" / "votes.parquet"
    assert _schema(votes)["warmth"] == pa.float64()
    assert pq.read_table(votes).column("warmth").to_pylist() == [1.5]
    gold = pq.read_table(tmp_path / "out" / "dataset" / "gold.parquet").to_pylist()
    assert [(g["gold"], g["gold_number"], g["n"]) for g in gold] == [("1.5", 1.5, 1)]


def test_items_parquet_types_fields_by_their_values(app, tmp_path):
    definition = tmp_path / "task.yaml"
    definition.write_text("name: Topics\nshow: [text, tokens]\nquestions:\n"
                          "  - {id: topic, kind: choice, options_from: topics}\n"
                          "  - {id: cue, kind: span, of: tokens}\n", encoding="utf-8")
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(row) + "\n" for row in (
        {"id": "a1", "text": "Rents rose again.", "tokens": ["Rents", "rose", "again", "."],
         "topics": [{"id": "housing", "text": "Housing"}, {"id": "jobs", "text": "Jobs"}]},
        {"id": "a2", "text": "Hiring slowed.", "tokens": ["Hiring", "slowed", "."],
         "topics": [{"id": "jobs", "text": "Jobs"}, {"id": "prices", "text": "Prices"}]})), encoding="utf-8")
    load_project("custom", items, "topics", definition=definition)
    _export(app, tmp_path / "out", slug="topics")
    path = tmp_path / "out" / "dataset" / "items.parquet"
    topic = pa.struct([("id", pa.string()), ("text", pa.string())])
    assert _schema(path) == {"id": pa.string(), "text": pa.string(), "tokens": pa.list_(pa.string()),
                             "topics": pa.list_(topic), "control": pa.bool_()}
    rows = pq.read_table(path).to_pylist()
    assert rows[1] == {"id": "a2", "text": "Hiring slowed.", "tokens": ["Hiring", "slowed", "."],
                       "topics": [{"id": "jobs", "text": "Jobs"}, {"id": "prices", "text": "Prices"}],
                       "control": False}


def test_a_field_whose_values_mix_text_and_lists_is_text_with_the_lists_as_json(app, tmp_path):
    """A span question's field may be text in one item and a list of words in another (both are read)."""
    definition = tmp_path / "task.yaml"
    definition.write_text("name: Cues\nshow: [tokens]\nquestions:\n  - {id: cue, kind: span, of: tokens}\n",
                          encoding="utf-8")
    items = tmp_path / "items.jsonl"
    items.write_text('{"id": "a1", "tokens": "Rents rose again ."}\n'
                     '{"id": "a2", "tokens": ["Hiring", "slowed", "."]}\n', encoding="utf-8")
    load_project("custom", items, "cues", definition=definition)
    _export(app, tmp_path / "out", slug="cues")
    folder = tmp_path / "out" / "dataset"
    assert _schema(folder / "items.parquet")["tokens"] == pa.string()
    assert pq.read_table(folder / "items.parquet").column("tokens").to_pylist() == \
        ["Rents rose again .", '["Hiring", "slowed", "."]']
    card = (folder / "README.md").read_text("utf-8")
    assert ("| `tokens` | `string` | the item's field `tokens`: shown to the annotator as text; its words are what "
            "question cue selects (its values mix kinds: text as is, anything else as JSON text) |") in card


def test_gold_parquet_types_counts_scores_and_numeric_gold(app, voted, tmp_path):
    _export(app, tmp_path / "out")
    path = tmp_path / "out" / "dataset" / "gold.parquet"
    assert _schema(path) == {"item": pa.string(), "question": pa.string(), "unit": pa.string(),
                             "gold": pa.string(), "gold_number": pa.float64(), "n": pa.int64(),
                             "score": pa.float64(), "votes": pa.string()}
    rows = {(r["item"], r["question"], r["unit"]): r for r in pq.read_table(path).to_pylist()}
    intensity = rows[("S_78", "intensity", "intensity")]       # 4 and 5: the median is 4.5
    assert (intensity["gold"], intensity["gold_number"], intensity["n"]) == ("4.5", 4.5, 2)
    assert rows[("S_78", "cues", "0")]["gold_number"] == 0.5    # one of two selected the first word
    assert rows[("Q_0", "themes", "life")]["gold_number"] == 1.0
    undecided = rows[("Q_0", "themes", "work")]
    assert (undecided["gold"], undecided["gold_number"]) == ("undecided", None)
    sentiment = rows[("Q_0", "sentiment", "sentiment")]
    assert (sentiment["gold"], sentiment["gold_number"], sentiment["score"]) == ("neutral", None, 1.0)


def _card_columns(card: str, file_name: str) -> dict[str, str]:
    """The data card's column table of one file: {column: type}."""
    section = card.split(f"### `{file_name}`", 1)[1].split("\n\n", 2)[1]
    cells = [line.strip("|").split("|") for line in section.splitlines()[2:]]
    return {name.strip().strip("`"): kind.strip().strip("`") for name, kind, _ in cells}


def test_the_data_card_lists_every_column_of_every_file_with_its_type(app, voted, tmp_path):
    _export(app, tmp_path / "out")
    folder = tmp_path / "out" / "dataset"
    card = (folder / "README.md").read_text("utf-8")
    for name in ("items", "votes", "gold"):
        written = {field.name: str(field.type).replace("element: ", "")
                   for field in pq.read_schema(folder / f"{name}.parquet")}
        assert _card_columns(card, f"{name}.parquet") == written, name
    assert ("| `intensity` | `int64` | the answer to question intensity: the point chosen on the scale 1 to 5; null "
            "when it was not asked or not answered |") in card.splitlines()


def test_the_data_card_opens_with_hugging_face_front_matter(app, voted, tmp_path):
    _export(app, tmp_path / "out")
    card = (tmp_path / "out" / "dataset" / "README.md").read_text("utf-8")
    assert card.startswith("---\n")
    meta = yaml.safe_load(card.split("---\n", 2)[1])
    assert meta == {"license": "cc-by-4.0", "task_categories": ["text-classification", "text-ranking",
                                                                "token-classification"],
                    "size_categories": ["n<1K"], "pretty_name": "Quotes - tone, cues and pairs",
                    "configs": [{"config_name": name, "data_files": [{"split": "train", "path": f"{name}.parquet"}],
                                 **({"default": True} if name == "gold" else {})}
                                for name in ("items", "votes", "gold")]}
    assert card.split("---\n", 2)[2].startswith("\n# Quotes - tone, cues and pairs\n\nHow quotes read to people")


def test_the_front_matter_carries_the_definitions_languages_and_a_licence_by_its_hub_name(app, tmp_path):
    definition = tmp_path / "task.yaml"
    definition.write_text("name: Key points\nlicence: CDLA-Sharing-1.0 (IBM, ArgKP)\nlanguage: [en, pt-BR]\n"
                          "show: [text]\nquestions:\n  - {id: match, kind: choice, options: [yes_match, no_match]}\n",
                          encoding="utf-8")
    items = tmp_path / "items.csv"
    items.write_text("id,text\n1,Social media regulation is required.\n", encoding="utf-8")
    load_project("custom", items, "kp", definition=definition)
    _export(app, tmp_path / "out", slug="kp")
    card = (tmp_path / "out" / "dataset" / "README.md").read_text("utf-8")
    meta = yaml.safe_load(card.split("---\n", 2)[1])
    assert (meta["license"], meta["language"], meta["task_categories"]) == \
        ("cdla-sharing-1.0", ["en", "pt-BR"], ["text-classification"])
    assert "- Language: en, pt-BR" in card.splitlines()


@pytest.mark.parametrize(("licence", "hub"), [("CC BY-SA 4.0", "cc-by-sa-4.0"), ("cc-by-nc-4.0", "cc-by-nc-4.0"),
                                              ("Apache License 2.0", "apache-2.0"), ("MIT", "mit"),
                                              ("CDLA-Sharing-1.0", "cdla-sharing-1.0"), ("", "unknown"),
                                              ("Our own terms, see LICENSE", "other")])
def test_a_licence_in_words_gets_the_hubs_name_for_it(licence, hub):
    assert hub_licence(licence) == hub


def test_a_licence_the_hub_does_not_name_is_other_with_its_own_name(app, tmp_path):
    definition = tmp_path / "task.yaml"
    definition.write_text("name: Tone\nlicence: Research use only\nshow: [text]\n"
                          "questions:\n  - {id: tone, kind: choice, options: [a, b]}\n", encoding="utf-8")
    items = tmp_path / "items.csv"
    items.write_text("id,text\n1,One quote\n", encoding="utf-8")
    load_project("custom", items, "tone", definition=definition)
    _export(app, tmp_path / "out", slug="tone")
    meta = yaml.safe_load((tmp_path / "out" / "dataset" / "README.md").read_text("utf-8").split("---\n", 2)[1])
    assert (meta["license"], meta["license_name"]) == ("other", "research-use-only")
    assert "language" not in meta


def test_the_data_card_states_the_definition_counts_agreement_and_licence(app, voted, tmp_path):
    _export(app, tmp_path / "out")
    card = (tmp_path / "out" / "dataset" / "README.md").read_text("utf-8")
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


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_question_named_answer_gets_a_column_of_its_own_beside_the_whole_answer(app, make_user, tmp_path):
    """ReCAM's example definition asks a question `answer`; the votes file's whole-answer column has that name too,
    and two columns of one name made a file that pandas could not read."""
    project = load_project("custom", EXAMPLES / "recam2021_cloze_items.jsonl", "cloze",
                           definition=EXAMPLES / "recam2021_cloze.yaml", k=1)
    user = make_user("ann")
    chosen = {}
    while (lease := engine.next_for(user, project)) is not None:
        chosen[lease.item.external_id] = lease.item.payload["options"][-1]
        engine.submit(lease.id, user, {"answer": chosen[lease.item.external_id], "difficulty": "hard"})
    _export(app, tmp_path / "out", slug="cloze")
    votes = pd.read_parquet(tmp_path / "out" / "dataset" / "votes.parquet")
    assert list(votes.columns) == ["item", "annotator", "submitted_at", "answer_question", "difficulty", "answer"]
    assert dict(zip(votes["item"], votes["answer_question"], strict=True)) == chosen
    assert [json.loads(a) for a in votes["answer"]] == [{"answer": chosen[i], "difficulty": "hard"}
                                                       for i in votes["item"]]
    card = (tmp_path / "out" / "dataset" / "README.md").read_text("utf-8")
    assert "the answer to question `answer`" in card
