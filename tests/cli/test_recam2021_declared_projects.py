"""`flask import recam2021 --declared`: a declared project of cloze_selection.yaml, served by the one engine, gives what
a built-in cloze project gives: the same questions and known answers, the selection settings given with the import
as its rule's parameters, and, with the same votes, the export's files byte for byte (the kept questions' lines,
questions.csv, dropped.csv, annotators.csv, evidence.csv, agreement.json), a leaderboard's scoring gold and the
dataset table.

Where the built-in project is the reference, both are imported from the same excerpt in the same database and
answered by the same accounts with the same answers, in today's API shape (the declared project converts them through
the task's bridge); the answers are drawn as tests/web/test_recam_definition.py draws them, so that annotations
without evidence (rule b) and "easy" but wrong ones (rule c) are among them (checked on the built-in's verdicts).
"""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select

from annotator.campaigns.leaderboard import gold_set_from_project
from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.declared.items import load_definition
from annotator.figures.kept_gold import gold_frame
from annotator.shared_tasks.recam2021.bridge import DEFINITION
from annotator.shared_tasks.recam2021.files import read_file
from annotator.tasks.base import HitItem
from tests.conftest import DATA
from tests.web.test_recam_definition import _built_in_answer
from tests.web.test_shared_task_definitions import Annotators, Shown

EXCERPTS = DATA / "recam2021"
DEV = EXCERPTS / "Task_1_dev_excerpt.jsonl"     # labels 2, 4, 4, 4: rules a and c, kept by the known answer's share
TEST = EXCERPTS / "Task_1_test_excerpt.jsonl"   # no labels: kept by a clear majority
FILES = ["questions.csv", "dropped.csv", "annotators.csv", "evidence.csv", "agreement.json"]
RULES_OFF = ("--no-require-spans", "--no-easy-must-be-right", "--min-accuracy", "0.3")


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


def _voted_pair(app, make_user, path: Path, k: int, *settings: str) -> None:  # type: ignore[no-untyped-def]
    """Projects "built-in" and "declared" of the file with the same settings, every item answered by the same k
    accounts with the same answers (today's shape, through the live engine)."""
    _import(app, path, "--k", str(k), "--no-declared", *settings, slug="built-in")
    _import(app, path, "--k", str(k), "--declared", *settings, slug="declared")
    known = {q.id: {"label": q.label} for q in read_file(path).questions if q.label is not None}

    def answer(item: HitItem, shown: Shown, n: int) -> dict[str, Any]:
        """Annotator n's answer, favouring the file's known answer (the lease's item carries no reference)."""
        return _built_in_answer(SimpleNamespace(external_id=item.external_id, payload=item.payload,   # type: ignore[arg-type]
                                                reference=known.get(item.external_id)), shown, n)
    annotators = Annotators(k, tuple(make_user(f"ann{n}") for n in range(k)))
    assert annotators.answer_all(_project("built-in"), answer) == \
        annotators.answer_all(_project("declared"), answer) == k * len(read_file(path).questions)


def test_the_declared_import_makes_a_project_of_the_definition_with_k_3_and_the_file_as_its_split(app):
    _import(app, DEV, "--declared")
    project = _project("cz")
    assert (project.task_type, project.k) == ("custom", 3)
    assert project.source == {"format": "recam2021", "split": "Task_1_dev_excerpt", "labelled": True,
                              "newline": "crlf"}
    assert project.definition == json.loads(json.dumps(load_definition(DEFINITION).to_data()))


def test_the_items_are_the_built_in_ones_with_the_label_as_the_definitions_reference(app):
    _import(app, DEV, "--declared", slug="declared")
    _import(app, DEV, "--no-declared", slug="built-in")
    items = {slug: [(i.external_id, i.payload, i.reference) for i in _project(slug).items]
             for slug in ("declared", "built-in")}
    assert [(i, p) for i, p, _ in items["declared"]] == [(i, p) for i, p, _ in items["built-in"]]
    labels = [q.label for q in read_file(DEV).questions]
    assert [r for _, _, r in items["declared"]] == [{"option": str(label)} for label in labels]
    assert not any(item.is_control for item in _project("declared").items)   # the known answers count in gold


def test_selection_settings_given_with_the_import_are_the_rules_parameters(app):
    _import(app, DEV, "--declared", *RULES_OFF)
    gold = _option_gold(_project("cz").definition)
    assert (gold["require_spans"], gold["easy_must_be_right"], gold["min_accuracy"]) == (False, False, 0.3)
    assert "keep_share" not in gold and "majority_share" not in gold   # not given: the rule's defaults
    assert _project("cz").settings == {}   # the declared type's own settings, none of the built-in's


def test_settings_equal_to_the_defaults_leave_the_definition_as_the_file_says(app):
    _import(app, DEV, "--declared", "--require-spans", "--min-accuracy", "0.4")
    assert _project("cz").definition == json.loads(json.dumps(load_definition(DEFINITION).to_data()))


@pytest.mark.parametrize("path, k, settings", [(DEV, 4, ()), (TEST, 5, ()), (DEV, 4, RULES_OFF)],
                         ids=["dev", "test", "dev-rules-off"])
def test_the_export_is_that_of_a_built_in_project_of_the_same_votes(app, make_user, tmp_path, path, k, settings):
    _voted_pair(app, make_user, path, k, *settings)
    if not settings:   # the votes reach the rules: some annotations fail rule b (and, with known answers, rule c)
        verdicts = gold_frame(_project("built-in"))
        assert verdicts["failed_b"].sum() > 0 and (path == TEST or verdicts["failed_c"].sum() > 0)
        assert 0 < verdicts["kept"].sum() < len(verdicts) or path == TEST
    names = [f"{path.stem}.jsonl", *FILES]
    for questions in ("kept", "all"):
        declared = _export(app, tmp_path / f"d-{questions}", "declared", "--questions", questions)
        built_in = _export(app, tmp_path / f"b-{questions}", "built-in", "--questions", questions)
        assert sorted(p.name for p in declared.iterdir()) == sorted(names)
        for name in names:
            assert (declared / name).read_bytes() == (built_in / name).read_bytes(), name
    assert (tmp_path / "d-all" / path.name).read_bytes() == path.read_bytes()


def test_a_leaderboard_takes_the_same_gold_from_the_declared_votes(app, make_user):
    _voted_pair(app, make_user, TEST, 5)
    golds = {slug: gold_set_from_project(_project(slug)) for slug in ("declared", "built-in")}
    assert golds["declared"].task == "recam2021" and golds["declared"].content == golds["built-in"].content
    kept = [json.loads(line) for line in golds["declared"].content.decode("utf-8").splitlines()]
    assert kept and all(isinstance(q["label"], int) for q in kept)   # the majority answer, where the file had none


def test_the_dataset_table_is_the_built_in_projects(app):
    _import(app, DEV, "--declared", slug="declared")
    _import(app, DEV, "--no-declared", slug="built-in")
    tables = {}
    for slug in ("declared", "built-in"):
        result = app.test_cli_runner().invoke(args=["stats", slug, "--json"])
        assert result.exit_code == 0, result.output
        tables[slug] = json.loads(result.stdout)["tables"]
    assert tables["declared"] == tables["built-in"]
    labels = [q.label for q in read_file(DEV).questions]
    assert list(tables["declared"][0]["rows"][0].values())[1:] == [len(labels), len(labels),
                                                                   *(labels.count(n) for n in range(5))]
