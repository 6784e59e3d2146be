"""What the lifecycle tests share: a second, empty database of either engine, and a project's figures as bytes.

`other_app(engine)` is an app on a freshly migrated, empty database of its own (a copy of the SQLite template,
or a new PostgreSQL schema dropped at the end of the test): the target of a restore or a project move.
`figures(slugs)` is everything the server gives out about projects, as bytes per name: every export of every
format of the project's type (default and with pending items), agreement and gold (`flask agreement --json`)
and, where the format ranks, the ranking (`flask rank --json`). Two databases hold the same projects when these
are equal; exports embed no time (README.txt names the project and counts only), so they are compared whole.
"""
from __future__ import annotations

import hashlib
import json
import uuid
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import func, select

from annotator.campaigns.exports import run_export
from annotator.core.extensions import db
from annotator.core.models import Project, User
from annotator.lookups.formats import FORMATS, exports_project, project_format
from bench.common import with_search_path
from tests.conftest import (
    POSTGRES_URL,
    _empty_postgres,
    _empty_sqlite,
    _migrate,
    _postgres_problem,
    _test_app,
    libpq,
    missing,
)


@pytest.fixture
def other_app(sqlite_template: Path, tmp_path: Path) -> Iterator[Callable[[str], Flask]]:
    made: list[tuple[Flask, str | None]] = []

    def make(engine: str) -> Flask:
        schema = None
        if engine == "sqlite":
            path = tmp_path / f"target-{len(made)}.db"
            path.write_bytes(sqlite_template.read_bytes())
            url = f"sqlite:///{path}"
        else:
            schema = new_schema("annotator_target")
            url = with_search_path(POSTGRES_URL, schema)
            _migrate(url)
        target = _test_app(url)
        target.config["EXPORT_DIR"] = tmp_path / f"exports-{len(made)}"
        made.append((target, schema))
        return target

    yield make
    for target, schema in made:
        with target.app_context():
            db.session.remove()
            db.engine.dispose()
        if schema:
            drop_schema(schema)


def new_schema(prefix: str) -> str:
    """A new, empty PostgreSQL schema on the tests' server, named `<prefix>_<random>` (the test is missing without the
    server, as every PostgreSQL case is); `drop_schema` removes it with what it holds."""
    if problem := _postgres_problem():
        missing(problem)
    import psycopg
    schema = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(libpq(POSTGRES_URL), autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return schema


def drop_schema(schema: str) -> None:
    import psycopg
    with psycopg.connect(libpq(POSTGRES_URL), autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


def other_engine(app: Flask) -> str:
    return "sqlite" if str(app.config["SQLALCHEMY_DATABASE_URI"]).startswith("postgresql") else "postgresql"


def figures(app: Flask, out: Path, slugs: list[str] | None = None) -> dict[str, bytes]:
    """Every export, agreement and ranking of the projects (all when `slugs` is None), by name; in `app`'s context."""
    db.session.remove()
    found: dict[str, bytes] = {}
    query = select(Project).order_by(Project.slug)
    names = [p.slug for p in db.session.scalars(query) if slugs is None or p.slug in slugs]
    runner = app.test_cli_runner()
    for slug in names:
        for fmt in (f for f in FORMATS.values() if exports_project(f, _project(slug))):
            for incomplete in (False, True):
                project = _project(slug)
                where = out / project.slug / fmt.name / str(incomplete)
                for path in run_export(fmt, project, where, incomplete).paths:
                    found[str(Path(path).relative_to(out))] = Path(path).read_bytes()
        for command in (["agreement", "--json"], ["rank", "--json"]):
            if command[0] == "rank" and not project_format(_project(slug)).ranks(_project(slug)):
                continue
            result = runner.invoke(args=[command[0], "--project", slug, *command[1:]])
            assert result.exit_code == 0, result.output
            found[f"{slug}/{command[0]}"] = result.output.encode()
    db.session.remove()
    return found


@pytest.fixture
def demo_figures(app: Flask, demo: str, run_shared, tmp_path: Path) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    """`figures` of the demo as `demo` stores it, on the test's engine: a pure function of the demo's rows, which
    every test gets the same (and `figures` writes nothing to the database), so computed once per engine in the
    run (`run_shared`) and read by the later tests."""
    found, _ = run_shared.get_or_make(f"demo-figures-{db.engine.dialect.name}",
                                      lambda: figures(app, tmp_path / "demo-figures"))
    return found


def _project(slug: str) -> Project:
    return db.session.scalars(select(Project).where(Project.slug == slug)).one()


def digests(found: dict[str, bytes]) -> dict[str, str]:
    return {name: hashlib.sha256(content).hexdigest() for name, content in found.items()}


def counts() -> dict[str, int]:
    """Rows per table, read by a fresh session."""
    db.session.remove()
    found = {t.name: db.session.scalar(select(func.count()).select_from(t)) for t in db.metadata.sorted_tables}
    db.session.remove()
    return found


def fill_every_table() -> None:
    """Rows in the tables the demo leaves empty, on project kpa-demo, with the values that are hard to carry:
    bytes, floats, booleans, date-times with microseconds, a SQL NULL and a JSON null in one JSON column,
    a crowd account (its name holds the worker id), a token, a listed annotator."""
    from datetime import datetime

    from annotator.core.models import (
        Adjudication,
        AnnotatorState,
        ApiToken,
        Assignment,
        ControlAnswer,
        CrowdLink,
        CrowdSession,
        CrowdWorker,
        GoldSet,
        Item,
        QuizResult,
        Submission,
        project_annotators,
    )
    db.session.remove()
    project = _project("kpa-demo")
    items = db.session.scalars(select(Item).where(Item.project_id == project.id).order_by(Item.position)).all()
    voter = db.session.scalars(select(User).where(User.username == "annotator1")).one()
    admin = db.session.scalars(select(User).where(User.role == "admin")).first()
    vote = db.session.scalars(select(Assignment).where(Assignment.project_id == project.id)).first()
    crowd = User(username="prolific:5f1e0c0ffee0c0ffee0c0ffe", role="annotator", active=True)
    db.session.add(crowd)
    db.session.flush()
    when = datetime(2026, 11, 26, 7, 8, 9, 123456)
    link = CrowdLink(project_id=project.id, platform="prolific", nonce="ab" * 16, hits=3, completion_code="C0DE",
                     active=False, created_at=when)
    gold = GoldSet(name="gold", task="kpa2021", project_id=project.id, filename="g.zip",
                   content=bytes(range(256)), options={"split": "dev", "ratio": 0.1})
    db.session.add_all([link, gold, ApiToken(user_id=voter.id, digest="d" * 64, note="carried by backups only"),
                        CrowdWorker(platform="prolific", worker_id="5f1e0c0ffee0c0ffee0c0ffe", user_id=crowd.id)])
    db.session.flush()
    db.session.add_all([
        CrowdSession(link_id=link.id, user_id=crowd.id, session_key="S1", details={"study": "x"}, started_at=when),
        Submission(gold_set_id=gold.id, team="t", system="s", filename="s.csv", content=b"\x00\xff\n",
                   metrics={"map": 0.30000000000000004, "nan": None}, report={"detail": []}),
        AnnotatorState(project_id=project.id, user_id=voter.id, quiz_status="passed", blocked_at=when,
                       blocked_reason="low accuracy", exempt=True),
        QuizResult(project_id=project.id, user_id=crowd.id, attempt=1, answered=4, score=2 / 3, passed=False),
        ControlAnswer(assignment_id=vote.id, project_id=project.id, item_id=vote.item_id, user_id=vote.user_id,
                      score=1 / 3, created_at=when),
        Adjudication(project_id=project.id, item_id=items[-1].id, user_id=admin.id, answer={"matches": []}),
        Assignment(project_id=project.id, item_id=items[-1].id, user_id=crowd.id, status="leased",
                   expires_at=when),  # answer: SQL NULL
        Assignment(project_id=project.id, item_id=items[-2].id, user_id=crowd.id, status="expired",
                   expires_at=when, answer=None),  # answer: JSON null
    ])
    db.session.execute(project_annotators.insert().values(project_id=project.id, user_id=crowd.id))
    db.session.commit()
    db.session.remove()


def json_nulls() -> tuple[int, int]:
    """(SQL NULL, JSON null) answers of assignments, by a fresh session."""
    from annotator.core.models import Assignment
    db.session.remove()
    sql = db.session.scalar(select(func.count()).where(Assignment.answer.is_(None)))
    text = db.session.scalar(select(func.count()).where(db.cast(Assignment.answer, db.Text) == "null"))
    db.session.remove()
    return sql, text


Files = dict[str, bytes]


@pytest.fixture
def backup(app, demo, tmp_path) -> Path:  # type: ignore[no-untyped-def]
    """The demo's backup, and the database emptied."""
    path = tmp_path / "backup.zip"
    assert app.test_cli_runner().invoke(args=["backup", str(path)]).exit_code == 0
    _empty_postgres() if db.engine.dialect.name == "postgresql" else _empty_sqlite()
    return path


def spoiled(path: Path, change: Callable[[Files], Files]) -> Path:
    with zipfile.ZipFile(path) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    out = path.with_name("spoiled.zip")
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in change(files).items():
            archive.writestr(name, content)
    return out


def manifest_changed(change: Callable[[dict], None]) -> Callable[[Files], Files]:
    def apply(files: Files) -> Files:
        manifest = json.loads(files["manifest.json"])
        change(manifest)
        return {**files, "manifest.json": json.dumps(manifest).encode()}
    return apply


def refused(app, path: Path) -> str:  # type: ignore[no-untyped-def]
    """The restore's message, once it was seen to fail with exit status 1 and leave every table empty."""
    result = app.test_cli_runner().invoke(args=["restore", str(path)])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit) and "Nothing was changed." in result.output
    assert set(counts().values()) == {0}
    return result.output


def resealed(path: Path, change: Callable[[Files], Files]) -> Path:
    """A copy of the archive with files changed and the manifest's checksums and row counts made to match them:
    an archive edited by someone who knew the format, which only the checks of values can refuse."""
    def seal(files: Files) -> Files:
        files = change(dict(files))
        manifest = json.loads(files["manifest.json"])
        for table in manifest["tables"]:
            content = files[table["file"]]
            table["sha256"] = hashlib.sha256(content).hexdigest()
            table["rows"] = content.count(b"\n")
        return {**files, "manifest.json": json.dumps(manifest).encode()}
    return spoiled(path, seal)
