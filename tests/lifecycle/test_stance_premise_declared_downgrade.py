"""Migration 0022_stance_premise_declared up and down: the kept database's RuArg project (stage "both") and two
stage projects as the built-in type stored them (a Russian stance stage with a known answer per sentence, a control
item drawn from its gold and an admin's decision; its premise stage, with a decision too) become declared projects
of their stages' definitions with every vote, decision and known answer mapped, and `flask db downgrade
0021_cloze_declared` gives every row back as it was; a project holding what the built-in type cannot hold is
refused by name, and nothing changes (SQLite: the file is copied, upgraded and downgraded as a user would)."""
from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from alembic.script import ScriptDirectory

from annotator.core.extensions import db
from annotator.core.schema import MIGRATIONS
from tests.conftest import _test_app
from tests.lifecycle.files_once import built_once
from tests.lifecycle.test_emphasis_declared_downgrade import KEPT, flask_db
from tests.support.before_one_engine import ROWS, read_manifest, stored_rows

REVISION = "0022_stance_premise_declared"
BEFORE = ScriptDirectory(str(MIGRATIONS)).get_revision(REVISION).down_revision   # the revision it follows
SLUG = "stance-demo"
STANCE, PREMISE = "ru-stance", "ru-premise"
CLAIMS = ("masks", "quarantine", "vaccines")
# The built-in's rows of the two stage projects: (item, user, {claim: codes}) per vote, as its labels() stored them
STANCE_VOTES = [("s1", "annotator1", {"masks": 2, "quarantine": -1, "vaccines": -1}),
                ("s1", "annotator2", {"masks": 2, "quarantine": -1, "vaccines": 1}),
                ("s2", "annotator1", {"masks": 0, "quarantine": 2, "vaccines": -1}),
                ("s2", "annotator2", {"masks": 2, "quarantine": 2, "vaccines": -1})]
PREMISE_VOTES = [("s1", "annotator1", {"masks": 2}), ("s1", "annotator2", {"masks": 1}),
                 ("s2", "annotator1", {"masks": 0, "quarantine": 2}), ("s2", "annotator3", {"masks": 0,
                                                                                         "quarantine": 1})]


# Each of the three is built once for the run (tests/lifecycle/files_once.py: `flask db` runs in a new process) and
# copied for the module's tests; a test changes only its own copy (`upgraded`).
def _built(factory: pytest.TempPathFactory, name: str, build: Any) -> Path:
    return built_once(factory, f"{name}.db", build, factory.mktemp(name) / "annotator.db")


@pytest.fixture(scope="module")
def before_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kept database at the revision before the switch, with the two stage projects of the built-in type."""
    def build(path: Path) -> None:
        shutil.copy(KEPT / read_manifest(KEPT)["database"], path)
        done = flask_db(f"sqlite:///{path}", "upgrade", BEFORE)
        assert done.returncode == 0, done.stderr
        with closing(sqlite3.connect(path)) as conn, conn:
            _add_stage_projects(conn)
    return _built(tmp_path_factory, "ruarg-before", build)


@pytest.fixture(scope="module")
def upgraded_once(before_once: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    def build(path: Path) -> None:
        _copy(before_once, path)
        done = flask_db(f"sqlite:///{path}", "upgrade")
        assert done.returncode == 0, done.stderr
    return _built(tmp_path_factory, "ruarg-upgraded", build)


@pytest.fixture(scope="module")
def at_the_switch_once(upgraded_once: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The upgraded database taken down to this migration's revision: the migrations after it undone first, as
    `flask db downgrade 0021_cloze_declared` from head undoes them in the same run. Their downgrades succeed on
    its rows, so a refusal the tests below provoke is this migration's, and the revision left is this one's."""
    def build(path: Path) -> None:
        _copy(upgraded_once, path)
        done = flask_db(f"sqlite:///{path}", "downgrade", REVISION)
        assert done.returncode == 0, done.stderr
    return _built(tmp_path_factory, "ruarg-at-the-switch", build)


@pytest.fixture
def upgraded(at_the_switch_once: Path, tmp_path: Path) -> tuple[str, Path]:
    """A copy of it for one test to downgrade."""
    path = tmp_path / "annotator.db"
    _copy(at_the_switch_once, path)
    return f"sqlite:///{path}", path


def _copy(source: Path, target: Path) -> None:
    """A copy through SQLite's backup: the file alone could miss what is still in its write-ahead log."""
    with closing(sqlite3.connect(source)) as reading, closing(sqlite3.connect(target)) as writing:
        reading.backup(writing)


def _insert(conn: sqlite3.Connection, table: str, **values: Any) -> int:
    values = {k: json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v for k, v in values.items()}
    cursor = conn.execute(f"INSERT INTO {table} ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
                          list(values.values()))
    return int(cursor.lastrowid or 0)


def _project(conn: sqlite3.Connection, slug: str, settings: dict[str, Any]) -> int:
    return _insert(conn, "projects", slug=slug, name=slug, task_type="stance_premise", k=2, lease_minutes=30,
                   guidelines="", settings=settings, source={"format": "ruarg2022", "split": "train",
                                                             "layout": "labelled", "newline": "lf"},
                   created_at="2026-11-28 10:00:00", archived=0, audience="all", quality={})


def _vote(conn: sqlite3.Connection, project: int, item: int, user: str, answer: dict[str, Any],
          rows: list[tuple[str, str, str]]) -> None:
    user_id = conn.execute("SELECT id FROM users WHERE username = ?", (user,)).fetchone()[0]
    assignment = _insert(conn, "assignments", project_id=project, item_id=item, user_id=user_id, status="submitted",
                         leased_at="2026-11-28 10:00:00", expires_at="2026-11-28 10:30:00",
                         submitted_at="2026-11-28 10:01:00", seconds_spent=20.0, answer=answer, excluded=0)
    for unit, field, value in rows:
        _insert(conn, "labels", assignment_id=assignment, project_id=project, item_id=item, user_id=user_id,
                unit=unit, field=field, value=value)


def _add_stage_projects(conn: sqlite3.Connection) -> None:
    """A built-in stance stage (Russian HIT) and its premise stage, as the built-in type stored them."""
    stance = _project(conn, STANCE, {"stage": "stance", "agree": 2, "relevant_votes": 2, "language": "ru",
                                     "stance_project": None, "claims": [
                                         {"key": "masks", "en": "Wearing masks is beneficial for society",
                                          "ru": "Ношение масок полезно для общества"},
                                         {"key": "quarantine", "en": "The introduction and observance of quarantine "
                                          "is beneficial for society", "ru": "Введение и соблюдение карантина "
                                          "полезно для общества"},
                                         {"key": "vaccines", "en": "Vaccination is beneficial for society",
                                          "ru": "Вакцинация полезна для общества"}]})
    premise = _project(conn, PREMISE, {"stage": "premise", "stance_project": STANCE, "agree": 2, "language": "ru"})
    known = {"s1": {"masks": {"stance": 2, "premise": 2}, "quarantine": {"stance": -1, "premise": -1},
                    "vaccines": {"stance": -1, "premise": -1}},
             "s2": {"masks": {"stance": 2, "premise": 0}, "quarantine": {"stance": 2, "premise": 2},
                    "vaccines": {"stance": -1, "premise": -1}}}
    items = {}
    for position, name in enumerate(("s1", "s2", "s3")):
        reference = known.get(name) or {"masks": {"stance": 0}, "quarantine": {"stance": -1},   # a drawn control
                                        "vaccines": {"stance": -1}}
        items[name] = _insert(conn, "items", project_id=stance, external_id=name, position=position,
                              payload={"id": name, "text": f"Предложение {name}."}, done_count=2,
                              reference=reference, is_control=int(name == "s3"))
    for name, user, codes in STANCE_VOTES:
        _vote(conn, stance, items[name], user, {"claims": {c: {"stance": code} for c, code in codes.items()}},
              [(c, "stance", str(code)) for c, code in codes.items()])
    _insert(conn, "adjudications", project_id=stance, item_id=items["s2"], user_id=1,
            answer={"claims": {"masks": {"stance": 2}, "quarantine": {"stance": 2}, "vaccines": {"stance": -1}}},
            created_at="2026-11-28 11:00:00")
    relevant = {"s1": ["masks"], "s2": ["masks", "quarantine"]}
    premise_items = {}
    for position, (name, claims) in enumerate(relevant.items()):
        premise_items[name] = _insert(conn, "items", project_id=premise, external_id=name, position=position,
                                      payload={"id": name, "text": f"Предложение {name}.", "claims": claims},
                                      done_count=2, reference={c: {"premise": known[name][c]["premise"]}
                                                               for c in claims}, is_control=0)
    for name, user, codes in PREMISE_VOTES:
        _vote(conn, premise, premise_items[name], user,
              {"claims": {c: {"premise": code} for c, code in codes.items()}},
              [(c, "premise", str(code)) for c, code in codes.items()])
    _insert(conn, "adjudications", project_id=premise, item_id=premise_items["s1"], user_id=1,
            answer={"claims": {"masks": {"premise": 2}}}, created_at="2026-11-28 11:00:00")


def _rows(path: Path, slug: str) -> dict[str, Any]:
    """The project's type, definition, settings and source, and its label rows, answers, decisions and known
    answers, in id order."""
    with sqlite3.connect(path) as conn:
        project = conn.execute("SELECT id, task_type, definition, settings, source FROM projects WHERE slug = ?",
                               (slug,)).fetchone()
        ident = project[0]

        def column(sql: str) -> list[Any]:
            return [tuple(json.loads(v) if isinstance(v, str) and v[:1] in "{[" else v for v in row)
                    for row in conn.execute(sql, (ident,))]
        return {"task_type": project[1], "definition": json.loads(project[2]) if project[2] else None,
                "settings": json.loads(project[3]), "source": json.loads(project[4]),
                "labels": column("SELECT assignment_id, unit, field, value FROM labels WHERE project_id = ? "
                                 "ORDER BY id"),
                "answers": column("SELECT id, answer FROM assignments WHERE project_id = ? ORDER BY id"),
                "decisions": column("SELECT id, answer FROM adjudications WHERE project_id = ? ORDER BY id"),
                "known": column("SELECT external_id, reference FROM items WHERE project_id = ? ORDER BY id")}


def test_the_stance_stage_is_a_declared_project_of_stance_yaml_in_russian(upgraded_once: Path) -> None:
    now = _rows(upgraded_once, STANCE)
    assert now["task_type"] == "custom" and now["settings"] == {}
    assert now["definition"]["name"] == "Stance per claim (RuArg-2022, first stage)"
    assert now["definition"]["show"] == [{"field": "text", "label": "Предложение"}]
    group = now["definition"]["questions"][0]
    assert [e["text"] for e in group["elements"]][0] == "Ношение масок полезно для общества"
    assert [q["id"] for q in group["questions"]] == ["relevance", "stance"]
    first = [row[1:] for row in now["labels"] if row[0] == now["answers"][0][0]]
    assert first == [("masks", "relevance", "relevant"), ("masks", "stance", "2"),
                     ("quarantine", "relevance", "irrelevant"), ("vaccines", "relevance", "irrelevant")]
    assert now["answers"][0][1] == {"claims": {"masks": {"relevance": "relevant", "stance": "2"},
                                               "quarantine": {"relevance": "irrelevant"},
                                               "vaccines": {"relevance": "irrelevant"}}}


def test_the_stance_stage_s_decision_and_known_answers_are_the_definition_s(upgraded_once: Path) -> None:
    now = _rows(upgraded_once, STANCE)
    assert [answer for _, answer in now["decisions"]] == [{"claims": {
        "masks": {"relevance": "relevant", "stance": "2"}, "quarantine": {"relevance": "relevant", "stance": "2"},
        "vaccines": {"relevance": "irrelevant"}}}]
    known = dict(now["known"])
    assert known["s1"]["claims"]["masks"] == {"relevance": "relevant", "stance": "2", "premise": "2"}
    assert known["s3"] == {"claims": {"masks": {"relevance": "relevant", "stance": "0"},
                                      "quarantine": {"relevance": "irrelevant"},
                                      "vaccines": {"relevance": "irrelevant"}}}


def test_the_premise_stage_is_a_declared_project_of_premise_yaml_naming_its_stance_stage(upgraded_once: Path) -> None:
    now = _rows(upgraded_once, PREMISE)
    assert now["task_type"] == "custom" and now["settings"] == {}
    assert now["source"]["stance_project"] == STANCE
    assert [q["id"] for q in now["definition"]["questions"]] == ["masks_premise", "quarantine_premise",
                                                                 "vaccines_premise"]
    assert [row[1:] for row in now["labels"]][:3] == [("masks_premise", "masks_premise", "2"),
                                                      ("masks_premise", "masks_premise", "1"),
                                                      ("masks_premise", "masks_premise", "0")]
    assert now["answers"][2][1] == {"masks_premise": "0", "quarantine_premise": "2"}
    assert [answer for _, answer in now["decisions"]] == [{"masks_premise": "2"}]
    assert dict(now["known"])["s2"] == {"masks_premise": "0", "quarantine_premise": "2"}


def test_every_vote_keeps_its_assignment_and_no_row_is_counted_twice(before_once: Path, upgraded_once: Path) -> None:
    for slug in (STANCE, PREMISE, SLUG):
        before, after = _rows(before_once, slug), _rows(upgraded_once, slug)
        assert [ident for ident, _ in after["answers"]] == [ident for ident, _ in before["answers"]]
        assert {row[0] for row in after["labels"]} == {row[0] for row in before["labels"]}
        relevant = sum(1 for row in before["labels"] if row[3] != "-1")
        stances = sum(1 for row in before["labels"] if row[2] == "stance")
        assert len(after["labels"]) == relevant + (stances if slug != PREMISE else 0)


def test_the_downgrade_gives_back_every_stage_project_as_the_built_in_stored_it(before_once: Path,
                                                                               upgraded) -> None:
    url, path = upgraded
    done = flask_db(url, "downgrade", BEFORE)
    assert done.returncode == 0, done.stderr
    for slug in (STANCE, PREMISE):
        then, now = _rows(before_once, slug), _rows(path, slug)
        assert now["settings"] == {k: v for k, v in then["settings"].items()
                                   if k not in ("agree", "relevant_votes", "claims") and v is not None}
        then["settings"] = now["settings"]
        assert now == then, slug


def _of_ruarg(row: dict) -> bool:
    return (row.get("project") or (row.get("item") or [None])[0] or row.get("slug")) == SLUG


def test_the_downgrade_gives_back_the_kept_project_with_every_row_as_it_was(upgraded) -> None:
    url, path = upgraded
    done = flask_db(url, "downgrade", BEFORE)
    assert done.returncode == 0, done.stderr
    kept = json.loads((KEPT / ROWS).read_text(encoding="utf-8"))
    app = _test_app(url)
    with app.app_context():
        now = stored_rows()
        db.engine.dispose()
    for table in ("projects", "items", "assignments", "labels", "control_answers", "annotator_states"):
        assert [r for r in now[table] if _of_ruarg(r)] == [r for r in kept[table] if _of_ruarg(r)], table


def test_an_answer_the_built_in_type_cannot_hold_refuses_the_downgrade_naming_it(upgraded) -> None:
    url, path = upgraded
    with sqlite3.connect(path) as conn:   # a relevant claim without its stance (an edited definition could allow it)
        ident = conn.execute("SELECT a.id FROM assignments a JOIN items i ON i.id = a.item_id WHERE i.external_id = "
                             "'s1' AND a.project_id = (SELECT id FROM projects WHERE slug = ?) ORDER BY a.id",
                             (STANCE,)).fetchone()[0]
        conn.execute("UPDATE assignments SET answer = json(?) WHERE id = ?",
                     ('{"claims": {"masks": {"relevance": "relevant"}}}', ident))
    before = _rows(path, STANCE)
    done = flask_db(url, "downgrade", BEFORE)
    assert done.returncode != 0
    assert f"project '{STANCE}', item 's1', assignment {ident}: claim 'masks' gives" in done.stderr
    assert "not a code for each of stance; nothing changed" in done.stderr
    assert _rows(path, STANCE) == before
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (REVISION,)


def test_a_vote_the_built_in_type_cannot_hold_refuses_the_downgrade_naming_its_item(upgraded) -> None:
    url, path = upgraded
    with sqlite3.connect(path) as conn:   # a row of a question the built-in never had
        conn.execute("INSERT INTO labels (assignment_id, project_id, item_id, user_id, unit, field, value) "
                     "SELECT assignment_id, project_id, item_id, user_id, 'masks', 'confidence', 'high' FROM labels "
                     "WHERE project_id = (SELECT id FROM projects WHERE slug = ?) ORDER BY id LIMIT 1", (SLUG,))
    before = _rows(path, SLUG)
    done = flask_db(url, "downgrade", BEFORE)
    assert done.returncode != 0
    assert f"project '{SLUG}', item '" in done.stderr
    assert "(the row ('masks', 'confidence', 'high') is none of the built-in's); nothing changed" in done.stderr
    assert _rows(path, SLUG) == before
