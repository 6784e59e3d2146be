"""`flask import recam2021`: a declared project of cloze_selection.yaml, served by the one engine (the built-in cloze
type is gone: --no-declared is refused), with the released file's questions and known answers, the selection
settings given with the import as its rule's parameters, and, with votes, an export (the kept questions' lines,
questions.csv, dropped.csv, annotators.csv, evidence.csv, agreement.json), a leaderboard's scoring gold and a
dataset table that say what ReCAM's rules as the paper states them say on those votes (tests/support/recam_rules.py),
and give the released file back byte for byte.

The answers are drawn as tests/web/test_recam_definition.py draws them, in the API shape of before the switch (the
project converts them through the task's bridge), so that annotations without evidence (rule b) and "easy" but
wrong ones (rule c) are among them (counted by the worked-out rules). tests/lifecycle/test_upgrade_keeps_exports.py
checks the exports against those the built-in type wrote for the kept database's votes.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select

from annotator.campaigns.leaderboard import gold_set_from_project
from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.declared.definition import UNDECIDED
from annotator.declared.items import load_definition
from annotator.shared_tasks.recam2021.bridge import DEFINITION
from annotator.tasks.base import HitItem
from tests.conftest import DATA
from tests.support.recam_rules import Selection, Vote, paper_selection
from tests.web.test_recam_definition import _built_in_answer, released_items
from tests.web.test_shared_task_definitions import Annotators, Shown

EXCERPTS = DATA / "recam2021"
DEV = EXCERPTS / "Task_1_dev_excerpt.jsonl"     # labels 2, 4, 4, 4: rules a and c, kept by the known answer's share
TEST = EXCERPTS / "Task_1_test_excerpt.jsonl"   # no labels: kept by a clear majority
FILES = ["questions.csv", "dropped.csv", "annotators.csv", "evidence.csv", "agreement.json"]
RULES_OFF = ("--no-require-spans", "--no-easy-must-be-right", "--min-accuracy", "0.3")
RULES_OFF_SETTINGS = {"require_spans": False, "easy_must_be_right": False, "min_accuracy": 0.3}


def _import(app, path: Path, *args: str, slug: str = "cz") -> None:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["import", "recam2021", str(path), "--project", slug, *args])
    assert result.exit_code == 0, result.output


def _export(app, out: Path, slug: str, *args: str) -> Path:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["export", "recam2021", "--project", slug, "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    return out


def _project(slug: str) -> Project:
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == slug)).one()


def _option_gold(definition: dict) -> dict:  # type: ignore[type-arg]
    return next(q for q in definition["questions"] if q["id"] == "option")["gold"]


def _voted(app, make_user, path: Path, k: int, *settings: str) -> Selection:  # type: ignore[no-untyped-def]
    """Project "declared" of the file with the settings, every item answered by the same k accounts (the API shape
    of before the switch, through the live engine); the paper's verdicts on those answers."""
    _import(app, path, "--k", str(k), *settings, slug="declared")
    rows = {row["id"]: row for row in released_items(path)}
    known = {qid: row["reference.option"] for qid, row in rows.items() if "reference.option" in row}
    given: dict[str, list[Vote]] = {}

    def answer(item: HitItem, shown: Shown, n: int) -> dict[str, Any]:
        """Annotator n's answer, favouring the file's known answer (the lease's item carries no reference)."""
        said = _built_in_answer(SimpleNamespace(external_id=item.external_id, payload=item.payload,   # type: ignore[arg-type]
                                                reference={"label": known[item.external_id]}
                                                if item.external_id in known else None), shown, n)
        given.setdefault(item.external_id, []).append(Vote(n, said["option"], said["difficulty"],
                                                           said["passage_span"] is not None,
                                                           said["question_span"] is not None))
        return said
    annotators = Annotators(k, tuple(make_user(f"ann{n}") for n in range(k)))
    assert annotators.answer_all(_project("declared"), answer) == k * len(rows)
    return paper_selection({qid: given[qid] for qid in rows}, known,
                           RULES_OFF_SETTINGS if settings == RULES_OFF else {})


def test_the_import_makes_a_declared_project_of_the_definition_with_k_3_and_the_file_as_its_split(app):
    _import(app, DEV)
    project = _project("cz")
    assert (project.task_type, project.k) == ("custom", 3)
    assert project.source == {"format": "recam2021", "split": "Task_1_dev_excerpt", "labelled": True,
                              "newline": "crlf"}
    assert project.definition == json.loads(json.dumps(load_definition(DEFINITION).to_data()))


def test_the_items_are_the_released_questions_with_the_label_as_the_definitions_reference(app):
    _import(app, DEV, slug="declared")
    found = [(i.external_id, i.payload, i.reference) for i in _project("declared").items]
    released = released_items(DEV)
    assert [(i, p) for i, p, _ in found] == [(row["id"], {k: v for k, v in row.items() if k != "reference.option"})
                                             for row in released]
    assert [r for _, _, r in found] == [{"option": str(row["reference.option"])} for row in released]
    assert not any(item.is_control for item in _project("declared").items)   # the known answers count in gold


def test_no_declared_is_refused_saying_the_built_in_type_is_gone_and_makes_nothing(app):
    result = app.test_cli_runner().invoke(args=["import", "recam2021", str(DEV), "--project", "cz",
                                                "--no-declared"])
    assert result.exit_code != 0
    assert "the built-in cloze HIT type is gone, every ReCAM project is a declared project" in result.output
    db.session.remove()
    assert db.session.scalars(select(Project).where(Project.slug == "cz")).first() is None


def test_selection_settings_given_with_the_import_are_the_rules_parameters(app):
    _import(app, DEV, *RULES_OFF)
    gold = _option_gold(_project("cz").definition)
    assert (gold["require_spans"], gold["easy_must_be_right"], gold["min_accuracy"]) == (False, False, 0.3)
    assert "keep_share" not in gold and "majority_share" not in gold   # not given: the rule's defaults
    assert _project("cz").settings == {}   # the declared type's own settings, none of the built-in's


def test_settings_equal_to_the_defaults_leave_the_definition_as_the_file_says(app):
    _import(app, DEV, "--require-spans", "--min-accuracy", "0.4")
    assert _project("cz").definition == json.loads(json.dumps(load_definition(DEFINITION).to_data()))


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


@pytest.mark.parametrize("path, k, settings", [(DEV, 4, ()), (TEST, 5, ()), (DEV, 4, RULES_OFF)],
                         ids=["dev", "test", "dev-rules-off"])
def test_the_export_says_what_the_paper_s_rules_say_on_the_votes(app, make_user, tmp_path, path, k, settings):
    expected = _voted(app, make_user, path, k, *settings)
    if not settings:   # the votes reach the rules: some annotations fail rule b (and, with known answers, rule c)
        assert expected.failed_b > 0 and (path == TEST or expected.failed_c > 0)
    kept = {qid for qid, verdict in expected.verdicts.items() if verdict != UNDECIDED}
    assert 0 < len(kept) < len(expected.verdicts) or path == TEST or settings
    names = [f"{path.stem}.jsonl", *FILES]
    out = _export(app, tmp_path / "kept", "declared")
    assert sorted(p.name for p in out.iterdir()) == sorted(names)
    questions = _csv(out / "questions.csv")
    assert {q["id"]: q["kept"] == "True" for q in questions} == {qid: qid in kept for qid in expected.verdicts}
    assert {q["id"] for q in _csv(out / "dropped.csv")} == set(expected.verdicts) - kept
    released = path.read_bytes().splitlines(keepends=True)
    ids = [row["id"] for row in released_items(path)]
    assert (out / path.name).read_bytes() == b"".join(line for qid, line in zip(ids, released) if qid in kept)
    assert len(_csv(out / "evidence.csv")) == k * len(ids)
    everything = _export(app, tmp_path / "all", "declared", "--questions", "all")
    assert (everything / path.name).read_bytes() == path.read_bytes()


def test_a_leaderboard_s_gold_is_the_kept_questions_with_the_paper_s_answers(app, make_user):
    expected = _voted(app, make_user, TEST, 5)
    gold = gold_set_from_project(_project("declared"))
    assert gold.task == "recam2021"
    kept = [json.loads(line) for line in gold.content.decode("utf-8").splitlines()]
    assert kept and {str(q["id"]): str(q["label"]) for q in kept} == \
        {qid: verdict for qid, verdict in expected.verdicts.items() if verdict != UNDECIDED}


def test_the_dataset_table_counts_the_released_file_s_questions_and_labels(app):
    _import(app, DEV, slug="declared")
    result = app.test_cli_runner().invoke(args=["stats", "declared", "--json"])
    assert result.exit_code == 0, result.output
    tables = json.loads(result.stdout)["tables"]
    labels = [row["reference.option"] for row in released_items(DEV)]
    assert list(tables[0]["rows"][0].values())[1:] == [len(labels), len(labels),
                                                       *(labels.count(n) for n in range(5))]
