"""A database made by the code before the HIT types became definitions of one engine upgrades with nothing lost.

tests/data/before_one_engine/ holds that database (made by its make.py, see SOURCE.md there): the demo's seven
projects (one per built-in HIT type and a declared campaign) with votes, control items, a passed and a failed
qualification quiz, a blocked annotator and a Prolific worker; beside it every output each project gave then.

On SQLite a copy of the file is upgraded with `flask db upgrade`, as a user upgrades. On PostgreSQL the schema
is made at the kept database's revision (`flask db upgrade REVISION`), its rows are copied over table by table
(SQLAlchemy Core, parents first), and the schema is upgraded to head. Then every project, item, user,
assignment and label must be there as it was, and every output must be the kept one byte for byte: each
`flask export` (every format, with and without pending items, each export option's choices), the admin page's
export zip, the dataset table, agreement, ranking, and the gold file a leaderboard scores against.

While no migration lies between the kept revision and head, this passes as a matter of course; it is the check
that the change to one engine must pass. Do not make the data again after that change (SOURCE.md).
"""
from __future__ import annotations

import difflib
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from alembic.script import ScriptDirectory
from flask import Flask
from sqlalchemy import JSON, MetaData, Text, bindparam, cast, create_engine, insert, select, text
from sqlalchemy.engine import Engine

from annotator.core.extensions import db
from annotator.core.schema import MIGRATIONS
from bench.common import with_search_path
from tests.conftest import DATA, ENGINES, POSTGRES_URL, _test_app
from tests.lifecycle.conftest import drop_schema, new_schema
from tests.lifecycle.flask_in_process import Finished, flask
from tests.lifecycle.test_emphasis_declared_downgrade import kept_upgraded
from tests.support.before_one_engine import ROWS, Step, admin_client, read_manifest, run_step, stored_rows

KEPT = DATA / "before_one_engine"
ROOT = Path(__file__).resolve().parents[2]
MANIFEST_DATA = read_manifest(KEPT)
STEPS = [(slug, Step.from_json(step)) for slug, steps in MANIFEST_DATA["projects"].items() for step in steps]


def flask_command(database_url: str, *args: str, process: bool = False) -> None:
    """`flask --app annotator ARGS` on the database, in this process (tests/lifecycle/flask_in_process.py), or with
    `process` in a new one, as a user runs it; fails the test with its output."""
    if process:
        env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": "upgrade-test"}
        done: Finished | subprocess.CompletedProcess[str] = subprocess.run(
            [sys.executable, "-m", "flask", "--app", "annotator", *args], cwd=ROOT, env=env, capture_output=True,
            text=True, check=False, timeout=300)
    else:
        done = flask(database_url, "upgrade-test", *args)
    assert done.returncode == 0, f"flask {' '.join(args)}:\n{done.stdout}\n{done.stderr}"


def _sqlite_upgraded(folder: Path, factory: pytest.TempPathFactory) -> str:
    """A copy of the kept file upgraded to head by `flask db upgrade` (built once for the run: kept_upgraded)."""
    path = folder / "annotator.db"
    kept_upgraded(factory, path)
    return f"sqlite:///{path}"


def _copy_rows(source: Engine, target: Engine) -> None:
    """Every row of the kept SQLite file into the PostgreSQL schema made at the same revision, parents first.

    JSON is carried as its text and cast on the way in: read as Python values, an SQL NULL and a JSON null
    would both come back as None and could not be told apart when written again."""
    old, new = MetaData(), MetaData()
    old.reflect(source)
    new.reflect(target)
    with source.connect() as reading, target.begin() as writing:
        for table in new.sorted_tables:
            if table.name == "alembic_version":
                continue
            kept = old.tables[table.name]
            json_columns = {c.name for c in table.columns if isinstance(c.type, JSON)}
            columns = [kept.c[c.name].cast(Text()) if c.name in json_columns else kept.c[c.name]
                       for c in table.columns]
            rows = [dict(row) for row in reading.execute(select(*columns)).mappings()]
            if not rows:
                continue
            values = {c.name: cast(bindparam(c.name, type_=Text()), c.type) if c.name in json_columns
                      else bindparam(c.name, type_=c.type) for c in table.columns}
            writing.execute(insert(table).values(values), rows)
        for table in new.sorted_tables:
            if "id" in table.c:
                writing.execute(text("SELECT setval(pg_get_serial_sequence(:table, 'id'), "
                                     f"(SELECT coalesce(max(id), 0) + 1 FROM {table.name}), false) "
                                     "WHERE pg_get_serial_sequence(:table, 'id') IS NOT NULL"),
                                {"table": table.name})


def _postgres_upgraded(schema: str, folder: Path) -> str:
    """A schema at the kept revision, the kept rows copied in, upgraded to head."""
    return kept_on_postgres(schema, KEPT / MANIFEST_DATA["database"], MANIFEST_DATA["revision"], folder)


def kept_on_postgres(schema: str, kept: Path, revision: str, folder: Path) -> str:
    """The schema migrated to `revision`, the rows of the kept SQLite database `kept` (made by the code of that
    revision) copied in, then upgraded to head: its URL."""
    url = with_search_path(POSTGRES_URL, schema)
    flask_command(url, "db", "upgrade", revision)
    kept_copy = folder / "kept.db"
    shutil.copy(kept, kept_copy)
    source, target = create_engine(f"sqlite:///{kept_copy}"), create_engine(url)
    try:
        _copy_rows(source, target)
    finally:
        source.dispose()
        target.dispose()
    flask_command(url, "db", "upgrade")
    return url


@pytest.fixture(scope="module", params=ENGINES)
def upgraded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """An app on the kept database, upgraded to head on the engine (once per module and engine)."""
    folder = tmp_path_factory.mktemp(f"upgrade-{request.param}")
    schema = None
    if request.param == "sqlite":
        url = _sqlite_upgraded(folder, tmp_path_factory)
    else:
        schema = new_schema("annotator_upgrade")
        url = _postgres_upgraded(schema, folder)
    app = _test_app(url)
    app.config["EXPORT_DIR"] = folder / "exports"
    try:
        with app.app_context():  # the test client drops the test's session after each request (tests/conftest.py)
            yield app
            db.session.remove()
            db.engine.dispose()
    finally:
        if schema is not None:
            drop_schema(schema)


@pytest.fixture(scope="module")
def admin(upgraded: Flask) -> Any:
    return admin_client(upgraded)


def test_the_kept_database_upgrades_to_head(upgraded: Flask) -> None:
    with upgraded.app_context():
        revision = db.session.scalar(text("SELECT version_num FROM alembic_version"))
        db.session.remove()
    scripts = ScriptDirectory(str(MIGRATIONS))
    assert revision == scripts.get_current_head()
    assert MANIFEST_DATA["revision"] in {r.revision for r in scripts.walk_revisions()}


@pytest.mark.parametrize("table", ["users", "projects", "items", "assignments", "labels", "control_answers",
                                   "annotator_states", "quiz_results", "crowd_links", "crowd_workers",
                                   "crowd_sessions"])
def test_every_row_is_there_as_it_was(upgraded: Flask, table: str) -> None:
    """Every row as it was, except what the switch to one engine changed on purpose (`switched`)."""
    rows = json.loads((KEPT / ROWS).read_text(encoding="utf-8"))
    assert len(rows[table]) == MANIFEST_DATA["counts"][table] > 0
    kept = switched(rows)[table]
    with upgraded.app_context():
        now = stored_rows()[table]
    assert now == kept


# The emphasis projects as migration 0018_emphasis_declared leaves them: declared projects of selection.yaml; the
# ReCAM projects as 0021_cloze_declared leaves them: declared projects of cloze_selection.yaml; the RuArg-2022
# projects as 0022_stance_premise_declared leaves them: declared projects of stance_premise.yaml (stage "both");
# the KPA-2021 projects as 0023_kpa_declared leaves them: declared projects of match.yaml, match_check.yaml and
# set_compare.yaml.
EMPHASIS_PROJECTS = {"emphasis-demo"}
CLOZE_PROJECTS = {"cloze-demo"}
RUARG_PROJECTS = {"stance-demo"}
MATCH_PROJECTS, CHECK_PROJECTS, COMPARE_PROJECTS = {"kpa-demo"}, {"kpa-check-demo"}, {"kpa-compare-demo"}
KPA_PROJECTS = MATCH_PROJECTS | CHECK_PROJECTS | COMPARE_PROJECTS
EVIDENCE_TEXT = {"passage_span": "article", "question_span": "question"}


def _project_of(row: dict[str, Any]) -> str | None:
    return row.get("project") or (row.get("item") or [None])[0] or row.get("slug")


def _marks(span: list[int] | None) -> list[dict[str, Any]]:
    return [] if span is None else [{"start": span[0], "end": span[1], "label": "evidence"}]


def _cloze_vote(rows: list[dict[str, Any]], payload: dict[str, Any]) -> list[dict[str, Any]]:
    """One built-in vote's four rows as the definition stores the vote: the option, each evidence question's rows
    (one per character of its text but white space, "evidence" inside the marked span else "O", then the mark's own
    row), the difficulty. The kept texts are plain letters, digits and punctuation (checked): a character is then a
    code point."""
    said = {row["field"]: row["value"] for row in rows}
    assert len(rows) == 4 and all(row["unit"] == "question" for row in rows)
    base = {key: rows[0][key] for key in ("item", "user")}
    out = [{**base, "unit": "option", "field": "option", "value": said["option"]}]
    for question, field in EVIDENCE_TEXT.items():
        text = payload[field]
        assert all(len(char.encode("utf-8")) == 1 for char in text), "a kept text beyond ASCII"
        span = [int(n) for n in said[question].split(":")] if said[question] else None
        for at, char in enumerate(text):
            if not char.isspace():
                inside = span is not None and span[0] <= at < span[1]
                out.append({**base, "unit": f"{at}:{at + 1}", "field": question,
                            "value": "evidence" if inside else "O"})
        if span is not None:
            out.append({**base, "unit": f"{span[0]}:{span[1]}:evidence", "field": question, "value": "1"})
    return out + [{**base, "unit": "difficulty", "field": "difficulty", "value": said["difficulty"]}]


def _ruarg_claim(codes: dict[str, int]) -> dict[str, str]:
    """A claim's two codes as RuArg's questions: irrelevant (-1, both labels) or relevant with the two codes."""
    if codes["stance"] == -1:
        return {"relevance": "irrelevant"}
    return {"relevance": "relevant", "stance": str(codes["stance"]), "premise": str(codes["premise"])}


def _ruarg_rows(label: dict[str, Any]) -> list[dict[str, Any]]:
    """One built-in row (claim, stance | premise, code) as the definition's: the relevance beside the stance row
    (irrelevant for -1, else relevant), the code itself unless it is -1 (an irrelevant claim's labels are not
    asked)."""
    out = []
    if label["field"] == "stance":
        out.append({**label, "field": "relevance", "value": "irrelevant" if label["value"] == "-1" else "relevant"})
    if label["value"] != "-1":
        out.append(label)
    return out


def _compare_vote(rows: list[dict[str, Any]], payload: dict[str, Any]) -> list[dict[str, Any]]:
    """One built-in set comparison's rows as the definition stores the vote: each stance under its system's name; each
    comparison under the pair of the item's systems, "A" for the first, "B" for the second, or "equal"; and the right
    stance, won by the set that alone takes the stance of its side (all_support for a pro item, all_contest for a con
    one), "equal" when both or neither do (the overview's third ranking)."""
    first, second = payload["systems"]
    pair = json.dumps([first, second])
    base = {key: rows[0][key] for key in ("item", "user")}
    out, stances = [], {}
    for row in rows:
        if row["field"] == "stance":
            system = row["unit"].removeprefix("stance ")
            stances[system] = row["value"]
            out.append({**base, "unit": system, "field": "stance", "value": row["value"]})
        else:
            assert row["unit"] == "pair"
            side = {first: "A", second: "B", "equal": "equal"}[row["value"]]
            out.append({**base, "unit": pair, "field": row["field"], "value": side})
    right = {1: "all_support", -1: "all_contest"}[payload["stance"]]
    first_right, second_right = stances[first] == right, stances[second] == right
    won = "A" if first_right and not second_right else "B" if second_right and not first_right else "equal"
    return out + [{**base, "unit": pair, "field": "right_stance", "value": won}]


def _compare_answer(answer: dict[str, Any]) -> dict[str, Any]:
    """A set comparison's answer as the definition stores it: each stance under the side it was shown on, the
    comparisons as given (the sides shown)."""
    return {"each_summary": {"A": {"stance": answer["stance_a"]}, "B": {"stance": answer["stance_b"]}},
            "less_redundant": answer["less_redundant"], "more_central": answer["more_central"]}


def switched(rows: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The kept rows as the switch to one engine changes them, written out here from the paper's terms, not the
    app's mapping: an emphasis project's type is the declared one; each of its label rows (word, "bio", tag) is the
    same tag under "emphasis.bio" beside a row (word, "emphasis", "1" if the word is in a span else "0"); its
    answers {"tags": t} are {"emphasis": t}; a known answer (each word's probability) is the answer of question
    "emphasis". A ReCAM project's type is the declared one too; a known answer {"label": n} is {"option": "n"}; an
    answer's option is its position as text, each evidence span a list of one mark labelled "evidence" or none; a
    vote's rows are _cloze_vote's. A RuArg project's type is the declared one; its answers and known answers give
    each claim's relevance, and for a relevant claim its codes as text; its rows are _ruarg_rows'. A KPA-2021
    project's type is the declared one: a match vote's rows (key point, "match", 1 / 0) are the same under the
    question "matches" (its answers the same: the ticked key points, each kept answer in the item's order,
    checked); a check vote's row ("pair", "verdict", v) is ("verdict", "verdict", v); a comparison vote's rows are
    _compare_vote's, its answer _compare_answer's, and the drawn order {"a": x, "b": y} is {"swapped": [both
    comparisons]} when x is the item's second system, else {"swapped": []}. Sorted as stored_rows sorts."""
    out = {table: [dict(row) for row in values] for table, values in rows.items()}
    for project in out["projects"]:
        if project["slug"] in EMPHASIS_PROJECTS | CLOZE_PROJECTS | RUARG_PROJECTS | KPA_PROJECTS:
            project["task_type"] = "custom"
    payloads = {tuple([item["project"], item["external_id"]]): item["payload"] for item in out["items"]}
    for item in out["items"]:
        if _project_of(item) in EMPHASIS_PROJECTS and item["reference"] is not None:
            item["reference"] = {"emphasis": item["reference"]}
        if _project_of(item) in CLOZE_PROJECTS and item["reference"] is not None:
            item["reference"] = {"option": str(item["reference"]["label"])}
        if _project_of(item) in RUARG_PROJECTS and item["reference"] is not None:
            item["reference"] = {"claims": {c: _ruarg_claim(codes) for c, codes in item["reference"].items()}}
    for vote in out["assignments"]:
        if _project_of(vote) in EMPHASIS_PROJECTS and vote["answer"] is not None:
            vote["answer"] = {"emphasis": vote["answer"]["tags"]}
        if _project_of(vote) in CLOZE_PROJECTS and vote["answer"] is not None:
            answer = vote["answer"]
            vote["answer"] = {"option": str(answer["option"]), "passage_span": _marks(answer["passage_span"]),
                              "question_span": _marks(answer["question_span"]), "difficulty": answer["difficulty"]}
        if _project_of(vote) in RUARG_PROJECTS and vote["answer"] is not None:
            vote["answer"] = {"claims": {c: _ruarg_claim(codes) for c, codes in vote["answer"]["claims"].items()}}
        if _project_of(vote) in MATCH_PROJECTS and vote["answer"] is not None:
            order = [kp["id"] for kp in payloads[tuple(vote["item"])]["key_points"]]
            assert vote["answer"]["matches"] == sorted(vote["answer"]["matches"], key=order.index)
        if _project_of(vote) in COMPARE_PROJECTS:
            first = payloads[tuple(vote["item"])]["systems"][0]
            vote["presentation"] = {"swapped": [] if vote["presentation"]["a"] == first else
                                    ["less_redundant", "more_central"]}
            if vote["answer"] is not None:
                vote["answer"] = _compare_answer(vote["answer"])
    labels = []
    cloze_votes: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    compare_votes: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for label in out["labels"]:
        if _project_of(label) in MATCH_PROJECTS:
            assert label["field"] == "match"
            label = {**label, "field": "matches"}
        if _project_of(label) in CHECK_PROJECTS:
            assert (label["unit"], label["field"]) == ("pair", "verdict")
            label = {**label, "unit": "verdict"}
        if _project_of(label) in COMPARE_PROJECTS:
            compare_votes.setdefault((*label["item"], label["user"]), []).append(label)
            continue
        if _project_of(label) in EMPHASIS_PROJECTS:
            assert label["field"] == "bio"
            labels.append({**label, "field": "emphasis", "value": "1" if label["value"] in ("B", "I") else "0"})
            label = {**label, "field": "emphasis.bio"}
        if _project_of(label) in CLOZE_PROJECTS:
            cloze_votes.setdefault((*label["item"], label["user"]), []).append(label)
            continue
        if _project_of(label) in RUARG_PROJECTS:
            labels += _ruarg_rows(label)
            continue
        labels.append(label)
    for (slug, item, _), vote in cloze_votes.items():
        labels += _cloze_vote(vote, payloads[(slug, item)])
    for (slug, item, _), vote in compare_votes.items():
        labels += _compare_vote(vote, payloads[(slug, item)])
    out["labels"] = labels
    return {table: sorted(values, key=lambda row: json.dumps(row, sort_keys=True, ensure_ascii=False))
            for table, values in out.items()}


def test_the_emphasis_projects_are_declared_projects_of_the_definition(upgraded: Flask) -> None:
    definition = yaml.safe_load((ROOT / "annotator" / "shared_tasks" / "emphasis2020" / "selection.yaml")
                                .read_text(encoding="utf-8"))
    with upgraded.app_context():
        kept = db.session.execute(text("SELECT slug, task_type, definition FROM projects WHERE slug IN "
                                       "('emphasis-demo')")).all()
        db.session.remove()
    assert [(slug, task) for slug, task, _ in kept] == [("emphasis-demo", "custom")]
    stored = kept[0][2] if isinstance(kept[0][2], dict) else json.loads(kept[0][2])
    assert stored["name"] == definition["name"] and stored["questions"][0]["id"] == "emphasis"
    assert stored["questions"][0]["boundaries"] is True and stored["questions"][0]["gold"] == "probability"


def test_the_cloze_projects_are_declared_projects_of_the_definition(upgraded: Flask) -> None:
    definition = yaml.safe_load((ROOT / "annotator" / "shared_tasks" / "recam2021" / "cloze_selection.yaml")
                                .read_text(encoding="utf-8"))
    with upgraded.app_context():
        kept = db.session.execute(text("SELECT slug, task_type, definition FROM projects WHERE slug IN "
                                       "('cloze-demo')")).all()
        db.session.remove()
    assert [(slug, task) for slug, task, _ in kept] == [("cloze-demo", "custom")]
    stored = kept[0][2] if isinstance(kept[0][2], dict) else json.loads(kept[0][2])
    assert stored["name"] == definition["name"]
    assert [q["id"] for q in stored["questions"]] == ["option", "passage_span", "question_span", "difficulty"]
    # the demo's settings are the built-in's defaults: the rule without parameters, as the file has it
    assert stored["questions"][0]["gold"] == definition["questions"][0]["gold"]


def test_the_ruarg_projects_are_declared_projects_of_the_stage_s_definition(upgraded: Flask) -> None:
    definition = yaml.safe_load((ROOT / "annotator" / "shared_tasks" / "ruarg2022" / "stance_premise.yaml")
                                .read_text(encoding="utf-8"))
    with upgraded.app_context():
        kept = db.session.execute(text("SELECT slug, task_type, definition, settings FROM projects WHERE slug IN "
                                       "('stance-demo')")).all()
        db.session.remove()
    assert [(slug, task) for slug, task, _, _ in kept] == [("stance-demo", "custom")]
    stored = kept[0][2] if isinstance(kept[0][2], dict) else json.loads(kept[0][2])
    # the demo's settings are the built-in's defaults: the file's definition, its three claims and m 2
    assert stored["name"] == definition["name"] and stored["questions"] == definition["questions"]
    assert (kept[0][3] if isinstance(kept[0][3], dict) else json.loads(kept[0][3])) == {}


KPA_DEFINITIONS = {"kpa-demo": "match.yaml", "kpa-check-demo": "match_check.yaml",
                   "kpa-compare-demo": "set_compare.yaml"}


@pytest.mark.parametrize("slug", sorted(KPA_DEFINITIONS))
def test_the_kpa_projects_are_declared_projects_of_their_definitions(upgraded: Flask, slug: str) -> None:
    """The demo's KPA settings are the built-in's defaults: each definition as its file has it, the comparison's
    settings that are no rules (equal, the linked check project) kept as the project's."""
    definition = yaml.safe_load((ROOT / "annotator" / "shared_tasks" / "kpa2021" / KPA_DEFINITIONS[slug])
                                .read_text(encoding="utf-8"))
    with upgraded.app_context():
        [(task, stored, settings)] = db.session.execute(
            text("SELECT task_type, definition, settings FROM projects WHERE slug = :slug"), {"slug": slug}).all()
        db.session.remove()
    stored = stored if isinstance(stored, dict) else json.loads(stored)
    settings = settings if isinstance(settings, dict) else json.loads(settings)
    assert task == "custom" and stored["name"] == definition["name"]
    assert [q.get("id") or q.get("repeat") for q in stored["questions"]] == \
        [q.get("id") or q.get("repeat") for q in definition["questions"]]
    assert stored["questions"][0].get("gold") == definition["questions"][0].get("gold")
    assert settings == ({"equal": "half", "check_project": "kpa-check-demo"} if slug == "kpa-compare-demo" else {})


def test_the_kept_data_holds_what_the_check_needs() -> None:
    """The kept database is worth checking: every built-in HIT type, several annotators, decided and undecided
    gold, control items, a quiz passed and failed, a blocked annotator and a crowd worker."""
    rows = json.loads((KEPT / ROWS).read_text(encoding="utf-8"))
    types = {p["task_type"] for p in rows["projects"]}
    assert {"kp_match", "kp_match_check", "kp_set_compare", "emphasis", "stance_premise", "cloze"} <= types
    assert len({a["user"] for a in rows["assignments"] if a["status"] == "submitted"}) >= 6
    assert any(u["username"].startswith("prolific:") for u in rows["users"])
    assert any(i["is_control"] for i in rows["items"])
    agreement = {slug: json.loads((KEPT / "exports" / slug / "agreement" / "stdout.txt").read_text())
                 for slug in MANIFEST_DATA["projects"]}
    gold = agreement["kpa-demo"]["gold"]
    assert gold["undecided"] > 0 and gold["match"] > 0 and gold["no match"] > 0


@pytest.mark.parametrize(("slug", "step"), STEPS, ids=[f"{slug}-{step.name}" for slug, step in STEPS])
def test_every_output_is_the_kept_one_byte_for_byte(upgraded: Flask, admin: Any, tmp_path: Path, slug: str,
                                                    step: Step) -> None:
    kept = next(s for s in MANIFEST_DATA["projects"][slug] if s["name"] == step.name)
    result = run_step(upgraded, admin, slug, step, tmp_path / "out")
    files = result.pop("files")
    if (slug, step.name) in RENAMED:
        files = {path: RENAMED[slug, step.name](content) for path, content in files.items()}
    if (slug, step.name) in NOT_CARRIED_OVER:   # figures the definition computes otherwise, left out of both
        trim = NOT_CARRIED_OVER[slug, step.name]
        for path, content in files.items():
            before = (KEPT / "exports" / slug / step.name / path).read_bytes()
            assert trim(content) == trim(before), f"{slug} {step.name} {path} differs:\n" + _diff(trim(before),
                                                                                                   trim(content))
        return
    # the exit code (a command) or status and type (the zip), or the scorer's gold file and options
    assert result == {k: v for k, v in kept.items() if k not in ("name", "kind", "args", "files")}
    assert sorted(files) == sorted(kept["files"])
    for path, content in files.items():
        entry = kept["files"][path]
        if entry["kept"]:
            before = (KEPT / "exports" / slug / step.name / path).read_bytes()
            assert content == before, f"{slug} {step.name} {path} differs:\n" + _diff(before, content)
        assert (hashlib.sha256(content).hexdigest(), len(content)) == (entry["sha256"], entry["size"]), path


def _emphasis_agreement_in_built_in_terms(output: bytes) -> bytes:
    """`flask agreement` of an emphasis project after the switch, in the built-in's names: its figures must be the
    kept ones; only their names are the definition's. The tag field "emphasis.bio" was the built-in's "bio"; the
    gold's three classes of words by probability were named in words, with the words counted first (the sum of
    the three)."""
    data = json.loads(output)
    bands = data["gold"]
    data["gold"] = {"words": sum(bands.values()),
                    "emphasised by most (p > 0.5)": bands.pop("emphasis: p > 0.5"),
                    "by some (0 < p \u2264 0.5)": bands.pop("emphasis: 0 < p \u2264 0.5"),
                    "by nobody (p = 0)": bands.pop("emphasis: p = 0")}
    assert bands == {}, bands
    for figure in data["fields"]:
        if figure["field"] == "emphasis.bio":
            figure["field"] = "bio"
    return (json.dumps(data, indent=2) + "\n").encode("utf-8")


def _cloze_agreement_in_built_in_terms(output: bytes) -> bytes:
    """`flask agreement` of a ReCAM project after the switch, in the built-in's terms: the option's and the
    difficulty's figures must be the kept ones. The definition's gold summary counts the option's gold by value
    (a kept question's answer) and "undecided" (a dropped one), where the built-in counted kept and dropped
    questions and those kept without a known answer (none here: every kept item has one, checked); the two
    evidence questions' figures per character are the definition's own, which the built-in did not compute."""
    data = json.loads(output)
    rows = json.loads((KEPT / ROWS).read_text(encoding="utf-8"))
    assert all(item["reference"] is not None for item in rows["items"] if item["project"] == "cloze-demo")
    bands = data["gold"]
    options = {key: bands[key] for key in bands if key.startswith("option: ")}
    dropped = options.pop("option: undecided")
    data["gold"] = {"kept": sum(options.values()), "dropped": dropped, "kept without a known answer": 0}
    data["fields"] = [figure for figure in data["fields"] if figure["field"] in ("option", "difficulty")]
    return (json.dumps(data, indent=2) + "\n").encode("utf-8")


def _ruarg_agreement_in_built_in_terms(output: bytes) -> bytes:
    """`flask agreement` of a RuArg project after the switch, in the built-in's terms: every figure must be the
    kept one. The definition names a claim's figure "stance / masks" (the built-in's "masks stance"), the pooled one
    "all_labels (pooled)" ("all labels"), and "irrelevant" (the data set's -1) by its word; its gold summary counts
    items where the built-in said sentences, and the relevance's classes ("relevance: relevant" the built-in's
    "relevant claim labels"). The definition's figures of each label pooled over the claims ("stance", "premise")
    and its gold counts per label value are its own, which the built-in did not give; each n/a count is checked
    against the irrelevant claims. The declared engine sums the categories in another order ("irrelevant" sorts
    after the codes where -1 sorted before them), so a kappa may differ in its last binary digit: each figure is
    checked equal within 1e-12 of the kept one and then written as kept, the rest byte for byte."""
    data = json.loads(output)
    bands = data["gold"]
    assert bands["stance: n/a"] == bands["premise: n/a"] == bands["relevance: irrelevant"]
    data["gold"] = {"sentences decided": bands["items decided"], "for adjudication": bands["items for adjudication"],
                    "adjudicated": bands["items adjudicated"], "relevant claim labels": bands["relevance: relevant"],
                    "irrelevant": bands["relevance: irrelevant"]}
    figures = {figure["field"]: figure for figure in data["fields"]}
    claims = [field.split(" / ")[1] for field in figures if field.startswith("stance / ")]
    order = ["all_labels (pooled)", "relevance"] + [f"{label} / {claim}" for claim in claims
                                                    for label in ("stance", "premise")]
    data["fields"] = []
    for name in order:
        figure = figures[name]
        label, _, claim = name.partition(" / ")
        figure["field"] = "all labels" if name.startswith("all_labels") else f"{claim} {label}" if claim else name
        if name != "relevance":
            figure["categories"] = sorted("-1" if value == "irrelevant" else value for value in figure["categories"])
        data["fields"].append(figure)
    kept = json.loads((KEPT / "exports" / "stance-demo" / "agreement" / "stdout.txt").read_text(encoding="utf-8"))
    for figure, before in zip(data["fields"], kept["fields"]):
        for measure in ("fleiss_kappa", "krippendorff_alpha"):
            now, then = figure[measure]["value"], before[measure]["value"]
            assert figure["field"] == before["field"] and math.isclose(now, then, rel_tol=1e-12, abs_tol=1e-15), \
                (figure["field"], measure, now, then)
            figure[measure]["value"] = then
    return (json.dumps(data, indent=2) + "\n").encode("utf-8")


def _match_agreement_in_built_in_terms(output: bytes) -> bytes:
    """`flask agreement` of a KPA match project after the switch, in the built-in's names: the question "matches"
    was the field "match", and its gold by value (1, 0, undecided) was counted as match, no match and undecided."""
    data = json.loads(output)
    bands = data["gold"]
    data["gold"] = {"match": bands.pop("matches: 1"), "no match": bands.pop("matches: 0"),
                    "undecided": bands.pop("matches: undecided")}
    assert bands == {}, bands
    for figure in data["fields"]:
        figure["field"] = {"matches": "match"}.get(figure["field"], figure["field"])
    return (json.dumps(data, indent=2) + "\n").encode("utf-8")


def _check_agreement_in_built_in_terms(output: bytes) -> bytes:
    """`flask agreement` of a KPA match check after the switch, in the built-in's names: the merged figure "verdict:
    match" was the field "match"; the gold counted matches ("yes"), no matches and the no matches whose verdicts
    were mostly "faulty" (the further decision faulty_majority, "1": a strict majority of faulty is one of no + faulty,
    so each of them is a verdict "no"). A strict majority with ties counts no pair undecided."""
    data = json.loads(output)
    bands = data["gold"]
    faulty = bands["faulty_majority: 1"]
    assert bands["verdict: undecided"] == bands["faulty_majority: undecided"] == 0
    data["gold"] = {"match": bands["verdict: yes"], "no match": bands["verdict: no"] - faulty,
                    "no match, mostly faulty key point": faulty}
    for figure in data["fields"]:
        figure["field"] = {"verdict: match": "match"}.get(figure["field"], figure["field"])
    return (json.dumps(data, indent=2) + "\n").encode("utf-8")


def _compare_agreement_in_built_in_terms(output: bytes) -> bytes:
    """`flask agreement` of a KPA set comparison after the switch, in the built-in's terms: the gold counted the
    pairs of sets judged (each judged item has one less_redundant decision: A, B, equal or undecided) and their
    judgments (every vote here is on a judged item: checked against the kept rows); the stance figure is the
    built-in's, both sets of every item pooled. The comparisons' figures are the definition's own (values A / B /
    equal in the item's terms, where the built-in pooled system names; docs/one-engine.md, "Where the figures
    differ"), the derived right stance's too: `_without_the_comparisons` leaves them out of both."""
    data = json.loads(output)
    rows = json.loads((KEPT / ROWS).read_text(encoding="utf-8"))
    votes = [a for a in rows["assignments"] if _project_of(a) == "kpa-compare-demo" and a["status"] == "submitted"]
    judged = {tuple(a["item"]) for a in votes}
    assert all(sum(tuple(a["item"]) == item for a in votes) == 3 for item in judged)   # every judged item complete
    bands = data["gold"]
    data["gold"] = {"pairs judged": sum(n for key, n in bands.items() if key.startswith("less_redundant: ")),
                    "judgments": len(votes)}
    assert data["gold"]["pairs judged"] == len(judged)
    order = {"less_redundant": 0, "more_central": 1, "stance": 2}
    data["fields"] = sorted((f for f in data["fields"] if f["field"] in order), key=lambda f: order[f["field"]])
    return (json.dumps(data, indent=2) + "\n").encode("utf-8")


def _without_the_comparisons(output: bytes) -> bytes:
    """An agreement output without the comparisons' figures (see _compare_agreement_in_built_in_terms)."""
    data = json.loads(output)
    data["fields"] = [f for f in data["fields"] if f["field"] not in ("less_redundant", "more_central")]
    return (json.dumps(data, indent=2) + "\n").encode("utf-8")


# Outputs that name things by the definition's names after the switch: read back in the built-in's names, then
# compared byte for byte (every export, zip, table, ranking and scoring gold is compared as it is).
RENAMED = {("emphasis-demo", "agreement"): _emphasis_agreement_in_built_in_terms,
           ("cloze-demo", "agreement"): _cloze_agreement_in_built_in_terms,
           ("stance-demo", "agreement"): _ruarg_agreement_in_built_in_terms,
           ("kpa-demo", "agreement"): _match_agreement_in_built_in_terms,
           ("kpa-check-demo", "agreement"): _check_agreement_in_built_in_terms,
           ("kpa-compare-demo", "agreement"): _compare_agreement_in_built_in_terms}
# Outputs holding figures the definition computes otherwise (the bridges' `not_carried_over`): compared without
# them, the rest byte for byte.
NOT_CARRIED_OVER = {("kpa-compare-demo", "agreement"): _without_the_comparisons}


def _diff(before: bytes, after: bytes) -> str:
    try:
        lines = difflib.unified_diff(before.decode().splitlines(), after.decode().splitlines(), "kept", "now",
                                     lineterm="", n=1)
        return "\n".join(list(lines)[:40])
    except UnicodeDecodeError:
        return f"(binary: {len(before)} bytes kept, {len(after)} now)"

