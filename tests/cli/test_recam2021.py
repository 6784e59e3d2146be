"""`flask import recam2021` and `flask export recam2021`: questions in, validated questions and evidence out."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project
from annotator.engine import assignment as engine
from annotator.lookups.scorers import score_files
from tests.conftest import DATA, SHARED_DATA, stored

EXCERPTS = DATA / "recam2021"
DEV = EXCERPTS / "Task_1_dev_excerpt.jsonl"  # labels 2, 4, 4, 4


def _cli(app, *args):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=[str(a) for a in args])


def _import(app, path: Path, *args, slug: str = "cz"):  # type: ignore[no-untyped-def]
    result = _cli(app, "import", "recam2021", path, "--project", slug, *args)
    assert result.exit_code == 0, result.output
    return result


def _vote(project, user, item_id: str, option: int, difficulty: str = "medium", spans: bool = True) -> None:  # type: ignore[no-untyped-def]
    item = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == item_id))
    lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                       expires_at=engine.utcnow() + engine.timedelta(minutes=5))
    db.session.add(lease)
    db.session.commit()
    span = [0, 4] if spans else None
    engine.submit(lease.id, user, {"option": option, "passage_span": span, "question_span": span,
                                   "difficulty": difficulty})


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_one_item_per_line_with_the_label_as_a_hidden_reference(app):
    """A new project is a declared project of cloze_selection.yaml (since the switch to one engine), said so; the
    line's label (4, the fifth option) is the item's reference in the definition's terms, the option's position."""
    result = _import(app, DEV, "--k", "3")
    assert "Imported 4 questions" in result.output
    assert "Created project 'cz' (Declared campaign: Cloze validation with ReCAM's selection rules " \
           "(SemEval-2021 Task 4))." in result.output
    item = stored(Item, external_id="1")
    assert item.reference == {"option": "4"} and "label" not in item.payload
    assert len(item.payload["options"]) == 5
    project = stored(Project, slug="cz")
    assert (project.k, project.task_type, project.definition["questions"][0]["gold"]["rule"]) == \
        (3, "custom", "recam_selection")


def test_test_files_import_by_their_ids_without_reference(app):
    _import(app, EXCERPTS / "Task_1_test_excerpt.jsonl")
    assert db.session.scalar(select(func.count()).select_from(Item).where(Item.reference.is_not(None))) == 0
    assert sorted(db.session.scalars(select(Item.external_id))) == ["0", "1", "2"]


def test_bad_input_imports_nothing_and_says_where(app, tmp_path):
    bad = tmp_path / "Task_1_dev.jsonl"
    lines = DEV.read_bytes().split(b"\r\n")
    bad.write_bytes(b"\r\n".join([lines[0], lines[1].replace(b'"label": 4', b'"label": 7'), b""]))
    result = _cli(app, "import", "recam2021", bad, "--project", "cz")
    assert result.exit_code != 0
    assert "Task_1_dev.jsonl, line 2, column label: label 7 is not an option index 0..4" in result.output
    assert "Nothing was imported" in result.output
    assert stored(Project, slug="cz") is None


@pytest.mark.parametrize("name", ["Task_1_dev_excerpt.jsonl", "Task_1_test_excerpt.jsonl",
                                  "Task_2_Nonspecificity_excerpt.jsonl"])
def test_exporting_all_questions_gives_the_file_back_byte_for_byte(app, tmp_path, name):
    _import(app, EXCERPTS / name)
    result = _cli(app, "export", "recam2021", "--project", "cz", "--out", tmp_path, "--questions", "all")
    assert result.exit_code == 0, result.output
    assert (tmp_path / name).read_bytes() == (EXCERPTS / name).read_bytes()


@pytest.mark.shared_data
def test_the_full_dev_file_round_trips_byte_for_byte(app, tmp_path):
    source = Path(SHARED_DATA) / "recam2021" / "data" / "training_data" / "Task_1_dev.jsonl"
    _import(app, source)
    assert _cli(app, "export", "recam2021", "--project", "cz", "--out", tmp_path, "--questions", "all").exit_code == 0
    assert (tmp_path / "Task_1_dev.jsonl").read_bytes() == source.read_bytes()


def test_the_export_keeps_the_validated_questions_lines_and_says_why_the_rest_went(app, make_user, tmp_path):
    _import(app, DEV)
    project = stored(Project, slug="cz")
    a, b, c = (make_user(n) for n in ("ann", "bob", "cat"))
    for user in (a, b, c):            # question 0 (label 2): all right
        _vote(project, user, "0", 2)
    for user, option in ((a, 4), (b, 0), (c, 1)):  # question 1 (label 4): one of three right
        _vote(project, user, "1", option)
    for user in (a, b, c):            # question 2 (label 4): right, but no annotation marked spans
        _vote(project, user, "2", 4, spans=False)
    result = _cli(app, "export", "recam2021", "--project", "cz", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    source = DEV.read_bytes().split(b"\r\n")
    assert (tmp_path / "Task_1_dev_excerpt.jsonl").read_bytes() == source[0] + b"\r\n"
    dropped = {r["id"]: r["reason"] for r in _csv(tmp_path / "dropped.csv")}
    assert dropped == {"1": "dropped: 1 of 3 valid annotations chose the known answer (0.33 < 0.50)",
                       "2": "dropped: no valid annotation among 3"}
    questions = {r["id"]: r for r in _csv(tmp_path / "questions.csv")}
    assert (questions["0"]["accuracy"], questions["1"]["accuracy"], questions["3"]["reason"]) == \
        ("1.0", "0.3333333333333333", "no vote yet")
    annotators = {r["annotator"]: r for r in _csv(tmp_path / "annotators.csv")}
    assert (annotators["ann"]["correct"], annotators["ann"]["with_known_answer"], annotators["bob"]["accuracy"]) == \
        ("3", "3", "0.6666666666666666")
    evidence = _csv(tmp_path / "evidence.csv")
    assert len(evidence) == 9
    first = evidence[0]
    item = stored(Item, external_id="0")
    assert (first["passage_start"], first["passage_end"], first["passage_text"]) == \
        ("0", "4", item.payload["article"][0:4])
    agreement = json.loads((tmp_path / "agreement.json").read_text())
    assert [f["field"] for f in agreement] == ["option", "difficulty"] and agreement[1]["level"] == "ordinal"
    assert "1 questions have no vote yet" in result.output


def test_kept_questions_become_a_recam2021_leaderboard_gold_set(app, make_user, tmp_path):
    from annotator.campaigns.leaderboard import gold_set_from_project
    _import(app, EXCERPTS / "Task_1_test_excerpt.jsonl", "--k", "2")
    project = stored(Project, slug="cz")
    users = [make_user(n) for n in ("ann", "bob")]
    for user in users:
        _vote(project, user, "0", 3)
        _vote(project, user, "2", 1)
    gold_set = gold_set_from_project(stored(Project, slug="cz"))
    assert gold_set.task == "recam2021"
    gold = [json.loads(line) for line in gold_set.content.decode().splitlines()]
    assert [(g["id"], g["label"]) for g in gold] == [(0, 3), (2, 1)]
    (tmp_path / "gold.jsonl").write_bytes(gold_set.content)
    (tmp_path / "answers.csv").write_text("0,3\r\n1,0\r\n")
    assert score_files("recam2021", tmp_path / "gold.jsonl", tmp_path / "answers.csv").metrics == {"accuracy": 0.5}


def test_a_project_without_a_complete_question_has_no_leaderboard_gold(app):
    from annotator.campaigns.leaderboard import gold_set_from_project
    from annotator.core.errors import FormatError
    _import(app, DEV)
    with pytest.raises(FormatError, match="no vote yet; 0 of 4 items .* so there is no gold yet"):
        gold_set_from_project(stored(Project, slug="cz"))


def test_the_selection_rules_are_settings_given_at_import(app):
    """Given with the import, they are the definition's rule parameters; the project stores no setting."""
    _import(app, DEV, "--no-require-spans", "--min-accuracy", "0.6", "--keep-share", "0.75")
    project = stored(Project, slug="cz")
    gold = project.definition["questions"][0]["gold"]
    assert (gold["require_spans"], gold["min_accuracy"], gold["keep_share"]) == (False, 0.6, 0.75)
    assert not project.settings


def test_a_share_outside_0_to_1_is_refused(app):
    result = _cli(app, "import", "recam2021", DEV, "--project", "cz", "--keep-share", "1.5")
    assert result.exit_code != 0 and "keep-share" in result.output and stored(Project, slug="cz") is None
