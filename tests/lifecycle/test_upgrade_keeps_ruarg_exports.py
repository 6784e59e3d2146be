"""RuArg-2022 projects of the built-in stance_premise type, made by the code before migration
0022_stance_premise_declared, upgrade with nothing lost and give the same files.

tests/data/before_one_engine_ruarg/ holds what the kept demo database (tests/data/before_one_engine) lacks: a
project of the test set's rule (k 4, 3 of 4) with an admin's decision and a control item, a Russian stance stage on
a file without labels with a control drawn from its gold, its premise stage with a decision, and a project about
other claims; beside it every output each gave then (its make.py and SOURCE.md). As
tests/lifecycle/test_upgrade_keeps_exports.py does for the demo's database, the file is upgraded on SQLite, and
on PostgreSQL its rows are copied into a schema at its revision which is then upgraded; every project must be a
declared project of its stage's definition, every vote, decision and known answer there in the definition's
terms, and every output the kept one byte for byte (`flask agreement` read back in the built-in's names)."""
from __future__ import annotations

import hashlib
import json
import math
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import text

from annotator.core.extensions import db
from tests.conftest import DATA, ENGINES, _test_app
from tests.lifecycle.conftest import drop_schema, new_schema
from tests.lifecycle.files_once import built_once
from tests.lifecycle.test_upgrade_keeps_exports import _diff, flask_command, kept_on_postgres
from tests.support.before_one_engine import ROWS, Step, admin_client, read_manifest, run_step, stored_rows

KEPT = DATA / "before_one_engine_ruarg"
MANIFEST_DATA = read_manifest(KEPT)
STEPS = [(slug, Step.from_json(step)) for slug, steps in MANIFEST_DATA["projects"].items() for step in steps]
KEPT_ROWS: dict[str, list[Any]] = json.loads((KEPT / ROWS).read_text(encoding="utf-8"))
STAGES = {"ru-m3": "both", "ru-claims": "both", "ru-stance": "stance", "ru-premise": "premise"}


def _sqlite_at_head(path: Path) -> None:
    shutil.copy(KEPT / MANIFEST_DATA["database"], path)
    flask_command(f"sqlite:///{path}", "db", "upgrade", process=True)  # as a user upgrades: a process of its own


def _at_head(engine: str, folder: Path, factory: pytest.TempPathFactory) -> tuple[str, str | None]:
    """The kept database upgraded to head on the engine: its URL, and the PostgreSQL schema made for it (SQLite:
    a copy of the file upgraded once for the run, tests/lifecycle/files_once.py)."""
    if engine == "sqlite":
        kept_copy = folder / "kept.db"
        built_once(factory, "ruarg-kept-upgraded-to-head.db", _sqlite_at_head, kept_copy)
        return f"sqlite:///{kept_copy}", None
    schema = new_schema("annotator_upgrade")
    return kept_on_postgres(schema, KEPT / MANIFEST_DATA["database"], MANIFEST_DATA["revision"], folder), schema


def _drop(schema: str | None) -> None:
    if schema is not None:
        drop_schema(schema)


@pytest.fixture(scope="module", params=ENGINES)
def upgraded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """An app on the kept database, upgraded to head on the engine (once per module and engine)."""
    folder = tmp_path_factory.mktemp(f"ruarg-upgrade-{request.param}")
    url, schema = _at_head(request.param, folder, tmp_path_factory)
    app = _test_app(url)
    app.config["EXPORT_DIR"] = folder / "exports"
    try:
        with app.app_context():
            yield app
            db.session.remove()
            db.engine.dispose()
    finally:
        _drop(schema)


@pytest.fixture(scope="module")
def admin(upgraded: Flask) -> Any:
    return admin_client(upgraded)


def test_the_kept_data_holds_what_the_demo_database_lacks() -> None:
    projects = {p["slug"]: p for p in KEPT_ROWS["projects"]}
    assert {p["task_type"] for p in projects.values()} == {"stance_premise"}
    assert {p["settings"].get("stage") for p in projects.values()} == {"both", "stance", "premise"}
    assert projects["ru-m3"]["settings"]["agree"] == 3 and projects["ru-stance"]["settings"]["language"] == "ru"
    assert [c["key"] for c in projects["ru-claims"]["settings"]["claims"]] == ["masks", "school"]
    assert {row["item"][0] for row in KEPT_ROWS["adjudications"]} == {"ru-m3", "ru-premise"}
    assert {item["project"] for item in KEPT_ROWS["items"] if item["is_control"]} == {"ru-m3", "ru-stance"}


def _claim(codes: dict[str, int]) -> dict[str, str]:
    """A claim's codes as RuArg's questions: irrelevant (-1), or relevant with its codes as text."""
    if -1 in codes.values():
        return {"relevance": "irrelevant"}
    return {"relevance": "relevant", **{field: str(code) for field, code in codes.items()}}


def _answer(slug: str, answer: dict[str, Any]) -> dict[str, Any]:
    """A built-in answer, decision or known answer in the definition's terms (written out from the paper's)."""
    claims = answer.get("claims", answer)
    if STAGES[slug] == "premise":
        return {f"{claim}_premise": str(codes["premise"]) for claim, codes in claims.items()}
    return {"claims": {claim: _claim(codes) for claim, codes in claims.items()}}


def _rows(slug: str, label: dict[str, Any]) -> list[dict[str, Any]]:
    """A built-in row as the definition's: the premise stage's under its claim's question, else the relevance
    beside the stance row, and the code unless it is -1."""
    if STAGES[slug] == "premise":
        return [{**label, "unit": f"{label['unit']}_premise", "field": f"{label['unit']}_premise"}]
    out = []
    if label["field"] == "stance":
        out.append({**label, "field": "relevance", "value": "irrelevant" if label["value"] == "-1" else "relevant"})
    if label["value"] != "-1":
        out.append(label)
    return out


def switched(table: str) -> list[Any]:
    """The kept rows of `table` as migration 0022 changes them, sorted as stored_rows sorts."""
    rows = [dict(row) for row in KEPT_ROWS[table]]
    if table == "projects":
        for project in rows:
            project["task_type"] = "custom"
            stance = project["settings"].get("stance_project")
            project["settings"] = {}
            if stance:
                project["source"] = {**project["source"], "stance_project": stance}
    elif table == "items":
        for item in rows:
            if item["reference"] is not None:
                item["reference"] = _answer(item["project"], item["reference"])
    elif table == "assignments":
        for vote in rows:
            if vote["answer"] is not None:
                vote["answer"] = _answer(vote["item"][0], vote["answer"])
    elif table == "labels":
        rows = [row for label in rows for row in _rows(label["item"][0], label)]
    return sorted(rows, key=lambda row: json.dumps(row, sort_keys=True, ensure_ascii=False))


@pytest.mark.parametrize("table", ["users", "projects", "items", "assignments", "labels"])
def test_every_row_is_there_in_the_definition_s_terms(upgraded: Flask, table: str) -> None:
    with upgraded.app_context():
        now = stored_rows()[table]
    if table == "projects":   # the definitions are checked below; the rest of the row as kept
        now = [{k: v for k, v in row.items() if k != "definition"} for row in now]
        expected = [{k: v for k, v in row.items() if k != "definition"} for row in switched(table)]
    else:
        expected = switched(table)
    assert now == expected


def test_every_decision_is_there_in_the_definition_s_terms(upgraded: Flask) -> None:
    with upgraded.app_context():
        rows = db.session.execute(text(
            "SELECT p.slug, i.external_id, a.answer FROM adjudications a JOIN items i ON i.id = a.item_id "
            "JOIN projects p ON p.id = a.project_id ORDER BY p.slug, i.external_id")).all()
        db.session.remove()
    now = [{"item": [slug, item], "answer": answer if isinstance(answer, dict) else json.loads(answer)}
           for slug, item, answer in rows]
    assert now == [{"item": row["item"], "answer": _answer(row["item"][0], row["answer"])}
                   for row in KEPT_ROWS["adjudications"]]


def test_each_project_is_a_declared_project_of_its_stage_s_definition_with_its_settings(upgraded: Flask) -> None:
    with upgraded.app_context():
        rows = db.session.execute(text("SELECT slug, definition FROM projects ORDER BY slug")).all()
        db.session.remove()
    found = {slug: d if isinstance(d, dict) else json.loads(d) for slug, d in rows}
    assert found["ru-m3"]["name"] == "Stance and premise per claim (RuArg-2022)"
    assert {q["gold"]["m"] for q in found["ru-m3"]["questions"][0]["questions"]} == {2, 3}   # relevance 2, labels 3
    assert found["ru-stance"]["show"][0]["label"] == "Предложение"
    assert [q["id"] for q in found["ru-premise"]["questions"]] == ["masks_premise", "quarantine_premise",
                                                                   "vaccines_premise"]
    assert [e["id"] for e in found["ru-claims"]["questions"][0]["elements"]] == ["masks", "school"]


def _agreement_in_built_in_terms(slug: str, output: bytes) -> bytes:
    """`flask agreement` after the switch in the built-in's names, as test_upgrade_keeps_exports reads the demo's:
    a claim's figure "<label> / <claim>" (premise stage: the question "<claim>_premise") is the built-in's
    "<claim> <label>", the pooled one "all labels", "irrelevant" -1; the gold summary's items the built-in's
    sentences, its relevance classes (at the premise stage: every premise row) the built-in's label counts (which
    left out the relevant claims with an undecided label: checked within the undecided rows); the
    definition's own figures (a label pooled over the claims) left out; each figure within 1e-12 of the kept one
    (another category order may change a sum's last binary digit), then written as kept."""
    data = json.loads(output)
    kept = json.loads((KEPT / "exports" / slug / "agreement" / "stdout.txt").read_text(encoding="utf-8"))
    bands = data["gold"]
    data["gold"] = {"sentences decided": bands["items decided"], "for adjudication": bands["items for adjudication"],
                    "adjudicated": bands["items adjudicated"]}
    if STAGES[slug] == "premise":   # every asked (sentence, claim) is relevant: its premise's rows, undecided too
        data["gold"]["relevant claim labels"] = sum(n for name, n in bands.items() if "_premise: " in name)
        data["gold"]["irrelevant"] = 0
    else:   # the built-in counted the relevant claims whose labels are decided; the definition every relevant
        # claim, those with an undecided label too (each counted among its label's undecided rows)
        relevant, before = bands["relevance: relevant"], kept["gold"]["relevant claim labels"]
        undecided = sum(n for name, n in bands.items() if name.endswith(": undecided") and "relevance" not in name)
        assert before <= relevant <= before + undecided, (before, relevant, undecided)
        data["gold"]["relevant claim labels"] = before
        data["gold"]["irrelevant"] = bands["relevance: irrelevant"]
    figures = {}
    for figure in data["fields"]:
        name = figure["field"]
        label, _, claim = name.partition(" / ")
        if name.startswith("all_labels"):
            figure["field"] = "all labels"
        elif claim:
            figure["field"] = f"{claim} {label}"
        elif name.endswith("_premise"):
            figure["field"] = f"{name.removesuffix('_premise')} premise"
        if name != "relevance":   # whose own values are relevant and irrelevant
            figure["categories"] = sorted("-1" if v == "irrelevant" else v for v in figure["categories"])
        figures[figure["field"]] = figure
    data["fields"] = [figures[before["field"]] for before in kept["fields"]]
    for figure, before in zip(data["fields"], kept["fields"]):
        for measure in ("fleiss_kappa", "krippendorff_alpha"):
            now, then = figure[measure]["value"], before[measure]["value"]
            if now is None or then is None:   # undefined: its reason names the one value, -1 by its word
                said = figure[measure]["undefined_because"]
                figure[measure]["undefined_because"] = said and said.replace("'irrelevant'", "'-1'")
                assert now == then, (figure["field"], measure)
                continue
            assert math.isclose(now, then, rel_tol=1e-12, abs_tol=1e-15), (figure["field"], measure, now, then)
            figure[measure]["value"] = then
    return (json.dumps(data, indent=2) + "\n").encode("utf-8")


@pytest.mark.parametrize(("slug", "step"), STEPS, ids=[f"{slug}-{step.name}" for slug, step in STEPS])
def test_every_output_is_the_kept_one_byte_for_byte(upgraded: Flask, admin: Any, tmp_path: Path, slug: str,
                                                    step: Step) -> None:
    kept = next(s for s in MANIFEST_DATA["projects"][slug] if s["name"] == step.name)
    result = run_step(upgraded, admin, slug, step, tmp_path / "out")
    files = result.pop("files")
    if step.name == "agreement":
        files = {path: _agreement_in_built_in_terms(slug, content) for path, content in files.items()}
    assert result == {k: v for k, v in kept.items() if k not in ("name", "kind", "args", "files")}
    assert sorted(files) == sorted(kept["files"])
    for path, content in files.items():
        entry = kept["files"][path]
        if entry["kept"]:
            before = (KEPT / "exports" / slug / step.name / path).read_bytes()
            assert content == before, f"{slug} {step.name} {path} differs:\n" + _diff(before, content)
        assert (hashlib.sha256(content).hexdigest(), len(content)) == (entry["sha256"], entry["size"]), path


@pytest.mark.parametrize("engine", ENGINES)
def test_the_downgrade_gives_every_row_and_decision_back_as_the_built_in_stored_it(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, engine: str) -> None:
    """Upgraded and downgraded again (`flask db downgrade 0021_cloze_declared`): the kept rows, settings and
    decisions, but for the settings an import stored at their defaults (the downgrade writes those that differ)."""
    url, schema = _at_head(engine, tmp_path, tmp_path_factory)
    try:
        flask_command(url, "db", "downgrade", MANIFEST_DATA["revision"])
        app = _test_app(url)
        with app.app_context():
            now = stored_rows()
            decisions = db.session.execute(text(
                "SELECT p.slug, i.external_id, a.answer FROM adjudications a JOIN items i ON i.id = a.item_id "
                "JOIN projects p ON p.id = a.project_id ORDER BY p.slug, i.external_id")).all()
            db.session.remove()
            db.engine.dispose()
    finally:
        _drop(schema)
    for table in ("users", "items", "assignments", "labels"):
        assert now[table] == KEPT_ROWS[table], table
    defaults = {"agree": 2, "relevant_votes": 2, "stage": "both", "language": "en", "stance_project": None}
    for project, before in zip(now["projects"], KEPT_ROWS["projects"]):
        settings = {k: v for k, v in before["settings"].items() if defaults.get(k, object()) != v}
        if [c["key"] for c in settings.get("claims", [])] == ["masks", "quarantine", "vaccines"]:
            del settings["claims"]   # the data set's three, the default
        elif "claims" in settings:   # each claim's text in the definition's one language, for both
            settings["claims"] = [{**c, "ru": c["en"]} for c in settings["claims"]]
        assert project == {**before, "settings": settings}, project["slug"]
    assert [{"item": [slug, item], "answer": a if isinstance(a, dict) else json.loads(a)}
            for slug, item, a in decisions] == KEPT_ROWS["adjudications"]
